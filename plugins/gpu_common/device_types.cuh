// SPDX-License-Identifier: Apache-2.0
// Element types on the device and exact conversions between them, shared by every kernel
// file. float16 and bfloat16 are 16-bit storage; arithmetic happens in float32 (float64
// stays float64) and results are rounded once, to nearest even, by the bit-exact encoders
// below (identical on CUDA and HIP, no reliance on either vendor's half headers).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "devplug/sdk/error.hpp"
#include "devplug/types.h"
#include "gpu_port.hpp"

namespace devplug::gpu {

struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};

template <typename T>
struct TypeTag {
  using type = T;
};

// Host: calls f(TypeTag<T>{}) with the device element type of `dtype`.
template <typename F>
decltype(auto) visit(devplug_dtype_t dtype, F&& f) {
  switch (dtype) {
    case DEVPLUG_DTYPE_BOOL:
      return f(TypeTag<bool>{});
    case DEVPLUG_DTYPE_UINT8:
      return f(TypeTag<uint8_t>{});
    case DEVPLUG_DTYPE_INT8:
      return f(TypeTag<int8_t>{});
    case DEVPLUG_DTYPE_INT16:
      return f(TypeTag<int16_t>{});
    case DEVPLUG_DTYPE_INT32:
      return f(TypeTag<int32_t>{});
    case DEVPLUG_DTYPE_INT64:
      return f(TypeTag<int64_t>{});
    case DEVPLUG_DTYPE_FLOAT16:
      return f(TypeTag<f16>{});
    case DEVPLUG_DTYPE_BFLOAT16:
      return f(TypeTag<bf16>{});
    case DEVPLUG_DTYPE_FLOAT32:
      return f(TypeTag<float>{});
    case DEVPLUG_DTYPE_FLOAT64:
      return f(TypeTag<double>{});
    default:
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "unknown dtype " + std::to_string(dtype));
  }
}

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;
template <typename T>
inline constexpr bool is_float_v = is_half_v<T> || std::is_floating_point_v<T>;
template <typename T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type arithmetic happens in: float for 16-bit floats, the type itself otherwise.
template <typename T>
struct ComputeOf {
  using type = T;
};
template <>
struct ComputeOf<f16> {
  using type = float;
};
template <>
struct ComputeOf<bf16> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeOf<T>::type;

// ---- bit casts --------------------------------------------------------------------------

GPU_HD inline uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
GPU_HD inline float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
GPU_HD inline uint64_t double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
GPU_HD inline double bits_double(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

// ---- 16-bit encoders (round to nearest even, NaN stays a quiet NaN) -----------------------

// On NVIDIA GPUs the rounding conversions are one instruction each (cvt.rn; bfloat16 from
// sm_80): the integer encoders below held exp on bfloat16 to 0.86 of the copy's bandwidth on
// an H200. Same results, NaN aside (the instruction returns the canonical NaN, the encoders
// keep the payload; either is a NaN of the type).
#if defined(__CUDA_ARCH__)
#define DEVPLUG_CVT_HALF 1
#if __CUDA_ARCH__ >= 800
#define DEVPLUG_CVT_BF16 1
#endif
#endif

GPU_HD inline uint16_t float_to_half_bits(float f) {
#if defined(DEVPLUG_CVT_HALF)
  uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to Inf
  if (a >= 0x38800000u) {                                              // normal half
    a += 0xfffu + ((a >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((a - 0x38000000u) >> 13));
  }
  // Subnormal (or zero): count units of 2^-24; the scaling is exact, rint ties to even, and
  // 1024 units carry into the smallest normal by the bit layout.
  const float units = rintf(bits_float(a) * 16777216.0f);
  return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));
#endif
}

GPU_HD inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(man) * 5.9604644775390625e-8f;  // man * 2^-24, exact
    return bits_float(float_bits(v) | sign);
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (man << 13));
  return bits_float(sign | ((exp + 112u) << 23) | (man << 13));
}

GPU_HD inline uint16_t float_to_bf16_bits(float f) {
#if defined(DEVPLUG_CVT_BF16)
  uint16_t h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
}

GPU_HD inline float bf16_bits_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

// double to float rounded to odd: float rounding toward zero, with the last bit set when
// inexact. Rounding that result to nearest even in a format at least 2 bits narrower than
// float equals rounding the double once (the classic round-to-odd argument).
GPU_HD inline float double_to_float_odd(double x) {
  if (!(x == x)) return static_cast<float>(x);
  float f = static_cast<float>(x);
  if (fabs(static_cast<double>(f)) > fabs(x)) {
    // rounded away from zero: step one ulp back toward zero (stays finite for finite x)
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) == 0x7f800000u)
      u = (u & 0x80000000u) | 0x7f7fffffu;
    else
      u -= 1u;
    f = bits_float(u);
  }
  if (static_cast<double>(f) != x) f = bits_float(float_bits(f) | 1u);
  return f;
}

// ---- load / store through the compute type ---------------------------------------------

template <typename T>
GPU_HD inline compute_t<T> to_compute(T v) {
  if constexpr (std::is_same_v<T, f16>)
    return half_bits_to_float(v.bits);
  else if constexpr (std::is_same_v<T, bf16>)
    return bf16_bits_to_float(v.bits);
  else
    return v;
}

template <typename T>
GPU_HD inline T from_compute(compute_t<T> v) {
  if constexpr (std::is_same_v<T, f16>)
    return f16{float_to_half_bits(v)};
  else if constexpr (std::is_same_v<T, bf16>)
    return bf16{float_to_bf16_bits(v)};
  else
    return v;
}

// `x` rounded once to floating type T.
template <typename T>
GPU_HD inline T float_from_double(double x) {
  if constexpr (std::is_same_v<T, f16>)
    return f16{float_to_half_bits(double_to_float_odd(x))};
  else if constexpr (std::is_same_v<T, bf16>)
    return bf16{float_to_bf16_bits(double_to_float_odd(x))};
  else
    return static_cast<T>(x);
}

// Value of any element as double (exact for every dtype but int64 beyond 2^53).
template <typename T>
GPU_HD inline double as_double(T v) {
  if constexpr (is_half_v<T>)
    return static_cast<double>(to_compute(v));
  else
    return static_cast<double>(v);
}

// A devplug_scalar_t as element type T: `f` rounded once for floats, `i` wrapped to the width
// for integers, `i != 0` for bool (ops.def fill, iota, constant_pad).
template <typename T>
GPU_HD inline T from_scalar(double f, int64_t i) {
  if constexpr (std::is_same_v<T, bool>)
    return i != 0;
  else if constexpr (is_float_v<T>)
    return float_from_double<T>(f);
  else
    return static_cast<T>(i);
}

}  // namespace devplug::gpu
