// SPDX-License-Identifier: Apache-2.0
// Buffers and device memory. The table's shims (sdk/plugin.hpp) have checked the handles,
// ranges and devices before these run.
#include "memory.hpp"

#include <cstring>

#include "stream.hpp"
#include "ze_status.hpp"

namespace devplug::level_zero {

namespace {

void check_allocation_size(devplug_device_handle_t* device, uint64_t bytes, const char* what) {
  if (device->info.max_allocation != 0 && bytes > device->info.max_allocation)
    sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, std::string(what) + ": " + std::to_string(bytes) +
                                                   " bytes exceed the device's largest allocation of " +
                                                   std::to_string(device->info.max_allocation) + " bytes");
}

// Memory of `bytes` the device and the host both address (zeMemAllocShared), for buffers of a
// unified-memory device.
void* allocate_shared_memory(devplug_device_handle_t* device, uint64_t bytes, const char* what) {
  check_allocation_size(device, bytes, what);
  ze_device_mem_alloc_desc_t device_desc{};
  device_desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  ze_host_mem_alloc_desc_t host_desc{};
  host_desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  void* memory = nullptr;
  DEVPLUG_ZE_CALL(zeMemAllocShared,
                  (device->context, &device_desc, &host_desc, bytes, 64, device->info.device, &memory), what);
  return memory;
}

}  // namespace

void* allocate_device_memory(devplug_device_handle_t* device, uint64_t bytes, const char* what) {
  check_allocation_size(device, bytes, what);
  ze_device_mem_alloc_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  void* memory = nullptr;
  DEVPLUG_ZE_CALL(zeMemAllocDevice, (device->context, &desc, bytes, 64, device->info.device, &memory), what);
  return memory;
}

namespace {

void free_with_policy(devplug_device_handle_t* device, void* memory, uint32_t policy) {
  ze_memory_free_ext_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC;
  desc.freePolicy = policy;
  DEVPLUG_ZE_CALL(zeMemFreeExt, (device->context, &desc, memory), "releasing device memory");
}

}  // namespace

bool defer_free(devplug_device_handle_t* device, void* memory) {
  if ((device->info.free_policies & ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE) == 0) return false;
  free_with_policy(device, memory, ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE);
  return true;
}

void release_device_memory(devplug_device_handle_t* device, void* memory) {
  if (device->info.free_policies != 0) submit_device_streams(device);
  if (defer_free(device, memory)) return;
  if (device->info.free_policies & ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE) {
    free_with_policy(device, memory, ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE);
    return;
  }
  synchronize_device_streams(device);
  DEVPLUG_ZE_CALL(zeMemFree, (device->context, memory), "releasing device memory");
}

devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes) {
  const bool shared = device->info.unified_memory;
  void* memory = shared ? allocate_shared_memory(device, size_bytes, "buffer_allocate")
                        : allocate_device_memory(device, size_bytes, "buffer_allocate");
  devplug_buffer_handle_t* buffer = nullptr;
  try {
    buffer = new devplug_buffer_handle_t;
  } catch (...) {
    ze().zeMemFree(device->context, memory);
    throw;
  }
  buffer->device = device;
  buffer->memory = memory;
  buffer->size = size_bytes;
  buffer->host_addressable = shared;
  return buffer;
}

void buffer_release(devplug_buffer_handle_t* buffer) {
  devplug_device_handle_t* device = buffer->device;
  void* memory = buffer->memory;
  const bool lent = buffer->lent;
  delete buffer;
  if (lent)
    synchronize_device_streams(device);  // the memory is the caller's again once this returns
  else
    release_device_memory(device, memory);
}

