// SPDX-License-Identifier: Apache-2.0
// The per-device caching allocator: buffers a plugin opted in for (DEVPLUG_PLUGIN_CACHING_
// ALLOCATOR) are kept when freed and reused for a later request of the same size class, so
// that per-op allocation does not reach the device driver on the hot path.
//
// Size classes: requests round up to a multiple of 512 bytes below 1 MiB and to the next
// power of two from 1 MiB on; a request of 0 bytes takes 512 (plugins refuse 0 bytes). A
// cached buffer is reused whatever stream last used it: the dispatcher's streams of one
// device are ordered only by the host (as PyTorch's allocator without record_stream).
// Without the opt-in every request goes to the plugin with its exact size (0 becomes 1).
// Thread-safe. Every cached buffer is returned to the plugin by release_all (context
// destruction, or an allocation that failed for lack of memory).
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "devplug/plugin_api.h"

struct devplug_device_t;

namespace devplug::detail {

class CachingAllocator {
 public:
  // The bytes a request of `size_bytes` really takes from the plugin.
  static uint64_t size_class(uint64_t size_bytes);

  // Returns a buffer of at least `size_bytes` on `device` (opened). Throws on failure.
  devplug_buffer_handle_t* allocate(devplug_device_t& device, uint64_t size_bytes);
  // Takes back a buffer allocate returned for `size_bytes`. Never throws.
  void free(devplug_device_t& device, devplug_buffer_handle_t* buffer, uint64_t size_bytes) noexcept;
  // Returns every cached buffer to the plugin.
  void release_all(devplug_device_t& device) noexcept;

  // Buffers currently cached (for tests).
  size_t cached_count() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, std::vector<devplug_buffer_handle_t*>> free_;  // by size class
};

}  // namespace devplug::detail
