// SPDX-License-Identifier: Apache-2.0
// Unary ops of the reference backend against expectations computed apart from its kernels:
// hand-written tables of edge values (NaN, +-Inf, -0.0, poles, integer limits), every
// float16 and bfloat16 value and random float32/float64 values against the C library in
// long double, and identities (erf(erfinv(y)) = y by bisection, the digamma recurrence).
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

namespace rt = devplug::reftest;
namespace sdk = devplug::sdk;

namespace {

// Shared with the other elementwise tests (harness.hpp).
using rt::kFloatDtypes;
using rt::kInf;
using rt::kNaN;
using rt::kPiL;
using rt::to_dtype;

// Runs a unary op on `xs` (each representable in `dtype`) and returns the output as doubles.
std::vector<double> run_unary(devplug_op_t op, devplug_dtype_t dtype, const std::vector<double>& xs) {
  const devplug_dtype_t out_dtype =
      devplug_op_info(op)->result == DEVPLUG_RESULT_bool ? DEVPLUG_DTYPE_BOOL : dtype;
  rt::Tensor in = rt::make_tensor(dtype, {static_cast<int64_t>(xs.size())});
  rt::Tensor out = rt::make_tensor(out_dtype, {static_cast<int64_t>(xs.size())});
  rt::write_doubles(in, xs);
  const rt::Result r = rt::run(op, {&in}, {&out});
  if (!r.ok()) {
    ADD_FAILURE() << devplug_op_name(op) << " " << devplug_dtype_name(dtype) << ": " << r.message;
    return std::vector<double>(xs.size(), kNaN);
  }
  return rt::read_doubles(out);
}

std::string describe(devplug_op_t op, devplug_dtype_t dtype, double x) {
  char text[160];
  std::snprintf(text, sizeof text, "%s %s x=%.17g", devplug_op_name(op), devplug_dtype_name(dtype), x);
  return text;
}

// ---- edge values, exact -------------------------------------------------------------------

struct Edge {
  devplug_op_t op;
  double x;
  long double expected;  // rounded to the dtype before comparing; bool ops: 0 or 1
};

const std::vector<Edge>& edges() {
  static const std::vector<Edge> table = {
      {DEVPLUG_OP_abs, -0.0, 0.0},
      {DEVPLUG_OP_abs, -kInf, kInf},
      {DEVPLUG_OP_abs, kNaN, kNaN},
      {DEVPLUG_OP_abs, -2, 2},
      {DEVPLUG_OP_neg, 0.0, -0.0},
      {DEVPLUG_OP_neg, -0.0, 0.0},
      {DEVPLUG_OP_neg, kInf, -kInf},
      {DEVPLUG_OP_neg, 1.5, -1.5},
      {DEVPLUG_OP_sign, kNaN, 0.0},
      {DEVPLUG_OP_sign, -0.0, 0.0},
      {DEVPLUG_OP_sign, 0.0, 0.0},
      {DEVPLUG_OP_sign, -kInf, -1},
      {DEVPLUG_OP_sign, kInf, 1},
      {DEVPLUG_OP_sign, -3, -1},
      {DEVPLUG_OP_sign, 0.25, 1},
      {DEVPLUG_OP_signbit, -0.0, 1},
      {DEVPLUG_OP_signbit, 0.0, 0},
      {DEVPLUG_OP_signbit, -kNaN, 1},
      {DEVPLUG_OP_signbit, kNaN, 0},
      {DEVPLUG_OP_signbit, -kInf, 1},
      {DEVPLUG_OP_signbit, 2, 0},
      {DEVPLUG_OP_ceil, -0.5, -0.0},
      {DEVPLUG_OP_ceil, 0.5, 1},
      {DEVPLUG_OP_ceil, -0.0, -0.0},
      {DEVPLUG_OP_ceil, kInf, kInf},
      {DEVPLUG_OP_ceil, kNaN, kNaN},
      {DEVPLUG_OP_ceil, -2.5, -2},
      {DEVPLUG_OP_floor, -0.5, -1},
      {DEVPLUG_OP_floor, 0.5, 0},
      {DEVPLUG_OP_floor, -0.0, -0.0},
      {DEVPLUG_OP_floor, -kInf, -kInf},
      {DEVPLUG_OP_floor, 2.5, 2},
      {DEVPLUG_OP_round, 2.5, 2},
      {DEVPLUG_OP_round, 3.5, 4},
      {DEVPLUG_OP_round, -0.5, -0.0},
      {DEVPLUG_OP_round, 0.5, 0},
      {DEVPLUG_OP_round, -2.5, -2},
      {DEVPLUG_OP_round, 1.5, 2},
      {DEVPLUG_OP_round, -1.5, -2},
      {DEVPLUG_OP_round, 0.75, 1},
      {DEVPLUG_OP_round, -0.25, -0.0},
      {DEVPLUG_OP_round, kInf, kInf},
      {DEVPLUG_OP_round, kNaN, kNaN},
      {DEVPLUG_OP_round, -0.0, -0.0},
      {DEVPLUG_OP_trunc, -0.75, -0.0},
      {DEVPLUG_OP_trunc, 2.75, 2},
      {DEVPLUG_OP_trunc, -2.75, -2},
      {DEVPLUG_OP_trunc, -kInf, -kInf},
      {DEVPLUG_OP_exp, 0, 1},
      {DEVPLUG_OP_exp, -kInf, 0},
      {DEVPLUG_OP_exp, kInf, kInf},
      {DEVPLUG_OP_exp, kNaN, kNaN},
      {DEVPLUG_OP_exp, 1, 2.718281828459045235360287471352662498L},
      {DEVPLUG_OP_exp2, 3, 8},
      {DEVPLUG_OP_exp2, -1, 0.5},
      {DEVPLUG_OP_exp2, -kInf, 0},
      {DEVPLUG_OP_expm1, 0, 0},
      {DEVPLUG_OP_expm1, -0.0, -0.0},
      {DEVPLUG_OP_expm1, -kInf, -1},
      {DEVPLUG_OP_expm1, kInf, kInf},
      {DEVPLUG_OP_log, 0, -kInf},
      {DEVPLUG_OP_log, -0.0, -kInf},
      {DEVPLUG_OP_log, -1, kNaN},
      {DEVPLUG_OP_log, 1, 0},
      {DEVPLUG_OP_log, kInf, kInf},
      {DEVPLUG_OP_log, -kInf, kNaN},
      {DEVPLUG_OP_log2, 8, 3},
      {DEVPLUG_OP_log2, 0, -kInf},
      {DEVPLUG_OP_log2, -0.0, -kInf},
      {DEVPLUG_OP_log2, -1, kNaN},
      {DEVPLUG_OP_log10, 100, 2},
      {DEVPLUG_OP_log10, 0, -kInf},
      {DEVPLUG_OP_log10, -0.0, -kInf},
      {DEVPLUG_OP_log10, -2, kNaN},
      {DEVPLUG_OP_log1p, -1, -kInf},
      {DEVPLUG_OP_log1p, -2, kNaN},
      {DEVPLUG_OP_log1p, 0, 0},
      {DEVPLUG_OP_log1p, -0.0, -0.0},
      {DEVPLUG_OP_log1p, kInf, kInf},
      {DEVPLUG_OP_sqrt, -0.0, -0.0},
      {DEVPLUG_OP_sqrt, -1, kNaN},
      {DEVPLUG_OP_sqrt, 4, 2},
      {DEVPLUG_OP_sqrt, kInf, kInf},
      {DEVPLUG_OP_sqrt, 2, 1.414213562373095048801688724209698079L},
      {DEVPLUG_OP_rsqrt, 0, kInf},
      {DEVPLUG_OP_rsqrt, -0.0, -kInf},
      {DEVPLUG_OP_rsqrt, -1, kNaN},
      {DEVPLUG_OP_rsqrt, 4, 0.5},
      {DEVPLUG_OP_rsqrt, kInf, 0},
      {DEVPLUG_OP_cbrt, -8, -2},
      {DEVPLUG_OP_cbrt, 27, 3},
      {DEVPLUG_OP_cbrt, -0.0, -0.0},
      {DEVPLUG_OP_cbrt, -kInf, -kInf},
      {DEVPLUG_OP_reciprocal, 0, kInf},
      {DEVPLUG_OP_reciprocal, -0.0, -kInf},
      {DEVPLUG_OP_reciprocal, 4, 0.25},
      {DEVPLUG_OP_reciprocal, kInf, 0},
      {DEVPLUG_OP_reciprocal, -kInf, -0.0},
      {DEVPLUG_OP_sin, 0, 0},
      {DEVPLUG_OP_sin, -0.0, -0.0},
      {DEVPLUG_OP_sin, kInf, kNaN},
      {DEVPLUG_OP_cos, 0, 1},
      {DEVPLUG_OP_cos, -kInf, kNaN},
      {DEVPLUG_OP_tan, -0.0, -0.0},
      {DEVPLUG_OP_tan, kInf, kNaN},
      {DEVPLUG_OP_asin, 2, kNaN},
      {DEVPLUG_OP_asin, 1, kPiL / 2},
      {DEVPLUG_OP_asin, -0.0, -0.0},
      {DEVPLUG_OP_acos, 1, 0},
      {DEVPLUG_OP_acos, 2, kNaN},
      {DEVPLUG_OP_acos, -1, kPiL},
      {DEVPLUG_OP_acos, 0, kPiL / 2},
      {DEVPLUG_OP_atan, kInf, kPiL / 2},
      {DEVPLUG_OP_atan, -kInf, -kPiL / 2},
      {DEVPLUG_OP_atan, -0.0, -0.0},
      {DEVPLUG_OP_atan, 1, kPiL / 4},
      {DEVPLUG_OP_sinh, -0.0, -0.0},
      {DEVPLUG_OP_sinh, kInf, kInf},
      {DEVPLUG_OP_sinh, -kInf, -kInf},
      {DEVPLUG_OP_cosh, 0, 1},
      {DEVPLUG_OP_cosh, -kInf, kInf},
      {DEVPLUG_OP_tanh, kInf, 1},
      {DEVPLUG_OP_tanh, -kInf, -1},
      {DEVPLUG_OP_tanh, -0.0, -0.0},
      {DEVPLUG_OP_asinh, -kInf, -kInf},
      {DEVPLUG_OP_asinh, -0.0, -0.0},
      {DEVPLUG_OP_acosh, 1, 0},
      {DEVPLUG_OP_acosh, 0.5, kNaN},
      {DEVPLUG_OP_acosh, kInf, kInf},
      {DEVPLUG_OP_atanh, 1, kInf},
      {DEVPLUG_OP_atanh, -1, -kInf},
      {DEVPLUG_OP_atanh, 2, kNaN},
      {DEVPLUG_OP_atanh, -0.0, -0.0},
      {DEVPLUG_OP_erf, kInf, 1},
      {DEVPLUG_OP_erf, -kInf, -1},
      {DEVPLUG_OP_erf, -0.0, -0.0},
      {DEVPLUG_OP_erfc, kInf, 0},
      {DEVPLUG_OP_erfc, -kInf, 2},
      {DEVPLUG_OP_erfc, 0, 1},
      {DEVPLUG_OP_erfinv, 1, kInf},
      {DEVPLUG_OP_erfinv, -1, -kInf},
      {DEVPLUG_OP_erfinv, 2, kNaN},
      {DEVPLUG_OP_erfinv, -1.5, kNaN},
      {DEVPLUG_OP_erfinv, 0, 0},
      {DEVPLUG_OP_erfinv, -0.0, -0.0},
      {DEVPLUG_OP_erfinv, kNaN, kNaN},
      {DEVPLUG_OP_erfinv, 0.5, 0.4769362762044698733814183536431305598L},
      {DEVPLUG_OP_erfinv, -0.5, -0.4769362762044698733814183536431305598L},
      {DEVPLUG_OP_lgamma, 0, kInf},
      {DEVPLUG_OP_lgamma, -0.0, kInf},
      {DEVPLUG_OP_lgamma, -1, kInf},
      {DEVPLUG_OP_lgamma, -2, kInf},
      {DEVPLUG_OP_lgamma, 1, 0},
      {DEVPLUG_OP_lgamma, 2, 0},
      {DEVPLUG_OP_lgamma, 0.5, 0.5723649429247000870717136756012478L},
      {DEVPLUG_OP_lgamma, -kInf, kInf},
      {DEVPLUG_OP_lgamma, kInf, kInf},
      {DEVPLUG_OP_lgamma, kNaN, kNaN},
      {DEVPLUG_OP_digamma, 0, -kInf},
      {DEVPLUG_OP_digamma, -1, kNaN},
      {DEVPLUG_OP_digamma, -2, kNaN},
      {DEVPLUG_OP_digamma, 1, -0.5772156649015328606065120900824024L},
      {DEVPLUG_OP_digamma, 2, 0.4227843350984671393934879099175976L},
      {DEVPLUG_OP_digamma, 0.5, -1.9635100260214234794409763329987556L},
      {DEVPLUG_OP_digamma, -0.5, 0.0364899739785765205590236670012444L},
      {DEVPLUG_OP_digamma, 10, 2.2517525890667211076474561638858011L},
      {DEVPLUG_OP_digamma, kInf, kInf},
      {DEVPLUG_OP_digamma, -kInf, kNaN},
      {DEVPLUG_OP_digamma, kNaN, kNaN},
      {DEVPLUG_OP_isfinite, 1, 1},
      {DEVPLUG_OP_isfinite, kInf, 0},
      {DEVPLUG_OP_isfinite, kNaN, 0},
      {DEVPLUG_OP_isfinite, -0.0, 1},
      {DEVPLUG_OP_isinf, kInf, 1},
      {DEVPLUG_OP_isinf, -kInf, 1},
      {DEVPLUG_OP_isinf, kNaN, 0},
      {DEVPLUG_OP_isinf, 65504, 0},
      {DEVPLUG_OP_isnan, kNaN, 1},
      {DEVPLUG_OP_isnan, -kNaN, 1},
      {DEVPLUG_OP_isnan, kInf, 0},
      {DEVPLUG_OP_isnan, 0, 0},
  };
  return table;
}

TEST(UnaryFloat, EdgeValuesEveryFloatDtype) {
  for (devplug_dtype_t dtype : kFloatDtypes) {
    for (const Edge& e : edges()) {
      const double got = run_unary(e.op, dtype, {e.x})[0];
      const bool bool_out = devplug_op_info(e.op)->result == DEVPLUG_RESULT_bool;
      const double expected = bool_out ? static_cast<double>(e.expected) : to_dtype(dtype, e.expected);
      EXPECT_TRUE(rt::same_value(got, expected))
          << describe(e.op, dtype, e.x) << ": got " << got << ", expected " << expected;
    }
  }
}

TEST(UnaryFloat, NegFlipsTheSignOfNaN) {
  for (devplug_dtype_t dtype : kFloatDtypes) {
    const std::vector<double> r = run_unary(DEVPLUG_OP_neg, dtype, {kNaN, -kNaN});
    EXPECT_TRUE(std::isnan(r[0]) && std::signbit(r[0])) << devplug_dtype_name(dtype);
    EXPECT_TRUE(std::isnan(r[1]) && !std::signbit(r[1])) << devplug_dtype_name(dtype);
  }
}

TEST(UnaryFloat, SubnormalsAndExtremes) {
  const double min_f32_sub = std::ldexp(1.0, -149), max_f32 = std::numeric_limits<float>::max();
  const double min_f64_sub = std::numeric_limits<double>::denorm_min(),
               max_f64 = std::numeric_limits<double>::max();
  // float32: subnormals survive, abs/neg are exact, sqrt and reciprocal of extremes.
  std::vector<double> r = run_unary(DEVPLUG_OP_sqrt, DEVPLUG_DTYPE_FLOAT32, {min_f32_sub, max_f32});
  EXPECT_EQ(r[0], static_cast<float>(std::sqrt(min_f32_sub)));
  EXPECT_EQ(r[1], static_cast<float>(std::sqrt(max_f32)));
  r = run_unary(DEVPLUG_OP_reciprocal, DEVPLUG_DTYPE_FLOAT32, {max_f32, min_f32_sub});
  EXPECT_EQ(r[0], static_cast<float>(1.0 / max_f32)) << "a subnormal result";
  EXPECT_EQ(r[1], kInf);
  r = run_unary(DEVPLUG_OP_neg, DEVPLUG_DTYPE_FLOAT64, {min_f64_sub, -max_f64});
  EXPECT_EQ(r[0], -min_f64_sub);
  EXPECT_EQ(r[1], max_f64);
  r = run_unary(DEVPLUG_OP_exp, DEVPLUG_DTYPE_FLOAT64, {710, -746, -745});
  EXPECT_EQ(r[0], kInf);
  EXPECT_TRUE(rt::same_value(r[1], 0.0));
  EXPECT_EQ(r[2], min_f64_sub);
  // float16: 65504 is the largest finite value; 2^-24 the smallest subnormal.
  r = run_unary(DEVPLUG_OP_exp2, DEVPLUG_DTYPE_FLOAT16, {-24, -25, 16, 15});
  EXPECT_EQ(r[0], std::ldexp(1.0, -24));
  EXPECT_TRUE(rt::same_value(r[1], 0.0)) << "2^-25 is a tie, rounded to even (zero)";
  EXPECT_EQ(r[2], kInf);
  EXPECT_EQ(r[3], 32768);
  r = run_unary(DEVPLUG_OP_sqrt, DEVPLUG_DTYPE_BFLOAT16, {std::ldexp(1.0, -133), 4});
  EXPECT_EQ(r[0], to_dtype(DEVPLUG_DTYPE_BFLOAT16, std::sqrt(std::ldexp(1.0L, -133))))
      << "bfloat16 subnormal input";
  EXPECT_EQ(r[1], 2);
}

TEST(UnaryFloat, RoundHalfEvenAtLargeMagnitudes) {
  // Above 2^52 every double is an integer; just below, halves exist.
  const double big = std::ldexp(1.0, 52);
  const std::vector<double> r = run_unary(DEVPLUG_OP_round, DEVPLUG_DTYPE_FLOAT64,
                                          {big - 0.5, big - 1.5, big + 1, -(big - 0.5), 0.49999999999999994});
  EXPECT_EQ(r[0], big);      // ...1.5 -> even above
  EXPECT_EQ(r[1], big - 2);  // ...0.5 below: even is big - 2
  EXPECT_EQ(r[2], big + 1);
  EXPECT_EQ(r[3], -big);
  EXPECT_TRUE(rt::same_value(r[4], 0.0)) << "the largest double below 0.5 rounds down";
}

// ---- accuracy against long double references ----------------------------------------------

struct Reference {
  devplug_op_t op;
  std::function<long double(long double)> f;
  double lo, hi;  // random float32/float64 inputs are drawn from [lo, hi]
};

const std::vector<Reference>& references() {
  static const std::vector<Reference> table = {
      {DEVPLUG_OP_ceil, [](long double x) { return std::ceil(x); }, -1e6, 1e6},
      {DEVPLUG_OP_floor, [](long double x) { return std::floor(x); }, -1e6, 1e6},
      {DEVPLUG_OP_trunc, [](long double x) { return std::trunc(x); }, -1e6, 1e6},
      {DEVPLUG_OP_round, [](long double x) { return std::nearbyint(x); }, -1e6, 1e6},
      {DEVPLUG_OP_exp, [](long double x) { return std::exp(x); }, -700, 700},
      {DEVPLUG_OP_exp2, [](long double x) { return std::exp2(x); }, -1000, 1000},
      {DEVPLUG_OP_expm1, [](long double x) { return std::expm1(x); }, -40, 40},
      {DEVPLUG_OP_log, [](long double x) { return std::log(x); }, 0, 1e30},
      {DEVPLUG_OP_log2, [](long double x) { return std::log2(x); }, 0, 1e30},
      {DEVPLUG_OP_log10, [](long double x) { return std::log10(x); }, 0, 1e30},
      {DEVPLUG_OP_log1p, [](long double x) { return std::log1p(x); }, -1, 1e6},
      {DEVPLUG_OP_sqrt, [](long double x) { return std::sqrt(x); }, 0, 1e30},
      {DEVPLUG_OP_rsqrt, [](long double x) { return 1 / std::sqrt(x); }, 0, 1e30},
      {DEVPLUG_OP_cbrt, [](long double x) { return std::cbrt(x); }, -1e30, 1e30},
      {DEVPLUG_OP_reciprocal, [](long double x) { return 1 / x; }, -1e30, 1e30},
      {DEVPLUG_OP_sin, [](long double x) { return std::sin(x); }, -100, 100},
      {DEVPLUG_OP_cos, [](long double x) { return std::cos(x); }, -100, 100},
      {DEVPLUG_OP_tan, [](long double x) { return std::tan(x); }, -100, 100},
      {DEVPLUG_OP_asin, [](long double x) { return std::asin(x); }, -1, 1},
      {DEVPLUG_OP_acos, [](long double x) { return std::acos(x); }, -1, 1},
      {DEVPLUG_OP_atan, [](long double x) { return std::atan(x); }, -1e4, 1e4},
      {DEVPLUG_OP_sinh, [](long double x) { return std::sinh(x); }, -80, 80},
      {DEVPLUG_OP_cosh, [](long double x) { return std::cosh(x); }, -80, 80},
      {DEVPLUG_OP_tanh, [](long double x) { return std::tanh(x); }, -20, 20},
      {DEVPLUG_OP_asinh, [](long double x) { return std::asinh(x); }, -1e6, 1e6},
      {DEVPLUG_OP_acosh, [](long double x) { return std::acosh(x); }, 1, 1e6},
      {DEVPLUG_OP_atanh, [](long double x) { return std::atanh(x); }, -1, 1},
      {DEVPLUG_OP_erf, [](long double x) { return std::erf(x); }, -6, 6},
      {DEVPLUG_OP_erfc, [](long double x) { return std::erfc(x); }, -6, 27},
      // lgamma through tgamma where tgamma is finite: an independent route.
      {DEVPLUG_OP_lgamma, [](long double x) { return std::log(std::fabs(std::tgamma(x))); }, 0.01, 150},
  };
  return table;
}

// Every value of a 16-bit format, as doubles.
std::vector<double> all_16bit_values(devplug_dtype_t dtype) {
  std::vector<double> values;
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    values.push_back(dtype == DEVPLUG_DTYPE_FLOAT16 ? sdk::half_bits_to_double(b)
                                                    : sdk::bfloat16_bits_to_double(b));
  }
  return values;
}

