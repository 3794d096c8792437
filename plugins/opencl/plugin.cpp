// SPDX-License-Identifier: Apache-2.0
// The OpenCL plugin's table: devices from every OpenCL platform, buffers as cl_mem, streams
// as in-order queues, pinned host memory as mapped host-visible buffers, and kernels written
// in OpenCL C (kernels/*.cl), built at first use and cached in the process and on disk. The
// host side of the kernels is shared with the level_zero plugin (plugins/clc_common);
// backend.cpp runs it on OpenCL.
//
// The OpenCL library is opened at run time (cl_library.cpp), so the plugin loads on a
// machine without an ICD loader and reports zero devices with the reason.

#include "buffer.hpp"
#include "devplug/sdk/entry.hpp"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/plugin.hpp"
#include "composite_kernels.hpp"
#include "fused.hpp"
#include "host_memory.hpp"
#include "ops.hpp"
#include "objects.hpp"
#include "opencl_status.hpp"
#include "program_cache.hpp"
#include "stream.hpp"

namespace devplug::opencl {

namespace {

// The device work behind each table entry; the shims of sdk::make_plugin_api check the
// arguments first.
struct OpenClPlugin {
  static const char* name() { return "opencl"; }
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
    cl_int status = CL_SUCCESS;
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                                reinterpret_cast<cl_context_properties>(info.platform), 0};
    cl_context context = cl().clCreateContext(properties, 1, &info.id, nullptr, nullptr, &status);
    DEVPLUG_CL_STATUS(clCreateContext, status, "opening a device");
    auto* device = new devplug_device_handle_t;
    device->info = info;
    device->context = context;
    device->programs = std::make_unique<ProgramCache>(device);
    device->pinned = std::make_unique<PinnedHostMemory>(context, info.id);
    device->profiling = opencl::want_profiling(info);
    return device;
  }

  static void device_close(devplug_device_handle_t* device) {
    device->programs.reset();
    device->pinned.reset();
    cl().clReleaseContext(device->context);
    delete device;
  }

  static devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size) {
    return opencl::buffer_allocate(device, size);
  }
  static void buffer_release(devplug_buffer_handle_t* buffer) { opencl::buffer_release(buffer); }
  static uint64_t buffer_size(devplug_buffer_handle_t* buffer) { return buffer->size; }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) { return buffer->device; }
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) { return stream->device; }
  static devplug_device_handle_t* device_of(devplug_event_handle_t* event) { return event->device; }

  static void buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src,
                                    devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size) {
    opencl::buffer_copy_from_host(stream, src, dst, dst_offset, size);
  }
  static void buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                  uint64_t src_offset, void* dst, uint64_t size) {
    opencl::buffer_copy_to_host(stream, src, src_offset, dst, size);
  }
  static void buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                          devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size) {
    opencl::buffer_copy(stream, src, src_offset, dst, dst_offset, size);
  }

  static devplug_stream_handle_t* stream_create(devplug_device_handle_t* device) {
    return opencl::stream_create(device);
  }
  static void stream_destroy(devplug_stream_handle_t* stream) { opencl::stream_destroy(stream); }
  static void stream_synchronize(devplug_stream_handle_t* stream) { opencl::stream_synchronize(stream); }
  static devplug_event_handle_t* event_create(devplug_device_handle_t* device) {
    return opencl::event_create(device);
  }
  static void event_destroy(devplug_event_handle_t* event) { opencl::event_destroy(event); }
  static void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
    opencl::event_record(event, stream);
  }
  static void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
    opencl::stream_wait_event(stream, event);
  }
  static void event_synchronize(devplug_event_handle_t* event) { opencl::event_synchronize(event); }
  // The event_timestamps extension: the markers' profiling info (stream.cpp).
  static int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end) {
    return opencl::event_elapsed_ns(start, end);
  }
  // The pinned_host_memory extension: mapped CL_MEM_ALLOC_HOST_PTR buffers (host_memory.hpp).
  // No host_address: the buffers above have no host address OpenCL 1.2 keeps valid while
  // kernels use them (host_memory.hpp says why).
  static void* host_allocate(devplug_device_handle_t* device, uint64_t size) {
    return opencl::host_allocate(device, size);
  }
  static void host_release(devplug_device_handle_t* device, void* ptr) { opencl::host_release(device, ptr); }
  // The fused_programs extension: one generated kernel per program (fused.hpp).
  static devplug_fused_program_handle_t* fused_program_create(devplug_device_handle_t* device,
                                                              const devplug_fused_program_desc_t* desc) {
    return opencl::fused_program_create(device, *desc);
  }
  static void fused_program_launch(devplug_stream_handle_t* stream, devplug_fused_program_handle_t* program,
                                   const devplug_tensor_desc_t* const* inputs, size_t n_inputs,
                                   const devplug_tensor_desc_t* const* outputs, size_t n_outputs) {
    opencl::fused_program_launch(stream, program, inputs, n_inputs, outputs, n_outputs);
  }
  static void fused_program_destroy(devplug_fused_program_handle_t* program) {
    opencl::fused_program_destroy(program);
  }

  // The prims are the shared host side of kernels/*.cl (plugins/clc_common) running on
  // backend.cpp; the native composites are this plugin's own (kernels_composite.cpp).
  static const sdk::KernelTable& kernels() {
    static const sdk::KernelTable table = [] {
      sdk::KernelTable t;
      clc::register_prim_kernels(t);
      register_composite_kernels(t, clc::kClaimedDtypes);
      return t;
    }();
    return table;
  }
};

}  // namespace

}  // namespace devplug::opencl

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  return devplug::sdk::plugin_api_or_null<devplug::opencl::OpenClPlugin>();
}
