// The OpenCL plugin's table: devices from every OpenCL platform, buffers as cl_mem, streams
// as in-order queues, and kernels written in OpenCL C (kernels/*.cl), built at first use and
// cached in the process and on disk.
//
// The OpenCL library is opened at run time (cl_library.cpp), so the plugin loads on a
// machine without an ICD loader and reports zero devices with the reason.
#include <cstring>

#include "buffer.hpp"
#include "devplug/sdk/entry.hpp"
#include "devplug/sdk/error.hpp"
#include "kernels.hpp"
#include "objects.hpp"
#include "opencl_status.hpp"
#include "program_cache.hpp"
#include "stream.hpp"

namespace devplug::opencl {

namespace {

devplug_error_t* plugin_initialize(const devplug_plugin_init_args_t* args) {
  return sdk::guard([&] {
    if (args != nullptr)
      sdk::check_struct(args, DEVPLUG_SIZE_THROUGH(devplug_plugin_init_args_t, host_abi_minor), "args");
    (void)device_list();  // enumerate once, now rather than on the first query
  });
}

void plugin_shutdown() {}

devplug_error_t* device_count(int32_t* out_count, const char** out_note) {
  if (out_count != nullptr) *out_count = 0;
  if (out_note != nullptr) *out_note = nullptr;
  return sdk::guard([&] {
    sdk::check_not_null(out_count, "out_count");
    const DeviceList& list = device_list();
    *out_count = static_cast<int32_t>(list.devices.size());
    if (out_note != nullptr && list.devices.empty()) *out_note = list.note.c_str();
  });
}

const DeviceInfo& device_at(int32_t index) {
  const DeviceList& list = device_list();
  if (index < 0 || static_cast<size_t>(index) >= list.devices.size())
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "device index " + std::to_string(index) + " outside [0, " +
                                                 std::to_string(list.devices.size()) + ")");
  return list.devices[static_cast<size_t>(index)];
}

devplug_error_t* device_get_properties(int32_t index, devplug_device_properties_t* out_properties) {
  return sdk::guard([&] {
    sdk::check_not_null(out_properties, "out_properties");
    const size_t size = out_properties->struct_size;
    sdk::check_argument(size >= sizeof(size_t), "out_properties->struct_size is too small");
    const DeviceInfo& info = device_at(index);
    // Write only the fields inside the caller's struct.
    std::memcpy(reinterpret_cast<char*>(out_properties) + sizeof(size_t),
                reinterpret_cast<const char*>(&info.properties) + sizeof(size_t),
                std::min(size, sizeof(devplug_device_properties_t)) - sizeof(size_t));
  });
}

devplug_error_t* device_open(int32_t index, devplug_device_handle_t** out_device) {
  if (out_device != nullptr) *out_device = nullptr;
  return sdk::guard([&] {
    sdk::check_not_null(out_device, "out_device");
    const DeviceInfo& info = device_at(index);
    cl_int status = CL_SUCCESS;
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                                 reinterpret_cast<cl_context_properties>(info.platform), 0};
    cl_context context = cl().clCreateContext(properties, 1, &info.id, nullptr, nullptr, &status);
    DEVPLUG_CL_STATUS(clCreateContext, status, "opening a device");
    auto* device = new devplug_device_handle_t;
    device->info = info;
    device->context = context;
    device->programs = std::make_unique<ProgramCache>(device);
    *out_device = device;
  });
}

devplug_error_t* device_close(devplug_device_handle_t* device) {
  return sdk::guard([&] {
    sdk::check_not_null(device, "device");
    device->programs.reset();
    cl().clReleaseContext(device->context);
    delete device;
  });
}

const sdk::KernelTable& kernel_table() {
  static const sdk::KernelTable table = [] {
    sdk::KernelTable t;
    register_elementwise_kernels(t, kClaimedDtypes);
    register_reduce_kernels(t, kClaimedDtypes);
    register_index_kernels(t, kClaimedDtypes);
    register_linalg_kernels(t, kClaimedDtypes);
    register_random_kernels(t, kClaimedDtypes);
    return t;
  }();
  return table;
}

devplug_plugin_api_t make_api() {
  devplug_plugin_api_t api{};
  api.struct_size = sizeof api;
  api.abi_major = DEVPLUG_ABI_MAJOR;
  api.abi_minor = DEVPLUG_ABI_MINOR;
  api.plugin_name = "opencl";
  api.plugin_version = "0.1.0";
  api.opset_version = DEVPLUG_OPSET_VERSION;
  api.flags = DEVPLUG_PLUGIN_CACHING_ALLOCATOR;
  api.error_create = &sdk::error_create;
  api.error_destroy = &sdk::error_destroy;
  api.plugin_initialize = &plugin_initialize;
  api.plugin_shutdown = &plugin_shutdown;
  api.device_count = &device_count;
  api.device_get_properties = &device_get_properties;
  api.device_open = &device_open;
  api.device_close = &device_close;
  api.buffer_allocate = &buffer_allocate;
  api.buffer_release = &buffer_release;
  api.buffer_get_size = &buffer_get_size;
  api.buffer_copy_from_host = &buffer_copy_from_host;
  api.buffer_copy_to_host = &buffer_copy_to_host;
  api.buffer_copy = &buffer_copy;
  api.stream_create = &stream_create;
  api.stream_destroy = &stream_destroy;
  api.stream_synchronize = &stream_synchronize;
  api.event_create = &event_create;
  api.event_destroy = &event_destroy;
  api.event_record = &event_record;
  api.stream_wait_event = &stream_wait_event;
  api.event_synchronize = &event_synchronize;
  const sdk::KernelTable& table = kernel_table();
  api.kernels = table.data();
  api.kernel_count = table.size();
  return api;
}

}  // namespace

void check_kernel_call(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  sdk::check_not_null(stream, "stream");
  sdk::check_call(call);
  for (size_t i = 0; i < call->n_inputs; ++i)
    if (call->inputs[i]->buffer->device != stream->device)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "an input tensor lives on another device than the stream");
  for (size_t i = 0; i < call->n_outputs; ++i)
    if (call->outputs[i]->buffer->device != stream->device)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "the output tensor lives on another device than the stream");
}

}  // namespace devplug::opencl

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  // The table is built once; kernel_table() cannot throw except on a plugin bug.
  try {
    static const devplug_plugin_api_t api = devplug::opencl::make_api();
    return &api;
  } catch (...) {
    return nullptr;
  }
}
