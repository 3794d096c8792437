// SPDX-License-Identifier: Apache-2.0
// Philox4x32-10 random numbers (philox_bits, philox_uniform, philox_normal), bit-identical
// with the reference backend: key = seed, word w comes from counter block offset + w / 4
// (c0, c1 = its low and high halves, c2 = c3 = 0) and is output word w % 4. Element k is the
// k-th element of the output in row-major order, whatever the strides or launch geometry.

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

inline uint4 philox_block(ulong n, uint k0, uint k1) {
  uint c0 = (uint)n, c1 = (uint)(n >> 32), c2 = 0, c3 = 0;
  for (int round = 0; round < 10; ++round) {
    const uint hi0 = mul_hi(PHILOX_M0, c0), lo0 = PHILOX_M0 * c0;
    const uint hi1 = mul_hi(PHILOX_M1, c2), lo1 = PHILOX_M1 * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  return (uint4)(c0, c1, c2, c3);
}

inline uint block_word(uint4 b, int i) { return i == 0 ? b.x : i == 1 ? b.y : i == 2 ? b.z : b.w; }

// Word w of the stream.
inline uint philox_word(ulong w, ulong offset, uint k0, uint k1) {
  return block_word(philox_block(offset + w / 4, k0, k1), (int)(w % 4));
}

#ifdef HAS_FP64
typedef double real_t;
#define STORE_REAL(p, i, v) STORED_O(p, i, v)
#else
typedef float real_t;
#define STORE_REAL(p, i, v) STORE_O(p, i, v)
#endif

__kernel void philox(const geom_t g, __global O_ST* out, const ulong seed, const ulong offset) {
  const long k = get_global_id(0);
  if (k >= g.numel) return;
  const long at = geom_offset(&g, 0, k);
  const uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
  const ulong e = (ulong)k;
#if defined(OP_philox_bits) && DTO == DT_I32
  out[at] = (int)philox_word(e, offset, k0, k1);
#elif defined(OP_philox_bits)
  out[at] =
      (long)(((ulong)philox_word(2 * e + 1, offset, k0, k1) << 32) | philox_word(2 * e, offset, k0, k1));
#elif defined(OP_philox_uniform) && DTO == DT_F64
  const ulong bits =
      ((ulong)philox_word(2 * e + 1, offset, k0, k1) << 32) | philox_word(2 * e, offset, k0, k1);
  out[at] = (double)(bits >> 11) * 0x1.0p-53;
#elif defined(OP_philox_uniform) && DTO == DT_F32
  out[at] = (float)(philox_word(e, offset, k0, k1) >> 8) * 0x1.0p-24f;
#elif defined(OP_philox_uniform) && DTO == DT_F16
  STORE_O(out, at, (float)(philox_word(e, offset, k0, k1) >> 21) * 0x1.0p-11f);
#elif defined(OP_philox_uniform) && DTO == DT_BF16
  STORE_O(out, at, (float)(philox_word(e, offset, k0, k1) >> 24) * 0x1.0p-8f);
#elif defined(OP_philox_normal) && DTO == DT_F64
  const uint4 b = philox_block(offset + e, k0, k1);
  const ulong lo = ((ulong)b.y << 32) | b.x, hi = ((ulong)b.w << 32) | b.z;
  const double u1 = (double)((lo >> 11) + 1) * 0x1.0p-53;
  const double u2 = (double)(hi >> 11) * 0x1.0p-53;
  out[at] = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
#elif defined(OP_philox_normal)
  const real_t u1 = (real_t)((philox_word(2 * e, offset, k0, k1) >> 8) + 1) * (real_t)0x1.0p-24f;
  const real_t u2 = (real_t)(philox_word(2 * e + 1, offset, k0, k1) >> 8) * (real_t)0x1.0p-24f;
  STORE_REAL(out, at, sqrt((real_t)-2 * log(u1)) * cospi((real_t)2 * u2));
#else
#error "philox.cl: no supported OP_<name> / DTO pair"
#endif
}
