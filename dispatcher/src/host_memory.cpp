// SPDX-License-Identifier: Apache-2.0
// Pinned host memory (see host_memory.hpp).
#include "host_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api_guard.hpp"
#include "devplug/sdk/fault.hpp"
#include "device.hpp"
#include "plugin_record.hpp"

namespace devplug::detail {
namespace {

struct Block {
  void* ptr;
  devplug_device_t* device;
  uint64_t size;
  bool plugin_owned;  // from the plugin's pinned_host_memory extension
};

std::mutex g_mutex;
std::map<uintptr_t, Block>& blocks() {
  static auto* map = new std::map<uintptr_t, Block>();  // leaked: outlives static destruction
  return *map;
}

size_t page_rounded(uint64_t size) {
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return static_cast<size_t>((size + page - 1) / page * page);
}

void release(void* ptr, const Block& block) noexcept {
  if (block.plugin_owned) {
    const devplug_plugin_t& plugin = *block.device->plugin;
    drop_plugin_error(plugin, plugin.pinned_host_memory->host_release(block.device->native.load(), ptr));
    return;
  }
  const size_t bytes = page_rounded(block.size);
  (void)munlock(ptr, bytes);
  (void)munmap(ptr, bytes);
}

}  // namespace

void* host_allocate(devplug_device_t& device, uint64_t size_bytes) {
  if (size_bytes == 0) invalid_argument("size_bytes is 0");
  sdk::allocation_fault_point("pinned host memory");
  const devplug_plugin_t& plugin = *device.plugin;
  void* ptr = nullptr;
  const bool plugin_owned = plugin.pinned_host_memory != nullptr;
  if (plugin_owned) {
    check_plugin(plugin, plugin.pinned_host_memory->host_allocate(device.open(), size_bytes, &ptr),
                 ("host_allocate of " + std::to_string(size_bytes) + " bytes").c_str());
  } else {
    if (size_bytes > (uint64_t{1} << 62))
      throw Error(DEVPLUG_CODE_RESOURCE_EXHAUSTED, "pinned host memory of " + std::to_string(size_bytes) +
                                                       " bytes is more than the address space");
    const size_t bytes = page_rounded(size_bytes);
    ptr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ptr == MAP_FAILED)
      throw Error(DEVPLUG_CODE_RESOURCE_EXHAUSTED,
                  "pinned host memory of " + std::to_string(size_bytes) + " bytes: mmap failed");
    (void)mlock(ptr, bytes);  // best effort: beyond RLIMIT_MEMLOCK it stays pageable
  }
  try {
    std::lock_guard<std::mutex> lock(g_mutex);
    blocks()[reinterpret_cast<uintptr_t>(ptr)] = Block{ptr, &device, size_bytes, plugin_owned};
  } catch (...) {
    release(ptr, Block{ptr, &device, size_bytes, plugin_owned});
    throw;
  }
  return ptr;
}

void host_free(void* ptr) {
  Block block{};
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = blocks().find(reinterpret_cast<uintptr_t>(ptr));
    if (it == blocks().end())
      invalid_argument("ptr was not given by devplug_host_allocate, or was freed already");
    block = it->second;
    blocks().erase(it);
  }
  release(ptr, block);
}

devplug_device_t* host_query(const void* ptr, bool* async) {
  const auto at = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = blocks().upper_bound(at);
  if (it == blocks().begin()) return nullptr;
  --it;
  if (at - it->first >= it->second.size) return nullptr;
  if (async != nullptr) *async = it->second.plugin_owned;
  return it->second.device;
}

void host_free_all(devplug_device_t& device) noexcept {
  std::vector<Block> mine;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto it = blocks().begin(); it != blocks().end();) {
      if (it->second.device == &device) {
        mine.push_back(it->second);
        it = blocks().erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const Block& block : mine) release(block.ptr, block);
}

}  // namespace devplug::detail
