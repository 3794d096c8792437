// SPDX-License-Identifier: Apache-2.0
// The doctor's checks that load the plugin (see doctor.hpp). They use dlopen/dlsym
// directly, as a dispatcher would, so each step can be reported on its own; the last step
// asks libdevplug itself, whose verdict is the one that counts.
#include <dlfcn.h>

#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "devplug/devplug.h"
#include "doctor.hpp"
#include "library_search.hpp"

namespace devplug::tools {
namespace {

std::string version_text(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// Formats a plugin error and destroys it through the plugin's own table.
std::string take_error(const devplug_plugin_api_t& api, devplug_error_t* error) {
  std::string text =
      std::string(devplug_code_name(error->code)) + ": " + (error->message ? error->message : "(no message)");
  if (error->native_code != 0) text += " (native code " + std::to_string(error->native_code) + ")";
  if (api.error_destroy != nullptr) api.error_destroy(error);
  return text;
}

std::string init_error_fix(devplug_code_t code) {
  if (code == DEVPLUG_CODE_UNAVAILABLE)
    return "the plugin's driver or runtime is missing or broken; a plugin should still "
           "initialize and report zero devices instead: report it to the plugin's vendor";
  return "plugin_initialize must succeed whenever the plugin can run at all; see the message "
         "above or report it to the plugin's vendor";
}

// Checks that every entry point of ABI 1.0 is there. Returns false when one is NULL.
bool check_entry_points(const devplug_plugin_api_t& api, Findings& findings) {
#define ENTRY(field) \
  { #field, api.field != nullptr }
  const std::pair<const char*, bool> entries[] = {
      ENTRY(error_create),        ENTRY(error_destroy),      ENTRY(plugin_initialize),
      ENTRY(plugin_shutdown),     ENTRY(device_count),       ENTRY(device_get_properties),
      ENTRY(device_open),         ENTRY(device_close),       ENTRY(buffer_allocate),
      ENTRY(buffer_release),      ENTRY(buffer_get_size),    ENTRY(buffer_copy_from_host),
      ENTRY(buffer_copy_to_host), ENTRY(buffer_copy),        ENTRY(stream_create),
      ENTRY(stream_destroy),      ENTRY(stream_synchronize), ENTRY(event_create),
      ENTRY(event_destroy),       ENTRY(event_record),       ENTRY(stream_wait_event),
      ENTRY(event_synchronize)};
#undef ENTRY
  std::string missing;
  for (const auto& [name, present] : entries)
    if (!present) missing += (missing.empty() ? "" : ", ") + std::string(name);
  if (!missing.empty()) {
    findings.fail("the table leaves required entry points NULL: " + missing,
                  "fill every entry of devplug_plugin_api_t; an entry the plugin cannot serve "
                  "returns an UNIMPLEMENTED error (see sdk/template/plugin.cpp)");
    return false;
  }
  findings.ok("all " + std::to_string(std::size(entries)) + " entry points of ABI 1.0 are set");
  return true;
}

// Checks the declared kernel rows against ops.def. Returns false on a hard error.
bool check_kernel_table(const devplug_plugin_api_t& api, Findings& findings) {
  if (api.kernel_count > 0 && api.kernels == nullptr) {
    findings.fail("kernel_count is " + std::to_string(api.kernel_count) + " but kernels is NULL",
                  "point `kernels` at the rows (devplug::sdk::KernelTable::data())");
    return false;
  }
  std::set<std::pair<devplug_op_t, devplug_dtype_t>> seen;
  std::set<devplug_op_t> ops;
  size_t unknown_ops = 0;
  for (size_t i = 0; i < api.kernel_count; ++i) {
    const devplug_kernel_t* row = api.kernels[i];
    const std::string where = "kernel row " + std::to_string(i);
    if (row == nullptr || row->struct_size < DEVPLUG_SIZE_THROUGH(devplug_kernel_t, fn)) {
      findings.fail(
          where + (row ? " has struct_size " + std::to_string(row->struct_size) + ", at least " +
                             std::to_string(DEVPLUG_SIZE_THROUGH(devplug_kernel_t, fn)) + " expected"
                       : " is NULL"),
          "build the rows with devplug::sdk::KernelTable");
      return false;
    }
    const devplug_op_info_t* info = devplug_op_info(row->op);
    if (info == nullptr) {
      ++unknown_ops;  // an op of a newer op set: the dispatcher ignores it
      continue;
    }
    if (row->fn == nullptr) {
      findings.fail(where + " (" + info->name + ") has no function", "set devplug_kernel_t.fn");
      return false;
    }
    if ((row->dtypes & ~info->dtypes) != 0)
      findings.warn(
          where + " (" + info->name + ") declares dtypes ops.def does not allow for it; they are ignored",
          "declare only the dtypes of the op's ops.def row");
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      if ((row->dtypes & info->dtypes & DEVPLUG_DTYPE_BIT(d)) == 0) continue;
      if (!seen.insert({row->op, d}).second)
        findings.warn(std::string(info->name) + " " + devplug_dtype_name(d) + " is declared by two rows",
                      "declare each (op, dtype) pair once");
      ops.insert(row->op);
    }
  }
  findings.ok("kernel table: " + std::to_string(api.kernel_count) + " rows, " + std::to_string(seen.size()) +
              " (op, dtype) pairs over " + std::to_string(ops.size()) + " ops");
  if (unknown_ops > 0)
    findings.note(std::to_string(unknown_ops) + " rows name ops this op set does not know (ignored)");
  return true;
}

void list_devices(const devplug_plugin_api_t& api, int32_t count, Findings& findings) {
  for (int32_t i = 0; i < count && i < 16; ++i) {
    devplug_device_properties_t p{};
    p.struct_size = sizeof(p);
    if (devplug_error_t* error = api.device_get_properties(i, &p)) {
      findings.warn(
          "device " + std::to_string(i) + ": device_get_properties failed: " + take_error(api, error),
          "device_get_properties must describe every counted device");
      continue;
    }
    p.name[sizeof(p.name) - 1] = '\0';
    p.vendor[sizeof(p.vendor) - 1] = '\0';
    findings.ok("device " + std::to_string(i) + ": " + p.name + " (" + p.vendor + ")");
  }
}

// The dispatcher's verdict, through the host API.
bool check_with_dispatcher(const std::string& path, Findings& findings) {
  devplug_context_options_t options{};
  options.struct_size = sizeof(options);
  options.flags = DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK;
  devplug_context_t* context = nullptr;
  if (devplug_error_t* error = devplug_context_create(&options, &context)) {
    findings.fail(std::string("cannot create a devplug context: ") + (error->message ? error->message : ""),
                  "a libdevplug problem, not the plugin's");
    devplug_error_destroy(error);
    return false;
  }
  devplug_plugin_t* plugin = nullptr;
  bool loaded = true;
  if (devplug_error_t* error = devplug_context_load_plugin(context, path.c_str(), &plugin)) {
    findings.fail(std::string("libdevplug refuses the plugin: ") + (error->message ? error->message : ""),
                  "see the findings above");
    devplug_error_destroy(error);
    loaded = false;
  } else {
    devplug_plugin_info_t info{};
    info.struct_size = sizeof(info);
    if (devplug_error_t* error = devplug_plugin_get_info(plugin, &info)) {
      devplug_error_destroy(error);
      findings.ok("libdevplug " + std::string(devplug_version_string()) + " loads it");
    } else {
      findings.ok("libdevplug " + std::string(devplug_version_string()) + " loads it as '" +
                  (info.name ? info.name : "") + "' with " + std::to_string(info.device_count) +
                  " device(s)");
    }
  }
  devplug_context_destroy(context);
  return loaded;
}

}  // namespace

int check_loaded_plugin(const std::string& path, Findings& findings) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const std::string message = dlerror();
    findings.fail("dlopen fails: " + message, load_error_fix(message));
    return kDoctorWillNotLoad;
  }
  findings.ok("dlopen succeeds (all symbols resolve)");

