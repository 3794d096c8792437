// Launching kernels from the host: strided geometry (mirrors geom_t in kernels/common.cl),
// build options, and a small builder that sets arguments and enqueues under the device's
// launch lock.
//
//   Launch(stream, "elementwise", options, "ew", "exp").arg(geometry).mem(out).run1(n);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devplug/plugin_api.h"
#include "objects.hpp"

namespace devplug::opencl {

constexpr int kGeomOperands = 4;

// Mirrors geom_t: up to 4 operands of one shape, element offsets and strides.
struct Geometry {
  cl_long shape[DEVPLUG_MAX_RANK];
  cl_long strides[kGeomOperands][DEVPLUG_MAX_RANK];
  cl_long offset[kGeomOperands];
  cl_long numel;
  cl_int rank;
  cl_int dense;
};

// One operand seen by a kernel: a buffer, an element offset and element strides.
struct View {
  cl_mem mem = nullptr;
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

// Options common to every program of the device plus `extra` ("-DOP_exp -DDTA=8").
std::string build_options(const devplug_device_handle_t& device, const std::string& extra);

// Throws UNIMPLEMENTED when the device cannot hold `dtype` (float64 without cl_khr_fp64).
void require_dtype(const devplug_device_handle_t& device, devplug_dtype_t dtype, const char* op);

class Launch {
 public:
  Launch(devplug_stream_handle_t* stream, const char* family, const std::string& options,
         const char* kernel, const char* what);

  template <typename T>
  Launch& arg(const T& value) {
    auto* bytes = reinterpret_cast<const unsigned char*>(&value);
    args_.emplace_back(bytes, bytes + sizeof(T));
    return *this;
  }
  Launch& mem(cl_mem buffer) { return arg(buffer); }
  // A __local buffer of `bytes`.
  Launch& local(size_t bytes);

  // Enqueues `global` work items (rounded up to whole groups of `group`) in one dimension.
  void run1(size_t global, size_t group = 256);
  // Enqueues an N-dimensional range with explicit global and local sizes.
  void run(cl_uint dims, const size_t* global, const size_t* local);

 private:
  devplug_stream_handle_t* stream_;
  cl_kernel kernel_;
  std::string what_;
  std::vector<std::vector<unsigned char>> args_;
  std::vector<size_t> local_sizes_;  // for __local args (args_ entry empty)
};

// A temporary device buffer released when it goes out of scope (after enqueued work: the
// OpenCL runtime keeps memory alive until commands using it finish).
class ScratchBuffer {
 public:
  ScratchBuffer(devplug_device_handle_t* device, size_t bytes);
  ~ScratchBuffer();
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  cl_mem get() const { return mem_; }

 private:
  cl_mem mem_ = nullptr;
};

}  // namespace devplug::opencl
