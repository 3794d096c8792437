// SPDX-License-Identifier: Apache-2.0
// Activations, softmax and their backward ops. Those devplug has composites for (relu, gelu,
// silu, sigmoid, softplus, leaky_relu, softmax, log_softmax and the backward ops of most)
// call them, so a plugin's native kernel runs where it has one; the rest (threshold,
// hardtanh, tanh's, softplus's and leaky_relu's backward) are composed in the bridge from
// devplug's elementwise prims in the order of operations of torch's CPU kernels.
#include <ATen/ExpandUtils.h>
#include <ATen/Functions.h>
#include <ATen/native/Resize.h>

#include <cmath>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// Writes `value` (any dtype, out's shape) into torch tensor `out`.
void store(const Dev& dev, const DTensor& value, const at::Tensor& out) {
  DTensor target = view_of(out);
  dev.copy(dev.cast(value.expand(target.shape()), target.dtype()), target);
}

// A unary composite `op` of `self` into `out` (which may be self).
at::Tensor& unary_composite(devplug_op_t op, const at::Tensor& self, at::Tensor& out,
                            const void* attrs = nullptr) {
  fallback_unless_allowed(op, self.scalar_type());
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() > 0) dev.composite_into(op, {view_of(self)}, view_of(out), attrs);
  return out;
}
// Its functional, in-place and out= kernels, for composites without attributes.
template <devplug_op_t Op>
at::Tensor& act_out(const at::Tensor& self, at::Tensor& out) {
  return unary_composite(Op, self, out);
}
template <devplug_op_t Op>
at::Tensor act(const at::Tensor& self) {
  at::Tensor out = at::empty_like(self);
  return unary_composite(Op, self, out);
}
template <devplug_op_t Op>
at::Tensor& act_(at::Tensor& self) {
  return unary_composite(Op, self, self);
}

// A backward composite (grad, saved) -> grad_input of saved's shape.
at::Tensor& backward_composite(devplug_op_t op, const at::Tensor& grad, const at::Tensor& saved,
                               at::Tensor& grad_input, const void* attrs = nullptr) {
  Dev dev = Dev::of({&grad, &saved, &grad_input});
  prepare_out(grad_input, saved.sizes());
  if (saved.numel() == 0) return grad_input;
  DTensor g = view_of(grad);
  dev.composite_into(op, {g, dev.cast(view_of(saved), g.dtype())}, view_of(grad_input), attrs);
  return grad_input;
}

// ---- relu, threshold, leaky_relu ------------------------------------------------------------

at::Tensor& threshold_out(const at::Tensor& self, const at::Scalar& threshold, const at::Scalar& value,
                          at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  DTensor x = view_of(self);
  DTensor below = dev.ew(DEVPLUG_OP_le, {x, dev.scalar(x.dtype(), threshold)});
  dev.ew_into(DEVPLUG_OP_where, {below, dev.scalar(x.dtype(), value), x}, view_of(out));
  return out;
}
at::Tensor threshold(const at::Tensor& self, const at::Scalar& threshold, const at::Scalar& value) {
  at::Tensor out = at::empty_like(self);
  return threshold_out(self, threshold, value, out);
}
at::Tensor& threshold_(at::Tensor& self, const at::Scalar& threshold, const at::Scalar& value) {
  return threshold_out(self, threshold, value, self);
}