  void* symbol = dlsym(handle, DEVPLUG_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr) {
    findings.fail(std::string("the plugin does not export ") + DEVPLUG_PLUGIN_ENTRY_SYMBOL,
                  "define it as extern \"C\" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* "
                  "devplug_plugin_get_api(void) (not a devplug plugin otherwise)");
    dlclose(handle);
    return kDoctorWillNotLoad;
  }
  findings.ok(std::string("exports ") + DEVPLUG_PLUGIN_ENTRY_SYMBOL);

  auto get_api = reinterpret_cast<devplug_plugin_get_api_fn>(symbol);
  const devplug_plugin_api_t* table = get_api();
  if (table == nullptr) {
    findings.fail(
        std::string(DEVPLUG_PLUGIN_ENTRY_SYMBOL) + " returns NULL: the plugin refuses to serve this process",
        "a plugin must return its table even without a device (report zero devices); "
        "ask the plugin's vendor why it refuses");
    dlclose(handle);
    return kDoctorWillNotLoad;
  }

  // Read the header first; never read past struct_size.
  const uint32_t major = DEVPLUG_ABI_MAJOR, minor = DEVPLUG_ABI_MINOR;
  const size_t struct_size = table->struct_size;
  if (struct_size < DEVPLUG_SIZE_THROUGH(devplug_plugin_api_t, abi_minor)) {
    findings.fail(
        "table struct_size " + std::to_string(struct_size) + " is too small to hold the ABI version",
        "the plugin's table is corrupt: rebuild it against devplug ABI " + std::to_string(major) + ".x");
    dlclose(handle);
    return kDoctorWillNotLoad;
  }
  const std::string versions = "plugin ABI " + version_text(table->abi_major, table->abi_minor) +
                               " vs dispatcher ABI " + version_text(major, minor);
  if (table->abi_major != major) {
    findings.fail("ABI major mismatch: " + versions,
                  "rebuild the plugin against devplug ABI " + std::to_string(major) +
                      ".x headers, or use a devplug whose ABI major is " + std::to_string(table->abi_major));
    dlclose(handle);
    return kDoctorWillNotLoad;
  }
  if (struct_size < DEVPLUG_PLUGIN_API_MIN_SIZE) {
    findings.fail("table struct_size " + std::to_string(struct_size) +
                      " is too small: ABI 1.0 needs at least DEVPLUG_PLUGIN_API_MIN_SIZE = " +
                      std::to_string(DEVPLUG_PLUGIN_API_MIN_SIZE) + " bytes (through kernel_count)",
                  "rebuild the plugin against complete devplug ABI " + std::to_string(major) +
                      ".x headers and set struct_size = sizeof(devplug_plugin_api_t)");
    dlclose(handle);
    return kDoctorWillNotLoad;
  }
  // Exactly the 1.0 fields: copying them reads nothing past the plugin's struct.
  devplug_plugin_api_t api;
  std::memcpy(&api, table, DEVPLUG_PLUGIN_API_MIN_SIZE);
  findings.ok(versions + ", struct_size " + std::to_string(struct_size) + " (minimum " +
              std::to_string(DEVPLUG_PLUGIN_API_MIN_SIZE) + ")");
  if (api.abi_minor > minor)
    findings.note("the plugin is a newer minor: fields after kernel_count are ignored (compatible)");
  const std::string name = api.plugin_name ? api.plugin_name : "";
  findings.ok("plugin '" + name + "' version " + (api.plugin_version ? api.plugin_version : "(none)"));
  if (name.empty()) findings.warn("plugin_name is empty", "give the plugin a short, stable name");
  if (api.opset_version > DEVPLUG_OPSET_VERSION)
    findings.note("op set " + std::to_string(api.opset_version) + " is newer than this build's " +
                  std::to_string(DEVPLUG_OPSET_VERSION) + ": ops it adds are ignored");
  else
    findings.ok("op set " + std::to_string(api.opset_version) +
                " (this build: " + std::to_string(DEVPLUG_OPSET_VERSION) + ")");

