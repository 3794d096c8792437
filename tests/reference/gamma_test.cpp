// SPDX-License-Identifier: Apache-2.0
// Reference backend: lgamma and digamma in float64 and float32 against binary128 references
// that share no code with the kernels (libquadmath's lgammaq; a digamma written here): random
// inputs over wide ranges, and the inputs next to the zeros (1 and 2 for lgamma, psi's root
// near 1.46, and the roots of both below 0, found here by bisection), where the reflected
// formulas cancel and where the old kernel lost up to 10^13 ulps.
#include <gtest/gtest.h>
#include <quadmath.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;

using Quad = __float128;

// A binary128 value and the magnitude of the terms it was summed from: its error is below
// kReferenceError times that magnitude (measured 2^-110 against 320-bit arithmetic).
struct Reference {
  Quad value, scale;
};
constexpr double kReferenceError = 0x1p-108;

Quad pi_quad() { return 4 * atanq(1); }

// lgammaq is within 2^-112 of the result next to the roots too (checked against 320-bit
// arithmetic and against lgamma(x + n) - log|x (x + 1) ... (x + n - 1)|).
Reference lgamma_reference(double x) {
  const Quad value = lgammaq(x);
  return {value, fabsq(value)};
}

// psi(y) for y > 0: the recurrence up to 40, then log y - 1/(2y) - sum B_2k / (2k y^2k).
Reference digamma_positive(Quad y) {
  // B_2k / (2k), k = 1..12.
  static const double kNumerator[] = {1, -1, 1, -1, 1, -691, 1, -3617, 43867, -174611, 77683, -236364091};
  static const double kDenominator[] = {12, 120, 252, 240, 132, 32760, 12, 8160, 14364, 6600, 276, 65520};
  Quad sum = 0;
  while (y < 40) {
    sum += 1 / y;
    y += 1;
  }
  const Quad z = 1 / (y * y);
  Quad series = 0;
  for (int k = 11; k >= 0; --k) series = series * z + Quad(kNumerator[k]) / kDenominator[k];
  const Quad log_y = logq(y);
  return {log_y - 1 / (2 * y) - z * series - sum, fabsq(log_y) + sum};
}

// psi(x) = psi(1 - x) - pi / tan(pi x) below 0, with x reduced exactly first.
Reference digamma_reference(Quad x) {
  if (x > 0) return digamma_positive(x);
  const Quad r = x - rintq(x);
  const Reference reflected = digamma_positive(1 - x);
  const Quad cotangent = pi_quad() / tanq(pi_quad() * r);
  return {reflected.value - cotangent, reflected.scale + fabsq(cotangent)};
}

Reference reference(devplug_op_t op, double x) {
  return op == DEVPLUG_OP_lgamma ? lgamma_reference(x) : digamma_reference(x);
}

template <typename T>
constexpr devplug_dtype_t kDtype = std::is_same_v<T, double> ? DEVPLUG_DTYPE_FLOAT64 : DEVPLUG_DTYPE_FLOAT32;

// The spacing of T at |v|: turns the reference's own error into ulps.
template <typename T>
double ulp_at(Quad v) {
  int exponent;
  frexpq(v, &exponent);
  return std::ldexp(1.0, exponent - std::numeric_limits<T>::digits);
}

template <typename T>
std::string describe(devplug_op_t op, T x, T got, Quad exact) {
  char text[200], exact_text[48];
  quadmath_snprintf(exact_text, sizeof exact_text, "%.21Qg", exact);
  std::snprintf(text, sizeof text, "%s %s x=%.17g: got %.17g, exact %s", devplug_op_name(op),
                devplug_dtype_name(kDtype<T>), static_cast<double>(x), static_cast<double>(got), exact_text);
  return text;
}

// Every result within rt::kRoundedOnceUlps of the exact value (plus the reference's own
// error); and where the reference decides the rounding (no midpoint of T within its error),
// the result is the correctly rounded value itself, as the kernels promise.
template <typename T>
void expect_accurate(devplug_op_t op, const std::vector<T>& xs) {
  const std::vector<T> got = rt::apply<T, T>(op, {xs});
  ASSERT_EQ(got.size(), xs.size());
  int reported = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Reference exact = reference(op, xs[i]);
    const Quad reference_error = Quad(kReferenceError) * exact.scale;
    const double error = rt::ulp_error(kDtype<T>, got[i], exact.value);
    const bool within =
        error <= rt::kRoundedOnceUlps + static_cast<double>(reference_error) / ulp_at<T>(exact.value);
    const bool decided =
        static_cast<T>(exact.value - reference_error) == static_cast<T>(exact.value + reference_error);
    const bool rounded = !decided || got[i] == static_cast<T>(exact.value);
    if ((!within || !rounded) && reported++ < 10)
      ADD_FAILURE() << describe(op, xs[i], got[i], exact.value) << ", " << error << " ulp from it"
                    << (rounded ? "" : ", not correctly rounded");
  }
}

bool is_pole(double x) { return x <= 0 && x == std::floor(x); }

// The values of T from random doubles, without the poles.
template <typename T>
std::vector<T> values_of(const std::vector<double>& doubles) {
  std::vector<T> xs;
  for (double v : doubles)
    if (!is_pole(static_cast<T>(v))) xs.push_back(static_cast<T>(v));
  return xs;
}