// Random values of `dtype` in [lo, hi]: half uniform, half spread over the exponents.
std::vector<double> random_values(devplug_dtype_t dtype, double lo, double hi, size_t n, uint32_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> uniform(lo, hi), unit(0, 1);
  std::vector<double> values;
  const double top = std::max(std::fabs(lo), std::fabs(hi));
  for (size_t i = 0; i < n; ++i) {
    double v = uniform(gen);
    if (i % 2 == 1) {
      // log-uniform magnitude between 1e-30 and the range's top, clamped into [lo, hi]
      const double mag = std::exp(std::log(1e-30) + unit(gen) * (std::log(top) - std::log(1e-30)));
      v = (lo < 0 && (i % 4 == 1)) ? -mag : mag;
      v = std::min(std::max(v, lo), hi);
    }
    values.push_back(to_dtype(dtype, v));
  }
  return values;
}

void check_against_reference(const Reference& ref, devplug_dtype_t dtype, const std::vector<double>& xs,
                             double lo, double hi) {
  const std::vector<double> got = run_unary(ref.op, dtype, xs);
  int reported = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!(xs[i] >= lo && xs[i] <= hi)) continue;  // outside the reference's domain (edges test it)
    const double expected = to_dtype(dtype, ref.f(xs[i]));
    if (rt::ulp_diff(dtype, got[i], expected) > 1 && reported++ < 5)
      ADD_FAILURE() << describe(ref.op, dtype, xs[i]) << ": got " << got[i] << ", expected " << expected;
  }
}

