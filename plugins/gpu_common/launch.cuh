// SPDX-License-Identifier: Apache-2.0
// The one place a kernel is launched, in all three builds: CUDA and HIP write the triple
// chevrons here and nowhere else; the emulated build hands the same kernel and arguments to
// its grid executor (plugins/gpu_emulated/emu_launch.hpp). Every launch is followed by the
// check of the launch's own error (a bad geometry), named after `what`.
#pragma once

#include <cstddef>
#include <utility>

#include "gpu_port.hpp"
#include "gpu_status.hpp"
#if defined(DEVPLUG_GPU_EMULATED)
#include "emu_launch.hpp"
#endif

namespace devplug::gpu {

// Enqueues kernel<<<grid, block, 0, stream>>>(args...), each argument converted to the
// kernel's parameter type, then throws if the launch failed.
template <typename... Params, typename... Args>
void launch(const char* what, void (*kernel)(Params...), dim3 grid, dim3 block, gpuStream_t stream,
            Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "one argument per kernel parameter");
#if defined(DEVPLUG_GPU_EMULATED)
  emu::launch(kernel, grid, block, 0, stream, static_cast<Params>(std::forward<Args>(args))...);
#else
  kernel<<<grid, block, 0, stream>>>(static_cast<Params>(std::forward<Args>(args))...);
#endif
  GPU_CHECK(gpuGetLastError(), what);
}

}  // namespace devplug::gpu
