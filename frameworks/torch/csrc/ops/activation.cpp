// Activations, softmax and their backward ops, composed in the bridge from devplug's
// elementwise and reduce prims in the same order of operations as torch's CPU kernels.
// devplug defines composites for several of them (relu, gelu, silu, sigmoid, softplus,
// softmax, log_softmax); a row switches to the composite when devplug has it (ops.hpp).
#include <ATen/Functions.h>
#include <ATen/native/Resize.h>

#include <cmath>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// The dtype activations compute in: float32 for the 16-bit floats (torch's opmath type).
devplug_dtype_t opmath(devplug_dtype_t d) {
  return d == DEVPLUG_DTYPE_FLOAT16 || d == DEVPLUG_DTYPE_BFLOAT16 ? DEVPLUG_DTYPE_FLOAT32 : d;
}

// Writes `value` (any dtype, out's shape) into torch tensor `out`.
void store(const Dev& dev, const DTensor& value, const at::Tensor& out) {
  DTensor target = view_of(out);
  dev.copy(dev.cast(value.expand(target.shape()), target.dtype()), target);
}

// Wrappers that give one activation f(x) its functional, in-place and out= kernels.
using Unary = DTensor (*)(const Dev&, const DTensor&);
template <Unary F>
at::Tensor& act_out(const at::Tensor& self, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  store(dev, F(dev, view_of(self)), out);
  return out;
}
template <Unary F>
at::Tensor act(const at::Tensor& self) {
  at::Tensor out = at::empty_like(self);
  return act_out<F>(self, out);
}
template <Unary F>
at::Tensor& act_(at::Tensor& self) {
  return act_out<F>(self, self);
}

// ---- relu, threshold, leaky_relu ------------------------------------------------------------

DTensor relu_of(const Dev& dev, const DTensor& x) { return dev.ew(DEVPLUG_OP_maximum, {x, dev.scalar(x.dtype(), 0)}); }

at::Tensor& threshold_out(const at::Tensor& self, const at::Scalar& threshold, const at::Scalar& value, at::Tensor& out) {
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

at::Tensor& threshold_backward_out(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& threshold,
                                   at::Tensor& grad_input) {
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
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  DTensor x = view_of(self);
  DTensor positive = dev.ew(DEVPLUG_OP_gt, {x, dev.scalar(x.dtype(), 0)});
  DTensor scaled = dev.ew(DEVPLUG_OP_mul, {x, dev.scalar(x.dtype(), slope)});
  dev.ew_into(DEVPLUG_OP_where, {positive, x, scaled}, view_of(out));
  return out;
}
at::Tensor leaky_relu(const at::Tensor& self, const at::Scalar& slope) {
  at::Tensor out = at::empty_like(self);
  return leaky_relu_out(self, slope, out);
}
at::Tensor& leaky_relu_(at::Tensor& self, const at::Scalar& slope) { return leaky_relu_out(self, slope, self); }
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

// ---- gelu -------------------------------------------------------------------------------------

constexpr double kSqrtHalf = 0.70710678118654752440;           // M_SQRT1_2
constexpr double kGeluPdf = 1.12837916709551257390 * kSqrtHalf * 0.5;  // M_2_SQRTPI * M_SQRT1_2 * 0.5
constexpr double kTanhBeta = 1.41421356237309504880 * 1.12837916709551257390 * 0.5;  // M_SQRT2 * M_2_SQRTPI / 2
constexpr double kTanhKappa = 0.044715;

bool tanh_mode(std::string_view approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
  return approximate == "tanh";
}

// x * 0.5 * (1 + erf(x / sqrt 2)), or the tanh form.
DTensor gelu_of(const Dev& dev, const DTensor& in, bool tanh_form) {
  const devplug_dtype_t c = opmath(in.dtype());
  DTensor x = dev.cast(in, c);
  auto k = [&](double v) { return dev.scalar(c, v); };
  DTensor half_x = dev.ew(DEVPLUG_OP_mul, {x, k(0.5)});
  if (!tanh_form) {
    DTensor e = dev.ew(DEVPLUG_OP_erf, {dev.ew(DEVPLUG_OP_mul, {x, k(kSqrtHalf)})});
    return dev.ew(DEVPLUG_OP_mul, {half_x, dev.ew(DEVPLUG_OP_add, {k(1), e})});
  }
  DTensor cube = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_mul, {x, x}), x});
  DTensor inner = dev.ew(DEVPLUG_OP_mul, {k(kTanhBeta), dev.ew(DEVPLUG_OP_add, {x, dev.ew(DEVPLUG_OP_mul, {k(kTanhKappa), cube})})});
  return dev.ew(DEVPLUG_OP_mul, {half_x, dev.ew(DEVPLUG_OP_add, {k(1), dev.ew(DEVPLUG_OP_tanh, {inner})})});
}

