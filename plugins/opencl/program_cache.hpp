// SPDX-License-Identifier: Apache-2.0
// Builds OpenCL programs from the embedded kernel source and caches them: in the process
// (per device, keyed by source family and build options) and on disk (keyed by a hash of the
// source, the options, the device name and the driver version), so a second process loads
// binaries instead of compiling.
//
// The disk cache is left out where the driver keeps compiled programs itself (PoCL, see
// DeviceInfo::driver_caches_programs): asking PoCL for a program's binary makes it generate
// code for every kernel of the program at once, for any launch size, which cost a third of
// each cold build (about 0.15 s of 0.5 s of CPU per elementwise program), while a second
// process building from source finds everything in PoCL's own cache (about 20 ms a program).
// $DEVPLUG_OPENCL_BINARY_CACHE=1 keeps the disk cache anyway, =0 leaves it out everywhere.
//
// Disk folder (clc_common/disk_cache.hpp): $DEVPLUG_OPENCL_CACHE_DIR, else
// $XDG_CACHE_HOME/devplug/opencl, else ~/.cache/devplug/opencl. When
// $DEVPLUG_OPENCL_CACHE_LOG names a file, one line per program is appended to it:
// "compile <key>" (built, binary stored), "disk <key>" (binary loaded), "driver <key>" (built,
// binary left to the driver's cache); tests read it.
//
// Thread-safe.
#pragma once

#include <map>
#include <set>
#include <mutex>
#include <string>
#include <utility>

#include "disk_cache.hpp"
#include "objects.hpp"

namespace devplug::opencl {

class ProgramCache {
 public:
  explicit ProgramCache(devplug_device_handle_t* device)
      : device_(device),
        disk_("opencl", "DEVPLUG_OPENCL_CACHE_DIR", "DEVPLUG_OPENCL_CACHE_LOG", ".clbin"),
        binaries_(binary_cache_wanted(device->info)) {}
  ~ProgramCache();
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  // The kernel `name` of the program built from source family `family` (kernels/<family>.cl
  // after common.cl) with `options`. Builds on first use; throws with the build log on
  // failure. The kernel is shared: set its arguments under the device's launch_mutex.
  cl_kernel kernel(const char* family, const std::string& options, const char* name);

  // Makes `source` (OpenCL C that follows common.cl) the text of family `family` from now on:
  // a generated program, named by a hash of its text (fused.cpp), built by kernel() as the
  // embedded families are. The text is dropped once built (the program stays); defining a
  // name again changes nothing.
  void define_family(const std::string& family, std::string source);

  // The text of kernels/<family>.cl: embedded, or $DEVPLUG_OPENCL_KERNEL_DIR's copy.
  static std::string source_of(const char* family);

 private:
  cl_program program(const char* family, const std::string& options);
  cl_program build(const std::string& source, const std::string& options);
  static bool binary_cache_wanted(const DeviceInfo& info);

  devplug_device_handle_t* device_;
  const clc::DiskCache disk_;
  const bool binaries_;  // programs go to and come from the disk cache
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, cl_program> programs_;
  std::map<std::pair<cl_program, std::string>, cl_kernel> kernels_;
  std::map<std::string, std::string> generated_;  // define_family's texts by family, until built
  std::set<std::string> built_generated_;         // the generated families built
};

// The embedded text of kernels/<family>.cl, or nullptr. Generated at build time.
const char* kernel_source(const char* family);

}  // namespace devplug::opencl
