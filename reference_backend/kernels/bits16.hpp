// float16 and bfloat16 conversions for the reference kernels' inner loops: the same results
// as sdk::to_double / sdk::from_double (exact decoding; one rounding to nearest even, NaN
// kept quiet with its sign, overflow to Inf, exact subnormals) done on the bit patterns,
// because the SDK's frexp/ldexp version costs about 100 ns an element. The tests compare
// these against the SDK's on every 16-bit pattern through the kernels.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "devplug/sdk/dtype.hpp"

namespace devplug::reference::bits16 {

template <typename T>
struct Format;
template <>
struct Format<sdk::float16> {
  static constexpr int kExpBits = 5, kManBits = 10;
};
template <>
struct Format<sdk::bfloat16> {
  static constexpr int kExpBits = 8, kManBits = 7;
};

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

// The exact value of a 16-bit element.
template <typename T>
inline double decode(T v) {
  constexpr int E = Format<T>::kExpBits, M = Format<T>::kManBits, kBias = (1 << (E - 1)) - 1;
  const uint64_t sign = static_cast<uint64_t>(v.bits >> 15) << 63;
  const int exp_field = (v.bits >> M) & ((1 << E) - 1);
  const uint64_t man = v.bits & ((1u << M) - 1);
  if (exp_field == (1 << E) - 1)  // Inf or NaN: all-ones exponent, payload in the top bits
    return double_of(sign | (uint64_t{0x7FF} << 52) | (man << (52 - M)));
  if (exp_field == 0) {  // zero or subnormal: man * 2^(1 - bias - M), exact in double
    const double magnitude = static_cast<double>(man) * double_of(static_cast<uint64_t>(1023 + 1 - kBias - M) << 52);
    return double_of(sign | bits_of(magnitude));
  }
  return double_of(sign | (static_cast<uint64_t>(exp_field - kBias + 1023) << 52) | (man << (52 - M)));
}

// `x` rounded once, to nearest with ties to even, to the 16-bit format T.
template <typename T>
inline T encode(double x) {
  constexpr int E = Format<T>::kExpBits, M = Format<T>::kManBits, kBias = (1 << (E - 1)) - 1;
  constexpr uint16_t kExpMask = static_cast<uint16_t>(((1u << E) - 1) << M);
  const uint64_t u = bits_of(x);
  const uint16_t sign = static_cast<uint16_t>((u >> 48) & 0x8000u);
  const int exp_field = static_cast<int>((u >> 52) & 0x7FF);
  const uint64_t man = u & ((uint64_t{1} << 52) - 1);
  if (exp_field == 0x7FF)  // Inf stays Inf; NaN becomes the quiet NaN with x's sign
    return T{static_cast<uint16_t>(sign | kExpMask | (man != 0 ? (1u << (M - 1)) : 0u))};
  if (exp_field == 0) return T{sign};  // double subnormals are far below T's smallest value
  const int e = exp_field - 1023;              // x = m * 2^(e - 52), m has 53 bits
  const uint64_t m = man | (uint64_t{1} << 52);
  // Right shift that leaves M + 1 significant bits for a normal result, fewer for a
  // subnormal one (units of T's smallest subnormal, 2^(1 - bias - M)).
  const int shift = e >= 1 - kBias ? 52 - M : 52 - M + (1 - kBias - e);
  if (shift > 53) return T{sign};  // below half the smallest subnormal
  uint64_t q = m >> shift;
  const uint64_t rest = m & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (q & 1u) != 0)) ++q;
  // Normal: the hidden bit in q adds one to the exponent field, and a rounding carry
  // moves on into it (up to Inf). Subnormal: q is the pattern, a carry gives the smallest
  // normal.
  const int64_t biased = e >= 1 - kBias ? e + kBias - 1 : 0;
  const int64_t pattern = (biased << M) + static_cast<int64_t>(q);
  if (pattern >= kExpMask) return T{static_cast<uint16_t>(sign | kExpMask)};
  return T{static_cast<uint16_t>(sign | pattern)};
}

}  // namespace devplug::reference::bits16