// relu's backward is threshold_backward at 0: the relu_backward composite; other
// thresholds (nn.Threshold) are composed here.
at::Tensor& threshold_backward_out(const at::Tensor& grad, const at::Tensor& self,
                                   const at::Scalar& threshold, at::Tensor& grad_input) {
  if (threshold.toDouble() == 0 && c10::isFloatingType(grad.scalar_type()) &&
      self.scalar_type() == grad.scalar_type())
    return backward_composite(DEVPLUG_OP_relu_backward, grad, self, grad_input);
  Dev dev = Dev::of({&grad, &self, &grad_input});
  prepare_out(grad_input, grad.sizes());
  if (grad.numel() == 0) return grad_input;
  DTensor x = view_of(self), g = view_of(grad);
  DTensor below = dev.ew(DEVPLUG_OP_le, {x, dev.scalar(x.dtype(), threshold)});
  dev.ew_into(DEVPLUG_OP_where, {below, dev.scalar(g.dtype(), 0), g}, view_of(grad_input));
  return grad_input;
}
at::Tensor threshold_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& threshold) {
  at::Tensor out = at::empty_like(grad);
  return threshold_backward_out(grad, self, threshold, out);
}

at::Tensor& leaky_relu_out(const at::Tensor& self, const at::Scalar& slope, at::Tensor& out) {
  devplug_leaky_relu_attrs_t attrs{sizeof(attrs), slope.toDouble()};
  return unary_composite(DEVPLUG_OP_leaky_relu, self, out, &attrs);
}
at::Tensor leaky_relu(const at::Tensor& self, const at::Scalar& slope) {
  at::Tensor out = at::empty_like(self);
  return leaky_relu_out(self, slope, out);
}
at::Tensor& leaky_relu_(at::Tensor& self, const at::Scalar& slope) {
  return leaky_relu_out(self, slope, self);
}
at::Tensor& leaky_relu_backward_out(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& slope,
                                    bool /*self_is_result*/, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &self, &grad_input});
  prepare_out(grad_input, grad.sizes());
  if (grad.numel() == 0) return grad_input;
  DTensor x = view_of(self), g = view_of(grad);
  DTensor positive = dev.ew(DEVPLUG_OP_gt, {x, dev.scalar(x.dtype(), 0)});
  dev.ew_into(DEVPLUG_OP_where, {positive, g, dev.ew(DEVPLUG_OP_mul, {g, dev.scalar(g.dtype(), slope)})},
              view_of(grad_input));
  return grad_input;
}
at::Tensor leaky_relu_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& slope,
                               bool self_is_result) {
  at::Tensor out = at::empty_like(grad);
  return leaky_relu_backward_out(grad, self, slope, self_is_result, out);
}

// ---- gelu ---------------------------------------------------------------------------------------

devplug_gelu_attrs_t gelu_attrs(std::string_view approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh.");
  return devplug_gelu_attrs_t{sizeof(devplug_gelu_attrs_t),
                              approximate == "tanh" ? DEVPLUG_GELU_TANH : DEVPLUG_GELU_NONE};
}

at::Tensor& gelu_out(const at::Tensor& self, std::string_view approximate, at::Tensor& out) {
  const devplug_gelu_attrs_t attrs = gelu_attrs(approximate);
  return unary_composite(DEVPLUG_OP_gelu, self, out, &attrs);
}
at::Tensor gelu(const at::Tensor& self, std::string_view approximate) {
  at::Tensor out = at::empty_like(self);
  return gelu_out(self, approximate, out);
}
at::Tensor& gelu_(at::Tensor& self, std::string_view approximate) {
  return gelu_out(self, approximate, self);
}

at::Tensor& gelu_backward_out(const at::Tensor& grad, const at::Tensor& self, std::string_view approximate,
                              at::Tensor& grad_input) {
  const devplug_gelu_attrs_t attrs = gelu_attrs(approximate);
  return backward_composite(DEVPLUG_OP_gelu_backward, grad, self, grad_input, &attrs);
}
at::Tensor gelu_backward(const at::Tensor& grad, const at::Tensor& self, std::string_view approximate) {
  at::Tensor out = at::empty_like(self);
  return gelu_backward_out(grad, self, approximate, out);
}

// ---- sigmoid, silu, tanh, softplus ------------------------------------------------------------

