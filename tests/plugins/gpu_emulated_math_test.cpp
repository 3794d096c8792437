// SPDX-License-Identifier: Apache-2.0
// The emulated GPU's device math against 50-digit results from Boost.Multiprecision and
// Boost.Math: the host versions of CUDA's device-only functions (plugins/gpu_emulated/
// emu_math.hpp), which stay within about half an ulp, and every function the kernels call
// (device_math.cuh's m_* overloads: glibc's, or the emulator's own where glibc is less
// accurate than CUDA), each within CUDA's documented ulp bound. The largest error seen is
// printed; special values must be CUDA's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <boost/math/special_functions/erf.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <gtest/gtest.h>

#include "device_math.cuh"  // the m_* overloads the kernels call, as the emulated build compiles them
#include "emu_math.hpp"

namespace {

using Big = boost::multiprecision::cpp_bin_float_50;
// Overflow (erf_inv(1)) gives infinity and a domain error NaN, instead of an exception.
using NoThrow =
    boost::math::policies::policy<boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::domain_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::pole_error<boost::math::policies::ignore_error>>;

// sin(pi x) and cos(pi x) with the argument reduced exactly (x - 2 floor(x / 2) is exact in
// 166 bits for any double), then evaluated in 50 digits; their zeros are exact.
Big sin_pi(const Big& x) {
  const Big r = x - 2 * floor(x / 2);
  if (r == 0 || r == 1) return Big(0);
  return sin(boost::math::constants::pi<Big>() * r);
}
Big cos_pi(const Big& x) {
  const Big r = x - 2 * floor(x / 2);
  if (r == Big(0.5) || r == Big(1.5)) return Big(0);
  return cos(boost::math::constants::pi<Big>() * r);
}

// The distance from `got` to the exact `want` in ulps of T at `want` (subnormal spacing below
// the smallest normal). Infinite when one is a NaN or an infinity and the other is not equal.
template <typename T>
double ulps(T got, const Big& want) {
  if (std::isnan(got)) return isnan(want) ? 0.0 : std::numeric_limits<double>::infinity();
  const T rounded = static_cast<T>(want);
  if (std::isinf(got) || std::isinf(rounded))
    return got == rounded ? 0.0 : std::numeric_limits<double>::infinity();
  int e = 0;
  boost::multiprecision::frexp(want, &e);  // |want| in [2^(e-1), 2^e)
  const int digits = std::numeric_limits<T>::digits;
  const int min_exp = std::numeric_limits<T>::min_exponent;  // 2^(min_exp-1) is the least normal
  const int ulp_exp = std::max(e, min_exp) - digits;
  const Big ulp = boost::multiprecision::ldexp(Big(1), ulp_exp);
  return static_cast<double>(abs(Big(got) - want) / ulp);
}

struct Inputs {
  std::vector<double> values;
};

// `n` uniform values in [lo, hi] plus `edges`.
std::vector<double> sample(double lo, double hi, int n, std::vector<double> edges) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int i = 0; i < n; ++i) edges.push_back(u(rng));
  return edges;
}

// log-uniform magnitudes in [2^lo_exp, 2^hi_exp].
std::vector<double> sample_log(int lo_exp, int hi_exp, int n, std::vector<double> edges) {
  std::mt19937_64 rng(6789);
  std::uniform_real_distribution<double> u(lo_exp, hi_exp);
  for (int i = 0; i < n; ++i) edges.push_back(std::exp2(u(rng)));
  return edges;
}

// Checks f (double) and ff (float) on every input against `exact`, within the bounds.
void check(const char* name, const std::vector<double>& inputs, double (*f)(double), float (*ff)(float),
           const std::function<Big(const Big&)>& exact, double bound, double bound_f) {
  double worst = 0, worst_f = 0;
  double at = 0, at_f = 0;
  for (double x : inputs) {
    const double err = ulps<double>(f(x), exact(Big(x)));
    if (err > worst) worst = err, at = x;
    EXPECT_LE(err, bound) << name << "(" << x << ") = " << f(x);
    const float xf = static_cast<float>(x);
    const double err_f = ulps<float>(ff(xf), exact(Big(xf)));
    if (err_f > worst_f) worst_f = err_f, at_f = xf;
    EXPECT_LE(err_f, bound_f) << name << "f(" << xf << ") = " << ff(xf);
  }
  std::printf("%-11s worst %.3f ulp at %.17g (CUDA: %g); float %.3f ulp at %.9g (CUDA: %g)\n", name, worst,
              at, bound, worst_f, at_f, bound_f);
}

