// SPDX-License-Identifier: Apache-2.0
// The per-device caching allocator (see allocator.hpp for the size classes and rules).
#include "allocator.hpp"

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
  if (!plugin.caching_allocator) {
    devplug_error_t* error = nullptr;
    const uint64_t bytes = size_bytes == 0 ? 1 : size_bytes;
    devplug_buffer_handle_t* buffer = plugin_allocate(device, bytes, &error);
    if (error != nullptr) check_plugin(plugin, error, allocation_text(device, size_bytes, bytes).c_str());
    return buffer;
  }
  const uint64_t cls = size_class(size_bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = free_.find(cls);
    if (found != free_.end() && !found->second.empty()) {
      devplug_buffer_handle_t* buffer = found->second.back();
      found->second.pop_back();
      return buffer;
    }
  }
  devplug_error_t* error = nullptr;
  devplug_buffer_handle_t* buffer = plugin_allocate(device, cls, &error);
  if (error != nullptr && error->code == DEVPLUG_CODE_RESOURCE_EXHAUSTED) {
    // Out of device memory: give the cache back to the plugin and try once more.
    drop_plugin_error(plugin, error);
    release_all(device);
    buffer = plugin_allocate(device, cls, &error);
  }
  if (error != nullptr) check_plugin(plugin, error, allocation_text(device, size_bytes, cls).c_str());
  return buffer;
}

void CachingAllocator::free(devplug_device_t& device, devplug_buffer_handle_t* buffer,
                            uint64_t size_bytes) noexcept {
  const devplug_plugin_t& plugin = *device.plugin;
  if (plugin.caching_allocator) {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      free_[size_class(size_bytes)].push_back(buffer);
      return;
    } catch (...) {
      // No memory to cache it: give it back instead.
    }
  }
  drop_plugin_error(plugin, plugin.api->buffer_release(buffer));
}

void CachingAllocator::release_all(devplug_device_t& device) noexcept {
  std::unordered_map<uint64_t, std::vector<devplug_buffer_handle_t*>> cached;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cached.swap(free_);
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

}  // namespace devplug::detail
