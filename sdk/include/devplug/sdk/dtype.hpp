// SPDX-License-Identifier: Apache-2.0
// C++ element types for the ten dtypes and a visitor that turns a run-time dtype into a
// compile-time type, for plugin authors and hosts.
//
//   devplug::sdk::visit_dtype(t.dtype, [&](auto tag) {
//     using T = typename decltype(tag)::type;   // bool, uint8_t, ..., sdk::float16, double
//     ...
//   });
//
// float16 and bfloat16 are 16-bit storage types; arithmetic on them goes through
// to_double / from_double (rounded once, to nearest even, see half.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "devplug/sdk/error.hpp"
#include "devplug/sdk/half.hpp"
#include "devplug/types.h"

namespace devplug::sdk {

struct float16 {
  uint16_t bits;
};
struct bfloat16 {
  uint16_t bits;
};

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename T>
inline constexpr bool is_float16_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
template <typename T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_float16_v<T>;

// Calls `f(TypeTag<T>{})` with the element type of `dtype`. Throws INVALID_ARGUMENT for an
// unknown dtype.
template <typename F>
decltype(auto) visit_dtype(devplug_dtype_t dtype, F&& f) {
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
      return f(TypeTag<float16>{});
    case DEVPLUG_DTYPE_BFLOAT16:
      return f(TypeTag<bfloat16>{});
    case DEVPLUG_DTYPE_FLOAT32:
      return f(TypeTag<float>{});
    case DEVPLUG_DTYPE_FLOAT64:
      return f(TypeTag<double>{});
    default:
      fail(DEVPLUG_CODE_INVALID_ARGUMENT, "unknown dtype " + std::to_string(dtype));
  }
}

// The dtype of an element type.
template <typename T>
constexpr devplug_dtype_t dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return DEVPLUG_DTYPE_BOOL;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DEVPLUG_DTYPE_UINT8;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DEVPLUG_DTYPE_INT8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DEVPLUG_DTYPE_INT16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DEVPLUG_DTYPE_INT32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DEVPLUG_DTYPE_INT64;
  else if constexpr (std::is_same_v<T, float16>)
    return DEVPLUG_DTYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return DEVPLUG_DTYPE_BFLOAT16;
  else if constexpr (std::is_same_v<T, float>)
    return DEVPLUG_DTYPE_FLOAT32;
  else {
    static_assert(std::is_same_v<T, double>, "not a devplug element type");
    return DEVPLUG_DTYPE_FLOAT64;
  }
}

// The exact value of a floating element as double.
template <typename T>
inline double to_double(T v) {
  if constexpr (std::is_same_v<T, float16>)
    return half_bits_to_double(v.bits);
  else if constexpr (std::is_same_v<T, bfloat16>)
    return bfloat16_bits_to_double(v.bits);
  else
    return static_cast<double>(v);
}

// `x` rounded once to the floating element type T (to nearest even).
template <typename T>
inline T from_double(double x) {
  if constexpr (std::is_same_v<T, float16>)
    return float16{double_to_half_bits(x)};
  else if constexpr (std::is_same_v<T, bfloat16>)
    return bfloat16{double_to_bfloat16_bits(x)};
  else {
    static_assert(std::is_floating_point_v<T>, "from_double is for floating element types");
    return static_cast<T>(x);
  }
}

}  // namespace devplug::sdk
