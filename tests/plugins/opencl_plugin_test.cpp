// SPDX-License-Identifier: Apache-2.0
// The OpenCL plugin's own behaviour: the kernel table, device properties, argument checks,
// PoCL's own cache, event timestamps without profiling, and no host addresses. What it shares
// with the Level Zero plugin (loading without OpenCL, the on-disk program cache, build
// failures carrying the compiler's log, stream/event ordering, event timestamps, pinned host
// memory) runs here as the Opencl/ instances of opencl_family_test.cpp's suites.
#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "devplug/sdk/fused_program.hpp"
#include "devplug/sdk/half.hpp"
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

// ---- fused programs (plugins/opencl/fused.hpp) ----

const devplug_ext_fused_programs_t* fused_programs(const devplug_plugin_api_t* api) {
  return reinterpret_cast<const devplug_ext_fused_programs_t*>(
      devplug_extension_find(api, DEVPLUG_EXTENSION_FUSED_PROGRAMS));
}

// float16 bits of small values in [-2, 2], from a fixed sequence.
std::vector<uint16_t> half_values(size_t n, uint32_t seed) {
  std::vector<uint16_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    out[i] = sdk::double_to_half_bits(static_cast<double>(seed >> 8) / (1u << 24) * 4.0 - 2.0);
  }
  return out;
}

