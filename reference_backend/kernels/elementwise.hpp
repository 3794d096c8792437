// SPDX-License-Identifier: Apache-2.0
// Shared machinery of the reference kernels: what they check after the SDK's prologue
// (sdk::run_kernel<KernelTraits>: shapes, every reachable element inside its buffer) and the
// strided typed loops that run a per-element lambda over inputs and outputs of one shape in
// row-major order.
//
// The dtype is dispatched once per call (sdk::visit_dtype outside the loop); the loops take
// a typed lambda, so the inner loop has no per-element switch.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include "buffer.hpp"
#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/dtype.hpp"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/kernels.hpp"
#include "devplug/sdk/strided.hpp"
#include "kernels/kernel_traits.hpp"

namespace devplug::reference {

// Throws unless every element `t` can reach lies inside its buffer: shape entries must be
// non-negative (INVALID_ARGUMENT) and the byte range spanned by the strides must fit
// (overflow-safe; `outside`, OUT_OF_RANGE unless the caller's entry names another code).
inline void check_tensor_in_buffer(const devplug_tensor_desc_t& t, const char* what,
                                   devplug_code_t outside = DEVPLUG_CODE_OUT_OF_RANGE) {
  if (t.buffer->data == nullptr)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + " has a released buffer");
  for (int32_t d = 0; d < t.rank; ++d)
    if (t.shape[d] < 0) sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + " has a negative dim");
  if (!sdk::fits_buffer(t, t.buffer->size))
    sdk::fail(outside, std::string(what) + " reaches outside its buffer of " +
                           std::to_string(t.buffer->size) + " bytes");
}

// Throws INVALID_ARGUMENT unless `a` and `b` have the same rank and shape.
inline void check_same_shape(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b, const char* op) {
  bool same = a.rank == b.rank;
  for (int32_t d = 0; same && d < a.rank; ++d) same = a.shape[d] == b.shape[d];
  if (!same) sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(op) + ": tensors differ in shape");
}

// Throws INVALID_ARGUMENT unless `t` has dtype `dtype`.
inline void check_dtype(const devplug_tensor_desc_t& t, devplug_dtype_t dtype, const char* op,
                        const char* what) {
  if (t.dtype != dtype)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(op) + ": " + what + " has dtype " +
                                                 devplug_dtype_name(t.dtype) + ", " +
                                                 devplug_dtype_name(dtype) + " expected");
}

// The reference's own step after the SDK's prologue (sdk::run_kernel<KernelTraits>): every
// tensor of the call inside its buffer, so a bad descriptor passed to the plugin directly gives
// an error instead of a wild read or write.
inline void check_in_buffers(const devplug_op_call_t& call) {
  for (size_t i = 0; i < call.n_inputs; ++i) check_tensor_in_buffer(*call.inputs[i], "input tensor");
  for (size_t i = 0; i < call.n_outputs; ++i) check_tensor_in_buffer(*call.outputs[i], "output tensor");
}

// out[i] = f(in[i]) over one shape, any strides.
template <typename In, typename Out, typename F>
void map1(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out, F&& f) {
  const In* src = tensor_base<const In>(in);
  Out* dst = tensor_base<Out>(out);
  sdk::for_each_offset<2>(out.rank, out.shape, {in.strides, out.strides},
                          [&](const std::array<int64_t, 2>& at) { dst[at[1]] = f(src[at[0]]); });
}

// out[i] = f(a[i], b[i]) over one shape, any strides.
template <typename A, typename B, typename Out, typename F>
void map2(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b, const devplug_tensor_desc_t& out,
          F&& f) {
  const A* pa = tensor_base<const A>(a);
  const B* pb = tensor_base<const B>(b);
  Out* dst = tensor_base<Out>(out);
  sdk::for_each_offset<3>(out.rank, out.shape, {a.strides, b.strides, out.strides},
                          [&](const std::array<int64_t, 3>& at) { dst[at[2]] = f(pa[at[0]], pb[at[1]]); });
}

// out[i] = f(a[i], b[i], c[i]) over one shape, any strides.
template <typename A, typename B, typename C, typename Out, typename F>
void map3(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b, const devplug_tensor_desc_t& c,
          const devplug_tensor_desc_t& out, F&& f) {
  const A* pa = tensor_base<const A>(a);
  const B* pb = tensor_base<const B>(b);
  const C* pc = tensor_base<const C>(c);
  Out* dst = tensor_base<Out>(out);
  sdk::for_each_offset<4>(
      out.rank, out.shape, {a.strides, b.strides, c.strides, out.strides},
      [&](const std::array<int64_t, 4>& at) { dst[at[3]] = f(pa[at[0]], pb[at[1]], pc[at[2]]); });
}

// How a float64 op is computed. kWide: in long double and rounded once to double (the C
// library's double functions are not all correctly rounded; their long double versions
// carry 11 more bits). kNative: in double, for ops IEEE double already rounds correctly
// (+ - * / sqrt fmod, rounding, sign manipulation), where long double would round twice.
// float32 is always computed in double and float16/bfloat16 in double, rounded once to the
// dtype (double has more than 2p + 2 bits for these p, so one basic op is exact enough).
enum class F64 { kWide, kNative };

// Calls `f(TypeTag<T>)` for a floating dtype; INVALID_ARGUMENT for any other.
template <typename F>
void visit_float(devplug_dtype_t dtype, F&& f) {
  sdk::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_floating_v<T>)
      f(tag);
    else
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
                std::string("a floating op got dtype ") + devplug_dtype_name(dtype));
  });
}

// The type a floating element of T is computed in.
template <typename T, F64 P>
using Compute = std::conditional_t<std::is_same_v<T, double> && P == F64::kWide, long double, double>;

// The computed value `v` rounded once to T.
template <typename T, typename C>
inline T round_to(C v) {
  if constexpr (sdk::is_float16_v<T>)
    return sdk::from_double<T>(static_cast<double>(v));
  else
    return static_cast<T>(v);
}

// The exact value of a floating element as double.
template <typename T>
inline double value_of(T v) {
  if constexpr (sdk::is_float16_v<T>)
    return sdk::to_double(v);
  else
    return static_cast<double>(v);
}

// out = f(x) for a floating unary op, computed as F64 says and rounded once.
template <F64 P, typename F>
void float_map1(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out, F&& f) {
  visit_float(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = Compute<T, P>;
    map1<T, T>(in, out, [&](T x) { return round_to<T>(f(static_cast<C>(value_of(x)))); });
  });
}

// out = f(a, b) for a floating binary op, computed as F64 says and rounded once.
template <F64 P, typename F>
void float_map2(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                const devplug_tensor_desc_t& out, F&& f) {
  visit_float(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = Compute<T, P>;
    map2<T, T, T>(a, b, out, [&](T x, T y) {
      return round_to<T>(f(static_cast<C>(value_of(x)), static_cast<C>(value_of(y))));
    });
  });
}

}  // namespace devplug::reference
