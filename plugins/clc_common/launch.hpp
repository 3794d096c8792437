// SPDX-License-Identifier: Apache-2.0
// Launching OpenCL C kernels from the host: strided geometry (mirrors geom_t in
// plugins/opencl/kernels/common.cl), and a small builder that collects a kernel's arguments
// and hands the launch to the plugin's backend (backend.hpp).
//
//   Launch(stream, "elementwise", defines, "ew", "exp").arg(geometry).mem(out).run1(n);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"
#include "devplug/plugin_api.h"

namespace devplug::clc {

constexpr int kGeomOperands = 4;

// Mirrors geom_t: up to 4 operands of one shape, element offsets and strides.
struct Geometry {
  int64_t shape[DEVPLUG_MAX_RANK];
  int64_t strides[kGeomOperands][DEVPLUG_MAX_RANK];
  int64_t offset[kGeomOperands];
  int64_t numel;
  int32_t rank;
  int32_t dense;
};

// One operand seen by a kernel: device memory, an element offset and element strides.
struct View {
  MemHandle mem = nullptr;
  int64_t offset = 0;
  int64_t strides[DEVPLUG_MAX_RANK] = {0};
};

// The view of a whole tensor. Throws INVALID_ARGUMENT when byte_offset is not a multiple of
// the element size.
View view_of(const devplug_tensor_desc_t& t);

// A geometry over `shape` for up to 4 operands. Size-1 dims are dropped and dims that are
// contiguous in every operand are merged; `dense` is set when every operand walks memory
// with stride 1.
Geometry make_geometry(int32_t rank, const int64_t* shape, const std::vector<const View*>& operands);

// Throws UNIMPLEMENTED when the stream's device cannot hold `dtype` (float64 without fp64).
void require_dtype(devplug_stream_handle_t* stream, devplug_dtype_t dtype, const char* op);

class Launch {
 public:
  // Kernel `kernel` of the module of `family` specialised by the op's `defines` (the
  // device's defines are added here, see variants.hpp).
  Launch(devplug_stream_handle_t* stream, const char* family, const std::string& defines, const char* kernel,
         const char* what);

  template <typename T>
  Launch& arg(const T& value) {
    auto* bytes = reinterpret_cast<const unsigned char*>(&value);
    launch_.args.push_back(KernelArg{std::vector<unsigned char>(bytes, bytes + sizeof(T)), 0});
    return *this;
  }
  Launch& mem(MemHandle memory) { return arg(memory); }
  // A __local buffer of `bytes`.
  Launch& local(size_t bytes);

  // Enqueues `global` work items (rounded up to whole groups of `group`) in one dimension.
  void run1(size_t global, size_t group = 256);
  // Enqueues an N-dimensional range with explicit global and local sizes; every global size
  // is a multiple of its local size.
  void run(uint32_t dims, const size_t* global, const size_t* local);

 private:
  devplug_stream_handle_t* stream_;
  KernelLaunch launch_;
};

// Temporary device memory released when it goes out of scope (the backend keeps it until
// the stream has passed the work enqueued on it).
class ScratchBuffer {
 public:
  ScratchBuffer(devplug_stream_handle_t* stream, size_t bytes);
  ~ScratchBuffer();
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  MemHandle get() const { return mem_; }

 private:
  devplug_stream_handle_t* stream_;
  MemHandle mem_ = nullptr;
};

}  // namespace devplug::clc
