// SPDX-License-Identifier: Apache-2.0
// Layer and batch normalization and their backward ops, on devplug's layer_norm,
// batch_norm, batch_norm_training and their backward composites. Layer norm's statistics are
// over the trailing normalized dims (mean and rstd keep the input's rank with those dims as
// 1, as torch returns them); batch norm's are per channel (dim 1) over the batch and spatial
// dims. Statistics are float32 for 16-bit inputs (devplug's `:acc`, as torch's CUDA keeps
// them). Composed in the bridge, where no composite covers the call: batch norm's backward
// in evaluation mode (its statistics are constants) and layer norm with an eps the composite
// refuses (negative or not finite; torch computes it, NaN included). Batch norm with such an
// eps runs on torch's CPU (counted).
#include <ATen/Functions.h>

#include <cmath>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

struct NormDims {
  int64_t axis;         // first normalized dim
  uint32_t normalized;  // mask of the normalized dims
  uint32_t batch;       // mask of the others
  int64_t count;        // elements per normalized group
};

NormDims norm_dims(const at::Tensor& input, at::IntArrayRef normalized_shape) {
  const int64_t rank = input.dim(), k = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(
      k >= 1,
      "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
      "but got normalized_shape = ",
      normalized_shape);
  TORCH_CHECK(rank >= k && input.sizes().slice(rank - k).equals(normalized_shape),
              "Given normalized_shape=", normalized_shape, ", expected input with shape [*, ",
              c10::Join(", ", normalized_shape), "], but got input of size", input.sizes());
  NormDims d{rank - k, 0, 0, 1};
  for (int64_t i = 0; i < rank; ++i) {
    if (i >= d.axis) {
      d.normalized |= 1u << i;
      d.count *= input.size(i);
    } else {
      d.batch |= 1u << i;
    }
  }
  return d;
}

std::vector<int64_t> stat_shape(const at::Tensor& input, int64_t axis) {
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < input.dim(); ++i) shape.push_back(i < axis ? input.size(i) : 1);
  return shape;
}

// An optional torch operand as a devplug tensor of `dtype` (composites take one dtype).
OptDTensor operand_as(const Dev& dev, const std::optional<at::Tensor>& t, devplug_dtype_t dtype) {
  if (!given(t)) return std::nullopt;
  return dev.cast(dev.operand(*t), dtype);
}

// An output of a composite that writes `dtype` into torch tensor `t` (undefined: absent):
// t itself, or a temporary that finish() casts into t.
class OutputOf {
 public:
  OutputOf(const Dev& dev, const at::Tensor& t, devplug_dtype_t dtype) : dev_(dev) {
    if (!t.defined()) return;
    target_ = view_of(t);
    slot_ = target_->dtype() == dtype ? *target_ : dev.empty(dtype, target_->shape());
  }
  const OptDTensor& slot() const { return slot_; }
  void finish() const {
    if (slot_ && slot_->dtype() != target_->dtype()) dev_.copy(dev_.cast(*slot_, target_->dtype()), *target_);
  }

 private:
  const Dev& dev_;
  OptDTensor target_, slot_;
};

// The eps the norm composites take (finite >= 0).
bool composite_eps(double eps) { return std::isfinite(eps) && eps >= 0; }

