// SPDX-License-Identifier: Apache-2.0
// Buffer entry points of the plugin (memory.cpp), called by the table's shims after the
// ABI's checks (sdk/plugin.hpp); they throw sdk::Error on failure.
//
// A buffer is one allocation; tensors address it with byte offsets. On a device whose memory
// is the host's (DeviceInfo::unified_memory: a CPU, an integrated GPU) it is a shared
// allocation, which Level Zero lets the host address, so buffer_host_address (the
// host_address extension) gives its pointer; elsewhere it is device memory, which the host
// cannot address (FAILED_PRECONDITION). Host copies are asynchronous appends to the stream.
// Releasing memory that enqueued work may still use goes through release_device_memory.
//
// Pinned host memory (the pinned_host_memory extension) is a zeMemAllocHost allocation of the
// device's context, registered on the device: copies from and to it go to the driver as they
// are, even on a device that reads no other host memory (stream.cpp), and releasing it waits
// for the work enqueued on the device's streams, as releasing a buffer does.
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
void* buffer_host_address(devplug_buffer_handle_t* buffer);
// The host_memory_import extension: a buffer over the caller's host memory, on a unified-memory
// device whose driver lets it read and write system allocations (sharedSystemAllocCapabilities),
// as copies already do; FAILED_PRECONDITION elsewhere. Its release waits for the device's
// streams and leaves the memory.
devplug_buffer_handle_t* buffer_import_host(devplug_device_handle_t* device, void* host, uint64_t size_bytes);
void* host_allocate(devplug_device_handle_t* device, uint64_t size_bytes);
void host_release(devplug_device_handle_t* device, void* ptr);

// Whether [ptr, ptr + size) lies inside pinned host memory of `device`. Takes no lock while
// the device has none.
bool is_pinned(devplug_device_handle_t* device, const void* ptr, size_t size);

// Frees the pinned host memory the host did not release (device_close: no stream is left).
void release_all_pinned(devplug_device_handle_t* device) noexcept;

// Device memory of `bytes` on `device` (zeMemAllocDevice). Throws RESOURCE_EXHAUSTED past the
// device's largest allocation.
void* allocate_device_memory(devplug_device_handle_t* device, uint64_t bytes, const char* what);

// Frees `memory` (a device, shared or host allocation of the device's context) once work
// enqueued so far on any stream of the device has finished: with
// the driver's deferred free when it has one (ZE_extension_memory_free_policies), else its
// blocking free, else after synchronizing the device's streams.
void release_device_memory(devplug_device_handle_t* device, void* memory);

// Frees `memory` with the driver's deferred free; false when the driver has none.
bool defer_free(devplug_device_handle_t* device, void* memory);

}  // namespace devplug::level_zero
