// SPDX-License-Identifier: Apache-2.0
// Loading plugins through the public host API: every way a plugin can be wrong is refused
// with a reason that names the problem (and recorded as a failure), never a crash; tables of
// an older or newer minor are read exactly as far as they go.
#include <gtest/gtest.h>

#include <fstream>
#include <cstring>
#include <string>
#include <vector>

#include "abi_test_support.hpp"
#include "devplug/devplug.h"

namespace {

using devplug_abi_test::Context;
using devplug_abi_test::fixture;
using devplug_abi_test::take_message;
using devplug_abi_test::TempFolder;

std::string dispatcher_abi() {
  return std::to_string(DEVPLUG_ABI_MAJOR) + "." + std::to_string(DEVPLUG_ABI_MINOR);
}

// Loads `path` into a fresh context and expects a refusal whose returned reason and
// recorded failure both contain `expected`; nothing may be loaded.
void expect_refusal(const std::string& path, const std::string& expected) {
  Context context;
  devplug_plugin_t* plugin = reinterpret_cast<devplug_plugin_t*>(0x1);
  const std::string reason = take_message(devplug_context_load_plugin(context.get(), path.c_str(), &plugin));
  EXPECT_NE(reason.find(expected), std::string::npos)
      << path << ": the returned reason should contain \"" << expected << "\": " << reason;
  EXPECT_EQ(plugin, nullptr) << "out_plugin must be cleared on failure";
  size_t records = 0;
  const std::string recorded = context.failure_for(path, &records);
  EXPECT_EQ(records, 1u) << "a refused plugin is recorded once";
  EXPECT_NE(recorded.find(expected), std::string::npos)
      << path << ": the recorded failure should contain \"" << expected << "\": " << recorded;
  EXPECT_EQ(context.plugin_count(), 0u);
}

// Runs fill on the plugin's first device for float32 and int32 and checks every element:
// the table was read correctly all the way to the kernel rows and the entry points.
void expect_fill_works(devplug_context_t* context, devplug_plugin_t* plugin) {
  size_t devices = 0;
  ASSERT_EQ(take_message(devplug_context_device_count(context, &devices)), "");
  devplug_device_t* device = nullptr;
  for (size_t i = 0; i < devices && device == nullptr; ++i) {
    devplug_device_t* candidate = nullptr;
    devplug_plugin_t* owner = nullptr;
    ASSERT_EQ(take_message(devplug_context_get_device(context, i, &candidate)), "");
    ASSERT_EQ(take_message(devplug_device_get_plugin(candidate, &owner)), "");
    if (owner == plugin) device = candidate;
  }
  ASSERT_NE(device, nullptr) << "the plugin's device is not in the context";

  bool supported = false;
  uint32_t flags = 0;
  ASSERT_EQ(take_message(
                devplug_plugin_supports(plugin, DEVPLUG_OP_fill, DEVPLUG_DTYPE_FLOAT32, &supported, &flags)),
            "");
  EXPECT_TRUE(supported);
  ASSERT_EQ(take_message(
                devplug_plugin_supports(plugin, DEVPLUG_OP_fill, DEVPLUG_DTYPE_FLOAT64, &supported, &flags)),
            "");
  EXPECT_FALSE(supported);

  const int64_t shape[2] = {3, 5};
  devplug_tensor_t* f32 = nullptr;
  devplug_tensor_t* i32 = nullptr;
  ASSERT_EQ(take_message(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, shape, &f32)), "");
  ASSERT_EQ(take_message(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 2, shape, &i32)), "");
  devplug_fill_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.value.f = -2.5;
  attrs.value.i = -7;
  EXPECT_EQ(take_message(devplug_op_call(nullptr, DEVPLUG_OP_fill, nullptr, 0, &f32, 1, &attrs)), "");
  EXPECT_EQ(take_message(devplug_op_call(nullptr, DEVPLUG_OP_fill, nullptr, 0, &i32, 1, &attrs)), "");
  std::vector<float> floats(15, 0.0f);
  std::vector<int32_t> ints(15, 0);
  EXPECT_EQ(take_message(devplug_tensor_copy_to_host(nullptr, f32, floats.data(), 15 * sizeof(float))), "");
  EXPECT_EQ(take_message(devplug_tensor_copy_to_host(nullptr, i32, ints.data(), 15 * sizeof(int32_t))), "");
  for (float v : floats) EXPECT_EQ(v, -2.5f);
  for (int32_t v : ints) EXPECT_EQ(v, -7);
  devplug_tensor_release(f32);
  devplug_tensor_release(i32);
}

