// SPDX-License-Identifier: Apache-2.0
// Scalar math of the reference kernels that the C library does not give as devplug defines it:
// rounding half to even, nextafter on 16-bit formats, two's-complement integer arithmetic
// without undefined behaviour, and conversions that round once. The special functions
// (erfinv, lgamma, digamma) and trigonometry live in their own headers.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "devplug/sdk/dtype.hpp"

namespace devplug::reference::math {

// ---- bit patterns of doubles --------------------------------------------------------------

inline uint64_t bits_of(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

inline double double_of(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// 2^k as a double, exact for -1074 <= k <= 1023 (subnormal below -1022).
inline double pow2(int k) {
  return double_of(k >= -1022 ? static_cast<uint64_t>(k + 1023) << 52 : uint64_t{1} << (k + 1074));
}

// hi + lo rounded to odd in double, where hi is hi + lo rounded to nearest and lo (any
// floating type) what that left over, exactly or at least with its sign: the neighbour
// with an odd last bit unless lo is 0. Rounding the result once more, to a format at least
// 2 bits narrower (float, the 16-bit formats), gives hi + lo correctly rounded, where
// rounding hi would round twice. Branch-free: the last bit is random, a branch on it would
// mispredict half the time.
template <typename L>
inline double round_to_odd(double hi, L lo) {
  if (!std::isfinite(hi)) return hi;
  const uint64_t bits = bits_of(hi);
  const uint64_t step = static_cast<uint64_t>(lo != 0) & ~bits & 1;  // inexact and even
  // Away from zero when lo has hi's sign (the sign bit, so that hi = +-0 steps to the
  // smallest subnormal of lo's sign).
  const bool away_from_zero = (lo > 0) == !std::signbit(hi);
  return double_of(away_from_zero ? bits + step : bits - step);  // steps the magnitude
}

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

// C's fmod, which is exact. Through long double because glibc's double fmod subtracts bit by
// bit (~60 ns for a quotient of 2^20) while fmodl uses the x87 fprem instruction (~25 ns);
// the result is representable in double, so converting it back is exact. NaN, Inf and zero
// divisors stay with fmod: fprem takes a slow microcode assist on them.
inline double fmod(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b) || b == 0) return std::fmod(a, b);
  return static_cast<double>(std::fmod(static_cast<long double>(a), static_cast<long double>(b)));
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
  const double da = sdk::to_double(a), db = sdk::to_double(b);
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

template <typename T>
inline T wrapping_add(T a, T b) {
  return wrap<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
}
template <typename T>
inline T wrapping_sub(T a, T b) {
  return wrap<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
}
template <typename T>
inline T wrapping_mul(T a, T b) {
  return wrap<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b));
}
template <typename T>
inline T wrapping_neg(T a) {
  return wrap<T>(Unsigned<T>{0} - static_cast<Unsigned<T>>(a));
}
template <typename T>
inline T wrapping_abs(T a) {
  if constexpr (std::is_signed_v<T>)
    return a < 0 ? wrapping_neg(a) : a;
  else
    return a;
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
constexpr int bit_width() {
  return static_cast<int>(sizeof(T)) * kBitsPerByte;
}

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
