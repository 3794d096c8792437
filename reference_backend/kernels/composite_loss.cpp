// SPDX-License-Identifier: Apache-2.0
// Reference kernels of nll_loss, cross_entropy, mse_loss and their backward ops, written
// per sample from PyTorch's definitions (ignore_index, class weights, label smoothing and
// the reductions), in the wide type. Targets outside [0, C) that are not ignore_index are
// refused with INVALID_ARGUMENT.
#include "composite_common.hpp"
#include "kernels.hpp"

namespace devplug::reference {
namespace {

using namespace composite;

// input [N, C, D..] (or [C]) as N x C x D, target [N, D..] as N x D.
struct Classes {
  size_t N, C, D;
  size_t at(size_t n, size_t c, size_t d) const { return (n * C + c) * D + d; }
};

Classes classes_of(const devplug_tensor_desc_t& in) {
  if (in.rank == 1) return Classes{1, static_cast<size_t>(in.shape[0]), 1};
  const std::vector<int64_t> shape = shape_of(in);
  return Classes{static_cast<size_t>(shape[0]), static_cast<size_t>(shape[1]),
                 static_cast<size_t>(product(shape, 2))};
}

// Per sample: whether it counts, its target and its weight (0 when ignored).
struct Sample {
  bool counted;
  size_t target;
  long double weight;
};

std::vector<Sample> samples_of(const devplug_op_call_t& c, size_t target_input, size_t weight_input,
                               size_t classes) {
  const auto& a = attrs_of<devplug_loss_attrs_t>(c);
  const std::vector<int64_t> target = load_integers(c.inputs[target_input]);
  const std::vector<long double> weight = load<long double>(c.inputs[weight_input]);
  std::vector<Sample> out(target.size());
  for (size_t k = 0; k < target.size(); ++k) {
    const int64_t t = target[k];
    if (t == a.ignore_index) {
      out[k] = Sample{false, 0, 0};
      continue;
    }
    if (t < 0 || static_cast<size_t>(t) >= classes)
      invalid("target " + std::to_string(t) + " is outside [0, " + std::to_string(classes) +
              ") and not ignore_index");
    out[k] = Sample{true, static_cast<size_t>(t), weight.empty() ? 1.0L : weight[static_cast<size_t>(t)]};
  }
  return out;
}

template <typename W>
W weight_sum(const std::vector<Sample>& samples) {
  W sum = 0;
  for (const Sample& s : samples) sum += static_cast<W>(s.weight);
  return sum;
}

// log_softmax over the classes of sample (n, d).
template <typename W>
std::vector<W> log_softmax_at(const std::vector<W>& x, const Classes& s, size_t n, size_t d) {
  W m = -INFINITY;
  bool nan = false;
  for (size_t c = 0; c < s.C; ++c) {
    const W v = x[s.at(n, c, d)];
    nan = nan || std::isnan(v);
    m = std::max(m, v);
  }
  if (nan) m = NAN;
  W sum = 0;
  for (size_t c = 0; c < s.C; ++c) sum += std::exp(x[s.at(n, c, d)] - m);
  std::vector<W> out(s.C);
  for (size_t c = 0; c < s.C; ++c) out[c] = x[s.at(n, c, d)] - m - std::log(sum);
  return out;
}

// The loss of every sample reduced as attrs.reduction says (mean divides by `denominator`).
template <typename W>
std::vector<W> reduce_loss(const devplug_op_call_t& c, const std::vector<W>& loss, W denominator) {
  const int32_t reduction = attrs_of<devplug_loss_attrs_t>(c).reduction;
  if (reduction == DEVPLUG_REDUCTION_NONE) return loss;
  W sum = 0;
  for (W v : loss) sum += v;
  return {reduction == DEVPLUG_REDUCTION_SUM ? sum : sum / denominator};
}

template <typename W>
void nll_loss(const devplug_op_call_t& c) {
  const Classes s = classes_of(*c.inputs[0]);
  const std::vector<W> x = load<W>(c.inputs[0]);
  const std::vector<Sample> samples = samples_of(c, 1, 2, s.C);
  std::vector<W> loss(samples.size(), W(0));
  for (size_t k = 0; k < samples.size(); ++k)
    if (samples[k].counted)
      loss[k] = -static_cast<W>(samples[k].weight) * x[s.at(k / s.D, samples[k].target, k % s.D)];
  store(c.outputs[0], reduce_loss(c, loss, weight_sum<W>(samples)));
}

template <typename W>
void cross_entropy(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_loss_attrs_t>(c);
  const Classes s = classes_of(*c.inputs[0]);
  const std::vector<W> x = load<W>(c.inputs[0]), weight = load<W>(c.inputs[2]);
  const std::vector<Sample> samples = samples_of(c, 1, 2, s.C);
  std::vector<W> nll(samples.size(), W(0)), smooth(samples.size(), W(0));
  for (size_t k = 0; k < samples.size(); ++k) {
    if (!samples[k].counted) continue;
    const std::vector<W> lsm = log_softmax_at(x, s, k / s.D, k % s.D);
    nll[k] = -static_cast<W>(samples[k].weight) * lsm[samples[k].target];
    for (size_t cl = 0; cl < s.C; ++cl) smooth[k] -= (weight.empty() ? W(1) : weight[cl]) * lsm[cl];
  }
  const W denominator = weight_sum<W>(samples);
  const std::vector<W> a_part = reduce_loss(c, nll, denominator),
                       b_part = reduce_loss(c, smooth, denominator);
  const W s_value = static_cast<W>(a.label_smoothing);
  std::vector<W> out(a_part.size());
  for (size_t k = 0; k < out.size(); ++k)
    out[k] =
        s_value > 0 ? (W(1) - s_value) * a_part[k] + s_value / static_cast<W>(s.C) * b_part[k] : a_part[k];
  store(c.outputs[0], out);
}

template <typename W>
void mse_loss(const devplug_op_call_t& c) {
  const std::vector<W> x = load<W>(c.inputs[0]), t = load<W>(c.inputs[1]);
  std::vector<W> loss(x.size());
  for (size_t k = 0; k < x.size(); ++k) loss[k] = (x[k] - t[k]) * (x[k] - t[k]);
  store(c.outputs[0], reduce_loss(c, loss, static_cast<W>(x.size())));
}

// The grad each sample sees: its own (none), or the 0-d grad, divided by `denominator`
// for mean.
template <typename W>
W sample_grad(const devplug_op_call_t& c, const std::vector<W>& g, size_t k, W denominator) {
  const int32_t reduction = attrs_of<devplug_loss_attrs_t>(c).reduction;
  if (reduction == DEVPLUG_REDUCTION_NONE) return g[k];
  return reduction == DEVPLUG_REDUCTION_SUM ? g[0] : g[0] / denominator;
}

template <typename W>
void nll_loss_backward(const devplug_op_call_t& c) {
  const Classes s = classes_of(*c.inputs[1]);
  const std::vector<W> g = load<W>(c.inputs[0]);
  const std::vector<Sample> samples = samples_of(c, 2, 3, s.C);
  const W denominator = weight_sum<W>(samples);
  std::vector<W> gi(s.N * s.C * s.D, W(0));
  for (size_t k = 0; k < samples.size(); ++k)
    if (samples[k].counted)
      gi[s.at(k / s.D, samples[k].target, k % s.D)] =
          -static_cast<W>(samples[k].weight) * sample_grad(c, g, k, denominator);
  store(c.outputs[0], gi);
}

// d/dx of (1 - s) nll + s / C smooth: (1 - s) w_t (sm - onehot) + s / C (sm sum(w) - w).
template <typename W>
void cross_entropy_backward(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_loss_attrs_t>(c);
  const Classes s = classes_of(*c.inputs[1]);
  const std::vector<W> g = load<W>(c.inputs[0]), x = load<W>(c.inputs[1]), weight = load<W>(c.inputs[3]);
  const std::vector<Sample> samples = samples_of(c, 2, 3, s.C);
  const W denominator = weight_sum<W>(samples), smoothing = static_cast<W>(a.label_smoothing);
  W sum_w = 0;
  for (size_t cl = 0; cl < s.C; ++cl) sum_w += weight.empty() ? W(1) : weight[cl];
  std::vector<W> gi(s.N * s.C * s.D, W(0));
  for (size_t k = 0; k < samples.size(); ++k) {
    if (!samples[k].counted) continue;
    const size_t n = k / s.D, d = k % s.D;
    const std::vector<W> lsm = log_softmax_at(x, s, n, d);
    const W gk = sample_grad(c, g, k, denominator), wt = static_cast<W>(samples[k].weight);
    for (size_t cl = 0; cl < s.C; ++cl) {
      const W sm = std::exp(lsm[cl]);
      W v = wt * (sm - (cl == samples[k].target ? W(1) : W(0)));
      if (smoothing > 0) {
        const W wc = weight.empty() ? W(1) : weight[cl];
        v = (W(1) - smoothing) * v + smoothing / static_cast<W>(s.C) * (sm * sum_w - wc);
      }
      gi[s.at(n, cl, d)] = v * gk;
    }
  }
  store(c.outputs[0], gi);
}

template <typename W>
void mse_loss_backward(const devplug_op_call_t& c) {
  const std::vector<W> g = load<W>(c.inputs[0]), x = load<W>(c.inputs[1]), t = load<W>(c.inputs[2]);
  std::vector<W> gi(x.size());
  for (size_t k = 0; k < x.size(); ++k)
    gi[k] = W(2) * (x[k] - t[k]) * sample_grad(c, g, k, static_cast<W>(x.size()));
  store(c.outputs[0], gi);
}

DEVPLUG_COMPOSITE_KERNEL(nll_loss_kernel, nll_loss)
DEVPLUG_COMPOSITE_KERNEL(cross_entropy_kernel, cross_entropy)
DEVPLUG_COMPOSITE_KERNEL(mse_loss_kernel, mse_loss)
DEVPLUG_COMPOSITE_KERNEL(nll_loss_backward_kernel, nll_loss_backward)
DEVPLUG_COMPOSITE_KERNEL(cross_entropy_backward_kernel, cross_entropy_backward)
DEVPLUG_COMPOSITE_KERNEL(mse_loss_backward_kernel, mse_loss_backward)

}  // namespace

void register_composite_loss_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_nll_loss, &nll_loss_kernel);
  add_kernel(table, DEVPLUG_OP_cross_entropy, &cross_entropy_kernel);
  add_kernel(table, DEVPLUG_OP_mse_loss, &mse_loss_kernel);
  add_kernel(table, DEVPLUG_OP_nll_loss_backward, &nll_loss_backward_kernel);
  add_kernel(table, DEVPLUG_OP_cross_entropy_backward, &cross_entropy_backward_kernel);
  add_kernel(table, DEVPLUG_OP_mse_loss_backward, &mse_loss_backward_kernel);
}

}  // namespace devplug::reference
