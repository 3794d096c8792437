// SPDX-License-Identifier: Apache-2.0
// Reference kernels of the row reductions and normalizations (mean, logsumexp, softmax,
// log_softmax, layer_norm, rms_norm, batch_norm, batch_norm_training) and their backward
// ops: textbook formulas on dense copies in the wide type, sums in order, two-pass
// variances, each output rounded once.
#include "composite_common.hpp"
#include "kernels.hpp"

namespace devplug::reference {
namespace {

using namespace composite;

// For a row-major `shape` reduced over `mask` (the output keeps the rank with those dims
// 1): the output index of every input element.
std::vector<int64_t> group_of(const std::vector<int64_t>& shape, uint32_t mask) {
  const size_t rank = shape.size();
  std::vector<int64_t> out_stride(rank, 0);
  int64_t step = 1;
  for (size_t d = rank; d-- > 0;) {
    if ((mask >> d) & 1u) continue;
    out_stride[d] = step;
    step *= shape[d];
  }
  std::vector<int64_t> group(static_cast<size_t>(product(shape)));
  std::vector<int64_t> index(rank, 0);
  for (size_t e = 0; e < group.size(); ++e) {
    int64_t o = 0;
    for (size_t d = 0; d < rank; ++d) o += index[d] * out_stride[d];
    group[e] = o;
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return group;
}

int64_t groups(const std::vector<int64_t>& shape, uint32_t mask) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (!((mask >> d) & 1u)) n *= shape[d];
  return n;
}

template <typename W>
void mean(const devplug_op_call_t& c) {
  const uint32_t mask = attrs_of<devplug_reduce_attrs_t>(c).dims_mask;
  const std::vector<int64_t> shape = shape_of(*c.inputs[0]);
  const std::vector<W> x = load<W>(c.inputs[0]);
  const std::vector<int64_t> group = group_of(shape, mask);
  std::vector<W> sum(static_cast<size_t>(groups(shape, mask)), W(0));
  for (size_t e = 0; e < x.size(); ++e) sum[static_cast<size_t>(group[e])] += x[e];
  int64_t n = 1;  // elements per group; 0 makes every mean 0 / 0 = NaN
  for (size_t d = 0; d < shape.size(); ++d)
    if ((mask >> d) & 1u) n *= shape[d];
  for (W& s : sum) s /= static_cast<W>(n);
  store(c.outputs[0], sum);
}

// m + log(sum(exp(x - m))) per group, m the maximum (0 when it is infinite, as PyTorch).
template <typename W>
void logsumexp(const devplug_op_call_t& c) {
  const uint32_t mask = attrs_of<devplug_reduce_attrs_t>(c).dims_mask;
  const std::vector<int64_t> shape = shape_of(*c.inputs[0]);
  const std::vector<W> x = load<W>(c.inputs[0]);
  const std::vector<int64_t> group = group_of(shape, mask);
  const size_t n_groups = static_cast<size_t>(groups(shape, mask));
  std::vector<W> m(n_groups, -INFINITY), sum(n_groups, W(0));
  std::vector<char> nan(n_groups, 0);
  for (size_t e = 0; e < x.size(); ++e) {
    const size_t g = static_cast<size_t>(group[e]);
    if (std::isnan(x[e]))
      nan[g] = 1;
    else
      m[g] = std::max(m[g], x[e]);
  }
  for (W& v : m)
    if (std::isinf(v)) v = 0;
  for (size_t e = 0; e < x.size(); ++e)
    sum[static_cast<size_t>(group[e])] += std::exp(x[e] - m[static_cast<size_t>(group[e])]);
  for (size_t g = 0; g < n_groups; ++g) sum[g] = nan[g] ? W(NAN) : std::log(sum[g]) + m[g];
  store(c.outputs[0], sum);
}

// Calls f(line values, write back) for every line along the softmax dim.
template <typename W, typename F>
void per_line(const devplug_op_call_t& c, F&& f) {
  const std::vector<int64_t> shape = shape_of(*c.inputs[0]);
  const int32_t dim = attrs_of<devplug_dim_attrs_t>(c).dim;
  std::vector<std::vector<W>> in;
  for (size_t k = 0; k < c.n_inputs; ++k) in.push_back(load<W>(c.inputs[k]));
  std::vector<W> out(in[0].size());
  if (out.empty()) return;
  for_each_line(shape, shape.empty() ? 0 : dim, [&](int64_t base, int64_t stride, int64_t n) {
    std::vector<std::vector<W>> lines(in.size(), std::vector<W>(static_cast<size_t>(n)));
    for (size_t k = 0; k < in.size(); ++k)
      for (int64_t i = 0; i < n; ++i)
        lines[k][static_cast<size_t>(i)] = in[k][static_cast<size_t>(base + i * stride)];
    const std::vector<W> result = f(lines);
    for (int64_t i = 0; i < n; ++i)
      out[static_cast<size_t>(base + i * stride)] = result[static_cast<size_t>(i)];
  });
  store(c.outputs[0], out);
}

// The line's maximum (NaN when any is NaN) and sum(exp(x - max)).
template <typename W>
void max_and_sum(const std::vector<W>& x, W* m, W* sum) {
  *m = -INFINITY;
  for (W v : x) *m = std::isnan(v) || std::isnan(*m) ? W(NAN) : std::max(*m, v);
  *sum = 0;
  for (W v : x) *sum += std::exp(v - *m);
}

template <typename W>
void softmax(const devplug_op_call_t& c) {
  per_line<W>(c, [](const std::vector<std::vector<W>>& in) {
    W m, sum;
    max_and_sum(in[0], &m, &sum);
    std::vector<W> y(in[0].size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = std::exp(in[0][i] - m) / sum;
    return y;
  });
}

template <typename W>
void log_softmax(const devplug_op_call_t& c) {
  per_line<W>(c, [](const std::vector<std::vector<W>>& in) {
    W m, sum;
    max_and_sum(in[0], &m, &sum);
    std::vector<W> y(in[0].size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = in[0][i] - m - std::log(sum);
    return y;
  });
}

template <typename W>
void softmax_backward(const devplug_op_call_t& c) {
  per_line<W>(c, [](const std::vector<std::vector<W>>& in) {
    const std::vector<W>&g = in[0], &y = in[1];
    W dot = 0;
    for (size_t i = 0; i < y.size(); ++i) dot += g[i] * y[i];
    std::vector<W> r(y.size());
    for (size_t i = 0; i < y.size(); ++i) r[i] = y[i] * (g[i] - dot);
    return r;
  });
}

template <typename W>
void log_softmax_backward(const devplug_op_call_t& c) {
  per_line<W>(c, [](const std::vector<std::vector<W>>& in) {
    const std::vector<W>&g = in[0], &y = in[1];
    W sum = 0;
    for (W v : g) sum += v;
    std::vector<W> r(y.size());
    for (size_t i = 0; i < y.size(); ++i) r[i] = g[i] - std::exp(y[i]) * sum;
    return r;
  });
}

// ---- layer_norm and rms_norm: rows of the last normalized_rank dims -----------------------

struct Rows {
  size_t count, length;
};

Rows rows_of(const devplug_tensor_desc_t& t, int32_t normalized_rank) {
  const std::vector<int64_t> shape = shape_of(t);
  const size_t from = shape.size() - static_cast<size_t>(normalized_rank);
  return Rows{static_cast<size_t>(product(shape, 0, from)), static_cast<size_t>(product(shape, from))};
}

template <typename W>
void layer_norm(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_norm_attrs_t>(c);
  const bool rms = c.op == DEVPLUG_OP_rms_norm;
  const Rows r = rows_of(*c.inputs[0], a.normalized_rank);
  const std::vector<W> x = load<W>(c.inputs[0]), w = load<W>(c.inputs[1]);
  const std::vector<W> b = rms ? std::vector<W>() : load<W>(c.inputs[2]);
  const W eps = in_compute_dtype<W>(c.inputs[0]->dtype, a.eps);
  std::vector<W> y(x.size()), means(r.count), rstds(r.count);
  for (size_t row = 0; row < r.count; ++row) {
    const W* xr = x.data() + row * r.length;
    W mean = 0, var = 0;
    for (size_t i = 0; i < r.length; ++i) mean += xr[i];
    mean /= static_cast<W>(r.length);
    for (size_t i = 0; i < r.length; ++i) var += rms ? xr[i] * xr[i] : (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<W>(r.length);
    const W rstd = W(1) / std::sqrt(var + eps);
    for (size_t i = 0; i < r.length; ++i) {
      W v = (rms ? xr[i] : xr[i] - mean) * rstd;
      if (!w.empty()) v *= w[i];
      if (!b.empty()) v += b[i];
      y[row * r.length + i] = v;
    }
    means[row] = mean;
    rstds[row] = rstd;
  }
  store(c.outputs[0], y);
  if (rms) {
    store(c.outputs[1], rstds);
  } else {
    store(c.outputs[1], means);
    store(c.outputs[2], rstds);
  }
}

// layer_norm_backward (mean given) and rms_norm_backward (mean 0): with xhat = (x - mean)
// rstd and g' = grad w, grad_input = rstd (g' - [mean(g')] - xhat mean(g' xhat)).
template <typename W>
void layer_norm_backward(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_norm_attrs_t>(c);
  const bool rms = c.op == DEVPLUG_OP_rms_norm_backward;
  const Rows r = rows_of(*c.inputs[1], a.normalized_rank);
  const std::vector<W> g = load<W>(c.inputs[0]), x = load<W>(c.inputs[1]);
  const std::vector<W> mean = rms ? std::vector<W>(r.count, W(0)) : load<W>(c.inputs[2]);
  const std::vector<W> rstd = load<W>(c.inputs[rms ? 2 : 3]), w = load<W>(c.inputs[rms ? 3 : 4]);
  std::vector<W> gi(x.size()), gw(r.length, W(0)), gb(r.length, W(0));
  for (size_t row = 0; row < r.count; ++row) {
    const size_t at = row * r.length;
    W sum_g = 0, sum_gx = 0;
    for (size_t i = 0; i < r.length; ++i) {
      const W xhat = (x[at + i] - mean[row]) * rstd[row];
      const W gp = g[at + i] * (w.empty() ? W(1) : w[i]);
      sum_g += gp;
      sum_gx += gp * xhat;
      gw[i] += g[at + i] * xhat;
      gb[i] += g[at + i];
    }
    const W n = static_cast<W>(r.length);
    for (size_t i = 0; i < r.length; ++i) {
      const W xhat = (x[at + i] - mean[row]) * rstd[row];
      const W gp = g[at + i] * (w.empty() ? W(1) : w[i]);
      gi[at + i] = rstd[row] * (gp - (rms ? W(0) : sum_g / n) - xhat * sum_gx / n);
    }
  }
  store(c.outputs[0], gi);
  store(c.outputs[1], gw);
  if (!rms) store(c.outputs[2], gb);
}

// ---- batch_norm: per channel (dim 1) of [N, C, ...] --------------------------------------

struct Channels {
  size_t n, c, inner;  // [n, c, inner]
};

Channels channels_of(const devplug_tensor_desc_t& t) {
  const std::vector<int64_t> shape = shape_of(t);
  return Channels{static_cast<size_t>(shape[0]), static_cast<size_t>(shape[1]),
                  static_cast<size_t>(product(shape, 2))};
}

template <typename F>
void for_each_in_channel(const Channels& s, size_t ch, F&& f) {
  for (size_t i = 0; i < s.n; ++i)
    for (size_t j = 0; j < s.inner; ++j) f((i * s.c + ch) * s.inner + j);
}

template <typename W>
void batch_norm(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_batch_norm_attrs_t>(c);
  const bool training = c.op == DEVPLUG_OP_batch_norm_training;
  const Channels s = channels_of(*c.inputs[0]);
  const devplug_dtype_t d = c.inputs[0]->dtype;
  const std::vector<W> x = load<W>(c.inputs[0]);
  const std::vector<W> w = load<W>(c.inputs[training ? 1 : 3]), b = load<W>(c.inputs[training ? 2 : 4]);
  const std::vector<W> rm = load<W>(c.inputs[training ? 3 : 1]), rv = load<W>(c.inputs[training ? 4 : 2]);
  const W eps = in_compute_dtype<W>(d, a.eps);
  std::vector<W> y(x.size()), means(s.c), rstds(s.c), new_rm(rm.size()), new_rv(rv.size());
  const W count = static_cast<W>(s.n * s.inner);
  for (size_t ch = 0; ch < s.c; ++ch) {
    W mean = 0, var = 0;
    if (training) {
      for_each_in_channel(s, ch, [&](size_t e) { mean += x[e]; });
      mean /= count;
      for_each_in_channel(s, ch, [&](size_t e) { var += (x[e] - mean) * (x[e] - mean); });
      if (!rm.empty()) {
        const W m = in_compute_dtype<W>(d, a.momentum), keep = in_compute_dtype<W>(d, 1.0 - a.momentum);
        new_rm[ch] = keep * rm[ch] + m * mean;
        new_rv[ch] = keep * rv[ch] + m * (var / (count - 1));
      }
      var /= count;
    } else {
      mean = rm[ch];
      var = rv[ch];
    }
    const W rstd = W(1) / std::sqrt(var + eps);
    for_each_in_channel(s, ch, [&](size_t e) {
      W v = (x[e] - mean) * rstd;
      if (!w.empty()) v *= w[ch];
      if (!b.empty()) v += b[ch];
      y[e] = v;
    });
    means[ch] = mean;
    rstds[ch] = rstd;
  }
  store(c.outputs[0], y);
  if (!training) return;
  store(c.outputs[1], means);
  store(c.outputs[2], rstds);
  store(c.outputs[3], new_rm);
  store(c.outputs[4], new_rv);
}

// With xhat = (x - mean) rstd per channel: grad_weight = sum(g xhat), grad_bias = sum(g),
// grad_input = w rstd (g - grad_bias / n - xhat grad_weight / n).
template <typename W>
void batch_norm_backward(const devplug_op_call_t& c) {
  const Channels s = channels_of(*c.inputs[1]);
  const std::vector<W> g = load<W>(c.inputs[0]), x = load<W>(c.inputs[1]), w = load<W>(c.inputs[2]);
  const std::vector<W> mean = load<W>(c.inputs[3]), rstd = load<W>(c.inputs[4]);
  std::vector<W> gi(x.size()), gw(s.c, W(0)), gb(s.c, W(0));
  const W n = static_cast<W>(s.n * s.inner);
  for (size_t ch = 0; ch < s.c; ++ch) {
    for_each_in_channel(s, ch, [&](size_t e) {
      gw[ch] += g[e] * (x[e] - mean[ch]) * rstd[ch];
      gb[ch] += g[e];
    });
    const W scale = (w.empty() ? W(1) : w[ch]) * rstd[ch];
    for_each_in_channel(s, ch, [&](size_t e) {
      const W xhat = (x[e] - mean[ch]) * rstd[ch];
      gi[e] = scale * (g[e] - gb[ch] / n - xhat * gw[ch] / n);
    });
  }
  store(c.outputs[0], gi);
  store(c.outputs[1], gw);
  store(c.outputs[2], gb);
}

DEVPLUG_COMPOSITE_KERNEL(mean_kernel, mean)
DEVPLUG_COMPOSITE_KERNEL(logsumexp_kernel, logsumexp)
DEVPLUG_COMPOSITE_KERNEL(softmax_kernel, softmax)
DEVPLUG_COMPOSITE_KERNEL(log_softmax_kernel, log_softmax)
DEVPLUG_COMPOSITE_KERNEL(softmax_backward_kernel, softmax_backward)
DEVPLUG_COMPOSITE_KERNEL(log_softmax_backward_kernel, log_softmax_backward)
DEVPLUG_COMPOSITE_KERNEL(layer_norm_kernel, layer_norm)
DEVPLUG_COMPOSITE_KERNEL(layer_norm_backward_kernel, layer_norm_backward)
DEVPLUG_COMPOSITE_KERNEL(batch_norm_kernel, batch_norm)
DEVPLUG_COMPOSITE_KERNEL(batch_norm_backward_kernel, batch_norm_backward)

}  // namespace

void register_composite_norm_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_mean, &mean_kernel);
  add_kernel(table, DEVPLUG_OP_logsumexp, &logsumexp_kernel);
  add_kernel(table, DEVPLUG_OP_softmax, &softmax_kernel);
  add_kernel(table, DEVPLUG_OP_log_softmax, &log_softmax_kernel);
  add_kernel(table, DEVPLUG_OP_softmax_backward, &softmax_backward_kernel);
  add_kernel(table, DEVPLUG_OP_log_softmax_backward, &log_softmax_backward_kernel);
  add_kernel(table, DEVPLUG_OP_layer_norm, &layer_norm_kernel);
  add_kernel(table, DEVPLUG_OP_rms_norm, &layer_norm_kernel);
  add_kernel(table, DEVPLUG_OP_layer_norm_backward, &layer_norm_backward_kernel);
  add_kernel(table, DEVPLUG_OP_rms_norm_backward, &layer_norm_backward_kernel);
  add_kernel(table, DEVPLUG_OP_batch_norm, &batch_norm_kernel);
  add_kernel(table, DEVPLUG_OP_batch_norm_training, &batch_norm_kernel);
  add_kernel(table, DEVPLUG_OP_batch_norm_backward, &batch_norm_backward_kernel);
}

}  // namespace devplug::reference