TEST(UnaryFloat, Every16BitValueWithinOneUlpOfLongDouble) {
  for (devplug_dtype_t dtype : {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16}) {
    const std::vector<double> xs = all_16bit_values(dtype);
    for (const Reference& ref : references()) {
      // lgamma's tgamma route overflows above ~170; keep to where it is finite.
      const double lo = ref.op == DEVPLUG_OP_lgamma ? ref.lo : -kInf;
      const double hi = ref.op == DEVPLUG_OP_lgamma ? ref.hi : kInf;
      check_against_reference(ref, dtype, xs, lo, hi);
    }
  }
}

TEST(UnaryFloat, RandomFloat32AndFloat64WithinOneUlpOfLongDouble) {
  for (devplug_dtype_t dtype : {DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64}) {
    uint32_t seed = 1;
    for (const Reference& ref : references())
      check_against_reference(ref, dtype, random_values(dtype, ref.lo, ref.hi, 2000, seed++), ref.lo, ref.hi);
  }
}

// erfinv by bisection on erfl (or erfcl above 0.5, where 1 - y is exact): independent of the
// kernel's Halley iteration.
long double erfinv_by_bisection(long double y) {
  const bool upper = std::fabs(y) >= 0.5L;
  const long double target = upper ? 1 - std::fabs(y) : std::fabs(y);
  // erfinv(y) < 2|y| below 0.9 and < 7 everywhere: a bracket that scales with y keeps the
  // bisection relative, so 200 halvings suffice even for subnormal y.
  long double lo = 0, hi = std::fabs(y) < 0.9L ? 2 * std::fabs(y) : 7;
  for (int i = 0; i < 200 && lo < hi; ++i) {
    const long double mid = (lo + hi) / 2;
    if (mid == lo || mid == hi) break;
    const bool below = upper ? std::erfc(mid) > target : std::erf(mid) < target;
    (below ? lo : hi) = mid;
  }
  return std::copysign((lo + hi) / 2, y);
}

