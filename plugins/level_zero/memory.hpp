// SPDX-License-Identifier: Apache-2.0
// Buffer entry points of the plugin (memory.cpp), called by the table's shims after the
// ABI's checks (sdk/plugin.hpp); they throw sdk::Error on failure.
//
// A buffer is one zeMemAllocDevice allocation; tensors address it with byte offsets. Host
// copies are asynchronous appends to the stream. Releasing memory that enqueued work may
// still use goes through release_device_memory.
#pragma once

#include "objects.hpp"

namespace devplug::level_zero {

devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes);
void buffer_release(devplug_buffer_handle_t* buffer);
void buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src, devplug_buffer_handle_t* dst,
                           uint64_t dst_offset, uint64_t size_bytes);
void buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                         void* dst, uint64_t size_bytes);
void buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                 devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size_bytes);

// Device memory of `bytes` on `device` (zeMemAllocDevice). Throws RESOURCE_EXHAUSTED past the
// device's largest allocation.
void* allocate_device_memory(devplug_device_handle_t* device, uint64_t bytes, const char* what);

// Frees `memory` once work enqueued so far on any stream of the device has finished: with
// the driver's deferred free when it has one (ZE_extension_memory_free_policies), else its
// blocking free, else after synchronizing the device's streams.
void release_device_memory(devplug_device_handle_t* device, void* memory);

// Frees `memory` with the driver's deferred free; false when the driver has none.
bool defer_free(devplug_device_handle_t* device, void* memory);

}  // namespace devplug::level_zero
