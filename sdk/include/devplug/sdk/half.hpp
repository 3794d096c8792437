// SPDX-License-Identifier: Apache-2.0
// float16 and bfloat16 as 16-bit patterns, for plugin authors and hosts.
//
// Conversions from double round once, to nearest with ties to even, straight to the 16-bit
// format (never through float, which would round twice). NaN stays NaN (quiet, sign kept),
// overflow gives Inf, and subnormals are exact. Decoding to double is exact.
#pragma once

#include <cstdint>
#include <cstring>

namespace devplug::sdk {

namespace detail {

inline uint64_t bits_of(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
inline double double_of(uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// An IEEE-style binary format with a 1-bit sign, `kExpBits` of exponent and `kManBits` of
// stored mantissa, packed in 16 bits. Both directions work on the bit patterns (no frexp,
// ldexp or rounding-mode calls: an element costs a few ns, not ~100).
template <int kExpBits, int kManBits>
struct Binary16Format {
  static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  static constexpr uint16_t kExpMask = static_cast<uint16_t>(((1u << kExpBits) - 1) << kManBits);
  static constexpr uint16_t kManMask = static_cast<uint16_t>((1u << kManBits) - 1);

  static uint16_t encode(double x) {
    const uint64_t u = bits_of(x);
    const uint16_t sign = static_cast<uint16_t>((u >> 48) & 0x8000u);
    const int exp_field = static_cast<int>((u >> 52) & 0x7FF);
    const uint64_t man = u & ((uint64_t{1} << 52) - 1);
    if (exp_field == 0x7FF)  // Inf stays Inf; NaN becomes the quiet NaN with x's sign
      return static_cast<uint16_t>(sign | kExpMask | (man != 0 ? (1u << (kManBits - 1)) : 0u));
    if (exp_field == 0) return sign;  // double subnormals lie far below the smallest 16-bit value
    const int e = exp_field - 1023;   // x = m * 2^(e - 52), m has 53 bits
    const uint64_t m = man | (uint64_t{1} << 52);
    // A right shift that keeps kManBits + 1 significant bits for a normal result, fewer for
    // a subnormal one (counted in units of the smallest subnormal, 2^(1 - bias - kManBits)).
    const int shift = e >= 1 - kBias ? 52 - kManBits : 52 - kManBits + (1 - kBias - e);
    if (shift > 53) return sign;  // below half the smallest subnormal
    uint64_t q = m >> shift;
    const uint64_t rest = m & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (q & 1u) != 0)) ++q;  // to nearest, ties to even
    // Normal: q's leading bit adds one to the exponent field, and a rounding carry moves on
    // into it (up to Inf). Subnormal: q is the pattern; a carry gives the smallest normal.
    const int64_t biased = e >= 1 - kBias ? e + kBias - 1 : 0;
    const int64_t pattern = (biased << kManBits) + static_cast<int64_t>(q);
    if (pattern >= kExpMask) return static_cast<uint16_t>(sign | kExpMask);
    return static_cast<uint16_t>(sign | pattern);
  }

  static double decode(uint16_t bits) {
    const uint64_t sign = static_cast<uint64_t>(bits >> 15) << 63;
    const int exp_field = (bits & kExpMask) >> kManBits;
    const uint64_t man = bits & kManMask;
    if (exp_field == (1 << kExpBits) - 1)  // Inf or NaN: the payload moves to the top bits
      return double_of(sign | (uint64_t{0x7FF} << 52) | (man << (52 - kManBits)));
    if (exp_field == 0) {  // zero or subnormal: man * 2^(1 - bias - kManBits), exact
      const double unit = double_of(static_cast<uint64_t>(1023 + 1 - kBias - kManBits) << 52);
      return double_of(sign | bits_of(static_cast<double>(man) * unit));
    }
    return double_of(sign | (static_cast<uint64_t>(exp_field - kBias + 1023) << 52) |
                     (man << (52 - kManBits)));
  }
};

using HalfFormat = Binary16Format<5, 10>;
using BFloat16Format = Binary16Format<8, 7>;

}  // namespace detail

// IEEE binary16 bits of `x`, rounded once to nearest even.
inline uint16_t double_to_half_bits(double x) { return detail::HalfFormat::encode(x); }
inline double half_bits_to_double(uint16_t bits) { return detail::HalfFormat::decode(bits); }

// bfloat16 bits of `x`, rounded once to nearest even.
inline uint16_t double_to_bfloat16_bits(double x) { return detail::BFloat16Format::encode(x); }
inline double bfloat16_bits_to_double(uint16_t bits) { return detail::BFloat16Format::decode(bits); }

}  // namespace devplug::sdk
