// SPDX-License-Identifier: Apache-2.0
// The one place every devplug kernel is registered with torch: each ops file lists its
// rows (aten op, how it runs, the devplug ops behind it) in its register_* function, and
// they all run here under the PrivateUse1 key. op_rows() is what torch_devplug.native_ops()
// and docs/torch.md's op list come from.
#include <mutex>

#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

std::vector<OpRow>& rows() {
  static std::vector<OpRow> all;
  return all;
}

}  // namespace

void Table::record(const char* aten, Impl impl, const char* via) { rows().push_back(OpRow{aten, impl, via}); }

const std::vector<OpRow>& op_rows() { return rows(); }

const char* impl_name(Impl impl) {
  switch (impl) {
    case Impl::view:
      return "view";
    case Impl::prim:
      return "prim";
    case Impl::composite:
      return "composite";
    case Impl::bridge:
      return "bridge";
  }
  return "?";
}

}  // namespace devplug::bridge

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace devplug::bridge;
  Table t(m);
  register_tensor_ops(t);
  register_elementwise_ops(t);
  register_reduction_ops(t);
  register_index_ops(t);
  register_shape_ops(t);
  register_linalg_ops(t);
  register_random_ops(t);
  register_activation_ops(t);
  register_norm_ops(t);
  register_conv_ops(t);
  register_loss_ops(t);
  register_attention_ops(t);
  register_amp_ops(t);
  register_foreach_ops(t);
  register_fused_optimizer_ops(t);
  register_pointwise_ops(t);
  register_resample_ops(t);
}