// One program over a transposed float16 input that is also written in place, a float16 input
// broadcast along two dims (stride 0), a dense float32 input and a float32 value broadcast to
// every element; two outputs. Run as one
// kernel, then node by node through the plugin's own kernels into buffers: the outputs match
// bit for bit, over rank-3 strided operands (the strided kernel) and over dense ones.
TEST(OpenclFused, OneKernelEqualsThePluginsOpsOneByOne) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  const devplug_ext_fused_programs_t* ext = fused_programs(api);
  ASSERT_NE(ext, nullptr) << "the OpenCL plugin offers no fused_programs extension";
  Session s(api);
  ASSERT_TRUE(s.ok());

  sdk::FusedProgram p;
  // x, y, z, and w: one float32 value broadcast to every element (a uniform operand)
  p.inputs = {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT32};
  const auto xf = p.node(DEVPLUG_OP_convert_element_type, DEVPLUG_DTYPE_FLOAT32, {0});
  const auto yf = p.node(DEVPLUG_OP_convert_element_type, DEVPLUG_DTYPE_FLOAT32, {1});
  const auto prod = p.node(DEVPLUG_OP_mul, DEVPLUG_DTYPE_FLOAT32,
                           {p.node(DEVPLUG_OP_mul, DEVPLUG_DTYPE_FLOAT32, {xf, yf}), 3});
  const auto sum = p.node(DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, {prod, 2});
  const auto e = p.node(DEVPLUG_OP_exp, DEVPLUG_DTYPE_FLOAT32, {sum});
  const auto eh = p.node(DEVPLUG_OP_convert_element_type, DEVPLUG_DTYPE_FLOAT16, {e});
  const auto above = p.node(DEVPLUG_OP_gt, DEVPLUG_DTYPE_BOOL, {sum, 2});
  const auto pick = p.node(DEVPLUG_OP_where, DEVPLUG_DTYPE_FLOAT16, {above, eh, 0});
  p.outputs = {pick, sum};
  const devplug_fused_program_desc_t desc = p.desc();
  devplug_fused_program_handle_t* program = nullptr;
  DEVPLUG_EXPECT_OK(api, ext->fused_program_create(s.device(), &desc, &program));

  for (const bool strided : {true, false}) {
    SCOPED_TRACE(strided ? "strided" : "dense");
    const std::vector<int64_t> shape = {3, 4, 5};
    const size_t n = 60;
    // x: the transpose of a 5 x 4 x 3 tensor; y: 4 values along dim 1; z: dense.
    const std::vector<uint16_t> x0 = half_values(n, 1), y0 = half_values(4, 2);
    const std::vector<uint16_t> z16 = half_values(n, 3);
    std::vector<float> z0(n);
    for (size_t i = 0; i < n; ++i) z0[i] = static_cast<float>(sdk::half_bits_to_double(z16[i]));
    const std::vector<int64_t> x_strides = strided ? std::vector<int64_t>{1, 3, 12} : std::vector<int64_t>{};
    const std::vector<int64_t> y_strides = {0, 1, 0};
    std::vector<uint16_t> y_full(n);  // y as dense values, for the dense run
    for (size_t i = 0; i < n; ++i) y_full[i] = y0[(i / 5) % 4];

    auto run_fused = [&](std::vector<uint16_t>* x_out, std::vector<float>* sum_out) {
      devplug_buffer_handle_t* xb = s.upload(bytes_of(x0));
      devplug_buffer_handle_t* yb = s.upload(bytes_of(strided ? y0 : y_full));
      devplug_buffer_handle_t* zb = s.upload(bytes_of(z0));
      devplug_buffer_handle_t* ob = s.upload(std::vector<unsigned char>(n * 4));
      const devplug_tensor_desc_t x = tensor(xb, DEVPLUG_DTYPE_FLOAT16, shape, x_strides);
      const devplug_tensor_desc_t y =
          tensor(yb, DEVPLUG_DTYPE_FLOAT16, shape, strided ? y_strides : std::vector<int64_t>{});
      const devplug_tensor_desc_t z = tensor(zb, DEVPLUG_DTYPE_FLOAT32, shape);
      const devplug_tensor_desc_t o = tensor(ob, DEVPLUG_DTYPE_FLOAT32, shape);
      const devplug_tensor_desc_t w =
          tensor(s.upload(bytes_of(std::vector<float>{0.75f})), DEVPLUG_DTYPE_FLOAT32, shape, {0, 0, 0});
      const devplug_tensor_desc_t* in[4] = {&x, &y, &z, &w};
      const devplug_tensor_desc_t* out[2] = {&x, &o};  // the first output is x itself
      DEVPLUG_EXPECT_OK(api, ext->fused_program_launch(s.stream(), program, in, 4, out, 2));
      *x_out = values_of<uint16_t>(s.download(xb, n * 2));
      *sum_out = values_of<float>(s.download(ob, n * 4));
    };
    auto run_op_by_op = [&](std::vector<uint16_t>* x_out, std::vector<float>* sum_out) {
      devplug_buffer_handle_t* xb = s.upload(bytes_of(x0));
      devplug_buffer_handle_t* yb = s.upload(bytes_of(strided ? y0 : y_full));
      const devplug_tensor_desc_t x = tensor(xb, DEVPLUG_DTYPE_FLOAT16, shape, x_strides);
      const devplug_tensor_desc_t y =
          tensor(yb, DEVPLUG_DTYPE_FLOAT16, shape, strided ? y_strides : std::vector<int64_t>{});
      const devplug_tensor_desc_t z = tensor(s.upload(bytes_of(z0)), DEVPLUG_DTYPE_FLOAT32, shape);
      const devplug_tensor_desc_t w =
          tensor(s.upload(bytes_of(std::vector<float>{0.75f})), DEVPLUG_DTYPE_FLOAT32, shape, {0, 0, 0});
      std::vector<devplug_tensor_desc_t> values = {x, y, z, w};
      for (const devplug_fused_node_t& node : p.nodes) {
        const int32_t arity = devplug_op_info(node.op)->n_inputs;
        std::vector<devplug_tensor_desc_t> args;
        for (int32_t a = 0; a < arity; ++a) args.push_back(values[node.args[a]]);
        const devplug_tensor_desc_t result = tensor(
            s.upload(std::vector<unsigned char>(n * devplug_dtype_size(node.dtype))), node.dtype, shape);
        const ErrorText error = s.run(node.op, args, result, nullptr);
        ASSERT_EQ(error.code, DEVPLUG_CODE_OK) << devplug_op_info(node.op)->name << ": " << error.message;
        values.push_back(result);
      }
      *x_out = values_of<uint16_t>(s.download(values[pick].buffer, n * 2));
      *sum_out = values_of<float>(s.download(values[sum].buffer, n * 4));
    };
    std::vector<uint16_t> fused_pick, plain_pick;
    std::vector<float> fused_sum, plain_sum;
    run_fused(&fused_pick, &fused_sum);
    run_op_by_op(&plain_pick, &plain_sum);
    // x was written in place through its strides: read it back in row-major order of `shape`.
    std::vector<uint16_t> fused_rows(n);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t k = 0; k < 5; ++k) {
          const int64_t at = strided ? i * 1 + j * 3 + k * 12 : (i * 4 + j) * 5 + k;
          fused_rows[static_cast<size_t>((i * 4 + j) * 5 + k)] = fused_pick[static_cast<size_t>(at)];
        }
    EXPECT_EQ(fused_rows, plain_pick);
    EXPECT_EQ(bytes_of(fused_sum), bytes_of(plain_sum));
    size_t picked = 0;  // both branches of the where were taken
    for (size_t i = 0; i < n; ++i) picked += fused_rows[i] != x0[i];
    EXPECT_GT(picked, 0u);
    EXPECT_LT(picked, n);
  }
  DEVPLUG_EXPECT_OK(api, ext->fused_program_destroy(program));
}