// Layer norm of any eps, from prims in the statistics' dtype, as torch's CPU kernel computes
// it: rstd = 1 / sqrt(var + eps) with the biased variance, so NaN where var + eps < 0.
void layer_norm_from_prims(const Dev& dev, const at::Tensor& input, const NormDims& nd,
                           const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
                           double eps, const at::Tensor& out, const at::Tensor& mean,
                           const at::Tensor& rstd) {
  const devplug_dtype_t acc = view_of(mean).dtype();
  DTensor x = dev.cast(view_of(input), acc);
  DTensor m =
      dev.ew(DEVPLUG_OP_div, {dev.reduce(DEVPLUG_OP_sum, x, nd.normalized), dev.scalar(acc, nd.count)});
  DTensor var = dev.reduce(DEVPLUG_OP_var, x, nd.normalized, /*correction=*/0.0);
  DTensor deviation = dev.ew(DEVPLUG_OP_sqrt, {dev.ew(DEVPLUG_OP_add, {var, dev.scalar(acc, eps)})});
  DTensor r = dev.ew(DEVPLUG_OP_div, {dev.scalar(acc, 1), deviation});
  DTensor y = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {x, m}), r});
  if (given(weight)) y = dev.ew(DEVPLUG_OP_mul, {y, dev.cast(dev.operand(*weight), acc)});
  if (given(bias)) y = dev.ew(DEVPLUG_OP_add, {y, dev.cast(dev.operand(*bias), acc)});
  dev.copy(m, view_of(mean));
  dev.copy(r, view_of(rstd));
  dev.copy(dev.cast(y, view_of(out).dtype()), view_of(out));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm(const at::Tensor& input,
                                                                 at::IntArrayRef normalized_shape,
                                                                 const std::optional<at::Tensor>& weight,
                                                                 const std::optional<at::Tensor>& bias,
                                                                 double eps) {
  const NormDims nd = norm_dims(input, normalized_shape);
  Dev dev = Dev::of(input);
  const devplug_dtype_t dtype = require_dtype(input.scalar_type(), "layer_norm's input");
  at::Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
  at::Tensor mean = empty_torch(dev, stat_shape(input, nd.axis), torch_dtype(opmath(dtype)));
  at::Tensor rstd = empty_torch(dev, stat_shape(input, nd.axis), torch_dtype(opmath(dtype)));
  if (input.numel() == 0) return {out, mean, rstd};
  if (!composite_eps(eps)) {
    layer_norm_from_prims(dev, input, nd, weight, bias, eps, out, mean, rstd);
    return {out, mean, rstd};
  }
  devplug_norm_attrs_t attrs{sizeof(attrs), static_cast<int32_t>(normalized_shape.size()), eps};
  dev.composite(DEVPLUG_OP_layer_norm,
                {view_of(input), operand_as(dev, weight, dtype), operand_as(dev, bias, dtype)},
                {view_of(out), view_of(mean), view_of(rstd)}, &attrs);
  return {out, mean, rstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, at::IntArrayRef normalized_shape,
    const at::Tensor& mean, const at::Tensor& rstd, const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& bias, std::array<bool, 3> output_mask) {
  norm_dims(input, normalized_shape);
  Dev dev = Dev::of({&grad_out, &input, &mean, &rstd});
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = at::empty_like(input, at::MemoryFormat::Contiguous);
  if (output_mask[1] && given(weight)) grad_weight = at::empty_like(*weight, at::MemoryFormat::Contiguous);
  if (output_mask[2] && given(bias)) grad_bias = at::empty_like(*bias, at::MemoryFormat::Contiguous);
  if (input.numel() == 0) {
    if (grad_weight.defined()) dev.fill(view_of(grad_weight), 0);
    if (grad_bias.defined()) dev.fill(view_of(grad_bias), 0);
    return {grad_input, grad_weight, grad_bias};
  }
  const devplug_dtype_t dtype = require_dtype(input.scalar_type(), "layer_norm's input");
  const OutputOf gi(dev, grad_input, dtype), gw(dev, grad_weight, dtype), gb(dev, grad_bias, dtype);
  devplug_norm_attrs_t attrs{sizeof(attrs), static_cast<int32_t>(normalized_shape.size()), 0.0};
  dev.composite(DEVPLUG_OP_layer_norm_backward,
                {dev.cast(view_of(grad_out), dtype), view_of(input), dev.cast(view_of(mean), opmath(dtype)),
                 dev.cast(view_of(rstd), opmath(dtype)), operand_as(dev, weight, dtype)},
                {gi.slot(), gw.slot(), gb.slot()}, &attrs);
  gi.finish();
  gw.finish();
  gb.finish();
  return {grad_input, grad_weight, grad_bias};
}

// ---- batch norm ------------------------------------------------------------------------------

struct ChannelDims {
  uint32_t reduce;  // every dim but the channel dim 1
  int64_t count;    // elements per channel
  Shape channel;    // [1, C, 1, ...]: a per-channel vector seen at the input's rank
};

ChannelDims channel_dims(const at::Tensor& input) {
  TORCH_CHECK(input.dim() >= 2, "batch_norm: expected an input with at least 2 dims (N, C, ...), got ",
              input.dim());
  ChannelDims d{0, 1, Shape(static_cast<size_t>(input.dim()), 1)};
  for (int64_t i = 0; i < input.dim(); ++i) {
    if (i == 1) continue;
    d.reduce |= 1u << i;
    d.count *= input.size(i);
  }
  d.channel[1] = input.size(1);
  return d;
}

// Returns (out, save_mean, save_invstd). Training normalizes with the batch statistics
// (batch_norm_training) and updates running_mean and running_var in place as torch does
// (momentum times the batch statistic, the variance unbiased); evaluation normalizes with
// the running statistics (batch_norm).
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_forward(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var,
    bool training, double momentum, double eps) {
  if (!composite_eps(eps) || !std::isfinite(momentum)) throw OnCpu{};
  const ChannelDims cd = channel_dims(input);
  Dev dev = Dev::of(input);
  const devplug_dtype_t dtype = require_dtype(input.scalar_type(), "batch_norm's input");
  at::Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
  const int64_t channels = input.size(1);
  if (!training) {
    TORCH_CHECK(given(running_mean) && given(running_var),
                "batch_norm: running_mean and running_var must be "
                "defined in evaluation mode");
  } else {
    TORCH_CHECK(cd.count > 1, "Expected more than 1 value per channel when training, got input size ",
                input.sizes());
  }
  at::Tensor save_mean = empty_torch(dev, {training ? channels : 0}, torch_dtype(opmath(dtype)));
  at::Tensor save_invstd = empty_torch(dev, {training ? channels : 0}, torch_dtype(opmath(dtype)));
  if (input.numel() == 0) return {out, save_mean, save_invstd};
  devplug_batch_norm_attrs_t attrs{sizeof(attrs), eps, momentum};
  const OptDTensor w = operand_as(dev, weight, dtype), b = operand_as(dev, bias, dtype);
  const OptDTensor rm = operand_as(dev, running_mean, dtype), rv = operand_as(dev, running_var, dtype);
  if (!training) {
    dev.composite(DEVPLUG_OP_batch_norm, {view_of(input), rm, rv, w, b}, {view_of(out)}, &attrs);
    return {out, save_mean, save_invstd};
  }
  const bool running = rm.has_value() && rv.has_value();
  const OutputOf new_mean(dev, running ? *running_mean : at::Tensor(), dtype);
  const OutputOf new_var(dev, running ? *running_var : at::Tensor(), dtype);
  dev.composite(DEVPLUG_OP_batch_norm_training,
                {view_of(input), w, b, running ? rm : std::nullopt, running ? rv : std::nullopt},
                {view_of(out), view_of(save_mean), view_of(save_invstd), new_mean.slot(), new_var.slot()},
                &attrs);
  new_mean.finish();
  new_var.finish();
  return {out, save_mean, save_invstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_legit(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    at::Tensor& running_mean, at::Tensor& running_var, bool training, double momentum, double eps) {
  return batch_norm_forward(input, weight, bias, running_mean, running_var, training, momentum, eps);
}
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_no_stats(const at::Tensor& input,
                                                                   const std::optional<at::Tensor>& weight,
                                                                   const std::optional<at::Tensor>& bias,
                                                                   bool training, double momentum,
                                                                   double eps) {
  return batch_norm_forward(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_no_training(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    const at::Tensor& running_mean, const at::Tensor& running_var, double momentum, double eps) {
  return batch_norm_forward(input, weight, bias, running_mean, running_var, false, momentum, eps);
}
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> batch_norm_with_update(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    at::Tensor& running_mean, at::Tensor& running_var, double momentum, double eps) {
  auto [out, save_mean, save_invstd] =
      batch_norm_forward(input, weight, bias, running_mean, running_var, true, momentum, eps);
  at::Tensor reserve = empty_torch(Dev::of(input), {0}, at::kByte);
  return {out, save_mean, save_invstd, reserve};
}

// Training: the batch_norm_backward composite, from the saved batch statistics. Evaluation:
// the statistics are constants, so dx = g * w * invstd (composed here; no composite).
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward_impl(
    const at::Tensor& grad_out, const at::Tensor& input, const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var,
    const std::optional<at::Tensor>& save_mean, const std::optional<at::Tensor>& save_invstd, bool train,
    double eps, std::array<bool, 3> output_mask) {
  if (train && !composite_eps(eps)) throw OnCpu{};
  const ChannelDims cd = channel_dims(input);
  Dev dev = Dev::of({&grad_out, &input});
  const devplug_dtype_t dtype = require_dtype(input.scalar_type(), "batch_norm's input");
  const devplug_dtype_t c = opmath(dtype);
  const int64_t channels = input.size(1);
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = at::empty_like(input, at::MemoryFormat::Contiguous);
  if (output_mask[1])
    grad_weight = empty_torch(dev, {channels}, given(weight) ? weight->scalar_type() : input.scalar_type());
  if (output_mask[2])
    grad_bias = empty_torch(dev, {channels}, given(weight) ? weight->scalar_type() : input.scalar_type());
  if (input.numel() == 0) {
    if (grad_weight.defined()) dev.fill(view_of(grad_weight), 0);
    if (grad_bias.defined()) dev.fill(view_of(grad_bias), 0);
    return {grad_input, grad_weight, grad_bias};
  }
  TORCH_CHECK(train ? given(save_mean) && given(save_invstd) : given(running_mean) && given(running_var),
              "batch_norm_backward: the statistics of the forward pass are missing");
  if (train) {
    const OutputOf gi(dev, grad_input, dtype), gw(dev, grad_weight, dtype), gb(dev, grad_bias, dtype);
    devplug_batch_norm_attrs_t attrs{sizeof(attrs), eps, 0.0};
    dev.composite(DEVPLUG_OP_batch_norm_backward,
                  {dev.cast(view_of(grad_out), dtype), view_of(input), operand_as(dev, weight, dtype),
                   operand_as(dev, save_mean, c), operand_as(dev, save_invstd, c)},
                  {gi.slot(), gw.slot(), gb.slot()}, &attrs);
    gi.finish();
    gw.finish();
    gb.finish();
    return {grad_input, grad_weight, grad_bias};
  }
  auto per_channel = [&](const at::Tensor& t) {
    return dev.cast(dev.contiguous(dev.operand(t)), c).reshape(cd.channel);
  };
  DTensor x = dev.cast(view_of(input), c), g = dev.cast(view_of(grad_out), c);
  DTensor invstd =
      dev.ew(DEVPLUG_OP_rsqrt, {dev.ew(DEVPLUG_OP_add, {per_channel(*running_var), dev.scalar(c, eps)})});
  if (grad_input.defined()) {
    DTensor dy = given(weight) ? dev.ew(DEVPLUG_OP_mul, {g, per_channel(*weight)}) : g;
    DTensor target = view_of(grad_input);
    dev.copy(dev.cast(dev.ew(DEVPLUG_OP_mul, {dy, invstd}), target.dtype()), target);
  }
  auto channel_sum = [&](const DTensor& t, const at::Tensor& out) {
    DTensor target = view_of(out);
    dev.copy(dev.cast(dev.reduce(DEVPLUG_OP_sum, t, cd.reduce).reshape({channels}), target.dtype()), target);
  };
  if (grad_weight.defined()) {
    DTensor xhat = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {x, per_channel(*running_mean)}), invstd});
    channel_sum(dev.ew(DEVPLUG_OP_mul, {g, xhat}), grad_weight);
  }
  if (grad_bias.defined()) channel_sum(g, grad_bias);
  return {grad_input, grad_weight, grad_bias};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward_new(
    const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& weight,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var,
    const std::optional<at::Tensor>& save_mean, const std::optional<at::Tensor>& save_invstd, bool update,
    double eps, std::array<bool, 3> output_mask, const at::Tensor& /*reserve*/) {
  return batch_norm_backward_impl(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd,
                                  update, eps, output_mask);
}

}  // namespace

void register_norm_ops(Table& t) {
  const auto C = Impl::composite;
  const char* bn = "batch_norm_training (training), batch_norm (evaluation)";
  const char* bn_backward = "batch_norm_backward (training); else rsqrt, mul, sum (evaluation)";
  t.add("native_batch_norm", C, bn, DEVPLUG_KERNEL(batch_norm_forward));
  t.add("_native_batch_norm_legit", C, bn, DEVPLUG_KERNEL(batch_norm_legit));
  t.add("_native_batch_norm_legit.no_stats", C, "batch_norm_training", DEVPLUG_KERNEL(batch_norm_no_stats));
  t.add("_native_batch_norm_legit_no_training", C, "batch_norm", DEVPLUG_KERNEL(batch_norm_no_training));
  t.add("_batch_norm_with_update", C, "batch_norm_training", DEVPLUG_KERNEL(batch_norm_with_update));
  t.add("native_batch_norm_backward", C, bn_backward, DEVPLUG_KERNEL(batch_norm_backward_impl));
  t.add("batch_norm_backward", C, bn_backward, DEVPLUG_KERNEL(batch_norm_backward_new));
  t.add("native_layer_norm", C, "layer_norm", DEVPLUG_KERNEL(native_layer_norm));
  t.add("native_layer_norm_backward", C, "layer_norm_backward", DEVPLUG_KERNEL(native_layer_norm_backward));
}

}  // namespace devplug::bridge