// sigmoid of an integer tensor is a float tensor (torch's unary float ops).
at::Tensor& sigmoid_into(const at::Tensor& self, at::Tensor& out) {
  if (c10::isFloatingType(self.scalar_type()) || !c10::isFloatingType(out.scalar_type()))
    return unary_composite(DEVPLUG_OP_sigmoid, self, out);
  return unary_composite(DEVPLUG_OP_sigmoid, self.to(out.scalar_type()), out);
}
at::Tensor sigmoid(const at::Tensor& self) {
  at::Tensor out =
      at::empty_like(self, self.options().dtype(unary_result(UnaryKind::floating, self.scalar_type())));
  return sigmoid_into(self, out);
}
at::Tensor& sigmoid_(at::Tensor& self) { return sigmoid_into(self, self); }

at::Tensor& silu_backward_out(const at::Tensor& grad, const at::Tensor& self, at::Tensor& grad_input) {
  return backward_composite(DEVPLUG_OP_silu_backward, grad, self, grad_input);
}
at::Tensor silu_backward(const at::Tensor& grad, const at::Tensor& self) {
  at::Tensor out = at::empty_like(self);
  return silu_backward_out(grad, self, out);
}

at::Tensor& sigmoid_backward_out(const at::Tensor& grad, const at::Tensor& output, at::Tensor& grad_input) {
  return backward_composite(DEVPLUG_OP_sigmoid_backward, grad, output, grad_input);
}
at::Tensor sigmoid_backward(const at::Tensor& grad, const at::Tensor& output) {
  at::Tensor out = at::empty_like(output);
  return sigmoid_backward_out(grad, output, out);
}

// tanh: g * (1 - y * y) (devplug has no tanh_backward composite).
at::Tensor& tanh_backward_out(const at::Tensor& grad, const at::Tensor& output, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &output, &grad_input});
  prepare_out(grad_input, output.sizes());
  if (output.numel() == 0) return grad_input;
  const devplug_dtype_t c = opmath(view_of(output).dtype());
  DTensor y = dev.cast(view_of(output), c), g = dev.cast(view_of(grad), c);
  DTensor one = dev.scalar(c, 1);
  store(dev, dev.ew(DEVPLUG_OP_mul, {g, dev.ew(DEVPLUG_OP_sub, {one, dev.ew(DEVPLUG_OP_mul, {y, y})})}),
        grad_input);
  return grad_input;
}
at::Tensor tanh_backward(const at::Tensor& grad, const at::Tensor& output) {
  at::Tensor out = at::empty_like(output);
  return tanh_backward_out(grad, output, out);
}

// x * beta > threshold ? x : log1p(exp(x * beta)) / beta
at::Tensor& softplus_out(const at::Tensor& self, const at::Scalar& beta, const at::Scalar& threshold,
                         at::Tensor& out) {
  devplug_softplus_attrs_t attrs{sizeof(attrs), beta.toDouble(), threshold.toDouble()};
  return unary_composite(DEVPLUG_OP_softplus, self, out, &attrs);
}
at::Tensor softplus(const at::Tensor& self, const at::Scalar& beta, const at::Scalar& threshold) {
  at::Tensor out = at::empty_like(self);
  return softplus_out(self, beta, threshold, out);
}
at::Tensor& softplus_backward_out(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& beta,
                                  const at::Scalar& threshold, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &self, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  const devplug_dtype_t c = opmath(view_of(self).dtype());
  DTensor x = dev.cast(view_of(self), c), g = dev.cast(view_of(grad), c);
  DTensor xb = dev.ew(DEVPLUG_OP_mul, {x, dev.scalar(c, beta)});
  DTensor z = dev.ew(DEVPLUG_OP_exp, {xb});
  DTensor soft =
      dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {g, z}), dev.ew(DEVPLUG_OP_add, {z, dev.scalar(c, 1)})});
  DTensor above = dev.ew(DEVPLUG_OP_gt, {xb, dev.scalar(c, threshold)});
  store(dev, dev.ew(DEVPLUG_OP_where, {above, g, soft}), grad_input);
  return grad_input;
}
at::Tensor softplus_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& beta,
                             const at::Scalar& threshold) {
  at::Tensor out = at::empty_like(self);
  return softplus_backward_out(grad, self, beta, threshold, out);
}

