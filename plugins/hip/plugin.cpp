// The HIP plugin: the shared GPU runtime and kernels (plugins/gpu_common) built by hipcc for
// AMD GPUs. matmul runs the shared tiled kernel (hipBLAS is not packaged for Debian 12).
// Loads on machines without an AMD GPU and reports zero devices with the reason.
#include "devplug/plugin_api.h"
#include "devplug/sdk/entry.hpp"
#include "devplug/sdk/error.hpp"
#include "gpu_ops.hpp"
#include "gpu_runtime.hpp"

namespace {

devplug_error_t* matmul_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return devplug::sdk::guard([&] {
    devplug::sdk::check_not_null(stream, "stream");
    devplug::sdk::check_call(call);
    devplug::sdk::check_argument(call->op == DEVPLUG_OP_matmul, "matmul kernel called for another op");
    devplug::gpu::run_matmul_tiled(stream, *call);
  });
}

const devplug::gpu::Backend kHip = {
    "hip", "0.1.0", "no AMD GPU driver", "no AMD GPU", matmul_kernel, nullptr,
};

}  // namespace

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  try {
    return devplug::gpu::plugin_api(kHip);
  } catch (...) {
    return nullptr;
  }
}
