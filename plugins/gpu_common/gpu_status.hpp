// SPDX-License-Identifier: Apache-2.0
// One macro for every native GPU runtime call: on failure it throws a devplug error naming
// the call, the runtime's code name and number, what was being done, and the place:
//   "cudaMalloc: cudaErrorMemoryAllocation (2) while allocating 64 bytes [gpu_runtime.cpp:80]"
#pragma once

#include <string>

#include "devplug/errors.h"
#include "devplug/sdk/error.hpp"
#include "gpu_port.hpp"

namespace devplug::gpu {

// The devplug code for a runtime error: allocation failures are RESOURCE_EXHAUSTED, a missing
// driver or device UNAVAILABLE, the rest INTERNAL.
inline devplug_code_t code_for(gpuError_t e) {
  if (e == gpuErrorMemoryAllocation) return DEVPLUG_CODE_RESOURCE_EXHAUSTED;
  if (e == gpuErrorNoDevice || e == gpuErrorInsufficientDriver) return DEVPLUG_CODE_UNAVAILABLE;
  return DEVPLUG_CODE_INTERNAL;
}

[[noreturn]] inline void fail_gpu(gpuError_t e, const char* call, const char* context, const char* file,
                                  int line) {
  const char* name = gpuGetErrorName(e);
#if defined(DEVPLUG_GPU_EMULATED)
  // The emulator knows what faulted its device: say it.
  int device = 0;
  const char* fault =
      e == emuErrorLaunchFailure && emuGetDevice(&device) == emuSuccess ? emuGetDeviceFault(device) : "";
  if (*fault != '\0') {
    const std::string with_cause = std::string(context) + " (the device faulted: " + fault + ")";
    sdk::fail_native(code_for(e), call, name ? name : "unknown error", static_cast<int64_t>(e),
                     with_cause.c_str(), file, line);
  }
#endif
  sdk::fail_native(code_for(e), call, name ? name : "unknown error", static_cast<int64_t>(e), context, file,
                   line);
}

}  // namespace devplug::gpu

// GPU_CHECK(gpuMalloc(&p, n), "allocating a buffer"): evaluates the call once.
#define GPU_CHECK(expr, context)                                                        \
  do {                                                                                  \
    const gpuError_t gpu_check_error_ = (expr);                                         \
    if (gpu_check_error_ != gpuSuccess)                                                 \
      ::devplug::gpu::fail_gpu(gpu_check_error_, #expr, (context), __FILE__, __LINE__); \
  } while (0)
