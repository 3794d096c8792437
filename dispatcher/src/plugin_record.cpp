// SPDX-License-Identifier: Apache-2.0
// Builds a plugin's record from its table: the dense kernel table, the device count and
// each device's properties; and turns the plugin's errors into the dispatcher's.
#include "plugin_record.hpp"

#include "api_guard.hpp"
#include "device.hpp"

namespace devplug::detail {
namespace {

// Reads the kernel rows into the dense [op][dtype] table. A row is read only within its own
// struct_size; rows too short to hold `fn`, with a NULL fn, an op unknown to this op set
// (a newer plugin) or dtypes ops.def does not allow for the op are skipped.
void read_kernels(devplug_plugin_t& plugin) {
  const devplug_plugin_api_t& api = *plugin.api;
  constexpr size_t row_min = DEVPLUG_SIZE_THROUGH(devplug_kernel_t, fn);
  for (size_t i = 0; i < api.kernel_count; ++i) {
    const devplug_kernel_t* row = api.kernels[i];
    if (row == nullptr || row->struct_size < row_min || row->fn == nullptr) continue;
    const devplug_op_info_t* info = devplug_op_info(row->op);
    if (info == nullptr || row->op >= DEVPLUG_OP_END_) continue;
    const devplug_dtype_mask_t allowed = row->dtypes & info->dtypes;
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      if ((allowed & DEVPLUG_DTYPE_BIT(d)) == 0) continue;
      KernelSlot& slot = plugin.kernels[row->op][d];
      if (slot.fn != nullptr) continue;  // the first row wins; tables must not repeat pairs
      slot.fn = row->fn;
      slot.flags = row->flags;
    }
  }
}

// The device's claims: device_get_claims (ABI 1.2: an explicit mask and a hook), else the
// 1.1 `dtypes` of its properties (0, or a 1.0 plugin: every dtype).
void read_claims(const devplug_plugin_t& plugin, devplug_device_t& device) {
  const devplug_plugin_api_t& api = *plugin.api;
  if (DEVPLUG_HAS_FIELD(&api, devplug_plugin_api_t, device_get_claims) && api.device_get_claims != nullptr) {
    devplug_device_claims_t claims{};
    claims.struct_size = sizeof claims;
    devplug_error_t* error = api.device_get_claims(device.index, &claims);
    if (error != nullptr) {
      std::string reason = "device_get_claims(" + std::to_string(device.index) +
                           ") failed: " + devplug_code_name(error->code) + ": " +
                           (error->message ? error->message : "");
      api.error_destroy(error);
      throw LoadError(reason);
    }
    device.dtypes = claims.dtypes & DEVPLUG_DTYPES_ALL;
    device.supports = claims.supports;
    device.properties.dtypes = device.dtypes;  // what devplug_device_get_properties reports
    return;
  }
  // Per-device claims arrived in ABI 1.1; an older plugin's devices claim every dtype.
  if (api.abi_minor < 1) device.properties.dtypes = 0;
  const devplug_dtype_mask_t claimed = device.properties.dtypes & DEVPLUG_DTYPES_ALL;
  device.dtypes = claimed == 0 ? DEVPLUG_DTYPES_ALL : claimed;
}

void read_devices(devplug_plugin_t& plugin) {
  const devplug_plugin_api_t& api = *plugin.api;
  int32_t count = 0;
  const char* note = nullptr;
  devplug_error_t* error = api.device_count(&count, &note);
  if (error != nullptr) {
    std::string reason = std::string("device_count failed: ") + devplug_code_name(error->code) + ": " +
                         (error->message ? error->message : "");
    api.error_destroy(error);
    throw LoadError(reason);
  }
  if (count < 0) throw LoadError("device_count returned a negative count " + std::to_string(count));
  plugin.device_count = count;
  if (note != nullptr) {
    plugin.device_note = note;
    plugin.has_device_note = true;
  }
  for (int32_t i = 0; i < count; ++i) {
    auto device = std::make_unique<devplug_device_t>();
    device->plugin = &plugin;
    device->index = i;
    device->properties.struct_size = sizeof(devplug_device_properties_t);  // ours, not theirs
    device->properties.dtypes = 0;  // every dtype: what a 1.0 plugin, which leaves it, claims
    error = api.device_get_properties(i, &device->properties);
    if (error != nullptr) {
      std::string reason = "device_get_properties(" + std::to_string(i) +
                           ") failed: " + devplug_code_name(error->code) + ": " +
                           (error->message ? error->message : "");
      api.error_destroy(error);
      throw LoadError(reason);
    }
    device->properties.struct_size = sizeof(devplug_device_properties_t);
    // Strings are the plugin's to terminate; make sure they are.
    device->properties.name[sizeof(device->properties.name) - 1] = '\0';
    device->properties.vendor[sizeof(device->properties.vendor) - 1] = '\0';
    device->properties.driver_version[sizeof(device->properties.driver_version) - 1] = '\0';
    read_claims(plugin, *device);
    plugin.devices.push_back(std::move(device));
  }
}

// Finds the extensions this dispatcher uses on the plugin's chain; a record too short for the
// entries read here, or with one of them NULL, counts as absent.
void read_extensions(devplug_plugin_t& plugin) {
  const devplug_extension_t* e = devplug_extension_find(plugin.api, DEVPLUG_EXTENSION_EVENT_TIMESTAMPS);
  const auto* timestamps = reinterpret_cast<const devplug_ext_event_timestamps_t*>(e);
  if (timestamps != nullptr &&
      e->struct_size >= DEVPLUG_SIZE_THROUGH(devplug_ext_event_timestamps_t, event_elapsed_ns) &&
      timestamps->event_elapsed_ns != nullptr)
    plugin.event_timestamps = timestamps;
  e = devplug_extension_find(plugin.api, DEVPLUG_EXTENSION_PINNED_HOST_MEMORY);
  const auto* pinned = reinterpret_cast<const devplug_ext_pinned_host_memory_t*>(e);
  if (pinned != nullptr &&
      e->struct_size >= DEVPLUG_SIZE_THROUGH(devplug_ext_pinned_host_memory_t, host_release) &&
      pinned->host_allocate != nullptr && pinned->host_release != nullptr)
    plugin.pinned_host_memory = pinned;
  e = devplug_extension_find(plugin.api, DEVPLUG_EXTENSION_HOST_ADDRESS);
  const auto* address = reinterpret_cast<const devplug_ext_host_address_t*>(e);
  if (address != nullptr &&
      e->struct_size >= DEVPLUG_SIZE_THROUGH(devplug_ext_host_address_t, buffer_host_address) &&
      address->buffer_host_address != nullptr)
    plugin.host_address = address;
  e = devplug_extension_find(plugin.api, DEVPLUG_EXTENSION_FUSED_PROGRAMS);
  const auto* fused = reinterpret_cast<const devplug_ext_fused_programs_t*>(e);
  if (fused != nullptr &&
      e->struct_size >= DEVPLUG_SIZE_THROUGH(devplug_ext_fused_programs_t, fused_program_destroy) &&
      fused->fused_program_create != nullptr && fused->fused_program_launch != nullptr &&
      fused->fused_program_destroy != nullptr)
    plugin.fused_programs = fused;
  e = devplug_extension_find(plugin.api, DEVPLUG_EXTENSION_COLLECTIVES);
  const auto* collectives = reinterpret_cast<const devplug_ext_collectives_t*>(e);
  if (collectives != nullptr && e->struct_size >= DEVPLUG_SIZE_THROUGH(devplug_ext_collectives_t, recv) &&
      collectives->comm_unique_id != nullptr && collectives->comm_create != nullptr &&
      collectives->comm_destroy != nullptr && collectives->all_reduce != nullptr &&
      collectives->all_gather != nullptr && collectives->reduce_scatter != nullptr &&
      collectives->broadcast != nullptr && collectives->all_to_all != nullptr &&
      collectives->send != nullptr && collectives->recv != nullptr)
    plugin.collectives = collectives;
  e = devplug_extension_find(plugin.api, DEVPLUG_EXTENSION_HOST_MEMORY_IMPORT);
  const auto* import = reinterpret_cast<const devplug_ext_host_memory_import_t*>(e);
  if (import != nullptr &&
      e->struct_size >= DEVPLUG_SIZE_THROUGH(devplug_ext_host_memory_import_t, buffer_import_host) &&
      import->buffer_import_host != nullptr)
    plugin.host_memory_import = import;
}

}  // namespace

