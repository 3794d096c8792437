// SPDX-License-Identifier: Apache-2.0
// The OpenCL plugin's own behaviour: the kernel table, device properties, argument checks,
// PoCL's own cache, event timestamps without profiling, and no host addresses. What it shares
// with the Level Zero plugin (loading without OpenCL, the on-disk program cache, build
// failures carrying the compiler's log, stream/event ordering, event timestamps, pinned host
// memory) runs here as the Opencl/ instances of opencl_family_test.cpp's suites.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "devplug/sdk/kernels.hpp"
#include "host_memory_checks.hpp"
#include "opencl_family_test.hpp"
#include "opencl_harness.hpp"

namespace devplug::opencl_test {
namespace {

// Programs go to a disk cache inside the build tree (ctest sets DEVPLUG_OPENCL_CACHE_DIR) or,
// when run by hand, to a temporary folder; never to the user's cache. Tests of the cache
// itself set their own folder.
const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new CacheEnvironment("DEVPLUG_OPENCL_CACHE_DIR"));

const PluginCase kOpencl{
    "opencl",
    DEVPLUG_OPENCL_PLUGIN,
    "no OpenCL device",
    "DEVPLUG_OPENCL_LIBRARY",
    "libOpenCL.so.1",
    "DEVPLUG_OPENCL_CACHE_DIR",
    "DEVPLUG_OPENCL_CACHE_LOG",
    ".clbin",
    "DEVPLUG_OPENCL_BINARY_CACHE",
    "DEVPLUG_OPENCL_TEST_BREAK_SOURCE",
    -11,  // CL_BUILD_PROGRAM_FAILURE
    R"(^clBuildProgram: CL_BUILD_PROGRAM_FAILURE \(-11\) while building kernels with options '[^']*-DOP_sin[^']*'; build log:\n[\s\S]*error:[\s\S]* \[program_cache\.cpp:[0-9]+\]$)"};

INSTANTIATE_TEST_SUITE_P(Opencl, PluginLoad, ::testing::Values(kOpencl), plugin_case_name);
INSTANTIATE_TEST_SUITE_P(Opencl, PluginStream, ::testing::Values(kOpencl), plugin_case_name);
INSTANTIATE_TEST_SUITE_P(Opencl, PluginMemory, ::testing::Values(kOpencl), plugin_case_name);
INSTANTIATE_TEST_SUITE_P(Opencl, PluginCache, ::testing::Values(kOpencl), plugin_case_name);
INSTANTIATE_TEST_SUITE_P(Opencl, PluginBuild, ::testing::Values(kOpencl), plugin_case_name);

// Skips the test when the machine has no OpenCL device (the no-device path has its own test).
#define REQUIRE_DEVICE(api)                                                        \
  do {                                                                             \
    int32_t count_ = 0;                                                            \
    const char* note_ = nullptr;                                                   \
    DEVPLUG_EXPECT_OK(api, (api)->device_count(&count_, &note_));                  \
    if (count_ == 0) GTEST_SKIP() << "no OpenCL device: " << (note_ ? note_ : ""); \
  } while (0)

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

// PoCL caches what it compiles; asking it for a binary would make it compile every kernel of
// the program for any launch size, so the plugin leaves binaries to it (program_cache.hpp).
TEST(OpenclCache, LeavesBinariesToAPoclThatCachesThem) {
  CacheRun cache(kOpencl);
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