const Big kPi = boost::math::constants::pi<Big>();
const Big kSqrt2 = boost::multiprecision::sqrt(Big(2));
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTiny = std::numeric_limits<double>::denorm_min();

TEST(EmulatedMath, RsqrtAndRcbrt) {
  const auto positive = sample_log(-1074, 1023, 3000, {kTiny, 1e-310, 0.25, 1.0, 2.0, 3.0, 1e308});
  check(
      "rsqrt", positive, rsqrt, rsqrtf, [](const Big& x) { return 1 / sqrt(x); }, 1, 2);
  auto both = positive;
  for (double x : positive) both.push_back(-x);
  check(
      "rcbrt", both, rcbrt, rcbrtf, [](const Big& x) { return 1 / (x < 0 ? -cbrt(-x) : cbrt(x)); }, 1, 1);
  EXPECT_EQ(rsqrt(0.0), kInf);
  EXPECT_EQ(rsqrt(-0.0), -kInf);
  EXPECT_EQ(rsqrt(kInf), 0.0);
  EXPECT_TRUE(std::isnan(rsqrt(-1.0)));
  EXPECT_TRUE(std::isnan(rsqrtf(-1.0f)));
  EXPECT_EQ(rcbrt(-0.0), -kInf);
  EXPECT_EQ(rcbrt(-kInf), -0.0);
  EXPECT_TRUE(std::signbit(rcbrt(-kInf)));
}

TEST(EmulatedMath, Erfinv) {
  std::vector<double> inputs = sample(
      -1, 1, 1500,
      {1e-300, kTiny, 1e-20, 0.5, -0.5, 0.9, 0.999999, 1 - 0x1p-53, -1 + 0x1p-53, 1 - 0x1p-24, 0x1p-1022});
  for (double q : sample_log(-53, -1, 500, {})) inputs.push_back(1 - q);  // the tails
  check(
      "erfinv", inputs, erfinv, erfinvf, [](const Big& x) { return boost::math::erf_inv(x, NoThrow()); }, 5,
      2);
  EXPECT_EQ(erfinv(1.0), kInf);
  EXPECT_EQ(erfinv(-1.0), -kInf);
  EXPECT_TRUE(std::signbit(erfinv(-0.0)));
  EXPECT_TRUE(std::isnan(erfinv(1.0000000000000002)));
  EXPECT_TRUE(std::isnan(erfinvf(-1.5f)));
  EXPECT_TRUE(std::isnan(erfinv(kNaN)));
}

TEST(EmulatedMath, Erfcinv) {
  std::vector<double> inputs =
      sample(0, 2, 1500, {kTiny, 1e-310, 1e-300, 1e-20, 0.5, 1.0, 1.5, 2 - 0x1p-52, 0x1p-52});
  for (double q : sample_log(-1074, -1, 800, {})) inputs.push_back(q);
  check(
      "erfcinv", inputs, erfcinv, erfcinvf, [](const Big& x) { return boost::math::erfc_inv(x, NoThrow()); },
      6, 4);
  EXPECT_EQ(erfcinv(0.0), kInf);
  EXPECT_EQ(erfcinv(2.0), -kInf);
  EXPECT_EQ(erfcinv(1.0), 0.0);
  EXPECT_TRUE(std::isnan(erfcinv(-0.5)));
  EXPECT_TRUE(std::isnan(erfcinvf(2.5f)));
}

