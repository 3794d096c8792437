// SPDX-License-Identifier: Apache-2.0
// C entry points: version, errors, contexts and their registry of plugins, devices and
// load failures.
#include <cstdlib>
#include <cstring>

#include "api_guard.hpp"
#include "context.hpp"
#include "device.hpp"
#include "devplug/sdk/fault.hpp"
#include "trace.hpp"

using namespace devplug::detail;

#ifndef DEVPLUG_VERSION_STRING
#define DEVPLUG_VERSION_STRING "0.0.0"
#endif

namespace {

constexpr uint32_t kKnownContextFlags = DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT |
                                        DEVPLUG_CONTEXT_NO_FALLBACK | DEVPLUG_CONTEXT_DECOMPOSE;

// A switch variable: set to anything but empty or "0".
bool environment_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
}

}  // namespace

extern "C" {

DEVPLUG_API const char* devplug_version_string(void) { return DEVPLUG_VERSION_STRING; }

DEVPLUG_API void devplug_abi_version(uint32_t* out_major, uint32_t* out_minor) {
  if (out_major != nullptr) *out_major = DEVPLUG_ABI_MAJOR;
  if (out_minor != nullptr) *out_minor = DEVPLUG_ABI_MINOR;
}

DEVPLUG_API void devplug_error_destroy(devplug_error_t* error) { devplug::sdk::error_destroy(error); }

DEVPLUG_API devplug_error_t* devplug_context_create(const devplug_context_options_t* options,
                                                    devplug_context_t** out_context) {
  return guard([&] {
    require_not_null(out_context, "out_context");
    *out_context = nullptr;
    if (forked_after_init()) refuse_forked();
    uint32_t flags = 0;
    if (options != nullptr) {
      if (options->struct_size < DEVPLUG_SIZE_THROUGH(devplug_context_options_t, flags))
        invalid_argument("options->struct_size is " + std::to_string(options->struct_size) + ", at least " +
                         std::to_string(DEVPLUG_SIZE_THROUGH(devplug_context_options_t, flags)) +
                         " expected");
      flags = options->flags;
      if (flags & ~kKnownContextFlags)
        invalid_argument("options->flags has unknown bits " + std::to_string(flags & ~kKnownContextFlags));
    }
    devplug::sdk::allocation_faults().arm_from_environment();  // sdk/fault.hpp, for tests
    auto context = std::make_unique<devplug_context_t>();
    context->strict = (flags & DEVPLUG_CONTEXT_STRICT) != 0 || environment_flag("DEVPLUG_STRICT");
    context->no_fallback = (flags & DEVPLUG_CONTEXT_NO_FALLBACK) != 0;
    context->decompose = (flags & DEVPLUG_CONTEXT_DECOMPOSE) != 0 || environment_flag("DEVPLUG_DECOMPOSE");
    context->trace = Trace::from_environment();
    if ((flags & DEVPLUG_CONTEXT_NO_DISCOVERY) == 0) discover_plugins(*context);
    *out_context = context.release();
  });
}

DEVPLUG_API void devplug_context_destroy(devplug_context_t* context) {
  guard_void([&] {
    if (context == nullptr || context->magic != devplug_context_t::kMagic) return;
    if (forked_after_init()) return;  // the parent's context, in a forked child: left alone
    delete context;
  });
}

DEVPLUG_API devplug_error_t* devplug_context_load_plugin(devplug_context_t* context, const char* path,
                                                         devplug_plugin_t** out_plugin) {
  return guard([&] {
    if (out_plugin != nullptr) *out_plugin = nullptr;
    require_handle(context, "context");
    require_not_null(path, "path");
    devplug_plugin_t* plugin = load_plugin(*context, path);
    if (out_plugin != nullptr) *out_plugin = plugin;
  });
}

DEVPLUG_API devplug_error_t* devplug_context_plugin_count(devplug_context_t* context, size_t* out_count) {
  return guard([&] {
    require_not_null(out_count, "out_count");
    *out_count = 0;
    require_handle(context, "context");
    std::lock_guard<std::mutex> lock(context->mutex);
    *out_count = context->plugins.size();
  });
}

DEVPLUG_API devplug_error_t* devplug_context_get_plugin(devplug_context_t* context, size_t index,
                                                        devplug_plugin_t** out_plugin) {
  return guard([&] {
    require_not_null(out_plugin, "out_plugin");
    *out_plugin = nullptr;
    require_handle(context, "context");
    std::lock_guard<std::mutex> lock(context->mutex);
    if (index >= context->plugins.size())
      invalid_argument("index " + std::to_string(index) + " is out of range (" +
                       std::to_string(context->plugins.size()) + " plugins)");
    *out_plugin = context->plugins[index].get();
  });
}

DEVPLUG_API devplug_error_t* devplug_context_find_plugin(devplug_context_t* context, const char* name,
                                                         devplug_plugin_t** out_plugin) {
  return guard([&] {
    require_not_null(out_plugin, "out_plugin");
    *out_plugin = nullptr;
    require_handle(context, "context");
    require_not_null(name, "name");
    std::lock_guard<std::mutex> lock(context->mutex);
    for (const auto& plugin : context->plugins) {
      if (plugin->name == name) {
        *out_plugin = plugin.get();
        return;
      }
    }
    throw Error(DEVPLUG_CODE_NOT_FOUND, std::string("no loaded plugin is named \"") + name + "\"");
  });
}

DEVPLUG_API devplug_error_t* devplug_context_failure_count(devplug_context_t* context, size_t* out_count) {
  return guard([&] {
    require_not_null(out_count, "out_count");
    *out_count = 0;
    require_handle(context, "context");
    std::lock_guard<std::mutex> lock(context->mutex);
    *out_count = context->failures.size();
  });
}

DEVPLUG_API devplug_error_t* devplug_context_get_failure(devplug_context_t* context, size_t index,
                                                         const char** out_path, const char** out_reason) {
  return guard([&] {
    if (out_path != nullptr) *out_path = nullptr;
    if (out_reason != nullptr) *out_reason = nullptr;
    require_handle(context, "context");
    require_not_null(out_path, "out_path");
    require_not_null(out_reason, "out_reason");
    std::lock_guard<std::mutex> lock(context->mutex);
    if (index >= context->failures.size())
      invalid_argument("index " + std::to_string(index) + " is out of range (" +
                       std::to_string(context->failures.size()) + " failures)");
    *out_path = context->failures[index].path.c_str();
    *out_reason = context->failures[index].reason.c_str();
  });
}

DEVPLUG_API devplug_error_t* devplug_context_device_count(devplug_context_t* context, size_t* out_count) {
  return guard([&] {
    require_not_null(out_count, "out_count");
    *out_count = 0;
    require_handle(context, "context");
    std::lock_guard<std::mutex> lock(context->mutex);
    *out_count = context->devices.size();
  });
}

DEVPLUG_API devplug_error_t* devplug_context_get_device(devplug_context_t* context, size_t index,
                                                        devplug_device_t** out_device) {
  return guard([&] {
    require_not_null(out_device, "out_device");
    *out_device = nullptr;
    require_handle(context, "context");
    std::lock_guard<std::mutex> lock(context->mutex);
    if (index >= context->devices.size())
      invalid_argument("index " + std::to_string(index) + " is out of range (" +
                       std::to_string(context->devices.size()) + " devices)");
    *out_device = context->devices[index];
  });
}

DEVPLUG_API devplug_error_t* devplug_context_write_trace(devplug_context_t* context, bool* out_written) {
  return guard([&] {
    if (out_written != nullptr) *out_written = false;
    require_handle(context, "context");
    if (!context->trace) return;
    context->trace->write();
    if (out_written != nullptr) *out_written = true;
  });
}

DEVPLUG_API devplug_error_t* devplug_context_fallback_count(devplug_context_t* context, devplug_op_t op,
                                                            uint64_t* out_count) {
  return guard([&] {
    require_not_null(out_count, "out_count");
    *out_count = 0;
    require_handle(context, "context");
    if (op == DEVPLUG_OP_INVALID) {
      uint64_t total = 0;
      for (const auto& count : context->fallback_counts) total += count.load(std::memory_order_relaxed);
      *out_count = total;
      return;
    }
    if (devplug_op_info(op) == nullptr || op >= DEVPLUG_OP_END_)
      invalid_argument("op " + std::to_string(op) + " is not an op of this op set");
    *out_count = context->fallback_counts[op].load(std::memory_order_relaxed);
  });
}

}  // extern "C"
