// SPDX-License-Identifier: Apache-2.0
// Autocast for devplug tensors: torch.autocast("devplug", dtype=...) with torch's standard
// policy, registered for the AutocastPrivateUse1 key from the op lists of torch's own
// ATen/autocast_mode.h, the lists CUDA and XPU use:
//
//   lower_precision_fp  the autocast dtype (float16 or bfloat16): the matmul and conv family,
//                       linear, attention, RNN cells (AT_FORALL_LOWER_PRECISION_FP)
//   fp32                float32: exp, log, pow, norms, losses, upsampling, ... (AT_FORALL_FP32),
//                       and cross_entropy_loss (torch's CPU autocast lists it; CUDA's leaves it
//                       out, and its log_softmax then runs in the logits' dtype, which
//                       cross_entropy passes as log_softmax's dtype argument)
//   fp32_set_opt_dtype  float32 through the op's dtype argument: softmax, log_softmax, sum,
//                       prod, cumsum, vector norms (AT_FORALL_FP32_SET_OPT_DTYPE)
//   fp32_append_dtype   norm.Scalar and norm.ScalarOpt_dim, redispatched with float32
//   promote             the widest floating dtype of the inputs: addcmul, index_put, ...
//                       (AT_FORALL_PROMOTE), and cat, stack and index_copy (torch's CPU
//                       autocast lists these three; CUDA's kernels promote them natively)
//
// binary_cross_entropy is refused with torch's own message, as CUDA and XPU do: its input
// is a probability already rounded to the low dtype, which float32 cannot repair.
// Every other op falls through to the devplug kernels unchanged. torch 2.15 registers
// nothing for AutocastPrivateUse1 itself (not even the fallthrough), so the backend owns all
// of it. The casts and the weight cache are torch's (at::autocast::cached_cast).
#include <ATen/autocast_mode.h>
#include <torch/library.h>

namespace devplug::bridge {
namespace {

// The op lists name these types unqualified.
using at::IntArrayRef;
using at::Scalar;
using at::ScalarType;
using at::Tensor;

at::Tensor binary_cross_entropy_refused(const at::Tensor&, const at::Tensor&,
                                        const std::optional<at::Tensor>&, int64_t) {
  TORCH_CHECK(
      false,
      "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
      "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
      "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
      "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
      "safe to autocast.");
}

}  // namespace
}  // namespace devplug::bridge

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
  using namespace devplug::bridge;
#if __has_include(<ATen/core/Dimname.h>)
  using at::DimnameList;  // named unqualified by the signature list of torch 2.11
#endif
#define DEVPLUG_AUTOCAST_LOWER(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
#define DEVPLUG_AUTOCAST_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
#define DEVPLUG_AUTOCAST_FP32_SET_OPT_DTYPE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
#define DEVPLUG_AUTOCAST_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)
  AT_FORALL_LOWER_PRECISION_FP(DEVPLUG_AUTOCAST_LOWER)
  AT_FORALL_FP32(DEVPLUG_AUTOCAST_FP32)
  DEVPLUG_AUTOCAST_FP32(cross_entropy_loss)
  AT_FORALL_FP32_SET_OPT_DTYPE(DEVPLUG_AUTOCAST_FP32_SET_OPT_DTYPE)
  AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE)
  AT_FORALL_PROMOTE(DEVPLUG_AUTOCAST_PROMOTE)
  DEVPLUG_AUTOCAST_PROMOTE(cat)
  DEVPLUG_AUTOCAST_PROMOTE(stack)
  DEVPLUG_AUTOCAST_PROMOTE(index_copy)
#undef DEVPLUG_AUTOCAST_LOWER
#undef DEVPLUG_AUTOCAST_FP32
#undef DEVPLUG_AUTOCAST_FP32_SET_OPT_DTYPE
#undef DEVPLUG_AUTOCAST_PROMOTE
  m.impl(TORCH_SELECTIVE_NAME("aten::binary_cross_entropy"), TORCH_FN(binary_cross_entropy_refused));
}
