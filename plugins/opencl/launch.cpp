// Geometry building and kernel launches.
#include "launch.hpp"

#include <algorithm>

#include "devplug/ops.h"
#include "opencl_status.hpp"
#include "program_cache.hpp"

namespace devplug::opencl {

View view_of(const devplug_tensor_desc_t& t) {
  View v;
  v.mem = t.buffer->mem;
  const uint64_t size = devplug_dtype_size(t.dtype);
  if (size == 0 || t.byte_offset % size != 0)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "tensor byte_offset " + std::to_string(t.byte_offset) +
                                                 " is not a multiple of its element size");
  v.offset = static_cast<int64_t>(t.byte_offset / size);
  for (int32_t d = 0; d < t.rank; ++d) v.strides[d] = t.strides[d];
  return v;
}

Geometry make_geometry(int32_t rank, const int64_t* shape, const std::vector<const View*>& operands) {
  Geometry g{};
  const int count = static_cast<int>(operands.size());
  g.numel = 1;
  for (int32_t d = 0; d < rank; ++d) g.numel *= shape[d];
  for (int w = 0; w < count; ++w) g.offset[w] = operands[w]->offset;
  // Keep dims of size != 1, outermost first, merging a dim into the previous kept one when
  // every operand steps over the inner dim exactly.
  int r = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] == 1) continue;
    if (r > 0) {
      bool mergeable = true;
      for (int w = 0; w < count; ++w)
        if (g.strides[w][r - 1] != operands[w]->strides[d] * shape[d]) mergeable = false;
      if (mergeable) {
        g.shape[r - 1] *= shape[d];
        for (int w = 0; w < count; ++w) g.strides[w][r - 1] = operands[w]->strides[d];
        continue;
      }
    }
    g.shape[r] = shape[d];
    for (int w = 0; w < count; ++w) g.strides[w][r] = operands[w]->strides[d];
    ++r;
  }
  g.rank = r;
  bool dense = true;
  for (int w = 0; w < count && r > 0; ++w)
    if (r != 1 || g.strides[w][0] != 1) dense = false;
  g.dense = dense ? 1 : 0;
  if (r == 0) g.dense = 1;
  return g;
}

std::string build_options(const devplug_device_handle_t& device, const std::string& extra) {
  std::string options = "-cl-std=CL1.2";
  if (device.info.fp64) options += " -DHAS_FP64";
  // CPUs run double as fast as float per element; computing float transcendentals in double
  // and rounding once makes them correctly rounded in practice.
  if (device.info.fp64 && device.info.is_cpu) options += " -DWIDE_MATH";
  if (device.info.is_cpu) options += " -DCPU_DEVICE";
  return options + " " + extra;
}

void require_dtype(const devplug_device_handle_t& device, devplug_dtype_t dtype, const char* op) {
  if (dtype == DEVPLUG_DTYPE_FLOAT64 && !device.info.fp64)
    sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED,
              std::string(op) + ": float64 needs cl_khr_fp64, which " + device.info.name + " lacks");
}

Launch::Launch(devplug_stream_handle_t* stream, const char* family, const std::string& options,
               const char* kernel, const char* what)
    : stream_(stream), what_(what) {
  kernel_ = stream->device->programs->kernel(family, options, kernel);
}

Launch& Launch::local(size_t bytes) {
  args_.emplace_back();
  local_sizes_.resize(args_.size(), 0);
  local_sizes_.back() = bytes;
  return *this;
}

void Launch::run1(size_t global, size_t group) {
  if (global == 0) return;
  group = std::min(group, stream_->device->info.max_work_group);
  const size_t rounded = (global + group - 1) / group * group;
  run(1, &rounded, &group);
}

void Launch::run(cl_uint dims, const size_t* global, const size_t* local) {
  for (cl_uint d = 0; d < dims; ++d)
    if (global[d] == 0) return;
  std::lock_guard<std::mutex> lock(stream_->device->launch_mutex);
  local_sizes_.resize(args_.size(), 0);
  for (size_t i = 0; i < args_.size(); ++i) {
    const cl_uint index = static_cast<cl_uint>(i);
    if (args_[i].empty()) {
      DEVPLUG_CL_CALL(clSetKernelArg, (kernel_, index, local_sizes_[i], nullptr), what_.c_str());
    } else {
      DEVPLUG_CL_CALL(clSetKernelArg, (kernel_, index, args_[i].size(), args_[i].data()), what_.c_str());
    }
  }
  const std::string context = "launching " + what_;
  DEVPLUG_CL_CALL(clEnqueueNDRangeKernel,
                  (stream_->queue, kernel_, dims, nullptr, global, local, 0, nullptr, nullptr),
                  context.c_str());
}

ScratchBuffer::ScratchBuffer(devplug_device_handle_t* device, size_t bytes) {
  cl_int status = CL_SUCCESS;
  mem_ = cl().clCreateBuffer(device->context, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 16), nullptr, &status);
  DEVPLUG_CL_STATUS(clCreateBuffer, status, "allocating scratch memory");
}

ScratchBuffer::~ScratchBuffer() {
  if (mem_ != nullptr) cl().clReleaseMemObject(mem_);
}

}  // namespace devplug::opencl
