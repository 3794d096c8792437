// SPDX-License-Identifier: Apache-2.0
// sin, cos and tan of the reference kernels: double for float32 and the 16-bit formats,
// long double for float64 (see elementwise.hpp's compute types).
//
// The long double versions take their own path for doubles |x| <= 2^23 (the float64
// kernels only pass doubles): a Cody-Waite reduction and minimax polynomials in long
// double, ~20 ns for sin and cos and ~45 ns for tan, where glibc's x87 sinl/cosl/tanl take
// ~200 ns once |x| > pi/4 (their reduction is the generic Payne-Hanek one) and ~60 ns even
// inside [-pi/4, pi/4]. Everything else (other long doubles, |x| > 2^23, NaN, +-Inf) goes
// to the C library, whose reduction is exact at any size.
//
// Accuracy: the reduced argument is within 2^-70 relative (see reduce) and the results
// were measured within 0.8 (sin, cos) and 1.0 (tan) ulp of long double, so within
// 0.5 + 1/2048 ulp of double once rounded; tests/reference/trig_test.cpp checks them.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace devplug::reference::math {

inline double sin(double x) { return std::sin(x); }
inline double cos(double x) { return std::cos(x); }
inline double tan(double x) { return std::tan(x); }

// The fast path is written for the x87 80-bit long double (64-bit significand) and for
// double arithmetic without excess precision (SSE2), which the rounding of n relies on.
#if LDBL_MANT_DIG == 64 && defined(__x86_64__) && FLT_EVAL_METHOD == 0
#define DEVPLUG_FAST_LDBL_TRIG 1
#else
#define DEVPLUG_FAST_LDBL_TRIG 0
#endif