TEST(EmulatedMath, Normcdf) {
  const auto inputs = sample(-38, 9, 2500, {-38.4, -37.5, -20, -1e-300, 0.0, 1e-10, 5.0, 8.3, 40.0});
  check(
      "normcdf", inputs, normcdf, normcdff,
      [](const Big& x) { return boost::math::erfc(-x / kSqrt2, NoThrow()) / 2; }, 5, 5);
  EXPECT_EQ(normcdf(-kInf), 0.0);
  EXPECT_EQ(normcdf(kInf), 1.0);
  EXPECT_EQ(normcdf(0.0), 0.5);
  EXPECT_TRUE(std::isnan(normcdf(kNaN)));
}

TEST(EmulatedMath, Normcdfinv) {
  std::vector<double> inputs = sample(0, 1, 1500, {kTiny, 1e-300, 0.5, 1 - 0x1p-53, 0x1p-30});
  for (double q : sample_log(-1074, -1, 800, {})) inputs.push_back(q);
  check(
      "normcdfinv", inputs, normcdfinv, normcdfinvf,
      [](const Big& x) { return -kSqrt2 * boost::math::erfc_inv(2 * x, NoThrow()); }, 8, 5);
  EXPECT_EQ(normcdfinv(0.0), -kInf);
  EXPECT_EQ(normcdfinv(1.0), kInf);
  EXPECT_TRUE(std::isnan(normcdfinv(1.5)));
}

TEST(EmulatedMath, SinpiAndCospi) {
  std::vector<double> inputs = sample(-4, 4, 2000,
                                      {0.5, 1.0, 1.5, 0.25, 0.75, 1.0 / 3, 1e-300, kTiny, 0x1p52 + 1, 0x1p53,
                                       1e300, 2.5, -0.5, 0x1p-30, 1 - 0x1p-53});
  for (double x : sample_log(-60, 60, 500, {})) inputs.push_back(x);
  check(
      "sinpi", inputs, sinpi, sinpif, [](const Big& x) { return sin_pi(x); }, 2, 1);
  check(
      "cospi", inputs, cospi, cospif, [](const Big& x) { return cos_pi(x); }, 2, 1);
  double s = 0, c = 0;
  sincospi(0.25, &s, &c);
  EXPECT_EQ(s, sinpi(0.25));
  EXPECT_EQ(c, cospi(0.25));
  float sf = 0, cf = 0;
  sincospif(1.5f, &sf, &cf);
  EXPECT_EQ(sf, -1.0f);
  EXPECT_EQ(cf, 0.0f);
  // IEEE 754 sinPi/cosPi: zeros of sinpi take x's sign, cospi(n + 1/2) is +0.
  EXPECT_TRUE(std::signbit(sinpi(-0.0)));
  EXPECT_TRUE(std::signbit(sinpi(-2.0)));
  EXPECT_FALSE(std::signbit(sinpi(3.0)));
  EXPECT_FALSE(std::signbit(cospi(0.5)));
  EXPECT_FALSE(std::signbit(cospi(-1.5)));
  EXPECT_TRUE(std::isnan(sinpi(kInf)));
  EXPECT_TRUE(std::isnan(cospif(-std::numeric_limits<float>::infinity())));
}

