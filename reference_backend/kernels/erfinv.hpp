// The inverse error function of the reference kernels (erfinv is not in the C library).
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/constants.hpp"

namespace devplug::reference::math {

// Inverse error function in C (double or long double): a rough closed-form start
// (Winitzki's approximation, about 2e-3 relative error; a series near 0) refined by Halley
// steps on erf, or on erfc for |y| >= 0.5 where 1 - |y| is exact and erf would lose digits.
// Halley converges cubically, so once a step is below `settled` the next error is below
// C's precision and the loop stops without another evaluation. +-Inf at +-1, NaN outside
// [-1, 1], keeps -0.0.
template <typename C>
inline C erfinv(C y) {
  if (std::isnan(y)) return y;
  const C a = std::fabs(y);
  if (a > 1) return std::numeric_limits<C>::quiet_NaN();
  if (a == 1) return std::copysign(std::numeric_limits<C>::infinity(), y);
  if (a == 0) return y;
  const C pi = static_cast<C>(kPi), two_over_sqrt_pi = static_cast<C>(kTwoOverSqrtPi);
  C x;
  if (a < C(1e-4)) {
    x = a / two_over_sqrt_pi * (1 + pi / 12 * a * a);
  } else {
    const C k = C(0.147);
    const C l = std::log((1 - a) * (1 + a));
    const C b = 2 / (pi * k) + l / 2;
    x = std::sqrt(std::sqrt(b * b - l / k) - b);
  }
  const bool use_erfc = a >= C(0.5);
  const C target = use_erfc ? 1 - a : a;  // exact for a >= 0.5 (Sterbenz)
  const C settled = std::is_same_v<C, long double> ? C(1e-8) : C(1e-6);
  for (int i = 0; i < 10; ++i) {
    const C slope = two_over_sqrt_pi * std::exp(-x * x);
    // u = f / f' for f(x) = erf(x) - a (or the same through erfc, which flips both signs).
    const C u = use_erfc ? (target - std::erfc(x)) / slope : (std::erf(x) - a) / slope;
    const C step = u / (1 + x * u);  // Halley: f'' / f' = -2x
    x -= step;
    if (!(std::fabs(step) > std::fabs(x) * settled)) break;
  }
  return std::copysign(x, y);
}

}  // namespace devplug::reference::math
