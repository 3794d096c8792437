// SPDX-License-Identifier: Apache-2.0
// The kernel table of the OpenCL C kernels.
#include "ops.hpp"

namespace devplug::clc {

void register_prim_kernels(sdk::KernelTable& table) {
  register_elementwise_kernels(table, kClaimedDtypes);
  register_reduce_kernels(table, kClaimedDtypes);
  register_index_kernels(table, kClaimedDtypes);
  register_linalg_kernels(table, kClaimedDtypes);
  register_random_kernels(table, kClaimedDtypes);
}

const sdk::KernelTable& kernel_table() {
  static const sdk::KernelTable table = [] {
    sdk::KernelTable t;
    register_prim_kernels(t);
    return t;
  }();
  return table;
}

}  // namespace devplug::clc
