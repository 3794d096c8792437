// SPDX-License-Identifier: Apache-2.0
// The emulated GPU plugin, libdevplug_gpu_emulated.so: the CUDA/HIP plugins' runtime and
// kernels (plugins/gpu_common) compiled by the host C++ compiler against the emulated GPU
// runtime of this folder, so that CI runs the GPU source on every submission. matmul is the
// shared tiled kernel (what HIP runs; CUDA's cuBLASLt path has no CPU counterpart). A test
// plugin: built in the tree, never installed.
#include "devplug/plugin_api.h"
#include "gpu_ops.hpp"
#include "gpu_runtime.hpp"

namespace {

// Every device is there: the hints for a missing driver or GPU are never shown.
const devplug::gpu::Backend kEmulated = {
    "gpu_emulated", "0.1.0", "", "", devplug::gpu::matmul_tiled_kernel, nullptr,
};

}  // namespace

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  try {
    return devplug::gpu::plugin_api(kEmulated);
  } catch (...) {
    return nullptr;
  }
}