devplug_buffer_handle_t* buffer_import_host(devplug_device_handle_t* device, void* host,
                                            uint64_t size_bytes) {
  if (!device->info.unified_memory)
    sdk::fail(DEVPLUG_CODE_FAILED_PRECONDITION,
              "buffer_import_host: the memory of '" + device->info.name +
                  "' is not host memory (the device is neither a CPU nor integrated: no "
                  "DEVPLUG_DEVICE_UNIFIED_MEMORY)");
  if (!device->info.system_memory)
    sdk::fail(DEVPLUG_CODE_FAILED_PRECONDITION,
              "buffer_import_host: the driver of '" + device->info.name +
                  "' does not let the device read and write system allocations (its "
                  "sharedSystemAllocCapabilities lack ZE_MEMORY_ACCESS_CAP_FLAG_RW)");
  auto* buffer = new devplug_buffer_handle_t;
  buffer->device = device;
  buffer->memory = host;
  buffer->size = size_bytes;
  buffer->host_addressable = true;
  buffer->lent = true;
  return buffer;
}

void buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src, devplug_buffer_handle_t* dst,
                           uint64_t dst_offset, uint64_t size_bytes) {
  append_copy_from_host(stream, static_cast<char*>(dst->memory) + dst_offset, src, size_bytes);
}

void buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                         void* dst, uint64_t size_bytes) {
  append_copy_to_host(stream, dst, static_cast<const char*>(src->memory) + src_offset, size_bytes);
}

void buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                 devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size_bytes) {
  append_device_copy(stream, static_cast<char*>(dst->memory) + dst_offset,
                     static_cast<const char*>(src->memory) + src_offset, size_bytes);
}

void* buffer_host_address(devplug_buffer_handle_t* buffer) {
  if (!buffer->host_addressable)
    sdk::fail(DEVPLUG_CODE_FAILED_PRECONDITION,
              "buffer_host_address: the buffer is device memory of '" + buffer->device->info.name +
                  "', which the host cannot address (the device is neither a CPU nor integrated: no "
                  "DEVPLUG_DEVICE_UNIFIED_MEMORY)");
  return buffer->memory;
}

// ---- pinned host memory ----

void* host_allocate(devplug_device_handle_t* device, uint64_t size_bytes) {
  check_allocation_size(device, size_bytes, "host_allocate");
  ze_host_mem_alloc_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  void* memory = nullptr;
  DEVPLUG_ZE_CALL(zeMemAllocHost, (device->context, &desc, size_bytes, 64, &memory),
                  "allocating pinned host memory");
  try {
    std::lock_guard<std::mutex> lock(device->pinned_mutex);
    device->pinned.emplace(reinterpret_cast<uintptr_t>(memory), size_bytes);
    device->pinned_count.store(device->pinned.size(), std::memory_order_release);
  } catch (...) {
    ze().zeMemFree(device->context, memory);
    throw;
  }
  return memory;
}

void host_release(devplug_device_handle_t* device, void* ptr) {
  {
    std::lock_guard<std::mutex> lock(device->pinned_mutex);
    if (device->pinned.erase(reinterpret_cast<uintptr_t>(ptr)) == 0)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
                "host_release: the pointer is not memory that host_allocate gave for this device (or it "
                "was released already)");
    device->pinned_count.store(device->pinned.size(), std::memory_order_release);
  }
  // Copies enqueued on it may still run, on any stream of the device.
  release_device_memory(device, ptr);
}

bool is_pinned(devplug_device_handle_t* device, const void* ptr, size_t size) {
  if (device->pinned_count.load(std::memory_order_acquire) == 0) return false;
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(device->pinned_mutex);
  auto it = device->pinned.upper_bound(address);
  if (it == device->pinned.begin()) return false;
  --it;
  const uint64_t offset = address - it->first;
  return offset < it->second && size <= it->second - offset;
}

void release_all_pinned(devplug_device_handle_t* device) noexcept {
  std::lock_guard<std::mutex> lock(device->pinned_mutex);
  for (const auto& block : device->pinned)
    ze().zeMemFree(device->context, reinterpret_cast<void*>(block.first));
  device->pinned.clear();
  device->pinned_count.store(0, std::memory_order_release);
}

}  // namespace devplug::level_zero
