// SPDX-License-Identifier: Apache-2.0
// Reference backend: philox_bits, philox_uniform, philox_normal (docs/random.md).
//
// The test carries its own small Philox4x32-10, checked first against Random123's known
// answers; it then predicts every word the kernels must use, so the element-to-word mapping
// (offset, seed high bits, wrap-around, int64 pairs, float rules) is checked exactly.
#include <gtest/gtest.h>
#include <quadmath.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;
namespace sdk = devplug::sdk;

// ---- an independent Philox4x32-10 -----------------------------------------------------------

using Words = std::array<uint32_t, 4>;

Words philox(Words counter, uint32_t key0, uint32_t key1) {
  for (int r = 0; r < 10; ++r) {
    const uint64_t lo_product = uint64_t{0xD2511F53u} * counter[0];
    const uint64_t hi_product = uint64_t{0xCD9E8D57u} * counter[2];
    Words next;
    next[0] = static_cast<uint32_t>(hi_product >> 32) ^ counter[1] ^ key0;
    next[1] = static_cast<uint32_t>(hi_product & 0xFFFFFFFFu);
    next[2] = static_cast<uint32_t>(lo_product >> 32) ^ counter[3] ^ key1;
    next[3] = static_cast<uint32_t>(lo_product & 0xFFFFFFFFu);
    counter = next;
    key0 = static_cast<uint32_t>(key0 + 0x9E3779B9u);
    key1 = static_cast<uint32_t>(key1 + 0xBB67AE85u);
  }
  return counter;
}

