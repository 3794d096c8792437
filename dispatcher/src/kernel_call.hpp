// SPDX-License-Identifier: Apache-2.0
// Calling a plugin kernel: each host tensor's own descriptor is handed to the kernel, through
// a pointer array on the stack (no heap allocation for up to kStackTensors tensors per side).
#pragma once

#include "op_call.hpp"
#include "stream_event.hpp"
#include "tensor.hpp"

namespace devplug::detail {

// The most tensors per side whose descriptor pointers live on the stack (prims have at most 3
// inputs and 1 output, composites at most 5 of each); cat with more inputs allocates.
constexpr size_t kStackTensors = 5;

// What call_kernel returns for a call the device's `supports` hook declined: no plugin made
// it, so it is never destroyed; the caller falls back as for UNIMPLEMENTED.
devplug_error_t* declined_error() noexcept;

// Calls `fn(stream, call)` with the tensors' descriptors and returns the plugin's error (NULL
// on success), or declined_error() without calling it when the device's claims hook declines
// the call. The caller has validated the call. A NULL tensor (an absent optional tensor of a
// composite) is passed as a NULL descriptor pointer.
devplug_error_t* call_kernel(const devplug_stream_t& stream, devplug_kernel_fn fn, const OpCall& call);

// The dtype that picks the kernel (ops.def `result` column): input 1 for `select`, the
// output for `made`, input 0 otherwise. The call has been validated.
inline devplug_dtype_t dispatch_dtype(const devplug_op_info_t& info, const devplug_tensor_t* const* inputs,
                                      const devplug_tensor_t* const* outputs) {
  if (info.result == DEVPLUG_RESULT_select) return inputs[1]->layout.dtype;
  if (info.result == DEVPLUG_RESULT_made) return outputs[0]->layout.dtype;
  return inputs[0]->layout.dtype;
}

}  // namespace devplug::detail
