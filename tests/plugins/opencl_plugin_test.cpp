// SPDX-License-Identifier: Apache-2.0
// The OpenCL plugin's own behaviour: loading without OpenCL, device properties, argument
// checks, the on-disk program cache, build failures carrying the compiler's log, error
// message format, stream/event ordering, event timestamps, and pinned host memory.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "devplug/sdk/kernels.hpp"
#include "host_memory_checks.hpp"
#include "opencl_harness.hpp"

namespace devplug::opencl_test {
namespace {

// Programs go to a disk cache inside the build tree (ctest sets DEVPLUG_OPENCL_CACHE_DIR) or,
// when run by hand, to a temporary folder; never to the user's cache. Tests of the cache
// itself set their own folder.
const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new CacheEnvironment("DEVPLUG_OPENCL_CACHE_DIR"));

// Skips the test when the machine has no OpenCL device (the no-device path has its own test).
#define REQUIRE_DEVICE(api)                                                        \
  do {                                                                             \
    int32_t count_ = 0;                                                            \
    const char* note_ = nullptr;                                                   \
    DEVPLUG_EXPECT_OK(api, (api)->device_count(&count_, &note_));                  \
    if (count_ == 0) GTEST_SKIP() << "no OpenCL device: " << (note_ ? note_ : ""); \
  } while (0)

TEST(OpenclLoad, WithoutOpenclReportsZeroDevicesAndWhy) {
  TempDir dir;
  setenv("DEVPLUG_OPENCL_LIBRARY", "/nonexistent/libOpenCL.so.1", 1);
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN, dir.path() + "/libdevplug_opencl_nolib.so");
  unsetenv("DEVPLUG_OPENCL_LIBRARY");
  const devplug_plugin_api_t* api = plugin.api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(plugin.init_error().code, DEVPLUG_CODE_OK) << plugin.init_error().message;
  int32_t count = -1;
  const char* note = nullptr;
  DEVPLUG_EXPECT_OK(api, api->device_count(&count, &note));
  EXPECT_EQ(count, 0);
  ASSERT_NE(note, nullptr);
  EXPECT_NE(std::string(note).find("/nonexistent/libOpenCL.so.1 not found"), std::string::npos) << note;
  // Opening a device that does not exist is an error, not a crash.
  devplug_device_handle_t* device = reinterpret_cast<devplug_device_handle_t*>(1);
  const ErrorText e = take(api, api->device_open(0, &device));
  EXPECT_EQ(e.code, DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(device, nullptr);
  // The kernel table is declared without any device.
  EXPECT_GT(api->kernel_count, 0u);
}

TEST(OpenclLoad, TableDescribesThePlugin) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->struct_size, sizeof(devplug_plugin_api_t));
  EXPECT_EQ(api->abi_major, static_cast<uint32_t>(DEVPLUG_ABI_MAJOR));
  EXPECT_STREQ(api->plugin_name, "opencl");
  // Every prim of the op set is claimed for every dtype ops.def allows; a composite is
  // claimed for all its dtypes where the plugin has a native kernel, else not at all.
  for (const devplug_op_t op : sdk::all_ops()) {
    devplug_dtype_mask_t claimed = 0;
    for (size_t i = 0; i < api->kernel_count; ++i)
      if (api->kernels[i]->op == op) claimed |= api->kernels[i]->dtypes;
    if (devplug_op_info(op)->category == DEVPLUG_CATEGORY_composite && claimed == 0) continue;
    EXPECT_EQ(claimed, devplug_op_info(op)->dtypes) << devplug_op_name(op);
  }
}

