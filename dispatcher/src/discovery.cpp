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

namespace fs = std::filesystem;

namespace devplug::detail {
namespace {

bool is_plugin_file_name(const std::string& name) {
  const std::string prefix = "libdevplug_";
  const std::string suffix = ".so";
  return name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every libdevplug_*.so directly inside `folder`, sorted by name (a missing or unreadable
// folder gives nothing).
std::vector<std::string> plugins_in_folder(const fs::path& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_plugin_file_name(it->path().filename().string())) found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Adds an entry of DEVPLUG_PLUGIN_PATH: a folder expands to its plugins, anything else is
// taken as a file (a missing one is then reported as a load failure).
void add_entry(const std::string& entry, std::vector<std::string>* out) {
  std::error_code ec;
  if (fs::is_directory(entry, ec)) {
    for (std::string& file : plugins_in_folder(entry)) out->push_back(std::move(file));
  } else {
    out->push_back(entry);
  }
}

}  // namespace

std::string install_plugin_folder() {
  std::error_code ec;
  fs::path library = boost::dll::this_line_location(ec);
  if (ec || library.empty()) return {};
  return (library.parent_path() / "devplug" / "plugins").string();
}

std::vector<std::string> discovery_candidates() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("DEVPLUG_PLUGIN_PATH")) {
    std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      // An empty entry never means the current directory.
      if (end > start) add_entry(list.substr(start, end - start), &candidates);
      start = end + 1;
    }
  }
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
