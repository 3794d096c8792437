// float16 and bfloat16 as 16-bit patterns, for plugin authors and hosts.
//
// Conversions from double round once, to nearest with ties to even, straight to the 16-bit
// format (never through float, which would round twice). NaN stays NaN (quiet, sign kept),
// overflow gives Inf, and subnormals are exact. Decoding to double is exact.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace devplug::sdk {

namespace detail {

// An IEEE-style binary format with a 1-bit sign, `kExpBits` of exponent and `kManBits` of
// stored mantissa, packed in 16 bits.
template <int kExpBits, int kManBits>
struct Binary16Format {
  static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  static constexpr uint16_t kExpMask = static_cast<uint16_t>(((1u << kExpBits) - 1) << kManBits);
  static constexpr uint16_t kManMask = static_cast<uint16_t>((1u << kManBits) - 1);

  static uint16_t encode(double x) {
    const uint16_t sign = std::signbit(x) ? 0x8000u : 0u;
    if (std::isnan(x)) return static_cast<uint16_t>(sign | kExpMask | (1u << (kManBits - 1)));
    const double a = std::fabs(x);
    // Halfway between the largest finite value and 2^(bias+1); ties go to even, which is up.
    const double overflow = std::ldexp(2.0 - std::ldexp(1.0, -(kManBits + 1)), kBias);
    if (a >= overflow) return static_cast<uint16_t>(sign | kExpMask);
    const int min_exp = 1 - kBias;  // exponent of the smallest normal
    if (a < std::ldexp(1.0, min_exp)) {
      // Subnormal: count units of 2^(min_exp - kManBits); 1 << kManBits rounds up into the
      // smallest normal, which the bit layout encodes correctly.
      const double units = std::nearbyint(std::ldexp(a, kManBits - min_exp));
      return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));
    }
    int e = 0;
    (void)std::frexp(a, &e);  // a = f * 2^e with f in [0.5, 1)
    --e;                      // a = g * 2^e with g in [1, 2)
    const double mantissa = std::nearbyint(std::ldexp(std::ldexp(a, -e) - 1.0, kManBits));
    // A mantissa that rounded up to 1 << kManBits carries into the exponent by addition.
    const uint32_t bits = (static_cast<uint32_t>(e + kBias) << kManBits) +
                          static_cast<uint32_t>(mantissa);
    return static_cast<uint16_t>(sign | bits);
  }

  static double decode(uint16_t bits) {
    const bool negative = (bits & 0x8000u) != 0;
    const int exp_field = (bits & kExpMask) >> kManBits;
    const int man = bits & kManMask;
    double value;
    if (exp_field == (1 << kExpBits) - 1) {
      value = man == 0 ? INFINITY : NAN;
    } else if (exp_field == 0) {
      value = std::ldexp(static_cast<double>(man), 1 - kBias - kManBits);
    } else {
      value = std::ldexp(1.0 + std::ldexp(static_cast<double>(man), -kManBits), exp_field - kBias);
    }
    return negative ? -value : value;
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
inline double bfloat16_bits_to_double(uint16_t bits) {
  // bfloat16 is the top half of a float32: exact and cheap.
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

}  // namespace devplug::sdk