TEST(OpenclDevice, PropertiesAreFilledHonestly) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  devplug_device_properties_t p{};
  p.struct_size = sizeof p;
  DEVPLUG_EXPECT_OK(api, api->device_get_properties(0, &p));
  EXPECT_GT(std::strlen(p.name), 0u);
  EXPECT_GT(std::strlen(p.vendor), 0u);
  EXPECT_GT(std::strlen(p.driver_version), 0u);
  EXPECT_GT(p.memory_bytes, 0u);
  EXPECT_GT(p.compute_units, 0);
  if (std::string(p.name).find("pthread") != std::string::npos) {
    // PoCL's CPU device: cl_khr_fp64 yes, cl_khr_fp16 no, host memory.
    EXPECT_TRUE(p.capabilities & DEVPLUG_DEVICE_FP64);
    EXPECT_FALSE(p.capabilities & DEVPLUG_DEVICE_FP16);
  }
  // PoCL runs float64, so the device claims every dtype (ABI 1.1's per-device claim).
  if (p.capabilities & DEVPLUG_DEVICE_FP64)
    EXPECT_EQ(p.dtypes, DEVPLUG_DTYPES_ALL);
  else
    EXPECT_EQ(p.dtypes, DEVPLUG_DTYPES_ALL & ~DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64));
  // A caller with the ABI 1.0 struct gets only the fields it has; a shorter one is refused.
  devplug_device_properties_t short_props{};
  std::memset(&short_props, 0x5A, sizeof short_props);
  short_props.struct_size = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE;
  DEVPLUG_EXPECT_OK(api, api->device_get_properties(0, &short_props));
  EXPECT_STREQ(short_props.name, p.name);
  EXPECT_EQ(short_props.capabilities, p.capabilities);
  EXPECT_EQ(short_props.dtypes, 0x5A5A5A5Au) << "wrote the 1.1 field past a 1.0 struct";
  short_props.struct_size = DEVPLUG_SIZE_THROUGH(devplug_device_properties_t, name);
  EXPECT_EQ(take(api, api->device_get_properties(0, &short_props)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  // Out of range.
  EXPECT_EQ(take(api, api->device_get_properties(99, &p)).code, DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(take(api, api->device_get_properties(-1, &p)).code, DEVPLUG_CODE_OUT_OF_RANGE);
}

TEST(OpenclEntry, BadArgumentsAreErrorsNotCrashes) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(take(api, api->device_count(nullptr, nullptr)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, api->device_get_properties(0, nullptr)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_buffer_handle_t* buffer = nullptr;
  EXPECT_EQ(take(api, api->buffer_allocate(s.device(), 0, &buffer)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, api->buffer_allocate(nullptr, 16, &buffer)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, api->buffer_allocate(s.device(), 16, nullptr)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, api->buffer_release(nullptr)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, api->stream_create(nullptr, nullptr)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, api->stream_synchronize(nullptr)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, api->event_synchronize(nullptr)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_buffer_handle_t* small = s.upload(std::vector<unsigned char>(16, 0));
  unsigned char host[64];
  EXPECT_EQ(take(api, api->buffer_copy_to_host(s.stream(), small, 8, host, 16)).code,
            DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(take(api, api->buffer_copy_from_host(s.stream(), host, small, 0, 17)).code,
            DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(take(api, api->buffer_copy(s.stream(), small, 0, small, 4, 8)).code,
            DEVPLUG_CODE_INVALID_ARGUMENT);  // overlap
  EXPECT_EQ(take(api, api->buffer_copy_to_host(s.stream(), small, 0, nullptr, 16)).code,
            DEVPLUG_CODE_INVALID_ARGUMENT);

  // Kernel calls: null call, short struct, wrong arity, null attrs for an op with attrs.
  const devplug_kernel_t* exp_kernel = nullptr;
  const devplug_kernel_t* sum_kernel = nullptr;
  for (size_t i = 0; i < api->kernel_count; ++i) {
    if (api->kernels[i]->op == DEVPLUG_OP_exp) exp_kernel = api->kernels[i];
    if (api->kernels[i]->op == DEVPLUG_OP_sum) sum_kernel = api->kernels[i];
  }
  ASSERT_NE(exp_kernel, nullptr);
  ASSERT_NE(sum_kernel, nullptr);
  EXPECT_EQ(take(api, exp_kernel->fn(s.stream(), nullptr)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_tensor_desc_t t = tensor(small, DEVPLUG_DTYPE_FLOAT32, {4});
  const devplug_tensor_desc_t* ins[2] = {&t, &t};
  const devplug_tensor_desc_t* outs[1] = {&t};
  devplug_op_call_t call{sizeof call, DEVPLUG_OP_exp, ins, 2, outs, 1, nullptr};
  EXPECT_EQ(take(api, exp_kernel->fn(s.stream(), &call)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  call.n_inputs = 1;
  call.struct_size = 8;
  EXPECT_EQ(take(api, exp_kernel->fn(s.stream(), &call)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  call.struct_size = sizeof call;
  EXPECT_EQ(take(api, exp_kernel->fn(nullptr, &call)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_tensor_desc_t bad = t;
  bad.struct_size = 4;
  ins[0] = &bad;
  EXPECT_EQ(take(api, exp_kernel->fn(s.stream(), &call)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  ins[0] = &t;
  call.op = DEVPLUG_OP_sum;
  EXPECT_EQ(take(api, sum_kernel->fn(s.stream(), &call)).code, DEVPLUG_CODE_INVALID_ARGUMENT);  // attrs NULL
}

// Whether the first OpenCL platform is PoCL, asked of the ICD loader directly (the plugin's
// answer is what the cache tests check).
bool first_platform_is_pocl() {
  void* lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return false;
  using GetPlatformIds = int32_t (*)(uint32_t, void**, uint32_t*);
  using GetPlatformInfo = int32_t (*)(void*, uint32_t, size_t, void*, size_t*);
  auto get_ids = reinterpret_cast<GetPlatformIds>(dlsym(lib, "clGetPlatformIDs"));
  auto get_info = reinterpret_cast<GetPlatformInfo>(dlsym(lib, "clGetPlatformInfo"));
  constexpr uint32_t kPlatformName = 0x0902;  // CL_PLATFORM_NAME
  void* platform = nullptr;
  char name[128] = {0};
  const bool pocl = get_ids != nullptr && get_info != nullptr && get_ids(1, &platform, nullptr) == 0 &&
                    get_info(platform, kPlatformName, sizeof name - 1, name, nullptr) == 0 &&
                    std::string(name) == "Portable Computing Language";
  dlclose(lib);
  return pocl;
}

// Runs exp on 4 floats in a fresh instance of the plugin (a copy of the file, so its statics
// start empty, as in a second process) with the disk cache in `cache`.
class CacheRun {
 public:
  CacheRun() : cache_(dir_.path() + "/cache"), log_(dir_.path() + "/cache.log") {
    setenv("DEVPLUG_OPENCL_CACHE_DIR", cache_.c_str(), 1);
    setenv("DEVPLUG_OPENCL_CACHE_LOG", log_.c_str(), 1);
  }
  ~CacheRun() {
    unsetenv("DEVPLUG_OPENCL_CACHE_LOG");
    unsetenv("DEVPLUG_OPENCL_BINARY_CACHE");
  }
  void run_exp(const std::string& copy_name, std::vector<float>* result) {
    LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN, dir_.path() + "/" + copy_name);
    const devplug_plugin_api_t* api = plugin.api();
    ASSERT_NE(api, nullptr);
    REQUIRE_DEVICE(api);
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
  std::string log() const { return read_text(log_); }
  bool binary_stored(const std::string& key) const {
    return std::filesystem::exists(cache_ + "/" + key + ".clbin");
  }

 private:
  TempDir dir_;
  std::string cache_, log_;
};

TEST(OpenclCache, SecondInstanceLoadsProgramsFromDisk) {
  CacheRun cache;
  setenv("DEVPLUG_OPENCL_BINARY_CACHE", "1", 1);  // on every driver, PoCL included
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

// PoCL caches what it compiles; asking it for a binary would make it compile every kernel of
// the program for any launch size, so the plugin leaves binaries to it (program_cache.hpp).
TEST(OpenclCache, LeavesBinariesToAPoclThatCachesThem) {
  CacheRun cache;
  std::vector<float> first_result, second_result;
  cache.run_exp("first.so", &first_result);
  if (HasFatalFailure() || IsSkipped()) return;
  if (!first_platform_is_pocl()) GTEST_SKIP() << "the OpenCL platform is not PoCL";
  cache.run_exp("second.so", &second_result);
  const std::string log = cache.log();
  EXPECT_EQ(count_lines_starting(log, "driver "), 2) << log;
  EXPECT_EQ(count_lines_starting(log, "compile "), 0) << log;
  EXPECT_EQ(count_lines_starting(log, "disk "), 0) << log;
  EXPECT_FALSE(cache.binary_stored(log.substr(std::string("driver ").size(), 16)));
  EXPECT_EQ(first_result, second_result);

  // Without PoCL's cache the plugin's own is used again.
  setenv("POCL_KERNEL_CACHE", "0", 1);
  cache.run_exp("third.so", &second_result);
  unsetenv("POCL_KERNEL_CACHE");
  EXPECT_EQ(count_lines_starting(cache.log(), "compile "), 1) << cache.log();
  EXPECT_EQ(first_result, second_result);
}

TEST(OpenclBuild, FailureCarriesTheBuildLogInTheNativeFormat) {
  TempDir dir;
  setenv("DEVPLUG_OPENCL_CACHE_DIR", (dir.path() + "/cache").c_str(), 1);
  setenv("DEVPLUG_OPENCL_TEST_BREAK_SOURCE", "1", 1);
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  int32_t count = 0;
  DEVPLUG_EXPECT_OK(api, api->device_count(&count, nullptr));
  if (count == 0) {
    unsetenv("DEVPLUG_OPENCL_TEST_BREAK_SOURCE");
    GTEST_SKIP() << "no OpenCL device";
  }
  Session s(api);
  ASSERT_TRUE(s.ok());
  devplug_buffer_handle_t* in = s.upload(std::vector<unsigned char>(16));
  devplug_buffer_handle_t* out = s.upload(std::vector<unsigned char>(16));
  const ErrorText e = s.run(DEVPLUG_OP_sin, {tensor(in, DEVPLUG_DTYPE_FLOAT32, {4})},
                            tensor(out, DEVPLUG_DTYPE_FLOAT32, {4}), nullptr);
  unsetenv("DEVPLUG_OPENCL_TEST_BREAK_SOURCE");
  EXPECT_EQ(e.code, DEVPLUG_CODE_INTERNAL);
  EXPECT_EQ(e.native_code, -11);
  const std::regex format(
      R"(^clBuildProgram: CL_BUILD_PROGRAM_FAILURE \(-11\) while building kernels with options '[^']*-DOP_sin[^']*'; build log:\n[\s\S]*error:[\s\S]* \[program_cache\.cpp:[0-9]+\]$)");
  EXPECT_TRUE(std::regex_search(e.message, format)) << e.message;
}

TEST(OpenclStream, EventsOrderWorkAcrossStreams) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
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
  // Stream 1: fill a with 7; event; stream 2 waits, copies a to b, reads b.
  devplug_fill_attrs_t fill{sizeof fill, {7.0, 7}};
  const devplug_tensor_desc_t ta = tensor(a, DEVPLUG_DTYPE_INT32, {n});
  const devplug_tensor_desc_t* outs[1] = {&ta};
  devplug_op_call_t call{sizeof call, DEVPLUG_OP_fill, nullptr, 0, outs, 1, &fill};
  for (size_t i = 0; i < api->kernel_count; ++i)
    if (api->kernels[i]->op == DEVPLUG_OP_fill)
      DEVPLUG_EXPECT_OK(api, api->kernels[i]->fn(s.stream(), &call));
  DEVPLUG_EXPECT_OK(api, api->event_record(event, s.stream()));
  DEVPLUG_EXPECT_OK(api, api->stream_wait_event(second, event));
  DEVPLUG_EXPECT_OK(api, api->buffer_copy(second, a, 0, b, 0, n * 4));
  std::vector<int32_t> host(n, 0);
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_to_host(second, b, 0, host.data(), n * 4));
  DEVPLUG_EXPECT_OK(api, api->stream_synchronize(second));
  DEVPLUG_EXPECT_OK(api, api->event_synchronize(event));
  EXPECT_EQ(host.front(), 7);
  EXPECT_EQ(host.back(), 7);
  DEVPLUG_EXPECT_OK(api, api->event_destroy(event));
  DEVPLUG_EXPECT_OK(api, api->stream_destroy(second));
}

// Event timestamps from the markers' profiling info (queues with CL_QUEUE_PROFILING_ENABLE).
TEST(OpenclEvents, TimestampsAreTheDevicesProfilingTimes) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  check_event_timestamps(s);
}

// A queue without profiling (DEVPLUG_OPENCL_PROFILING=0 when the device is opened, as on a
// device that lacks it): events are timed by the host when their markers complete.
TEST(OpenclEvents, TimestampsWithoutProfilingComeFromTheHost) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  setenv("DEVPLUG_OPENCL_PROFILING", "0", 1);
  Session s(api);
  unsetenv("DEVPLUG_OPENCL_PROFILING");
  ASSERT_TRUE(s.ok());
  check_event_timestamps(s);
}

// Pinned host memory: mapped CL_MEM_ALLOC_HOST_PTR buffers, copied from and to directly by
// the non-blocking host copies, released only once the copies tracked on them have finished.
TEST(OpenclHostMemory, PinnedBlocksCopyDirectlyAndOutliveTheirCopies) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  check_pinned_host_memory(s);
}

// No host_address, even on a device with host-unified memory (PoCL): OpenCL 1.2 gives no
// host address of a plain buffer that stays valid while kernels use it
// (plugins/opencl/host_memory.hpp says why).
TEST(OpenclHostMemory, OffersNoHostAddress) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(host_address(api), nullptr);
}

}  // namespace
}  // namespace devplug::opencl_test