at::Tensor& gelu_out(const at::Tensor& self, std::string_view approximate, at::Tensor& out) {
  const bool tanh_form = tanh_mode(approximate);
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() > 0) store(dev, gelu_of(dev, view_of(self), tanh_form), out);
  return out;
}
at::Tensor gelu(const at::Tensor& self, std::string_view approximate) {
  at::Tensor out = at::empty_like(self);
  return gelu_out(self, approximate, out);
}
at::Tensor& gelu_(at::Tensor& self, std::string_view approximate) { return gelu_out(self, approximate, self); }

at::Tensor& gelu_backward_out(const at::Tensor& grad, const at::Tensor& self, std::string_view approximate,
                              at::Tensor& grad_input) {
  const bool tanh_form = tanh_mode(approximate);
  Dev dev = Dev::of({&grad, &self, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  const devplug_dtype_t c = opmath(view_of(self).dtype());
  DTensor x = dev.cast(view_of(self), c), g = dev.cast(view_of(grad), c);
  auto k = [&](double v) { return dev.scalar(c, v); };
  auto mul = [&](const DTensor& a, const DTensor& b) { return dev.ew(DEVPLUG_OP_mul, {a, b}); };
  auto add = [&](const DTensor& a, const DTensor& b) { return dev.ew(DEVPLUG_OP_add, {a, b}); };
  DTensor result = [&] {
    if (!tanh_form) {
      DTensor cdf = mul(k(0.5), add(k(1), dev.ew(DEVPLUG_OP_erf, {mul(x, k(kSqrtHalf))})));
      DTensor pdf = mul(dev.ew(DEVPLUG_OP_exp, {mul(mul(k(-0.5), x), x)}), k(kGeluPdf));
      return mul(g, add(cdf, mul(x, pdf)));
    }
    DTensor x_sq = mul(x, x);
    DTensor x_cube = mul(x_sq, x);
    DTensor inner = mul(k(kTanhBeta), add(x, mul(k(kTanhKappa), x_cube)));
    DTensor t = dev.ew(DEVPLUG_OP_tanh, {inner});
    DTensor left = mul(k(0.5), x);
    DTensor right = add(k(1), t);
    DTensor left_derivative = mul(k(0.5), right);
    DTensor tanh_derivative = dev.ew(DEVPLUG_OP_sub, {k(1), mul(t, t)});
    DTensor inner_derivative = mul(k(kTanhBeta), add(k(1), mul(k(3 * kTanhKappa), x_sq)));
    DTensor right_derivative = mul(mul(left, tanh_derivative), inner_derivative);
    return mul(g, add(left_derivative, right_derivative));
  }();
  store(dev, result, grad_input);
  return grad_input;
}
at::Tensor gelu_backward(const at::Tensor& grad, const at::Tensor& self, std::string_view approximate) {
  at::Tensor out = at::empty_like(self);
  return gelu_backward_out(grad, self, approximate, out);
}

// ---- sigmoid, silu, tanh, softplus ------------------------------------------------------------

// 1 / (1 + exp(-x)).
DTensor sigmoid_of(const Dev& dev, const DTensor& in) {
  const devplug_dtype_t c = opmath(in.dtype());
  DTensor x = dev.cast(in, c);
  DTensor e = dev.ew(DEVPLUG_OP_exp, {dev.ew(DEVPLUG_OP_neg, {x})});
  return dev.ew(DEVPLUG_OP_div, {dev.scalar(c, 1), dev.ew(DEVPLUG_OP_add, {dev.scalar(c, 1), e})});
}
// x / (1 + exp(-x)).
DTensor silu_of(const Dev& dev, const DTensor& in) {
  const devplug_dtype_t c = opmath(in.dtype());
  DTensor x = dev.cast(in, c);
  DTensor e = dev.ew(DEVPLUG_OP_exp, {dev.ew(DEVPLUG_OP_neg, {x})});
  return dev.ew(DEVPLUG_OP_div, {x, dev.ew(DEVPLUG_OP_add, {dev.scalar(c, 1), e})});
}
DTensor relu_act(const Dev& dev, const DTensor& x) { return relu_of(dev, x); }

at::Tensor& silu_backward_out(const at::Tensor& grad, const at::Tensor& self, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &self, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  const devplug_dtype_t c = opmath(view_of(self).dtype());
  DTensor x = dev.cast(view_of(self), c), g = dev.cast(view_of(grad), c);
  DTensor s = sigmoid_of(dev, x);
  DTensor one = dev.scalar(c, 1);
  // g * s * (1 + x * (1 - s))
  DTensor factor = dev.ew(DEVPLUG_OP_add, {one, dev.ew(DEVPLUG_OP_mul, {x, dev.ew(DEVPLUG_OP_sub, {one, s})})});
  store(dev, dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_mul, {g, s}), factor}), grad_input);
  return grad_input;
}
at::Tensor silu_backward(const at::Tensor& grad, const at::Tensor& self) {
  at::Tensor out = at::empty_like(self);
  return silu_backward_out(grad, self, out);
}

