// SPDX-License-Identifier: Apache-2.0
// The runtime half of a GPU plugin, shared by CUDA and HIP: devices, buffers, streams and
// events on the gpu* API of gpu_port.hpp, plus the assembly of the plugin table. A backend's
// plugin.cpp only names itself and brings its matmul.
#pragma once

#include <cstdint>
#include <string>

#include "devplug/plugin_api.h"
#include "gpu_handles.hpp"

namespace devplug::gpu {

struct Backend {
  const char* name;            // "cuda", "hip" or "gpu_emulated"
  const char* version;         // the plugin's own version
  const char* no_driver_hint;  // appended to the note when the driver is missing: "no NVIDIA driver"
  const char* no_device_hint;  // appended when the driver finds no GPU: "no NVIDIA GPU"
  devplug_kernel_fn matmul;    // the backend's matmul kernel
  void (*matmul_destroy)(MatmulContext*);  // frees a device's MatmulContext; may be NULL
};

// Builds the plugin table once for `backend` (later calls return the same table).
const devplug_plugin_api_t* plugin_api(const Backend& backend);

// The zero-device note for `error` from gpuGetDeviceCount, e.g.
// "cudaGetDeviceCount: cudaErrorInsufficientDriver (35): no NVIDIA driver".
std::string device_count_note(int64_t code, const char* code_name, const char* hint);

// Device memory of at least `bytes` owned by `stream`, valid for work enqueued on it until
// the next call. May wait for the stream to drain before it grows. Throws on failure.
void* stream_scratch(devplug_stream_handle_t* stream, uint64_t bytes);

// The stream's index status block (sdk/index_status.hpp: 32 bytes of device memory, zero
// until an index kernel records a bad value), made on first use. stream_synchronize and
// stream_destroy read and clear it and report what it holds. Throws on failure.
int64_t* index_status(devplug_stream_handle_t* stream);

// Makes the stream's device current on this thread.
void use_device(const devplug_device_handle_t* device);

// The device pointer of `t`'s first element.
inline void* tensor_data(const devplug_tensor_desc_t& t) {
  return static_cast<char*>(t.buffer->ptr) + t.byte_offset;
}

}  // namespace devplug::gpu
