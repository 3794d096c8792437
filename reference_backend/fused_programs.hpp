// SPDX-License-Identifier: Apache-2.0
// The reference backend's fused_programs extension: a program runs node by node through the
// backend's own kernels, each node's result in a temporary of its dtype, so a fused result
// is the backend's op-by-op result by construction. It is the oracle other plugins' fused
// kernels are judged against.
#pragma once

#include <cstddef>

#include "devplug/plugin_api.h"
#include "devplug/sdk/kernels.hpp"

namespace devplug::reference {

// A copy of `desc` (checked by the SDK's shim before) for `device`. Throws UNIMPLEMENTED for
// a node whose op and dtype the kernel table has no kernel for.
devplug_fused_program_handle_t* fused_program_create(devplug_device_handle_t* device,
                                                     const devplug_fused_program_desc_t& desc,
                                                     const sdk::KernelTable& kernels);

// Runs `program` on `device` (the stream's), synchronously. Throws INVALID_ARGUMENT for
// tensors the program does not take (counts, dtypes, shapes, devices, ranges) before any
// write.
void fused_program_launch(devplug_stream_handle_t* stream, devplug_device_handle_t* device,
                          devplug_fused_program_handle_t* program, const devplug_tensor_desc_t* const* inputs,
                          size_t n_inputs, const devplug_tensor_desc_t* const* outputs, size_t n_outputs);

void fused_program_destroy(devplug_fused_program_handle_t* program);

}  // namespace devplug::reference
