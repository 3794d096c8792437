// SPDX-License-Identifier: Apache-2.0
// The elementwise core other op files build on: torch's result dtype, out= handling and
// devplug_elementwise with CPU scalars as 0-dim device tensors.
#pragma once

#include "kernel.hpp"

namespace devplug::bridge {

// How a binary op's result dtype follows from torch's common dtype of its operands.
enum class BinaryKind {
  promote,   // the common dtype (add, mul, maximum, ...)
  true_div,  // the common dtype, integers computed in the default float dtype (div, atan2)
  compare,   // bool, computed in the common dtype (eq, lt, ...)
};
// And a unary op's.
enum class UnaryKind {
  same,      // the input's dtype (abs, neg)
  floating,  // integers give the default float dtype (exp, sqrt)
  rounding,  // the input's dtype; integers are copied (ceil, floor, round, trunc)
  to_bool,   // bool (signbit, isnan)
};

// Throws torch's error when `from` cannot be cast to out's dtype (float into int, ...).
void check_can_cast(at::ScalarType from, const at::Tensor& out);
// Resizes an out= tensor to `shape` (warning about a non-empty wrong-sized one, as torch).
void prepare_out(const at::Tensor& out, at::IntArrayRef shape);
// A new devplug tensor of the inputs' broadcast shape; a full-size dense input lends its
// layout (torch's preserve_format).
at::Tensor new_like_broadcast(const Dev& dev, std::initializer_list<const at::Tensor*> inputs,
                              at::ScalarType dtype);

// Leaves the call to torch's CPU (fallback_unless_allowed) when devplug_elementwise would
// refuse `op` on operands of common dtype `dtype` (bool sign, bool fmax, ...). An op defined
// on floats only takes every dtype: devplug computes integers and bool in float32.
void fallback_unless_elementwise_takes(devplug_op_t op, at::ScalarType dtype);

void binary_into(devplug_op_t op, const at::Tensor& a, const at::Tensor& b, const at::Tensor& out,
                 BinaryKind kind);
at::Tensor binary(devplug_op_t op, const at::Tensor& a, const at::Tensor& b, BinaryKind kind);
at::ScalarType unary_result(UnaryKind kind, at::ScalarType in);
void unary_into(devplug_op_t op, const at::Tensor& self, const at::Tensor& out, UnaryKind kind);

}  // namespace devplug::bridge
