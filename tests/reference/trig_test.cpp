// SPDX-License-Identifier: Apache-2.0
// float64 sin, cos and tan of the reference backend against binary128 (libquadmath). For
// doubles up to 2^23 the backend reduces the argument itself (Cody-Waite in long double,
// reference_backend/kernels/trig.hpp), so besides random inputs these aim at what a
// reduction gets wrong: the doubles nearest to multiples of pi/2, where the reduced
// argument is all cancellation, both sides of the reduction's bound, and the special values.
#include <gtest/gtest.h>
#include <quadmath.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;

constexpr double kBound = rt::kRoundedOnceUlps;  // see harness.hpp

// Where the backend's own reduction ends (2^23) and the C library's begins.
constexpr double kReductionBound = 0x1p23;

const devplug_op_t kOps[] = {DEVPLUG_OP_sin, DEVPLUG_OP_cos, DEVPLUG_OP_tan};

__float128 exact(devplug_op_t op, double x) {
  switch (op) {
    case DEVPLUG_OP_sin:
      return sinq(x);
    case DEVPLUG_OP_cos:
      return cosq(x);
    default:
      return tanq(x);
  }
}

// Runs sin, cos and tan on `xs` and fails for every result (the first few reported) that
// is not within kBound ulp of the exact value.
void check_all(const std::vector<double>& xs, const std::string& what) {
  for (devplug_op_t op : kOps) {
    rt::expect_within_ulps(
        DEVPLUG_DTYPE_FLOAT64, xs.size(), rt::apply<double, double>(op, {xs}), kBound,
        [&](size_t i) { return exact(op, xs[i]); },
        [&](size_t i) {
          char call[64];
          std::snprintf(call, sizeof call, "%s(%a)", devplug_op_name(op), xs[i]);
          return what + ": " + call;
        });
  }
}

// `x` and its `radius` neighbours on each side, with both signs.
void add_neighbourhood(std::vector<double>& xs, double x, int radius) {
  double below = x, above = x;
  for (int i = 0; i < radius; ++i) {
    below = std::nextafter(below, 0.0);
    above = std::nextafter(above, HUGE_VAL);
  }
  for (double v = below; v <= above; v = std::nextafter(v, HUGE_VAL)) {
    xs.push_back(v);
    xs.push_back(-v);
  }
}

// The double nearest to k pi/2.
double nearest_to_multiple(double k) {
  static const __float128 half_pi =
      strtoflt128("1.570796326794896619231321691639751442098584699687552910487", nullptr);
  return static_cast<double>(k * half_pi);
}

TEST(Trig, RandomArguments) {
  const double quarter_pi = 0.78539816339744830962;
  check_all(rt::uniform_doubles(-quarter_pi, quarter_pi, 20000, 1), "[-pi/4, pi/4]");
  check_all(rt::uniform_doubles(-100, 100, 20000, 2), "[-100, 100]");
  check_all(rt::uniform_doubles(-1e5, 1e5, 20000, 3), "[-1e5, 1e5]");
  check_all(rt::uniform_doubles(-kReductionBound, kReductionBound, 20000, 4), "[-2^23, 2^23]");
  check_all(rt::log_uniform_doubles(1e-300, kReductionBound, 20000, 5), "log-uniform up to 2^23");
  check_all(rt::log_uniform_doubles(0x1p-1074, 1e-5, 4000, 6), "tiny");
}

// x - n pi/2 for the double x nearest to n pi/2 is as small as 2^-60.5 below 2^23: every
// bit of pi/2 the reduction uses shows there.
TEST(Trig, NearMultiplesOfHalfPi) {
  std::vector<double> xs;
  for (int k = 1; k <= 256; ++k) add_neighbourhood(xs, nearest_to_multiple(k), 2);
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int64_t> any_k(257,
                                               static_cast<int64_t>(kReductionBound / 1.5707963267948966));
  for (int i = 0; i < 5000; ++i)
    add_neighbourhood(xs, nearest_to_multiple(static_cast<double>(any_k(gen))), 1);
  // The double closest to a multiple of pi/2 in each binade [2^e, 2^(e+1)), e = 0..22
  // (found by search over every multiple): 2^-60.5 away for e = 5, 2^-51.5 to 2^-60 for the others.
  const double closest[] = {
      0x1.921fb54442d18p+0,  0x1.921fb54442d18p+1,  0x1.2d97c7f3321d2p+2,  0x1.2d97c7f3321d2p+3,
      0x1.dd85a7410f58dp+4,  0x1.6c6cbc45dc8dep+5,  0x1.6c6cbc45dc8dep+6,  0x1.6c6cbc45dc8dep+7,
      0x1.6c6cbc45dc8dep+8,  0x1.6c6cbc45dc8dep+9,  0x1.6c6cbc45dc8dep+10, 0x1.6c6cbc45dc8dep+11,
      0x1.6c6cbc45dc8dep+12, 0x1.6c6cbc45dc8dep+13, 0x1.635e3d74befcap+14, 0x1.67e57cdd4dc54p+15,
      0x1.65a1dd290660fp+16, 0x1.bf9b3c6059d24p+17, 0x1.39c6fd67805a7p+18, 0x1.39c6fd67805a7p+19,
      0x1.9eb7148f354d6p+20, 0x1.9eb7148f354d6p+21, 0x1.9eb7148f354d6p+22,
  };
  for (double x : closest) add_neighbourhood(xs, x, 3);
  check_all(xs, "near k pi/2");
}

// The C library takes over past 2^23 (exact reduction at any size).
TEST(Trig, PastTheReductionBound) {
  std::vector<double> xs;
  add_neighbourhood(xs, kReductionBound, 3);
  add_neighbourhood(xs, 0x1.b951f1572eba5p+23, 1);  // 2^-59 from a multiple of pi/2
  for (double x :
       {std::numeric_limits<double>::max(), std::nextafter(std::numeric_limits<double>::max(), 0.0)}) {
    xs.push_back(x);
    xs.push_back(-x);
  }
  for (double x : rt::log_uniform_doubles(kReductionBound, 1e300, 2000, 8)) xs.push_back(x);
  check_all(xs, "past 2^23");
}

TEST(Trig, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> xs = {0.0, -0.0, inf, -inf, nan, tiny, -tiny};
  const std::vector<std::vector<double>> expected = {
      {0.0, -0.0, nan, nan, nan, tiny, -tiny},  // sin
      {1.0, 1.0, nan, nan, nan, 1.0, 1.0},      // cos
      {0.0, -0.0, nan, nan, nan, tiny, -tiny},  // tan
  };
  for (size_t o = 0; o < 3; ++o) {
    const std::vector<double> got = rt::apply<double, double>(kOps[o], {xs});
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_TRUE(rt::same_value(got[i], expected[o][i]))
          << devplug_op_name(kOps[o]) << "(" << xs[i] << ") = " << got[i] << ", expected " << expected[o][i];
  }
}

}  // namespace
