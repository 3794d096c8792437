// SPDX-License-Identifier: Apache-2.0
// The per-device caching allocator (see allocator.hpp for the size classes and rules).
#include "allocator.hpp"

#include <algorithm>
#include <string>

#include "api_guard.hpp"
#include "devplug/sdk/fault.hpp"
#include "device.hpp"
#include "plugin_record.hpp"

namespace devplug::detail {
namespace {

constexpr uint64_t kSmallGranule = 512;
constexpr uint64_t kLargeThreshold = uint64_t{1} << 20;

devplug_buffer_handle_t* plugin_allocate(devplug_device_t& device, uint64_t bytes,
                                         devplug_error_t** out_error) {
  devplug_buffer_handle_t* buffer = nullptr;
  *out_error = device.plugin->api->buffer_allocate(device.open(), bytes, &buffer);
  return buffer;
}

}  // namespace

uint64_t CachingAllocator::size_class(uint64_t size_bytes) {
  if (size_bytes == 0) return kSmallGranule;
  if (size_bytes < kLargeThreshold) return (size_bytes + kSmallGranule - 1) / kSmallGranule * kSmallGranule;
  uint64_t size = kLargeThreshold;
  while (size < size_bytes && size <= (uint64_t{1} << 62)) size <<= 1;
  return size < size_bytes ? size_bytes : size;
}

// "buffer_allocate of 700000 bytes (size class 700416) on device 0": the call a failure
// names, with what the host asked for.
static std::string allocation_text(const devplug_device_t& device, uint64_t asked, uint64_t taken) {
  std::string text = "buffer_allocate of " + std::to_string(asked) + " bytes";
  if (taken != asked) text += " (size class " + std::to_string(taken) + ")";
  return text + " on device " + std::to_string(device.index) + " (" +
         std::to_string(device.properties.memory_bytes) + " bytes)";
}

devplug_buffer_handle_t* CachingAllocator::allocate(devplug_device_t& device, uint64_t size_bytes) {
  sdk::allocation_fault_point("device memory");
  const devplug_plugin_t& plugin = *device.plugin;
  const auto asked = static_cast<int64_t>(size_bytes);
  if (!plugin.caching_allocator) {
    devplug_error_t* error = nullptr;
    const uint64_t bytes = size_bytes == 0 ? 1 : size_bytes;
    devplug_buffer_handle_t* buffer = plugin_allocate(device, bytes, &error);
    if (error != nullptr) {
      count_failure(error);
      check_plugin(plugin, error, allocation_text(device, size_bytes, bytes).c_str());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    count_segment(static_cast<int64_t>(bytes), 1);
    count_live(static_cast<int64_t>(bytes), asked, 1);
    return buffer;
  }
  const uint64_t cls = size_class(size_bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = free_.find(cls);
    if (found != free_.end() && !found->second.empty()) {
      devplug_buffer_handle_t* buffer = found->second.back();
      found->second.pop_back();
      count_live(static_cast<int64_t>(cls), asked, 1);
      return buffer;
    }
  }
  devplug_error_t* error = nullptr;
  devplug_buffer_handle_t* buffer = plugin_allocate(device, cls, &error);
  if (error != nullptr && error->code == DEVPLUG_CODE_RESOURCE_EXHAUSTED) {
    // Out of device memory: give the cache back to the plugin and try once more.
    drop_plugin_error(plugin, error);
    release_all(device);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.out_of_memory_retries;
    }
    buffer = plugin_allocate(device, cls, &error);
  }
  if (error != nullptr) {
    count_failure(error);
    check_plugin(plugin, error, allocation_text(device, size_bytes, cls).c_str());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  count_segment(static_cast<int64_t>(cls), 1);
  count_live(static_cast<int64_t>(cls), asked, 1);
  return buffer;
}

void CachingAllocator::free(devplug_device_t& device, devplug_buffer_handle_t* buffer,
                            uint64_t size_bytes) noexcept {
  const devplug_plugin_t& plugin = *device.plugin;
  const auto asked = static_cast<int64_t>(size_bytes);
  if (plugin.caching_allocator) {
    const uint64_t cls = size_class(size_bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    count_live(static_cast<int64_t>(cls), asked, -1);
    try {
      free_[cls].push_back(buffer);
      return;
    } catch (...) {
      // No memory to cache it: give it back instead.
      count_segment(static_cast<int64_t>(cls), -1);
    }
  } else {
    const int64_t bytes = size_bytes == 0 ? 1 : asked;
    std::lock_guard<std::mutex> lock(mutex_);
    count_live(bytes, asked, -1);
    count_segment(bytes, -1);
  }
  drop_plugin_error(plugin, plugin.api->buffer_release(buffer));
}

void CachingAllocator::release_all(devplug_device_t& device) noexcept {
  std::unordered_map<uint64_t, std::vector<devplug_buffer_handle_t*>> cached;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cached.swap(free_);
    for (const auto& [cls, buffers] : cached)
      for (size_t i = 0; i < buffers.size(); ++i) count_segment(static_cast<int64_t>(cls), -1);
  }
  for (auto& [cls, buffers] : cached)
    for (devplug_buffer_handle_t* buffer : buffers)
      drop_plugin_error(*device.plugin, device.plugin->api->buffer_release(buffer));
}

size_t CachingAllocator::cached_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [cls, buffers] : free_) n += buffers.size();
  return n;
}

devplug_memory_stats_t CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  devplug_memory_stats_t out = stats_;
  out.struct_size = sizeof(out);
  return out;
}

void CachingAllocator::reset_stats(uint32_t what) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (devplug_memory_stat_t* stat : {&stats_.allocated_bytes, &stats_.requested_bytes,
                                      &stats_.reserved_bytes, &stats_.allocations, &stats_.segments}) {
    if ((what & DEVPLUG_MEMORY_RESET_PEAKS) != 0) stat->peak = stat->current;
    if ((what & DEVPLUG_MEMORY_RESET_TOTALS) != 0) stat->allocated = stat->freed = 0;
  }
  if ((what & DEVPLUG_MEMORY_RESET_TOTALS) != 0) {
    stats_.plugin_allocations = stats_.plugin_releases = 0;
    stats_.out_of_memory_retries = stats_.out_of_memory_errors = 0;
  }
}

namespace {

void add(devplug_memory_stat_t& stat, int64_t amount) {
  stat.current += amount;
  if (amount > 0) {
    stat.allocated += amount;
    stat.peak = std::max(stat.peak, stat.current);
  } else {
    stat.freed -= amount;
  }
}

}  // namespace

void CachingAllocator::count_live(int64_t taken, int64_t asked, int sign) {
  add(stats_.allocated_bytes, sign * taken);
  add(stats_.requested_bytes, sign * asked);
  add(stats_.allocations, sign);
}

void CachingAllocator::count_segment(int64_t bytes, int sign) {
  add(stats_.reserved_bytes, sign * bytes);
  add(stats_.segments, sign);
  ++(sign > 0 ? stats_.plugin_allocations : stats_.plugin_releases);
}

void CachingAllocator::count_failure(const devplug_error_t* error) {
  if (error->code != DEVPLUG_CODE_RESOURCE_EXHAUSTED) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.out_of_memory_errors;
}

}  // namespace devplug::detail