TEST(UnaryFloat, ErfinvInvertsErf) {
  for (devplug_dtype_t dtype : kFloatDtypes) {
    std::vector<double> xs = random_values(dtype, -1, 1, 1500, 99);
    for (double near_one : {1 - std::ldexp(1.0, -53), 1 - std::ldexp(1.0, -24), 1 - std::ldexp(1.0, -11),
                            1e-300, 1e-8, 0.999, 0.5})
      xs.push_back(to_dtype(dtype, near_one));
    const std::vector<double> got = run_unary(DEVPLUG_OP_erfinv, dtype, xs);
    int reported = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (std::fabs(xs[i]) >= 1) continue;
      const double expected = to_dtype(dtype, erfinv_by_bisection(xs[i]));
      if (rt::ulp_diff(dtype, got[i], expected) > 1 && reported++ < 5)
        ADD_FAILURE() << describe(DEVPLUG_OP_erfinv, dtype, xs[i]) << ": got " << got[i] << ", expected "
                      << expected;
    }
  }
}

TEST(UnaryFloat, DigammaSatisfiesTheRecurrence) {
  // psi(x + 1) = psi(x) + 1 / x, checked in float64 where x and x + 1 are exact and the
  // terms do not cancel.
  std::vector<double> xs, next;
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> dist(-30, 30);
  while (xs.size() < 500) {
    const double x = std::ldexp(std::round(std::ldexp(dist(gen), 20)), -20);  // exact x + 1
    if (std::fabs(x - std::round(x)) < 1e-3) continue;
    xs.push_back(x);
    next.push_back(x + 1);
  }
  const std::vector<double> a = run_unary(DEVPLUG_OP_digamma, DEVPLUG_DTYPE_FLOAT64, xs);
  const std::vector<double> b = run_unary(DEVPLUG_OP_digamma, DEVPLUG_DTYPE_FLOAT64, next);
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double lhs = b[i], rhs = static_cast<long double>(a[i]) + 1.0L / xs[i];
    const long double scale = std::fabs(a[i]) + std::fabs(1.0L / xs[i]) + std::fabs(b[i]);
    EXPECT_LE(std::fabs(lhs - rhs), scale * 1e-15L) << "x = " << xs[i];
  }
  // Reflection: psi(1 - x) - psi(x) = pi / tan(pi x).
  const std::vector<double> one_minus = [&] {
    std::vector<double> v;
    for (double x : xs) v.push_back(1 - x);
    return v;
  }();
  const std::vector<double> c = run_unary(DEVPLUG_OP_digamma, DEVPLUG_DTYPE_FLOAT64, one_minus);
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double expected = kPiL / std::tan(kPiL * xs[i]);
    const long double scale = std::fabs(a[i]) + std::fabs(c[i]) + std::fabs(expected);
    EXPECT_LE(std::fabs((static_cast<long double>(c[i]) - a[i]) - expected), scale * 1e-14L)
        << "x = " << xs[i];
  }
}

