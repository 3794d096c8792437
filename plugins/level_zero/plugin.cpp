// SPDX-License-Identifier: Apache-2.0
// The Level Zero plugin's table: devices from every Level Zero driver with a compute engine,
// buffers as device allocations plus byte offsets, streams as command lists with barriers
// between commands, events from event pools, and the opencl plugin's kernels (OpenCL C,
// compiled to SPIR-V at build time and embedded) built per device at first use and cached in
// the process and on disk. The host side of the kernels is shared with the opencl plugin
// (plugins/clc_common); backend.cpp runs it on Level Zero.
//
// The loader (libze_loader.so.1) is opened at run time (ze_library.cpp), so the plugin loads
// on a machine without it and reports zero devices with the reason.

#include "devplug/sdk/error.hpp"
#include "devplug/sdk/plugin.hpp"
#include "memory.hpp"
#include "module_cache.hpp"
#include "objects.hpp"
#include "ops.hpp"
#include "stream.hpp"
#include "ze_status.hpp"

namespace devplug::level_zero {

namespace {

// The device work behind each table entry; the shims of sdk::make_plugin_api check the
// arguments first.
struct LevelZeroPlugin {
  static const char* name() { return "level_zero"; }
  static const char* version() { return "0.1.0"; }
  static uint32_t flags() { return DEVPLUG_PLUGIN_CACHING_ALLOCATOR; }
  static void initialize(const devplug_plugin_init_args_t&) { (void)device_list(); }  // enumerate now
  static void shutdown() noexcept {}

  static int32_t device_count(const char** note) {
    const DeviceList& list = device_list();
    *note = list.devices.empty() ? list.note.c_str() : nullptr;
    return static_cast<int32_t>(list.devices.size());
  }

  static void device_properties(int32_t index, devplug_device_properties_t& p) {
    p = device_list().devices[static_cast<size_t>(index)].properties;
  }

  static devplug_device_handle_t* device_open(int32_t index) {
    const DeviceInfo& info = device_list().devices[static_cast<size_t>(index)];
    ze_context_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
    ze_context_handle_t context = nullptr;
    DEVPLUG_ZE_CALL(zeContextCreate, (info.driver, &desc, &context), "opening a device");
    auto* device = new devplug_device_handle_t;
    device->info = info;
    device->context = context;
    device->modules = std::make_unique<ModuleCache>(device);
    device->events = std::make_shared<EventPool>(context, info.device, false);
    device->timed_events = std::make_shared<EventPool>(context, info.device, true);
    return device;
  }

  static void device_close(devplug_device_handle_t* device) {
    device->modules.reset();
    device->events.reset();
    device->timed_events.reset();
    release_all_pinned(device);
    const ze_result_t result = ze().zeContextDestroy(device->context);
    delete device;
    if (result != ZE_RESULT_SUCCESS)
      fail_ze("zeContextDestroy", result, "closing a device", __FILE__, __LINE__);
  }

  static devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size) {
    return level_zero::buffer_allocate(device, size);
  }
  static void buffer_release(devplug_buffer_handle_t* buffer) { level_zero::buffer_release(buffer); }
  static uint64_t buffer_size(devplug_buffer_handle_t* buffer) { return buffer->size; }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) { return buffer->device; }
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) { return stream->device; }
  static devplug_device_handle_t* device_of(devplug_event_handle_t* event) { return event->device; }

  static void buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src,
                                    devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size) {
    level_zero::buffer_copy_from_host(stream, src, dst, dst_offset, size);
  }
  static void buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                  uint64_t src_offset, void* dst, uint64_t size) {
    level_zero::buffer_copy_to_host(stream, src, src_offset, dst, size);
  }
  static void buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                          devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size) {
    level_zero::buffer_copy(stream, src, src_offset, dst, dst_offset, size);
  }

  static devplug_stream_handle_t* stream_create(devplug_device_handle_t* device) {
    return level_zero::stream_create(device);
  }
  static void stream_destroy(devplug_stream_handle_t* stream) { level_zero::stream_destroy(stream); }
  static void stream_synchronize(devplug_stream_handle_t* stream) { level_zero::stream_synchronize(stream); }
  static devplug_event_handle_t* event_create(devplug_device_handle_t* device) {
    return level_zero::event_create(device);
  }
  static void event_destroy(devplug_event_handle_t* event) { level_zero::event_destroy(event); }
  static void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
    level_zero::event_record(event, stream);
  }
  static void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
    level_zero::stream_wait_event(stream, event);
  }
  static void event_synchronize(devplug_event_handle_t* event) { level_zero::event_synchronize(event); }
  // The event_timestamps extension: kernel timestamps of the events' barriers (stream.cpp).
  static int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end) {
    return level_zero::event_elapsed_ns(start, end);
  }
  // The pinned_host_memory extension: zeMemAllocHost allocations (memory.hpp).
  static void* host_allocate(devplug_device_handle_t* device, uint64_t size) {
    return level_zero::host_allocate(device, size);
  }
  static void host_release(devplug_device_handle_t* device, void* ptr) {
    level_zero::host_release(device, ptr);
  }
  // The host_address extension: buffers of a unified-memory device are shared allocations
  // (memory.hpp); FAILED_PRECONDITION elsewhere.
  static void* buffer_host_address(devplug_buffer_handle_t* buffer) {
    return level_zero::buffer_host_address(buffer);
  }
  // The host_memory_import extension: system allocations on a unified-memory device whose
  // driver lets the device use them (memory.hpp); FAILED_PRECONDITION elsewhere.
  static devplug_buffer_handle_t* buffer_import_host(devplug_device_handle_t* device, void* host,
                                                     uint64_t size_bytes) {
    return level_zero::buffer_import_host(device, host, size_bytes);
  }

  // The kernels are the shared host side of the opencl plugin's kernels/*.cl
  // (plugins/clc_common) running on backend.cpp.
  static const sdk::KernelTable& kernels() { return clc::kernel_table(); }
};

}  // namespace

}  // namespace devplug::level_zero

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  return devplug::sdk::plugin_api_or_null<devplug::level_zero::LevelZeroPlugin>();
}
