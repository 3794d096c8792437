// SPDX-License-Identifier: Apache-2.0
// The GPU plugins' kernel table, generated from ops.def: every prim with every dtype ops.def
// allows, routed by category to the family that implements it. Composites are not claimed:
// the dispatcher runs their decompositions on these prims.
#include "gpu_ops.hpp"

#include "devplug/sdk/error.hpp"
#include "devplug/sdk/kernel.hpp"

namespace devplug::gpu {
namespace {

using Runner = void (*)(devplug_stream_handle_t*, const devplug_op_call_t&);

Runner runner_for(devplug_op_t op) {
  switch (devplug_op_info(op)->category) {
    case DEVPLUG_CATEGORY_unary:
      return run_unary;
    case DEVPLUG_CATEGORY_binary:
      return run_binary;
    case DEVPLUG_CATEGORY_compare:
      return run_compare;
    case DEVPLUG_CATEGORY_ternary:
      return run_where;
    case DEVPLUG_CATEGORY_data:
      return run_data;
    case DEVPLUG_CATEGORY_reduce:
      return run_reduce;
    case DEVPLUG_CATEGORY_scan:
      return run_scan;
    case DEVPLUG_CATEGORY_index:
      return run_index;
    case DEVPLUG_CATEGORY_shape:
      return run_shape;
    case DEVPLUG_CATEGORY_random:
      return run_random;
    default:
      return nullptr;  // LINALG: the backend's matmul
  }
}

// The SDK's prologue, then the runner of the op's family; an op without one is UNIMPLEMENTED.
devplug_error_t* table_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    Runner run = runner_for(call->op);
    if (run == nullptr)
      sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(devplug_op_name(call->op)) + ": no GPU kernel");
    run(stream, *call);
  });
}

}  // namespace

devplug_error_t* matmul_tiled_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    sdk::check_argument(call->op == DEVPLUG_OP_matmul, "matmul kernel called for another op");
    run_matmul_tiled(stream, *call);
  });
}

const sdk::KernelTable& kernel_table(devplug_kernel_fn matmul) {
  static const sdk::KernelTable table = [&] {
    sdk::KernelTable t;
    for (devplug_op_t op : sdk::all_ops()) {
      const devplug_op_info_t* info = devplug_op_info(op);
      if (info->category == DEVPLUG_CATEGORY_composite) continue;
      const bool linalg = info->category == DEVPLUG_CATEGORY_linalg;
      t.add(op, info->dtypes, 0, linalg ? matmul : table_kernel);
    }
    return t;
  }();
  return table;
}

}  // namespace devplug::gpu
