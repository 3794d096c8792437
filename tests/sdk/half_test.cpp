// SPDX-License-Identifier: Apache-2.0
// sdk/half.hpp against an oracle that shares nothing with it: decoding by the textbook
// formula (mantissa times a power of two, with ldexp), and encoding by a binary search for
// the two neighbouring 16-bit values and a comparison with their midpoint (exact in double),
// ties to the even pattern. Every pattern, every midpoint and its neighbours, and a million
// random doubles of every magnitude.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "devplug/sdk/half.hpp"

namespace {

struct Format {
  const char* name;
  int exp_bits, man_bits;
  uint16_t (*encode)(double);
  double (*decode)(uint16_t);

  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  uint16_t inf_bits() const { return static_cast<uint16_t>(((1u << exp_bits) - 1) << man_bits); }
};

const Format kFormats[] = {
    {"float16", 5, 10, devplug::sdk::double_to_half_bits, devplug::sdk::half_bits_to_double},
    {"bfloat16", 8, 7, devplug::sdk::double_to_bfloat16_bits, devplug::sdk::bfloat16_bits_to_double},
};

// The value of a non-negative finite pattern, by the formula; the Inf pattern stands for
// 2^(bias + 1), where IEEE rounding puts the overflow threshold's other side.
double oracle_value(const Format& f, uint16_t bits) {
  const int exp_field = bits >> f.man_bits;
  const int man = bits & ((1 << f.man_bits) - 1);
  if (exp_field == 0) return std::ldexp(man, 1 - f.bias() - f.man_bits);
  return std::ldexp(1.0 + std::ldexp(man, -f.man_bits), exp_field - f.bias());
}

uint16_t oracle_encode(const Format& f, double x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= oracle_value(f, f.inf_bits())) return sign | f.inf_bits();
  uint16_t lo = 0, hi = f.inf_bits();  // oracle_value(lo) <= a < oracle_value(hi)
  while (hi - lo > 1) {
    const auto mid = static_cast<uint16_t>((lo + hi) / 2);
    (oracle_value(f, mid) <= a ? lo : hi) = mid;
  }
  const double midpoint = (oracle_value(f, lo) + oracle_value(f, hi)) / 2;  // exact: few bits
  const uint16_t nearest = a < midpoint ? lo : a > midpoint ? hi : (lo % 2 == 0 ? lo : hi);
  return sign | nearest;
}

bool is_nan_bits(const Format& f, uint16_t bits) {
  return (bits & f.inf_bits()) == f.inf_bits() && (bits & ((1u << f.man_bits) - 1)) != 0;
}

TEST(Half, DecodesEveryPatternExactly) {
  for (const Format& f : kFormats) {
    SCOPED_TRACE(f.name);
    for (uint32_t b = 0; b <= 0xFFFF; ++b) {
      const auto bits = static_cast<uint16_t>(b);
      const double got = f.decode(bits);
      const bool negative = (bits & 0x8000) != 0;
      const uint16_t magnitude = bits & 0x7FFF;
      if (is_nan_bits(f, magnitude)) {
        ASSERT_TRUE(std::isnan(got)) << std::hex << b;
        ASSERT_EQ(std::signbit(got), negative) << std::hex << b;
        continue;
      }
      const double expected = magnitude == f.inf_bits() ? HUGE_VAL : oracle_value(f, magnitude);
      ASSERT_EQ(got, negative ? -expected : expected) << std::hex << b;
      ASSERT_EQ(std::signbit(got), negative) << std::hex << b;
    }
  }
}

// Encodes `x` and checks it against the oracle (NaN: a quiet NaN with x's sign).
void expect_encodes(const Format& f, double x) {
  const uint16_t got = f.encode(x);
  if (std::isnan(x)) {
    EXPECT_TRUE(is_nan_bits(f, got & 0x7FFF)) << x;
    EXPECT_NE(got & (1u << (f.man_bits - 1)), 0u) << "quiet bit, " << x;
    EXPECT_EQ((got & 0x8000) != 0, std::signbit(x)) << x;
    return;
  }
  const uint16_t expected = oracle_encode(f, x);
  if (got != expected)
    ADD_FAILURE() << f.name << " " << std::hexfloat << x << ": got 0x" << std::hex << got << ", expected 0x"
                  << expected;
}

TEST(Half, EncodesValuesMidpointsAndTheirNeighbours) {
  for (const Format& f : kFormats) {
    SCOPED_TRACE(f.name);
    for (uint16_t bits = 0; bits < f.inf_bits(); ++bits) {
      const double v = oracle_value(f, bits), next = oracle_value(f, static_cast<uint16_t>(bits + 1));
      const double mid = (v + next) / 2;
      for (double x : {v, mid, std::nextafter(mid, 0.0), std::nextafter(mid, HUGE_VAL),
                       std::nextafter(v, 0.0), std::nextafter(v, HUGE_VAL)}) {
        expect_encodes(f, x);
        expect_encodes(f, -x);
      }
    }
  }
}

TEST(Half, EncodesRandomDoublesOfEveryMagnitude) {
  std::mt19937_64 gen(7);
  for (const Format& f : kFormats) {
    SCOPED_TRACE(f.name);
    for (int i = 0; i < 500000; ++i) {
      uint64_t u = gen();
      // Exponents spread over the whole double range, and clustered around the format's.
      if (i % 2 == 0)
        u = (u & ~(uint64_t{0x7FF} << 52)) | (static_cast<uint64_t>(1023 - 160 + gen() % 320) << 52);
      double x;
      std::memcpy(&x, &u, sizeof x);
      expect_encodes(f, x);
    }
  }
}

TEST(Half, SpecialValues) {
  for (const Format& f : kFormats) {
    SCOPED_TRACE(f.name);
    const double nan = std::nan("");
    for (double x : {0.0, -0.0, HUGE_VAL, -HUGE_VAL, nan, -nan, 5e-324, -5e-324, 2.2250738585072014e-308,
                     1.7976931348623157e308, -1.7976931348623157e308}) {
      expect_encodes(f, x);
    }
    EXPECT_EQ(f.encode(-0.0), 0x8000);
    EXPECT_EQ(f.encode(HUGE_VAL), f.inf_bits());
  }
}

}  // namespace