#if DEVPLUG_FAST_LDBL_TRIG
namespace trig_detail {

// a = n * pi/2 + (hi + lo) with |hi + lo| <= pi/4 (plus a hair), for a double
// 0 <= a <= kFastTrigBound.
//
// Cody-Waite with pi/2 = P1 + P2 + P3 (+ 2^-147.2): P1 and P2 are pi/2's leading 41 + 41
// bits (truncated), P3 the next 64 rounded. n <= 2^23 * 2/pi < 2^22.4, so n*P1 and n*P2
// are exact in 64 bits; a - n*P1 is exact (Sterbenz: n*P1/2 <= a <= 2*n*P1, as n >= 1
// only for a > pi/4 (1 - 2^-52) > P1/2); r1 - n*P2 is kept exact as a pair by TwoSum.
// Left over: the roundings of n*P3 and of its sum with TwoSum's tail (each < n * 2^-145.9)
// and pi/2's representation (n * 2^-147.2), under n * 2^-144.7 in all. A search over every
// multiple of pi/2 below 2^23 finds the doubles of [2^e, 2^(e+1)) at least 2^-60.5 away
// from them (e = 5, n <= 40) and, where n is large, at least 2^-54.4 away (e >= 18), so
// hi + lo is within 2^-70 relative of a - n pi/2 (worst for e = 20..22): a small fraction
// of an ulp of long double. Doubles above 2^23 come within 2^-59 of a multiple of pi/2,
// where n * 2^-144.7 would not do: hence the bound.
inline constexpr double kFastTrigBound = 0x1p23;
inline constexpr long double kPio2Part1 = 0x1.921fb54442000000p+0L;
inline constexpr long double kPio2Part2 = 0x1.a308d31319000000p-41L;
inline constexpr long double kPio2Part3 = 0x1.145c06e0e6894812p-82L;

struct Reduced {
  long double hi, lo;
  unsigned quadrant;  // n mod 4
};

inline Reduced reduce(double a) {
  // n = a * 2/pi rounded to an integer, in double: it may be off by one next to a
  // half-integer, which only leaves |hi| a hair (< 2^-29) above pi/4. Adding 1.5 * 2^52
  // rounds a v < 2^51 to an integer held in the significand's low bits.
  const double shifted = a * 0x1.45f306dc9c883p-1 + 0x1.8p52;
  uint64_t bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  const long double n = shifted - 0x1.8p52;
  const long double r1 = a - n * kPio2Part1;
  const long double p2 = n * kPio2Part2;
  // TwoSum: r2 + e2 == r1 - p2 exactly.
  const long double r2 = r1 - p2;
  const long double r1_part = r2 + p2;
  const long double p2_part = r2 - r1_part;
  const long double e2 = (r1 - r1_part) - (p2 + p2_part);
  const long double tail = e2 - n * kPio2Part3;
  // Fast2Sum, exact as |r2| >= |tail|: TwoSum's tail is below half an ulp of r2, and
  // |n*P3| < 2^-59.5 < |r2| (> 2^-55 where n > 2^17; below, |n*P3| < 2^-64.9, |r2| > 2^-61).
  const long double hi = r2 + tail;
  const long double lo = tail - (hi - r2);
  return {hi, lo, static_cast<unsigned>(bits & 3)};
}

// Minimax polynomials on |r| <= 0.7854 (fitted with each coefficient's rounding to long
// double or double absorbed by the later ones): sin r = r + r z S(z) and
// cos r = 1 - z/2 + z^2 C(z), z = r^2, both within 2^-74.5 relative of the exact values.
// Even and odd powers of z are summed apart, which halves the chain of dependent steps.
inline long double sin_series(long double z) {
  const long double z2 = z * z;
  const long double even =
      -0x1.5555555555555556p-3L +
      z2 * (-0x1.a01a01a01a076p-13 + z2 * (-0x1.ae64568f3b23ap-26 + z2 * -0x1.ae8c974634639p-41));
  const long double odd =
      0x1.11111111111112c0p-7L +
      z2 * (0x1.71de3a5575bb6p-19 + z2 * (0x1.61246fec954eep-33 + z2 * 0x1.98df84b91b93bp-49));
  return even + z * odd;
}

inline long double cos_series(long double z) {
  const long double z2 = z * z;
  const long double even =
      0x1.5555555555555534p-5L +
      z2 * (0x1.a01a01a018e6ap-16 + z2 * (0x1.1eed8cb25348cp-29 + z2 * 0x1.aacd3479a609fp-45));
  const long double odd =
      -0x1.6c16c16c16c10p-10 + z2 * (-0x1.27e4fb76094a8p-22 + z2 * -0x1.93934935657cfp-37);
  return even + z * odd;
}

// A long double as two: value + rest.
struct Pair {
  long double value, rest;
};

// Veltkamp's split: value holds the leading 32 of a's 64 bits and rest the others (at
// most 32 bits with its sign), so the product of either with a 32-bit number is exact.
inline Pair split(long double a) {
  const long double scaled = a * 0x1.00000002p+32L;  // 2^32 + 1
  const long double high = scaled - (scaled - a);
  return {high, a - high};
}

// sin(hi + lo) and cos(hi + lo) for |hi| <= ~pi/4, |lo| <= ulp(hi), z = hi^2 rounded, as
// a leading term (hi; 1 - z/2 rounded) plus a correction at most a tenth of it, so that
// the correction's rounding errors stay a small part of an ulp of the sum. lo enters
// through sin(hi + lo) ~ sin(hi) + lo cos(hi) and cos(hi + lo) ~ cos(hi) - lo sin(hi).
struct Parts {
  long double lead, correction;
};

inline Parts sin_parts(long double hi, long double lo, long double z) {
  return {hi, hi * z * sin_series(z) + lo * (1 - z / 2)};
}

inline Parts cos_parts(long double hi, long double lo, long double z) {
  const long double half_z = z / 2;
  const long double lead = 1 - half_z;
  const long double lead_error = (1 - lead) - half_z;  // exact: lead is 1 - z/2 rounded
  return {lead, lead_error + (z * z * cos_series(z) - hi * lo)};
}

// The parts' sum rounded to long double, and what that rounding dropped (Fast2Sum).
inline Pair sum(Parts p) {
  const long double value = p.lead + p.correction;
  return {value, p.correction - (value - p.lead)};
}

// The functions for a double |x| <= kFastTrigBound. sin and tan are odd: they reduce |x|
// and give the result x's sign at the end, which also keeps sin(-0.0) = tan(-0.0) = -0.0.
inline long double sin_of_double(double x) {
  const Reduced r = reduce(std::fabs(x));
  const long double z = r.hi * r.hi;
  const long double v =
      (r.quadrant & 1) ? sum(cos_parts(r.hi, r.lo, z)).value : sum(sin_parts(r.hi, r.lo, z)).value;
  return std::signbit(x) != ((r.quadrant & 2) != 0) ? -v : v;
}

inline long double cos_of_double(double x) {
  const Reduced r = reduce(std::fabs(x));
  const long double z = r.hi * r.hi;
  const long double v =
      (r.quadrant & 1) ? sum(sin_parts(r.hi, r.lo, z)).value : sum(cos_parts(r.hi, r.lo, z)).value;
  return ((r.quadrant + 1) & 2) ? -v : v;
}

// sin/cos, or -cos/sin in odd quadrants, from sin and cos as pairs: a quotient q of 32
// bits plus (num - q den) / den, where q * den is exact as two products of 32-bit numbers,
// so that besides the parts' own errors only the last addition rounds noticeably.
inline long double tan_of_double(double x) {
  const Reduced r = reduce(std::fabs(x));
  const long double z = r.hi * r.hi;
  const Pair s = sum(sin_parts(r.hi, r.lo, z)), c = sum(cos_parts(r.hi, r.lo, z));
  const Pair num = (r.quadrant & 1) ? c : s, den = (r.quadrant & 1) ? s : c;
  const long double q = split(num.value / den.value).value;
  const long double rest_part = num.rest - q * den.rest;
  const Pair den_split = split(den.value);
  // num.value - q * den_split.value is exact (Sterbenz: both are num.value (1 +- 2^-31)).
  const long double residual = ((num.value - q * den_split.value) - q * den_split.rest) + rest_part;
  const long double v = q + residual / den.value;
  return std::signbit(x) != ((r.quadrant & 1) != 0) ? -v : v;
}

}  // namespace trig_detail
#endif