// sigmoid: g * (1 - y) * y; tanh: g * (1 - y * y).
template <bool Tanh>
at::Tensor& output_backward_out(const at::Tensor& grad, const at::Tensor& output, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &output, &grad_input});
  prepare_out(grad_input, output.sizes());
  if (output.numel() == 0) return grad_input;
  const devplug_dtype_t c = opmath(view_of(output).dtype());
  DTensor y = dev.cast(view_of(output), c), g = dev.cast(view_of(grad), c);
  DTensor one = dev.scalar(c, 1);
  DTensor result = Tanh ? dev.ew(DEVPLUG_OP_mul, {g, dev.ew(DEVPLUG_OP_sub, {one, dev.ew(DEVPLUG_OP_mul, {y, y})})})
                        : dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_mul, {g, dev.ew(DEVPLUG_OP_sub, {one, y})}), y});
  store(dev, result, grad_input);
  return grad_input;
}
template <bool Tanh>
at::Tensor output_backward(const at::Tensor& grad, const at::Tensor& output) {
  at::Tensor out = at::empty_like(output);
  return output_backward_out<Tanh>(grad, output, out);
}

// x * beta > threshold ? x : log1p(exp(x * beta)) / beta
at::Tensor& softplus_out(const at::Tensor& self, const at::Scalar& beta, const at::Scalar& threshold, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  const devplug_dtype_t c = opmath(view_of(self).dtype());
  DTensor x = dev.cast(view_of(self), c);
  DTensor xb = dev.ew(DEVPLUG_OP_mul, {x, dev.scalar(c, beta)});
  DTensor soft = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_log1p, {dev.ew(DEVPLUG_OP_exp, {xb})}), dev.scalar(c, beta)});
  DTensor above = dev.ew(DEVPLUG_OP_gt, {xb, dev.scalar(c, threshold)});
  store(dev, dev.ew(DEVPLUG_OP_where, {above, x, soft}), out);
  return out;
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
  DTensor soft = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {g, z}), dev.ew(DEVPLUG_OP_add, {z, dev.scalar(c, 1)})});
  DTensor above = dev.ew(DEVPLUG_OP_gt, {xb, dev.scalar(c, threshold)});
  store(dev, dev.ew(DEVPLUG_OP_where, {above, g, soft}), grad_input);
  return grad_input;
}
at::Tensor softplus_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& beta,
                             const at::Scalar& threshold) {
  at::Tensor out = at::empty_like(self);
  return softplus_backward_out(grad, self, beta, threshold, out);
}

