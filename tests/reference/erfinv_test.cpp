// SPDX-License-Identifier: Apache-2.0
// Reference backend: erfinv in float64 (computed in long double) and float32 (in double)
// against binary128 (libquadmath), which shares neither method nor coefficients with the
// kernel: uniform y in (-1, 1), magnitudes spread down to the smallest subnormal, y near
// +-1 as 1 - r 2^-k for every k the dtype has, and the kernel's piece boundaries.
#include <gtest/gtest.h>
#include <quadmath.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;

constexpr double kBound = rt::kRoundedOnceUlps;  // see harness.hpp

// erfinv(y) in binary128: Halley steps on erfq, or on erfcq for |y| >= 0.5 (where 1 - |y| is
// exact), from a rough start (y sqrt(pi) / 2, or sqrt(-log(1 - y^2)) near +-1) until a step
// no longer moves x.
__float128 exact_erfinv(double y) {
  const double a = std::fabs(y);
  const bool upper = a >= 0.5;
  const __float128 target = upper ? 1 - static_cast<__float128>(a) : static_cast<__float128>(a);
  const __float128 two_over_sqrt_pi = 2 / sqrtq(4 * atanq(1));
  __float128 x = upper ? std::sqrt(-std::log((1 - a) * (1 + a))) : a / two_over_sqrt_pi;
  for (int i = 0; i < 100; ++i) {
    const __float128 slope = two_over_sqrt_pi * expq(-x * x);
    const __float128 u = upper ? (target - erfcq(x)) / slope : (erfq(x) - target) / slope;
    const __float128 step = u / (1 + x * u);  // Halley: f'' / f' = -2x
    x -= step;
    if (!(fabsq(step) > fabsq(x) * 1e-33)) break;
  }
  return y < 0 ? -x : x;
}

// Values of one dtype (`digits` significand bits, smallest subnormal 2^min_exponent) in
// (-1, 1), from `convert` (the rounding to the dtype).
template <typename Convert>
std::vector<double> inputs(int digits, int min_exponent, Convert convert, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> values;
  auto add = [&](double v) {
    v = convert(v);
    if (std::fabs(v) < 1) values.push_back(gen() & 1 ? -v : v);
  };
  for (int i = 0; i < 3000; ++i) add(unit(gen));
  for (int i = 0; i < 3000; ++i) add(std::ldexp(1 + unit(gen), static_cast<int>(unit(gen) * min_exponent)));
  for (int k = 1; k <= digits; ++k)
    for (int i = 0; i < 60; ++i) add(1 - unit(gen) * std::ldexp(1.0, -k));
  add(1 - std::ldexp(1.0, -digits));   // the largest value below 1
  add(std::ldexp(1.0, min_exponent));  // the smallest subnormal
  for (double boundary : {0.5, 0.625, 0.71875, 0.78125, 0.828125, 0.8671875, 0.8984375, 0.921875, 0.9375})
    for (double v : {boundary, std::nextafter(boundary, 0.0), std::nextafter(boundary, 1.0)}) add(v);
  return values;
}

void check(devplug_dtype_t dtype, const std::vector<double>& ys, const std::vector<double>& got) {
  rt::expect_within_ulps(
      dtype, ys.size(), got, kBound, [&](size_t i) { return exact_erfinv(ys[i]); },
      [&](size_t i) {
        return std::string("erfinv ") + devplug_dtype_name(dtype) + "(" + rt::digits(ys[i]) + ")";
      });
}

TEST(Erfinv, Float64IsCorrectlyRoundedUpToASliver) {
  const std::vector<double> ys = inputs(
      53, -1074, [](double v) { return v; }, 1);
  check(DEVPLUG_DTYPE_FLOAT64, ys, rt::apply<double, double>(DEVPLUG_OP_erfinv, {ys}));
}

TEST(Erfinv, Float32IsCorrectlyRoundedUpToASliver) {
  const std::vector<double> ys = inputs(
      24, -149, [](double v) { return static_cast<double>(static_cast<float>(v)); }, 2);
  const std::vector<float> got =
      rt::apply<float, float>(DEVPLUG_OP_erfinv, {std::vector<float>(ys.begin(), ys.end())});
  check(DEVPLUG_DTYPE_FLOAT32, ys, std::vector<double>(got.begin(), got.end()));
}

}  // namespace
