// SPDX-License-Identifier: Apache-2.0
// Reference backend: float64 and float32 results of the functions it takes from the C
// library (long double versions for float64, double for float32), judged against binary128
// (libquadmath), which shares no code with them. The oracle must be better than what it
// judges: every result must be within half an ulp of the exact value plus a sliver for the
// wide type's own error. (sin, cos, tan, erfinv, lgamma, digamma and the functions of
// kernels/elementary.hpp have their own tests.)
#include <gtest/gtest.h>
#include <quadmath.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;

constexpr double kBound = rt::kRoundedOnceUlps;  // see harness.hpp

// Random doubles in [lo, hi]: half uniform, half with log-uniform magnitudes (so that tiny
// and huge values, where the functions change method, get their share).
std::vector<double> samples(double lo, double hi, size_t n, uint64_t seed) {
  std::vector<double> xs = rt::uniform_doubles(lo, hi, n / 2, seed);
  const double top = std::max(std::fabs(lo), std::fabs(hi)), bottom = lo > 0 ? lo : 1e-300;
  for (double x : rt::log_uniform_doubles(bottom, top, n - n / 2, seed + 1000, lo < 0))
    xs.push_back(std::min(std::max(x, lo), hi));
  return xs;
}

struct Unary {
  devplug_op_t op;
  std::function<__float128(__float128)> exact;
  double lo, hi;
};

struct Binary {
  devplug_op_t op;
  std::function<__float128(__float128, __float128)> exact;
  double lo_a, hi_a, lo_b, hi_b;
  double bound;
};

// Results rounded to float32 from a double input: the inputs of the float32 runs.
std::vector<float> to_floats(const std::vector<double>& xs) {
  return std::vector<float>(xs.begin(), xs.end());
}

// Checks every result of one op and dtype; reports the first few misses.
void check(devplug_op_t op, devplug_dtype_t dtype, const std::vector<double>& got,
           const std::vector<__float128>& exact, const std::vector<std::string>& inputs, double bound) {
  rt::expect_within_ulps(
      dtype, exact.size(), got, bound, [&](size_t i) { return exact[i]; },
      [&](size_t i) {
        return std::string(devplug_op_name(op)) + " " + devplug_dtype_name(dtype) + "(" + inputs[i] + ")";
      });
}

TEST(Binary128, UnaryFunctionsFromTheCLibrary) {
  const std::vector<Unary> table = {
      {DEVPLUG_OP_exp, expq, -745, 709.7},
      {DEVPLUG_OP_expm1, expm1q, -40, 709.7},
      {DEVPLUG_OP_log, logq, 0, 1e300},
      {DEVPLUG_OP_log2, log2q, 0, 1e300},
      {DEVPLUG_OP_log10, log10q, 0, 1e300},
      {DEVPLUG_OP_log1p, log1pq, -1, 1e300},
      {DEVPLUG_OP_sqrt, sqrtq, 0, 1e300},
      {DEVPLUG_OP_rsqrt, [](__float128 x) { return 1 / sqrtq(x); }, 1e-300, 1e300},
      {DEVPLUG_OP_reciprocal, [](__float128 x) { return 1 / x; }, -1e300, 1e300},
      {DEVPLUG_OP_atan, atanq, -1e20, 1e20},
      {DEVPLUG_OP_tanh, tanhq, -25, 25},
      {DEVPLUG_OP_erf, erfq, -6, 6},
  };
  uint64_t seed = 1;
  for (const Unary& u : table) {
    const std::vector<double> xs = samples(u.lo, u.hi, 4000, seed++);
    std::vector<__float128> exact64, exact32;
    std::vector<std::string> inputs;
    const std::vector<float> xs32 = to_floats(xs);
    for (size_t i = 0; i < xs.size(); ++i) {
      exact64.push_back(u.exact(xs[i]));
      exact32.push_back(u.exact(xs32[i]));
      inputs.push_back(rt::digits(xs[i]));
    }
    check(u.op, DEVPLUG_DTYPE_FLOAT64, rt::apply<double, double>(u.op, {xs}), exact64, inputs, kBound);
    const std::vector<float> got32 = rt::apply<float, float>(u.op, {xs32});
    check(u.op, DEVPLUG_DTYPE_FLOAT32, std::vector<double>(got32.begin(), got32.end()), exact32, inputs,
          kBound);
  }
}

TEST(Binary128, BinaryFunctionsFromTheCLibrary) {
  const std::vector<Binary> table = {
      {DEVPLUG_OP_atan2, atan2q, -1e10, 1e10, -1e10, 1e10, kBound},
      {DEVPLUG_OP_hypot, hypotq, -1e300, 1e300, -1e300, 1e300, kBound},
      // fmod is exact (the reference takes it from the x87 fprem instruction).
      {DEVPLUG_OP_fmod, fmodq, -1e300, 1e300, -1e3, 1e3, 0},
      // float64 pow is glibc's double pow (powl is ten times slower): documented within
      // 0.52 ulp, so the bound is that, not kBound.
      {DEVPLUG_OP_pow, powq, 1e-3, 1e3, -100, 100, 0.52},
  };
  uint64_t seed = 100;
  for (const Binary& b : table) {
    const std::vector<double> as = samples(b.lo_a, b.hi_a, 4000, seed++);
    const std::vector<double> bs = samples(b.lo_b, b.hi_b, 4000, seed++);
    const std::vector<float> as32 = to_floats(as), bs32 = to_floats(bs);
    std::vector<__float128> exact64, exact32;
    std::vector<std::string> inputs;
    for (size_t i = 0; i < as.size(); ++i) {
      exact64.push_back(b.exact(as[i], bs[i]));
      exact32.push_back(b.exact(as32[i], bs32[i]));
      inputs.push_back(rt::digits(as[i]) + ", " + rt::digits(bs[i]));
    }
    check(b.op, DEVPLUG_DTYPE_FLOAT64, rt::apply<double, double>(b.op, {as, bs}), exact64, inputs, b.bound);
    const std::vector<float> got32 = rt::apply<float, float>(b.op, {as32, bs32});
    check(b.op, DEVPLUG_DTYPE_FLOAT32, std::vector<double>(got32.begin(), got32.end()), exact32, inputs,
          std::min(b.bound, kBound));
  }
}

}  // namespace
