// SPDX-License-Identifier: Apache-2.0
// The plugin's handle types, shared by the CUDA and HIP builds. Handles are plain structs
// owned by whoever created them through the table; no reference counting.
#pragma once

#include <atomic>
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
  // The index status block (index_status in gpu_runtime.hpp), made by the first index
  // kernel; `armed` is set whenever an index kernel is enqueued, so a synchronize reads the
  // block only then.
  void* index_status = nullptr;
  std::atomic<bool> index_status_armed{false};
};

struct devplug_event_handle_t {
  devplug_device_handle_t* device;
  gpuEvent_t event;  // made with timing (not gpuEventDisableTiming): event_elapsed_ns reads it
  std::atomic<bool> recorded{false};  // event_record has been called
};

#if defined(GPU_HAS_CCL)
// One rank's communicator (the collectives extension).
struct devplug_comm_handle_t {
  devplug_device_handle_t* device;
  gpucclComm_t comm;
  uint32_t rank;
  uint32_t world_size;
};
#endif
