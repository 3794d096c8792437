// SPDX-License-Identifier: Apache-2.0
// Discovery: the plugin files named by DEVPLUG_PLUGIN_PATH and those in the install's plugin
// folder (<folder of libdevplug.so>/devplug/plugins), which the build tree mirrors, so an
// installed or built libdevplug finds its plugins with no environment at all.
#include <boost/dll/runtime_symbol_info.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "api_guard.hpp"
#include "context.hpp"
#include "plugin_path.hpp"

namespace fs = std::filesystem;

namespace devplug::detail {

std::string install_plugin_folder() {
  std::error_code ec;
  fs::path library = boost::dll::this_line_location(ec);
  if (ec || library.empty()) return {};
  return (library.parent_path() / "devplug" / "plugins").string();
}

std::vector<std::string> discovery_candidates() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("DEVPLUG_PLUGIN_PATH")) candidates = plugin_path_candidates(env);
  const std::string install = install_plugin_folder();
  if (!install.empty())
    for (std::string& file : plugins_in_folder(install)) candidates.push_back(std::move(file));
  return candidates;
}

void discover_plugins(devplug_context_t& context) {
  for (const std::string& path : discovery_candidates()) {
    try {
      load_plugin(context, path, /*from_discovery=*/true);
    } catch (const Error&) {
      // Recorded as a failure by load_plugin; discovery goes on.
    }
  }
}

}  // namespace devplug::detail
