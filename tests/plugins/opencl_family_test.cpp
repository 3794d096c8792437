// SPDX-License-Identifier: Apache-2.0
// The tests shared by the OpenCL and Level Zero plugins (see opencl_family_test.hpp), each
// run on the plugin of its parameter.
#include "opencl_family_test.hpp"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <regex>

#include "host_memory_checks.hpp"

namespace devplug::opencl_test {

void PrintTo(const PluginCase& plugin, std::ostream* out) { *out << plugin.name; }

std::string plugin_case_name(const ::testing::TestParamInfo<PluginCase>& info) { return info.param.name; }

ScopedEnv::ScopedEnv(const char* variable, const std::string& value) : variable_(variable) {
  if (const char* previous = std::getenv(variable)) {
    had_value_ = true;
    previous_ = previous;
  }
  setenv(variable, value.c_str(), 1);
}

ScopedEnv::~ScopedEnv() {
  if (had_value_)
    setenv(variable_, previous_.c_str(), 1);
  else
    unsetenv(variable_);
}

namespace {

// The number of devices the plugin sees (0 when it cannot count them), and its note.
int32_t plugin_device_count(const devplug_plugin_api_t* api, std::string* note) {
  int32_t count = 0;
  const char* text = nullptr;
  const ErrorText e = take(api, api->device_count(&count, &text));
  EXPECT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
  *note = text ? text : "";
  return e.code == DEVPLUG_CODE_OK ? count : 0;
}

}  // namespace

// Skips the test when `plugin` sees no device on `api`.
#define REQUIRE_PLUGIN_DEVICE(plugin, api)                                                          \
  do {                                                                                              \
    std::string note_;                                                                              \
    if (plugin_device_count(api, &note_) == 0) GTEST_SKIP() << (plugin).no_device << ": " << note_; \
  } while (0)

CacheRun::CacheRun(const PluginCase& plugin)
    : plugin_(plugin),
      cache_(dir_.path() + "/cache"),
      log_(dir_.path() + "/cache.log"),
      cache_variable_(plugin.cache_variable, cache_),
      log_variable_(plugin.cache_log_variable, log_) {}

void CacheRun::run_exp(const std::string& copy_name, std::vector<float>* result) {
  LoadedPlugin plugin(plugin_.path, dir_.path() + "/" + copy_name);
  const devplug_plugin_api_t* api = plugin.api();
  ASSERT_NE(api, nullptr);
  REQUIRE_PLUGIN_DEVICE(plugin_, api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  const std::vector<float> x = {0.0f, 1.0f, -2.5f, 10.0f};
  devplug_buffer_handle_t* in = s.upload(bytes_of(x));
  devplug_buffer_handle_t* out = s.upload(std::vector<unsigned char>(16));
  const ErrorText e = s.run(DEVPLUG_OP_exp, {tensor(in, DEVPLUG_DTYPE_FLOAT32, {4})},
                            tensor(out, DEVPLUG_DTYPE_FLOAT32, {4}), nullptr);
  ASSERT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
  *result = values_of<float>(s.download(out, 16));
}

std::string CacheRun::log() const { return read_text(log_); }

bool CacheRun::binary_stored(const std::string& key) const {
  return std::filesystem::exists(cache_ + "/" + key + plugin_.binary_extension);
}

namespace {

// ---- loading ----

// Without its native library (the OpenCL ICD loader, the Level Zero loader) the plugin loads
// and reports zero devices with the reason.
TEST_P(PluginLoad, WithoutItsLibraryReportsZeroDevicesAndWhy) {
  const PluginCase& plugin = GetParam();
  TempDir dir;
  const std::string library = std::string("/nonexistent/") + plugin.library_file;
  setenv(plugin.library_variable, library.c_str(), 1);
  LoadedPlugin loaded(plugin.path, dir.path() + "/libdevplug_" + plugin.name + "_nolib.so");
  unsetenv(plugin.library_variable);
  const devplug_plugin_api_t* api = loaded.api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(loaded.init_error().code, DEVPLUG_CODE_OK) << loaded.init_error().message;
  int32_t count = -1;
  const char* note = nullptr;
  DEVPLUG_EXPECT_OK(api, api->device_count(&count, &note));
  EXPECT_EQ(count, 0);
  ASSERT_NE(note, nullptr);
  EXPECT_NE(std::string(note).find(library + " not found"), std::string::npos) << note;
  // Opening a device that does not exist is an error, not a crash.
  devplug_device_handle_t* device = reinterpret_cast<devplug_device_handle_t*>(1);
  const ErrorText e = take(api, api->device_open(0, &device));
  EXPECT_EQ(e.code, DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(device, nullptr);
  // The kernel table is declared without any device.
  EXPECT_GT(api->kernel_count, 0u);
}

// ---- streams and events ----

TEST_P(PluginStream, EventsOrderWorkAcrossStreams) {
  const PluginCase& plugin = GetParam();
  LoadedPlugin loaded(plugin.path);
  const devplug_plugin_api_t* api = loaded.api();
  ASSERT_NE(api, nullptr);
  REQUIRE_PLUGIN_DEVICE(plugin, api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  devplug_stream_handle_t* second = nullptr;
  DEVPLUG_EXPECT_OK(api, api->stream_create(s.device(), &second));
  devplug_event_handle_t* event = nullptr;
  DEVPLUG_EXPECT_OK(api, api->event_create(s.device(), &event));
  DEVPLUG_EXPECT_OK(api, api->event_synchronize(event));  // never recorded: complete
  constexpr int64_t n = 1 << 16;
  devplug_buffer_handle_t* a = s.upload(std::vector<unsigned char>(n * 4));
  devplug_buffer_handle_t* b = s.upload(std::vector<unsigned char>(n * 4));
  const devplug_kernel_t* fill_kernel = int32_fill_kernel(api);
  ASSERT_NE(fill_kernel, nullptr);
  const devplug_tensor_desc_t ta = tensor(a, DEVPLUG_DTYPE_INT32, {n});
  const devplug_tensor_desc_t* outs[1] = {&ta};
  // Five rounds of: stream 1 fills a with k, records; stream 2 waits, copies a to b, reads b.
  for (int k = 1; k <= 5; ++k) {
    devplug_fill_attrs_t fill{sizeof fill, {static_cast<double>(k), k}};
    devplug_op_call_t call{sizeof call, DEVPLUG_OP_fill, nullptr, 0, outs, 1, &fill};
    DEVPLUG_EXPECT_OK(api, fill_kernel->fn(s.stream(), &call));
    DEVPLUG_EXPECT_OK(api, api->event_record(event, s.stream()));
    DEVPLUG_EXPECT_OK(api, api->stream_wait_event(second, event));
    DEVPLUG_EXPECT_OK(api, api->buffer_copy(second, a, 0, b, 0, n * 4));
    std::vector<int32_t> host(n, 0);
    DEVPLUG_EXPECT_OK(api, api->buffer_copy_to_host(second, b, 0, host.data(), n * 4));
    DEVPLUG_EXPECT_OK(api, api->stream_synchronize(second));
    DEVPLUG_EXPECT_OK(api, api->event_synchronize(event));
    EXPECT_EQ(host.front(), k);
    EXPECT_EQ(host.back(), k);
  }
  DEVPLUG_EXPECT_OK(api, api->event_destroy(event));
  DEVPLUG_EXPECT_OK(api, api->stream_destroy(second));
}

// Event timestamps on the device's clock: OpenCL's markers' profiling info (queues with
// CL_QUEUE_PROFILING_ENABLE); Level Zero's barriers' global end timestamps
// (zeEventQueryKernelTimestamp on events from a timestamp pool).
TEST_P(PluginStream, EventTimestampsMeasureTheWorkBetweenThem) {
  const PluginCase& plugin = GetParam();
  LoadedPlugin loaded(plugin.path);
  const devplug_plugin_api_t* api = loaded.api();
  ASSERT_NE(api, nullptr);
  REQUIRE_PLUGIN_DEVICE(plugin, api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  check_event_timestamps(s);
}

// ---- memory ----

// Pinned host memory (OpenCL: mapped CL_MEM_ALLOC_HOST_PTR buffers; Level Zero:
// zeMemAllocHost allocations), copied from and to without staging, released only once the
// copies on it have finished (also where the device reads no other host memory: ctest's
// level_zero_plugin.host_staging and discrete_gpu runs).
TEST_P(PluginMemory, PinnedHostMemoryCopiesDirectlyAndOutlivesItsCopies) {
  const PluginCase& plugin = GetParam();
  LoadedPlugin loaded(plugin.path);
  const devplug_plugin_api_t* api = loaded.api();
  ASSERT_NE(api, nullptr);
  REQUIRE_PLUGIN_DEVICE(plugin, api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  check_pinned_host_memory(s);
}

// ---- the disk cache and builds ----

// A second instance of the plugin finds the binary the first compiled and stored.
TEST_P(PluginCache, SecondInstanceLoadsBinariesFromDisk) {
  const PluginCase& plugin = GetParam();
  CacheRun cache(plugin);
  std::unique_ptr<ScopedEnv> store_binaries;  // on every driver, PoCL included
  if (plugin.binary_cache_switch != nullptr)
    store_binaries = std::make_unique<ScopedEnv>(plugin.binary_cache_switch, "1");
  std::vector<float> first_result, second_result;
  cache.run_exp("first.so", &first_result);
  if (HasFatalFailure() || IsSkipped()) return;
  const std::string after_first = cache.log();
  EXPECT_EQ(count_lines_starting(after_first, "compile "), 1) << after_first;
  EXPECT_EQ(count_lines_starting(after_first, "disk "), 0) << after_first;
  const std::string key = after_first.substr(std::string("compile ").size(), 16);
  EXPECT_TRUE(cache.binary_stored(key)) << key;

  cache.run_exp("second.so", &second_result);
  const std::string after_second = cache.log();
  EXPECT_EQ(count_lines_starting(after_second, "compile "), 1) << after_second;
  EXPECT_EQ(count_lines_starting(after_second, "disk " + key), 1) << after_second;
  EXPECT_EQ(first_result, second_result);
  EXPECT_FLOAT_EQ(second_result[1], 2.7182817f);
}

// A program that fails to build (the plugin's test switch breaks its source or SPIR-V) is
// INTERNAL with the native code, and its message carries the build options and log.
TEST_P(PluginBuild, FailureCarriesTheBuildLogInTheNativeFormat) {
  const PluginCase& plugin = GetParam();
  TempDir dir;
  const ScopedEnv cache(plugin.cache_variable, dir.path() + "/cache");  // nothing cached
  const ScopedEnv broken(plugin.break_build_variable, "1");
  LoadedPlugin loaded(plugin.path, dir.path() + "/libdevplug_" + plugin.name + "_broken.so");
  const devplug_plugin_api_t* api = loaded.api();
  ASSERT_NE(api, nullptr);
  REQUIRE_PLUGIN_DEVICE(plugin, api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  devplug_buffer_handle_t* in = s.upload(std::vector<unsigned char>(16));
  devplug_buffer_handle_t* out = s.upload(std::vector<unsigned char>(16));
  const ErrorText e = s.run(DEVPLUG_OP_sin, {tensor(in, DEVPLUG_DTYPE_FLOAT32, {4})},
                            tensor(out, DEVPLUG_DTYPE_FLOAT32, {4}), nullptr);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INTERNAL);
  EXPECT_EQ(e.native_code, plugin.build_failure_code);
  const std::regex format(plugin.build_failure_format);
  EXPECT_TRUE(std::regex_search(e.message, format)) << e.message;
}

}  // namespace
}  // namespace devplug::opencl_test
