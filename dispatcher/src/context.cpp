// SPDX-License-Identifier: Apache-2.0
// The context: creation and destruction, and loading plugins into its registry.
#include "context.hpp"

#include <cstdlib>
#include <filesystem>

#include "api_guard.hpp"
#include "device.hpp"
#include "trace.hpp"

using namespace devplug::detail;

devplug_context_t::devplug_context_t() = default;

devplug_context_t::~devplug_context_t() {
  if (trace) trace->write();
  // Later plugins may depend on earlier ones being alive (none do today); unload in reverse.
  while (!plugins.empty()) plugins.pop_back();
  fallback_plugin.reset();
  magic = 0;
}

namespace devplug::detail {

devplug_plugin_t* load_plugin(devplug_context_t& context, const std::string& path, bool from_discovery) {
  if (path.empty()) invalid_argument("path is empty");
  const std::string canonical = canonical_plugin_path(path);
  std::lock_guard<std::mutex> lock(context.mutex);
  for (const auto& plugin : context.plugins)
    if (plugin->path == canonical) return plugin.get();
  auto refuse = [&](const std::string& reason) -> Error {
    std::error_code ec;
    const bool exists = std::filesystem::exists(canonical, ec);
    return Error(exists ? DEVPLUG_CODE_FAILED_PRECONDITION : DEVPLUG_CODE_NOT_FOUND,
                 "cannot load plugin " + path + ": " + reason);
  };
  // A plugin that already failed in this context is neither tried nor recorded again.
  for (const auto& failure : context.failures)
    if (canonical_plugin_path(failure.path) == canonical) throw refuse(failure.reason);
  try {
    LibraryRef library = load_library(canonical);
    if (from_discovery) {
      // DEVPLUG_PLUGIN_PATH comes first, so a plugin found there shadows an installed
      // plugin of the same name instead of listing its devices twice.
      const char* name = library.api().plugin_name;
      for (const auto& plugin : context.plugins)
        if (name != nullptr && plugin->name == name) return nullptr;
    }
    std::unique_ptr<devplug_plugin_t> plugin = make_plugin_record(&context, std::move(library));
    context.plugins.reserve(context.plugins.size() + 1);
    context.devices.reserve(context.devices.size() + plugin->devices.size());
    for (const auto& device : plugin->devices) context.devices.push_back(device.get());
    context.plugins.push_back(std::move(plugin));
    return context.plugins.back().get();
  } catch (const LoadError& e) {
    context.failures.push_back(LoadFailure{path, e.what()});
    throw refuse(e.what());
  }
}

}  // namespace devplug::detail
