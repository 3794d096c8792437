// SPDX-License-Identifier: Apache-2.0
// Host versions of CUDA's device-only math (emu_math.hpp). Long double (x87, 64-bit
// significand) carries 11 bits beyond double, so a result computed there with a relative
// error near 2^-62 and rounded once to double is within about 0.5 ulp; the float versions
// round the double results once more (within 0.5 ulp plus 2^-29).
//
// erfinv and erfcinv: a closed-form first guess (Winitzki's approximation, about 2e-3
// relative), then Halley steps on erf(y) = x until they stop moving y, written on erfc near
// +-1 so that the target 1 - |x| is exact and nothing cancels; each step about triples the
// correct digits.
#include "emu_math.hpp"

#include <cmath>
#include <limits>

namespace {

constexpr long double kPi = 3.141592653589793238462643383279502884L;
constexpr long double kTwoOverSqrtPi = 1.128379167095512573896158903121545172L;
constexpr long double kSqrt2 = 1.414213562373095048801688724209698079L;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Winitzki's closed-form approximation of erfinv, given l = log(1 - x^2).
long double winitzki(long double l) {
  constexpr long double a = 0.147L;
  const long double b = 2.0L / (kPi * a) + l / 2.0L;
  return std::sqrt(std::sqrt(b * b - l / a) - b);
}

// The y >= 0 with erf(y) = p and erfc(y) = q (p + q = 1, and whichever of them is at most
// 0.5 is exact): Halley's method on erfc when q is the smaller one, else on erf.
long double erf_inverse(long double p, long double q) {
  const bool on_erfc = q < 0.5L;
  // log(1 - x^2) without cancellation: log(q (2 - q)) near 1, log1p(-p^2) near 0.
  long double y = winitzki(on_erfc ? std::log(q) + std::log(2.0L - q) : std::log1p(-p * p));
  // Three steps from the guess suffice in the middle; the far tail (q near 1e-300) takes a
  // few more. Stop once a step no longer moves y by more than long double's last bits.
  for (int step = 0; step < 12; ++step) {
    const long double f = on_erfc ? q - std::erfc(y) : std::erf(y) - p;  // erf(y) - target
    const long double u = f / (kTwoOverSqrtPi * std::exp(-y * y));
    const long double delta = u / (1.0L + y * u);
    y -= delta;
    if (std::fabs(delta) <= 0x1p-60L * std::fabs(y)) break;
  }
  return y;
}

// sin(pi r) for r in [0, 1], reduced so that the argument of sinl or cosl is at most pi/4.
long double sinpi_unit(long double r) {
  if (r > 0.5L) r = 1.0L - r;  // exact: r is a double in (0.5, 1]
  if (r > 0.25L) return std::cos(kPi * (0.5L - r));
  return std::sin(kPi * r);
}

// cos(pi r) for r in [0, 1].
long double cospi_unit(long double r) {
  if (r > 0.5L) return -cospi_unit(1.0L - r);
  if (r > 0.25L) return std::sin(kPi * (0.5L - r));  // +0 at r = 0.5, as IEEE cosPi
  return std::cos(kPi * r);
}

// erfcinv for x in (0, 2). Below 1 the target is erfc(y) = x; above, erfc(-y) = 2 - erfc(y)
// gives -erf_inverse(x - 1, 2 - x). Each difference taken near its operands is exact.
long double erfcinv_long(double x) {
  if (x <= 1.0) return erf_inverse(1.0L - x, x);
  return -erf_inverse(static_cast<long double>(x) - 1.0L, 2.0L - x);
}

}  // namespace

namespace devplug::gpu::emu {
double cbrt(double x) { return static_cast<double>(std::cbrt(static_cast<long double>(x))); }
double log10(double x) { return static_cast<double>(std::log10(static_cast<long double>(x))); }
double cosh(double x) { return static_cast<double>(std::cosh(static_cast<long double>(x))); }
double tanh(double x) { return static_cast<double>(std::tanh(static_cast<long double>(x))); }
float tanhf(float x) { return static_cast<float>(std::tanh(static_cast<double>(x))); }
}  // namespace devplug::gpu::emu

double rsqrt(double x) { return static_cast<double>(1.0L / std::sqrt(static_cast<long double>(x))); }
float rsqrtf(float x) { return static_cast<float>(rsqrt(x)); }

double rcbrt(double x) { return static_cast<double>(1.0L / std::cbrt(static_cast<long double>(x))); }
float rcbrtf(float x) { return static_cast<float>(rcbrt(x)); }

double erfinv(double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  if (a > 1.0) return kNaN;
  if (a == 1.0) return std::copysign(kInf, x);
  if (a == 0.0) return x;                          // keeps the sign of zero
  const long double y = erf_inverse(a, 1.0L - a);  // 1 - |x| is exact where it is the target
  return std::copysign(static_cast<double>(y), x);
}
float erfinvf(float x) { return static_cast<float>(erfinv(x)); }

double erfcinv(double x) {
  if (std::isnan(x)) return x;
  if (x < 0.0 || x > 2.0) return kNaN;
  if (x == 0.0) return kInf;
  if (x == 2.0) return -kInf;
  return static_cast<double>(erfcinv_long(x));
}
float erfcinvf(float x) { return static_cast<float>(erfcinv(x)); }

double normcdf(double x) {
  if (std::isnan(x)) return x;
  return static_cast<double>(0.5L * std::erfc(-static_cast<long double>(x) / kSqrt2));
}
float normcdff(float x) { return static_cast<float>(normcdf(x)); }

double normcdfinv(double x) {
  if (std::isnan(x)) return x;
  if (x < 0.0 || x > 1.0) return kNaN;
  if (x == 0.0) return -kInf;
  if (x == 1.0) return kInf;
  return static_cast<double>(-kSqrt2 * erfcinv_long(2.0 * x));  // 2x is exact
}
float normcdfinvf(float x) { return static_cast<float>(normcdfinv(x)); }

double sinpi(double x) {
  if (!std::isfinite(x)) return kNaN;
  const double r = std::fmod(x, 2.0);  // exact, in (-2, 2), with x's sign
  const double a = std::fabs(r);
  const long double s = a > 1.0 ? -sinpi_unit(a - 1.0) : sinpi_unit(a);  // a - 1 is exact
  const double result = static_cast<double>(s);
  // sin(pi x) is odd; at integers it is a zero with x's sign (IEEE 754 sinPi).
  return result == 0.0 ? std::copysign(0.0, x) : (r < 0.0 ? -result : result);
}
float sinpif(float x) { return static_cast<float>(sinpi(x)); }

double cospi(double x) {
  if (!std::isfinite(x)) return kNaN;
  double r = std::fmod(std::fabs(x), 2.0);  // exact, in [0, 2)
  if (r > 1.0) r = 2.0 - r;                 // exact; cos(pi x) is even about 1
  return static_cast<double>(cospi_unit(r));
}
float cospif(float x) { return static_cast<float>(cospi(x)); }

void sincospi(double x, double* s, double* c) {
  *s = sinpi(x);
  *c = cospi(x);
}
void sincospif(float x, float* s, float* c) {
  *s = sinpif(x);
  *c = cospif(x);
}
