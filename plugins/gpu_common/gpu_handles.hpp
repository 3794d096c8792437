// The plugin's handle types, shared by the CUDA and HIP builds. Handles are plain structs
// owned by whoever created them through the table; no reference counting.
#pragma once

#include <cstdint>
#include <mutex>

#include "devplug/types.h"
#include "gpu_port.hpp"

namespace devplug::gpu {
struct MatmulContext;  // backend-specific (cuBLASLt handle and workspace on CUDA)
}

struct devplug_device_handle_t {
  int32_t index;
  devplug::gpu::MatmulContext* matmul = nullptr;  // made on first matmul, freed at close
  std::mutex matmul_mutex;
};

struct devplug_buffer_handle_t {
  devplug_device_handle_t* device;
  void* ptr;
  uint64_t size;
};

struct devplug_stream_handle_t {
  devplug_device_handle_t* device;
  gpuStream_t stream;
  // Scratch for multi-pass kernels (reduction partials, matmul staging); grown on demand
  // after the stream drained, freed at destroy. Used by one enqueuing thread at a time.
  void* scratch = nullptr;
  uint64_t scratch_size = 0;
};

struct devplug_event_handle_t {
  devplug_device_handle_t* device;
  gpuEvent_t event;
};
