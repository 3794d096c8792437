// SPDX-License-Identifier: Apache-2.0
// Pinned host memory (devplug_host_allocate): the plugin's own page-locked memory where it
// offers the pinned_host_memory extension, so that its copies from and to that memory run
// while the host goes on; otherwise the dispatcher's: page-aligned anonymous memory, locked
// when the process may lock that much (RLIMIT_MEMLOCK), which copies treat as any host memory.
//
// Every allocation is registered process-wide by address range, so a host can ask which
// device any address inside one belongs to (devplug_host_query). Thread-safe.
#pragma once

#include <cstdint>

struct devplug_device_t;

namespace devplug::detail {

// `size_bytes` (> 0) of pinned host memory for copies with `device`. Throws on failure.
void* host_allocate(devplug_device_t& device, uint64_t size_bytes);
// Frees an allocation host_allocate gave (its first byte). Throws INVALID_ARGUMENT otherwise.
void host_free(void* ptr);
// The device of the allocation holding `ptr` (any byte of it), or nullptr; `*async` says
// whether copies with it run asynchronously (the plugin's memory).
devplug_device_t* host_query(const void* ptr, bool* async);
// Frees every allocation made for `device` (its shut-down). Never throws.
void host_free_all(devplug_device_t& device) noexcept;

}  // namespace devplug::detail
