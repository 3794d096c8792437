// SPDX-License-Identifier: Apache-2.0
// Overloaded float/double math for the shared kernels (one name, the right precision), and
// the special functions neither CUDA nor HIP provides (digamma, nextafter on 16-bit formats;
// lgamma and digamma in double: special_double.cuh).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "device_types.cuh"
#include "special_double.cuh"

namespace devplug::gpu {

#define GPU_MATH1(name)                                         \
  GPU_D inline float m_##name(float x) { return ::name##f(x); } \
  GPU_D inline double m_##name(double x) { return ::name(x); }
#define GPU_MATH2(name)                                                     \
  GPU_D inline float m_##name(float x, float y) { return ::name##f(x, y); } \
  GPU_D inline double m_##name(double x, double y) { return ::name(x, y); }

GPU_MATH1(fabs)
GPU_MATH1(ceil)
GPU_MATH1(floor)
GPU_MATH1(rint)
GPU_MATH1(trunc)
GPU_MATH1(exp)
GPU_MATH1(exp2)
GPU_MATH1(expm1)
GPU_MATH1(log)
GPU_MATH1(log2)
GPU_MATH1(log1p)
GPU_MATH1(sqrt)
GPU_MATH1(rsqrt)
GPU_MATH1(sin)
GPU_MATH1(cos)
GPU_MATH1(tan)
GPU_MATH1(asin)
GPU_MATH1(acos)
GPU_MATH1(atan)
GPU_MATH1(sinh)
GPU_MATH1(asinh)
GPU_MATH1(acosh)
GPU_MATH1(atanh)
GPU_MATH1(erf)
GPU_MATH1(erfc)
GPU_MATH1(erfinv)
GPU_MATH1(sinpi)
GPU_MATH1(cospi)
GPU_MATH2(atan2)
GPU_MATH2(hypot)
GPU_MATH2(copysign)
GPU_MATH2(fmod)
GPU_MATH2(pow)
GPU_MATH2(nextafter)
#if defined(DEVPLUG_GPU_EMULATED)
// Where glibc is less accurate than CUDA's documented bound (double cbrt by up to 3 ulp
// against 1, log10 1.6 against 1, cosh and tanh just over 1 and 2; float tanh just over 2),
// the emulator brings its own (emu_math.hpp). The rest are glibc's, within CUDA's bounds.
GPU_D inline float m_cbrt(float x) { return ::cbrtf(x); }
GPU_D inline double m_cbrt(double x) { return emu::cbrt(x); }
GPU_D inline float m_log10(float x) { return ::log10f(x); }
GPU_D inline double m_log10(double x) { return emu::log10(x); }
GPU_D inline float m_cosh(float x) { return ::coshf(x); }
GPU_D inline double m_cosh(double x) { return emu::cosh(x); }
GPU_D inline float m_tanh(float x) { return emu::tanhf(x); }
GPU_D inline double m_tanh(double x) { return emu::tanh(x); }
#else
GPU_MATH1(cbrt)
GPU_MATH1(log10)
GPU_MATH1(cosh)
GPU_MATH1(tanh)
#endif
#undef GPU_MATH1
#undef GPU_MATH2

// lgamma: float from the vendor, double from special_double.cuh (accurate also next to the
// negative roots, where the vendors' double lgamma is not).
GPU_D inline float m_lgamma(float x) { return ::lgammaf(x); }
GPU_D inline double m_lgamma(double x) { return lgamma_double(x); }

template <typename C>
GPU_D inline bool m_isnan(C x) {
  return x != x;
}
template <typename C>
GPU_D inline bool m_isinf(C x) {
  return x == static_cast<C>(INFINITY) || x == -static_cast<C>(INFINITY);
}
GPU_D inline bool m_signbit(float x) { return (float_bits(x) >> 31) != 0; }
GPU_D inline bool m_signbit(double x) { return (double_bits(x) >> 63) != 0; }

// digamma for x > 0: the recurrence psi(x) = psi(x + 1) - 1 / x up to x >= 6 (float) or 10
// (double), then the asymptotic series log x - 1/(2x) - sum B_2k / (2k x^2k); its first
// omitted term is below 1e-11 relative at 6 (enough for float) and 3e-18 at 10 (double).
template <typename C>
GPU_D inline C digamma_positive(C x) {
  constexpr bool wide = std::is_same_v<C, double>;
  C result = 0;
  while (x < (wide ? C(10) : C(6))) {
    result -= C(1) / x;
    x += C(1);
  }
  const C r = C(1) / (x * x);
  C tail = 0;  // the terms of x^-12 and beyond, for double
  if constexpr (wide) tail = r * (C(691) / 32760 - r * (C(1) / 12 - r * (C(3617) / 8160)));
  const C series =
      r * (C(1) / 12 - r * (C(1) / 120 - r * (C(1) / 252 - r * (C(1) / 240 - r * (C(1) / 132 - tail)))));
  return result + m_log(x) - C(0.5) / x - series;
}

// digamma as PyTorch: -Inf at +0 (copysign(Inf, -x) at zeros), NaN at negative integers.
// double: special_double.cuh (within 2 ulp, also next to the roots); float: reflection
// psi(x) = psi(1 - x) - pi cot(pi x) below zero, with cot(pi x) from sinpi and cospi: their
// exact argument reduction keeps tiny and large negative x accurate (forming x - floor(x)
// first rounds -1e-30 to 1, where cot has a pole).
template <typename C>
GPU_D inline C m_digamma(C x) {
  if constexpr (std::is_same_v<C, double>) return digamma_double(x);
  if (m_isnan(x)) return x;
  if (x == C(0)) return m_copysign(static_cast<C>(INFINITY), -x);
  if (x < C(0)) {
    if (x == m_floor(x)) return static_cast<C>(NAN);
    if (m_isinf(x)) return static_cast<C>(NAN);
    const C pi = static_cast<C>(3.14159265358979323846);
    return digamma_positive(C(1) - x) - pi * m_cospi(x) / m_sinpi(x);
  }
  return digamma_positive(x);
}

// nextafter on a 16-bit float format: `from`/`to` as bits and decoded, `nan` the format's
// quiet NaN. Stepping the bit pattern by one moves one ulp in magnitude in both formats.
GPU_D inline uint16_t nextafter16(uint16_t from_bits, uint16_t to_bits, float from, float to, uint16_t nan) {
  if (from != from || to != to) return nan;
  if (from == to) return to_bits;  // as C: equal values give `to` (this sets the zero sign)
  if (from == 0.0f) return to > 0.0f ? 0x0001u : 0x8001u;
  const bool away = (to > from) == (from > 0.0f);
  return static_cast<uint16_t>(away ? from_bits + 1u : from_bits - 1u);
}

}  // namespace devplug::gpu
