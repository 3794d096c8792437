// SPDX-License-Identifier: Apache-2.0
// The tests that the plugins of the OpenCL C family (opencl, level_zero: one kernel source,
// two runtimes) share, as parametrized suites over the plugin: loading without the native
// library, work ordered across streams by events, event timestamps, pinned host memory, the
// on-disk binary cache and build failures carrying the driver's log. opencl_family_test.cpp
// holds the tests, compiled once; each plugin's test program instantiates every suite here
// with its PluginCase, under its own prefix (Opencl/..., LevelZero/...), so that its ctest
// entries select them by name. What only one plugin does stays in that plugin's own file.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "opencl_harness.hpp"

namespace devplug::opencl_test {

// One plugin under the shared tests: its file, and the names and words in which it differs.
// Every string is static (a literal).
struct PluginCase {
  const char* name;                  // "opencl": the test-name suffix and the copies' file names
  const char* path;                  // the plugin file
  const char* no_device;             // why a test that needs a device is skipped, before the note
  const char* library_variable;      // names the native library the plugin opens
  const char* library_file;          // that library's file name ("libOpenCL.so.1")
  const char* cache_variable;        // the disk cache's folder
  const char* cache_log_variable;    // the disk cache's log of compiles and disk hits
  const char* binary_extension;      // a cached binary's file extension (".clbin")
  const char* binary_cache_switch;   // set to 1 so the disk cache stores binaries, or null
  const char* break_build_variable;  // set to 1 to make the program builds fail
  int64_t build_failure_code;        // the native code of that failure
  const char* build_failure_format;  // an ECMAScript regex the failure's message matches
};

// Prints the plugin's name (googletest's view of a parameter, in test lists and failures).
void PrintTo(const PluginCase& plugin, std::ostream* out);

// The test-name suffix of `info`'s plugin: its name.
std::string plugin_case_name(const ::testing::TestParamInfo<PluginCase>& info);

// The shared suites; each plugin's program instantiates all of them (googletest fails a run
// with a suite left uninstantiated).
class PluginLoad : public ::testing::TestWithParam<PluginCase> {};
class PluginStream : public ::testing::TestWithParam<PluginCase> {};
class PluginMemory : public ::testing::TestWithParam<PluginCase> {};
class PluginCache : public ::testing::TestWithParam<PluginCase> {};
class PluginBuild : public ::testing::TestWithParam<PluginCase> {};

// Sets an environment variable for the scope and restores what was there (or unsets it).
class ScopedEnv {
 public:
  ScopedEnv(const char* variable, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* variable_;
  bool had_value_ = false;
  std::string previous_;
};

// Runs exp on 4 floats in fresh instances of a plugin (copies of the file, so their statics
// start empty, as in a second process) with the disk cache and its log in a temporary folder.
class CacheRun {
 public:
  explicit CacheRun(const PluginCase& plugin);
  // Loads the copy `copy_name`, runs exp and puts the result in `*result`; skips the test
  // when the plugin sees no device.
  void run_exp(const std::string& copy_name, std::vector<float>* result);
  // The cache's log so far.
  std::string log() const;
  // Whether the binary of key `key` is in the cache.
  bool binary_stored(const std::string& key) const;

 private:
  const PluginCase& plugin_;
  TempDir dir_;
  std::string cache_, log_;
  ScopedEnv cache_variable_, log_variable_;
};

}  // namespace devplug::opencl_test