// hardtanh: clamp to [min_val, max_val]; backward passes the gradient strictly inside.
at::Tensor& hardtanh_out(const at::Tensor& self, const at::Scalar& lo, const at::Scalar& hi, at::Tensor& out) {
  return at::clamp_out(out, self, lo, hi);
}
at::Tensor hardtanh(const at::Tensor& self, const at::Scalar& lo, const at::Scalar& hi) { return at::clamp(self, lo, hi); }
at::Tensor& hardtanh_(at::Tensor& self, const at::Scalar& lo, const at::Scalar& hi) { return at::clamp_(self, lo, hi); }
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
at::Tensor hardtanh_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& lo, const at::Scalar& hi) {
  at::Tensor out = at::empty_like(grad);
  return hardtanh_backward_out(grad, self, lo, hi, out);
}

// ---- softmax and log_softmax -------------------------------------------------------------------

// The reduction dim of a softmax over `dim` of `x`, with 0-dim inputs as 1-element vectors.
struct SoftmaxInput {
  DTensor x;
  uint32_t mask;
};
SoftmaxInput softmax_input(const DTensor& x, int64_t dim) {
  if (x.rank() == 0) {
    c10::maybe_wrap_dim(dim, 0);
    return {x.reshape({1}), 1u};
  }
  return {x, 1u << c10::maybe_wrap_dim(dim, x.rank())};
}

// softmax: e / sum(e) with e = exp(x - max); log_softmax: (x - max) - log(sum(e)).
template <bool Log>
at::Tensor& softmax_out(const at::Tensor& self, int64_t dim, bool half_to_float, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  TORCH_CHECK(!half_to_float || self.scalar_type() == at::kHalf,
              "conversion is supported for Half type only");
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  SoftmaxInput in = softmax_input(view_of(self), dim);
  const devplug_dtype_t c = opmath(in.x.dtype());
  DTensor x = dev.cast(in.x, c);
  DTensor shifted = dev.ew(DEVPLUG_OP_sub, {x, dev.reduce(DEVPLUG_OP_amax, x, in.mask)});
  DTensor e = dev.ew(DEVPLUG_OP_exp, {shifted});
  DTensor s = dev.reduce(DEVPLUG_OP_sum, e, in.mask);
  DTensor y = Log ? dev.ew(DEVPLUG_OP_sub, {shifted, dev.ew(DEVPLUG_OP_log, {s})}) : dev.ew(DEVPLUG_OP_div, {e, s});
  DTensor target = view_of(out);
  dev.copy(dev.cast(y, target.dtype()).reshape(target.shape()), target);
  return out;
}
template <bool Log>
at::Tensor softmax(const at::Tensor& self, int64_t dim, bool half_to_float) {
  at::Tensor out = at::empty_like(self, self.options().dtype(half_to_float ? at::kFloat : self.scalar_type()),
                                  at::MemoryFormat::Contiguous);
  return softmax_out<Log>(self, dim, half_to_float, out);
}

// softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g).
template <bool Log>
at::Tensor& softmax_backward_out(const at::Tensor& grad, const at::Tensor& output, int64_t dim,
                                 at::ScalarType /*input_dtype*/, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad, &output, &grad_input});
  prepare_out(grad_input, output.sizes());
  if (output.numel() == 0) return grad_input;
  SoftmaxInput y_in = softmax_input(view_of(output), dim);
  SoftmaxInput g_in = softmax_input(view_of(grad), dim);
  const devplug_dtype_t c = opmath(y_in.x.dtype());
  DTensor y = dev.cast(y_in.x, c), g = dev.cast(g_in.x, c);
  DTensor result = [&] {
    if (Log) {
      DTensor s = dev.reduce(DEVPLUG_OP_sum, g, y_in.mask);
      return dev.ew(DEVPLUG_OP_sub, {g, dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_exp, {y}), s})});
    }
    DTensor s = dev.reduce(DEVPLUG_OP_sum, dev.ew(DEVPLUG_OP_mul, {g, y}), y_in.mask);
    return dev.ew(DEVPLUG_OP_mul, {y, dev.ew(DEVPLUG_OP_sub, {g, s})});
  }();
  DTensor target = view_of(grad_input);
  dev.copy(dev.cast(result, target.dtype()).reshape(target.shape()), target);
  return grad_input;
}
template <bool Log>
at::Tensor softmax_backward(const at::Tensor& grad, const at::Tensor& output, int64_t dim, at::ScalarType input_dtype) {
  at::Tensor out = at::empty_like(output, output.options().dtype(input_dtype), at::MemoryFormat::Contiguous);
  return softmax_backward_out<Log>(grad, output, dim, input_dtype, out);
}

}  // namespace