// elu (and celu, selu through it): x * scale where x > 0, else expm1(x * input_scale) * alpha *
// scale; the backward from the input, or from the result (is_result: selu's and celu's), with
// torch's CPU formulas, in opmath.
at::Tensor& elu_out(const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale,
                    const at::Scalar& input_scale, at::Tensor& out) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), "\"elu_cpu\" not implemented for '",
              self.scalar_type(), "'");
  Dev dev = Dev::of({&self, &out});
  check_can_cast(self.scalar_type(), out);
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  const devplug_dtype_t c = opmath(view_of(self).dtype());
  DTensor x = dev.cast(view_of(self), c);
  DTensor neg = dev.ew(DEVPLUG_OP_mul,
                       {dev.ew(DEVPLUG_OP_expm1, {dev.ew(DEVPLUG_OP_mul, {x, dev.scalar(c, input_scale)})}),
                        dev.scalar(c, alpha.toDouble() * scale.toDouble())});
  DTensor pos = dev.ew(DEVPLUG_OP_mul, {x, dev.scalar(c, scale)});
  store(dev, dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_le, {x, dev.scalar(c, 0)}), neg, pos}), out);
  return out;
}
at::Tensor elu(const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale,
               const at::Scalar& input_scale) {
  at::Tensor out = empty_like_torch(self, self.scalar_type());
  return elu_out(self, alpha, scale, input_scale, out);
}
at::Tensor& elu_(at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale,
                 const at::Scalar& input_scale) {
  return elu_out(self, alpha, scale, input_scale, self);
}
at::Tensor& elu_backward_out(const at::Tensor& grad, const at::Scalar& alpha, const at::Scalar& scale,
                             const at::Scalar& input_scale, bool is_result, const at::Tensor& self_or_result,
                             at::Tensor& grad_input) {
  TORCH_CHECK(!is_result || alpha.toDouble() >= 0.0,
              "In-place elu backward calculation is triggered with a negative slope which is not supported. "
              "This is caused by calling in-place forward function with a negative slope, please call "
              "out-of-place version instead.");
  Dev dev = Dev::of({&grad, &self_or_result, &grad_input});
  prepare_out(grad_input, at::infer_size(grad.sizes(), self_or_result.sizes()));
  if (grad_input.numel() == 0) return grad_input;
  const devplug_dtype_t c = opmath(view_of(self_or_result).dtype());
  DTensor g = dev.cast(view_of(grad), c), b = dev.cast(view_of(self_or_result), c);
  const double negcoef = alpha.toDouble() * scale.toDouble();
  DTensor scaled = dev.ew(DEVPLUG_OP_mul, {g, dev.scalar(c, input_scale)});
  DTensor neg =
      is_result ? dev.ew(DEVPLUG_OP_mul, {scaled, dev.ew(DEVPLUG_OP_add, {b, dev.scalar(c, negcoef)})})
                : dev.ew(DEVPLUG_OP_mul,
                         {dev.ew(DEVPLUG_OP_mul, {scaled, dev.scalar(c, negcoef)}),
                          dev.ew(DEVPLUG_OP_exp, {dev.ew(DEVPLUG_OP_mul, {b, dev.scalar(c, input_scale)})})});
  DTensor pos = dev.ew(DEVPLUG_OP_mul, {g, dev.scalar(c, scale)});
  store(dev, dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_le, {b, dev.scalar(c, 0)}), neg, pos}), grad_input);
  return grad_input;
}
at::Tensor elu_backward(const at::Tensor& grad, const at::Scalar& alpha, const at::Scalar& scale,
                        const at::Scalar& input_scale, bool is_result, const at::Tensor& self_or_result) {
  at::Tensor out = empty_like_torch(self_or_result, self_or_result.scalar_type());
  return elu_backward_out(grad, alpha, scale, input_scale, is_result, self_or_result, out);
}

