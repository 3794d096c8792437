// SPDX-License-Identifier: Apache-2.0
// Decompositions of the normalizations: layer_norm, rms_norm, batch_norm (inference and
// training) and their backward ops. Statistics are computed in the computation dtype
// (float32 for 16-bit inputs: means and variances accumulate in float32), the variance
// with the var prim (two-pass), and each output is rounded once at the end.
#include "common.hpp"

namespace devplug::detail::composite {
namespace {

// A per-channel [C] tensor viewed as [C, 1, ..] so that it broadcasts along dim 1 of a
// [N, C, ...] tensor of rank `rank`.
Tensor per_channel(Prims& p, const Tensor& v, int32_t rank) {
  if (v == nullptr) return nullptr;
  Shape shape(static_cast<size_t>(rank - 1), 1);
  shape[0] = v->layout.shape[0];
  return p.reshape(v, shape);
}

// Every dim but 1.
uint32_t all_but_channel(int32_t rank) { return dims_from(0, rank) & ~2u; }

// x * w + b for whichever of w, b are given.
Tensor affine(Prims& p, Tensor y, const Tensor& w, const Tensor& b) {
  if (w != nullptr) y = p.binary(DEVPLUG_OP_mul, y, w);
  if (b != nullptr) y = p.binary(DEVPLUG_OP_add, y, b);
  return y;
}

// `sum` / n as a new tensor.
Tensor divide(Prims& p, const Tensor& sum, int64_t n) {
  return p.binary(DEVPLUG_OP_div, sum, static_cast<double>(n));
}

// Sum over the batch dims [0, from) of a tensor whose last dims are the normalized ones,
// shaped as those last dims (a weight's shape).
Tensor sum_to_tail(Prims& p, const Tensor& t, int32_t from) {
  const Tensor s = p.reduce(DEVPLUG_OP_sum, t, dims_from(0, from));
  const Shape shape = shape_of(*s);
  return p.reshape(s, Shape(shape.begin() + from, shape.end()));
}

}  // namespace

// mean, var (biased) over the last normalized_rank dims; rstd = 1 / sqrt(var + eps);
// (x - mean) rstd w + b.
void decompose_layer_norm(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_norm_attrs_t>();
  const Tensor x = input_c(p, c, 0), w = input_c(p, c, 1), b = input_c(p, c, 2);
  const uint32_t mask = dims_from(x->layout.rank - a.normalized_rank, x->layout.rank);
  const Tensor mean = divide(p, p.reduce(DEVPLUG_OP_sum, x, mask), count_of(x, mask));
  const Tensor var = p.reduce(DEVPLUG_OP_var, x, mask, 0.0);
  const Tensor rstd = p.unary(DEVPLUG_OP_rsqrt, p.binary(DEVPLUG_OP_add, var, a.eps));
  const Tensor xhat = p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_sub, x, mean), rstd);
  if (b != nullptr)
    finish(p, c, 0, DEVPLUG_OP_add, {affine(p, xhat, w, nullptr), b});
  else if (w != nullptr)
    finish(p, c, 0, DEVPLUG_OP_mul, {xhat, w});
  else
    store(p, c, 0, xhat);
  store(p, c, 1, mean);
  store(p, c, 2, rstd);
}

// rstd = 1 / sqrt(mean(x^2) + eps); x rstd w.
void decompose_rms_norm(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_norm_attrs_t>();
  const Tensor x = input_c(p, c, 0), w = input_c(p, c, 1);
  const uint32_t mask = dims_from(x->layout.rank - a.normalized_rank, x->layout.rank);
  const Tensor ms =
      divide(p, p.reduce(DEVPLUG_OP_sum, p.binary(DEVPLUG_OP_mul, x, x), mask), count_of(x, mask));
  const Tensor rstd = p.unary(DEVPLUG_OP_rsqrt, p.binary(DEVPLUG_OP_add, ms, a.eps));
  if (w != nullptr)
    finish(p, c, 0, DEVPLUG_OP_mul, {p.binary(DEVPLUG_OP_mul, x, rstd), w});
  else
    finish(p, c, 0, DEVPLUG_OP_mul, {x, rstd});
  store(p, c, 1, rstd);
}