void register_activation_ops(Table& t) {
  t.add("relu", Impl::bridge, "maximum", DEVPLUG_KERNEL(act<relu_act>));
  t.add("relu_", Impl::bridge, "maximum", DEVPLUG_KERNEL(act_<relu_act>));
  t.add("threshold", Impl::bridge, "le, where", DEVPLUG_KERNEL(threshold));
  t.add("threshold_", Impl::bridge, "le, where", DEVPLUG_KERNEL(threshold_));
  t.add("threshold.out", Impl::bridge, "le, where", DEVPLUG_KERNEL(threshold_out));
  t.add("threshold_backward", Impl::bridge, "le, where", DEVPLUG_KERNEL(threshold_backward));
  t.add("threshold_backward.grad_input", Impl::bridge, "le, where", DEVPLUG_KERNEL(threshold_backward_out));
  t.add("leaky_relu", Impl::bridge, "gt, mul, where", DEVPLUG_KERNEL(leaky_relu));
  t.add("leaky_relu_", Impl::bridge, "gt, mul, where", DEVPLUG_KERNEL(leaky_relu_));
  t.add("leaky_relu.out", Impl::bridge, "gt, mul, where", DEVPLUG_KERNEL(leaky_relu_out));
  t.add("leaky_relu_backward", Impl::bridge, "gt, mul, where", DEVPLUG_KERNEL(leaky_relu_backward));
  t.add("leaky_relu_backward.grad_input", Impl::bridge, "gt, mul, where", DEVPLUG_KERNEL(leaky_relu_backward_out));
  t.add("gelu", Impl::bridge, "mul, erf (or tanh), add", DEVPLUG_KERNEL(gelu));
  t.add("gelu_", Impl::bridge, "mul, erf (or tanh), add", DEVPLUG_KERNEL(gelu_));
  t.add("gelu.out", Impl::bridge, "mul, erf (or tanh), add", DEVPLUG_KERNEL(gelu_out));
  t.add("gelu_backward", Impl::bridge, "mul, erf, exp, add (or tanh)", DEVPLUG_KERNEL(gelu_backward));
  t.add("gelu_backward.grad_input", Impl::bridge, "mul, erf, exp, add (or tanh)", DEVPLUG_KERNEL(gelu_backward_out));
  t.add("sigmoid", Impl::bridge, "neg, exp, add, div", DEVPLUG_KERNEL(act<sigmoid_of>));
  t.add("sigmoid_", Impl::bridge, "neg, exp, add, div", DEVPLUG_KERNEL(act_<sigmoid_of>));
  t.add("sigmoid.out", Impl::bridge, "neg, exp, add, div", DEVPLUG_KERNEL(act_out<sigmoid_of>));
  t.add("sigmoid_backward", Impl::bridge, "sub, mul", DEVPLUG_KERNEL(output_backward<false>));
  t.add("sigmoid_backward.grad_input", Impl::bridge, "sub, mul", DEVPLUG_KERNEL(output_backward_out<false>));
  t.add("tanh_backward", Impl::bridge, "mul, sub", DEVPLUG_KERNEL(output_backward<true>));
  t.add("tanh_backward.grad_input", Impl::bridge, "mul, sub", DEVPLUG_KERNEL(output_backward_out<true>));
  t.add("silu", Impl::bridge, "neg, exp, add, div", DEVPLUG_KERNEL(act<silu_of>));
  t.add("silu_", Impl::bridge, "neg, exp, add, div", DEVPLUG_KERNEL(act_<silu_of>));
  t.add("silu.out", Impl::bridge, "neg, exp, add, div", DEVPLUG_KERNEL(act_out<silu_of>));
  t.add("silu_backward", Impl::bridge, "neg, exp, add, div, mul, sub", DEVPLUG_KERNEL(silu_backward));
  t.add("silu_backward.grad_input", Impl::bridge, "neg, exp, add, div, mul, sub", DEVPLUG_KERNEL(silu_backward_out));
  t.add("softplus", Impl::bridge, "mul, exp, log1p, div, gt, where", DEVPLUG_KERNEL(softplus));
  t.add("softplus.out", Impl::bridge, "mul, exp, log1p, div, gt, where", DEVPLUG_KERNEL(softplus_out));
  t.add("softplus_backward", Impl::bridge, "mul, exp, add, div, gt, where", DEVPLUG_KERNEL(softplus_backward));
  t.add("softplus_backward.grad_input", Impl::bridge, "mul, exp, add, div, gt, where",
        DEVPLUG_KERNEL(softplus_backward_out));
  t.add("hardtanh", Impl::prim, "maximum, minimum", DEVPLUG_KERNEL(hardtanh));
  t.add("hardtanh_", Impl::prim, "maximum, minimum", DEVPLUG_KERNEL(hardtanh_));
  t.add("hardtanh.out", Impl::prim, "maximum, minimum", DEVPLUG_KERNEL(hardtanh_out));
  t.add("hardtanh_backward", Impl::bridge, "le, ge, bitwise_or, where", DEVPLUG_KERNEL(hardtanh_backward));
  t.add("hardtanh_backward.grad_input", Impl::bridge, "le, ge, bitwise_or, where", DEVPLUG_KERNEL(hardtanh_backward_out));
  t.add("_softmax", Impl::bridge, "amax, sub, exp, sum, div", DEVPLUG_KERNEL(softmax<false>));
  t.add("_softmax.out", Impl::bridge, "amax, sub, exp, sum, div", DEVPLUG_KERNEL(softmax_out<false>));
  t.add("_softmax_backward_data", Impl::bridge, "mul, sum, sub", DEVPLUG_KERNEL(softmax_backward<false>));
  t.add("_softmax_backward_data.out", Impl::bridge, "mul, sum, sub", DEVPLUG_KERNEL(softmax_backward_out<false>));
  t.add("_log_softmax", Impl::bridge, "amax, sub, exp, sum, log", DEVPLUG_KERNEL(softmax<true>));
  t.add("_log_softmax.out", Impl::bridge, "amax, sub, exp, sum, log", DEVPLUG_KERNEL(softmax_out<true>));
  t.add("_log_softmax_backward_data", Impl::bridge, "exp, sum, mul, sub", DEVPLUG_KERNEL(softmax_backward<true>));
  t.add("_log_softmax_backward_data.out", Impl::bridge, "exp, sum, mul, sub", DEVPLUG_KERNEL(softmax_backward_out<true>));
}

}  // namespace devplug::bridge
