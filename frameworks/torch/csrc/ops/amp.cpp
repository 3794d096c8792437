// SPDX-License-Identifier: Apache-2.0
// The two aten ops of torch.amp.GradScaler, on the device: the non-finite check and unscale
// of a list of gradients, and the update of the loss scale and its growth tracker. Both
// keep found_inf, the scale and the tracker on the device (no host round trip); the
// GradScaler's own `found_inf.item()` before the optimizer step is the only read back.
//
// Values follow torch's CPU kernels (ATen's AmpGradScalerKernels): a gradient is multiplied
// by inv_scale in float32 (float64 for a float64 gradient) and rounded once to its dtype;
// a non-finite element anywhere sets found_inf to 1.0 and leaves it alone otherwise; the
// scale backs off on found_inf, and grows after growth_interval clean steps only when the
// grown scale is finite.
#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// Throws torch's error unless `t` is a 1-element tensor of `dtype` on `dev`'s device;
// `a_dtype` names the dtype with its article, as torch's messages do ("a float").
void check_scalar_tensor(const Dev& dev, const at::Tensor& t, at::ScalarType dtype, const char* name,
                         const char* a_dtype) {
  TORCH_CHECK(t.defined(), name, " must be a defined tensor.");
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1 && t.device().index() == dev.index(), name,
              " must be on devplug:", static_cast<int>(dev.index()),
              " with the other tensors, got a tensor on ", t.device());
  TORCH_CHECK(t.numel() == 1, name, " must be a 1-element tensor.");
  TORCH_CHECK(t.scalar_type() == dtype, name, " must be ", a_dtype, " tensor.");
}

// The device of the first devplug tensor among `tensors` and `found_inf`.
Dev device_of(at::TensorList tensors, const at::Tensor& found_inf) {
  std::optional<c10::Device> found;
  if (found_inf.defined() && found_inf.device().type() == c10::DeviceType::PrivateUse1)
    found = found_inf.device();
  for (const at::Tensor& t : tensors)
    if (!found && t.defined() && t.device().type() == c10::DeviceType::PrivateUse1) found = t.device();
  TORCH_CHECK(found.has_value(), "found_inf must be a devplug tensor when scaled_grads are.");
  return Dev(found->index());
}

void non_finite_check_and_unscale(at::TensorList scaled_grads, at::Tensor& found_inf,
                                  const at::Tensor& inv_scale) {
  Dev dev = device_of(scaled_grads, found_inf);
  check_scalar_tensor(dev, found_inf, at::kFloat, "found_inf", "a float");
  check_scalar_tensor(dev, inv_scale, at::kFloat, "inv_scale", "a float");
  for (const at::Tensor& g : scaled_grads) {
    TORCH_CHECK(g.defined(), "One of scaled_grads was an undefined tensor.");
    TORCH_CHECK(g.layout() == at::kStrided, "One of scaled_grads was not a strided tensor.");
    TORCH_CHECK(g.device() == found_inf.device(),
                "scaled_grads, found_inf, and inv_scale must be on the same device, got a gradient on ",
                g.device(), " and found_inf on ", found_inf.device());
    TORCH_CHECK(c10::isFloatingType(g.scalar_type()), "One of scaled_grads has dtype ", g.scalar_type(),
                "; gradients to unscale must be floating point.");
  }
  if (scaled_grads.empty()) return;
  DTensor inv = view_of(inv_scale).reshape({});
  OptDTensor inv64;       // inv_scale as float64, made for the first float64 gradient
  OptDTensor all_finite;  // bool []: every element seen so far is finite
  for (const at::Tensor& grad : scaled_grads) {
    if (grad.numel() == 0) continue;
    DTensor g = view_of(grad);
    DTensor x = g.rank() == 0 ? g.reshape({1}) : g;
    DTensor finite = dev.reduce(DEVPLUG_OP_all, dev.ew(DEVPLUG_OP_isfinite, {x}), (1u << x.rank()) - 1u);
    finite = finite.reshape({});
    all_finite = all_finite ? dev.ew(DEVPLUG_OP_bitwise_and, {*all_finite, finite}) : finite;
    // float16 and bfloat16 gradients are multiplied in float32 and rounded once, as torch.
    if (g.dtype() == DEVPLUG_DTYPE_FLOAT64) {
      if (!inv64) inv64 = dev.cast(inv, DEVPLUG_DTYPE_FLOAT64);
      dev.ew_into(DEVPLUG_OP_mul, {g, *inv64}, g);
    } else {
      dev.ew_into(DEVPLUG_OP_mul, {dev.cast(g, DEVPLUG_DTYPE_FLOAT32), inv}, g);
    }
  }
  if (!all_finite) return;
  DTensor found = view_of(found_inf).reshape({});
  dev.ew_into(DEVPLUG_OP_where, {*all_finite, found, dev.scalar(DEVPLUG_DTYPE_FLOAT32, 1.0)}, found);
}

at::Tensor& update_scale(at::Tensor& current_scale, at::Tensor& growth_tracker, const at::Tensor& found_inf,
                         double growth_factor, double backoff_factor, int64_t growth_interval) {
  Dev dev = Dev::of({&current_scale, &growth_tracker, &found_inf});
  check_scalar_tensor(dev, current_scale, at::kFloat, "current_scale", "a float");
  check_scalar_tensor(dev, growth_tracker, at::kInt, "growth_tracker", "an int");
  check_scalar_tensor(dev, found_inf, at::kFloat, "found_inf", "a float");
  DTensor scale = view_of(current_scale).reshape({});
  DTensor tracker = view_of(growth_tracker).reshape({});
  DTensor inf =
      dev.ew(DEVPLUG_OP_ne, {view_of(found_inf).reshape({}), dev.scalar(DEVPLUG_DTYPE_FLOAT32, 0.0)});
  DTensor successful = dev.ew_scalar(DEVPLUG_OP_add, tracker, 1);
  DTensor due = dev.ew(DEVPLUG_OP_eq, {successful, dev.scalar(DEVPLUG_DTYPE_INT64, growth_interval)});
  // The factors are rounded to float32 before multiplying, as torch's kernels do.
  DTensor grown =
      dev.ew_scalar(DEVPLUG_OP_mul, scale, static_cast<double>(static_cast<float>(growth_factor)));
  DTensor backed =
      dev.ew_scalar(DEVPLUG_OP_mul, scale, static_cast<double>(static_cast<float>(backoff_factor)));
  DTensor grow = dev.ew(DEVPLUG_OP_bitwise_and, {due, dev.ew(DEVPLUG_OP_isfinite, {grown})});
  DTensor new_scale = dev.ew(DEVPLUG_OP_where, {inf, backed, dev.ew(DEVPLUG_OP_where, {grow, grown, scale})});
  DTensor reset = dev.ew(DEVPLUG_OP_bitwise_or, {inf, due});
  DTensor new_tracker = dev.ew(DEVPLUG_OP_where, {reset, dev.scalar(DEVPLUG_DTYPE_INT32, 0), successful});
  dev.copy(new_scale, scale);
  dev.copy(new_tracker, tracker);
  return current_scale;
}

}  // namespace

void register_amp_ops(Table& t) {
  const auto B = Impl::bridge;
  t.add("_amp_foreach_non_finite_check_and_unscale_", B, "isfinite, all, bitwise_and, mul, where",
        DEVPLUG_KERNEL(non_finite_check_and_unscale));
  t.add("_amp_update_scale_", B, "ne, add, eq, mul, isfinite, bitwise_and, bitwise_or, where",
        DEVPLUG_KERNEL(update_scale));
}

}  // namespace devplug::bridge
