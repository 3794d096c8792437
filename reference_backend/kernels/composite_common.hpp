// SPDX-License-Identifier: Apache-2.0
// What the reference's composite kernels share. They compute each composite directly from
// its definition (never through the dispatcher's decomposition), on dense copies of the
// operands in the wide type (double for float16, bfloat16 and float32; long double for
// float64), and round each output element once; so they are the independent oracle the
// decompositions and native kernels are judged against.
//
// A kernel reads its tensors into row-major vectors (Dense), computes, and writes results
// back through the output's strides. Every call is checked first by the SDK's prologue
// (sdk::run_kernel) and sdk::check_composite, so a bad call is an error, never a wild access.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "devplug/sdk/composite.hpp"
#include "devplug/sdk/kernels.hpp"
#include "structured_common.hpp"

namespace devplug::reference::composite {

using namespace structured;

// Row-major strides of a shape.
inline std::vector<int64_t> row_major(const devplug_tensor_desc_t& t) {
  std::vector<int64_t> s(static_cast<size_t>(t.rank), 1);
  for (int32_t d = t.rank - 2; d >= 0; --d)
    s[static_cast<size_t>(d)] = s[static_cast<size_t>(d) + 1] * t.shape[d + 1];
  return s;
}

// The elements of a floating tensor in row-major order, in the wide type W.
template <typename W>
std::vector<W> load(const devplug_tensor_desc_t* t) {
  std::vector<W> out;
  if (t == nullptr) return out;
  check_fits(*t, "input");
  out.reserve(static_cast<size_t>(sdk::numel(*t)));
  sdk::visit_dtype(t->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_floating_v<T>) {
      const T* base = tensor_base<const T>(*t);
      sdk::for_each_offset<1>(t->rank, t->shape, {t->strides}, [&](const std::array<int64_t, 1>& at) {
        out.push_back(static_cast<W>(to_wide(base[at[0]])));
      });
    } else {
      invalid("a floating tensor was expected");
    }
  });
  return out;
}

// The elements of an int64 or bool tensor in row-major order.
inline std::vector<int64_t> load_integers(const devplug_tensor_desc_t* t) {
  std::vector<int64_t> out;
  if (t == nullptr) return out;
  check_fits(*t, "input");
  sdk::visit_dtype(t->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!sdk::is_floating_v<T>) {
      const T* base = tensor_base<const T>(*t);
      sdk::for_each_offset<1>(t->rank, t->shape, {t->strides}, [&](const std::array<int64_t, 1>& at) {
        out.push_back(static_cast<int64_t>(base[at[0]]));
      });
    } else {
      invalid("an integer tensor was expected");
    }
  });
  return out;
}

// Writes `values` (row-major, wide) into floating output `t`, rounding each once.
template <typename W>
void store(const devplug_tensor_desc_t* t, const std::vector<W>& values) {
  if (t == nullptr) return;
  check_fits(*t, "output");
  if (values.size() != static_cast<size_t>(sdk::numel(*t))) invalid("internal: wrong number of values");
  sdk::visit_dtype(t->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_floating_v<T>) {
      T* base = tensor_base<T>(*t);
      size_t k = 0;
      sdk::for_each_offset<1>(t->rank, t->shape, {t->strides}, [&](const std::array<int64_t, 1>& at) {
        const W v = values[k++];
        if constexpr (std::is_same_v<T, double>)
          base[at[0]] = static_cast<double>(v);
        else
          base[at[0]] = sdk::from_double<T>(static_cast<double>(v));
      });
    } else {
      invalid("a floating output was expected");
    }
  });
}

// Writes integer or bool `values` into output `t`.
inline void store_integers(const devplug_tensor_desc_t* t, const std::vector<int64_t>& values) {
  if (t == nullptr) return;
  check_fits(*t, "output");
  sdk::visit_dtype(t->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!sdk::is_floating_v<T>) {
      T* base = tensor_base<T>(*t);
      size_t k = 0;
      sdk::for_each_offset<1>(t->rank, t->shape, {t->strides}, [&](const std::array<int64_t, 1>& at) {
        base[at[0]] = static_cast<T>(values[k++]);
      });
    } else {
      invalid("an integer output was expected");
    }
  });
}

// `value` rounded to the computation dtype of a call dispatched on `dtype` (float32 for
// 16-bit dtypes), back in W: what the op's scalar attributes become before they are used.
template <typename W>
W in_compute_dtype(devplug_dtype_t dtype, double value) {
  if (sdk::acc_dtype(dtype) == DEVPLUG_DTYPE_FLOAT32) return static_cast<W>(static_cast<float>(value));
  return static_cast<W>(value);
}

// After the SDK's prologue (sdk::run_kernel with KernelTraits) and check_composite, runs
// `body.template operator()<W>(call)` for the wide type of the call's dispatch dtype; every
// composite kernel of the reference is built with it.
#define DEVPLUG_COMPOSITE_KERNEL(fn_name, body)                                               \
  devplug_error_t* fn_name(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {  \
    return ::devplug::sdk::run_kernel<::devplug::reference::KernelTraits>(stream, call, [&] { \
      const devplug_op_call_t& c = *call;                                                     \
      const std::string problem = ::devplug::sdk::check_composite(c);                         \
      if (!problem.empty()) ::devplug::reference::structured::invalid(problem);               \
      if (c.inputs[0]->dtype == DEVPLUG_DTYPE_FLOAT64)                                        \
        body<long double>(c);                                                                 \
      else                                                                                    \
        body<double>(c);                                                                      \
    });                                                                                       \
  }

// Iterates a [outer, n, inner] split of a row-major shape around dim `dim`: f(base, stride)
// for each line along `dim`, with base the line's first element.
template <typename F>
void for_each_line(const std::vector<int64_t>& shape, int32_t dim, F&& f) {
  int64_t outer = 1, inner = 1;
  const int64_t n = shape.empty() ? 1 : shape[static_cast<size_t>(dim)];
  for (int32_t d = 0; d < dim; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(dim) + 1; d < shape.size(); ++d) inner *= shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) f(o * n * inner + i, inner, n);
}

inline std::vector<int64_t> shape_of(const devplug_tensor_desc_t& t) {
  return std::vector<int64_t>(t.shape, t.shape + t.rank);
}

inline int64_t product(const std::vector<int64_t>& shape, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t n = 1;
  for (size_t d = from; d < shape.size() && d < to; ++d) n *= shape[d];
  return n;
}

}  // namespace devplug::reference::composite
