// SPDX-License-Identifier: Apache-2.0
// The one prologue of every kernel: `run_kernel<Traits>(stream, call, body)` runs the checks
// plugin_api.def gives for a kernel call (the `kernel` rows, in order: stream and call frame,
// ops.def's arity, dtypes and attributes, every tensor on the stream's device, every dtype
// claimed by that device) inside the SDK's guard, then the plugin's body. A plugin keeps only
// its kernel bodies:
//
//   struct MyKernelTraits {  // what the prologue asks of the plugin's handles
//     static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream);
//     static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer);
//     static devplug_dtype_mask_t claimed_dtypes(devplug_stream_handle_t* stream);  // its device's
//   };
//   devplug_error_t* exp_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
//     return devplug::sdk::run_kernel<MyKernelTraits>(stream, call, [&] {
//       ...  // enqueue the work on `stream` for `*call`; throw sdk::Error (sdk::fail) on failure
//     });
//   }
//
// The traits' functions may throw INVALID_ARGUMENT for a handle they can tell is stale. A call
// that breaks no row pays one pass over its tensors (checks::kernel_call_holds); the rows run
// one by one, for the first one's error, only for a call that breaks one.
#pragma once

#include "devplug/plugin_api.h"
#include "devplug/sdk/checks.hpp"
#include "devplug/sdk/error.hpp"

namespace devplug::sdk {

template <typename Traits, typename Body>
devplug_error_t* run_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call,
                            Body&& body) noexcept {
  return guard([&] {
    if (!detail::checks::kernel_call_holds<Traits>(stream, call))
      detail::EntryChecks<Traits>::kernel(stream, call);
    body();
  });
}

}  // namespace devplug::sdk