// (x - running_mean) / sqrt(running_var + eps) w + b, per channel.
void decompose_batch_norm(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_batch_norm_attrs_t>();
  const Tensor x = input_c(p, c, 0);
  const int32_t rank = x->layout.rank;
  const Tensor rm = per_channel(p, input_c(p, c, 1), rank), rv = per_channel(p, input_c(p, c, 2), rank);
  const Tensor w = per_channel(p, input_c(p, c, 3), rank), b = per_channel(p, input_c(p, c, 4), rank);
  const Tensor inv = p.unary(DEVPLUG_OP_rsqrt, p.binary(DEVPLUG_OP_add, rv, a.eps));
  const Tensor xhat = p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_sub, x, rm), inv);
  store(p, c, 0, affine(p, xhat, w, b));
}

// Statistics over every dim but 1: the biased variance normalizes; the running statistics
// move by momentum towards the batch mean and the unbiased variance.
void decompose_batch_norm_training(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_batch_norm_attrs_t>();
  const Tensor x = input_c(p, c, 0);
  const int32_t rank = x->layout.rank;
  const Tensor w = per_channel(p, input_c(p, c, 1), rank), b = per_channel(p, input_c(p, c, 2), rank);
  const uint32_t mask = all_but_channel(rank);
  const int64_t n = count_of(x, mask);
  const Tensor mean = divide(p, p.reduce(DEVPLUG_OP_sum, x, mask), n);
  const Tensor var = p.reduce(DEVPLUG_OP_var, x, mask, 0.0);
  const Tensor rstd = p.unary(DEVPLUG_OP_rsqrt, p.binary(DEVPLUG_OP_add, var, a.eps));
  store(p, c, 0, affine(p, p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_sub, x, mean), rstd), w, b));
  const Shape channels = {x->layout.shape[1]};
  store(p, c, 1, p.reshape(mean, channels));
  store(p, c, 2, p.reshape(rstd, channels));
  if (c.inputs[3] == nullptr) return;
  const Tensor unbiased = p.reduce(DEVPLUG_OP_var, x, mask, 1.0);
  const Tensor stats[2] = {mean, unbiased};
  for (int k = 0; k < 2; ++k) {
    const Tensor running = input_c(p, c, 3 + static_cast<size_t>(k));
    const Tensor kept = p.binary(DEVPLUG_OP_mul, running, 1.0 - a.momentum);
    const Tensor moved = p.binary(DEVPLUG_OP_mul, p.reshape(stats[k], channels), a.momentum);
    store(p, c, 3 + static_cast<size_t>(k), p.binary(DEVPLUG_OP_add, kept, moved));
  }
}

// ---- backward -------------------------------------------------------------------------

// xhat = (x - mean) rstd, g' = grad w; grad_input = rstd (g' - mean(g') - xhat mean(g' xhat));
// grad_weight = sum(grad xhat), grad_bias = sum(grad) over the batch dims.
void decompose_layer_norm_backward(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_norm_attrs_t>();
  const Tensor g = input_c(p, c, 0), x = input_c(p, c, 1), mean = input_c(p, c, 2), rstd = input_c(p, c, 3);
  const Tensor w = input_c(p, c, 4);
  const int32_t rank = x->layout.rank, from = rank - a.normalized_rank;
  const uint32_t mask = dims_from(from, rank);
  const int64_t n = count_of(x, mask);
  const Tensor xhat = p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_sub, x, mean), rstd);
  if (wants(c, 0)) {
    const Tensor gw = w != nullptr ? p.binary(DEVPLUG_OP_mul, g, w) : g;
    const Tensor mean_g = divide(p, p.reduce(DEVPLUG_OP_sum, gw, mask), n);
    const Tensor mean_gx = divide(p, p.reduce(DEVPLUG_OP_sum, p.binary(DEVPLUG_OP_mul, gw, xhat), mask), n);
    const Tensor centered = p.binary(DEVPLUG_OP_sub, p.binary(DEVPLUG_OP_sub, gw, mean_g),
                                     p.binary(DEVPLUG_OP_mul, xhat, mean_gx));
    finish(p, c, 0, DEVPLUG_OP_mul, {rstd, centered});
  }
  if (wants(c, 1)) store(p, c, 1, sum_to_tail(p, p.binary(DEVPLUG_OP_mul, g, xhat), from));
  if (wants(c, 2)) store(p, c, 2, sum_to_tail(p, g, from));
}