TEST(UnaryFloat, DigammaIsAccurateNearItsPositiveRoot) {
  // psi(x) = psi'(x0) (x - x0) + O((x - x0)^2) near its root x0, with psi'(x0) = 0.9677: at
  // the float64 neighbours of x0 the result is about 1e-16, where any cancellation error in
  // the series would show as a wrong slope or sign.
  const long double x0 = 1.461632144968362341262659542325721325L;
  std::vector<double> xs;
  double below = static_cast<double>(x0);
  if (below > x0) below = std::nextafter(below, 0.0);
  double x = below;
  for (int i = 0; i < 4; ++i) x = std::nextafter(x, 0.0);
  for (int i = 0; i < 9; ++i, x = std::nextafter(x, 2.0)) xs.push_back(x);
  for (double d : {1e-12, -1e-12, 1e-9, -1e-9}) xs.push_back(static_cast<double>(x0 + d));
  const std::vector<double> psi = run_unary(DEVPLUG_OP_digamma, DEVPLUG_DTYPE_FLOAT64, xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double slope = psi[i] / (xs[i] - x0);
    EXPECT_GT(slope, 0.9670L) << "x = " << xs[i] << ", psi = " << psi[i];
    EXPECT_LT(slope, 0.9685L) << "x = " << xs[i] << ", psi = " << psi[i];
  }
}

