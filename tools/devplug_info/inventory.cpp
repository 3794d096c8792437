// SPDX-License-Identifier: Apache-2.0
// Collects the inventory through the host API (see inventory.hpp).
#include "inventory.hpp"

#include <stdexcept>

#include "devplug/sdk/kernels.hpp"

namespace devplug::tools {

void check(devplug_error_t* error, const char* what) {
  if (error == nullptr) return;
  std::string message = std::string(what) + ": " + devplug_code_name(error->code) + ": " +
                        (error->message ? error->message : "");
  devplug_error_destroy(error);
  throw std::runtime_error(message);
}

devplug_context_t* open_context(const std::vector<std::string>& extra_plugins, bool discovery) {
  devplug_context_options_t options{};
  options.struct_size = sizeof(options);
  // A listing shows what is installed; it never pulls in the reference plugin as a fallback.
  options.flags = DEVPLUG_CONTEXT_NO_FALLBACK | (discovery ? 0u : DEVPLUG_CONTEXT_NO_DISCOVERY);
  devplug_context_t* context = nullptr;
  check(devplug_context_create(&options, &context), "devplug_context_create");
  for (const std::string& path : extra_plugins) {
    // A failure is recorded by the context and shown under "failed".
    devplug_error_destroy(devplug_context_load_plugin(context, path.c_str(), nullptr));
  }
  return context;
}

namespace {

std::string text(const char* s) { return s ? s : ""; }

std::vector<KernelSupport> kernels_of(devplug_plugin_t* plugin) {
  std::vector<KernelSupport> kernels;
  for (devplug_op_t op : devplug::sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    KernelSupport support{op, {}, 0};
    for (devplug_dtype_t dtype = 0; dtype < DEVPLUG_DTYPE_COUNT; ++dtype) {
      if ((info->dtypes & DEVPLUG_DTYPE_BIT(dtype)) == 0) continue;
      bool supported = false;
      uint32_t flags = 0;
      check(devplug_plugin_supports(plugin, op, dtype, &supported, &flags), "devplug_plugin_supports");
      if (!supported) continue;
      support.dtypes.push_back(dtype);
      support.flags |= flags;
    }
    if (!support.dtypes.empty()) kernels.push_back(std::move(support));
  }
  return kernels;
}

// The extension records on the plugin's chain, by name; at most DEVPLUG_EXTENSION_CHAIN_MAX.
std::vector<std::string> extensions_of(devplug_plugin_t* plugin) {
  const devplug_plugin_api_t* api = nullptr;
  check(devplug_plugin_get_table(plugin, &api), "devplug_plugin_get_table");
  std::vector<std::string> names;
  if (api == nullptr || !DEVPLUG_HAS_FIELD(api, devplug_plugin_api_t, extensions)) return names;
  const devplug_extension_t* e = api->extensions;
  for (int hops = 0; e != nullptr && hops < DEVPLUG_EXTENSION_CHAIN_MAX; ++hops, e = e->next) {
    const char* name = devplug_extension_name(e->type);
    names.push_back(name != nullptr ? name : "type " + std::to_string(e->type));
  }
  return names;
}

}  // namespace

Inventory take_inventory(devplug_context_t* context) {
  Inventory inventory;
  size_t plugin_count = 0, device_count = 0, failure_count = 0;
  check(devplug_context_plugin_count(context, &plugin_count), "devplug_context_plugin_count");
  check(devplug_context_device_count(context, &device_count), "devplug_context_device_count");
  std::vector<devplug_plugin_t*> handles;
  for (size_t i = 0; i < plugin_count; ++i) {
    devplug_plugin_t* plugin = nullptr;
    check(devplug_context_get_plugin(context, i, &plugin), "devplug_context_get_plugin");
    devplug_plugin_info_t info{};
    info.struct_size = sizeof(info);
    check(devplug_plugin_get_info(plugin, &info), "devplug_plugin_get_info");
    PluginReport report;
    report.name = text(info.name);
    report.version = text(info.version);
    report.path = text(info.path);
    report.abi_major = info.abi_major;
    report.abi_minor = info.abi_minor;
    report.opset = info.opset_version;
    report.device_count = info.device_count;
    report.has_note = info.device_note != nullptr;
    report.device_note = text(info.device_note);
    report.kernels = kernels_of(plugin);
    report.extensions = extensions_of(plugin);
    inventory.plugins.push_back(std::move(report));
    handles.push_back(plugin);
  }
  // Devices are listed by the context in load order; give each to its plugin.
  for (size_t i = 0; i < device_count; ++i) {
    devplug_device_t* device = nullptr;
    devplug_plugin_t* owner = nullptr;
    check(devplug_context_get_device(context, i, &device), "devplug_context_get_device");
    check(devplug_device_get_plugin(device, &owner), "devplug_device_get_plugin");
    devplug_device_properties_t properties{};
    properties.struct_size = sizeof(properties);
    check(devplug_device_get_properties(device, &properties), "devplug_device_get_properties");
    for (size_t p = 0; p < handles.size(); ++p)
      if (handles[p] == owner) inventory.plugins[p].devices.push_back(properties);
  }
  check(devplug_context_failure_count(context, &failure_count), "devplug_context_failure_count");
  for (size_t i = 0; i < failure_count; ++i) {
    const char* path = nullptr;
    const char* reason = nullptr;
    check(devplug_context_get_failure(context, i, &path, &reason), "devplug_context_get_failure");
    inventory.failed.push_back({text(path), text(reason)});
  }
  return inventory;
}

}  // namespace devplug::tools
