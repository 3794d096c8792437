// SPDX-License-Identifier: Apache-2.0
// Memory: device, host and shared allocations are all OpenCL fine-grained SVM, which the
// host and kernels share. Frees follow the memory free policies extension: immediate,
// blocking (wait for the queues first) or deferred (free once the queues have passed the
// work submitted before the request).
#include <algorithm>
#include <map>

#include "api.hpp"

namespace ze_cpu {

namespace {

struct Memory {
  std::mutex mutex;
  std::map<uintptr_t, std::shared_ptr<Allocation>> by_address;  // base -> allocation
  uint64_t next_id = 1;
  // Deferred frees: the allocation and, per queue, the work it must wait for.
  struct Deferred {
    std::shared_ptr<Allocation> allocation;
    std::vector<std::pair<std::weak_ptr<Queue>, uint64_t>> waits;
  };
  std::vector<Deferred> deferred;
};

Memory& memory() {
  static Memory* m = new Memory;  // never destroyed: queue threads may outlive statics
  return *m;
}

bool is_power_of_two(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

void* allocate(ze_context_handle_t hContext, size_t size, size_t alignment, ze_memory_type_t type,
               void** pptr) {
  require_init();
  std::shared_ptr<Context> context = lookup<Context>(hContext, Kind::context);
  check_pointer(pptr);
  *pptr = nullptr;
  check(size > 0, ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  check(alignment == 0 || is_power_of_two(alignment), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
  check(alignment <= 65536, ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
  const Device& d = the_device();
  check(size <= d.max_allocation, ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  // OpenCL aligns SVM to at most its largest type (128 bytes); larger alignments are made by
  // allocating more and starting inside.
  constexpr size_t kSvmAlignment = 128;
  const size_t extra = alignment > kSvmAlignment ? alignment : 0;
  void* raw = clSVMAlloc(d.cl_context_handle, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size + extra,
                         static_cast<cl_uint>(kSvmAlignment));
  check(raw != nullptr, ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
  void* p = raw;
  if (extra != 0) {
    const uintptr_t r = reinterpret_cast<uintptr_t>(raw);
    p = reinterpret_cast<void*>((r + alignment - 1) / alignment * alignment);
  }
  auto allocation = std::make_shared<Allocation>();
  allocation->raw = raw;
  allocation->base = p;
  allocation->size = size;
  allocation->type = type;
  allocation->context = context.get();
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  allocation->id = m.next_id++;
  m.by_address[reinterpret_cast<uintptr_t>(p)] = allocation;
  *pptr = p;
  return p;
}

// Removes the allocation starting at `ptr` from the map (its memory is freed by the caller).
std::shared_ptr<Allocation> take(void* ptr) {
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.by_address.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == m.by_address.end()) return nullptr;
  std::shared_ptr<Allocation> a = std::move(it->second);
  m.by_address.erase(it);
  return a;
}

void release(const Allocation& a) { clSVMFree(the_device().cl_context_handle, a.raw); }

// Where every live queue is now: frees wait for this much work.
std::vector<std::pair<std::weak_ptr<Queue>, uint64_t>> queue_marks() {
  std::vector<std::pair<std::weak_ptr<Queue>, uint64_t>> marks;
  for (const std::shared_ptr<Queue>& q : live_queues()) {
    std::lock_guard<std::mutex> lock(q->mutex);
    if (q->completed < q->submitted) marks.emplace_back(q, q->submitted);
  }
  return marks;
}

}  // namespace

std::shared_ptr<Allocation> find_allocation(const void* ptr, size_t size) {
  Memory& m = memory();
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.by_address.upper_bound(p);
  if (it == m.by_address.begin()) return nullptr;
  --it;
  const Allocation& a = *it->second;
  const uintptr_t base = reinterpret_cast<uintptr_t>(a.base);
  if (p - base >= a.size || size > a.size - (p - base)) return nullptr;
  return it->second;
}

bool device_accessible(const void* ptr, size_t size) {
  if (find_allocation(ptr, size) != nullptr) return true;
  return runtime().system_memory && ptr != nullptr && find_allocation(ptr) == nullptr;
}

void collect_deferred_frees() {
  Memory& m = memory();
  std::vector<std::shared_ptr<Allocation>> ready;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    if (m.deferred.empty()) return;
    auto done = [](const Memory::Deferred& d) {
      for (const auto& [weak, sequence] : d.waits) {
        std::shared_ptr<Queue> q = weak.lock();
        if (!q) continue;
        std::lock_guard<std::mutex> queue_lock(q->mutex);
        if (q->completed < sequence) return false;
      }
      return true;
    };
    for (auto it = m.deferred.begin(); it != m.deferred.end();) {
      if (done(*it)) {
        ready.push_back(std::move(it->allocation));
        it = m.deferred.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& a : ready) release(*a);
}

namespace api {

ze_result_t MemAllocShared(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t* device_desc,
                           const ze_host_mem_alloc_desc_t* host_desc, size_t size, size_t alignment,
                           ze_device_handle_t hDevice, void** pptr) {
  return guarded([&] {
    require_init();
    check_pointer(device_desc);
    check_pointer(host_desc);
    if (hDevice != nullptr) check_device(hDevice);
    allocate(hContext, size, alignment, ZE_MEMORY_TYPE_SHARED, pptr);
  });
}

ze_result_t MemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t* device_desc,
                           size_t size, size_t alignment, ze_device_handle_t hDevice, void** pptr) {
  return guarded([&] {
    require_init();
    check_pointer(device_desc);
    check_device(hDevice);
    allocate(hContext, size, alignment, ZE_MEMORY_TYPE_DEVICE, pptr);
  });
}

ze_result_t MemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t* host_desc, size_t size,
                         size_t alignment, void** pptr) {
  return guarded([&] {
    require_init();
    check_pointer(host_desc);
    allocate(hContext, size, alignment, ZE_MEMORY_TYPE_HOST, pptr);
  });
}

ze_result_t MemFree(ze_context_handle_t hContext, void* ptr) {
  return guarded([&] {
    require_init();
    lookup<Context>(hContext, Kind::context);
    check_pointer(ptr);
    std::shared_ptr<Allocation> a = take(ptr);
    check(a != nullptr, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    release(*a);
    collect_deferred_frees();
  });
}

ze_result_t MemFreeExt(ze_context_handle_t hContext, const ze_memory_free_ext_desc_t* desc, void* ptr) {
  return guarded([&] {
    require_init();
    lookup<Context>(hContext, Kind::context);
    check_pointer(desc);
    check_pointer(ptr);
    const uint32_t policy = desc->freePolicy;
    check(policy == 0 || policy == ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE ||
              policy == ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE,
          ZE_RESULT_ERROR_INVALID_ENUMERATION);
    std::shared_ptr<Allocation> a = take(ptr);
    check(a != nullptr, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    if (policy == ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE) {
      for (const auto& [weak, sequence] : queue_marks())
        if (std::shared_ptr<Queue> q = weak.lock()) wait_for(*q, sequence, UINT64_MAX);
      release(*a);
    } else if (policy == ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE) {
      Memory::Deferred d{a, queue_marks()};
      if (d.waits.empty()) {
        release(*a);
      } else {
        Memory& m = memory();
        std::lock_guard<std::mutex> lock(m.mutex);
        m.deferred.push_back(std::move(d));
      }
    } else {
      release(*a);
    }
    collect_deferred_frees();
  });
}

ze_result_t MemGetAllocProperties(ze_context_handle_t hContext, const void* ptr,
                                  ze_memory_allocation_properties_t* p, ze_device_handle_t* phDevice) {
  return guarded([&] {
    require_init();
    lookup<Context>(hContext, Kind::context);
    check_pointer(ptr);
    check_pointer(p);
    std::shared_ptr<Allocation> a = find_allocation(ptr);
    p->type = a ? a->type : ZE_MEMORY_TYPE_UNKNOWN;
    p->id = a ? a->id : 0;
    p->pageSize = a ? 4096 : 0;
    if (phDevice != nullptr)
      *phDevice = (a && a->type != ZE_MEMORY_TYPE_HOST)
                      ? reinterpret_cast<ze_device_handle_t>(runtime().driver->device.get())
                      : nullptr;
  });
}

ze_result_t MemGetAddressRange(ze_context_handle_t hContext, const void* ptr, void** pBase, size_t* pSize) {
  return guarded([&] {
    require_init();
    lookup<Context>(hContext, Kind::context);
    check_pointer(ptr);
    std::shared_ptr<Allocation> a = find_allocation(ptr);
    check(a != nullptr, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    if (pBase != nullptr) *pBase = a->base;
    if (pSize != nullptr) *pSize = a->size;
  });
}

}  // namespace api

}  // namespace ze_cpu
