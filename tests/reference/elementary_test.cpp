// SPDX-License-Identifier: Apache-2.0
// Reference backend: float64 sinh, cosh, asinh, acosh, atanh, asin, acos, cbrt, erfc and exp2
// (computed in long double by elementary.hpp) against binary128 (libquadmath): random values
// over each function's working range, magnitudes spread over the exponents, values near the
// domain edges, the overflow and underflow thresholds and the kernels' piece boundaries, and
// the special values exactly (NaN, +-Inf, the sign of zero, domain errors, poles).
#include <gtest/gtest.h>
#include <quadmath.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;
using rt::kInf;
using rt::kNaN;

constexpr double kBound = rt::kRoundedOnceUlps;  // see harness.hpp

struct Function {
  devplug_op_t op;
  __float128 (*exact)(__float128);
};

const Function kSinh{DEVPLUG_OP_sinh, sinhq}, kCosh{DEVPLUG_OP_cosh, coshq}, kAsinh{DEVPLUG_OP_asinh, asinhq},
    kAcosh{DEVPLUG_OP_acosh, acoshq}, kAtanh{DEVPLUG_OP_atanh, atanhq}, kAsin{DEVPLUG_OP_asin, asinq},
    kAcos{DEVPLUG_OP_acos, acosq}, kCbrt{DEVPLUG_OP_cbrt, cbrtq}, kErfc{DEVPLUG_OP_erfc, erfcq},
    kExp2{DEVPLUG_OP_exp2, exp2q};

// Each of `points` and its two neighbours, with both signs when `symmetric`.
std::vector<double> around(const std::vector<double>& points, bool symmetric) {
  std::vector<double> xs;
  for (double p : points)
    for (double x : {std::nextafter(p, -kInf), p, std::nextafter(p, kInf)}) {
      xs.push_back(x);
      if (symmetric) xs.push_back(-x);
    }
  return xs;
}

void expect_close(const Function& f, const std::vector<double>& xs) {
  rt::expect_within_ulps(
      DEVPLUG_DTYPE_FLOAT64, xs.size(), rt::apply<double, double>(f.op, {xs}), kBound,
      [&](size_t i) { return f.exact(xs[i]); },
      [&](size_t i) { return std::string(devplug_op_name(f.op)) + "(" + rt::digits(xs[i]) + ")"; });
}