// exp(-|x|), what log_sigmoid and its backward are written in.
DTensor exp_neg_abs(const Dev& dev, const DTensor& x) {
  return dev.ew(DEVPLUG_OP_exp, {dev.ew(DEVPLUG_OP_neg, {dev.ew(DEVPLUG_OP_abs, {x})})});
}

// log_sigmoid: min(x, 0) - log1p(exp(-|x|)); the buffer holds exp(-|x|), as torch's CPU
// fills it. The backward recomputes it from x (a buffer may be empty, as CUDA's is).
std::tuple<at::Tensor&, at::Tensor&> log_sigmoid_forward_out(const at::Tensor& self, at::Tensor& output,
                                                             at::Tensor& buffer) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), "\"log_sigmoid_forward_cpu\" not implemented for '",
              self.scalar_type(), "'");
  Dev dev = Dev::of({&self, &output, &buffer});
  prepare_out(output, self.sizes());
  prepare_out(buffer, self.sizes());
  if (self.numel() == 0) return {output, buffer};
  const devplug_dtype_t c = opmath(view_of(self).dtype());
  DTensor x = dev.cast(view_of(self), c);
  DTensor z = exp_neg_abs(dev, x);
  DTensor low = dev.ew(DEVPLUG_OP_minimum, {x, dev.scalar(c, 0)});
  store(dev, dev.ew(DEVPLUG_OP_sub, {low, dev.ew(DEVPLUG_OP_log1p, {z})}), output);
  store(dev, z, buffer);
  return {output, buffer};
}
std::tuple<at::Tensor, at::Tensor> log_sigmoid_forward(const at::Tensor& self) {
  at::Tensor output = empty_like_torch(self, self.scalar_type());
  at::Tensor buffer = empty_like_torch(self, self.scalar_type());
  log_sigmoid_forward_out(self, output, buffer);
  return {output, buffer};
}
// torch's CPU: (x < 0 ? 1 - z / (1 + z) : z / (1 + z)) * grad.
at::Tensor& log_sigmoid_backward_out(const at::Tensor& grad, const at::Tensor& self,
                                     const at::Tensor& /*buffer*/, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &self, &grad_input});
  prepare_out(grad_input, at::infer_size(grad.sizes(), self.sizes()));
  if (grad_input.numel() == 0) return grad_input;
  const devplug_dtype_t c = opmath(view_of(self).dtype());
  DTensor x = dev.cast(view_of(self), c), g = dev.cast(view_of(grad), c);
  DTensor z = exp_neg_abs(dev, x);
  DTensor ratio = dev.ew(DEVPLUG_OP_div, {z, dev.ew(DEVPLUG_OP_add, {z, dev.scalar(c, 1)})});
  DTensor negative = dev.ew(DEVPLUG_OP_lt, {x, dev.scalar(c, 0)});
  DTensor slope =
      dev.ew(DEVPLUG_OP_where, {negative, dev.ew(DEVPLUG_OP_sub, {dev.scalar(c, 1), ratio}), ratio});
  store(dev, dev.ew(DEVPLUG_OP_mul, {slope, g}), grad_input);
  return grad_input;
}
at::Tensor log_sigmoid_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& buffer) {
  at::Tensor out = empty_like_torch(self, self.scalar_type());
  return log_sigmoid_backward_out(grad, self, buffer, out);
}

