// SPDX-License-Identifier: Apache-2.0
// The Level Zero plugin's own behaviour, through Debian's real loader: without a driver it
// loads and reports zero devices with the reason (and the doctor says how to fix it); on the
// CPU test driver (ctest sets ZE_ENABLE_ALT_DRIVERS, and runs these tests again with regular
// command lists and with host staging) the kernel table, device properties, results of
// strided ops, memory released while work is in flight and buffers' host addresses. What it
// shares with the OpenCL plugin (loading without the loader, work ordered across streams by
// events, event timestamps, pinned host memory, the on-disk module cache, module build
// failures carrying the driver's log) runs here as the LevelZero/ instances of
// opencl_family_test.cpp's suites.
//
// Op correctness as such is devplug-conform's job (conformance_level_zero_full).
#include <level_zero/ze_api.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "devplug/sdk/half.hpp"
#include "devplug/sdk/kernels.hpp"
#include "host_memory_checks.hpp"
#include "opencl_family_test.hpp"
#include "opencl_harness.hpp"  // a plugin-agnostic host: load, open, copy, run one op

namespace devplug::opencl_test {
namespace {

// Modules go to a disk cache inside the build tree (ctest sets DEVPLUG_LEVEL_ZERO_CACHE_DIR)
// or, when run by hand, to a temporary folder; never to the user's cache.
const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new CacheEnvironment("DEVPLUG_LEVEL_ZERO_CACHE_DIR"));

const PluginCase kLevelZero{
    "level_zero",
    DEVPLUG_LEVEL_ZERO_PLUGIN,
    "no Level Zero device (set ZE_ENABLE_ALT_DRIVERS to libze_devplug_cpu.so)",
    "DEVPLUG_LEVEL_ZERO_LIBRARY",
    "libze_loader.so.1",
    "DEVPLUG_LEVEL_ZERO_CACHE_DIR",
    "DEVPLUG_LEVEL_ZERO_CACHE_LOG",
    ".zebin",
    nullptr,  // modules are always stored
    "DEVPLUG_LEVEL_ZERO_TEST_BREAK_SPIRV",
    static_cast<int64_t>(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
    R"(^zeModuleCreate: ZE_RESULT_ERROR_MODULE_BUILD_FAILURE \(0x70000004\) while building kernels/elementwise\.cl with '[^']*-DOP_sin[^']*' from SPIR-V; build log:\n[\s\S]+ \[module_cache\.cpp:[0-9]+\]$)"};

// ctest selects these by prefix and suite (tests/plugins/level_zero.cmake): LevelZero/PluginLoad
// without a driver, the others on the CPU test driver.
INSTANTIATE_TEST_SUITE_P(LevelZero, PluginLoad, ::testing::Values(kLevelZero), plugin_case_name);
INSTANTIATE_TEST_SUITE_P(LevelZero, PluginStream, ::testing::Values(kLevelZero), plugin_case_name);
INSTANTIATE_TEST_SUITE_P(LevelZero, PluginMemory, ::testing::Values(kLevelZero), plugin_case_name);
INSTANTIATE_TEST_SUITE_P(LevelZero, PluginCache, ::testing::Values(kLevelZero), plugin_case_name);
INSTANTIATE_TEST_SUITE_P(LevelZero, PluginBuild, ::testing::Values(kLevelZero), plugin_case_name);

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

int32_t device_count(const devplug_plugin_api_t* api, std::string* note = nullptr) {
  int32_t count = 0;
  const char* text = nullptr;
  take(api, api->device_count(&count, &text));
  if (note != nullptr) *note = text ? text : "";
  return count;
}

// Skips the test when the plugin sees no device (ZE_ENABLE_ALT_DRIVERS not set).
#define REQUIRE_DEVICE(api)                                                                                  \
  do {                                                                                                       \
    std::string note_;                                                                                       \
    if (device_count(api, &note_) == 0)                                                                      \
      GTEST_SKIP() << "no Level Zero device (set ZE_ENABLE_ALT_DRIVERS to libze_devplug_cpu.so): " << note_; \
  } while (0)

// ---- without a driver ----

// Run by ctest without ZE_ENABLE_ALT_DRIVERS: the loader finds no driver.
TEST(LevelZeroNoDriver, ReportsZeroDevicesWithZeInitsResult) {
  LoadedPlugin plugin(DEVPLUG_LEVEL_ZERO_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(plugin.init_error().code, DEVPLUG_CODE_OK) << plugin.init_error().message;
  std::string note;
  if (device_count(api, &note) > 0) GTEST_SKIP() << "a Level Zero driver is installed on this machine";
  EXPECT_NE(note.find("zeInit: ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)"), std::string::npos) << note;
  EXPECT_NE(note.find("no driver"), std::string::npos) << note;
}

TEST(LevelZeroNoDriver, TheDoctorSaysWhyAndHowToFixIt) {
  LoadedPlugin plugin(DEVPLUG_LEVEL_ZERO_PLUGIN);
  ASSERT_NE(plugin.api(), nullptr);
  if (device_count(plugin.api()) > 0) GTEST_SKIP() << "a Level Zero driver is installed on this machine";
  const CommandResult r = run_command(std::string("'") + DEVPLUG_INFO_EXE + "' --no-discovery --check '" +
                                      DEVPLUG_LEVEL_ZERO_PLUGIN + "'");
  EXPECT_EQ(r.exit_code, 2) << r.output;  // loads, no devices
  EXPECT_NE(r.output.find("ZE_RESULT_ERROR_UNINITIALIZED"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("intel-level-zero-gpu"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ZE_ENABLE_ALT_DRIVERS"), std::string::npos) << r.output;
  // Without the loader the doctor names the package that has it.
  const CommandResult no_loader = run_command("DEVPLUG_LEVEL_ZERO_LIBRARY=/nonexistent/libze_loader.so.1 '" +
                                              std::string(DEVPLUG_INFO_EXE) + "' --no-discovery --check '" +
                                              DEVPLUG_LEVEL_ZERO_PLUGIN + "'");
  EXPECT_EQ(no_loader.exit_code, 2) << no_loader.output;
  EXPECT_NE(no_loader.output.find("libze1"), std::string::npos) << no_loader.output;
}

// ---- on the CPU test driver ----

TEST(LevelZeroLoad, TableDescribesThePlugin) {
  LoadedPlugin plugin(DEVPLUG_LEVEL_ZERO_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  ASSERT_NE(api, nullptr);
  EXPECT_STREQ(api->plugin_name, "level_zero");
  EXPECT_TRUE(api->flags & DEVPLUG_PLUGIN_CACHING_ALLOCATOR);
  // Every prim for every dtype ops.def allows; composites run through the dispatcher's
  // decompositions on this plugin (no native composite kernels).
  for (const devplug_op_t op : sdk::all_ops()) {
    devplug_dtype_mask_t claimed = 0;
    for (size_t i = 0; i < api->kernel_count; ++i)
      if (api->kernels[i]->op == op) claimed |= api->kernels[i]->dtypes;
    const bool composite = devplug_op_info(op)->category == DEVPLUG_CATEGORY_composite;
    EXPECT_EQ(claimed, composite ? 0 : devplug_op_info(op)->dtypes) << devplug_op_name(op);
  }
}

TEST(LevelZeroDevice, PropertiesAreFilledHonestly) {
  LoadedPlugin plugin(DEVPLUG_LEVEL_ZERO_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  devplug_device_properties_t p{};
  p.struct_size = sizeof p;
  DEVPLUG_EXPECT_OK(api, api->device_get_properties(0, &p));
  EXPECT_GT(std::strlen(p.vendor), 0u);
  EXPECT_GT(std::strlen(p.driver_version), 0u);
  EXPECT_GT(p.memory_bytes, 0u);
  EXPECT_GT(p.compute_units, 0);
  if (std::string(p.name).find("devplug CPU test driver") != std::string::npos) {
    // A CPU, or an integrated GPU (ZE_DEVPLUG_CPU_TYPE=gpu), but not a discrete one.
    const char* type = std::getenv("ZE_DEVPLUG_CPU_TYPE");
    const bool discrete = type != nullptr && std::string(type) == "discrete_gpu";
    EXPECT_EQ((p.capabilities & DEVPLUG_DEVICE_UNIFIED_MEMORY) != 0, !discrete);
    EXPECT_FALSE(p.capabilities & DEVPLUG_DEVICE_FP16);  // PoCL: half is storage only
    const char* fp64 = std::getenv("ZE_DEVPLUG_CPU_FP64");
    const bool hidden = fp64 != nullptr && std::string(fp64) == "0";
    EXPECT_EQ((p.capabilities & DEVPLUG_DEVICE_FP64) != 0, !hidden);
  }
  if (p.capabilities & DEVPLUG_DEVICE_FP64)
    EXPECT_EQ(p.dtypes, DEVPLUG_DTYPES_ALL);
  else
    EXPECT_EQ(p.dtypes, DEVPLUG_DTYPES_ALL & ~DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64));
}

TEST(LevelZeroOps, StridedElementwiseReduceAndScatterGiveTheExpectedValues) {
  LoadedPlugin plugin(DEVPLUG_LEVEL_ZERO_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  // add over a transposed, offset view: out[i][j] = x[j][i] + 1 (x 3x2, read as 2x3).
  const std::vector<int32_t> x = {-1, 10, 11, 12, 13, 14, 15};  // element 0 skipped by the offset
  devplug_buffer_handle_t* xb = s.upload(bytes_of(x));
  devplug_buffer_handle_t* ones = s.upload(bytes_of(std::vector<int32_t>(6, 1)));
  devplug_buffer_handle_t* out = s.upload(std::vector<unsigned char>(6 * 4));
  ErrorText e = s.run(
      DEVPLUG_OP_add,
      {tensor(xb, DEVPLUG_DTYPE_INT32, {2, 3}, {1, 2}, 4), tensor(ones, DEVPLUG_DTYPE_INT32, {2, 3}, {0, 1})},
      tensor(out, DEVPLUG_DTYPE_INT32, {2, 3}), nullptr);
  ASSERT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
  EXPECT_EQ(values_of<int32_t>(s.download(out, 24)), (std::vector<int32_t>{11, 13, 15, 12, 14, 16}));

  // A long float16 sum (the two-level reduction, with scratch memory) of 1.0: 5000 exactly.
  constexpr int64_t n = 5000;
  devplug_buffer_handle_t* halves =
      s.upload(bytes_of(std::vector<uint16_t>(n, sdk::double_to_half_bits(1.0))));
  devplug_buffer_handle_t* total = s.upload(std::vector<unsigned char>(2));
  devplug_reduce_attrs_t sum{sizeof sum, 1u, 0.0};
  e = s.run(DEVPLUG_OP_sum, {tensor(halves, DEVPLUG_DTYPE_FLOAT16, {n})},
            tensor(total, DEVPLUG_DTYPE_FLOAT16, {1}), &sum);
  ASSERT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
  EXPECT_EQ(values_of<uint16_t>(s.download(total, 2))[0], sdk::double_to_half_bits(5000.0));

  // scatter_add of bfloat16 adds in float32 (a scratch copy) and rounds once.
  const std::vector<int64_t> index = {0, 0, 0, 1};
  devplug_buffer_handle_t* ib = s.upload(bytes_of(index));
  const uint16_t third = sdk::double_to_bfloat16_bits(1.0 / 3.0);
  devplug_buffer_handle_t* src = s.upload(bytes_of(std::vector<uint16_t>(4, third)));
  devplug_buffer_handle_t* base = s.upload(bytes_of(std::vector<uint16_t>(2, 0)));
  devplug_buffer_handle_t* result = s.upload(std::vector<unsigned char>(4));
  devplug_dim_attrs_t dim{sizeof dim, 0};
  e = s.run(DEVPLUG_OP_scatter_add,
            {tensor(base, DEVPLUG_DTYPE_BFLOAT16, {2}), tensor(ib, DEVPLUG_DTYPE_INT64, {4}),
             tensor(src, DEVPLUG_DTYPE_BFLOAT16, {4})},
            tensor(result, DEVPLUG_DTYPE_BFLOAT16, {2}), &dim);
  ASSERT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
  const float third_f = static_cast<float>(sdk::bfloat16_bits_to_double(third));
  const float three_thirds = third_f + third_f + third_f;  // in float32, as the plugin adds
  EXPECT_EQ(values_of<uint16_t>(s.download(result, 4))[0], sdk::double_to_bfloat16_bits(three_thirds));
}

TEST(LevelZeroMemory, BuffersReleasedWhileWorkIsInFlightStayValidForIt) {
  LoadedPlugin plugin(DEVPLUG_LEVEL_ZERO_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  constexpr int64_t n = 1 << 18;
  std::vector<float> x(n, 2.0f);
  devplug_buffer_handle_t* in = nullptr;
  devplug_buffer_handle_t* out = s.upload(std::vector<unsigned char>(n * 4));
  DEVPLUG_EXPECT_OK(api, api->buffer_allocate(s.device(), n * 4, &in));
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_from_host(s.stream(), x.data(), in, 0, n * 4));
  const devplug_tensor_desc_t tin = tensor(in, DEVPLUG_DTYPE_FLOAT32, {n});
  const devplug_tensor_desc_t tout = tensor(out, DEVPLUG_DTYPE_FLOAT32, {n});
  const devplug_tensor_desc_t* ins[1] = {&tin};
  const devplug_tensor_desc_t* outs[1] = {&tout};
  devplug_op_call_t call{sizeof call, DEVPLUG_OP_sqrt, ins, 1, outs, 1, nullptr};
  for (size_t i = 0; i < api->kernel_count; ++i)
    if (api->kernels[i]->op == DEVPLUG_OP_sqrt)
      DEVPLUG_EXPECT_OK(api, api->kernels[i]->fn(s.stream(), &call));
  DEVPLUG_EXPECT_OK(api, api->buffer_release(in));  // the copy and the kernel may still run
  const std::vector<float> y = values_of<float>(s.download(out, n * 4));
  EXPECT_FLOAT_EQ(y.front(), std::sqrt(2.0f));
  EXPECT_FLOAT_EQ(y.back(), std::sqrt(2.0f));
}

// Host addresses: buffers of a CPU or integrated device are shared allocations the host
// addresses; on a discrete GPU (ctest's discrete_gpu run) they are device memory and the
// answer is FAILED_PRECONDITION.
TEST(LevelZeroMemory, BuffersHaveHostAddressesWhereTheDevicesMemoryIsTheHosts) {
  LoadedPlugin plugin(DEVPLUG_LEVEL_ZERO_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  check_host_address(s);
}

// Host memory lent to the device (host_memory_import): where the device is the host's and its
// driver lets it use system allocations, a kernel works in the lent memory and the release
// waits for it; where either is missing (ctest's host_staging and discrete_gpu runs) the answer
// is FAILED_PRECONDITION, saying which.
TEST(LevelZeroMemory, LentHostMemoryIsDeviceMemoryWhereTheDeviceUsesSystemAllocations) {
  LoadedPlugin plugin(DEVPLUG_LEVEL_ZERO_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  Session s(api);
  ASSERT_TRUE(s.ok());
  const auto* ext = reinterpret_cast<const devplug_ext_host_memory_import_t*>(
      devplug_extension_find(api, DEVPLUG_EXTENSION_HOST_MEMORY_IMPORT));
  ASSERT_NE(ext, nullptr);
  devplug_device_properties_t p{};
  p.struct_size = sizeof p;
  DEVPLUG_EXPECT_OK(api, api->device_get_properties(0, &p));
  const bool unified = (p.capabilities & DEVPLUG_DEVICE_UNIFIED_MEMORY) != 0;
  const char* system = std::getenv("ZE_DEVPLUG_CPU_SYSTEM_MEMORY");
  const bool system_memory = system == nullptr || std::string(system) != "0";
  constexpr int64_t n = 1 << 16;
  struct Free {
    void operator()(float* f) const { std::free(f); }
  };
  std::unique_ptr<float, Free> host(static_cast<float*>(std::aligned_alloc(64, n * 4)));
  std::fill(host.get(), host.get() + n, 4.0f);
  devplug_buffer_handle_t* buffer = nullptr;
  const ErrorText e = take(api, ext->buffer_import_host(s.device(), host.get(), n * 4, &buffer));
  if (!unified || !system_memory) {
    EXPECT_EQ(e.code, DEVPLUG_CODE_FAILED_PRECONDITION) << e.message;
    EXPECT_NE(e.message.find(unified ? "system allocations" : "not host memory"), std::string::npos)
        << e.message;
    EXPECT_EQ(buffer, nullptr);
    return;
  }
  ASSERT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
  const devplug_tensor_desc_t t = tensor(buffer, DEVPLUG_DTYPE_FLOAT32, {n});
  const devplug_tensor_desc_t* ins[1] = {&t};
  const devplug_tensor_desc_t* outs[1] = {&t};
  devplug_op_call_t call{sizeof call, DEVPLUG_OP_sqrt, ins, 1, outs, 1, nullptr};
  bool ran = false;
  for (size_t i = 0; i < api->kernel_count; ++i)
    if (!ran && api->kernels[i]->op == DEVPLUG_OP_sqrt &&
        (api->kernels[i]->dtypes & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32))) {
      DEVPLUG_EXPECT_OK(api, api->kernels[i]->fn(s.stream(), &call));
      ran = true;
    }
  ASSERT_TRUE(ran);
  DEVPLUG_EXPECT_OK(api, api->buffer_release(buffer));  // waits for the kernel, frees nothing
  EXPECT_EQ(host.get()[0], 2.0f);
  EXPECT_EQ(host.get()[n - 1], 2.0f);
}

}  // namespace
}  // namespace devplug::opencl_test
