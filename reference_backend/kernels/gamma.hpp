// lgamma and digamma of the reference kernels: lgamma without the global signgam, digamma
// (not in the C library).
#pragma once

#include <quadmath.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/constants.hpp"

namespace devplug::reference::math {

// log |gamma(x)| without touching the global signgam; +Inf at non-positive integers.
inline long double lgamma(long double x) {
  int sign = 0;
  return ::lgammal_r(x, &sign);
}
inline double lgamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

// Digamma psi(x) = d/dx log gamma(x) in C (double or long double). As PyTorch:
// psi(+-0) = -+Inf (so psi(0) = -Inf), NaN at negative integers and at -Inf, +Inf at +Inf.
// Reflection below 0, the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 20, then the
// asymptotic series.
// psi near its positive root x0 = 1.46163...: there the recurrence and the series cancel to a
// tiny result, so long double keeps only a few correct digits (hundreds of thousands of
// float64 ULP within 1e-8 of x0). Recomputed in binary128, shifting x to >= 100 so that the
// truncated series is far below the smallest float64 result near the root.
inline long double digamma_near_positive_root(long double x) {
  __float128 q = x, result = 0;
  while (q < 100) {
    result -= 1 / q;
    q += 1;
  }
  const __float128 z = 1 / (q * q);
  const __float128 series =
      z * (__float128(1) / 12 -
           z * (__float128(1) / 120 -
                z * (__float128(1) / 252 -
                     z * (__float128(1) / 240 -
                          z * (__float128(1) / 132 -
                               z * (__float128(691) / 32760 -
                                    z * (__float128(1) / 12 - z * (__float128(3617) / 8160))))))));
  return static_cast<long double>(result + logq(q) - __float128(0.5) / q - series);
}

template <typename C>
inline C digamma(C x) {
  if constexpr (std::is_same_v<C, long double>) {
    constexpr long double kPositiveRoot = 1.461632144968362341262659542325721325L;
    // Outside this band the long double error stays below 0.2 float64 ULP (it is about
    // 3e-19 absolute against |psi| ~ 0.97 |x - x0|), and binary128 is slow.
    if (std::fabs(x - kPositiveRoot) < 0.015625L) return digamma_near_positive_root(x);
  }
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(std::numeric_limits<C>::infinity(), -x);
  if (std::isinf(x)) return x > 0 ? x : std::numeric_limits<C>::quiet_NaN();
  const C pi = static_cast<C>(kPi);
  C result = 0;
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<C>::quiet_NaN();
    // psi(x) = psi(1 - x) - pi / tan(pi x); tan has period 1, so reduce x exactly first.
    const C r = x - std::nearbyint(x);
    result = -pi / std::tan(pi * r);
    x = 1 - x;
  }
  while (x < 20) {
    result -= 1 / x;
    x += 1;
  }
  const C z = 1 / (x * x);
  // Bernoulli terms B_2k / (2k x^2k), k = 1..8.
  const C series =
      z * (C(1) / 12 -
           z * (C(1) / 120 -
                z * (C(1) / 252 -
                     z * (C(1) / 240 -
                          z * (C(1) / 132 -
                               z * (C(691) / 32760 - z * (C(1) / 12 - z * (C(3617) / 8160))))))));
  return result + std::log(x) - C(0.5) / x - series;
}

}  // namespace devplug::reference::math
