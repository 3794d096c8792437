// Layer and batch normalization and their backward ops, composed in the bridge from
// devplug's reduce and elementwise prims (devplug's layer_norm and batch_norm composites
// replace the forwards when they land). Layer norm's statistics are over the trailing
// normalized dims (mean and rstd keep the input's rank with those dims as 1, as torch
// returns them); batch norm's are per channel (dim 1) over the batch and spatial dims.
#include <ATen/Functions.h>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

devplug_dtype_t opmath(devplug_dtype_t d) {
  return d == DEVPLUG_DTYPE_FLOAT16 || d == DEVPLUG_DTYPE_BFLOAT16 ? DEVPLUG_DTYPE_FLOAT32 : d;
}

struct NormDims {
  int64_t axis;         // first normalized dim
  uint32_t normalized;  // mask of the normalized dims
  uint32_t batch;       // mask of the others
  int64_t count;        // elements per normalized group
};

NormDims norm_dims(const at::Tensor& input, at::IntArrayRef normalized_shape) {
  const int64_t rank = input.dim(), k = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(k >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
              "but got normalized_shape = ", normalized_shape);
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

// `t` (of `normalized_shape`) viewed with leading size-1 dims to the input's rank.
DTensor param_view(const DTensor& t, int64_t axis) {
  Shape shape(static_cast<size_t>(axis), 1);
  for (int64_t s : t.shape()) shape.push_back(s);
  return t.reshape(shape);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm(const at::Tensor& input,
                                                                 at::IntArrayRef normalized_shape,
                                                                 const std::optional<at::Tensor>& weight,
                                                                 const std::optional<at::Tensor>& bias, double eps) {
  const NormDims nd = norm_dims(input, normalized_shape);
  Dev dev = Dev::of(input);
  at::Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
  at::Tensor mean = empty_torch(dev, stat_shape(input, nd.axis), input.scalar_type());
  at::Tensor rstd = empty_torch(dev, stat_shape(input, nd.axis), input.scalar_type());
  if (input.numel() == 0) return {out, mean, rstd};
  const devplug_dtype_t c = opmath(view_of(input).dtype());
  DTensor x = dev.cast(view_of(input), c);
  DTensor m = dev.ew(DEVPLUG_OP_div, {dev.reduce(DEVPLUG_OP_sum, x, nd.normalized), dev.scalar(c, nd.count)});
  DTensor var = dev.reduce(DEVPLUG_OP_var, x, nd.normalized, /*correction=*/0);
  DTensor r = dev.ew(DEVPLUG_OP_div, {dev.scalar(c, 1), dev.ew(DEVPLUG_OP_sqrt, {dev.ew(DEVPLUG_OP_add, {var, dev.scalar(c, eps)})})});
  DTensor y = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {x, m}), r});
  if (weight.has_value() && weight->defined()) y = dev.ew(DEVPLUG_OP_mul, {y, param_view(dev.contiguous(dev.operand(*weight)), nd.axis)});
  if (bias.has_value() && bias->defined()) y = dev.ew(DEVPLUG_OP_add, {y, param_view(dev.contiguous(dev.operand(*bias)), nd.axis)});
  DTensor target = view_of(out);
  dev.copy(dev.cast(y, target.dtype()), target);
  dev.copy(dev.cast(m, view_of(mean).dtype()), view_of(mean));
  dev.copy(dev.cast(r, view_of(rstd).dtype()), view_of(rstd));
  return {out, mean, rstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, at::IntArrayRef normalized_shape, const at::Tensor& mean,
    const at::Tensor& rstd, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    std::array<bool, 3> output_mask) {
  const NormDims nd = norm_dims(input, normalized_shape);
  Dev dev = Dev::of({&grad_out, &input, &mean, &rstd});
  const bool has_weight = weight.has_value() && weight->defined();
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = at::empty_like(input, at::MemoryFormat::Contiguous);
  if (output_mask[1] && has_weight) grad_weight = at::empty_like(*weight, at::MemoryFormat::Contiguous);
  if (output_mask[2] && bias.has_value() && bias->defined()) grad_bias = at::empty_like(*bias, at::MemoryFormat::Contiguous);
  if (input.numel() == 0) {
    if (grad_weight.defined()) dev.fill(view_of(grad_weight), 0);
    if (grad_bias.defined()) dev.fill(view_of(grad_bias), 0);
    return {grad_input, grad_weight, grad_bias};
  }
  const devplug_dtype_t c = opmath(view_of(input).dtype());
  DTensor x = dev.cast(view_of(input), c), g = dev.cast(view_of(grad_out), c);
  DTensor m = dev.cast(view_of(mean), c), r = dev.cast(view_of(rstd), c);
  DTensor xhat = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {x, m}), r});
  if (grad_input.defined()) {
    DTensor gw = has_weight ? dev.ew(DEVPLUG_OP_mul, {g, param_view(dev.contiguous(dev.cast(dev.operand(*weight), c)), nd.axis)}) : g;
    DTensor n = dev.scalar(c, nd.count);
    DTensor mean_gw = dev.ew(DEVPLUG_OP_div, {dev.reduce(DEVPLUG_OP_sum, gw, nd.normalized), n});
    DTensor mean_gwx = dev.ew(DEVPLUG_OP_div, {dev.reduce(DEVPLUG_OP_sum, dev.ew(DEVPLUG_OP_mul, {gw, xhat}), nd.normalized), n});
    // rstd * (gw - mean(gw) - xhat * mean(gw * xhat))
    DTensor inner = dev.ew(DEVPLUG_OP_sub, {dev.ew(DEVPLUG_OP_sub, {gw, mean_gw}), dev.ew(DEVPLUG_OP_mul, {xhat, mean_gwx})});
    DTensor target = view_of(grad_input);
    dev.copy(dev.cast(dev.ew(DEVPLUG_OP_mul, {r, inner}), target.dtype()), target);
  }
  auto batch_sum = [&](const DTensor& t, const at::Tensor& out) {
    DTensor s = nd.batch == 0 ? t : dev.reduce(DEVPLUG_OP_sum, t, nd.batch);
    DTensor target = view_of(out);
    dev.copy(dev.cast(s, target.dtype()).reshape(target.shape()), target);
  };
  if (grad_weight.defined()) batch_sum(dev.ew(DEVPLUG_OP_mul, {g, xhat}), grad_weight);
  if (grad_bias.defined()) batch_sum(g, grad_bias);
  return {grad_input, grad_weight, grad_bias};
}

