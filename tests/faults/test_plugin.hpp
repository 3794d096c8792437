// SPDX-License-Identifier: Apache-2.0
// The plugin a test of this folder runs on: the file named by DEVPLUG_TEST_PLUGIN (set per
// ctest entry in CMakeLists.txt, one entry per plugin that runs here), loaded alone into a
// context without discovery or CPU fallback (what runs is the plugin), as a host would.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "devplug/devplug.hpp"

namespace devplug::faults_test {

// The path in DEVPLUG_TEST_PLUGIN, or "" when it is unset.
inline std::string test_plugin_path() {
  const char* path = std::getenv("DEVPLUG_TEST_PLUGIN");
  return path != nullptr ? path : "";
}

// A context holding the test plugin, and its device 0 (empty when the plugin found none).
struct TestPlugin {
  Context context{DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
  std::optional<Device> device;
  std::string name;

  TestPlugin() {
    const Plugin plugin = context.load(test_plugin_path());
    name = plugin.info().name;
    const std::vector<Device> devices = context.devices();
    if (!devices.empty()) device = devices.front();
  }
};

}  // namespace devplug::faults_test

// Skips the test when DEVPLUG_TEST_PLUGIN is unset or its plugin has no device here.
#define DEVPLUG_REQUIRE_TEST_DEVICE(plugin)                                                               \
  if (::devplug::faults_test::test_plugin_path().empty()) GTEST_SKIP() << "DEVPLUG_TEST_PLUGIN is unset"; \
  ::devplug::faults_test::TestPlugin plugin;                                                              \
  if (!plugin.device) GTEST_SKIP() << plugin.name << " has no device here"
