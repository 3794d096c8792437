// SPDX-License-Identifier: Apache-2.0
// lgamma and digamma of the reference kernels, as PyTorch defines them: lgamma(x) =
// log|gamma(x)| (+Inf at the non-positive integers and at +-Inf), digamma(+-0) = -+Inf, NaN
// at the negative integers and at -Inf.
//
// Every step is carried as a pair hi + lo (gamma_parts.hpp), so terms that cancel keep about
// twice the precision of the type the pair is made of:
//   x >= 16       Stirling's series / the asymptotic series of psi, one table-driven log;
//   1 <= x < 16   a Taylor row around the nearest grid point (the zeros 1, 2 of lgamma and
//                 the root 1.4616... of psi are centres, so their rows keep relative accuracy);
//   0 < x < 1     lgamma(1 + x) - log x, psi(1 + x) - 1/x;
//   x < 0         reflection: lgamma(x) = -log(|sin(pi x)| / pi) - lgamma(1 - x),
//                 psi(x) = psi(1 - x) - pi cot(pi x), with x reduced exactly first.
// Results are correctly rounded (Ziv's strategy): each estimate comes with an error bound,
// and where every value within the bound rounds the same way, that is the result; else a more
// precise estimate decides. float64: pairs of doubles decide all but about 1 input in 1000,
// pairs of long doubles (x87, five times slower) nearly all the rest, and binary128 the last
// (about 1 in 10^4), around the zero itself next to a root, where binary128 cancels too.
// float32 and the 16-bit formats: plain doubles decide nearly every input; else the pair of
// doubles rounded to odd, which their one rounding keeps correct, or the long double pair
// next to a root.
//
// The device plugins share one lgamma and digamma in double (plugins/device_common/
// special_double.h); this file keeps its own, different method on purpose, as the independent
// oracle that the conformance suite checks them against.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/gamma_parts.hpp"

