// Buffer entry points of the plugin table (buffer.cpp). Each runs inside sdk::guard.
#pragma once

#include "objects.hpp"

namespace devplug::opencl {

devplug_error_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes, devplug_buffer_handle_t** out_buffer);
devplug_error_t* buffer_release(devplug_buffer_handle_t* buffer);
devplug_error_t* buffer_get_size(devplug_buffer_handle_t* buffer, uint64_t* out_size_bytes);
devplug_error_t* buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src, devplug_buffer_handle_t* dst,
                                       uint64_t dst_offset, uint64_t size_bytes);
devplug_error_t* buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                                     void* dst, uint64_t size_bytes);
devplug_error_t* buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                             devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size_bytes);

}  // namespace devplug::opencl
