// SPDX-License-Identifier: Apache-2.0
// Tests of loading plugins through the host C API: a loaded plugin describes itself and its
// devices, each file loads once per process (shared across contexts, unloaded with the last),
// every load failure carries its real reason while the host goes on, newer minor tables and
// plugins without devices load, and discovery reads DEVPLUG_PLUGIN_PATH's files and folders.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "runtime_test_util.hpp"

namespace devplug::runtime_test {
namespace {

namespace fs = std::filesystem;

TEST_F(Runtime, LoadsAPluginAndDescribesIt) {
  devplug_plugin_info_t info{};
  info.struct_size = sizeof(info);
  ASSERT_OK(devplug_plugin_get_info(plugin_, &info));
  EXPECT_STREQ(info.name, "fixture_good");
  EXPECT_STREQ(info.version, "test");
  EXPECT_EQ(info.abi_major, 1u);
  EXPECT_EQ(info.device_count, 2);
  EXPECT_EQ(info.device_note, nullptr);
  EXPECT_EQ(fs::path(info.path), fs::canonical(fixture("good")));

  devplug_device_properties_t props{};
  props.struct_size = sizeof(props);
  ASSERT_OK(devplug_device_get_properties(dev1_, &props));
  EXPECT_STREQ(props.name, "fixture device 1");
  EXPECT_EQ(props.memory_bytes, 1u << 20);

  bool supported = false;
  uint32_t flags = 99;
  ASSERT_OK(devplug_plugin_supports(plugin_, DEVPLUG_OP_neg, DEVPLUG_DTYPE_FLOAT32, &supported, &flags));
  EXPECT_TRUE(supported);
  EXPECT_EQ(flags, DEVPLUG_KERNEL_DENSE_INPUTS | DEVPLUG_KERNEL_DENSE_OUTPUTS);
  ASSERT_OK(devplug_plugin_supports(plugin_, DEVPLUG_OP_mul, DEVPLUG_DTYPE_FLOAT32, &supported, &flags));
  EXPECT_FALSE(supported);
  ASSERT_OK(devplug_plugin_supports(plugin_, DEVPLUG_OP_add, DEVPLUG_DTYPE_INT64, &supported, nullptr));
  EXPECT_FALSE(supported);

  const devplug_plugin_api_t* api = nullptr;
  ASSERT_OK(devplug_plugin_get_table(plugin_, &api));
  ASSERT_NE(api, nullptr);
  EXPECT_STREQ(api->plugin_name, "fixture_good");

  devplug_plugin_t* found = nullptr;
  ASSERT_OK(devplug_context_find_plugin(context_, "fixture_good", &found));
  EXPECT_EQ(found, plugin_);
  expect_error(devplug_context_find_plugin(context_, "nope", &found), DEVPLUG_CODE_NOT_FOUND, "nope");
  EXPECT_EQ(found, nullptr);
}

TEST_F(Runtime, LoadsEachFileOnce) {
  devplug_plugin_t* again = nullptr;
  ASSERT_OK(devplug_context_load_plugin(context_, fixture("good").c_str(), &again));
  EXPECT_EQ(again, plugin_);
  const fs::path link = fs::temp_directory_path() / ("devplug_link_" + std::to_string(getpid()) + ".so");
  fs::remove(link);
  fs::create_symlink(fixture("good"), link);
  ASSERT_OK(devplug_context_load_plugin(context_, link.c_str(), &again));
  EXPECT_EQ(again, plugin_);
  fs::remove(link);
  size_t count = 0;
  ASSERT_OK(devplug_context_plugin_count(context_, &count));
  EXPECT_EQ(count, 1u);
  ASSERT_OK(devplug_context_device_count(context_, &count));
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(fixture_counter("good", "fixture_initialized"), 1);
}

struct FailureCase {
  const char* variant;
  devplug_code_t code;
  const char* reason;
};

TEST(RuntimeLoad, FailuresCarryTheRealReasonAndTheHostGoesOn) {
  const std::string small_reason =
      "struct_size is " + std::to_string(DEVPLUG_PLUGIN_API_MIN_SIZE - sizeof(size_t)) + " bytes";
  const std::string abi2_reason = "plugin ABI 2.0 vs dispatcher ABI " + std::to_string(DEVPLUG_ABI_MAJOR) +
                                  "." + std::to_string(DEVPLUG_ABI_MINOR);
  const FailureCase cases[] = {
      {"abi2", DEVPLUG_CODE_FAILED_PRECONDITION, abi2_reason.c_str()},
      {"small", DEVPLUG_CODE_FAILED_PRECONDITION, small_reason.c_str()},
      {"null_api", DEVPLUG_CODE_FAILED_PRECONDITION, "devplug_plugin_get_api returned NULL"},
      {"init_fails", DEVPLUG_CODE_FAILED_PRECONDITION,
       "plugin_initialize failed: UNAVAILABLE: no frobnicator attached"},
      {"no_symbol", DEVPLUG_CODE_FAILED_PRECONDITION, "missing symbol devplug_plugin_get_api"},
      {"missing_dep", DEVPLUG_CODE_FAILED_PRECONDITION, "libdevplug_fixture_dependency.so"},
      {"does_not_exist", DEVPLUG_CODE_NOT_FOUND, "No such file or directory"},
  };
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  size_t index = 0;
  for (const FailureCase& c : cases) {
    SCOPED_TRACE(c.variant);
    devplug_plugin_t* plugin = reinterpret_cast<devplug_plugin_t*>(1);
    expect_error(devplug_context_load_plugin(context, fixture(c.variant).c_str(), &plugin), c.code, c.reason);
    EXPECT_EQ(plugin, nullptr);
    const char* path = nullptr;
    const char* reason = nullptr;
    ASSERT_OK(devplug_context_get_failure(context, index++, &path, &reason));
    EXPECT_EQ(std::string(path), fixture(c.variant));
    EXPECT_NE(std::string(reason).find(c.reason), std::string::npos) << reason;
  }
  // The small table's message names both sizes.
  const char* path = nullptr;
  const char* reason = nullptr;
  ASSERT_OK(devplug_context_get_failure(context, 1, &path, &reason));
  EXPECT_NE(std::string(reason).find(std::to_string(DEVPLUG_PLUGIN_API_MIN_SIZE)), std::string::npos)
      << reason;
  // A file that is not a shared library.
  const fs::path bogus = fs::temp_directory_path() / ("libdevplug_bogus_" + std::to_string(getpid()) + ".so");
  std::ofstream(bogus) << "not an ELF file\n";
  expect_error(devplug_context_load_plugin(context, bogus.c_str(), nullptr), DEVPLUG_CODE_FAILED_PRECONDITION,
               "bogus");
  fs::remove(bogus);
  size_t failures = 0, plugins = 99;
  ASSERT_OK(devplug_context_failure_count(context, &failures));
  EXPECT_EQ(failures, std::size(cases) + 1);
  // The host goes on: a good plugin still loads and works.
  ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), nullptr));
  ASSERT_OK(devplug_context_plugin_count(context, &plugins));
  EXPECT_EQ(plugins, 1u);
  devplug_context_destroy(context);
}