// A reduction tail runs in the program's kernel: over the last dim and over the last two of a
// transposed input, sum, amax and var (the two passes) equal the plugin's own reductions of the
// unfused values (amax bit for bit, sum and var within a few units in the last place: the
// same order, the rounding of the stored intermediate aside), and the elementwise output
// beside them equals the unfused one bit for bit. A tail of integers is declined at create
// (UNIMPLEMENTED: the host runs it op by op); a tail output of the full shape is refused.
TEST(OpenclFused, ATailRunsInTheKernelAsTheUnfusedReductions) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  const devplug_ext_fused_programs_t* ext = fused_programs(api);
  ASSERT_NE(ext, nullptr);
  Session s(api);
  ASSERT_TRUE(s.ok());
  const std::vector<int64_t> shape = {3, 4, 5};
  const std::vector<int64_t> transposed = {1, 3, 12};  // the transpose of a 5 x 4 x 3 tensor
  std::vector<float> x(60);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((static_cast<int>(i * 37 % 61) - 30) / 16.0);

  for (const uint32_t mask : {4u, 6u}) {
    SCOPED_TRACE(mask == 4u ? "last dim" : "last two dims");
    devplug_reduce_attrs_t plain{sizeof plain, mask, 0.0}, corrected{sizeof corrected, mask, 1.0};
    sdk::FusedProgram p;
    p.inputs = {DEVPLUG_DTYPE_FLOAT32};
    const auto e = p.node(DEVPLUG_OP_exp, DEVPLUG_DTYPE_FLOAT32, {0});
    const auto sum = p.node(DEVPLUG_OP_sum, DEVPLUG_DTYPE_FLOAT32, {e}, &plain);
    const auto amax = p.node(DEVPLUG_OP_amax, DEVPLUG_DTYPE_FLOAT32, {0}, &plain);
    const auto var = p.node(DEVPLUG_OP_var, DEVPLUG_DTYPE_FLOAT32, {e}, &corrected);
    p.outputs = {e, sum, amax, var};
    const devplug_fused_program_desc_t desc = p.desc();
    devplug_fused_program_handle_t* program = nullptr;
    DEVPLUG_EXPECT_OK(api, ext->fused_program_create(s.device(), &desc, &program));
    ASSERT_NE(program, nullptr);
    const std::vector<int64_t> reduced =
        mask == 4u ? std::vector<int64_t>{3, 4, 1} : std::vector<int64_t>{3, 1, 1};
    const size_t rows = mask == 4u ? 12 : 3;
    const devplug_tensor_desc_t in = tensor(s.upload(bytes_of(x)), DEVPLUG_DTYPE_FLOAT32, shape, transposed);
    devplug_buffer_handle_t* eb = s.upload(std::vector<unsigned char>(60 * 4));
    std::vector<devplug_buffer_handle_t*> tails;
    std::vector<devplug_tensor_desc_t> outs = {tensor(eb, DEVPLUG_DTYPE_FLOAT32, shape)};
    for (int t = 0; t < 3; ++t) {
      tails.push_back(s.upload(std::vector<unsigned char>(rows * 4)));
      outs.push_back(tensor(tails.back(), DEVPLUG_DTYPE_FLOAT32, reduced));
    }
    const devplug_tensor_desc_t* in_ptrs[1] = {&in};
    const devplug_tensor_desc_t* out_ptrs[4] = {&outs[0], &outs[1], &outs[2], &outs[3]};
    DEVPLUG_EXPECT_OK(api, ext->fused_program_launch(s.stream(), program, in_ptrs, 1, out_ptrs, 4));

    // The same, op by op with the plugin's kernels.
    const devplug_tensor_desc_t plain_e =
        tensor(s.upload(std::vector<unsigned char>(60 * 4)), DEVPLUG_DTYPE_FLOAT32, shape);
    ASSERT_EQ(s.run(DEVPLUG_OP_exp, {in}, plain_e, nullptr).code, DEVPLUG_CODE_OK);
    auto reduce = [&](devplug_op_t op, const devplug_tensor_desc_t& of, const devplug_reduce_attrs_t& attrs) {
      const devplug_tensor_desc_t r =
          tensor(s.upload(std::vector<unsigned char>(rows * 4)), DEVPLUG_DTYPE_FLOAT32, reduced);
      EXPECT_EQ(s.run(op, {of}, r, &attrs).code, DEVPLUG_CODE_OK);
      return values_of<float>(s.download(r.buffer, rows * 4));
    };
    EXPECT_EQ(s.download(eb, 60 * 4), s.download(plain_e.buffer, 60 * 4));
    EXPECT_EQ(values_of<float>(s.download(tails[1], rows * 4)), reduce(DEVPLUG_OP_amax, in, plain));
    const std::vector<float> sums = values_of<float>(s.download(tails[0], rows * 4));
    const std::vector<float> vars = values_of<float>(s.download(tails[2], rows * 4));
    const std::vector<float> plain_sums = reduce(DEVPLUG_OP_sum, plain_e, plain);
    const std::vector<float> plain_vars = reduce(DEVPLUG_OP_var, plain_e, corrected);
    for (size_t r = 0; r < rows; ++r) {
      EXPECT_NEAR(sums[r], plain_sums[r], 4e-7 * std::fabs(plain_sums[r])) << r;
      EXPECT_NEAR(vars[r], plain_vars[r], 4e-7 * std::fabs(plain_vars[r])) << r;
      EXPECT_GT(vars[r], 0.0f) << r;
    }

    // A tail output of the full shape does not fit the program.
    const devplug_tensor_desc_t* wrong[4] = {&outs[0], &outs[0], &outs[2], &outs[3]};
    const ErrorText refused = take(api, ext->fused_program_launch(s.stream(), program, in_ptrs, 1, wrong, 4));
    EXPECT_EQ(refused.code, DEVPLUG_CODE_INVALID_ARGUMENT) << refused.message;
    DEVPLUG_EXPECT_OK(api, ext->fused_program_destroy(program));
  }

  sdk::FusedProgram ints;
  ints.inputs = {DEVPLUG_DTYPE_INT32};
  devplug_reduce_attrs_t last_dim{sizeof last_dim, 1u, 0.0};
  ints.outputs = {ints.node(DEVPLUG_OP_sum, DEVPLUG_DTYPE_INT32,
                            {ints.node(DEVPLUG_OP_neg, DEVPLUG_DTYPE_INT32, {0})}, &last_dim)};
  const devplug_fused_program_desc_t desc = ints.desc();
  devplug_fused_program_handle_t* program = nullptr;
  const ErrorText error = take(api, ext->fused_program_create(s.device(), &desc, &program));
  EXPECT_EQ(error.code, DEVPLUG_CODE_UNIMPLEMENTED) << error.message;
  EXPECT_NE(error.message.find("floating"), std::string::npos) << error.message;
}

