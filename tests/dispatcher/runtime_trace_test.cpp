// SPDX-License-Identifier: Apache-2.0
// Tests of tracing (DEVPLUG_TRACE): the Chrome trace events written at context destroy and on
// request (devplug_context_write_trace), with each op's dtype, shapes, plugin and fallback,
// and the device time of ops on a plugin that measures events (the reference).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime_test_util.hpp"

namespace devplug::runtime_test {
namespace {

namespace fs = std::filesystem;

TEST(RuntimeTrace, WritesChromeTraceEventsAtContextDestroy) {
  const fs::path file = fs::temp_directory_path() / ("devplug_trace_" + std::to_string(getpid()) + ".json");
  setenv("DEVPLUG_TRACE", file.c_str(), 1);
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  unsetenv("DEVPLUG_TRACE");
  ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), nullptr));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 0, &device));
  const int64_t shape[2] = {2, 3};
  devplug_tensor_t* t = nullptr;
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, shape, &t));
  devplug_tensor_t* ins[2] = {t, t};
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &t, 1, nullptr));
#ifdef DEVPLUG_REFERENCE_PLUGIN
  testing::internal::CaptureStderr();
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &t, 1, nullptr));  // falls back
  testing::internal::GetCapturedStderr();
#endif
  devplug_context_destroy(context);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\":\"add\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"ph\":\"X\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"dtype\":\"float32\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"shapes\":\"[2,3] [2,3] -> [2,3]\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"plugin\":\"fixture_good\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"fallback\":\"no\""), std::string::npos) << json;
#ifdef DEVPLUG_REFERENCE_PLUGIN
  EXPECT_NE(json.find("\"name\":\"mul\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"fallback\":\"yes\""), std::string::npos) << json;
#endif
  fs::remove(file);
}

// devplug_context_write_trace writes the file while the context lives, with every call so far;
// a context made without DEVPLUG_TRACE writes nothing and says so.
TEST(RuntimeTrace, WritesTheTraceSoFarOnRequest) {
  const fs::path file =
      fs::temp_directory_path() / ("devplug_trace_live_" + std::to_string(getpid()) + ".json");
  setenv("DEVPLUG_TRACE", file.c_str(), 1);
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  unsetenv("DEVPLUG_TRACE");
  ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), nullptr));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 0, &device));
  const int64_t shape[1] = {4};
  devplug_tensor_t* t = nullptr;
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, shape, &t));
  devplug_tensor_t* ins[2] = {t, t};
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &t, 1, nullptr));
  auto read = [&] {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  auto count = [](const std::string& json, const std::string& what) {
    size_t n = 0;
    for (size_t at = json.find(what); at != std::string::npos; at = json.find(what, at + 1)) ++n;
    return n;
  };
  bool written = false;
  ASSERT_OK(devplug_context_write_trace(context, &written));
  EXPECT_TRUE(written);
  EXPECT_EQ(count(read(), "\"name\":\"add\""), 1u);
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &t, 1, nullptr));
  ASSERT_OK(devplug_context_write_trace(context, nullptr));
  EXPECT_EQ(count(read(), "\"name\":\"add\""), 2u);  // rewritten with every call so far
  expect_error(devplug_context_write_trace(nullptr, &written), DEVPLUG_CODE_INVALID_ARGUMENT, "context");
  EXPECT_FALSE(written);
  devplug_context_destroy(context);
  EXPECT_EQ(count(read(), "\"name\":\"add\""), 2u);
  fs::remove(file);

  devplug_context_t* untraced = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  written = true;
  ASSERT_OK(devplug_context_write_trace(untraced, &written));
  EXPECT_FALSE(written);
  devplug_context_destroy(untraced);
}

#ifdef DEVPLUG_REFERENCE_PLUGIN
// A plugin with the event_timestamps extension (the reference) gets each op's device time in
// the trace ("device_us"); one without it (fixture_good) gets none.
TEST(RuntimeTrace, OpsOfAPluginThatMeasuresEventsCarryTheirDeviceTime) {
  const fs::path file =
      fs::temp_directory_path() / ("devplug_trace_dev_" + std::to_string(getpid()) + ".json");
  setenv("DEVPLUG_TRACE", file.c_str(), 1);
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  unsetenv("DEVPLUG_TRACE");
  ASSERT_OK(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, nullptr));
  ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), nullptr));
  for (size_t d = 0; d < 2; ++d) {
    devplug_device_t* device = nullptr;
    ASSERT_OK(devplug_context_get_device(context, d, &device));
    const int64_t n = 1 << 16;
    devplug_tensor_t* t = nullptr;
    ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &t));
    devplug_tensor_t* ins[2] = {t, t};
    ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &t, 1, nullptr));
    devplug_tensor_release(t);
  }
  devplug_context_destroy(context);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  const size_t reference = json.find("\"plugin\":\"reference\"");
  const size_t fixture_at = json.find("\"plugin\":\"fixture_good\"");
  ASSERT_NE(reference, std::string::npos) << json;
  ASSERT_NE(fixture_at, std::string::npos) << json;
  const size_t device_time = json.find("\"device_us\":");
  ASSERT_NE(device_time, std::string::npos) << json;
  EXPECT_LT(device_time, fixture_at) << "only the reference's op carries a device time: " << json;
  EXPECT_EQ(json.find("\"device_us\":", device_time + 1), std::string::npos) << json;
  fs::remove(file);
}
#endif

}  // namespace
}  // namespace devplug::runtime_test
