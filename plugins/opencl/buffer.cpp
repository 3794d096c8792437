// Buffers: one cl_mem each; host copies are non-blocking (the ABI keeps host memory valid
// until the stream passes the copy).
#include "buffer.hpp"

#include "opencl_status.hpp"

namespace devplug::opencl {

namespace {

void check_range(const devplug_buffer_handle_t* buffer, uint64_t offset, uint64_t size, const char* what) {
  if (offset > buffer->size || size > buffer->size - offset)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
              std::string(what) + ": range [" + std::to_string(offset) + ", +" + std::to_string(size) +
                  ") lies outside the buffer of " + std::to_string(buffer->size) + " bytes");
}

void check_stream_device(devplug_stream_handle_t* stream, devplug_buffer_handle_t* buffer, const char* what) {
  if (buffer->device != stream->device)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + ": buffer and stream belong to different devices");
}

}  // namespace

devplug_error_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes, devplug_buffer_handle_t** out_buffer) {
  if (out_buffer != nullptr) *out_buffer = nullptr;
  return sdk::guard([&] {
    sdk::check_not_null(device, "device");
    sdk::check_not_null(out_buffer, "out_buffer");
    sdk::check_argument(size_bytes > 0, "buffer_allocate: size_bytes is 0");
    cl_int status = CL_SUCCESS;
    cl_mem mem = cl().clCreateBuffer(device->context, CL_MEM_READ_WRITE, static_cast<size_t>(size_bytes), nullptr, &status);
    if (status == CL_INVALID_BUFFER_SIZE)
      sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, "buffer_allocate: " + std::to_string(size_bytes) +
                                                     " bytes exceed the device's largest allocation");
    DEVPLUG_CL_STATUS(clCreateBuffer, status, "allocating a buffer");
    auto* buffer = new devplug_buffer_handle_t;
    buffer->device = device;
    buffer->mem = mem;
    buffer->size = size_bytes;
    *out_buffer = buffer;
  });
}

devplug_error_t* buffer_release(devplug_buffer_handle_t* buffer) {
  return sdk::guard([&] {
    sdk::check_not_null(buffer, "buffer");
    // The runtime keeps the memory until commands already enqueued on it have finished.
    DEVPLUG_CL_CALL(clReleaseMemObject, (buffer->mem), "releasing a buffer");
    delete buffer;
  });
}

devplug_error_t* buffer_get_size(devplug_buffer_handle_t* buffer, uint64_t* out_size_bytes) {
  if (out_size_bytes != nullptr) *out_size_bytes = 0;
  return sdk::guard([&] {
    sdk::check_not_null(buffer, "buffer");
    sdk::check_not_null(out_size_bytes, "out_size_bytes");
    *out_size_bytes = buffer->size;
  });
}

devplug_error_t* buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src, devplug_buffer_handle_t* dst,
                                       uint64_t dst_offset, uint64_t size_bytes) {
  return sdk::guard([&] {
    sdk::check_not_null(stream, "stream");
    sdk::check_not_null(dst, "dst");
    check_stream_device(stream, dst, "buffer_copy_from_host");
    check_range(dst, dst_offset, size_bytes, "buffer_copy_from_host");
    if (size_bytes == 0) return;
    sdk::check_not_null(src, "src");
    DEVPLUG_CL_CALL(clEnqueueWriteBuffer,
                    (stream->queue, dst->mem, CL_FALSE, dst_offset, size_bytes, src, 0, nullptr, nullptr),
                    "copying from the host");
  });
}

devplug_error_t* buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                                     void* dst, uint64_t size_bytes) {
  return sdk::guard([&] {
    sdk::check_not_null(stream, "stream");
    sdk::check_not_null(src, "src");
    check_stream_device(stream, src, "buffer_copy_to_host");
    check_range(src, src_offset, size_bytes, "buffer_copy_to_host");
    if (size_bytes == 0) return;
    sdk::check_not_null(dst, "dst");
    DEVPLUG_CL_CALL(clEnqueueReadBuffer,
                    (stream->queue, src->mem, CL_FALSE, src_offset, size_bytes, dst, 0, nullptr, nullptr),
                    "copying to the host");
  });
}

devplug_error_t* buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                             devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size_bytes) {
  return sdk::guard([&] {
    sdk::check_not_null(stream, "stream");
    sdk::check_not_null(src, "src");
    sdk::check_not_null(dst, "dst");
    check_stream_device(stream, src, "buffer_copy");
    check_stream_device(stream, dst, "buffer_copy");
    check_range(src, src_offset, size_bytes, "buffer_copy (source)");
    check_range(dst, dst_offset, size_bytes, "buffer_copy (destination)");
    if (size_bytes == 0) return;
    if (src == dst && src_offset < dst_offset + size_bytes && dst_offset < src_offset + size_bytes)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "buffer_copy: source and destination ranges overlap");
    DEVPLUG_CL_CALL(clEnqueueCopyBuffer,
                    (stream->queue, src->mem, dst->mem, src_offset, dst_offset, size_bytes, 0, nullptr, nullptr),
                    "copying between buffers");
  });
}

}  // namespace devplug::opencl
