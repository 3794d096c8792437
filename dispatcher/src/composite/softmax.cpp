// SPDX-License-Identifier: Apache-2.0
// Decompositions of the row reductions: mean, logsumexp, softmax, log_softmax and the
// backward ops of the last two. 16-bit inputs are reduced in float32; softmax, log_softmax
// and logsumexp subtract the row maximum before exp, so no exp overflows.
#include "common.hpp"

namespace devplug::detail::composite {
namespace {

// The mask of softmax's dim (nothing for a 0-d input, whose one element is its own line).
uint32_t line_mask(const Tensor& x, int32_t dim) { return x->layout.rank == 0 ? 0u : 1u << dim; }

// exp(x - m) with m the line maximum, and the lines' sums of it.
struct Shifted {
  Tensor shifted;  // x - m
  Tensor e;        // exp(x - m)
  Tensor sum;      // sum of e along the line
};

Shifted shift_by_max(Prims& p, const Tensor& x, uint32_t mask) {
  Shifted s;
  s.shifted = p.binary(DEVPLUG_OP_sub, x, p.reduce(DEVPLUG_OP_amax, x, mask));
  s.e = p.unary(DEVPLUG_OP_exp, s.shifted);
  s.sum = p.reduce(DEVPLUG_OP_sum, s.e, mask);
  return s;
}

}  // namespace

// sum(x) / n over the dims; an empty mean is 0 / 0 = NaN.
void decompose_mean(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  const uint32_t mask = c.attrs_as<devplug_reduce_attrs_t>().dims_mask;
  const Tensor sum = p.reduce(DEVPLUG_OP_sum, x, mask);
  finish(p, c, 0, DEVPLUG_OP_div, {sum, p.scalar(sum->layout.dtype, static_cast<double>(count_of(x, mask)))});
}

// m' + log(sum(exp(x - m'))) with m' the maximum, or 0 where the maximum is +-Inf (PyTorch),
// so that a line of -Inf gives -Inf and a +Inf gives +Inf. An empty reduction is -Inf.
void decompose_logsumexp(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  const uint32_t mask = c.attrs_as<devplug_reduce_attrs_t>().dims_mask;
  if (count_of(x, mask) == 0) {
    p.fill_into(output(c, 0), -INFINITY);
    return;
  }
  const Tensor m = p.reduce(DEVPLUG_OP_amax, x, mask);
  const Tensor infinite = p.binary(DEVPLUG_OP_eq, p.unary(DEVPLUG_OP_abs, m), INFINITY);
  const Tensor m0 = p.where(infinite, p.scalar(m->layout.dtype, 0.0), m);
  const Tensor sum = p.reduce(DEVPLUG_OP_sum, p.unary(DEVPLUG_OP_exp, p.binary(DEVPLUG_OP_sub, x, m0)), mask);
  finish(p, c, 0, DEVPLUG_OP_add, {p.unary(DEVPLUG_OP_log, sum), m0});
}

// exp(x - m) / sum(exp(x - m)).
void decompose_softmax(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  if (numel(shape_of(*x)) == 0) return;
  const Shifted s = shift_by_max(p, x, line_mask(x, c.attrs_as<devplug_dim_attrs_t>().dim));
  finish(p, c, 0, DEVPLUG_OP_div, {s.e, s.sum});
}

// (x - m) - log(sum(exp(x - m))).
void decompose_log_softmax(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  if (numel(shape_of(*x)) == 0) return;
  const Shifted s = shift_by_max(p, x, line_mask(x, c.attrs_as<devplug_dim_attrs_t>().dim));
  finish(p, c, 0, DEVPLUG_OP_sub, {s.shifted, p.unary(DEVPLUG_OP_log, s.sum)});
}

// y (grad - sum(grad y)).
void decompose_softmax_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), y = input_c(p, c, 1);
  if (numel(shape_of(*y)) == 0) return;
  const uint32_t mask = line_mask(y, c.attrs_as<devplug_dim_attrs_t>().dim);
  const Tensor dot = p.reduce(DEVPLUG_OP_sum, p.binary(DEVPLUG_OP_mul, g, y), mask);
  finish(p, c, 0, DEVPLUG_OP_mul, {y, p.binary(DEVPLUG_OP_sub, g, dot)});
}

// grad - exp(y) sum(grad).
void decompose_log_softmax_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), y = input_c(p, c, 1);
  if (numel(shape_of(*y)) == 0) return;
  const Tensor sum = p.reduce(DEVPLUG_OP_sum, g, line_mask(y, c.attrs_as<devplug_dim_attrs_t>().dim));
  finish(p, c, 0, DEVPLUG_OP_sub, {g, p.binary(DEVPLUG_OP_mul, p.unary(DEVPLUG_OP_exp, y), sum)});
}

}  // namespace devplug::detail::composite
