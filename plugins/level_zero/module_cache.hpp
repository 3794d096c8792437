// SPDX-License-Identifier: Apache-2.0
// Modules built from the embedded SPIR-V (spirv_archive.hpp) and their kernels, cached in the
// process (per device, by kernel family and defines) and on disk as the driver's native
// binaries (zeModuleGetNativeBinary), keyed by a hash of the SPIR-V, the build flags, the
// driver and device uuids and the driver version, so a second process loads binaries
// instead of compiling.
//
// Disk folder (clc_common/disk_cache.hpp): $DEVPLUG_LEVEL_ZERO_CACHE_DIR, else
// $XDG_CACHE_HOME/devplug/level_zero, else ~/.cache/devplug/level_zero. When
// $DEVPLUG_LEVEL_ZERO_CACHE_LOG names a file, one line per module is appended to it:
// "compile <key>", "disk <key>" (tests read it).
//
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "disk_cache.hpp"
#include "objects.hpp"

namespace devplug::level_zero {

// The flags every module is built with: float division and sqrt correctly rounded (as
// ops.def asks), and 64-bit offsets so buffers may pass 4 GiB.
constexpr const char* kModuleBuildFlags =
    "-ze-opt-greater-than-4GB-buffer-required -cl-fp32-correctly-rounded-divide-sqrt";

class ModuleCache {
 public:
  explicit ModuleCache(devplug_device_handle_t* device)
      : device_(device),
        disk_("level_zero", "DEVPLUG_LEVEL_ZERO_CACHE_DIR", "DEVPLUG_LEVEL_ZERO_CACHE_LOG", ".zebin") {}
  ~ModuleCache();
  ModuleCache(const ModuleCache&) = delete;
  ModuleCache& operator=(const ModuleCache&) = delete;

  // The kernel `name` of the module of kernels/<family>.cl with `defines`. Builds on first
  // use; throws with the driver's build log on failure. The kernel is shared: set its group
  // size and arguments and append it under the device's launch_mutex.
  ze_kernel_handle_t kernel(const char* family, const std::string& defines, const char* name);

 private:
  ze_module_handle_t module(const char* family, const std::string& defines);
  ze_module_handle_t load(const std::string& family, const std::string& defines);

  devplug_device_handle_t* device_;
  const clc::DiskCache disk_;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, ze_module_handle_t> modules_;
  std::map<std::pair<ze_module_handle_t, std::string>, ze_kernel_handle_t> kernels_;
};

}  // namespace devplug::level_zero
