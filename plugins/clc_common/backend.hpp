// SPDX-License-Identifier: Apache-2.0
// The seam between the shared host code of the OpenCL C kernels (this folder) and the plugin
// that runs them. The shared code decides what to launch: which module (kernel source family
// plus -D defines), which kernel, which arguments and which NDRange. Each plugin implements
// the functions declared at the bottom once: the opencl plugin builds the module from source
// and enqueues on a cl_command_queue, the level_zero plugin loads the module from embedded
// SPIR-V and appends to a command list.
//
// The handle types are the plugin's own (opaque here); these files are compiled into each
// plugin that uses them, so each .so has its own copy and its own hooks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "devplug/plugin_api.h"

namespace devplug::clc {

// What the shared code needs to know about a device to choose modules and arguments.
struct DeviceCaps {
  bool fp64 = false;       // kernels may use double (HAS_FP64); float64 tensors are allowed
  bool wide_math = false;  // float transcendentals compute in double and round once (WIDE_MATH)
  bool cpu = false;        // work-items of a group run one after another: reduce takes slices
  size_t max_work_group = 1;
  std::string name;  // for error messages
};

// A kernel argument: the bytes of a value (a pointer-sized memory handle is a value too), or
// `local_bytes` of __local memory when `bytes` is empty.
struct KernelArg {
  std::vector<unsigned char> bytes;
  size_t local_bytes = 0;
};

// One launch: kernel `kernel` of the module built from kernels/<family>.cl (after common.cl)
// with `defines` (module_defines() of variants.hpp: device defines first). `global` is a
// multiple of `local` in every dim; no dim is 0.
struct KernelLaunch {
  const char* family = nullptr;
  std::string defines;
  const char* kernel = nullptr;
  const char* what = nullptr;  // the op, for error messages
  std::vector<KernelArg> args;
  uint32_t dims = 1;
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
};

// A device memory handle as a kernel's pointer argument takes it: a cl_mem for OpenCL, a
// device pointer for Level Zero.
using MemHandle = void*;

// ---- implemented by each plugin (opencl: backend.cpp, level_zero: backend.cpp) ----

// The capabilities of the stream's device. The reference stays valid while the device is open.
const DeviceCaps& caps_of(devplug_stream_handle_t* stream);

// The device a stream or buffer belongs to.
devplug_device_handle_t* device_of(devplug_stream_handle_t* stream);
devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer);

// The kernel argument value of a buffer's memory (the start of the buffer; offsets travel as
// separate element offsets).
MemHandle mem_of(devplug_buffer_handle_t* buffer);

// Enqueues `launch` on `stream`. Throws sdk::Error naming the native call on failure.
void launch(devplug_stream_handle_t* stream, const KernelLaunch& launch);

// The stream's index status block (sdk/index_status.hpp: 32 bytes, zero until an index
// kernel records a bad value), made on first use. The plugin reads and clears it at the
// stream's next stream_synchronize (and stream_destroy) and reports what it holds there.
MemHandle index_status(devplug_stream_handle_t* stream);

// Temporary device memory of at least `bytes` for work enqueued on `stream`, released with
// scratch_release once that work is enqueued; the plugin keeps the memory until the stream
// has passed it.
MemHandle scratch_allocate(devplug_stream_handle_t* stream, size_t bytes);
void scratch_release(devplug_stream_handle_t* stream, MemHandle memory) noexcept;

// Enqueues out = a x b (matmul's operands, already checked) through a tuned vendor library
// and returns true, or returns false when the plugin has none or it cannot take this call
// (the tiled kernel runs then). opencl: CLBlast (plugins/opencl/clblast_matmul.hpp).
bool library_matmul(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& a,
                    const devplug_tensor_desc_t& b, const devplug_tensor_desc_t& out);

}  // namespace devplug::clc