TEST(UnaryFloat, DigammaAtNegativeZeroFollowsPyTorch) {
  for (devplug_dtype_t dtype : kFloatDtypes)
    EXPECT_EQ(run_unary(DEVPLUG_OP_digamma, dtype, {-0.0})[0], kInf) << devplug_dtype_name(dtype);
}

// ---- integers and bool --------------------------------------------------------------------

using rt::for_each_int_type;

// Interesting values of T: limits, around zero, and a few random ones.
template <typename T>
std::vector<T> int_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), static_cast<T>(L::min() + 1), 0,        1,
                      2,        static_cast<T>(L::max() - 1), L::max(), 100 % L::max()};
  if constexpr (std::is_signed_v<T>)
    for (T x : {static_cast<T>(-1), static_cast<T>(-2)}) v.push_back(x);
  std::mt19937_64 gen(3);
  for (int i = 0; i < 20; ++i) v.push_back(static_cast<T>(gen()));
  return v;
}

// `v` wrapped to T's width (two's complement), computed with __int128.
template <typename T>
T wrap128(__int128 v) {
  const int bits = 8 * sizeof(T);
  unsigned __int128 u = static_cast<unsigned __int128>(v) & ((static_cast<unsigned __int128>(1) << bits) - 1);
  if (std::is_signed_v<T> && (u >> (bits - 1)) != 0)
    return static_cast<T>(static_cast<__int128>(u) - (static_cast<__int128>(1) << bits));
  return static_cast<T>(u);
}

