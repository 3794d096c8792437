// Scalar math of the reference kernels that the C library does not give as devplug defines it:
// rounding half to even, erfinv, digamma, lgamma without a global, nextafter on 16-bit
// formats, two's-complement integer arithmetic without undefined behaviour, and conversions
// that round once.
//
// Floating functions take the compute type of elementwise.hpp: long double (x86: 64-bit
// mantissa) for float64, so its result is rounded once to double; double for the narrower
// dtypes.
#pragma once

#include <quadmath.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "devplug/sdk/dtype.hpp"
#include "kernels/bits16.hpp"

namespace devplug::reference::math {

// ---- rounding ---------------------------------------------------------------------------

// Nearest integral value, ties to even, independent of the FPU rounding mode. Keeps -0.0,
// +-Inf and NaN; round(-0.5) = -0.0.
inline double round_half_even(double x) {
  const double t = std::trunc(x);
  const double frac = x - t;  // exact: trunc only clears low bits
  double r = t;
  const double a = std::fabs(frac);
  if (a > 0.5 || (a == 0.5 && std::fmod(t, 2.0) != 0.0)) r = t + (x < 0 ? -1.0 : 1.0);
  return std::copysign(r, x);
}

// ---- special functions ------------------------------------------------------------------

constexpr long double kPi = 3.141592653589793238462643383279502884L;
constexpr long double kTwoOverSqrtPi = 1.128379167095512573896158903121545172L;

// log |gamma(x)| without touching the global signgam; +Inf at non-positive integers.
inline long double lgamma(long double x) {
  int sign = 0;
  return ::lgammal_r(x, &sign);
}
inline double lgamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

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

// ---- 16-bit floating formats ------------------------------------------------------------

// NaN test on a 16-bit pattern (exponent all ones, mantissa non-zero).
template <typename T>
inline bool is_nan_bits(T v) {
  const uint16_t exp_mask = std::is_same_v<T, sdk::float16> ? 0x7C00 : 0x7F80;
  return (v.bits & exp_mask) == exp_mask && (v.bits & ~exp_mask & 0x7FFF) != 0;
}

// The next representable value after `a` toward `b` in a 16-bit format, stepping the bit
// pattern as C nextafter does for IEEE formats: the NaN input if either is NaN, `b` if
// a == b, the smallest subnormal with b's sign from zero.
template <typename T>
inline T nextafter_bits(T a, T b) {
  if (is_nan_bits(a) || is_nan_bits(b)) return T{static_cast<uint16_t>(is_nan_bits(a) ? a.bits : b.bits)};
  const double da = bits16::decode(a), db = bits16::decode(b);
  if (da == db) return b;
  if (da == 0) return T{static_cast<uint16_t>((db < 0 ? 0x8000u : 0u) | 1u)};
  // Away from zero when moving toward b increases |a|.
  const bool away = (da < db) == (da > 0);
  return T{static_cast<uint16_t>(away ? a.bits + 1 : a.bits - 1)};
}

// ---- integers: two's complement in the dtype's width, no undefined behaviour ------------

// The unsigned type arithmetic on T is done in: at least 32 bits, so that narrow types never
// promote to (signed) int and overflow.
template <typename T>
using Unsigned = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;

// Converts an unsigned result back to T, keeping the low bits (two's complement; GCC and
// Clang define the narrowing conversion as modular, and C++20 requires it).
template <typename T, typename U>
inline T wrap(U v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
}

template <typename T> inline T wrapping_add(T a, T b) { return wrap<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b)); }
template <typename T> inline T wrapping_sub(T a, T b) { return wrap<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b)); }
template <typename T> inline T wrapping_mul(T a, T b) { return wrap<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b)); }
template <typename T> inline T wrapping_neg(T a) { return wrap<T>(Unsigned<T>{0} - static_cast<Unsigned<T>>(a)); }
template <typename T> inline T wrapping_abs(T a) {
  if constexpr (std::is_signed_v<T>) return a < 0 ? wrapping_neg(a) : a;
  else return a;
}

// Truncating division; min / -1 wraps to min; x / 0 is unspecified by ops.def and gives 0.
template <typename T>
inline T int_div(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrapping_neg(a);
  }
  return static_cast<T>(a / b);
}

