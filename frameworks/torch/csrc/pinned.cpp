// SPDX-License-Identifier: Apache-2.0
// torch's host allocator for devplug devices (see pinned.hpp).
#include "pinned.hpp"

#include <c10/util/Exception.h>

#include <map>
#include <mutex>
#include <vector>

#include "runtime.hpp"

namespace devplug::bridge {
namespace {

// A pinned block and the events recorded on the streams that used it.
struct Block {
  void* ptr;
  size_t nbytes;
  std::vector<devplug::Event> uses;
};

std::mutex g_mutex;
std::map<uintptr_t, Block*>& blocks() {
  static auto* map = new std::map<uintptr_t, Block*>();  // leaked: blocks may die after statics
  return *map;
}

Block* find(const void* ptr) {  // under g_mutex
  const auto at = reinterpret_cast<uintptr_t>(ptr);
  auto it = blocks().upper_bound(at);
  if (it == blocks().begin()) return nullptr;
  --it;
  return at - it->first < it->second->nbytes ? it->second : nullptr;
}

at::HostStats g_stats;  // under g_mutex

void free_block(void* context) {
  Block* block = static_cast<Block*>(context);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    blocks().erase(reinterpret_cast<uintptr_t>(block->ptr));
    g_stats.allocations.decrease(1);
    g_stats.allocated_bytes.decrease(block->nbytes);
  }
  if (in_bad_fork()) return;  // the parent's memory, in a forked child: leaked (runtime.hpp)
  try {
    for (devplug::Event& e : block->uses) e.synchronize();  // copies still reading or writing it
    devplug::host_free(block->ptr);
  } catch (const devplug::Error&) {
    // A deleter cannot throw; the device's error surfaces at its next synchronize.
  }
  delete block;
}

class PinnedAllocator final : public at::HostAllocator {
 public:
  at::DataPtr allocate(size_t nbytes) override {
    const c10::DeviceIndex device = current_device();
    if (nbytes == 0) return at::DataPtr(nullptr, c10::Device(c10::DeviceType::CPU));
    void* ptr = nullptr;
    try {
      ptr = Runtime::get().device(device).host_allocate(nbytes);
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
    auto* block = new Block{ptr, nbytes, {}};
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      blocks()[reinterpret_cast<uintptr_t>(ptr)] = block;
      g_stats.allocations.increase(1);
      g_stats.allocated_bytes.increase(nbytes);
    }
    // Pinned memory is CPU memory: the tensor is a CPU tensor whose storage is pinned.
    return at::DataPtr(ptr, block, &free_block, c10::Device(c10::DeviceType::CPU));
  }
  at::DeleterFnPtr raw_deleter() const override { return nullptr; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    std::memcpy(dest, src, count);
  }

  bool record_event(void* ptr, void* /*ctx*/, c10::Stream stream) override {
    if (!is_pinned(ptr)) return false;
    record_use(ptr, Runtime::get().stream(stream.device_index(), stream.id()), stream.device_index());
    return true;
  }
  void empty_cache() override {}  // nothing is cached: each block goes back when freed
  at::HostStats get_stats() override {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_stats;
  }
  void reset_accumulated_stats() override {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_stats.allocations.reset_accumulated();
    g_stats.allocated_bytes.reset_accumulated();
  }
  void reset_peak_stats() override {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_stats.allocations.reset_peak();
    g_stats.allocated_bytes.reset_peak();
  }
};

PinnedAllocator g_pinned;
REGISTER_HOST_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_pinned);

}  // namespace

at::HostAllocator* pinned_allocator() { return &g_pinned; }

bool is_pinned(const void* ptr) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return find(ptr) != nullptr;
}

bool copies_async(const void* ptr, size_t nbytes, c10::DeviceIndex device) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    Block* block = find(ptr);
    if (block == nullptr) return false;
    const auto offset = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(block->ptr);
    if (nbytes > block->nbytes - offset) return false;
  }
  devplug_device_t* owner = nullptr;
  bool async = false;
  if (devplug_error_t* e = devplug_host_query(ptr, &owner, &async)) {
    devplug_error_destroy(e);
    return false;
  }
  return async && owner == Runtime::get().device(device).handle();
}

void record_use(const void* ptr, const devplug::Stream& stream, c10::DeviceIndex device) {
  devplug::Event event(Runtime::get().device(device));
  event.record(stream);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (Block* block = find(ptr)) block->uses.push_back(std::move(event));
}

}  // namespace devplug::bridge