// ---- batch norm ------------------------------------------------------------------------------

struct ChannelDims {
  uint32_t reduce;  // every dim but the channel dim 1
  int64_t count;    // elements per channel
  Shape channel;    // [1, C, 1, ...]: a per-channel vector seen at the input's rank
};

ChannelDims channel_dims(const at::Tensor& input) {
  TORCH_CHECK(input.dim() >= 2, "batch_norm: expected an input with at least 2 dims (N, C, ...), got ", input.dim());
  ChannelDims d{0, 1, Shape(static_cast<size_t>(input.dim()), 1)};
  for (int64_t i = 0; i < input.dim(); ++i) {
    if (i == 1) continue;
    d.reduce |= 1u << i;
    d.count *= input.size(i);
  }
  d.channel[1] = input.size(1);
  return d;
}

bool given(const std::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

// Returns (out, save_mean, save_invstd); in training, updates running_mean and running_var
// in place as torch does: momentum * batch statistic + (1 - momentum) * running value, with
// the unbiased variance.
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_forward(const at::Tensor& input, const std::optional<at::Tensor>& weight,
                                                          const std::optional<at::Tensor>& bias,
                                                          const std::optional<at::Tensor>& running_mean,
                                                          const std::optional<at::Tensor>& running_var, bool training,
                                                          double momentum, double eps) {
  const ChannelDims cd = channel_dims(input);
  Dev dev = Dev::of(input);
  const devplug_dtype_t c = opmath(view_of(input).dtype());
  const at::ScalarType stat_type = torch_dtype(c);
  at::Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
  const int64_t channels = input.size(1);
  if (!training) {
    TORCH_CHECK(given(running_mean) && given(running_var), "batch_norm: running_mean and running_var must be "
                "defined in evaluation mode");
  } else {
    TORCH_CHECK(cd.count > 1, "Expected more than 1 value per channel when training, got input size ", input.sizes());
  }
  at::Tensor save_mean = empty_torch(dev, {training ? channels : 0}, stat_type);
  at::Tensor save_invstd = empty_torch(dev, {training ? channels : 0}, stat_type);
  if (input.numel() == 0) return {out, save_mean, save_invstd};
  DTensor x = dev.cast(view_of(input), c);
  auto per_channel = [&](const at::Tensor& t) { return dev.cast(dev.contiguous(dev.operand(t)), c).reshape(cd.channel); };
  DTensor mean = training ? dev.ew(DEVPLUG_OP_div, {dev.reduce(DEVPLUG_OP_sum, x, cd.reduce), dev.scalar(c, cd.count)})
                          : per_channel(*running_mean);
  DTensor var = training ? dev.reduce(DEVPLUG_OP_var, x, cd.reduce, /*correction=*/0) : per_channel(*running_var);
  DTensor invstd = dev.ew(DEVPLUG_OP_div, {dev.scalar(c, 1), dev.ew(DEVPLUG_OP_sqrt, {dev.ew(DEVPLUG_OP_add, {var, dev.scalar(c, eps)})})});
  DTensor y = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {x, mean}), invstd});
  if (given(weight)) y = dev.ew(DEVPLUG_OP_mul, {y, per_channel(*weight)});
  if (given(bias)) y = dev.ew(DEVPLUG_OP_add, {y, per_channel(*bias)});
  DTensor target = view_of(out);
  dev.copy(dev.cast(y, target.dtype()), target);
  if (training) {
    dev.copy(mean.reshape({channels}), view_of(save_mean));
    dev.copy(invstd.reshape({channels}), view_of(save_invstd));
    auto update = [&](const std::optional<at::Tensor>& running, const DTensor& batch) {
      if (!given(running)) return;
      DTensor r = view_of(*running);
      DTensor blended = dev.ew(DEVPLUG_OP_add, {dev.ew(DEVPLUG_OP_mul, {dev.scalar(c, momentum), batch.reshape({channels})}),
                                                dev.ew(DEVPLUG_OP_mul, {dev.scalar(c, 1.0 - momentum), dev.cast(r, c)})});
      dev.copy(dev.cast(blended, r.dtype()), r);
    };
    update(running_mean, mean);
    const double unbias = static_cast<double>(cd.count) / static_cast<double>(cd.count - 1);
    update(running_var, dev.ew(DEVPLUG_OP_mul, {var, dev.scalar(c, unbias)}));
  }
  return {out, save_mean, save_invstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_legit(const at::Tensor& input,
                                                                const std::optional<at::Tensor>& weight,
                                                                const std::optional<at::Tensor>& bias,
                                                                at::Tensor& running_mean, at::Tensor& running_var,
                                                                bool training, double momentum, double eps) {
  return batch_norm_forward(input, weight, bias, running_mean, running_var, training, momentum, eps);
}
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_no_stats(const at::Tensor& input,
                                                                   const std::optional<at::Tensor>& weight,
                                                                   const std::optional<at::Tensor>& bias, bool training,
                                                                   double momentum, double eps) {
  return batch_norm_forward(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_no_training(const at::Tensor& input,
                                                                      const std::optional<at::Tensor>& weight,
                                                                      const std::optional<at::Tensor>& bias,
                                                                      const at::Tensor& running_mean,
                                                                      const at::Tensor& running_var, double momentum,
                                                                      double eps) {
  return batch_norm_forward(input, weight, bias, running_mean, running_var, false, momentum, eps);
}
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> batch_norm_with_update(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    at::Tensor& running_mean, at::Tensor& running_var, double momentum, double eps) {
  auto [out, save_mean, save_invstd] = batch_norm_forward(input, weight, bias, running_mean, running_var, true, momentum, eps);
  at::Tensor reserve = empty_torch(Dev::of(input), {0}, at::kByte);
  return {out, save_mean, save_invstd, reserve};
}

// dx = invstd * (dy - mean(dy) - xhat * mean(dy * xhat)) with dy = g * w in training; in
// evaluation the statistics are constants: dx = g * w * invstd.
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward_impl(
    const at::Tensor& grad_out, const at::Tensor& input, const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var,
    const std::optional<at::Tensor>& save_mean, const std::optional<at::Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const ChannelDims cd = channel_dims(input);
  Dev dev = Dev::of({&grad_out, &input});
  const devplug_dtype_t c = opmath(view_of(input).dtype());
  const int64_t channels = input.size(1);
  auto per_channel = [&](const at::Tensor& t) { return dev.cast(dev.contiguous(dev.operand(t)), c).reshape(cd.channel); };
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = at::empty_like(input, at::MemoryFormat::Contiguous);
  if (output_mask[1]) grad_weight = empty_torch(dev, {channels}, given(weight) ? weight->scalar_type() : input.scalar_type());
  if (output_mask[2]) grad_bias = empty_torch(dev, {channels}, given(weight) ? weight->scalar_type() : input.scalar_type());
  if (input.numel() == 0) {
    if (grad_weight.defined()) dev.fill(view_of(grad_weight), 0);
    if (grad_bias.defined()) dev.fill(view_of(grad_bias), 0);
    return {grad_input, grad_weight, grad_bias};
  }
  TORCH_CHECK(train ? given(save_mean) && given(save_invstd) : given(running_mean) && given(running_var),
              "batch_norm_backward: the statistics of the forward pass are missing");
  DTensor x = dev.cast(view_of(input), c), g = dev.cast(view_of(grad_out), c);
  DTensor mean = train ? per_channel(*save_mean) : per_channel(*running_mean);
  DTensor invstd = train ? per_channel(*save_invstd)
                         : dev.ew(DEVPLUG_OP_div, {dev.scalar(c, 1), dev.ew(DEVPLUG_OP_sqrt, {dev.ew(DEVPLUG_OP_add, {per_channel(*running_var), dev.scalar(c, eps)})})});
  DTensor xhat = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {x, mean}), invstd});
  if (grad_input.defined()) {
    DTensor dy = given(weight) ? dev.ew(DEVPLUG_OP_mul, {g, per_channel(*weight)}) : g;
    DTensor dx = [&] {
      if (!train) return dev.ew(DEVPLUG_OP_mul, {dy, invstd});
      DTensor n = dev.scalar(c, cd.count);
      DTensor mean_dy = dev.ew(DEVPLUG_OP_div, {dev.reduce(DEVPLUG_OP_sum, dy, cd.reduce), n});
      DTensor mean_dyx = dev.ew(DEVPLUG_OP_div, {dev.reduce(DEVPLUG_OP_sum, dev.ew(DEVPLUG_OP_mul, {dy, xhat}), cd.reduce), n});
      DTensor inner = dev.ew(DEVPLUG_OP_sub, {dev.ew(DEVPLUG_OP_sub, {dy, mean_dy}), dev.ew(DEVPLUG_OP_mul, {xhat, mean_dyx})});
      return dev.ew(DEVPLUG_OP_mul, {inner, invstd});
    }();
    DTensor target = view_of(grad_input);
    dev.copy(dev.cast(dx, target.dtype()), target);
  }
  auto channel_sum = [&](const DTensor& t, const at::Tensor& out) {
    DTensor target = view_of(out);
    dev.copy(dev.cast(dev.reduce(DEVPLUG_OP_sum, t, cd.reduce).reshape({channels}), target.dtype()), target);
  };
  if (grad_weight.defined()) channel_sum(dev.ew(DEVPLUG_OP_mul, {g, xhat}), grad_weight);
  if (grad_bias.defined()) channel_sum(g, grad_bias);
  return {grad_input, grad_weight, grad_bias};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward_new(
    const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& weight,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var,
    const std::optional<at::Tensor>& save_mean, const std::optional<at::Tensor>& save_invstd, bool update, double eps,
    std::array<bool, 3> output_mask, const at::Tensor& /*reserve*/) {
  return batch_norm_backward_impl(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, update, eps,
                             output_mask);
}

}  // namespace

