// SPDX-License-Identifier: Apache-2.0
// The shared host code of the kernels (plugins/clc_common/backend.hpp) on OpenCL: modules are
// programs built from the embedded source (program_cache.cpp), launches set a shared
// cl_kernel's arguments and enqueue it under the device's launch lock, scratch memory is a
// cl_mem that the runtime keeps alive until the commands using it have finished.
#include "backend.hpp"

#include <algorithm>
#include <mutex>

#include "clblast_matmul.hpp"
#include "devplug/sdk/fault.hpp"
#include "devplug/sdk/index_status.hpp"
#include "objects.hpp"
#include "opencl_status.hpp"
#include "program_cache.hpp"

namespace devplug::clc {

const DeviceCaps& caps_of(devplug_stream_handle_t* stream) { return stream->device->info.caps; }

devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) { return stream->device; }

devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) { return buffer->device; }

MemHandle mem_of(devplug_buffer_handle_t* buffer) { return buffer->mem; }

void launch(devplug_stream_handle_t* stream, const KernelLaunch& launch) {
  using opencl::cl;
  devplug_device_handle_t* device = stream->device;
  const std::string options = "-cl-std=CL1.2 " + launch.defines;
  cl_kernel kernel = device->programs->kernel(launch.family, options, launch.kernel);
  std::lock_guard<std::mutex> lock(device->launch_mutex);
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const KernelArg& arg = launch.args[i];
    const cl_uint index = static_cast<cl_uint>(i);
    if (arg.bytes.empty()) {
      DEVPLUG_CL_CALL(clSetKernelArg, (kernel, index, arg.local_bytes, nullptr), launch.what);
    } else {
      DEVPLUG_CL_CALL(clSetKernelArg, (kernel, index, arg.bytes.size(), arg.bytes.data()), launch.what);
    }
  }
  const std::string context = std::string("launching ") + launch.what;
  DEVPLUG_CL_CALL(
      clEnqueueNDRangeKernel,
      (stream->queue, kernel, launch.dims, nullptr, launch.global, launch.local, 0, nullptr, nullptr),
      context.c_str());
}

MemHandle index_status(devplug_stream_handle_t* stream) {
  using opencl::cl;
  if (stream->index_status == nullptr) {
    sdk::allocation_fault_point("index status block");
    cl_int status = CL_SUCCESS;
    const sdk::IndexStatus zero{};
    cl_mem mem =
        cl().clCreateBuffer(stream->device->context, CL_MEM_READ_WRITE, sizeof zero, nullptr, &status);
    DEVPLUG_CL_STATUS(clCreateBuffer, status, "allocating the index status block");
    status =
        cl().clEnqueueWriteBuffer(stream->queue, mem, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr);
    if (status != CL_SUCCESS) {
      cl().clReleaseMemObject(mem);
      opencl::fail_cl("clEnqueueWriteBuffer", status, "clearing the index status block", __FILE__, __LINE__);
    }
    stream->index_status = mem;
  }
  stream->index_status_armed = true;
  return stream->index_status;
}

MemHandle scratch_allocate(devplug_stream_handle_t* stream, size_t bytes) {
  cl_int status = CL_SUCCESS;
  cl_mem mem =
      opencl::cl().clCreateBuffer(stream->device->context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  DEVPLUG_CL_STATUS(clCreateBuffer, status, "allocating scratch memory");
  return mem;
}

void scratch_release(devplug_stream_handle_t*, MemHandle memory) noexcept {
  // The runtime keeps the memory until commands already enqueued on it have finished.
  opencl::cl().clReleaseMemObject(static_cast<cl_mem>(memory));
}

bool library_matmul(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& a,
                    const devplug_tensor_desc_t& b, const devplug_tensor_desc_t& out) {
  return opencl::clblast_matmul(stream, a, b, out);  // float32/float64 where CLBlast is installed
}

}  // namespace devplug::clc
