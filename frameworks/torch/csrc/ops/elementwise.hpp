// SPDX-License-Identifier: Apache-2.0
// The elementwise core other op files build on: torch's result dtype, out= handling and
// devplug_elementwise with CPU scalars as 0-dim device tensors; and the per-tensor kernels
// the foreach ops loop over.
#pragma once

#include <optional>

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
// As prepare_out, for an op of `inputs`: an in-place output (`out` is one of them) is never
// resized; torch's error when it does not have the broadcast shape `shape`.
void prepare_out(const at::Tensor& out, at::IntArrayRef shape,
                 std::initializer_list<const at::Tensor*> inputs);
// A new devplug tensor of the inputs' broadcast shape; a full-size dense input lends its
// layout (torch's preserve_format).
at::Tensor new_like_broadcast(const Dev& dev, std::initializer_list<const at::Tensor*> inputs,
                              at::ScalarType dtype);

// Leaves the call to torch's CPU (fallback_unless_allowed) when devplug_elementwise would
// refuse `op` on operands of common dtype `dtype` (bool sign, bool fmax, ...). An op defined
// on floats only takes every dtype: devplug computes integers and bool in float32.
void fallback_unless_elementwise_takes(devplug_op_t op, at::ScalarType dtype);

// The per-tensor kernels, as the aten ops registered in elementwise.cpp run them: `*_into`
// writes `out` (in place when it is `self`), the others return a new tensor. foreach.cpp calls
// them in its loops. Each may throw OnCpu (fallback.hpp) before it writes anything.
void binary_into(devplug_op_t op, const at::Tensor& a, const at::Tensor& b, const at::Tensor& out,
                 BinaryKind kind);
at::Tensor binary(devplug_op_t op, const at::Tensor& a, const at::Tensor& b, BinaryKind kind);
at::ScalarType unary_result(UnaryKind kind, at::ScalarType in);
void unary_into(devplug_op_t op, const at::Tensor& self, const at::Tensor& out, UnaryKind kind);
at::Tensor unary(devplug_op_t op, const at::Tensor& self, UnaryKind kind);
// self (op) alpha * other, for add and sub (torch's add.Tensor, sub.Tensor).
void alpha_binary_into(devplug_op_t op, const at::Tensor& self, const at::Tensor& other,
                       const at::Scalar& alpha, const at::Tensor& out);
at::Tensor alpha_binary(devplug_op_t op, const at::Tensor& self, const at::Tensor& other,
                        const at::Scalar& alpha);
// self + value * t1 (op) t2, op mul or div (addcmul, addcdiv).
void addc_into(devplug_op_t op, const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
               const at::Scalar& value, const at::Tensor& out);
at::Tensor addc(devplug_op_t op, const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
                const at::Scalar& value);
// clamp with number bounds (clamp, clamp_min, clamp_max) and with tensor bounds (clamp.Tensor,
// clamp_min.Tensor, ...): at least one bound given.
at::Tensor& clamp_out(const at::Tensor& self, const std::optional<at::Scalar>& lo,
                      const std::optional<at::Scalar>& hi, at::Tensor& out);
at::Tensor clamp_fn(const at::Tensor& self, const std::optional<at::Scalar>& lo,
                    const std::optional<at::Scalar>& hi);
at::Tensor& clamp_tensor_out(const at::Tensor& self, const std::optional<at::Tensor>& lo,
                             const std::optional<at::Tensor>& hi, at::Tensor& out);
at::Tensor clamp_tensor_fn(const at::Tensor& self, const std::optional<at::Tensor>& lo,
                           const std::optional<at::Tensor>& hi);
// lerp with a number weight and with a tensor weight.
at::Tensor& lerp_scalar_out(const at::Tensor& self, const at::Tensor& end, const at::Scalar& weight,
                            at::Tensor& out);
at::Tensor lerp_scalar_fn(const at::Tensor& self, const at::Tensor& end, const at::Scalar& weight);
at::Tensor& lerp_tensor_out(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight,
                            at::Tensor& out);
at::Tensor lerp_tensor_fn(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight);

}  // namespace devplug::bridge