void expect_values(devplug_op_t op, const std::vector<double>& xs, const std::vector<double>& expected) {
  const std::vector<double> got = rt::apply<double, double>(op, {xs});
  ASSERT_EQ(got.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_TRUE(rt::same_value(got[i], expected[i]))
        << devplug_op_name(op) << "(" << xs[i] << ") = " << got[i] << ", expected " << expected[i];
}

TEST(Elementary, SinhAndCosh) {
  for (const Function* f : {&kSinh, &kCosh}) {
    SCOPED_TRACE(devplug_op_name(f->op));
    expect_close(*f, rt::uniform_doubles(-50, 50, 20000, 1));
    expect_close(*f, rt::uniform_doubles(-1, 1, 20000, 2));
    expect_close(*f, rt::log_uniform_doubles(1e-320, 1, 20000, 3, true));
    expect_close(*f, rt::uniform_doubles(700, 711, 5000, 4));  // the result overflows at 710.4758600739439...
    expect_close(*f, rt::uniform_doubles(-715, -700, 5000, 5));
    expect_close(*f, rt::log_uniform_doubles(1, 1e300, 5000, 6, true));
    expect_close(*f, around({0.5, 710.4758600739439, 710.47586007394398, 1400, 0x1p-32}, true));
  }
}

TEST(Elementary, Exp2) {
  expect_close(kExp2, rt::uniform_doubles(-50, 50, 20000, 11));
  expect_close(kExp2, rt::uniform_doubles(-1100, 1100, 20000, 12));
  expect_close(kExp2, rt::uniform_doubles(-1080, -1020, 10000, 13));  // subnormal results
  expect_close(kExp2, rt::uniform_doubles(1020, 1024.5, 5000, 14));   // overflow at 1024
  expect_close(kExp2, rt::log_uniform_doubles(1e-320, 1, 10000, 15, true));
  expect_close(kExp2, around({1024, -1022, -1074, -1075, 1100, 0.5, 1.0 / 64, 1.0 / 32}, true));
}

TEST(Elementary, AsinhAcoshAtanh) {
  expect_close(kAsinh, rt::uniform_doubles(-100, 100, 20000, 21));
  expect_close(kAsinh, rt::log_uniform_doubles(1e-320, 1.7e308, 20000, 22, true));
  expect_close(kAsinh, rt::uniform_doubles(-3, 3, 10000, 23));
  expect_close(kAsinh, around({2, 0x1p32, 0x1p-32, 1.7976931348623157e308}, true));
  expect_close(kAcosh, rt::uniform_doubles(1, 100, 20000, 24));
  expect_close(kAcosh, rt::log_uniform_doubles(1, 1.7e308, 20000, 25, false));
  std::vector<double> near_one = rt::log_uniform_doubles(0x1p-52, 1, 10000, 26, false);
  for (double& x : near_one) x += 1;  // acosh(1 + d) ~ sqrt(2d)
  expect_close(kAcosh, near_one);
  expect_close(kAcosh, around({1, 2, 0x1p32, 1.7976931348623157e308}, false));
  expect_close(kAtanh, rt::uniform_doubles(-0.999, 0.999, 20000, 27));
  expect_close(kAtanh, rt::log_uniform_doubles(1e-320, 1, 20000, 28, true));
  std::vector<double> near_pole = rt::log_uniform_doubles(0x1p-53, 0.5, 10000, 29, true);
  for (double& x : near_pole) x = std::copysign(1 - std::fabs(x), x);
  expect_close(kAtanh, near_pole);
  expect_close(kAtanh, around({0x1p-11, 0x1p-32, 0.5}, true));
}

TEST(Elementary, AsinAndAcos) {
  for (const Function* f : {&kAsin, &kAcos}) {
    SCOPED_TRACE(devplug_op_name(f->op));
    expect_close(*f, rt::uniform_doubles(-0.999, 0.999, 20000, 31));
    expect_close(*f, rt::uniform_doubles(-1, 1, 20000, 32));
    expect_close(*f, rt::log_uniform_doubles(1e-320, 1, 20000, 33, true));
    std::vector<double> near_one = rt::log_uniform_doubles(0x1p-53, 0.5, 10000, 34, true);
    for (double& x : near_one) x = std::copysign(1 - std::fabs(x), x);
    expect_close(*f, near_one);
    expect_close(*f, around({0.5, 1, 0x1p-32}, true));
  }
}

TEST(Elementary, Cbrt) {
  expect_close(kCbrt, rt::uniform_doubles(-100, 100, 20000, 41));
  expect_close(kCbrt, rt::log_uniform_doubles(4.9e-324, 1.7e308, 20000, 42, true));
  expect_close(kCbrt, around({1, 8, 0.125, 2.2250738585072014e-308, 1.7976931348623157e308}, true));
}

TEST(Elementary, Erfc) {
  expect_close(kErfc, rt::uniform_doubles(-100, 100, 20000, 51));
  expect_close(kErfc, rt::uniform_doubles(-6, 6, 20000, 52));
  expect_close(kErfc, rt::uniform_doubles(0, 27.3, 20000, 53));  // subnormal results above 26.55
  expect_close(kErfc, rt::log_uniform_doubles(1e-320, 1, 10000, 54, true));
  expect_close(kErfc, around({0.5, 0.84375, 1.25, 2, 6, 26.55, 27.2}, true));
}

TEST(Elementary, SpecialValues) {
  const double kMin = std::numeric_limits<double>::denorm_min();
  expect_values(DEVPLUG_OP_sinh, {0.0, -0.0, kInf, -kInf, kNaN, 1e-300, -kMin, 711, -711},
                {0.0, -0.0, kInf, -kInf, kNaN, 1e-300, -kMin, kInf, -kInf});
  expect_values(DEVPLUG_OP_cosh, {0.0, -0.0, kInf, -kInf, kNaN, 711, -711},
                {1, 1, kInf, kInf, kNaN, kInf, kInf});
  expect_values(DEVPLUG_OP_asinh, {0.0, -0.0, kInf, -kInf, kNaN, -kMin},
                {0.0, -0.0, kInf, -kInf, kNaN, -kMin});
  expect_values(DEVPLUG_OP_acosh, {1, kInf, kNaN, 0.5, -1, -kInf, 0.0},
                {0.0, kInf, kNaN, kNaN, kNaN, kNaN, kNaN});
  expect_values(DEVPLUG_OP_atanh, {0.0, -0.0, 1, -1, kNaN, 1.5, -kInf, -kMin},
                {0.0, -0.0, kInf, -kInf, kNaN, kNaN, kNaN, -kMin});
  expect_values(DEVPLUG_OP_asin, {0.0, -0.0, kNaN, 1.5, -kInf, -kMin}, {0.0, -0.0, kNaN, kNaN, kNaN, -kMin});
  expect_values(DEVPLUG_OP_acos, {1, kNaN, -1.5, kInf}, {0.0, kNaN, kNaN, kNaN});
  expect_values(DEVPLUG_OP_cbrt, {0.0, -0.0, kInf, -kInf, kNaN, 27, -0.125},
                {0.0, -0.0, kInf, -kInf, kNaN, 3, -0.5});
  expect_values(DEVPLUG_OP_erfc, {kInf, -kInf, kNaN, 0.0, -0.0, 30, -30}, {0.0, 2, kNaN, 1, 1, 0.0, 2});
  expect_values(DEVPLUG_OP_exp2, {0.0, -0.0, kInf, -kInf, kNaN, 10, -1074, -1075, 1024, -3000, 3000},
                {1, 1, kInf, 0.0, kNaN, 1024, kMin, 0.0, kInf, 0.0, kInf});
}

}  // namespace
