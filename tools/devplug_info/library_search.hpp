// SPDX-License-Identifier: Apache-2.0
// Finds a needed library the way the dynamic loader would, without loading it, and says
// what to install when a library or a device is missing.
#pragma once

#include <string>
#include <vector>

namespace devplug::tools {

// The file the loader would pick for `soname`, needed by the object at `object_path` with
// RUNPATH `runpath`, or "" when there is none. Searches, in the loader's order:
// LD_LIBRARY_PATH, RUNPATH ($ORIGIN expanded), /etc/ld.so.cache, the default folders.
std::string find_library(const std::string& soname, const std::string& object_path,
                         const std::vector<std::string>& runpath);

// What to do about a missing library ("install ocl-icd-libopencl1 ...").
std::string missing_library_fix(const std::string& soname);

// What to do about a plugin that reports no device, from the plugin's note.
std::string no_device_fix(const std::string& note);

// What to do about a dlopen failure, from the loader's message.
std::string load_error_fix(const std::string& loader_message);

}  // namespace devplug::tools
