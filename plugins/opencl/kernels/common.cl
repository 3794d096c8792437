// SPDX-License-Identifier: Apache-2.0
// Shared by every kernel family: dtype codes, per-dtype storage and compute types, loads and
// stores (16-bit floats are stored as 16 bits and computed in float32), and the strided
// geometry. Plain OpenCL C 1.2, no host assumptions, so a Level Zero plugin can compile the
// same source to SPIR-V.
//
// A program is specialised by -D options: DTA, DTB, DTC, DTO (dtype codes of operands a, b, c
// and the output, as devplug_dtype_t), OP_<name> (the op), HAS_FP64 (the device has
// cl_khr_fp64) and family-specific switches.

#ifdef HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define DT_BOOL 0
#define DT_U8 1
#define DT_I8 2
#define DT_I16 3
#define DT_I32 4
#define DT_I64 5
#define DT_F16 6
#define DT_BF16 7
#define DT_F32 8
#define DT_F64 9

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

// ---- per dtype: storage type, compute type, unsigned twin, bit width, is-float -------------
#define STORAGE_0 uchar
#define STORAGE_1 uchar
#define STORAGE_2 char
#define STORAGE_3 short
#define STORAGE_4 int
#define STORAGE_5 long
#define STORAGE_6 ushort
#define STORAGE_7 ushort
#define STORAGE_8 float
#define STORAGE_9 double

#define CALC_0 uchar
#define CALC_1 uchar
#define CALC_2 char
#define CALC_3 short
#define CALC_4 int
#define CALC_5 long
#define CALC_6 float
#define CALC_7 float
#define CALC_8 float
#define CALC_9 double

// The unsigned integer of the same width (bit patterns of floats too).
#define UNS_0 uchar
#define UNS_1 uchar
#define UNS_2 uchar
#define UNS_3 ushort
#define UNS_4 uint
#define UNS_5 ulong
#define UNS_6 ushort
#define UNS_7 ushort
#define UNS_8 uint
#define UNS_9 ulong

#define BITS_0 8
#define BITS_1 8
#define BITS_2 8
#define BITS_3 16
#define BITS_4 32
#define BITS_5 64
#define BITS_6 16
#define BITS_7 16
#define BITS_8 32
#define BITS_9 64

#define ISFLOAT_0 0
#define ISFLOAT_1 0
#define ISFLOAT_2 0
#define ISFLOAT_3 0
#define ISFLOAT_4 0
#define ISFLOAT_5 0
#define ISFLOAT_6 1
#define ISFLOAT_7 1
#define ISFLOAT_8 1
#define ISFLOAT_9 1

#define ISSIGNED_0 0
#define ISSIGNED_1 0
#define ISSIGNED_2 1
#define ISSIGNED_3 1
#define ISSIGNED_4 1
#define ISSIGNED_5 1
#define ISSIGNED_6 1
#define ISSIGNED_7 1
#define ISSIGNED_8 1
#define ISSIGNED_9 1

// ---- bfloat16: the top half of a float32; rounding to nearest even keeps NaN a NaN ---------
inline float bf16_to_float(ushort bits) { return as_float(((uint)bits) << 16); }

inline ushort bf16_from_float(float x) {
  uint u = as_uint(x);
  if (isnan(x)) return (ushort)((u >> 16) | 0x40u);  // quiet, sign and payload top kept
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}

#ifdef HAS_FP64
// Round once from double: round to odd into float (24 bits >= 8 + 2), then to nearest even.
inline ushort bf16_from_double(double x) {
  if (isnan(x)) return bf16_from_float((float)x);
  float f = convert_float_rtz(x);
  if ((double)f != x && !isinf(f)) f = as_float(as_uint(f) | 1u);
  return bf16_from_float(f);
}
#endif

// Round once from a 64-bit integer (same round-to-odd trick).
inline ushort bf16_from_long(long x) {
  float f = convert_float_rtz(x);
  if (convert_long_sat_rtz(f) != x) f = as_float(as_uint(f) | 1u);
  return bf16_from_float(f);
}

// ---- loads and stores: p is the typed buffer, i an element index ----------------------------
#define LOAD_0(p, i) ((p)[i])
#define LOAD_1(p, i) ((p)[i])
#define LOAD_2(p, i) ((p)[i])
#define LOAD_3(p, i) ((p)[i])
#define LOAD_4(p, i) ((p)[i])
#define LOAD_5(p, i) ((p)[i])
#define LOAD_6(p, i) vload_half((size_t)(i), (__global const half*)(p))
#define LOAD_7(p, i) bf16_to_float((p)[i])
#define LOAD_8(p, i) ((p)[i])
#define LOAD_9(p, i) ((p)[i])

