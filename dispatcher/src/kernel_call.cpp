// SPDX-License-Identifier: Apache-2.0
// Builds kernel call frames from host tensors (see kernel_call.hpp).
#include "kernel_call.hpp"

#include "device.hpp"
#include "graph.hpp"

#include <memory>

namespace devplug::detail {
namespace {

// Points `out[i]` at each tensor's own descriptor; a NULL tensor (an absent optional tensor
// of a composite) is a NULL descriptor.
void point_at(const devplug_tensor_t* const* tensors, size_t n, const devplug_tensor_desc_t** out) noexcept {
  for (size_t i = 0; i < n; ++i) out[i] = tensors[i] == nullptr ? nullptr : &tensors[i]->desc;
}

}  // namespace

devplug_error_t* declined_error() noexcept {
  static devplug_error_t declined = {sizeof(devplug_error_t), DEVPLUG_CODE_UNIMPLEMENTED, 0,
                                     "the device's claims hook declined the call"};
  return &declined;
}

devplug_error_t* call_kernel(const devplug_stream_t& stream, devplug_kernel_fn fn, const OpCall& op_call) {
  const size_t n_inputs = op_call.n_inputs, n_outputs = op_call.n_outputs;
  const devplug_tensor_desc_t* stack[2 * kStackTensors];
  std::unique_ptr<const devplug_tensor_desc_t*[]> heap;  // cat with many inputs
  const devplug_tensor_desc_t** in = stack;
  if (n_inputs > kStackTensors || n_outputs > kStackTensors) {
    heap.reset(new const devplug_tensor_desc_t*[n_inputs + n_outputs]);
    in = heap.get();
  }
  const devplug_tensor_desc_t** out = in + n_inputs;
  point_at(op_call.inputs, n_inputs, in);
  point_at(op_call.outputs, n_outputs, out);
  devplug_op_call_t call;
  call.struct_size = sizeof(call);
  call.op = op_call.op;
  call.inputs = in;
  call.n_inputs = n_inputs;
  call.outputs = out;
  call.n_outputs = n_outputs;
  call.attrs = op_call.attrs;
  const devplug_device_t& device = *stream.device;
  if (device.supports != nullptr && !device.supports(device.native.load(std::memory_order_acquire), &call))
    return declined_error();
  if (stream.capture != nullptr) {
    record_kernel(stream, fn, call, op_call.inputs, op_call.outputs);
    return nullptr;
  }
  return fn(stream.native, &call);
}

}  // namespace devplug::detail