devplug_plugin_info_t info_of(devplug_plugin_t* plugin) {
  devplug_plugin_info_t info{};
  info.struct_size = sizeof(info);
  EXPECT_EQ(take_message(devplug_plugin_get_info(plugin, &info)), "");
  return info;
}

TEST(Loader, ValidPluginLoadsAndRuns) {
  Context context;
  devplug_plugin_t* plugin = nullptr;
  ASSERT_EQ(take_message(devplug_context_load_plugin(context.get(), fixture("fixture_ok").c_str(), &plugin)),
            "");
  const devplug_plugin_info_t info = info_of(plugin);
  EXPECT_STREQ(info.name, "fixture_ok");
  EXPECT_STREQ(info.version, "1.0.0-test");
  EXPECT_EQ(info.abi_major, uint32_t{DEVPLUG_ABI_MAJOR});
  EXPECT_EQ(info.device_count, 1);
  expect_fill_works(context.get(), plugin);
}

TEST(Loader, SamePathTwiceGivesTheSamePlugin) {
  Context context;
  devplug_plugin_t* first = nullptr;
  devplug_plugin_t* second = nullptr;
  ASSERT_EQ(take_message(devplug_context_load_plugin(context.get(), fixture("fixture_ok").c_str(), &first)),
            "");
  ASSERT_EQ(take_message(devplug_context_load_plugin(context.get(), fixture("fixture_ok").c_str(), &second)),
            "");
  EXPECT_EQ(first, second);
  EXPECT_EQ(context.plugin_count(), 1u);
}

TEST(Loader, MissingEntrySymbolIsRefused) {
  expect_refusal(fixture("fixture_no_entry"), DEVPLUG_PLUGIN_ENTRY_SYMBOL);
}

TEST(Loader, EntryReturningNullIsRefused) { expect_refusal(fixture("fixture_get_api_null"), "NULL"); }

TEST(Loader, OtherAbiMajorIsRefusedNamingBothVersions) {
  expect_refusal(fixture("fixture_abi_major2"), "plugin ABI 2." + std::to_string(DEVPLUG_ABI_MINOR) +
                                                    " vs dispatcher ABI " + dispatcher_abi());
}

TEST(Loader, TableSmallerThanTheMinimumIsRefused) {
  expect_refusal(fixture("fixture_small_table"), "struct_size");
  // ... and gives the plugin's size.
  expect_refusal(fixture("fixture_small_table"), std::to_string(offsetof(devplug_plugin_api_t, kernels)));
}

// A newer minor appends fields after kernel_count, one of them a function that aborts the
// process if called: the plugin loads, works, and the extra entry is never touched.
TEST(Loader, NewerMinorWithLargerTableLoadsAndWorks) {
  Context context;
  devplug_plugin_t* plugin = nullptr;
  ASSERT_EQ(take_message(
                devplug_context_load_plugin(context.get(), fixture("fixture_newer_minor").c_str(), &plugin)),
            "");
  const devplug_plugin_info_t info = info_of(plugin);
  EXPECT_EQ(info.abi_major, uint32_t{DEVPLUG_ABI_MAJOR});
  EXPECT_EQ(info.abi_minor, uint32_t{DEVPLUG_ABI_MINOR + 1});
  const devplug_plugin_api_t* api = nullptr;
  ASSERT_EQ(take_message(devplug_plugin_get_table(plugin, &api)), "");
  ASSERT_NE(api, nullptr);
  EXPECT_GT(api->struct_size, DEVPLUG_PLUGIN_API_MIN_SIZE);
  expect_fill_works(context.get(), plugin);
}

// The table is exactly DEVPLUG_PLUGIN_API_MIN_SIZE bytes and ends at a PROT_NONE page:
// any read past its end crashes this test.
TEST(Loader, MinimumSizeTableIsNeverReadPastItsEnd) {
  Context context;
  devplug_plugin_t* plugin = nullptr;
  ASSERT_EQ(take_message(devplug_context_load_plugin(context.get(), fixture("fixture_exact_min_size").c_str(),
                                                     &plugin)),
            "");
  const devplug_plugin_api_t* api = nullptr;
  ASSERT_EQ(take_message(devplug_plugin_get_table(plugin, &api)), "");
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->struct_size, DEVPLUG_PLUGIN_API_MIN_SIZE);
  expect_fill_works(context.get(), plugin);
}