// Stores a value of the dtype's compute type (float for 16-bit floats).
#define STORE_0(p, i, v) ((p)[i] = (uchar)((v) != 0))
#define STORE_1(p, i, v) ((p)[i] = (uchar)(v))
#define STORE_2(p, i, v) ((p)[i] = (char)(v))
#define STORE_3(p, i, v) ((p)[i] = (short)(v))
#define STORE_4(p, i, v) ((p)[i] = (int)(v))
#define STORE_5(p, i, v) ((p)[i] = (long)(v))
#define STORE_6(p, i, v) vstore_half_rte((float)(v), (size_t)(i), (__global half*)(p))
#define STORE_7(p, i, v) ((p)[i] = bf16_from_float((float)(v)))
#define STORE_8(p, i, v) ((p)[i] = (float)(v))
#define STORE_9(p, i, v) ((p)[i] = (double)(v))

// Stores a double into a floating dtype, rounding once.
#ifdef HAS_FP64
#define STORED_6(p, i, v) vstore_half_rte((double)(v), (size_t)(i), (__global half*)(p))
#define STORED_7(p, i, v) ((p)[i] = bf16_from_double((double)(v)))
#define STORED_8(p, i, v) ((p)[i] = (float)(v))
#define STORED_9(p, i, v) ((p)[i] = (double)(v))
#endif

// ---- operand slots ------------------------------------------------------------------------
#ifndef DTA
#define DTA DT_F32
#endif
#ifndef DTB
#define DTB DTA
#endif
#ifndef DTC
#define DTC DTA
#endif
#ifndef DTO
#define DTO DTA
#endif

#define A_ST CAT(STORAGE_, DTA)
#define B_ST CAT(STORAGE_, DTB)
#define C_ST CAT(STORAGE_, DTC)
#define O_ST CAT(STORAGE_, DTO)
#define A_CT CAT(CALC_, DTA)
#define B_CT CAT(CALC_, DTB)
#define O_CT CAT(CALC_, DTO)
#define A_UT CAT(UNS_, DTA)
#define O_UT CAT(UNS_, DTO)
#define A_BITS CAT(BITS_, DTA)
#define A_FLOAT CAT(ISFLOAT_, DTA)
#define O_FLOAT CAT(ISFLOAT_, DTO)
#define A_SIGNED CAT(ISSIGNED_, DTA)
#define LOAD_A(p, i) CAT(LOAD_, DTA)(p, i)
#define LOAD_B(p, i) CAT(LOAD_, DTB)(p, i)
#define LOAD_C(p, i) CAT(LOAD_, DTC)(p, i)
#define LOAD_O(p, i) CAT(LOAD_, DTO)(p, i)
#define STORE_O(p, i, v) CAT(STORE_, DTO)(p, i, v)
#define STORED_O(p, i, v) CAT(STORED_, DTO)(p, i, v)

// ---- strided geometry ---------------------------------------------------------------------
// Up to 4 operands of one shape. Mirrors struct Geometry in launch.hpp. Offsets and strides
// are in elements; index math is 64-bit.
#define GEOM_MAX_RANK 8
#define GEOM_OPERANDS 4
typedef struct {
  long shape[GEOM_MAX_RANK];
  long strides[GEOM_OPERANDS][GEOM_MAX_RANK];
  long offset[GEOM_OPERANDS];
  long numel;
  int rank;
  int dense;  // every operand is contiguous: element k is at offset + k
} geom_t;

// Element offset of row-major element k in operand `which`.
inline long geom_offset(const geom_t* g, int which, long k) {
  if (g->dense) return g->offset[which] + k;
  long at = g->offset[which];
  for (int d = g->rank - 1; d >= 0; --d) {
    const long n = g->shape[d];
    at += (k % n) * g->strides[which][d];
    k /= n;
  }
  return at;
}

// Offsets of element k in the first `count` operands, sharing one unravel.
inline void geom_offsets(const geom_t* g, long k, int count, long* out) {
  for (int w = 0; w < count; ++w) out[w] = g->offset[w];
  if (g->dense) {
    for (int w = 0; w < count; ++w) out[w] += k;
    return;
  }
  for (int d = g->rank - 1; d >= 0; --d) {
    const long n = g->shape[d];
    const long i = k % n;
    k /= n;
    for (int w = 0; w < count; ++w) out[w] += i * g->strides[w][d];
  }
}
