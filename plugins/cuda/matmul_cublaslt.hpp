// SPDX-License-Identifier: Apache-2.0
// The CUDA plugin's matmul kernel: cuBLASLt when it can be opened, else UNIMPLEMENTED (the
// dispatcher falls back). DEVPLUG_CUDA_MATMUL=tiled runs the shared tiled kernel instead.
#pragma once

#include "devplug/plugin_api.h"
#include "gpu_handles.hpp"

namespace devplug::cuda {

devplug_error_t* matmul_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call);
void matmul_context_destroy(gpu::MatmulContext* context);

// Whether float32 may use TF32 tensor cores: the call's DEVPLUG_MATMUL_ALLOW_TF32 flag or
// DEVPLUG_CUDA_ALLOW_TF32=1. Off by default.
bool allow_tf32(const devplug_matmul_attrs_t* attrs);

}  // namespace devplug::cuda