// Plugins of ABI 1.0 and 1.1 (tables end before the 1.2 `extensions` field, at a PROT_NONE
// page): they load and run, offer no extension, and event timing says so with UNIMPLEMENTED.
TEST(Loader, EarlierMinorsLoadAndWork) {
  for (const char* name : {"fixture_abi_1_0", "fixture_abi_1_1"}) {
    SCOPED_TRACE(name);
    Context context;
    devplug_plugin_t* plugin = nullptr;
    ASSERT_EQ(take_message(devplug_context_load_plugin(context.get(), fixture(name).c_str(), &plugin)), "");
    const devplug_plugin_info_t info = info_of(plugin);
    EXPECT_EQ(info.abi_minor, name[std::strlen(name) - 1] == '0' ? 0u : 1u);
    const devplug_plugin_api_t* api = nullptr;
    ASSERT_EQ(take_message(devplug_plugin_get_table(plugin, &api)), "");
    ASSERT_NE(api, nullptr);
    EXPECT_EQ(api->struct_size, DEVPLUG_PLUGIN_API_MIN_SIZE);
    EXPECT_EQ(devplug_extension_find(api, DEVPLUG_EXTENSION_EVENT_TIMESTAMPS), nullptr);
    expect_fill_works(context.get(), plugin);

    devplug_device_t* device = nullptr;
    ASSERT_EQ(take_message(devplug_context_get_device(context.get(), 0, &device)), "");
    devplug_stream_t* stream = nullptr;
    devplug_event_t *start = nullptr, *end = nullptr;
    ASSERT_EQ(take_message(devplug_device_default_stream(device, &stream)), "");
    ASSERT_EQ(take_message(devplug_event_create(device, &start)), "");
    ASSERT_EQ(take_message(devplug_event_create(device, &end)), "");
    ASSERT_EQ(take_message(devplug_event_record(start, stream)), "");
    ASSERT_EQ(take_message(devplug_event_record(end, stream)), "");
    int64_t ns = 7;
    devplug_error_t* error = devplug_event_elapsed_ns(start, end, &ns);
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->code, DEVPLUG_CODE_UNIMPLEMENTED);
    EXPECT_NE(std::string(error->message).find("event_timestamps"), std::string::npos) << error->message;
    devplug_error_destroy(error);
    EXPECT_EQ(ns, 0);
    EXPECT_EQ(take_message(devplug_event_destroy(start)), "");
    EXPECT_EQ(take_message(devplug_event_destroy(end)), "");
  }
}

TEST(Loader, FailingInitializeIsRefusedWithItsMessage) {
  expect_refusal(fixture("fixture_init_fails"), "initialization failed on purpose");
}

TEST(Loader, ThrowingInitializeIsAnErrorNotACrash) {
  expect_refusal(fixture("fixture_init_throws"), "initialize threw on purpose");
}

TEST(Loader, MissingFileIsRefused) {
  const std::string path = std::string(DEVPLUG_FIXTURE_DIR) + "/libdevplug_does_not_exist.so";
  expect_refusal(path, "libdevplug_does_not_exist.so");
}

TEST(Loader, TextFileNamedLikeAPluginIsRefused) {
  TempFolder folder;
  const std::string path = folder.path() + "/libdevplug_text.so";
  std::ofstream(path) << "this is not a shared library\n";
  expect_refusal(path, "libdevplug_text.so");
}

TEST(Loader, MissingDependencyIsNamed) {
  expect_refusal(fixture("fixture_missing_dep"), "libdevplug_missing_dep.so");
}

TEST(Loader, PluginWithoutDevicesLoadsAndSaysWhy) {
  Context context;
  devplug_plugin_t* plugin = nullptr;
  ASSERT_EQ(
      take_message(devplug_context_load_plugin(context.get(), fixture("fixture_no_device").c_str(), &plugin)),
      "");
  const devplug_plugin_info_t info = info_of(plugin);
  EXPECT_EQ(info.device_count, 0);
  ASSERT_NE(info.device_note, nullptr);
  EXPECT_STREQ(info.device_note, "fixture: no device on purpose");
}

TEST(Loader, FailuresDoNotDisturbOtherPlugins) {
  Context context;
  for (const char* bad : {"fixture_abi_major2", "fixture_init_throws", "fixture_missing_dep"})
    EXPECT_NE(take_message(devplug_context_load_plugin(context.get(), fixture(bad).c_str(), nullptr)), "");
  devplug_plugin_t* plugin = nullptr;
  ASSERT_EQ(take_message(devplug_context_load_plugin(context.get(), fixture("fixture_ok").c_str(), &plugin)),
            "");
  EXPECT_EQ(context.plugin_count(), 1u);
  size_t failures = 0;
  EXPECT_EQ(take_message(devplug_context_failure_count(context.get(), &failures)), "");
  EXPECT_EQ(failures, 3u);
  expect_fill_works(context.get(), plugin);
}

}  // namespace