// xhat = x rstd, g' = grad w; grad_input = rstd (g' - xhat mean(g' xhat));
// grad_weight = sum(grad xhat) over the batch dims.
void decompose_rms_norm_backward(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_norm_attrs_t>();
  const Tensor g = input_c(p, c, 0), x = input_c(p, c, 1), rstd = input_c(p, c, 2), w = input_c(p, c, 3);
  const int32_t rank = x->layout.rank, from = rank - a.normalized_rank;
  const uint32_t mask = dims_from(from, rank);
  const Tensor xhat = p.binary(DEVPLUG_OP_mul, x, rstd);
  if (wants(c, 0)) {
    const Tensor gw = w != nullptr ? p.binary(DEVPLUG_OP_mul, g, w) : g;
    const Tensor mean_gx =
        divide(p, p.reduce(DEVPLUG_OP_sum, p.binary(DEVPLUG_OP_mul, gw, xhat), mask), count_of(x, mask));
    finish(p, c, 0, DEVPLUG_OP_mul,
           {rstd, p.binary(DEVPLUG_OP_sub, gw, p.binary(DEVPLUG_OP_mul, xhat, mean_gx))});
  }
  if (wants(c, 1)) store(p, c, 1, sum_to_tail(p, p.binary(DEVPLUG_OP_mul, g, xhat), from));
}

// xhat = (x - mean) rstd; grad_weight = sum(grad xhat), grad_bias = sum(grad) per channel;
// grad_input = w rstd (grad - grad_bias / n - xhat grad_weight / n).
void decompose_batch_norm_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), x = input_c(p, c, 1);
  const int32_t rank = x->layout.rank;
  const Tensor w = per_channel(p, input_c(p, c, 2), rank);
  const Tensor mean = per_channel(p, input_c(p, c, 3), rank), rstd = per_channel(p, input_c(p, c, 4), rank);
  const uint32_t mask = all_but_channel(rank);
  const int64_t n = count_of(x, mask);
  const Shape channels = {x->layout.shape[1]};
  const Tensor xhat = p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_sub, x, mean), rstd);
  const Tensor sum_gx = p.reduce(DEVPLUG_OP_sum, p.binary(DEVPLUG_OP_mul, g, xhat), mask);
  const Tensor sum_g = p.reduce(DEVPLUG_OP_sum, g, mask);
  if (wants(c, 0)) {
    const Tensor centered = p.binary(DEVPLUG_OP_sub, p.binary(DEVPLUG_OP_sub, g, divide(p, sum_g, n)),
                                     p.binary(DEVPLUG_OP_mul, xhat, divide(p, sum_gx, n)));
    const Tensor scale = w != nullptr ? p.binary(DEVPLUG_OP_mul, w, rstd) : rstd;
    finish(p, c, 0, DEVPLUG_OP_mul, {scale, centered});
  }
  store(p, c, 1, p.reshape(sum_gx, channels));
  store(p, c, 2, p.reshape(sum_g, channels));
}

}  // namespace devplug::detail::composite
