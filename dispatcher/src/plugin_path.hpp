// SPDX-License-Identifier: Apache-2.0
// DEVPLUG_PLUGIN_PATH, read: which files a value of the variable names. Kept apart from the
// rest of discovery so that it can be tested and fuzzed alone (tests/fuzz).
//
// Pure apart from reading the file system (folders are listed); thread-safe.
#pragma once

#include <string>
#include <vector>

namespace devplug::detail {

// Whether `name` (a file name, no folder) is one discovery takes from a folder:
// libdevplug_<something>.so.
bool is_plugin_file_name(const std::string& name);

// Every libdevplug_*.so directly inside `folder`, sorted by name; a missing or unreadable
// folder gives nothing.
std::vector<std::string> plugins_in_folder(const std::string& folder);

// The plugin files named by `value`, a DEVPLUG_PLUGIN_PATH: entries split at ':' and taken in
// order; an empty entry is skipped (it never means the current directory); a folder gives
// its plugins (plugins_in_folder); anything else is taken as a file, so a missing one is
// later reported as a load failure.
std::vector<std::string> plugin_path_candidates(const std::string& value);

}  // namespace devplug::detail