// sin and cos of a long double |r| <= pi/4, which needs no reduction: for callers that
// reduce exactly themselves (philox_normal's cos(2 pi u)).
inline long double sin_within_quarter_pi(long double r) {
#if DEVPLUG_FAST_LDBL_TRIG
  return trig_detail::sum(trig_detail::sin_parts(r, 0, r * r)).value;
#else
  return std::sin(r);
#endif
}

inline long double cos_within_quarter_pi(long double r) {
#if DEVPLUG_FAST_LDBL_TRIG
  return trig_detail::sum(trig_detail::cos_parts(r, 0, r * r)).value;
#else
  return std::cos(r);
#endif
}

// The fast path takes x as a double, which also keeps it in SSE registers: a long double
// argument of a call that is not inlined goes through memory, 10 bytes, slowly.
inline long double sin(long double x) {
#if DEVPLUG_FAST_LDBL_TRIG
  const double x_double = static_cast<double>(x);
  if (x_double == x && std::fabs(x_double) <= trig_detail::kFastTrigBound)
    return trig_detail::sin_of_double(x_double);
#endif
  return std::sin(x);
}

inline long double cos(long double x) {
#if DEVPLUG_FAST_LDBL_TRIG
  const double x_double = static_cast<double>(x);
  if (x_double == x && std::fabs(x_double) <= trig_detail::kFastTrigBound)
    return trig_detail::cos_of_double(x_double);
#endif
  return std::cos(x);
}

inline long double tan(long double x) {
#if DEVPLUG_FAST_LDBL_TRIG
  const double x_double = static_cast<double>(x);
  if (x_double == x && std::fabs(x_double) <= trig_detail::kFastTrigBound)
    return trig_detail::tan_of_double(x_double);
#endif
  return std::tan(x);
}

}  // namespace devplug::reference::math
