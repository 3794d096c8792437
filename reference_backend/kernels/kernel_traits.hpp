// SPDX-License-Identifier: Apache-2.0
// What the SDK's kernel prologue asks of the reference backend's handles. Every reference
// kernel starts with sdk::run_kernel<KernelTraits>(stream, call, body) (devplug/sdk/kernel.hpp),
// which runs the kernel checks plugin_api.def gives (stream, call frame, dtypes, every tensor
// on the stream's device, the device's claimed dtypes) before the kernel's own body.
#pragma once

#include "devplug/plugin_api.h"
#include "devplug/sdk/kernel.hpp"

namespace devplug::reference {

struct KernelTraits {
  // The device of a live stream or buffer; INVALID_ARGUMENT for a stale one. Defined in
  // plugin.cpp, which owns the handle types.
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream);
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer);
  // The reference device claims every dtype (its properties' dtypes, device_get_claims).
  static devplug_dtype_mask_t claimed_dtypes(devplug_stream_handle_t*) { return DEVPLUG_DTYPES_ALL; }
};

}  // namespace devplug::reference