// A launch whose tensors need more argument bytes than the device takes runs node by node in
// the plugin; a launch that does not fit the program is INVALID_ARGUMENT.
TEST(OpenclFused, RunsWideLaunchesAndRefusesBadOnes) {
  LoadedPlugin plugin(DEVPLUG_OPENCL_PLUGIN);
  const devplug_plugin_api_t* api = plugin.api();
  REQUIRE_DEVICE(api);
  const devplug_ext_fused_programs_t* ext = fused_programs(api);
  ASSERT_NE(ext, nullptr);
  Session s(api);
  ASSERT_TRUE(s.ok());
  devplug_fused_program_desc_t desc{};
  devplug_fused_program_handle_t* program = nullptr;

  // 32 inputs and 16 outputs, out_j = in_j + in_(j+16): dense, the arguments fit one kernel
  // (48 x 16 bytes and the count); transposed over two dims (48 x 32 bytes) PoCL's 1024 bytes
  // do not, and the plugin runs the nodes one by one. Both give the sums.
  sdk::FusedProgram wide;
  wide.inputs.assign(32, DEVPLUG_DTYPE_FLOAT32);
  for (uint32_t j = 0; j < 16; ++j)
    wide.outputs.push_back(wide.node(DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, {j, j + 16}));
  desc = wide.desc();
  DEVPLUG_EXPECT_OK(api, ext->fused_program_create(s.device(), &desc, &program));
  for (const bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "transposed" : "dense");
    std::vector<devplug_tensor_desc_t> ins, outs;
    std::vector<devplug_buffer_handle_t*> out_buffers;
    for (int i = 0; i < 32; ++i) {
      std::vector<float> v(6);
      for (int k = 0; k < 6; ++k) v[static_cast<size_t>(k)] = static_cast<float>(100 * i + k);
      ins.push_back(tensor(s.upload(bytes_of(v)), DEVPLUG_DTYPE_FLOAT32, {2, 3},
                           transposed ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{}));
    }
    for (int j = 0; j < 16; ++j) {
      out_buffers.push_back(s.upload(std::vector<unsigned char>(24)));
      outs.push_back(tensor(out_buffers.back(), DEVPLUG_DTYPE_FLOAT32, {2, 3},
                            transposed ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{}));
    }
    std::vector<const devplug_tensor_desc_t*> in_ptrs, out_ptrs;
    for (const auto& t : ins) in_ptrs.push_back(&t);
    for (const auto& t : outs) out_ptrs.push_back(&t);
    DEVPLUG_EXPECT_OK(
        api, ext->fused_program_launch(s.stream(), program, in_ptrs.data(), 32, out_ptrs.data(), 16));
    for (int j = 0; j < 16; ++j) {
      const std::vector<float> got = values_of<float>(s.download(out_buffers[static_cast<size_t>(j)], 24));
      for (int k = 0; k < 6; ++k)
        EXPECT_EQ(got[static_cast<size_t>(k)], static_cast<float>(100 * j + k + 100 * (j + 16) + k))
            << j << " " << k;
    }
  }
  DEVPLUG_EXPECT_OK(api, ext->fused_program_destroy(program));

  sdk::FusedProgram neg;
  neg.inputs = {DEVPLUG_DTYPE_FLOAT32};
  neg.outputs = {neg.node(DEVPLUG_OP_neg, DEVPLUG_DTYPE_FLOAT32, {0})};
  desc = neg.desc();
  DEVPLUG_EXPECT_OK(api, ext->fused_program_create(s.device(), &desc, &program));
  devplug_buffer_handle_t* b = s.upload(std::vector<unsigned char>(4 * 8));
  const devplug_tensor_desc_t ok = tensor(b, DEVPLUG_DTYPE_FLOAT32, {8});
  const devplug_tensor_desc_t shorter = tensor(b, DEVPLUG_DTYPE_FLOAT32, {7});
  const devplug_tensor_desc_t wrong_dtype = tensor(b, DEVPLUG_DTYPE_INT32, {8});
  const devplug_tensor_desc_t outside = tensor(b, DEVPLUG_DTYPE_FLOAT32, {8}, {}, 16);
  auto launch = [&](const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out, size_t n_in = 1) {
    const devplug_tensor_desc_t* ins[1] = {&in};
    const devplug_tensor_desc_t* outs[1] = {&out};
    return take(api, ext->fused_program_launch(s.stream(), program, ins, n_in, outs, 1));
  };
  for (const auto& [what, e] :
       {std::pair{"count", launch(ok, ok, 0)}, std::pair{"shape", launch(ok, shorter)},
        std::pair{"dtype", launch(ok, wrong_dtype)}, std::pair{"outside", launch(outside, ok)}}) {
    EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT) << what << ": " << e.message;
    EXPECT_NE(e.message.find("fused_program_launch"), std::string::npos) << e.message;
  }
  EXPECT_EQ(launch(ok, ok).code, DEVPLUG_CODE_OK);
  DEVPLUG_EXPECT_OK(api, ext->fused_program_destroy(program));
}

}  // namespace
}  // namespace devplug::opencl_test
