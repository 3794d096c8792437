// SPDX-License-Identifier: Apache-2.0
// The CUDA plugin: the shared GPU runtime and kernels (plugins/gpu_common) built with nvcc and
// static cudart, plus matmul through cuBLASLt opened at run time. Loads on machines with no
// driver and reports zero devices with the reason.
#include "devplug/plugin_api.h"
#include "gpu_runtime.hpp"
#include "matmul_cublaslt.hpp"

namespace {

const devplug::gpu::Backend kCuda = {
    "cuda",
    "0.1.0",
    "no NVIDIA driver",
    "no NVIDIA GPU",
    devplug::cuda::matmul_kernel,
    devplug::cuda::matmul_context_destroy,
};

}  // namespace

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  try {
    return devplug::gpu::plugin_api(kCuda);
  } catch (...) {
    return nullptr;  // nothing may escape the boundary
  }
}
