// SPDX-License-Identifier: Apache-2.0
// What devplug-info lists: every loaded plugin with its devices and declared kernels, and
// every plugin that failed to load, collected through the host API (devplug.h) only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devplug/devplug.h"

namespace devplug::tools {

struct KernelSupport {
  devplug_op_t op;
  std::vector<devplug_dtype_t> dtypes;  // dispatch dtypes the plugin declares, ascending
  uint32_t flags;                       // DEVPLUG_KERNEL_* bits, over all its dtypes
};

struct PluginReport {
  std::string name, version, path;
  uint32_t abi_major = 0, abi_minor = 0, opset = 0;
  int32_t device_count = 0;
  bool has_note = false;
  std::string device_note;
  std::vector<devplug_device_properties_t> devices;
  std::vector<KernelSupport> kernels;
  // The extensions on the plugin's chain (ABI 1.2), in chain order: the name plugin_api.def
  // gives, or "type N" for a type this build does not know.
  std::vector<std::string> extensions;
};

struct FailureReport {
  std::string path, reason;
};

struct Inventory {
  std::vector<PluginReport> plugins;
  std::vector<FailureReport> failed;
};

// Throws std::runtime_error with the error's message (and destroys it) when `error` is
// not NULL.
void check(devplug_error_t* error, const char* what);

// A context that loads `extra_plugins` after discovery (or instead of it). Failures to
// load are recorded in the context, not thrown. The caller destroys it.
devplug_context_t* open_context(const std::vector<std::string>& extra_plugins, bool discovery);

Inventory take_inventory(devplug_context_t* context);

}  // namespace devplug::tools