TEST(RuntimeLoad, NewerMinorTableLoadsAndReadsOnlyKnownFields) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  devplug_plugin_t* plugin = nullptr;
  ASSERT_OK(devplug_context_load_plugin(context, fixture("newer").c_str(), &plugin));
  devplug_plugin_info_t info{};
  info.struct_size = sizeof(info);
  ASSERT_OK(devplug_plugin_get_info(plugin, &info));
  EXPECT_EQ(info.abi_minor, 7u);
  bool supported = false;
  ASSERT_OK(devplug_plugin_supports(plugin, DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, &supported, nullptr));
  EXPECT_TRUE(supported);
  ASSERT_OK(devplug_plugin_supports(plugin, DEVPLUG_OP_add, DEVPLUG_DTYPE_INT32, &supported, nullptr));
  EXPECT_FALSE(supported);
  devplug_context_destroy(context);
}

TEST(RuntimeLoad, PluginWithoutDevicesLoadsAndSaysWhy) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  devplug_plugin_t* plugin = nullptr;
  ASSERT_OK(devplug_context_load_plugin(context, fixture("no_device").c_str(), &plugin));
  devplug_plugin_info_t info{};
  info.struct_size = sizeof(info);
  ASSERT_OK(devplug_plugin_get_info(plugin, &info));
  EXPECT_EQ(info.device_count, 0);
  ASSERT_NE(info.device_note, nullptr);
  EXPECT_STREQ(info.device_note, "no fixture hardware present");
  size_t devices = 9;
  ASSERT_OK(devplug_context_device_count(context, &devices));
  EXPECT_EQ(devices, 0u);
  devplug_context_destroy(context);
}

TEST(RuntimeLoad, SharedAcrossContextsAndShutDownWithTheLast) {
  devplug_context_t* a = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  devplug_context_t* b = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  ASSERT_OK(devplug_context_load_plugin(a, fixture("good").c_str(), nullptr));
  ASSERT_OK(devplug_context_load_plugin(b, fixture("good").c_str(), nullptr));
  EXPECT_EQ(fixture_counter("good", "fixture_initialized"), 1);
  devplug_context_destroy(a);
  EXPECT_EQ(fixture_counter("good", "fixture_initialized"), 1);
  devplug_context_destroy(b);
  EXPECT_EQ(fixture_counter("good", "fixture_initialized"), -1);  // unloaded
}

TEST(RuntimeDiscovery, PluginPathFilesAndFoldersIgnoringEmptyEntries) {
  const fs::path folder = fs::temp_directory_path() / ("devplug_discovery_" + std::to_string(getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  fs::create_symlink(fixture("newer"), folder / "libdevplug_fixture_newer.so");
  std::ofstream(folder / "libdevplug_broken.so") << "garbage";
  std::ofstream(folder / "README.txt") << "not a plugin";
  const std::string value = "::" + fixture("good") + ":" + folder.string() + ":";
  setenv("DEVPLUG_PLUGIN_PATH", value.c_str(), 1);
  devplug_context_t* context = nullptr;
  ASSERT_OK(devplug_context_create(nullptr, &context));
  unsetenv("DEVPLUG_PLUGIN_PATH");
  devplug_plugin_t* plugin = nullptr;
  EXPECT_OK(devplug_context_find_plugin(context, "fixture_good", &plugin));
  EXPECT_OK(devplug_context_find_plugin(context, "fixture_newer", &plugin));
  size_t failures = 0;
  ASSERT_OK(devplug_context_failure_count(context, &failures));
  bool broken_recorded = false;
  for (size_t i = 0; i < failures; ++i) {
    const char* path = nullptr;
    const char* reason = nullptr;
    ASSERT_OK(devplug_context_get_failure(context, i, &path, &reason));
    EXPECT_EQ(std::string(path).find("README"), std::string::npos);
    if (std::string(path).find("libdevplug_broken.so") != std::string::npos) broken_recorded = true;
  }
  EXPECT_TRUE(broken_recorded);
  devplug_context_destroy(context);
  fs::remove_all(folder);
}

}  // namespace
}  // namespace devplug::runtime_test
