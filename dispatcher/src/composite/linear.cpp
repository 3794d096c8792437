// SPDX-License-Identifier: Apache-2.0
// Decompositions built on matmul and indexing: linear, scaled_dot_product_attention,
// embedding and their backward ops. 16-bit operands are converted to float32 first, so a
// product and the bias (or the attention weights) are summed in float32 and rounded once.
#include "common.hpp"

namespace devplug::detail::composite {
namespace {

// [.., K] viewed (or copied) as [M, K].
Tensor rows(Prims& p, const Tensor& t) {
  const Shape s = shape_of(*t);
  return p.reshape(t, {numel(Shape(s.begin(), s.end() - 1)), s.back()});
}

// `t` [M, N] reshaped to `like`'s shape with its last dim replaced by N.
Tensor unrows(Prims& p, const Tensor& t, const Tensor& like) {
  Shape s = shape_of(*like);
  s.back() = t->layout.shape[1];
  return p.reshape(t, s);
}

Tensor last_two_swapped(Prims& p, const Tensor& t) {
  return p.transpose(t, t->layout.rank - 2, t->layout.rank - 1);
}

// The attention weights softmax(q k^T scale + mask) of a [B.., L, S] problem, with every
// key of a query masked giving zeros.
Tensor attention_weights(Prims& p, const Call& c, const Tensor& q, const Tensor& k, size_t mask_input,
                         double scale) {
  const auto& a = c.attrs_as<devplug_sdpa_attrs_t>();
  const int32_t rank = q->layout.rank;
  Tensor scores = p.binary(DEVPLUG_OP_mul, p.matmul(q, last_two_swapped(p, k)), scale);
  const devplug_dtype_t d = scores->layout.dtype;
  if (const Tensor mask = input(c, mask_input)) {
    if (mask->layout.dtype == DEVPLUG_DTYPE_BOOL)
      scores = p.where(mask, scores, p.scalar(d, -INFINITY));
    else
      scores = p.binary(DEVPLUG_OP_add, scores, p.convert(mask, d));
  }
  if (a.flags & DEVPLUG_SDPA_CAUSAL) {
    const int64_t L = q->layout.shape[rank - 2], S = k->layout.shape[rank - 2];
    const Tensor i = p.reshape(p.arange(DEVPLUG_DTYPE_INT64, L), {L, 1});
    const Tensor j = p.reshape(p.arange(DEVPLUG_DTYPE_INT64, S), {1, S});
    scores = p.where(p.binary(DEVPLUG_OP_ge, i, j), scores, p.scalar(d, -INFINITY));
  }
  const uint32_t last = 1u << (rank - 1);
  const Tensor m = p.reduce(DEVPLUG_OP_amax, scores, last);
  const Tensor all_masked = p.binary(DEVPLUG_OP_eq, m, -INFINITY);
  const Tensor m0 = p.where(all_masked, p.scalar(d, 0.0), m);
  const Tensor e = p.unary(DEVPLUG_OP_exp, p.binary(DEVPLUG_OP_sub, scores, m0));
  const Tensor weights = p.binary(DEVPLUG_OP_div, e, p.reduce(DEVPLUG_OP_sum, e, last));
  return p.where(all_masked, p.scalar(d, 0.0), weights);
}

double attention_scale(const Call& c, const Tensor& q) {
  const auto& a = c.attrs_as<devplug_sdpa_attrs_t>();
  if (a.flags & DEVPLUG_SDPA_SCALE) return a.scale;
  return 1.0 / std::sqrt(static_cast<double>(q->layout.shape[q->layout.rank - 1]));
}

}  // namespace

// input [M, K] x weight^T [K, N] (+ bias), batch dims flattened into M.
void decompose_linear(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0), w = input_c(p, c, 1), b = input_c(p, c, 2);
  const Tensor y = unrows(p, p.matmul(rows(p, x), p.transpose(w, 0, 1)), x);
  if (b != nullptr)
    finish(p, c, 0, DEVPLUG_OP_add, {y, b});
  else
    store(p, c, 0, y);
}

// grad_input = grad weight; grad_weight = grad^T input; grad_bias = sum(grad), batch dims
// flattened.
void decompose_linear_backward(Prims& p, const Call& c) {
  const Tensor g = rows(p, input_c(p, c, 0)), x = input_c(p, c, 1), w = input_c(p, c, 2);
  if (wants(c, 0)) store(p, c, 0, unrows(p, p.matmul(g, w), x));
  if (wants(c, 1)) store(p, c, 1, p.matmul(p.transpose(g, 0, 1), rows(p, x)));
  if (wants(c, 2)) store(p, c, 2, p.reshape(p.reduce(DEVPLUG_OP_sum, g, 1u), {g->layout.shape[1]}));
}