  if (!check_entry_points(api, findings) || !check_kernel_table(api, findings)) {
    dlclose(handle);
    return kDoctorWillNotLoad;
  }

  devplug_plugin_init_args_t args{sizeof(devplug_plugin_init_args_t), major, minor};
  if (devplug_error_t* error = api.plugin_initialize(&args)) {
    const devplug_code_t code = error->code;
    findings.fail("plugin_initialize fails: " + take_error(api, error), init_error_fix(code));
    dlclose(handle);
    return kDoctorWillNotLoad;
  }
  findings.ok("plugin_initialize succeeds");

  int32_t count = 0;
  const char* note = nullptr;
  int status = kDoctorOk;
  if (devplug_error_t* error = api.device_count(&count, &note)) {
    findings.fail("device_count fails: " + take_error(api, error),
                  "device_count must succeed and report zero devices when there are none");
    status = kDoctorWillNotLoad;
  } else if (count <= 0) {
    const std::string why = note ? note : "(the plugin gives no note)";
    findings.warn("zero devices: " + why, no_device_fix(why));
    status = kDoctorNoDevices;
  } else {
    findings.ok(std::to_string(count) + " device(s)");
    list_devices(api, count, findings);
  }
  api.plugin_shutdown();
  dlclose(handle);

  if (!check_with_dispatcher(path, findings)) return kDoctorWillNotLoad;
  return status;
}

}  // namespace devplug::tools
