// SPDX-License-Identifier: Apache-2.0
// Pinned host memory for devplug devices: torch's host allocator of the devplug device type
// (tensor.pin_memory(), DataLoader(pin_memory=True)), over devplug_host_allocate: the plugin's
// page-locked memory where it offers the pinned_host_memory extension, the dispatcher's
// otherwise. A copy between a devplug tensor and pinned memory of its own device with
// non_blocking=True is enqueued on the current stream and returns; the block then records an
// event there, and freeing the block waits for it.
#pragma once

#include <ATen/core/CachingHostAllocator.h>

#include "devplug/devplug.hpp"

namespace devplug::bridge {

// The host allocator registered for the devplug device type.
at::HostAllocator* pinned_allocator();
// Whether `ptr` lies in pinned memory from pinned_allocator().
bool is_pinned(const void* ptr);
// Whether a copy between host memory at `ptr` (`nbytes` of it) and a tensor on `device` may
// be enqueued without waiting: the memory is the plugin's own pinned memory for that device.
bool copies_async(const void* ptr, size_t nbytes, c10::DeviceIndex device);
// Orders the freeing of the pinned block holding `ptr` after the work now on `stream`.
void record_use(const void* ptr, const devplug::Stream& stream, c10::DeviceIndex device);

}  // namespace devplug::bridge
