// SPDX-License-Identifier: Apache-2.0
// DEVPLUG_PLUGIN_PATH, read (see plugin_path.hpp).
#include "plugin_path.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace devplug::detail {

bool is_plugin_file_name(const std::string& name) {
  const std::string prefix = "libdevplug_";
  const std::string suffix = ".so";
  return name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> plugins_in_folder(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_plugin_file_name(it->path().filename().string())) found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<std::string> plugin_path_candidates(const std::string& value) {
  std::vector<std::string> candidates;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(':', start);
    if (end == std::string::npos) end = value.size();
    if (end > start) {  // an empty entry never means the current directory
      const std::string entry = value.substr(start, end - start);
      std::error_code ec;
      if (fs::is_directory(entry, ec)) {
        for (std::string& file : plugins_in_folder(entry)) candidates.push_back(std::move(file));
      } else {
        candidates.push_back(entry);
      }
    }
    start = end + 1;
  }
  return candidates;
}

}  // namespace devplug::detail
