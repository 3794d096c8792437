// SPDX-License-Identifier: Apache-2.0
// The shared host code of the kernels (plugins/clc_common/backend.hpp) on Level Zero: modules
// come from the embedded SPIR-V (module_cache.cpp), a launch sets a shared kernel's group size
// and arguments and appends it to the stream's command list under the device's launch lock
// (Level Zero captures arguments at append time), scratch memory is device memory released
// once the stream has passed the work that uses it.
#include "backend.hpp"

#include <mutex>

#include "devplug/sdk/fault.hpp"
#include "devplug/sdk/index_status.hpp"
#include "memory.hpp"
#include "module_cache.hpp"
#include "stream.hpp"
#include "ze_status.hpp"

namespace devplug::clc {

using level_zero::ze;

const DeviceCaps& caps_of(devplug_stream_handle_t* stream) { return stream->device->info.caps; }

devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) { return stream->device; }

devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) { return buffer->device; }

MemHandle mem_of(devplug_buffer_handle_t* buffer) { return buffer->memory; }

void launch(devplug_stream_handle_t* stream, const KernelLaunch& launch) {
  devplug_device_handle_t* device = stream->device;
  ze_kernel_handle_t kernel = device->modules->kernel(launch.family, launch.defines, launch.kernel);
  ze_group_count_t groups{1, 1, 1};
  uint32_t* counts[3] = {&groups.groupCountX, &groups.groupCountY, &groups.groupCountZ};
  for (uint32_t d = 0; d < launch.dims; ++d) {
    const size_t count = launch.global[d] / launch.local[d];
    if (count > UINT32_MAX)
      sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, std::string(launch.what) + ": " +
                                                     std::to_string(launch.global[d]) +
                                                     " work items exceed the device's group count");
    *counts[d] = static_cast<uint32_t>(count);
  }
  const std::string what = std::string("launching ") + launch.what;
  std::lock_guard<std::mutex> lock(device->launch_mutex);
  DEVPLUG_ZE_CALL(zeKernelSetGroupSize,
                  (kernel, static_cast<uint32_t>(launch.local[0]), static_cast<uint32_t>(launch.local[1]),
                   static_cast<uint32_t>(launch.local[2])),
                  what);
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const KernelArg& arg = launch.args[i];
    const uint32_t index = static_cast<uint32_t>(i);
    if (arg.bytes.empty()) {
      DEVPLUG_ZE_CALL(zeKernelSetArgumentValue, (kernel, index, arg.local_bytes, nullptr), what);
    } else {
      DEVPLUG_ZE_CALL(zeKernelSetArgumentValue, (kernel, index, arg.bytes.size(), arg.bytes.data()), what);
    }
  }
  level_zero::append_command(stream, what.c_str(), [&](ze_command_list_handle_t list) {
    DEVPLUG_ZE_CALL(zeCommandListAppendLaunchKernel, (list, kernel, &groups, nullptr, 0, nullptr), what);
  });
}

MemHandle index_status(devplug_stream_handle_t* stream) {
  if (stream->index_status == nullptr) {
    sdk::allocation_fault_point("index status block");
    static const sdk::IndexStatus kZero{};  // read when the stream reaches the copy
    void* memory =
        level_zero::allocate_device_memory(stream->device, sizeof kZero, "allocating the index status block");
    try {
      level_zero::append_copy_from_host(stream, memory, &kZero, sizeof kZero);
    } catch (...) {
      level_zero::stream_release_memory(stream, memory);
      throw;
    }
    stream->index_status = memory;
  }
  stream->index_status_armed = true;
  return stream->index_status;
}

MemHandle scratch_allocate(devplug_stream_handle_t* stream, size_t bytes) {
  return level_zero::allocate_device_memory(stream->device, bytes, "allocating scratch memory");
}

void scratch_release(devplug_stream_handle_t* stream, MemHandle memory) noexcept {
  level_zero::stream_release_memory(stream, memory);
}

// No tuned BLAS is opened on Level Zero devices: matmul runs the tiled kernel.
bool library_matmul(devplug_stream_handle_t*, const devplug_tensor_desc_t&, const devplug_tensor_desc_t&,
                    const devplug_tensor_desc_t&) {
  return false;
}

}  // namespace devplug::clc