std::unique_ptr<devplug_plugin_t> make_plugin_record(devplug_context_t* context, LibraryRef library) {
  auto plugin = std::make_unique<devplug_plugin_t>();
  plugin->context = context;
  plugin->library = std::move(library);
  plugin->api = &plugin->library.api();
  plugin->path = plugin->library.path();
  plugin->name = plugin->api->plugin_name ? plugin->api->plugin_name : "";
  plugin->version = plugin->api->plugin_version ? plugin->api->plugin_version : "";
  if (plugin->name.empty()) throw LoadError("plugin table has no plugin_name");
  plugin->caching_allocator = (plugin->api->flags & DEVPLUG_PLUGIN_CACHING_ALLOCATOR) != 0;
  read_kernels(*plugin);
  read_extensions(*plugin);
  read_devices(*plugin);
  return plugin;
}

void throw_plugin_error(const devplug_plugin_t& plugin, devplug_error_t* error, const char* call) {
  const devplug_code_t code = error->code;
  const int64_t native = error->native_code;
  std::string message = "plugin " + plugin.name + ": " + call + ": " +
                        (error->message != nullptr ? error->message : "(no message)");
  plugin.api->error_destroy(error);
  throw Error(code, message, native);
}

}  // namespace devplug::detail

devplug_plugin_t::devplug_plugin_t() = default;

devplug_plugin_t::~devplug_plugin_t() {
  for (auto& device : devices) device->shut_down();
  devices.clear();
  magic = 0;
}