TEST(UnaryInteger, AbsNegSignSignbitBitwiseNot) {
  for_each_int_type([](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<T> xs = int_values<T>();
    const std::vector<T> abs = rt::apply<T, T>(DEVPLUG_OP_abs, {xs});
    const std::vector<T> neg = rt::apply<T, T>(DEVPLUG_OP_neg, {xs});
    const std::vector<T> sign = rt::apply<T, T>(DEVPLUG_OP_sign, {xs});
    const std::vector<bool> signbit = rt::apply<bool, T>(DEVPLUG_OP_signbit, {xs});
    const std::vector<T> bnot = rt::apply<T, T>(DEVPLUG_OP_bitwise_not, {xs});
    ASSERT_EQ(abs.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      const __int128 x = xs[i];
      const std::string what = std::string(devplug_dtype_name(sdk::dtype_of<T>())) +
                               " x=" + std::to_string(static_cast<long long>(x));
      EXPECT_EQ(abs[i], wrap128<T>(x < 0 ? -x : x)) << "abs " << what;
      EXPECT_EQ(neg[i], wrap128<T>(-x)) << "neg " << what;
      EXPECT_EQ(sign[i], static_cast<T>(x > 0 ? 1 : x < 0 ? -1 : 0)) << "sign " << what;
      EXPECT_EQ(signbit[i], x < 0) << "signbit " << what;
      EXPECT_EQ(bnot[i], wrap128<T>(-x - 1)) << "bitwise_not " << what;
    }
  });
}