// hardtanh: clamp to [min_val, max_val] in self's dtype; backward passes the gradient
// strictly inside. As torch's hardtanh_out, the bounds of an integer tensor are truncated to
// integers, so they do not promote it to float as clamp's would (relu6 of int64 is int64).
at::Tensor& hardtanh_out(const at::Tensor& self, const at::Scalar& lo, const at::Scalar& hi,
                         at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Bool inputs not supported for hardtanh");
  if (!c10::isIntegralType(self.scalar_type(), /*includeBool=*/false))
    return at::clamp_out(out, self, lo, hi);
  const int64_t low = lo.toLong(), high = hi.toLong();
  TORCH_CHECK(self.scalar_type() != at::kByte || (low >= 0 && high >= 0),
              "cannot do hardtanh on an unsigned type with negative limits");
  return at::clamp_out(out, self, low, high);
}
at::Tensor hardtanh(const at::Tensor& self, const at::Scalar& lo, const at::Scalar& hi) {
  at::Tensor out = at::empty_like(self);
  return hardtanh_out(self, lo, hi, out);
}
at::Tensor& hardtanh_(at::Tensor& self, const at::Scalar& lo, const at::Scalar& hi) {
  return hardtanh_out(self, lo, hi, self);
}
at::Tensor& hardtanh_backward_out(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& lo,
                                  const at::Scalar& hi, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &self, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  DTensor x = view_of(self), g = view_of(grad);
  DTensor outside = dev.ew(DEVPLUG_OP_bitwise_or, {dev.ew(DEVPLUG_OP_le, {x, dev.scalar(x.dtype(), lo)}),
                                                   dev.ew(DEVPLUG_OP_ge, {x, dev.scalar(x.dtype(), hi)})});
  dev.ew_into(DEVPLUG_OP_where, {outside, dev.scalar(g.dtype(), 0), g}, view_of(grad_input));
  return grad_input;
}
at::Tensor hardtanh_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& lo,
                             const at::Scalar& hi) {
  at::Tensor out = at::empty_like(grad);
  return hardtanh_backward_out(grad, self, lo, hi, out);
}

// ---- softmax and log_softmax -------------------------------------------------------------------

// A softmax's tensor and its attrs: 0-dim tensors as 1-element vectors.
struct SoftmaxInput {
  DTensor x;
  devplug_dim_attrs_t attrs;
};
SoftmaxInput softmax_input(const DTensor& x, int64_t dim) {
  if (x.rank() == 0) {
    c10::maybe_wrap_dim(dim, 0);
    return {x.reshape({1}), dim_attrs(0)};
  }
  return {x, dim_attrs(c10::maybe_wrap_dim(dim, x.rank()))};
}

// The softmax or log_softmax composite; half_to_float computes a float16 input as float32.
template <bool Log>
at::Tensor& softmax_out(const at::Tensor& self, int64_t dim, bool half_to_float, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  TORCH_CHECK(!half_to_float || self.scalar_type() == at::kHalf,
              "conversion is supported for Half type only");
  fallback_unless_allowed(Log ? DEVPLUG_OP_log_softmax : DEVPLUG_OP_softmax, self.scalar_type());
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  SoftmaxInput in = softmax_input(view_of(self), dim);
  DTensor x = half_to_float ? dev.cast(in.x, DEVPLUG_DTYPE_FLOAT32) : in.x;
  dev.composite_into(Log ? DEVPLUG_OP_log_softmax : DEVPLUG_OP_softmax, {x}, view_of(out).reshape(x.shape()),
                     &in.attrs);
  return out;
}
template <bool Log>
at::Tensor softmax(const at::Tensor& self, int64_t dim, bool half_to_float) {
  at::Tensor out = at::empty_like(self, self.options().dtype(half_to_float ? at::kFloat : self.scalar_type()),
                                  at::MemoryFormat::Contiguous);
  return softmax_out<Log>(self, dim, half_to_float, out);
}

