// SPDX-License-Identifier: Apache-2.0
// The HIP plugin: the shared GPU runtime and kernels (plugins/gpu_common) built by hipcc for
// AMD GPUs. matmul runs the shared tiled kernel (hipBLAS is not packaged for Debian 12).
// Loads on machines without an AMD GPU and reports zero devices with the reason.
#include "devplug/plugin_api.h"
#include "gpu_ops.hpp"
#include "gpu_runtime.hpp"

namespace {

const devplug::gpu::Backend kHip = {
    "hip", "0.1.0", "no AMD GPU driver", "no AMD GPU", devplug::gpu::matmul_tiled_kernel, nullptr,
};

}  // namespace

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  try {
    return devplug::gpu::plugin_api(kHip);
  } catch (...) {
    return nullptr;
  }
}
