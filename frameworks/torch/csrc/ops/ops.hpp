// SPDX-License-Identifier: Apache-2.0
// The table of aten ops with devplug kernels, and the register_* functions of the ops
// files that fill it (registry.cpp calls them, in one place).
//
// Every row says how the op runs:
//   view    metadata only: torch's own view function on a devplug storage (it aliases)
//   prim    devplug prims that are the op itself (add is `add`, mm is `matmul`), with
//           devplug's broadcasting, promotion and casts around them
//   composite  devplug's composite op (softmax, layer_norm, conv2d, ...): the plugin's
//           native kernel where it has one, else devplug's decomposition on the device
//   bridge  composed in the bridge from devplug prims, for ops devplug has no composite for
//           (lerp is sub, mul, add), or cases a composite does not cover
// Ops without a row run on torch's CPU through the boxed fallback (fallback.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel.hpp"

namespace devplug::bridge {

enum class Impl { view, prim, composite, bridge };

struct OpRow {
  std::string aten;  // "add.Tensor"
  Impl impl;
  std::string via;  // the devplug ops it runs, for the docs and the report (a composite row
                    // names its composites first, then what the bridge adds around them)
};

// Registers kernels with torch (DEVPLUG_KERNEL's guarded for their op, kernel.hpp) and
// records their rows.
class Table {
 public:
  explicit Table(torch::Library& library) : library_(library) {}
  template <typename Kernel>
  void add(const char* aten, Impl impl, const char* via, Kernel&& kernel) {
    library_.impl(aten, registered(aten, std::forward<Kernel>(kernel)));
    record(aten, impl, via);
  }

 private:
  static void record(const char* aten, Impl impl, const char* via);
  torch::Library& library_;
};

// Every registered row, in registration order.
const std::vector<OpRow>& op_rows();
const char* impl_name(Impl impl);

void register_tensor_ops(Table& t);
void register_elementwise_ops(Table& t);
void register_reduction_ops(Table& t);
void register_index_ops(Table& t);
void register_shape_ops(Table& t);
void register_linalg_ops(Table& t);
void register_random_ops(Table& t);
void register_activation_ops(Table& t);
void register_norm_ops(Table& t);
void register_conv_ops(Table& t);
void register_loss_ops(Table& t);
void register_attention_ops(Table& t);
void register_amp_ops(Table& t);
void register_foreach_ops(Table& t);
void register_fused_optimizer_ops(Table& t);
void register_pointwise_ops(Table& t);
void register_resample_ops(Table& t);

}  // namespace devplug::bridge