// The softmax_backward or log_softmax_backward composite of (grad, output), into a
// gradient of the forward input's dtype.
template <bool Log>
at::Tensor& softmax_backward_out(const at::Tensor& grad, const at::Tensor& output, int64_t dim,
                                 at::ScalarType /*input_dtype*/, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &output, &grad_input});
  prepare_out(grad_input, output.sizes());
  if (output.numel() == 0) return grad_input;
  SoftmaxInput y = softmax_input(view_of(output), dim);
  DTensor g = dev.cast(softmax_input(view_of(grad), dim).x, y.x.dtype());
  dev.composite_into(Log ? DEVPLUG_OP_log_softmax_backward : DEVPLUG_OP_softmax_backward, {g, y.x},
                     view_of(grad_input).reshape(y.x.shape()), &y.attrs);
  return grad_input;
}
template <bool Log>
at::Tensor softmax_backward(const at::Tensor& grad, const at::Tensor& output, int64_t dim,
                            at::ScalarType input_dtype) {
  at::Tensor out = at::empty_like(output, output.options().dtype(input_dtype), at::MemoryFormat::Contiguous);
  return softmax_backward_out<Log>(grad, output, dim, input_dtype, out);
}

}  // namespace

void register_activation_ops(Table& t) {
  const auto C = Impl::composite, B = Impl::bridge;
  t.add("relu", C, "relu", DEVPLUG_KERNEL(act<DEVPLUG_OP_relu>));
  t.add("relu_", C, "relu", DEVPLUG_KERNEL(act_<DEVPLUG_OP_relu>));
  t.add("threshold", B, "le, where", DEVPLUG_KERNEL(threshold));
  t.add("threshold_", B, "le, where", DEVPLUG_KERNEL(threshold_));
  t.add("threshold.out", B, "le, where", DEVPLUG_KERNEL(threshold_out));
  t.add("threshold_backward", C, "relu_backward (threshold 0); else le, where",
        DEVPLUG_KERNEL(threshold_backward));
  t.add("threshold_backward.grad_input", C, "relu_backward (threshold 0); else le, where",
        DEVPLUG_KERNEL(threshold_backward_out));
  t.add("leaky_relu", C, "leaky_relu", DEVPLUG_KERNEL(leaky_relu));
  t.add("leaky_relu_", C, "leaky_relu", DEVPLUG_KERNEL(leaky_relu_));
  t.add("leaky_relu.out", C, "leaky_relu", DEVPLUG_KERNEL(leaky_relu_out));
  t.add("leaky_relu_backward", B, "gt, mul, where", DEVPLUG_KERNEL(leaky_relu_backward));
  t.add("leaky_relu_backward.grad_input", B, "gt, mul, where", DEVPLUG_KERNEL(leaky_relu_backward_out));
  t.add("gelu", C, "gelu", DEVPLUG_KERNEL(gelu));
  t.add("gelu_", C, "gelu", DEVPLUG_KERNEL(gelu_));
  t.add("gelu.out", C, "gelu", DEVPLUG_KERNEL(gelu_out));
  t.add("gelu_backward", C, "gelu_backward", DEVPLUG_KERNEL(gelu_backward));
  t.add("gelu_backward.grad_input", C, "gelu_backward", DEVPLUG_KERNEL(gelu_backward_out));
  t.add("sigmoid", C, "sigmoid", DEVPLUG_KERNEL(sigmoid));
  t.add("sigmoid_", C, "sigmoid", DEVPLUG_KERNEL(sigmoid_));
  t.add("sigmoid.out", C, "sigmoid", DEVPLUG_KERNEL(sigmoid_into));
  t.add("sigmoid_backward", C, "sigmoid_backward", DEVPLUG_KERNEL(sigmoid_backward));
  t.add("sigmoid_backward.grad_input", C, "sigmoid_backward", DEVPLUG_KERNEL(sigmoid_backward_out));
  t.add("tanh_backward", B, "mul, sub", DEVPLUG_KERNEL(tanh_backward));
  t.add("tanh_backward.grad_input", B, "mul, sub", DEVPLUG_KERNEL(tanh_backward_out));
  t.add("silu", C, "silu", DEVPLUG_KERNEL(act<DEVPLUG_OP_silu>));
  t.add("silu_", C, "silu", DEVPLUG_KERNEL(act_<DEVPLUG_OP_silu>));
  t.add("silu.out", C, "silu", DEVPLUG_KERNEL(act_out<DEVPLUG_OP_silu>));
  t.add("silu_backward", C, "silu_backward", DEVPLUG_KERNEL(silu_backward));
  t.add("silu_backward.grad_input", C, "silu_backward", DEVPLUG_KERNEL(silu_backward_out));
  t.add("softplus", C, "softplus", DEVPLUG_KERNEL(softplus));
  t.add("softplus.out", C, "softplus", DEVPLUG_KERNEL(softplus_out));
  t.add("softplus_backward", B, "mul, exp, add, div, gt, where", DEVPLUG_KERNEL(softplus_backward));
  t.add("softplus_backward.grad_input", B, "mul, exp, add, div, gt, where",
        DEVPLUG_KERNEL(softplus_backward_out));
  t.add("elu", B, "mul, expm1, le, where", DEVPLUG_KERNEL(elu));
  t.add("elu_", B, "mul, expm1, le, where", DEVPLUG_KERNEL(elu_));
  t.add("elu.out", B, "mul, expm1, le, where", DEVPLUG_KERNEL(elu_out));
  t.add("elu_backward", B, "mul, add, exp, le, where", DEVPLUG_KERNEL(elu_backward));
  t.add("elu_backward.grad_input", B, "mul, add, exp, le, where", DEVPLUG_KERNEL(elu_backward_out));
  t.add("log_sigmoid_forward", B, "abs, neg, exp, minimum, log1p, sub", DEVPLUG_KERNEL(log_sigmoid_forward));
  t.add("log_sigmoid_forward.output", B, "abs, neg, exp, minimum, log1p, sub",
        DEVPLUG_KERNEL(log_sigmoid_forward_out));
  t.add("log_sigmoid_backward", B, "abs, neg, exp, add, div, sub, lt, where, mul",
        DEVPLUG_KERNEL(log_sigmoid_backward));
  t.add("log_sigmoid_backward.grad_input", B, "abs, neg, exp, add, div, sub, lt, where, mul",
        DEVPLUG_KERNEL(log_sigmoid_backward_out));
  t.add("hardtanh", C, "clamp", DEVPLUG_KERNEL(hardtanh));
  t.add("hardtanh_", C, "clamp", DEVPLUG_KERNEL(hardtanh_));
  t.add("hardtanh.out", C, "clamp", DEVPLUG_KERNEL(hardtanh_out));
  t.add("hardtanh_backward", B, "le, ge, bitwise_or, where", DEVPLUG_KERNEL(hardtanh_backward));
  t.add("hardtanh_backward.grad_input", B, "le, ge, bitwise_or, where",
        DEVPLUG_KERNEL(hardtanh_backward_out));
  t.add("_softmax", C, "softmax", DEVPLUG_KERNEL(softmax<false>));
  t.add("_softmax.out", C, "softmax", DEVPLUG_KERNEL(softmax_out<false>));
  t.add("_softmax_backward_data", C, "softmax_backward", DEVPLUG_KERNEL(softmax_backward<false>));
  t.add("_softmax_backward_data.out", C, "softmax_backward", DEVPLUG_KERNEL(softmax_backward_out<false>));
  t.add("_log_softmax", C, "log_softmax", DEVPLUG_KERNEL(softmax<true>));
  t.add("_log_softmax.out", C, "log_softmax", DEVPLUG_KERNEL(softmax_out<true>));
  t.add("_log_softmax_backward_data", C, "log_softmax_backward", DEVPLUG_KERNEL(softmax_backward<true>));
  t.add("_log_softmax_backward_data.out", C, "log_softmax_backward",
        DEVPLUG_KERNEL(softmax_backward_out<true>));
}

}  // namespace devplug::bridge
