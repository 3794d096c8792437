// SPDX-License-Identifier: Apache-2.0
// The kernel table of the OpenCL C kernels and the call check every kernel starts with.
#include "ops.hpp"

#include "devplug/sdk/entry.hpp"

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

void check_kernel_call(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  sdk::check_not_null(stream, "stream");
  sdk::check_call(call);
  devplug_device_handle_t* device = device_of(stream);
  for (size_t i = 0; i < call->n_inputs; ++i)  // NULL: a composite's absent optional tensor
    if (call->inputs[i] != nullptr && device_of(call->inputs[i]->buffer) != device)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "an input tensor lives on another device than the stream");
  for (size_t i = 0; i < call->n_outputs; ++i)
    if (call->outputs[i] != nullptr && device_of(call->outputs[i]->buffer) != device)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "the output tensor lives on another device than the stream");
}

}  // namespace devplug::clc