// The values of T nearest to each center (8 on each side), and random ones within `width`.
template <typename T>
std::vector<T> near(const std::vector<Quad>& centers, double width, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> offset(-width, width);
  std::vector<T> xs;
  for (Quad center : centers) {
    T x = static_cast<T>(center);
    for (int i = 0; i < 8; ++i) x = std::nextafter(x, -std::numeric_limits<T>::infinity());
    for (int i = 0; i < 17; ++i, x = std::nextafter(x, std::numeric_limits<T>::infinity()))
      if (!is_pole(x)) xs.push_back(x);
    for (int i = 0; i < 8; ++i) {
      const T y = static_cast<T>(center + offset(gen));
      if (!is_pole(y)) xs.push_back(y);
    }
  }
  return xs;
}

// Bisection in binary128 for the zero of f in (lo, hi), where f rises (or falls) through 0.
template <typename F>
Quad bisect(Quad lo, Quad hi, bool rising, F&& f) {
  for (int i = 0; i < 120; ++i) {
    const Quad middle = (lo + hi) / 2;
    ((f(middle) > 0) == rising ? hi : lo) = middle;
  }
  return (lo + hi) / 2;
}

// psi's zeros: one near 1.46 and one in each (-k-1, -k), k = 0..30 (psi rises through each
// interval); lgamma's zeros on either side of psi's where lgamma dips below 0 (k >= 2).
struct Zeros {
  std::vector<Quad> digamma_positive, digamma_negative, lgamma_negative;
};

const Zeros& zeros() {
  static const Zeros z = [] {
    const auto psi = [](Quad x) { return digamma_reference(x).value; };
    const auto lgamma = [](Quad x) { return lgammaq(x); };
    Zeros found;
    found.digamma_positive.push_back(bisect(1, 2, true, psi));
    for (int k = 0; k <= 30; ++k) {
      const Quad root = bisect(-k - 1, -k, true, psi);
      found.digamma_negative.push_back(root);
      if (lgammaq(root) < 0) {
        found.lgamma_negative.push_back(bisect(-k - 1, root, false, lgamma));
        found.lgamma_negative.push_back(bisect(root, -k, true, lgamma));
      }
    }
    return found;
  }();
  return z;
}

template <typename T>
void expect_accurate_on_random_inputs(devplug_op_t op) {
  uint64_t seed = op == DEVPLUG_OP_lgamma ? 1 : 101;
  const double top = std::is_same_v<T, double> ? 1e300 : 1e36;  // lgamma(1e36) still fits float
  expect_accurate<T>(op, values_of<T>(rt::uniform_doubles(-100, 100, 2000, seed++)));
  expect_accurate<T>(op, values_of<T>(rt::uniform_doubles(0, 10, 1000, seed++)));
  expect_accurate<T>(op, values_of<T>(rt::uniform_doubles(-10, 0, 1000, seed++)));
  expect_accurate<T>(op, values_of<T>(rt::log_uniform_doubles(1e-30, 1e6, 1000, seed++)));  // both signs
  expect_accurate<T>(op, values_of<T>(rt::log_uniform_doubles(1e3, top, 500, seed++, false)));
}

TEST(Gamma, LgammaIsCorrectlyRoundedOnRandomInputs) {
  expect_accurate_on_random_inputs<double>(DEVPLUG_OP_lgamma);
  expect_accurate_on_random_inputs<float>(DEVPLUG_OP_lgamma);
}

TEST(Gamma, DigammaIsCorrectlyRoundedOnRandomInputs) {
  expect_accurate_on_random_inputs<double>(DEVPLUG_OP_digamma);
  expect_accurate_on_random_inputs<float>(DEVPLUG_OP_digamma);
}

TEST(Gamma, LgammaNearOneAndTwo) {
  expect_accurate<double>(DEVPLUG_OP_lgamma, near<double>({1, 2}, 1e-6, 3));
  expect_accurate<float>(DEVPLUG_OP_lgamma, near<float>({1, 2}, 1e-3, 4));
}

TEST(Gamma, DigammaNearItsPositiveRoot) {
  expect_accurate<double>(DEVPLUG_OP_digamma, near<double>(zeros().digamma_positive, 1e-6, 5));
  expect_accurate<float>(DEVPLUG_OP_digamma, near<float>(zeros().digamma_positive, 1e-3, 6));
}

TEST(Gamma, LgammaNearItsNegativeRoots) {
  ASSERT_EQ(zeros().lgamma_negative.size(), 2u * 29);  // k = 2..30
  expect_accurate<double>(DEVPLUG_OP_lgamma, near<double>(zeros().lgamma_negative, 1e-6, 7));
  expect_accurate<float>(DEVPLUG_OP_lgamma, near<float>(zeros().lgamma_negative, 1e-5, 8));
}

TEST(Gamma, DigammaNearItsNegativeRoots) {
  ASSERT_EQ(zeros().digamma_negative.size(), 31u);
  expect_accurate<double>(DEVPLUG_OP_digamma, near<double>(zeros().digamma_negative, 1e-6, 9));
  expect_accurate<float>(DEVPLUG_OP_digamma, near<float>(zeros().digamma_negative, 1e-5, 10));
}

}  // namespace
