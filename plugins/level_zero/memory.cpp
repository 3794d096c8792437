// SPDX-License-Identifier: Apache-2.0
// Buffers and device memory. The table's shims (sdk/plugin.hpp) have checked the handles,
// ranges and devices before these run.
#include "memory.hpp"

#include <cstring>

#include "stream.hpp"
#include "ze_status.hpp"

namespace devplug::level_zero {

void* allocate_device_memory(devplug_device_handle_t* device, uint64_t bytes, const char* what) {
  if (device->info.max_allocation != 0 && bytes > device->info.max_allocation)
    sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, std::string(what) + ": " + std::to_string(bytes) +
                                                   " bytes exceed the device's largest allocation of " +
                                                   std::to_string(device->info.max_allocation) + " bytes");
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
  void* memory = allocate_device_memory(device, size_bytes, "buffer_allocate");
  auto* buffer = new devplug_buffer_handle_t;
  buffer->device = device;
  buffer->memory = memory;
  buffer->size = size_bytes;
  return buffer;
}

void buffer_release(devplug_buffer_handle_t* buffer) {
  devplug_device_handle_t* device = buffer->device;
  void* memory = buffer->memory;
  delete buffer;
  release_device_memory(device, memory);
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

}  // namespace devplug::level_zero