namespace devplug::reference::math {

namespace gamma_parts {

constexpr int kAsymptoticFrom = 16;

// A pair and a scale (the largest magnitude it was summed from): |error| <= kErrorBound *
// scale. Each bound is over 4 times the largest error measured against binary128 references
// over 10^6 inputs per branch (2^-67.2 for pairs of doubles, 2^-69.2 for pairs of long
// doubles, 2^-50.2 for plain doubles); gamma_test.cpp checks the results.
template <typename C>
struct Estimate {
  Pair<C> value;
  C scale;
};

template <typename C>
constexpr C kErrorBound = std::numeric_limits<C>::digits > 53 ? C(0x1p-67L) : C(0x1p-65);
constexpr double kPlainErrorBound = 0x1p-48;  // Mode::kPlain, for the narrow dtypes

// 1/u as a pair, from the exact residual 1 - u (1/u).
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> reciprocal(Pair<C> u) {
  const C z = 1 / u.hi;
  const Pair<C> zu = two_prod<M>(z, u.hi);
  return {z, (((1 - zu.hi) - zu.lo) - z * u.lo) * z};
}

// lgamma(u) for u = u.hi + u.lo >= 16 (u.hi alone may be inexact: u = 1 - x).
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> lgamma_stirling(const Tables<C>& t, Pair<C> u) {
  const Pair<C> log_u = log_pair<M>(t, u);
  const Pair<C> z = reciprocal<M>(u);
  const C z2 = z.hi * z.hi;
  // z/12 (a pair) + z^3 (-1/360 + z^2/1260 - ...)
  const Pair<C> first = mul<M>(t.stirling_first, z);
  const C rest = z2 * z.hi * (t.stirling_second + z2 * polynomial<kAsymptoticTerms - 2>(t.stirling, z2));
  // (u - 1/2) log u - u + log(2 pi)/2 + series, with u log u exact and log(u)/2 exact.
  Pair<C> product = two_prod<M>(u.hi, log_u.hi);
  product.lo += u.hi * log_u.lo + u.lo * log_u.hi;
  const Pair<C> minus_u = fast_two_sum<M>(product.hi, -u.hi);
  const Pair<C> minus_half_log = two_sum<M>(minus_u.hi, -log_u.hi / 2);
  const Pair<C> with_constant = two_sum<M>(minus_half_log.hi, t.half_log_2pi.hi);
  const Pair<C> with_first = two_sum<M>(with_constant.hi, first.hi);
  return fast_two_sum<M>(with_first.hi, with_first.lo + with_constant.lo + minus_half_log.lo + minus_u.lo +
                                            product.lo - u.lo - log_u.lo / 2 + t.half_log_2pi.lo + first.lo +
                                            rest);
}

// psi(u) for u = u.hi + u.lo >= 16.
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> digamma_asymptotic(const Tables<C>& t, Pair<C> u) {
  const Pair<C> log_u = log_pair<M>(t, u);
  const Pair<C> z = reciprocal<M>(u);
  const Pair<C> z2 = mul<M>(z, z);
  // log u - z/2 - z^2/12 (pairs) - z^4 (-1/120 + z^2/252 - ...)
  const Pair<C> first = mul<M>(t.digamma_first, z2);
  const C w = z2.hi;
  const C rest = w * w * (t.digamma_second + w * polynomial<kAsymptoticTerms - 2>(t.digamma_series, w));
  const Pair<C> half = two_sum<M>(log_u.hi, -z.hi / 2);
  const Pair<C> with_first = two_sum<M>(half.hi, -first.hi);
  return fast_two_sum<M>(with_first.hi, with_first.lo + half.lo + log_u.lo - z.lo / 2 - first.lo - rest);
}

// lgamma(y) and psi(y) for y = y.hi + y.lo >= 1 (no cancellation: the scale is the result).
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> lgamma_from_one(const Tables<C>& t, Pair<C> y) {
  if (y.hi >= kAsymptoticFrom) return lgamma_stirling<M>(t, y);
  return taylor_lgamma<M>(locate<M>(t, y, false));
}

template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> digamma_from_one(const Tables<C>& t, Pair<C> y) {
  if (y.hi >= kAsymptoticFrom) return digamma_asymptotic<M>(t, y);
  return taylor_digamma<M>(locate<M>(t, y, true));
}

template <Mode M, typename C>
[[gnu::always_inline]] inline Estimate<C> sum_of(Pair<C> a, Pair<C> b) {
  return {add<M>(a, b), std::fabs(a.hi) + std::fabs(b.hi)};
}

// lgamma(x) for finite x that is not a pole.
template <Mode M, typename C>
[[gnu::always_inline]] inline Estimate<C> lgamma_estimate(const Tables<C>& t, C x) {
  if (x >= 1) {
    const Pair<C> value = lgamma_from_one<M>(t, Pair<C>{x, 0});
    return {value, std::fabs(value.hi)};
  }
  if (x > 0)
    return sum_of<M>(taylor_lgamma<M>(locate<M>(t, two_sum<M>(C(1), x), false)), negate(log_pair<M>(t, x)));
  const C r = x - nearest_integer(x);  // exact; |sin(pi x)| = |sin(pi r)|
  const Pair<C> log_sine = log_pair<M>(t, sin_pi_over_pi<M>(t, r));
  return sum_of<M>(negate(log_sine), negate(lgamma_from_one<M>(t, two_sum<M>(C(1), -x))));
}

// psi(x) for finite x that is not a pole.
template <Mode M, typename C>
[[gnu::always_inline]] inline Estimate<C> digamma_estimate(const Tables<C>& t, C x) {
  if (x >= 1) {
    const Pair<C> value = digamma_from_one<M>(t, Pair<C>{x, 0});
    return {value, std::fabs(value.hi)};
  }
  if (x > 0) {
    return sum_of<M>(taylor_digamma<M>(locate<M>(t, two_sum<M>(C(1), x), true)),
                     negate(reciprocal<M>(Pair<C>{x, 0})));
  }
  const C r = x - nearest_integer(x);  // exact; cot(pi x) = cot(pi r)
  return sum_of<M>(digamma_from_one<M>(t, two_sum<M>(C(1), -x)), negate(pi_cot_pi<M>(t, r)));
}

enum class Function { kLgamma, kDigamma };

template <Function f, Mode M, typename C>
[[gnu::always_inline]] inline Estimate<C> estimate(const Tables<C>& t, C x) {
  if constexpr (f == Function::kLgamma)
    return lgamma_estimate<M>(t, x);
  else
    return digamma_estimate<M>(t, x);
}

// The pair of doubles, with a fused multiply-add where the CPU has one (GCC on x86-64: checked
// once; 20-40% faster where the pairs multiply most). Contraction stays off there too, so both
// give the same pair bit for bit: FMA only where two_prod and log_pair ask for it.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
template <Function f>
[[gnu::target("fma"), gnu::optimize("fp-contract=off")]] inline Estimate<double> estimate_fused(double x) {
  return estimate<f, Mode::kFused>(tables<double>(), x);
}

inline bool cpu_has_fma() {
  static const bool has_fma = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") != 0;
  }();
  return has_fma;
}

template <Function f>
inline Estimate<double> estimate_double(double x) {
  return cpu_has_fma() ? estimate_fused<f>(x) : estimate<f, Mode::kSplit>(tables<double>(), x);
}
#else
template <Function f>
inline Estimate<double> estimate_double(double x) {
  return estimate<f, Mode::kSplit>(tables<double>(), x);
}
#endif

// The double that every value within the estimate's bound rounds to, if there is one.
// Pairs of doubles: the ends of that interval are rounded once more (lo -/+ bound), so the
// bound widens by that rounding. Pairs of long doubles: hi is rounded to the nearest double
// d, and the distance from hi + lo to the midpoint between d and its neighbour on hi's side
// is exact up to a rounding of 2^-64 of itself.
inline bool decides_double(const Estimate<double>& e, double& result) {
  if (!std::isfinite(e.value.hi)) return false;  // a pair of doubles overflowed
  const double bound = kErrorBound<double> * e.scale + std::fabs(e.value.hi) * 0x1p-104;
  const double below = e.value.hi + (e.value.lo - bound);
  const double above = e.value.hi + (e.value.lo + bound);
  result = below;
  return below == above;
}

inline bool decides_double(const Estimate<long double>& e, double& result) {
  const long double hi = e.value.hi, lo = e.value.lo;
  const double nearest = static_cast<double>(hi);
  const uint64_t field = (bits_of(nearest) >> 52) & 0x7ff;
  if (field <= 54 || field >= 0x7fe) {  // zero, tiny or huge results: round once, if safe
    result = static_cast<double>(hi + lo);
    return hi == 0 || field == 0x7ff;
  }
  const long double offset = hi - nearest;  // exact
  // Half the spacing of doubles on hi's side of nearest (a quarter of ulp below a power of 2).
  const bool away_from_zero = (offset >= 0) == (nearest > 0);
  const bool power_of_two = (bits_of(nearest) & ((uint64_t{1} << 52) - 1)) == 0;
  const long double half = double_of((field - (away_from_zero || !power_of_two ? 53 : 54)) << 52);
  const long double midpoint = offset >= 0 ? half : -half;
  const long double distance = (offset - midpoint) + lo;  // offset - midpoint is exact
  if (!(std::fabs(distance) > (kErrorBound<long double> * e.scale) * (1 + 0x1p-60L))) return false;
  // hi + lo beyond the midpoint (seen from nearest) rounds to the neighbour; hi itself may
  // sit exactly on the midpoint (and have rounded to the even side).
  const bool crosses = (distance > 0) == (midpoint > 0);
  result = crosses ? static_cast<double>(nearest + 2 * midpoint) : nearest;
  return true;
}

// float64 where the pair of doubles could not decide (about 1 input in 1000): long double
// pairs, then binary128. Out of line, so that the common path stays small.
template <Function f>
[[gnu::noinline]] inline double float64_result_wide(double x) {
  double result;
  const Estimate<long double> wide =
      estimate<f, Mode::kSplit>(tables<long double>(), static_cast<long double>(x));
  if (decides_double(wide, result)) return result;
  return f == Function::kLgamma ? lgamma_binary128(x) : digamma_binary128(x);
}

// float64: correctly rounded, as a long double. x must be a double.
template <Function f>
inline long double float64_result(long double x) {
  const double narrow = static_cast<double>(x);
  double result;
  if (decides_double(estimate_double<f>(narrow), result)) return result;
  return float64_result_wide<f>(narrow);
}

// Whether every value within bound of v rounds alike to float32, float16 and bfloat16: the
// interval lies inside one cell between consecutive float32 values and midpoints (the 16-bit
// formats' values and midpoints are among those points). The cells are 2^-25 of the binade;
// the interval's ends are rounded once more, so the bound widens by that.
inline bool inside_float_cell(double v, double bound) {
  const double magnitude = std::fabs(v);
  const uint64_t field = (bits_of(magnitude) >> 52) & 0x7ff;
  if (field < 1023 - 100 || field > 1023 + 126) return false;         // tiny, beyond float, NaN: pairs
  const double inverse_width = double_of((2046 - field + 25) << 52);  // 2^(25 - e)
  const double widened = bound + magnitude * 0x1p-52;
  const double below = (magnitude - widened) * inverse_width, above = (magnitude + widened) * inverse_width;
  const int64_t cell = static_cast<int64_t>(below);  // truncation: below > 0 here
  return below > 0 && cell == static_cast<int64_t>(above) && below != static_cast<double>(cell);
}

// float32, float16, bfloat16 where the plain estimate could not decide: the double pair
// rounded to odd (each dtype's one rounding of it is then correct); near a root, where the
// double pair has lost more than 20 bits to cancellation, the long double pair.
template <Function f>
[[gnu::noinline]] inline double narrow_result_pairs(double x) {
  const Estimate<double> e = estimate_double<f>(x);
  if (std::fabs(e.value.hi) >= e.scale * 0x1p-20) return round_to_odd(e.value.hi, e.value.lo);
  const Estimate<long double> wide =
      estimate<f, Mode::kSplit>(tables<long double>(), static_cast<long double>(x));
  const double hi = static_cast<double>(wide.value.hi + wide.value.lo);
  return round_to_odd(hi, (wide.value.hi - hi) + wide.value.lo);
}

// float32, float16, bfloat16 (x one of theirs): plain doubles (no lo parts) decide nearly
// every input.
template <Function f>
inline double narrow_result(double x) {
  const Estimate<double> plain = estimate<f, Mode::kPlain>(tables<double>(), x);
  if (inside_float_cell(plain.value.hi, kPlainErrorBound * plain.scale)) return plain.value.hi;
  return narrow_result_pairs<f>(x);
}

template <Function f, typename C>
inline C result(C x) {
  if constexpr (std::is_same_v<C, long double>)
    return float64_result<f>(x);
  else
    return narrow_result<f>(x);
}

template <typename C>
inline C lgamma_of(C x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return std::numeric_limits<C>::infinity();
  if (x <= 0 && x == nearest_integer(x)) return std::numeric_limits<C>::infinity();  // also +-0
  return result<Function::kLgamma>(x);
}

template <typename C>
inline C digamma_of(C x) {
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(std::numeric_limits<C>::infinity(), -x);
  if (std::isinf(x)) return x > 0 ? x : std::numeric_limits<C>::quiet_NaN();
  if (x < 0 && x == nearest_integer(x)) return std::numeric_limits<C>::quiet_NaN();
  return result<Function::kDigamma>(x);
}

}  // namespace gamma_parts

// log |gamma(x)| without the global signgam; +Inf at the non-positive integers and +-Inf.
// The long double overload takes a float64 value and returns its float64 result (correctly
// rounded) as a long double; the double overload serves float32 and the 16-bit formats.
inline long double lgamma(long double x) { return gamma_parts::lgamma_of(x); }
inline double lgamma(double x) { return gamma_parts::lgamma_of(x); }

// Digamma psi(x) = d/dx log gamma(x). As PyTorch: psi(+-0) = -+Inf (so psi(0) = -Inf), NaN
// at negative integers and at -Inf, +Inf at +Inf. Same types as lgamma.
template <typename C>
inline C digamma(C x) {
  return gamma_parts::digamma_of(x);
}

}  // namespace devplug::reference::math