TEST(UnaryInteger, AbsAndNegOfTheMinimumWrapToItself) {
  EXPECT_EQ((rt::apply<int8_t, int8_t>(DEVPLUG_OP_abs, {{-128}})), std::vector<int8_t>{-128});
  EXPECT_EQ((rt::apply<int64_t, int64_t>(DEVPLUG_OP_neg, {{INT64_MIN}})), std::vector<int64_t>{INT64_MIN});
  EXPECT_EQ((rt::apply<uint8_t, uint8_t>(DEVPLUG_OP_neg, {{1, 0, 255}})), (std::vector<uint8_t>{255, 0, 1}));
}

TEST(UnaryBool, BitwiseNotIsLogicalNot) {
  EXPECT_EQ((rt::apply<bool, bool>(DEVPLUG_OP_bitwise_not, {{true, false}})),
            (std::vector<bool>{false, true}));
  // A bool byte other than 0/1 counts as true, and results are 0/1 bytes.
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  const std::vector<unsigned char> bytes = {0, 7, 255};
  rt::write_bytes(in, bytes);
  rt::run_ok(DEVPLUG_OP_bitwise_not, {&in}, {&out});
  EXPECT_EQ(rt::read_bytes(out), (std::vector<unsigned char>{1, 0, 0}));
}

TEST(UnaryChecks, WrongOutputDtypeIsRefused) {
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_exp, {&in}, {&out}).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor not_bool = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_isnan, {&in}, {&not_bool}).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

}  // namespace