// softmax(q k^T scale + mask) v; the scores are scaled before the row max is subtracted.
void decompose_scaled_dot_product_attention(Prims& p, const Call& c) {
  const Tensor q = input_c(p, c, 0), k = input_c(p, c, 1), v = input_c(p, c, 2);
  if (numel(shape_of(*output(c, 0))) == 0) return;
  if (k->layout.shape[k->layout.rank - 2] == 0) {  // no keys: every query fully masked
    p.fill_into(output(c, 0), 0.0);
    return;
  }
  store(p, c, 0, p.matmul(attention_weights(p, c, q, k, 3, attention_scale(c, q)), v));
}

// With P the attention weights: dV = P^T dO, dP = dO V^T, dS = P (dP - sum(dP P)),
// dQ = dS K scale, dK = dS^T Q scale.
void decompose_scaled_dot_product_attention_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), q = input_c(p, c, 1), k = input_c(p, c, 2), v = input_c(p, c, 3);
  const int32_t rank = q->layout.rank;
  const int64_t L = q->layout.shape[rank - 2], S = k->layout.shape[rank - 2];
  if (L == 0 || S == 0 || numel(shape_of(*q)) == 0 || numel(shape_of(*v)) == 0) {
    for (size_t o = 0; o < 3; ++o)
      if (wants(c, o)) p.fill_into(output(c, o), 0.0);
    return;
  }
  const double scale = attention_scale(c, q);
  const Tensor weights = attention_weights(p, c, q, k, 4, scale);
  if (wants(c, 2)) store(p, c, 2, p.matmul(last_two_swapped(p, weights), g));
  if (!wants(c, 0) && !wants(c, 1)) return;
  const Tensor dp = p.matmul(g, last_two_swapped(p, v));
  const Tensor dot = p.reduce(DEVPLUG_OP_sum, p.binary(DEVPLUG_OP_mul, dp, weights), 1u << (rank - 1));
  const Tensor ds = p.binary(DEVPLUG_OP_mul, weights, p.binary(DEVPLUG_OP_sub, dp, dot));
  if (wants(c, 0)) store(p, c, 0, p.binary(DEVPLUG_OP_mul, p.matmul(ds, k), scale));
  if (wants(c, 1)) store(p, c, 1, p.binary(DEVPLUG_OP_mul, p.matmul(last_two_swapped(p, ds), q), scale));
}

// index_select(weight, 0, indices flattened), reshaped to indices.shape + weight.shape[1:].
void decompose_embedding(Prims& p, const Call& c) {
  const Tensor w = input(c, 0), idx = input(c, 1);
  const Tensor picked = p.index_select(w, 0, p.reshape(idx, {numel(shape_of(*idx))}));
  store(p, c, 0, p.reshape(picked, shape_of(*output(c, 0))));
}

// grad rows scatter-added into a zero [V, D] at their indices (divided by each index's count
// with scale_grad_by_freq); the padding_idx row is zeroed.
void decompose_embedding_backward(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_embedding_attrs_t>();
  const Tensor g = input_c(p, c, 0), idx = input(c, 1), out = output(c, 0);
  const Shape out_shape = shape_of(*out);
  const int64_t n = numel(shape_of(*idx)), V = out_shape[0], D = V == 0 ? 0 : numel(out_shape) / V;
  const devplug_dtype_t d = g->layout.dtype;
  const Tensor flat_idx = p.reshape(idx, {n});
  Tensor rows_g = p.reshape(g, {n, D});
  if (a.flags & DEVPLUG_EMBEDDING_SCALE_GRAD_BY_FREQ) {
    const Tensor counts = p.scatter_add(p.full(d, {V}, 0.0), 0, flat_idx, p.full(d, {n}, 1.0));
    rows_g = p.binary(DEVPLUG_OP_div, rows_g, p.reshape(p.index_select(counts, 0, flat_idx), {n, 1}));
  }
  const Tensor index = p.expand(p.reshape(flat_idx, {n, 1}), {n, D});
  Tensor grad_weight = p.scatter_add(p.full(d, {V, D}, 0.0), 0, index, rows_g);
  if (a.padding_idx >= 0) {
    const Tensor pad_row = p.binary(DEVPLUG_OP_eq, p.reshape(p.arange(DEVPLUG_DTYPE_INT64, V), {V, 1}),
                                    p.scalar(DEVPLUG_DTYPE_INT64, static_cast<double>(a.padding_idx)));
    grad_weight = p.where(pad_row, p.scalar(d, 0.0), grad_weight);
  }
  store(p, c, 0, p.reshape(grad_weight, out_shape));
}

}  // namespace devplug::detail::composite
