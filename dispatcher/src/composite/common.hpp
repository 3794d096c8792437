// SPDX-License-Identifier: Apache-2.0
// Small helpers every decomposition file uses: reading a call's tensors, the computation
// dtype (float32 for 16-bit inputs, which are rounded once at the end), and writing a
// result into a caller's output.
#pragma once

#include <cmath>

#include "devplug/sdk/composite.hpp"
#include "prims.hpp"

namespace devplug::detail::composite {

// Input `k` as given (NULL when an optional input is absent).
inline Tensor input(const Call& c, size_t k) { return Prims::borrow(c.inputs[k]); }
// Output `k` (NULL when an optional output is not asked for).
inline Tensor output(const Call& c, size_t k) { return Prims::borrow(c.outputs[k]); }
inline bool wants(const Call& c, size_t k) { return c.outputs[k] != nullptr; }

// The dtype a decomposition computes in: float32 for float16 and bfloat16, else the dispatch
// dtype.
inline devplug_dtype_t compute_dtype(const Call& c) { return sdk::acc_dtype(c.inputs[0]->layout.dtype); }

// Input `k` converted to the computation dtype (NULL stays NULL).
inline Tensor input_c(Prims& p, const Call& c, size_t k) {
  if (c.inputs[k] == nullptr) return nullptr;
  return p.convert(input(c, k), compute_dtype(c));
}

// Writes `value` (broadcast, converted) into output `k` when it is asked for.
inline void store(Prims& p, const Call& c, size_t k, const Tensor& value) {
  if (wants(c, k)) p.copy_into(output(c, k), value);
}

// Runs the last elementwise op of a decomposition: straight into output `k` when it has the
// computation dtype (no extra pass), else into a temporary that is rounded into it.
inline void finish(Prims& p, const Call& c, size_t k, devplug_op_t op,
                   std::initializer_list<Tensor> operands) {
  if (!wants(c, k)) return;
  const Tensor out = output(c, k);
  const Tensor* first = operands.begin();
  const devplug_dtype_t result =
      devplug_op_info(op)->result == DEVPLUG_RESULT_select ? first[1]->layout.dtype : first[0]->layout.dtype;
  if (out->layout.dtype == result) {
    p.map_into(out, op, operands);
    return;
  }
  p.copy_into(out, p.map(op, operands));
}

// The dims mask of dims [from, rank).
inline uint32_t dims_from(int32_t from, int32_t rank) {
  uint32_t mask = 0;
  for (int32_t d = from; d < rank; ++d) mask |= 1u << d;
  return mask;
}

// The product of the dims in `mask`.
inline int64_t count_of(const Tensor& t, uint32_t mask) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->layout.rank; ++d)
    if ((mask >> d) & 1u) n *= t->layout.shape[d];
  return n;
}

constexpr double kSqrt1_2 = 0.70710678118654752440;      // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kGeluKappa = 0.044715;

}  // namespace devplug::detail::composite
