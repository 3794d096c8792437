// SPDX-License-Identifier: Apache-2.0
// fill and iota over a strided output (operand 0 of the geometry). DTO is the output dtype.

#if DTO == DT_F32
#define FROM_BITS(u) as_float((uint)(u))
#elif DTO == DT_F64
#define FROM_BITS(u) as_double(u)
#else
#define FROM_BITS(u) ((O_ST)(u))
#endif

// Every element = the value whose bit pattern (already rounded to DTO by the host) is `bits`.
__kernel void fill(const geom_t g, __global O_ST* o, const ulong bits) {
  const long k = get_global_id(0);
  if (k >= g.numel) return;
  o[geom_offset(&g, 0, k)] = FROM_BITS(bits);
}

// Element k = start + k * step, computed exactly where the format allows and rounded once.
// Floats: a fused multiply-add in double (float when the device lacks fp64); integers wrap.
#ifdef HAS_FP64
typedef double real_t;
#else
typedef float real_t;  // the host passes float arguments then
#endif

__kernel void iota(const geom_t g, __global O_ST* o, const real_t start_f, const real_t step_f,
                   const long start_i, const long step_i) {
  const long k = get_global_id(0);
  if (k >= g.numel) return;
  const long at = geom_offset(&g, 0, k);
#if O_FLOAT && defined(HAS_FP64)
  STORED_O(o, at, fma((double)k, step_f, start_f));
#elif O_FLOAT
  STORE_O(o, at, fma((float)k, step_f, start_f));
#else
  o[at] = (O_ST)((ulong)start_i + (ulong)k * (ulong)step_i);
#endif
}