// Every one-argument function the kernels call (device_math.cuh), in float and double,
// within CUDA's bound (CUDA C++ Programming Guide, "Mathematical Functions"), on 3000
// inputs from the domain the conformance suite draws from.
TEST(EmulatedMath, KernelMathIsWithinCudasBounds) {
  namespace gpu = devplug::gpu;
  struct Row {
    const char* name;
    double (*d)(double);
    float (*f)(float);
    std::function<Big(const Big&)> exact;
    double lo, hi;
    double bound, bound_f;
  };
  using boost::multiprecision::log;
  const Row rows[] = {
      {"exp", gpu::m_exp, gpu::m_exp, [](const Big& x) { return exp(x); }, -80, 80, 1, 2},
      {"exp2", gpu::m_exp2, gpu::m_exp2, [](const Big& x) { return pow(Big(2), x); }, -120, 120, 1, 2},
      {"expm1", gpu::m_expm1, gpu::m_expm1, [](const Big& x) { return expm1(x); }, -10, 10, 1, 1},
      {"log", gpu::m_log, gpu::m_log, [](const Big& x) { return log(x); }, 0.01, 100, 1, 1},
      {"log2", gpu::m_log2, gpu::m_log2, [](const Big& x) { return log2(x); }, 0.01, 100, 1, 1},
      {"log10", gpu::m_log10, gpu::m_log10, [](const Big& x) { return log10(x); }, 0.01, 100, 1, 2},
      {"log1p", gpu::m_log1p, gpu::m_log1p, [](const Big& x) { return log1p(x); }, -0.99, 50, 1, 1},
      {"sqrt", gpu::m_sqrt, gpu::m_sqrt, [](const Big& x) { return sqrt(x); }, 0, 1e6, 0.5, 0.5},
      {"cbrt", gpu::m_cbrt, gpu::m_cbrt, [](const Big& x) { return x < 0 ? Big(-cbrt(-x)) : Big(cbrt(x)); },
       -100, 100, 1, 1},
      {"sin", gpu::m_sin, gpu::m_sin, [](const Big& x) { return sin(x); }, -10, 10, 2, 2},
      {"cos", gpu::m_cos, gpu::m_cos, [](const Big& x) { return cos(x); }, -10, 10, 2, 2},
      {"tan", gpu::m_tan, gpu::m_tan, [](const Big& x) { return tan(x); }, -1.5, 1.5, 2, 4},
      {"asin", gpu::m_asin, gpu::m_asin, [](const Big& x) { return asin(x); }, -1, 1, 2, 2},
      {"acos", gpu::m_acos, gpu::m_acos, [](const Big& x) { return acos(x); }, -1, 1, 2, 2},
      {"atan", gpu::m_atan, gpu::m_atan, [](const Big& x) { return atan(x); }, -10, 10, 2, 2},
      {"sinh", gpu::m_sinh, gpu::m_sinh, [](const Big& x) { return sinh(x); }, -10, 10, 2, 3},
      {"cosh", gpu::m_cosh, gpu::m_cosh, [](const Big& x) { return cosh(x); }, -10, 10, 1, 2},
      {"tanh", gpu::m_tanh, gpu::m_tanh, [](const Big& x) { return tanh(x); }, -10, 10, 2, 2},
      {"asinh", gpu::m_asinh, gpu::m_asinh, [](const Big& x) { return log(x + sqrt(x * x + 1)); }, 0.001, 10,
       3, 3},
      {"acosh", gpu::m_acosh, gpu::m_acosh, [](const Big& x) { return log(x + sqrt(x * x - 1)); }, 1, 100, 3,
       4},
      {"atanh", gpu::m_atanh, gpu::m_atanh, [](const Big& x) { return log((1 + x) / (1 - x)) / 2; }, -0.999,
       0.999, 2, 3},
      {"erf", gpu::m_erf, gpu::m_erf, [](const Big& x) { return boost::math::erf(x, NoThrow()); }, -4, 4, 2,
       2},
      {"erfc", gpu::m_erfc, gpu::m_erfc, [](const Big& x) { return boost::math::erfc(x, NoThrow()); }, -4, 9,
       5, 4},
      {"lgamma", gpu::m_lgamma, gpu::m_lgamma, [](const Big& x) { return boost::math::lgamma(x, NoThrow()); },
       2.5, 20, 4, 6},
      {"erfinv", gpu::m_erfinv, gpu::m_erfinv,
       [](const Big& x) { return boost::math::erf_inv(x, NoThrow()); }, -1, 1, 5, 2},
      {"rsqrt", gpu::m_rsqrt, gpu::m_rsqrt, [](const Big& x) { return 1 / sqrt(x); }, 1e-3, 1e3, 1, 2},
  };
  for (const Row& r : rows)
    check(r.name, sample(r.lo, r.hi, 3000, {}), r.d, r.f, r.exact, r.bound, r.bound_f);
}

}  // namespace