// Word w of the stream for (seed, offset), straight from the spec.
uint32_t word(uint64_t seed, uint64_t offset, uint64_t w) {
  const uint64_t block = offset + w / 4;
  const Words out = philox({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0},
                           static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  return out[w % 4];
}

uint64_t pair(uint64_t seed, uint64_t offset, uint64_t w) {
  return (static_cast<uint64_t>(word(seed, offset, w + 1)) << 32) | word(seed, offset, w);
}

TEST(ReferenceRandom, TestPhiloxMatchesRandom123KnownAnswers) {
  EXPECT_EQ(philox({0, 0, 0, 0}, 0, 0), (Words{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, 0xffffffffu, 0xffffffffu),
            (Words{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 0xa4093822u, 0x299f31d0u),
            (Words{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

devplug_philox_attrs_t philox_attrs(uint64_t seed, uint64_t offset) {
  return devplug_philox_attrs_t{sizeof(devplug_philox_attrs_t), seed, offset};
}

rt::Tensor generate(devplug_op_t op, devplug_dtype_t dtype, const std::vector<int64_t>& shape, uint64_t seed,
                    uint64_t offset, const std::vector<int64_t>& strides = {}) {
  rt::Tensor out = rt::make_tensor(dtype, shape, strides);
  const devplug_philox_attrs_t attrs = philox_attrs(seed, offset);
  rt::run_ok(op, {}, {&out}, &attrs);
  return out;
}

TEST(ReferenceRandom, DeclaresEveryRandomDtype) {
  for (devplug_op_t op : sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (info->category != DEVPLUG_CATEGORY_random) continue;
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      if (info->dtypes & DEVPLUG_DTYPE_BIT(d)) {
        EXPECT_NE(rt::find_kernel(op, d), nullptr) << info->name << " " << devplug_dtype_name(d);
      }
    }
  }
}

// ---- philox_bits -------------------------------------------------------------------------------

TEST(ReferenceRandom, BitsKnownAnswerAtCounterZero) {
  rt::Tensor out = generate(DEVPLUG_OP_philox_bits, DEVPLUG_DTYPE_INT32, {4}, 0, 0);
  const std::vector<int32_t> got = rt::read<int32_t>(out);
  const std::vector<uint32_t> want = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(static_cast<uint32_t>(got[i]), want[i]) << i;
}

TEST(ReferenceRandom, BitsMappingWithOffsetSeedHighBitsAndWrap) {
  // The offset sits 2 blocks below 2^64, so the stream wraps to block 0 after 8 words; the
  // seed's high half is the key's k1; the output is written transposed.
  const uint64_t seed = 0x0123456789ABCDEFull, offset = ~uint64_t{0} - 1;
  rt::Tensor out = generate(DEVPLUG_OP_philox_bits, DEVPLUG_DTYPE_INT32, {3, 5}, seed, offset, {1, 3});
  const std::vector<int32_t> got = rt::read<int32_t>(out);
  for (uint64_t k = 0; k < 15; ++k) EXPECT_EQ(static_cast<uint32_t>(got[k]), word(seed, offset, k)) << k;
  // Words 8.. come from block 0 (and a high counter word of 0): the same as offset 0.
  EXPECT_EQ(word(seed, offset, 8), word(seed, 0, 0));
  // The offset counts blocks of four words.
  rt::Tensor shifted = generate(DEVPLUG_OP_philox_bits, DEVPLUG_DTYPE_INT32, {4}, seed, offset + 1);
  const std::vector<int32_t> s = rt::read<int32_t>(shifted);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(s[k], got[k + 4]) << k;
  // A different seed high half changes the stream.
  rt::Tensor other =
      generate(DEVPLUG_OP_philox_bits, DEVPLUG_DTYPE_INT32, {4}, seed ^ (uint64_t{1} << 40), offset);
  EXPECT_NE(rt::read<int32_t>(other), std::vector<int32_t>(got.begin(), got.begin() + 4));
  // An offset with high bits reaches counter word c1.
  const uint64_t high = uint64_t{7} << 32 | 5;
  rt::Tensor h = generate(DEVPLUG_OP_philox_bits, DEVPLUG_DTYPE_INT32, {6}, seed, high);
  const std::vector<int32_t> hv = rt::read<int32_t>(h);
  for (uint64_t k = 0; k < 6; ++k) EXPECT_EQ(static_cast<uint32_t>(hv[k]), word(seed, high, k)) << k;
}

TEST(ReferenceRandom, BitsInt64PairsWords) {
  const uint64_t seed = 0xFEEDFACECAFEBEEFull, offset = 3;
  rt::Tensor out = generate(DEVPLUG_OP_philox_bits, DEVPLUG_DTYPE_INT64, {2, 3}, seed, offset, {-1, -2});
  const std::vector<int64_t> got = rt::read<int64_t>(out);
  for (uint64_t k = 0; k < 6; ++k) EXPECT_EQ(static_cast<uint64_t>(got[k]), pair(seed, offset, 2 * k)) << k;
}

TEST(ReferenceRandom, LayoutDoesNotChangeValues) {
  for (devplug_op_t op : {DEVPLUG_OP_philox_bits, DEVPLUG_OP_philox_uniform, DEVPLUG_OP_philox_normal}) {
    const devplug_dtype_t d = op == DEVPLUG_OP_philox_bits ? DEVPLUG_DTYPE_INT64 : DEVPLUG_DTYPE_FLOAT32;
    SCOPED_TRACE(devplug_op_name(op));
    const std::vector<double> dense = rt::read_doubles(generate(op, d, {4, 3, 2}, 9, 1));
    const std::vector<double> strided = rt::read_doubles(generate(op, d, {4, 3, 2}, 9, 1, {1, 8, -4}));
    EXPECT_EQ(dense, strided);
    // Flattening the shape keeps the row-major order, so the values too.
    EXPECT_EQ(rt::read_doubles(generate(op, d, {24}, 9, 1)), dense);
  }
}

TEST(ReferenceRandom, EmptyAndScalarOutputs) {
  EXPECT_EQ(rt::read_doubles(generate(DEVPLUG_OP_philox_uniform, DEVPLUG_DTYPE_FLOAT32, {0, 4}, 1, 0)).size(),
            0u);
  const std::vector<int32_t> scalar =
      rt::read<int32_t>(generate(DEVPLUG_OP_philox_bits, DEVPLUG_DTYPE_INT32, {}, 0, 0));
  EXPECT_EQ(static_cast<uint32_t>(scalar[0]), 0x6627e8d5u);
}

// ---- philox_uniform ----------------------------------------------------------------------------

TEST(ReferenceRandom, UniformExactRulePerDtype) {
  const uint64_t seed = 0xA5A5A5A5DEADBEEFull, offset = 1000;
  const int n = 4099;
  const std::vector<double> f32 =
      rt::read_doubles(generate(DEVPLUG_OP_philox_uniform, DEVPLUG_DTYPE_FLOAT32, {n}, seed, offset));
  const std::vector<double> f16 =
      rt::read_doubles(generate(DEVPLUG_OP_philox_uniform, DEVPLUG_DTYPE_FLOAT16, {n}, seed, offset));
  const std::vector<double> bf16 =
      rt::read_doubles(generate(DEVPLUG_OP_philox_uniform, DEVPLUG_DTYPE_BFLOAT16, {n}, seed, offset));
  const std::vector<double> f64 =
      rt::read_doubles(generate(DEVPLUG_OP_philox_uniform, DEVPLUG_DTYPE_FLOAT64, {n}, seed, offset));
  for (uint64_t k = 0; k < static_cast<uint64_t>(n); ++k) {
    const uint32_t w = word(seed, offset, k);
    ASSERT_EQ(f32[k], (w >> 8) / 16777216.0) << k;
    ASSERT_EQ(f16[k], (w >> 21) / 2048.0) << k;
    ASSERT_EQ(bf16[k], (w >> 24) / 256.0) << k;
    ASSERT_EQ(f64[k], static_cast<double>(pair(seed, offset, 2 * k) >> 11) / 9007199254740992.0) << k;
  }
}

TEST(ReferenceRandom, UniformRangeOverAMillionSamples) {
  const int n = 1 << 20;
  const std::vector<float> v =
      rt::read<float>(generate(DEVPLUG_OP_philox_uniform, DEVPLUG_DTYPE_FLOAT32, {n}, 42, 0));
  double sum = 0, lo = 1, hi = 0;
  for (float x : v) {
    ASSERT_GE(x, 0.0f);
    ASSERT_LT(x, 1.0f);
    ASSERT_EQ(std::ldexp(x, 24), std::floor(std::ldexp(x, 24)));  // a multiple of 2^-24
    sum += x;
    lo = std::min<double>(lo, x);
    hi = std::max<double>(hi, x);
  }
  // Mean 1/2 with standard error sqrt(1/12 / n) ~ 2.8e-4; 6 sigma.
  EXPECT_NEAR(sum / n, 0.5, 6 * std::sqrt(1.0 / 12 / n));
  EXPECT_LT(lo, 1e-4);
  EXPECT_GT(hi, 1 - 1e-4);
}

// ---- philox_normal -----------------------------------------------------------------------------

double spacing(devplug_dtype_t d, double x) {
  const int bits = d == DEVPLUG_DTYPE_FLOAT16    ? 11
                   : d == DEVPLUG_DTYPE_BFLOAT16 ? 8
                   : d == DEVPLUG_DTYPE_FLOAT32  ? 24
                                                 : 53;
  int e = 0;
  std::frexp(x, &e);
  return std::ldexp(1.0, e - bits);
}

TEST(ReferenceRandom, NormalBoxMullerFromTheElementsWords) {
  const uint64_t seed = 77, offset = 5;
  const int n = 2000;
  const double two_pi = 6.283185307179586476925286766559;
  for (devplug_dtype_t d :
       {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64}) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const std::vector<double> got =
        rt::read_doubles(generate(DEVPLUG_OP_philox_normal, d, {n}, seed, offset));
    for (uint64_t k = 0; k < static_cast<uint64_t>(n); ++k) {
      __float128 z;  // float64: computed in binary128, more exact than the kernel's long double
      if (d == DEVPLUG_DTYPE_FLOAT64) {
        const __float128 u1 = ((pair(seed, offset, 4 * k) >> 11) + 1) / __float128(9007199254740992.0);
        const __float128 u2 = (pair(seed, offset, 4 * k + 2) >> 11) / __float128(9007199254740992.0);
        z = sqrtq(-2 * logq(u1)) * cosq(2 * acosq(-1) * u2);
      } else {
        const double u1 = ((word(seed, offset, 2 * k) >> 8) + 1) / 16777216.0;
        const double u2 = (word(seed, offset, 2 * k + 1) >> 8) / 16777216.0;
        z = std::sqrt(-2 * std::log(u1)) * std::cos(two_pi * u2);
      }
      // Rounded once: float64 from long double, within half a spacing of the binary128 value
      // plus a sliver for long double's own error (rt::kRoundedOnceUlps); the narrower dtypes
      // from the same double formula, within half a spacing (plus libm's error).
      const double z_double = static_cast<double>(z);
      const double bound_ulps = d == DEVPLUG_DTYPE_FLOAT64 ? rt::kRoundedOnceUlps : 0.5 * 1.001;
      ASSERT_LE(static_cast<double>(fabsq(got[k] - z)), spacing(d, z_double) * bound_ulps + 1e-300)
          << k << " z=" << z_double;
      ASSERT_TRUE(std::isfinite(got[k])) << k;
    }
  }
}

TEST(ReferenceRandom, NormalMomentsOverAMillionSamples) {
  const int n = 1 << 20;
  for (devplug_dtype_t d : {DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64}) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const std::vector<double> v = rt::read_doubles(generate(DEVPLUG_OP_philox_normal, d, {n}, 2024, 17));
    long double sum = 0, squares = 0;
    for (double x : v) sum += x;
    const long double mean = sum / n;
    for (double x : v) squares += (x - mean) * (x - mean);
    const double var = static_cast<double>(squares / (n - 1));
    // Standard errors: mean 1/sqrt(n) ~ 9.8e-4, variance sqrt(2/n) ~ 1.4e-3; 6 sigma each.
    EXPECT_NEAR(static_cast<double>(mean), 0.0, 6 / std::sqrt(static_cast<double>(n)));
    EXPECT_NEAR(var, 1.0, 6 * std::sqrt(2.0 / n));
    // About 68.27% within one sigma.
    int inside = 0;
    for (double x : v) inside += std::fabs(x) < 1;
    EXPECT_NEAR(static_cast<double>(inside) / n, 0.682689, 6 * std::sqrt(0.682689 * 0.317311 / n));
  }
}

TEST(ReferenceRandom, WrongDtypeAndMissingAttrsAreRefused) {
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT32, {4});
  EXPECT_EQ(rt::run(DEVPLUG_OP_philox_bits, {}, {&out}, nullptr).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(rt::find_kernel(DEVPLUG_OP_philox_uniform, DEVPLUG_DTYPE_INT32), nullptr);
}

}  // namespace