// C remainder (sign of the dividend); x % 0 is unspecified and gives 0; x % -1 is 0.
template <typename T>
inline T int_fmod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// Python remainder (sign of the divisor); x % 0 is unspecified and gives 0.
template <typename T>
inline T int_remainder(T a, T b) {
  T r = int_fmod(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) r = wrapping_add(r, b);
  }
  return r;
}

// a to the b with wrapping; b < 0 gives 1 / a truncated: 1 for a = 1, +-1 for a = -1,
// 0 otherwise (a = 0 is unspecified by ops.def and also gives 0).
template <typename T>
inline T int_pow(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b % 2 == 0) ? 1 : -1;
      return 0;
    }
  }
  using U = Unsigned<T>;
  U base = static_cast<U>(a), result = 1;
  auto e = static_cast<std::make_unsigned_t<T>>(b);
  while (e != 0) {
    if (e & 1u) result = static_cast<U>(result * base);
    base = static_cast<U>(base * base);
    e = static_cast<decltype(e)>(e >> 1);
  }
  return wrap<T>(result);
}

constexpr int kBitsPerByte = 8;

template <typename T>
constexpr int bit_width() { return static_cast<int>(sizeof(T)) * kBitsPerByte; }

// a << b on the bit pattern; 0 when b < 0 or b >= width.
template <typename T>
inline T shift_left(T a, T b) {
  if (b < 0 || b >= bit_width<T>()) return 0;
  return wrap<T>(static_cast<Unsigned<T>>(static_cast<std::make_unsigned_t<T>>(a)) << b);
}

// a >> b on the bit pattern, filling with zeros; 0 when b < 0 or b >= width.
template <typename T>
inline T shift_right_logical(T a, T b) {
  if (b < 0 || b >= bit_width<T>()) return 0;
  return wrap<T>(static_cast<std::make_unsigned_t<T>>(a) >> b);
}

// a >> b filling with the sign bit (zeros for unsigned); b < 0 or >= width gives -1 for
// negative a and 0 otherwise.
template <typename T>
inline T shift_right_arithmetic(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0 || b >= bit_width<T>()) return a < 0 ? T(-1) : T(0);
    // Complementing makes the value non-negative, so the shift is a plain division.
    return a < 0 ? static_cast<T>(~(static_cast<T>(~a) >> b)) : static_cast<T>(a >> b);
  } else {
    return shift_right_logical(a, b);
  }
}

// Greatest common divisor of |a| and |b| (absolute values wrap: |min| is min's pattern), so
// gcd(min, 0) wraps to min; gcd(0, 0) = 0.
template <typename T>
inline T gcd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  U x = static_cast<U>(wrapping_abs(a)), y = static_cast<U>(wrapping_abs(b));
  while (y != 0) {
    const U r = static_cast<U>(x % y);
    x = y;
    y = r;
  }
  return wrap<T>(x);
}

// ---- conversions ------------------------------------------------------------------------

// A floating value truncated toward zero into integer type T. NaN gives 0 and values out of
// T's range saturate to its minimum or maximum (ops.def leaves both unspecified; this is the
// defined, UB-free choice).
template <typename T>
inline T float_to_int(double x) {
  if (std::isnan(x)) return 0;
  const double t = std::trunc(x);
  // T's limits as doubles: min is 0 or -2^digits, max + 1 is 2^digits (both exact).
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi_excl = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (t < lo) return std::numeric_limits<T>::min();
  if (t >= hi_excl) return std::numeric_limits<T>::max();
  return static_cast<T>(t);
}

// An int64 rounded once (to nearest, ties to even) to a 16-bit floating format T: the
// integer is rounded to T's significand width first, exactly, so that the double that
// from_double sees is already representable (or overflows to Inf).
template <typename T>
inline T int64_to_bits16(int64_t v) {
  constexpr int kSignificand = std::is_same_v<T, sdk::float16> ? 11 : 8;
  const bool negative = v < 0;
  uint64_t m = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int length = 0;
  for (uint64_t t = m; t != 0; t >>= 1) ++length;
  int shift = length - kSignificand;
  if (shift > 0) {
    const uint64_t rest = m & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    m >>= shift;
    if (rest > half || (rest == half && (m & 1u) != 0)) ++m;
  } else {
    shift = 0;
  }
  const double value = std::ldexp(static_cast<double>(m), shift);
  return sdk::from_double<T>(negative ? -value : value);
}

}  // namespace devplug::reference::math
