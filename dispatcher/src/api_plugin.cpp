// SPDX-License-Identifier: Apache-2.0
// C entry points: plugin records and devices.
#include "api_guard.hpp"
#include "context.hpp"
#include "device.hpp"
#include "graph.hpp"
#include "stream_event.hpp"
#include "versioned.hpp"

using namespace devplug::detail;

extern "C" {

DEVPLUG_API devplug_error_t* devplug_plugin_get_info(devplug_plugin_t* plugin,
                                                     devplug_plugin_info_t* out_info) {
  return guard([&] {
    require_not_null(out_info, "out_info");
    require_handle(plugin, "plugin");
    devplug_plugin_info_t info{};
    info.struct_size = sizeof(info);
    info.name = plugin->name.c_str();
    info.version = plugin->version.c_str();
    info.path = plugin->path.c_str();
    info.abi_major = plugin->api->abi_major;
    info.abi_minor = plugin->api->abi_minor;
    info.opset_version = plugin->api->opset_version;
    info.device_count = plugin->device_count;
    info.device_note = plugin->has_device_note ? plugin->device_note.c_str() : nullptr;
    copy_versioned(info, out_info, "out_info");
  });
}

DEVPLUG_API devplug_error_t* devplug_plugin_supports(devplug_plugin_t* plugin, devplug_op_t op,
                                                     devplug_dtype_t dtype, bool* out_supported,
                                                     uint32_t* out_kernel_flags) {
  return guard([&] {
    if (out_supported != nullptr) *out_supported = false;
    if (out_kernel_flags != nullptr) *out_kernel_flags = 0;
    require_handle(plugin, "plugin");
    require_not_null(out_supported, "out_supported");
    if (devplug_op_info(op) == nullptr)
      invalid_argument("op " + std::to_string(op) + " is not an op of this op set");
    if (devplug_dtype_name(dtype) == nullptr)
      invalid_argument("dtype " + std::to_string(dtype) + " is unknown");
    const KernelSlot& slot = plugin->kernel(op, dtype);
    *out_supported = slot.fn != nullptr;
    if (out_kernel_flags != nullptr) *out_kernel_flags = slot.flags;
  });
}

DEVPLUG_API devplug_error_t* devplug_device_supports(devplug_device_t* device, devplug_op_t op,
                                                     devplug_dtype_t dtype, bool* out_supported,
                                                     uint32_t* out_kernel_flags) {
  return guard([&] {
    if (out_supported != nullptr) *out_supported = false;
    if (out_kernel_flags != nullptr) *out_kernel_flags = 0;
    require_handle(device, "device");
    require_not_null(out_supported, "out_supported");
    if (devplug_op_info(op) == nullptr)
      invalid_argument("op " + std::to_string(op) + " is not an op of this op set");
    if (devplug_dtype_name(dtype) == nullptr)
      invalid_argument("dtype " + std::to_string(dtype) + " is unknown");
    const KernelSlot& slot = device->kernel(op, dtype, DEVPLUG_DTYPE_BIT(dtype));
    *out_supported = slot.fn != nullptr;
    if (out_kernel_flags != nullptr) *out_kernel_flags = slot.flags;
  });
}

DEVPLUG_API devplug_error_t* devplug_plugin_get_table(devplug_plugin_t* plugin,
                                                      const devplug_plugin_api_t** out_api) {
  return guard([&] {
    require_not_null(out_api, "out_api");
    *out_api = nullptr;
    require_handle(plugin, "plugin");
    *out_api = plugin->library.raw_api();
  });
}

DEVPLUG_API devplug_error_t* devplug_device_get_properties(devplug_device_t* device,
                                                           devplug_device_properties_t* out_properties) {
  return guard([&] {
    require_not_null(out_properties, "out_properties");
    require_handle(device, "device");
    // The 1.0 struct (before the 1.1 `dtypes` field) is accepted and filled as far as it goes.
    copy_versioned(device->properties, out_properties, "out_properties", DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE);
  });
}

DEVPLUG_API devplug_error_t* devplug_device_get_plugin(devplug_device_t* device,
                                                       devplug_plugin_t** out_plugin) {
  return guard([&] {
    require_not_null(out_plugin, "out_plugin");
    *out_plugin = nullptr;
    require_handle(device, "device");
    *out_plugin = device->plugin;
  });
}

DEVPLUG_API devplug_error_t* devplug_device_default_stream(devplug_device_t* device,
                                                           devplug_stream_t** out_stream) {
  return guard([&] {
    require_not_null(out_stream, "out_stream");
    *out_stream = nullptr;
    require_handle(device, "device");
    *out_stream = device->default_stream();
  });
}

DEVPLUG_API devplug_error_t* devplug_device_synchronize(devplug_device_t* device) {
  return guard([&] {
    require_handle(device, "device");
    refuse_device_capture(*device, "devplug_device_synchronize");
    device->synchronize();
  });
}

DEVPLUG_API devplug_error_t* devplug_device_memory_stats(devplug_device_t* device,
                                                         devplug_memory_stats_t* out_stats) {
  return guard([&] {
    require_handle(device, "device");
    require_not_null(out_stats, "out_stats");
    copy_versioned(device->allocator.stats(), out_stats, "out_stats");
  });
}

DEVPLUG_API devplug_error_t* devplug_device_reset_memory_stats(devplug_device_t* device, uint32_t what) {
  return guard([&] {
    require_handle(device, "device");
    constexpr uint32_t known = DEVPLUG_MEMORY_RESET_PEAKS | DEVPLUG_MEMORY_RESET_TOTALS;
    if ((what & ~known) != 0)
      invalid_argument("what has unknown bits " + std::to_string(what & ~known) +
                       " (DEVPLUG_MEMORY_RESET_PEAKS and DEVPLUG_MEMORY_RESET_TOTALS are known)");
    device->allocator.reset_stats(what);
  });
}

DEVPLUG_API devplug_error_t* devplug_device_empty_cache(devplug_device_t* device) {
  return guard([&] {
    require_handle(device, "device");
    device->synchronize();
    device->allocator.release_all(*device);
  });
}

}  // extern "C"
