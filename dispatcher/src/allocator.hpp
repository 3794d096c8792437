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
// destruction, devplug_device_empty_cache, or an allocation that failed for lack of memory).
//
// Statistics (devplug_device_memory_stats): "allocated" counts live buffers in the bytes
// taken for them (their size class), "requested" in the bytes asked for, "reserved" and
// "segments" what the plugin holds for this allocator (live and cached buffers). Without
// the opt-in every buffer is its own segment and reserved equals allocated.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "devplug/devplug.h"
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

  // The statistics so far (struct_size set to the full struct).
  devplug_memory_stats_t stats() const;
  // Peaks back to the current values (DEVPLUG_MEMORY_RESET_PEAKS), totals and event counts
  // back to zero (DEVPLUG_MEMORY_RESET_TOTALS).
  void reset_stats(uint32_t what);

 private:
  // Under mutex_: a live buffer of `taken` bytes for a request of `asked` came or went.
  void count_live(int64_t taken, int64_t asked, int sign);
  // Under mutex_: the plugin gave (sign 1) or took back (-1) a buffer of `bytes`.
  void count_segment(int64_t bytes, int sign);
  // Counts a failed plugin allocation when it was for lack of memory (takes mutex_).
  void count_failure(const devplug_error_t* error);

  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, std::vector<devplug_buffer_handle_t*>> free_;  // by size class
  devplug_memory_stats_t stats_{};
};

}  // namespace devplug::detail
