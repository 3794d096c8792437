// SPDX-License-Identifier: Apache-2.0
// Decompositions of the pointwise composites (activations, clamp, dropout) and of their
// backward ops. Each computes in the computation dtype (float32 for 16-bit inputs) and
// rounds once into its output. The formulas are PyTorch's, written in forms that do not
// cancel: 1 + erf(z) as erfc(-z), 1 + tanh(u) as 2 sigmoid(2u).
#include "common.hpp"

namespace devplug::detail::composite {

// max(x, 0): exact in any dtype, so no computation dtype.
void decompose_relu(Prims& p, const Call& c) {
  const Tensor x = input(c, 0);
  p.map_into(output(c, 0), DEVPLUG_OP_maximum, {x, p.scalar(x->layout.dtype, 0.0)});
}

namespace {

// 2u = 2 sqrt(2/pi) (x + 0.044715 x^3), the argument of the tanh form's sigmoid.
Tensor gelu_two_u(Prims& p, const Tensor& x) {
  const Tensor x3 = p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_mul, x, x), x);
  const Tensor inner = p.binary(DEVPLUG_OP_add, x, p.binary(DEVPLUG_OP_mul, x3, kGeluKappa));
  return p.binary(DEVPLUG_OP_mul, inner, 2 * kSqrt2OverPi);
}

// 1 / (1 + exp(-z)).
Tensor sigmoid(Prims& p, const Tensor& z) {
  const Tensor e = p.unary(DEVPLUG_OP_exp, p.unary(DEVPLUG_OP_neg, z));
  return p.unary(DEVPLUG_OP_reciprocal, p.binary(DEVPLUG_OP_add, e, 1.0));
}

}  // namespace

// erf form: 0.5 x erfc(-x / sqrt(2)); tanh form: x / (1 + exp(-2u)) = 0.5 x (1 + tanh(u)).
void decompose_gelu(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  if (c.attrs_as<devplug_gelu_attrs_t>().approximate == DEVPLUG_GELU_NONE) {
    const Tensor t = p.unary(DEVPLUG_OP_erfc, p.binary(DEVPLUG_OP_mul, x, -kSqrt1_2));
    finish(p, c, 0, DEVPLUG_OP_mul, {p.binary(DEVPLUG_OP_mul, x, 0.5), t});
    return;
  }
  const Tensor e = p.unary(DEVPLUG_OP_exp, p.unary(DEVPLUG_OP_neg, gelu_two_u(p, x)));
  finish(p, c, 0, DEVPLUG_OP_div, {x, p.binary(DEVPLUG_OP_add, e, 1.0)});
}

// x / (1 + exp(-x)).
void decompose_silu(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  const Tensor e = p.unary(DEVPLUG_OP_exp, p.unary(DEVPLUG_OP_neg, x));
  finish(p, c, 0, DEVPLUG_OP_div, {x, p.binary(DEVPLUG_OP_add, e, 1.0)});
}

// 1 / (1 + exp(-x)).
void decompose_sigmoid(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  const Tensor e = p.unary(DEVPLUG_OP_exp, p.unary(DEVPLUG_OP_neg, x));
  finish(p, c, 0, DEVPLUG_OP_reciprocal, {p.binary(DEVPLUG_OP_add, e, 1.0)});
}

// where(beta x > threshold, x, log1p(exp(beta x)) / beta), beta x in the computation dtype.
void decompose_softplus(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_softplus_attrs_t>();
  const Tensor x = input_c(p, c, 0);
  const Tensor bx = p.binary(DEVPLUG_OP_mul, x, a.beta);
  const Tensor soft =
      p.binary(DEVPLUG_OP_div, p.unary(DEVPLUG_OP_log1p, p.unary(DEVPLUG_OP_exp, bx)), a.beta);
  const Tensor above = p.binary(DEVPLUG_OP_gt, bx, a.threshold);
  finish(p, c, 0, DEVPLUG_OP_where, {above, x, soft});
}

// minimum(maximum(x, min), max): the NaN-propagating prims keep NaN, and min > max gives max.
void decompose_clamp(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_clamp_attrs_t>();
  const Tensor x = input(c, 0);
  const devplug_dtype_t d = x->layout.dtype;
  const bool lo = a.flags & DEVPLUG_CLAMP_MIN, hi = a.flags & DEVPLUG_CLAMP_MAX;
  if (!lo && !hi) {
    p.copy_into(output(c, 0), x);
    return;
  }
  if (lo && hi) {
    p.map_into(output(c, 0), DEVPLUG_OP_minimum,
               {p.binary(DEVPLUG_OP_maximum, x, p.scalar(d, a.min)), p.scalar(d, a.max)});
    return;
  }
  p.map_into(output(c, 0), lo ? DEVPLUG_OP_maximum : DEVPLUG_OP_minimum,
             {x, p.scalar(d, lo ? a.min : a.max)});
}

