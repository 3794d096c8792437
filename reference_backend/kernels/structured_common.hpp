// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the reference backend's structured kernels (reduce, index, linalg,
// random): the kernel macro (the SDK's prologue, then the kernel's op and dtype), shape and
// bounds checks, and the arithmetic types the reference accumulates in.
//
// The reference backend computes float16, bfloat16 and float32 in double and float64 in
// long double, and rounds once into the output dtype; integers wrap through uint64_t so
// that no signed overflow (undefined behaviour) ever happens.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "../buffer.hpp"
#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/dtype.hpp"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/strided.hpp"
#include "kernel_traits.hpp"

namespace devplug::reference::structured {

// The op's attribute struct; the SDK's prologue (sdk::run_kernel) has already checked that it
// is there and large enough.
template <typename Attrs>
const Attrs& attrs_of(const devplug_op_call_t& call) {
  return *static_cast<const Attrs*>(call.attrs);
}

// The dtypes ops.def allows for `op`, at compile time (expanded from the table).
constexpr devplug_dtype_mask_t op_dtypes(devplug_op_t op) {
  switch (op) {
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary) \
  case id:                                                                          \
    return dtypes;
#include "devplug/ops.def"
    default:
      return 0;
  }
}

// One kernel function per op: after the SDK's prologue (sdk::run_kernel with KernelTraits) it
// visits the call's dispatch dtype and runs `body` (an expression using the element type T and
// the call `c`) for the dtypes ops.def allows; a call for another op gets INVALID_ARGUMENT.
#define DEVPLUG_STRUCTURED_KERNEL(fn_name, op_id, body)                                            \
  devplug_error_t* fn_name(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {       \
    return ::devplug::sdk::run_kernel<::devplug::reference::KernelTraits>(stream, call, [&] {      \
      const devplug_op_call_t& c = *call;                                                          \
      constexpr devplug_dtype_mask_t allowed = ::devplug::reference::structured::op_dtypes(op_id); \
      const devplug_dtype_t dtype = ::devplug::sdk::dispatch_dtype(c);                             \
      if (c.op != (op_id) || !(allowed & DEVPLUG_DTYPE_BIT(dtype)))                                \
        ::devplug::reference::structured::invalid(std::string(devplug_op_name(c.op)) +             \
                                                  ": op or dtype not served by this kernel");      \
      ::devplug::sdk::visit_dtype(dtype, [&](auto tag) {                                           \
        using T = typename decltype(tag)::type;                                                    \
        if constexpr ((allowed & DEVPLUG_DTYPE_BIT(::devplug::sdk::dtype_of<T>())) != 0) body;     \
      });                                                                                          \
    });                                                                                            \
  }

// Adds the kernel for `op` with every dtype ops.def allows for it.
inline void add_kernel(sdk::KernelTable& table, devplug_op_t op, devplug_kernel_fn fn) {
  table.add(op, op_dtypes(op), 0, fn);
}

[[noreturn]] inline void invalid(const std::string& message) {
  sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, message);
}

// Throws unless every element `t` can reach lies inside its buffer, so a bad descriptor
// passed to the plugin directly gives an error instead of a wild read or write.
inline void check_fits(const devplug_tensor_desc_t& t, const char* what) {
  const size_t item = devplug_dtype_size(t.dtype);
  if (t.buffer->data == nullptr) invalid(std::string(what) + " has a released buffer");
  for (int32_t d = 0; d < t.rank; ++d)
    if (t.shape[d] < 0) invalid(std::string(what) + " has a negative dim");
  if (sdk::numel(t) == 0) return;
  // Lowest and highest element offsets, in elements; __int128 so huge strides cannot wrap.
  __int128 low = 0, high = 0;
  for (int32_t d = 0; d < t.rank; ++d) {
    const __int128 reach = static_cast<__int128>(t.shape[d] - 1) * t.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  const __int128 first = static_cast<__int128>(t.byte_offset) + low * static_cast<__int128>(item);
  const __int128 end = static_cast<__int128>(t.byte_offset) + (high + 1) * static_cast<__int128>(item);
  if (first < 0 || end > static_cast<__int128>(t.buffer->size))
    sdk::fail(DEVPLUG_CODE_OUT_OF_RANGE, std::string(what) + " reaches outside its buffer");
}

inline void check_dtype(const devplug_tensor_desc_t& t, devplug_dtype_t dtype, const char* what) {
  if (t.dtype != dtype)
    invalid(std::string(what) + " must be " + devplug_dtype_name(dtype) + ", not " +
            devplug_dtype_name(t.dtype));
}

inline bool same_shape(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b) {
  if (a.rank != b.rank) return false;
  for (int32_t d = 0; d < a.rank; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

inline std::string shape_string(const devplug_tensor_desc_t& t) {
  std::string s = "[";
  for (int32_t d = 0; d < t.rank; ++d) s += (d ? ", " : "") + std::to_string(t.shape[d]);
  return s + "]";
}

// The type a floating element is computed in: double for the 16-bit types and float32,
// long double for float64.
template <typename T>
using wide_t = std::conditional_t<std::is_same_v<T, double>, long double, double>;

// The exact value of a floating element in its wide type.
template <typename T>
inline wide_t<T> to_wide(T v) {
  if constexpr (std::is_same_v<T, double>)
    return static_cast<long double>(v);
  else
    return sdk::to_double(v);
}

// `x` rounded once to the floating element type T.
template <typename T>
inline T from_wide(wide_t<T> x) {
  if constexpr (std::is_same_v<T, double>)
    return static_cast<double>(x);
  else
    return sdk::from_double<T>(x);
}

// Integers as their two's complement bit pattern, for wrapping arithmetic.
template <typename T>
inline uint64_t to_bits(T v) {
  return static_cast<uint64_t>(v);
}
// The low bits of `u` as T (two's complement; GCC and Clang define the narrowing).
template <typename T>
inline T from_bits(uint64_t u) {
  if constexpr (std::is_same_v<T, bool>)
    return u != 0;
  else
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(u));
}

// Whether an element is non-zero (NaN counts as non-zero, -0.0 as zero).
template <typename T>
inline bool is_nonzero(T v) {
  if constexpr (sdk::is_floating_v<T>) {
    const double x = sdk::to_double(v);
    return x != 0.0 || x != x;
  } else {
    return v != T(0);
  }
}

// A fill/pad scalar as element type T: `.f` rounded once for floats, `.i` for integers
// (wrapping) and `.i != 0` for bool.
template <typename T>
inline T scalar_as(const devplug_scalar_t& s) {
  if constexpr (sdk::is_floating_v<T>)
    return sdk::from_double<T>(s.f);
  else
    return from_bits<T>(static_cast<uint64_t>(s.i));
}

// Element offset of multi-index `index` in a tensor with `strides`.
inline int64_t offset_of(int32_t rank, const int64_t* index, const int64_t* strides) {
  int64_t off = 0;
  for (int32_t d = 0; d < rank; ++d) off += index[d] * strides[d];
  return off;
}

}  // namespace devplug::reference::structured
