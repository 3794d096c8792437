// SPDX-License-Identifier: Apache-2.0
// Buffer entry points of the plugin (buffer.cpp), called by the table's shims after the
// ABI's checks (sdk/plugin.hpp); they throw sdk::Error on failure.
#pragma once

#include "objects.hpp"

namespace devplug::opencl {

devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes);
void buffer_release(devplug_buffer_handle_t* buffer);
void buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src, devplug_buffer_handle_t* dst,
                           uint64_t dst_offset, uint64_t size_bytes);
void buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                         void* dst, uint64_t size_bytes);
void buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                 devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size_bytes);

}  // namespace devplug::opencl
