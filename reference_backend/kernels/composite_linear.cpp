// SPDX-License-Identifier: Apache-2.0
// Reference kernels of linear, scaled_dot_product_attention, embedding and their backward
// ops: plain loops over dense copies, every dot product summed in the wide type in index
// order, each output element rounded once. Embedding copies elements of any dtype exactly.
#include <cstring>

#include "composite_common.hpp"
#include "kernels.hpp"

namespace devplug::reference {
namespace {

using namespace composite;

// [.., K] as M rows of K.
struct Matrix {
  size_t rows, cols;
};

Matrix matrix_of(const devplug_tensor_desc_t& t) {
  const std::vector<int64_t> shape = shape_of(t);
  return Matrix{static_cast<size_t>(product(shape, 0, shape.size() - 1)), static_cast<size_t>(shape.back())};
}

template <typename W>
void linear(const devplug_op_call_t& c) {
  const Matrix x = matrix_of(*c.inputs[0]);
  const size_t N = static_cast<size_t>(c.inputs[1]->shape[0]);
  const std::vector<W> in = load<W>(c.inputs[0]), w = load<W>(c.inputs[1]), b = load<W>(c.inputs[2]);
  std::vector<W> out(x.rows * N);
  for (size_t m = 0; m < x.rows; ++m)
    for (size_t n = 0; n < N; ++n) {
      W sum = b.empty() ? W(0) : b[n];
      for (size_t k = 0; k < x.cols; ++k) sum += in[m * x.cols + k] * w[n * x.cols + k];
      out[m * N + n] = sum;
    }
  store(c.outputs[0], out);
}

template <typename W>
void linear_backward(const devplug_op_call_t& c) {
  const Matrix x = matrix_of(*c.inputs[1]);
  const size_t N = static_cast<size_t>(c.inputs[2]->shape[0]), K = x.cols, M = x.rows;
  const std::vector<W> g = load<W>(c.inputs[0]), in = load<W>(c.inputs[1]), w = load<W>(c.inputs[2]);
  std::vector<W> gi(M * K, W(0)), gw(N * K, W(0)), gb(N, W(0));
  for (size_t m = 0; m < M; ++m)
    for (size_t k = 0; k < K; ++k) {
      W sum = 0;
      for (size_t n = 0; n < N; ++n) sum += g[m * N + n] * w[n * K + k];
      gi[m * K + k] = sum;
    }
  for (size_t n = 0; n < N; ++n) {
    for (size_t k = 0; k < K; ++k) {
      W sum = 0;
      for (size_t m = 0; m < M; ++m) sum += g[m * N + n] * in[m * K + k];
      gw[n * K + k] = sum;
    }
    for (size_t m = 0; m < M; ++m) gb[n] += g[m * N + n];
  }
  store(c.outputs[0], gi);
  store(c.outputs[1], gw);
  store(c.outputs[2], gb);
}

// ---- attention ---------------------------------------------------------------------------

struct Attention {
  size_t batch, L, S, E, Ev;
};

Attention attention_of(const devplug_tensor_desc_t& q, const devplug_tensor_desc_t& v) {
  const int32_t r = q.rank;
  const std::vector<int64_t> shape = shape_of(q);
  return Attention{static_cast<size_t>(product(shape, 0, static_cast<size_t>(r - 2))),
                   static_cast<size_t>(q.shape[r - 2]), static_cast<size_t>(v.shape[r - 2]),
                   static_cast<size_t>(q.shape[r - 1]), static_cast<size_t>(v.shape[r - 1])};
}

// The attention weights P [batch, L, S]: softmax over the keys that take part of the scaled
// scores (plus an additive mask); a query whose keys are all masked (or all -Inf) gets 0.
template <typename W>
std::vector<W> attention_weights(const devplug_op_call_t& c, const Attention& s, const std::vector<W>& q,
                                 const std::vector<W>& k, const devplug_tensor_desc_t* mask_desc) {
  const auto& a = attrs_of<devplug_sdpa_attrs_t>(c);
  const double scale_value =
      (a.flags & DEVPLUG_SDPA_SCALE) ? a.scale : 1.0 / std::sqrt(static_cast<double>(s.E));
  const W scale = in_compute_dtype<W>(c.inputs[0]->dtype, scale_value);
  const bool bool_mask = mask_desc != nullptr && mask_desc->dtype == DEVPLUG_DTYPE_BOOL;
  const std::vector<int64_t> keep = bool_mask ? load_integers(mask_desc) : std::vector<int64_t>();
  const std::vector<W> add = mask_desc != nullptr && !bool_mask ? load<W>(mask_desc) : std::vector<W>();
  std::vector<W> p(s.batch * s.L * s.S);
  std::vector<W> scores(s.S);
  for (size_t b = 0; b < s.batch; ++b)
    for (size_t i = 0; i < s.L; ++i) {
      const size_t row = (b * s.L + i) * s.S;
      W m = -INFINITY;
      bool nan = false;
      for (size_t j = 0; j < s.S; ++j) {
        W dot = 0;
        for (size_t e = 0; e < s.E; ++e) dot += q[(b * s.L + i) * s.E + e] * k[(b * s.S + j) * s.E + e];
        W score = dot * scale;
        if (!add.empty()) score += add[row + j];
        if ((!keep.empty() && !keep[row + j]) || ((a.flags & DEVPLUG_SDPA_CAUSAL) && j > i))
          score = -INFINITY;
        scores[j] = score;
        nan = nan || std::isnan(score);
        if (!std::isnan(score)) m = std::max(m, score);
      }
      if (nan) m = NAN;
      if (m == -INFINITY) continue;  // every key masked: the row stays 0
      W sum = 0;
      for (size_t j = 0; j < s.S; ++j) sum += std::exp(scores[j] - m);
      for (size_t j = 0; j < s.S; ++j) p[row + j] = std::exp(scores[j] - m) / sum;
    }
  return p;
}

template <typename W>
void attention(const devplug_op_call_t& c) {
  const Attention s = attention_of(*c.inputs[0], *c.inputs[2]);
  const std::vector<W> q = load<W>(c.inputs[0]), k = load<W>(c.inputs[1]), v = load<W>(c.inputs[2]);
  const std::vector<W> p = attention_weights(c, s, q, k, c.inputs[3]);
  std::vector<W> out(s.batch * s.L * s.Ev, W(0));
  for (size_t b = 0; b < s.batch; ++b)
    for (size_t i = 0; i < s.L; ++i)
      for (size_t e = 0; e < s.Ev; ++e) {
        W sum = 0;
        for (size_t j = 0; j < s.S; ++j) sum += p[(b * s.L + i) * s.S + j] * v[(b * s.S + j) * s.Ev + e];
        out[(b * s.L + i) * s.Ev + e] = sum;
      }
  store(c.outputs[0], out);
}

// dV = P^T dO, dP = dO V^T, dS = P (dP - sum_j P dP), dQ = scale dS K, dK = scale dS^T Q.
template <typename W>
void attention_backward(const devplug_op_call_t& c) {
  const Attention s = attention_of(*c.inputs[1], *c.inputs[3]);
  const std::vector<W> g = load<W>(c.inputs[0]), q = load<W>(c.inputs[1]), k = load<W>(c.inputs[2]);
  const std::vector<W> v = load<W>(c.inputs[3]);
  const std::vector<W> p = attention_weights(c, s, q, k, c.inputs[4]);
  const auto& a = attrs_of<devplug_sdpa_attrs_t>(c);
  const W scale = in_compute_dtype<W>(c.inputs[0]->dtype, (a.flags & DEVPLUG_SDPA_SCALE)
                                                              ? a.scale
                                                              : 1.0 / std::sqrt(static_cast<double>(s.E)));
  std::vector<W> dq(q.size(), W(0)), dk(k.size(), W(0)), dv(v.size(), W(0)), ds(s.S);
  for (size_t b = 0; b < s.batch; ++b)
    for (size_t i = 0; i < s.L; ++i) {
      // data() + offset, not &v[offset]: with S or Ev 0 the vectors are empty, and indexing
      // an empty vector is undefined (found by UBSan: composite_test, sdpa backward).
      const W* pr = p.data() + (b * s.L + i) * s.S;
      const W* gr = g.data() + (b * s.L + i) * s.Ev;
      W dot = 0;
      for (size_t j = 0; j < s.S; ++j) {
        W dp = 0;
        for (size_t e = 0; e < s.Ev; ++e) dp += gr[e] * v[(b * s.S + j) * s.Ev + e];
        ds[j] = dp;
        dot += pr[j] * dp;
      }
      for (size_t j = 0; j < s.S; ++j) {
        ds[j] = pr[j] * (ds[j] - dot);
        for (size_t e = 0; e < s.Ev; ++e) dv[(b * s.S + j) * s.Ev + e] += pr[j] * gr[e];
        for (size_t e = 0; e < s.E; ++e) {
          dq[(b * s.L + i) * s.E + e] += ds[j] * k[(b * s.S + j) * s.E + e];
          dk[(b * s.S + j) * s.E + e] += ds[j] * q[(b * s.L + i) * s.E + e];
        }
      }
    }
  for (W& x : dq) x *= scale;
  for (W& x : dk) x *= scale;
  store(c.outputs[0], dq);
  store(c.outputs[1], dk);
  store(c.outputs[2], dv);
}

// ---- embedding -------------------------------------------------------------------------

// The flat indices, each checked against [0, rows).
std::vector<int64_t> checked_indices(const devplug_tensor_desc_t* t, int64_t rows) {
  std::vector<int64_t> idx = load_integers(t);
  for (int64_t i : idx)
    if (i < 0 || i >= rows)
      invalid("embedding: index " + std::to_string(i) + " is outside [0, " + std::to_string(rows) + ")");
  return idx;
}

// weight[indices]: element copies of any dtype.
devplug_error_t* embedding_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_call_t& c = *call;
    const std::string problem = sdk::check_composite(c);
    if (!problem.empty()) invalid(problem);
    const devplug_tensor_desc_t &w = *c.inputs[0], &out = *c.outputs[0];
    check_fits(w, "weight");
    check_fits(out, "output");
    const std::vector<int64_t> idx = checked_indices(c.inputs[1], w.shape[0]);
    const size_t es = devplug_dtype_size(w.dtype);
    const int64_t row = sdk::numel(w) / std::max<int64_t>(1, w.shape[0]);
    const unsigned char* src = tensor_base<const unsigned char>(w);
    unsigned char* dst = tensor_base<unsigned char>(out);
    const std::vector<int64_t> out_strides(out.strides, out.strides + out.rank);
    int64_t e = 0;
    sdk::for_each_index(out.rank, out.shape, [&](const int64_t* at) {
      const int64_t i = e / std::max<int64_t>(row, 1), r = e % std::max<int64_t>(row, 1);
      ++e;
      // Element r of row idx[i] of the weight, through the weight's strides.
      int64_t from = idx[static_cast<size_t>(i)] * w.strides[0], rest = r;
      for (int32_t d = w.rank - 1; d >= 1; --d) {
        from += (rest % w.shape[d]) * w.strides[d];
        rest /= w.shape[d];
      }
      int64_t to = 0;
      for (int32_t d = 0; d < out.rank; ++d) to += at[d] * out.strides[d];
      std::memcpy(dst + to * static_cast<int64_t>(es), src + from * static_cast<int64_t>(es), es);
    });
  });
}

