// SPDX-License-Identifier: Apache-2.0
// Argument checks shared by every plugin entry point, so that each plugin answers bad input
// the same way: NULL handles, short struct_size, unknown ops, calls that break ops.def.
//
// The dispatcher validates calls before they reach a plugin, but a plugin is also called
// directly (conformance's ABI tests do), so its entry points check again; these checks are
// cheap and allocation-free.
#pragma once

#include <string>

#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/checks.hpp"
#include "devplug/sdk/error.hpp"

namespace devplug::sdk {

namespace detail {
// Handles the frame checks cannot see: every tensor counts as on the stream's device, and the
// device claims every dtype. Never dereferences a handle.
struct FrameOnlyTraits {
  static devplug_device_handle_t* device_of(devplug_stream_handle_t*) { return nullptr; }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t*) { return nullptr; }
  static devplug_dtype_mask_t claimed_dtypes(devplug_stream_handle_t*) { return DEVPLUG_DTYPES_ALL; }
};
}  // namespace detail

// Checks the frame of a kernel call as plugin_api.def's `kernel` rows say, in their order:
// non-null call and tensors (a composite's optional tensors may be NULL), struct sizes, a
// known op, the arity ops.def gives, dtypes and ranks in range, attributes, the dispatch
// dtype among the op's. Shapes are the dispatcher's job (sdk::check_composite checks a
// composite's). A plugin's kernels start with sdk::run_kernel (kernel.hpp) instead, which
// also checks the stream, the tensors' device and the device's claims; check_call serves
// code without those handles (test fixtures, the template's first steps).
inline void check_call(const devplug_op_call_t* call) {
  // The stream row is the prologue's: any non-null value stands for it here.
  static int stand_in;
  detail::EntryChecks<detail::FrameOnlyTraits>::kernel(reinterpret_cast<devplug_stream_handle_t*>(&stand_in),
                                                       call);
}

}  // namespace devplug::sdk