// where(x > 0, x, slope x).
void decompose_leaky_relu(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  const Tensor scaled = p.binary(DEVPLUG_OP_mul, x, c.attrs_as<devplug_leaky_relu_attrs_t>().negative_slope);
  finish(p, c, 0, DEVPLUG_OP_where, {p.binary(DEVPLUG_OP_gt, x, 0.0), x, scaled});
}

// mask = philox_uniform(float32) >= p; out = where(mask, x * (1 / (1 - p)), 0).
void decompose_dropout(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_dropout_attrs_t>();
  const Tensor x = input_c(p, c, 0);
  const Tensor u = p.uniform(DEVPLUG_DTYPE_FLOAT32, shape_of(*x), a.seed, a.offset);
  const Tensor keep = p.binary(DEVPLUG_OP_ge, u, a.p);
  const Tensor scaled = p.binary(DEVPLUG_OP_mul, x, 1.0 / (1.0 - a.p));
  finish(p, c, 0, DEVPLUG_OP_where, {keep, scaled, p.scalar(x->layout.dtype, 0.0)});
  store(p, c, 1, keep);
}

// ---- backward -------------------------------------------------------------------------

// where(input <= 0, 0, grad), PyTorch's threshold_backward.
void decompose_relu_backward(Prims& p, const Call& c) {
  const Tensor g = input(c, 0), x = input(c, 1);
  p.map_into(output(c, 0), DEVPLUG_OP_where,
             {p.binary(DEVPLUG_OP_le, x, 0.0), p.scalar(g->layout.dtype, 0.0), g});
}

// erf form: grad (Phi(x) + x phi(x)); tanh form: grad (s + 2 x s (1 - s) sqrt(2/pi) (1 + 3
// 0.044715 x^2)) with s = sigmoid(2u) and 1 - s = sigmoid(-2u), on x clamped to [-30, 30]
// (Inf and NaN kept): beyond it s (1 - s) is exactly 0 in float32 and float64, and the
// clamp keeps x^2 from overflowing into 0 * Inf.
void decompose_gelu_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), x = input_c(p, c, 1);
  Tensor d;
  if (c.attrs_as<devplug_gelu_attrs_t>().approximate == DEVPLUG_GELU_NONE) {
    const Tensor cdf =
        p.binary(DEVPLUG_OP_mul, p.unary(DEVPLUG_OP_erfc, p.binary(DEVPLUG_OP_mul, x, -kSqrt1_2)), 0.5);
    const Tensor pdf = p.binary(
        DEVPLUG_OP_mul,
        p.unary(DEVPLUG_OP_exp, p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_mul, x, x), -0.5)), kInvSqrt2Pi);
    d = p.binary(DEVPLUG_OP_add, cdf, p.binary(DEVPLUG_OP_mul, x, pdf));
  } else {
    const Tensor clamped = p.binary(DEVPLUG_OP_maximum, p.binary(DEVPLUG_OP_minimum, x, 30.0), -30.0);
    const Tensor xc = p.where(p.unary(DEVPLUG_OP_isinf, x), x, clamped);
    const Tensor two_u = gelu_two_u(p, xc);
    const Tensor s = sigmoid(p, two_u), s_neg = sigmoid(p, p.unary(DEVPLUG_OP_neg, two_u));
    const Tensor poly = p.binary(
        DEVPLUG_OP_add, p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_mul, xc, xc), 3 * kGeluKappa), 1.0);
    Tensor right = p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_mul, s, s_neg), poly);
    right = p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_mul, xc, right), 2 * kSqrt2OverPi);
    d = p.binary(DEVPLUG_OP_add, s, right);
  }
  finish(p, c, 0, DEVPLUG_OP_mul, {g, d});
}

// grad s (1 + x (1 - s)), s = sigmoid(x).
void decompose_silu_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), x = input_c(p, c, 1);
  const Tensor s = sigmoid(p, x);
  const Tensor one_minus = p.binary(DEVPLUG_OP_sub, p.scalar(s->layout.dtype, 1.0), s);
  const Tensor t = p.binary(DEVPLUG_OP_add, p.binary(DEVPLUG_OP_mul, x, one_minus), 1.0);
  finish(p, c, 0, DEVPLUG_OP_mul, {p.binary(DEVPLUG_OP_mul, g, s), t});
}

// (grad y) (1 - y), in this order: grad (1 - y) first overflows for a large grad and y < 0
// where the result does not, and y (1 - y) first turns grad = 0 and a huge y into 0 * Inf.
void decompose_sigmoid_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), y = input_c(p, c, 1);
  const Tensor one_minus = p.binary(DEVPLUG_OP_sub, p.scalar(y->layout.dtype, 1.0), y);
  finish(p, c, 0, DEVPLUG_OP_mul, {p.binary(DEVPLUG_OP_mul, g, y), one_minus});
}

}  // namespace devplug::detail::composite