// grad_weight[v] = sum of the grad rows whose index is v (divided by the count of v with
// scale_grad_by_freq); the padding_idx row stays 0.
template <typename W>
void embedding_backward(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_embedding_attrs_t>(c);
  const devplug_tensor_desc_t& out = *c.outputs[0];
  const int64_t V = out.shape[0];
  const std::vector<int64_t> idx = checked_indices(c.inputs[1], V);
  const std::vector<W> g = load<W>(c.inputs[0]);
  const size_t D = static_cast<size_t>(V == 0 ? 0 : sdk::numel(out) / V);
  std::vector<W> gw(static_cast<size_t>(V) * D, W(0));
  std::vector<int64_t> count(static_cast<size_t>(V), 0);
  for (int64_t i : idx) ++count[static_cast<size_t>(i)];
  const bool by_freq = a.flags & DEVPLUG_EMBEDDING_SCALE_GRAD_BY_FREQ;
  for (size_t i = 0; i < idx.size(); ++i) {
    const size_t v = static_cast<size_t>(idx[i]);
    if (a.padding_idx >= 0 && idx[i] == a.padding_idx) continue;
    for (size_t d = 0; d < D; ++d)
      gw[v * D + d] += by_freq ? g[i * D + d] / static_cast<W>(count[v]) : g[i * D + d];
  }
  store(c.outputs[0], gw);
}

DEVPLUG_COMPOSITE_KERNEL(linear_kernel, linear)
DEVPLUG_COMPOSITE_KERNEL(linear_backward_kernel, linear_backward)
DEVPLUG_COMPOSITE_KERNEL(attention_kernel, attention)
DEVPLUG_COMPOSITE_KERNEL(attention_backward_kernel, attention_backward)
DEVPLUG_COMPOSITE_KERNEL(embedding_backward_kernel, embedding_backward)

}  // namespace

void register_composite_linear_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_linear, &linear_kernel);
  add_kernel(table, DEVPLUG_OP_linear_backward, &linear_backward_kernel);
  add_kernel(table, DEVPLUG_OP_scaled_dot_product_attention, &attention_kernel);
  add_kernel(table, DEVPLUG_OP_scaled_dot_product_attention_backward, &attention_backward_kernel);
  add_kernel(table, DEVPLUG_OP_embedding, &embedding_kernel);
  add_kernel(table, DEVPLUG_OP_embedding_backward, &embedding_backward_kernel);
}

}  // namespace devplug::reference
