// SPDX-License-Identifier: Apache-2.0
// Buffers: one cl_mem each; host copies are non-blocking (the ABI keeps host memory valid
// until the stream passes the copy). A copy from or to pinned host memory is the same
// direct copy, with its event handed to the block so that releasing the block waits for it
// (host_memory.hpp). The table's shims (sdk/plugin.hpp) have checked the handles, ranges and
// devices before these run.
#include "buffer.hpp"

#include "host_memory.hpp"
#include "opencl_status.hpp"

namespace devplug::opencl {

devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes) {
  cl_int status = CL_SUCCESS;
  cl_mem mem = cl().clCreateBuffer(device->context, CL_MEM_READ_WRITE, static_cast<size_t>(size_bytes),
                                   nullptr, &status);
  if (status == CL_INVALID_BUFFER_SIZE)
    sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, "buffer_allocate: " + std::to_string(size_bytes) +
                                                   " bytes exceed the device's largest allocation of " +
                                                   std::to_string(device->info.max_allocation) + " bytes");
  DEVPLUG_CL_STATUS(clCreateBuffer, status, "allocating a buffer");
  auto* buffer = new devplug_buffer_handle_t;
  buffer->device = device;
  buffer->mem = mem;
  buffer->size = size_bytes;
  return buffer;
}

void buffer_release(devplug_buffer_handle_t* buffer) {
  // The runtime keeps the memory until commands already enqueued on it have finished.
  const cl_int status = cl().clReleaseMemObject(buffer->mem);
  delete buffer;
  if (status != CL_SUCCESS) fail_cl("clReleaseMemObject", status, "releasing a buffer", __FILE__, __LINE__);
}

void buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src, devplug_buffer_handle_t* dst,
                           uint64_t dst_offset, uint64_t size_bytes) {
  PinnedHostMemory& pinned = *stream->device->pinned;
  const bool from_pinned = pinned.contains(src);
  cl_event done = nullptr;
  DEVPLUG_CL_CALL(clEnqueueWriteBuffer,
                  (stream->queue, dst->mem, CL_FALSE, dst_offset, size_bytes, src, 0, nullptr,
                   from_pinned ? &done : nullptr),
                  "copying from the host");
  if (from_pinned) pinned.track(src, done);
}

void buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                         void* dst, uint64_t size_bytes) {
  PinnedHostMemory& pinned = *stream->device->pinned;
  const bool to_pinned = pinned.contains(dst);
  cl_event done = nullptr;
  DEVPLUG_CL_CALL(clEnqueueReadBuffer,
                  (stream->queue, src->mem, CL_FALSE, src_offset, size_bytes, dst, 0, nullptr,
                   to_pinned ? &done : nullptr),
                  "copying to the host");
  if (to_pinned) pinned.track(dst, done);
}

void buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                 devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size_bytes) {
  DEVPLUG_CL_CALL(
      clEnqueueCopyBuffer,
      (stream->queue, src->mem, dst->mem, src_offset, dst_offset, size_bytes, 0, nullptr, nullptr),
      "copying between buffers");
}

}  // namespace devplug::opencl