void register_norm_ops(Table& t) {
  const char* bn = "sum, var, add, sqrt, div, sub, mul";
  t.add("native_batch_norm", Impl::bridge, bn, DEVPLUG_KERNEL(batch_norm_forward));
  t.add("_native_batch_norm_legit", Impl::bridge, bn, DEVPLUG_KERNEL(batch_norm_legit));
  t.add("_native_batch_norm_legit.no_stats", Impl::bridge, bn, DEVPLUG_KERNEL(batch_norm_no_stats));
  t.add("_native_batch_norm_legit_no_training", Impl::bridge, bn, DEVPLUG_KERNEL(batch_norm_no_training));
  t.add("_batch_norm_with_update", Impl::bridge, bn, DEVPLUG_KERNEL(batch_norm_with_update));
  t.add("native_batch_norm_backward", Impl::bridge, "sub, mul, sum, div", DEVPLUG_KERNEL(batch_norm_backward_impl));
  t.add("batch_norm_backward", Impl::bridge, "sub, mul, sum, div", DEVPLUG_KERNEL(batch_norm_backward_new));
  t.add("native_layer_norm", Impl::bridge, "sum, var, add, sqrt, div, sub, mul", DEVPLUG_KERNEL(native_layer_norm));
  t.add("native_layer_norm_backward", Impl::bridge, "sub, mul, sum, div", DEVPLUG_KERNEL(native_layer_norm_backward));
}

}  // namespace devplug::bridge
