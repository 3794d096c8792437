// SPDX-License-Identifier: Apache-2.0
// Tests of libdevplug's runtime through the host C API: loading and its failure reasons,
// discovery, the registry, tensors and copies over any layout, op calls, dense operands,
// the CPU fallback, elementwise broadcasting and promotion, the caching allocator, streams
// and events, tracing and argument checks. Uses the fixture plugins built by runtime.cmake
// (and the reference plugin for the fallback, when it is built).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "devplug/devplug.h"

namespace fs = std::filesystem;

// This thread's heap allocations through operator new, or -1 where they are not counted
// (sanitizer builds); see fixture_allocation_counter.cpp.
long fixture_thread_allocations();

namespace {

std::string fixture(const std::string& name) {
  return std::string(DEVPLUG_FIXTURE_DIR) + "/libdevplug_fixture_" + name + ".so";
}

// Takes an error: empty string when NULL, else "CODE: message"; destroys it.
std::string take(devplug_error_t* e) {
  if (e == nullptr) return "";
  std::string text = std::string(devplug_code_name(e->code)) + ": " + e->message;
  devplug_error_destroy(e);
  return text;
}

#define ASSERT_OK(call) ASSERT_EQ(take(call), "")
#define EXPECT_OK(call) EXPECT_EQ(take(call), "")

// Expects `e` to carry `code` and a message containing `text`.
void expect_error(devplug_error_t* e, devplug_code_t code, const std::string& text) {
  ASSERT_NE(e, nullptr) << "expected " << devplug_code_name(code) << " containing: " << text;
  EXPECT_EQ(e->code, code) << e->message;
  EXPECT_NE(std::string(e->message).find(text), std::string::npos) << e->message;
  devplug_error_destroy(e);
}

int64_t fixture_counter(const std::string& variant, const char* symbol) {
  void* handle = dlopen(fixture(variant).c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto fn = reinterpret_cast<int64_t (*)()>(dlsym(handle, symbol));
  int64_t value = fn ? fn() : -1;
  dlclose(handle);
  return value;
}

devplug_context_t* make_context(uint32_t flags) {
  devplug_context_options_t options{sizeof(options), flags};
  devplug_context_t* context = nullptr;
  devplug_error_t* e = devplug_context_create(&options, &context);
  EXPECT_EQ(take(e), "");
  return context;
}

class Runtime : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
    ASSERT_NE(context_, nullptr);
    ASSERT_OK(devplug_context_load_plugin(context_, fixture("good").c_str(), &plugin_));
    ASSERT_OK(devplug_context_get_device(context_, 0, &dev0_));
    ASSERT_OK(devplug_context_get_device(context_, 1, &dev1_));
  }
  void TearDown() override { devplug_context_destroy(context_); }

  devplug_tensor_t* tensor(devplug_device_t* device, devplug_dtype_t dtype, std::vector<int64_t> shape) {
    devplug_tensor_t* t = nullptr;
    EXPECT_OK(devplug_tensor_create(device, dtype, static_cast<int32_t>(shape.size()), shape.data(), &t));
    return t;
  }
  devplug_tensor_t* floats(std::vector<int64_t> shape, const std::vector<float>& values,
                           devplug_device_t* device = nullptr) {
    devplug_tensor_t* t = tensor(device ? device : dev0_, DEVPLUG_DTYPE_FLOAT32, shape);
    EXPECT_OK(
        devplug_tensor_copy_from_host(nullptr, t, values.data(), values.size() * 4, DEVPLUG_COPY_BLOCKING));
    return t;
  }
  template <typename T>
  std::vector<T> read(const devplug_tensor_t* t) {
    int64_t n = 0;
    EXPECT_OK(devplug_tensor_numel(t, &n));
    std::vector<T> values(static_cast<size_t>(n));
    EXPECT_OK(devplug_tensor_copy_to_host(nullptr, t, values.data(), values.size() * sizeof(T)));
    return values;
  }

  devplug_context_t* context_ = nullptr;
  devplug_plugin_t* plugin_ = nullptr;
  devplug_device_t* dev0_ = nullptr;
  devplug_device_t* dev1_ = nullptr;
};

// ---- loading -------------------------------------------------------------------------------

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

// ---- tensors and copies ----------------------------------------------------------------------

TEST_F(Runtime, TensorRoundTripAndMetadata) {
  devplug_tensor_t* t = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(read<float>(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  devplug_tensor_desc_t desc{};
  desc.struct_size = sizeof(desc);
  ASSERT_OK(devplug_tensor_describe(t, &desc));
  EXPECT_EQ(desc.rank, 2);
  EXPECT_EQ(desc.strides[0], 3);
  EXPECT_EQ(desc.strides[1], 1);
  EXPECT_EQ(desc.byte_offset, 0u);
  uint64_t bytes = 0;
  ASSERT_OK(devplug_tensor_storage_bytes(t, &bytes));
  EXPECT_EQ(bytes, 24u);
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_tensor_get_device(t, &device));
  EXPECT_EQ(device, dev0_);
  expect_error(devplug_tensor_copy_to_host(nullptr, t, nullptr, 20), DEVPLUG_CODE_INVALID_ARGUMENT,
               "size_bytes");
  devplug_tensor_release(t);
}

TEST_F(Runtime, EmptyAndScalarTensors) {
  devplug_tensor_t* empty = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {0, 5});
  ASSERT_NE(empty, nullptr);
  int64_t n = -1;
  ASSERT_OK(devplug_tensor_numel(empty, &n));
  EXPECT_EQ(n, 0);
  uint64_t bytes = 1;
  ASSERT_OK(devplug_tensor_storage_bytes(empty, &bytes));
  EXPECT_EQ(bytes, 0u);
  EXPECT_OK(devplug_tensor_copy_to_host(nullptr, empty, nullptr, 0));
  EXPECT_OK(devplug_tensor_copy_from_host(nullptr, empty, nullptr, 0, 0));
  devplug_tensor_t* ins[2] = {empty, empty};
  EXPECT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &empty, 1, nullptr));
  devplug_tensor_t* scalar = floats({}, {2.5f});
  ASSERT_OK(devplug_tensor_numel(scalar, &n));
  EXPECT_EQ(n, 1);
  EXPECT_EQ(read<float>(scalar), std::vector<float>{2.5f});
  devplug_tensor_release(empty);
  devplug_tensor_release(scalar);
}

TEST_F(Runtime, ViewsCopyInLogicalOrder) {
  devplug_tensor_t* t = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  devplug_tensor_t* tt = nullptr;
  ASSERT_OK(devplug_tensor_transpose(t, 0, 1, &tt));
  EXPECT_EQ(read<float>(tt), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  devplug_tensor_t* rev = nullptr;
  ASSERT_OK(devplug_tensor_slice(t, 1, -1, -4, -2, &rev));  // columns 2, 0
  EXPECT_EQ(read<float>(rev), (std::vector<float>{3, 1, 6, 4}));
  // Writing through a view changes the base in place.
  const std::vector<float> fresh = {10, 20, 30, 40, 50, 60};
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, tt, fresh.data(), 24, DEVPLUG_COPY_BLOCKING));
  EXPECT_EQ(read<float>(t), (std::vector<float>{10, 30, 50, 20, 40, 60}));
  // An expanded view reads repeated values and refuses writes.
  devplug_tensor_t* row = nullptr;
  ASSERT_OK(devplug_tensor_slice(t, 0, 0, 1, 1, &row));
  devplug_tensor_t* wide = nullptr;
  const int64_t shape[2] = {2, 3};
  ASSERT_OK(devplug_tensor_expand(row, 2, shape, &wide));
  EXPECT_EQ(read<float>(wide), (std::vector<float>{10, 30, 50, 10, 30, 50}));
  expect_error(devplug_tensor_copy_from_host(nullptr, wide, fresh.data(), 24, 0),
               DEVPLUG_CODE_INVALID_ARGUMENT, "overlaps itself");
  // The storage lives as long as any view.
  devplug_tensor_release(t);
  EXPECT_EQ(read<float>(rev), (std::vector<float>{50, 10, 60, 20}));
  for (auto* v : {tt, rev, row, wide}) devplug_tensor_release(v);
}

TEST_F(Runtime, TensorCopyAcrossLayoutsAndDevices) {
  devplug_tensor_t* a = floats({2, 2}, {1, 2, 3, 4});
  devplug_tensor_t* at = nullptr;
  ASSERT_OK(devplug_tensor_transpose(a, 0, 1, &at));
  devplug_tensor_t* b = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {2, 2});
  ASSERT_OK(devplug_tensor_copy(nullptr, b, at));
  EXPECT_EQ(read<float>(b), (std::vector<float>{1, 3, 2, 4}));
  devplug_tensor_t* c = tensor(dev1_, DEVPLUG_DTYPE_FLOAT32, {2, 2});
  ASSERT_OK(devplug_tensor_copy(nullptr, c, at));
  EXPECT_EQ(read<float>(c), (std::vector<float>{1, 3, 2, 4}));
  // In place transpose of a square matrix: overlapping views go through a temporary.
  ASSERT_OK(devplug_tensor_copy(nullptr, a, at));
  EXPECT_EQ(read<float>(a), (std::vector<float>{1, 3, 2, 4}));
  devplug_tensor_t* i32 = tensor(dev0_, DEVPLUG_DTYPE_INT32, {2, 2});
  expect_error(devplug_tensor_copy(nullptr, i32, a), DEVPLUG_CODE_INVALID_ARGUMENT, "dtype");
  for (auto* t : {a, at, b, c, i32}) devplug_tensor_release(t);
}

TEST(RuntimeHostStaging, StridedCopiesWithoutCopyStridedKernel) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK);
  ASSERT_OK(devplug_context_load_plugin(context, fixture("no_copy").c_str(), nullptr));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 0, &device));
  const int64_t shape[2] = {2, 3};
  devplug_tensor_t *t = nullptr, *tt = nullptr, *dense = nullptr, *neg = nullptr;
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, shape, &t));
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, t, v.data(), 24, 0));
  ASSERT_OK(devplug_tensor_transpose(t, 0, 1, &tt));
  std::vector<float> out(6);
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, tt, out.data(), 24));  // gathered on the host
  EXPECT_EQ(out, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  const std::vector<float> w = {10, 20, 30, 40, 50, 60};
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, tt, w.data(), 24, 0));  // scattered on the host
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, t, out.data(), 24));
  EXPECT_EQ(out, (std::vector<float>{10, 30, 50, 20, 40, 60}));
  const int64_t tshape[2] = {3, 2};
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, tshape, &dense));
  ASSERT_OK(devplug_tensor_copy(nullptr, dense, tt));
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, dense, out.data(), 24));
  EXPECT_EQ(out, (std::vector<float>{10, 20, 30, 40, 50, 60}));
  // A dense-only kernel gets its strided input materialized through the host.
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, tshape, &neg));
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_neg, &tt, 1, &neg, 1, nullptr));
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, neg, out.data(), 24));
  EXPECT_EQ(out, (std::vector<float>{-10, -20, -30, -40, -50, -60}));
  for (auto* x : {t, tt, dense, neg}) devplug_tensor_release(x);
  devplug_context_destroy(context);
}

// ---- op calls ---------------------------------------------------------------------------------

TEST_F(Runtime, OpCallRunsTheKernelOnStridedOperands) {
  devplug_tensor_t* a = floats({2, 2}, {1, 2, 3, 4});
  devplug_tensor_t* at = nullptr;
  ASSERT_OK(devplug_tensor_transpose(a, 0, 1, &at));
  devplug_tensor_t* out = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {2, 2});
  devplug_tensor_t* ins[2] = {a, at};
  devplug_stream_t* stream = nullptr;
  ASSERT_OK(devplug_device_default_stream(dev0_, &stream));
  ASSERT_OK(devplug_op_call(stream, DEVPLUG_OP_add, ins, 2, &out, 1, nullptr));
  EXPECT_EQ(read<float>(out), (std::vector<float>{2, 5, 5, 8}));
  // In place: the output is exactly an input.
  devplug_tensor_t* inplace[2] = {a, a};
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, inplace, 2, &a, 1, nullptr));
  EXPECT_EQ(read<float>(a), (std::vector<float>{2, 4, 6, 8}));
  uint64_t fallbacks = 9;
  ASSERT_OK(devplug_context_fallback_count(context_, DEVPLUG_OP_INVALID, &fallbacks));
  EXPECT_EQ(fallbacks, 0u);
  for (auto* t : {a, at, out}) devplug_tensor_release(t);
}

TEST_F(Runtime, OpCallHotPathDoesNotAllocate) {
  if (fixture_thread_allocations() < 0) GTEST_SKIP() << "allocation counting is off in sanitizer builds";
  devplug_tensor_t* a = floats({4}, {1, 2, 3, 4});
  devplug_tensor_t* out = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {4});
  devplug_stream_t* stream = nullptr;
  ASSERT_OK(devplug_device_default_stream(dev0_, &stream));
  devplug_tensor_t* ins[2] = {a, a};
  ASSERT_OK(devplug_op_call(stream, DEVPLUG_OP_add, ins, 2, &out, 1, nullptr));  // warm up
  const long before = fixture_thread_allocations();
  for (int i = 0; i < 100; ++i) {
    devplug_error_t* e = devplug_op_call(stream, DEVPLUG_OP_add, ins, 2, &out, 1, nullptr);
    devplug_error_t* f = devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &out, 1, nullptr);
    devplug_error_t* g = devplug_elementwise(stream, DEVPLUG_OP_add, ins, 2, &out);
    if (e || f || g) {
      take(e), take(f), take(g);
      FAIL() << "op call failed";
    }
  }
  EXPECT_EQ(fixture_thread_allocations() - before, 0);
  // The counter does see libdevplug's allocations: making a tensor allocates host objects.
  const long before_create = fixture_thread_allocations();
  devplug_tensor_release(tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {4}));
  EXPECT_GT(fixture_thread_allocations() - before_create, 0);
  EXPECT_EQ(read<float>(out), (std::vector<float>{2, 4, 6, 8}));
  devplug_tensor_release(a);
  devplug_tensor_release(out);
}

TEST_F(Runtime, OpCallValidates) {
  devplug_tensor_t* a = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {2, 2});
  devplug_tensor_t* b = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* i = tensor(dev0_, DEVPLUG_DTYPE_INT32, {2, 2});
  devplug_tensor_t* other = tensor(dev1_, DEVPLUG_DTYPE_FLOAT32, {2, 2});
  devplug_tensor_t* shape_bad[2] = {a, b};
  EXPECT_EQ(take(devplug_op_call(nullptr, DEVPLUG_OP_add, shape_bad, 2, &a, 1, nullptr))
                .rfind("INVALID_ARGUMENT", 0),
            0u);
  devplug_tensor_t* dtype_bad[2] = {a, i};
  EXPECT_EQ(take(devplug_op_call(nullptr, DEVPLUG_OP_add, dtype_bad, 2, &a, 1, nullptr))
                .rfind("INVALID_ARGUMENT", 0),
            0u);
  devplug_tensor_t* device_bad[2] = {a, other};
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_add, device_bad, 2, &a, 1, nullptr),
               DEVPLUG_CODE_INVALID_ARGUMENT, "inputs[1] is on device 1");
  devplug_tensor_t* null_in[2] = {a, nullptr};
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_add, null_in, 2, &a, 1, nullptr),
               DEVPLUG_CODE_INVALID_ARGUMENT, "inputs[1] is NULL");
  expect_error(devplug_op_call(nullptr, 5000, nullptr, 0, &a, 1, nullptr), DEVPLUG_CODE_INVALID_ARGUMENT, "");
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_add, shape_bad, 2, nullptr, 0, nullptr),
               DEVPLUG_CODE_INVALID_ARGUMENT, "stream is NULL");
  for (auto* t : {a, b, i, other}) devplug_tensor_release(t);
}

TEST_F(Runtime, DenseKernelsGetMaterializedOperands) {
  devplug_tensor_t* a = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  devplug_tensor_t* at = nullptr;
  ASSERT_OK(devplug_tensor_transpose(a, 0, 1, &at));
  devplug_tensor_t* out = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {3, 2});
  devplug_tensor_t* out_t = nullptr;  // a transposed output
  ASSERT_OK(devplug_tensor_transpose(out, 0, 1, &out_t));
  devplug_tensor_t* b = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {3, 2});
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_neg, &at, 1, &b, 1, nullptr));
  EXPECT_EQ(read<float>(b), (std::vector<float>{-1, -4, -2, -5, -3, -6}));
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_neg, &a, 1, &out_t, 1, nullptr));
  EXPECT_EQ(read<float>(out_t), (std::vector<float>{-1, -2, -3, -4, -5, -6}));
  EXPECT_EQ(read<float>(out), (std::vector<float>{-1, -4, -2, -5, -3, -6}));
  for (auto* t : {a, at, out, out_t, b}) devplug_tensor_release(t);
}

TEST_F(Runtime, NoFallbackAndStrictContextsAnswerUnimplemented) {
  for (uint32_t flags : {DEVPLUG_CONTEXT_NO_FALLBACK, DEVPLUG_CONTEXT_STRICT}) {
    devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY | flags);
    ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), nullptr));
    devplug_device_t* device = nullptr;
    ASSERT_OK(devplug_context_get_device(context, 0, &device));
    devplug_tensor_t* a = tensor(device, DEVPLUG_DTYPE_FLOAT32, {3});
    devplug_tensor_t* ins[2] = {a, a};
    expect_error(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
                 "mul (float32) is not implemented by plugin fixture_good");
    expect_error(devplug_op_call(nullptr, DEVPLUG_OP_sub, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
                 flags == DEVPLUG_CONTEXT_STRICT ? "strict" : "no CPU fallback");
    devplug_tensor_release(a);
    devplug_context_destroy(context);
  }
}

TEST(RuntimeStrict, StrictFromTheEnvironment) {
  setenv("DEVPLUG_STRICT", "1", 1);
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  unsetenv("DEVPLUG_STRICT");
  ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), nullptr));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 0, &device));
  const int64_t shape[1] = {2};
  devplug_tensor_t* a = nullptr;
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, shape, &a));
  devplug_tensor_t* ins[2] = {a, a};
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
               "DEVPLUG_STRICT");
  uint64_t count = 1;
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_mul, &count));
  EXPECT_EQ(count, 0u);
  devplug_tensor_release(a);
  devplug_context_destroy(context);
}

#ifdef DEVPLUG_REFERENCE_PLUGIN
TEST_F(Runtime, FallsBackToTheReferenceBackendFromTheInstallFolder) {
  devplug_tensor_t* a = floats({2, 2}, {1, 2, 3, 4});
  devplug_tensor_t* at = nullptr;
  ASSERT_OK(devplug_tensor_transpose(a, 0, 1, &at));
  devplug_tensor_t* out = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {2, 2});
  devplug_tensor_t* ins[2] = {a, at};
  testing::internal::CaptureStderr();
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &out, 1, nullptr));  // no kernel
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &out, 1, nullptr));
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_sub, ins, 2, &out, 1, nullptr));  // kernel says UNIMPLEMENTED
  const std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(read<float>(out), (std::vector<float>{0, -1, 1, 0}));
  const std::string expected =
      "devplug: warning: mul (float32) is not implemented by plugin fixture_good; running it on the CPU "
      "reference backend";
  EXPECT_NE(warnings.find(expected), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find(expected), warnings.rfind(expected)) << "warned twice: " << warnings;
  uint64_t count = 0;
  ASSERT_OK(devplug_context_fallback_count(context_, DEVPLUG_OP_mul, &count));
  EXPECT_EQ(count, 2u);
  ASSERT_OK(devplug_context_fallback_count(context_, DEVPLUG_OP_INVALID, &count));
  EXPECT_EQ(count, 3u);
  size_t plugins = 0;
  ASSERT_OK(devplug_context_plugin_count(context_, &plugins));
  EXPECT_EQ(plugins, 1u);  // the fallback's reference plugin is not listed
  expect_error(devplug_context_fallback_count(context_, 4000, &count), DEVPLUG_CODE_INVALID_ARGUMENT,
               "op 4000");
  for (auto* t : {a, at, out}) devplug_tensor_release(t);
}

TEST(RuntimeFallback, UsesALoadedReferencePlugin) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  ASSERT_OK(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, nullptr));
  devplug_plugin_t* fixture_plugin = nullptr;
  ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), &fixture_plugin));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 1, &device));  // reference has device 0
  devplug_plugin_t* owner = nullptr;
  ASSERT_OK(devplug_device_get_plugin(device, &owner));
  ASSERT_EQ(owner, fixture_plugin);
  devplug_tensor_t* t = nullptr;
  const int64_t shape[1] = {4};
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_INT64, 1, shape, &t));
  devplug_iota_attrs_t iota{sizeof(iota), {3.0, 3}, {2.0, 2}};
  testing::internal::CaptureStderr();
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_iota, nullptr, 0, &t, 1, &iota));
  testing::internal::GetCapturedStderr();
  std::vector<int64_t> values(4);
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, t, values.data(), 32));
  EXPECT_EQ(values, (std::vector<int64_t>{3, 5, 7, 9}));
  // A stream waiting on another plugin's event: the host waits for it.
  devplug_device_t* reference_device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 0, &reference_device));
  devplug_event_t* event = nullptr;
  devplug_stream_t *reference_stream = nullptr, *fixture_stream = nullptr;
  ASSERT_OK(devplug_event_create(reference_device, &event));
  ASSERT_OK(devplug_device_default_stream(reference_device, &reference_stream));
  ASSERT_OK(devplug_device_default_stream(device, &fixture_stream));
  ASSERT_OK(devplug_event_record(event, reference_stream));
  ASSERT_OK(devplug_stream_wait_event(fixture_stream, event));
  ASSERT_OK(devplug_event_destroy(event));
  devplug_tensor_release(t);
  devplug_context_destroy(context);
}
#endif

#ifdef DEVPLUG_REFERENCE_PLUGIN
// Per-device claims (ABI 1.1): fixture_claims declares add for float32 and int32 and
// convert_element_type into float64, but its device 1 runs neither int32 nor float64. The
// dispatcher runs such calls natively on device 0 and falls back on device 1 (refusing them
// in strict mode), and devplug_device_supports says so per device.
TEST(RuntimeDeviceClaims, DevicesThatDifferInDtypesAreDispatchedPerDevice) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  ASSERT_OK(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, nullptr));
  devplug_plugin_t* plugin = nullptr;
  ASSERT_OK(devplug_context_load_plugin(context, fixture("claims").c_str(), &plugin));
  devplug_device_t* dev[2] = {nullptr, nullptr};
  ASSERT_OK(devplug_context_get_device(context, 1, &dev[0]));  // the reference is device 0
  ASSERT_OK(devplug_context_get_device(context, 2, &dev[1]));
  devplug_device_properties_t p{};
  p.struct_size = sizeof p;
  ASSERT_OK(devplug_device_get_properties(dev[1], &p));
  EXPECT_EQ(p.dtypes, DEVPLUG_DTYPES_ALL & ~(DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64) |
                                             DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32)));

  bool yes = false;
  ASSERT_OK(devplug_plugin_supports(plugin, DEVPLUG_OP_add, DEVPLUG_DTYPE_INT32, &yes, nullptr));
  EXPECT_TRUE(yes) << "the plugin declares add int32";
  ASSERT_OK(devplug_device_supports(dev[0], DEVPLUG_OP_add, DEVPLUG_DTYPE_INT32, &yes, nullptr));
  EXPECT_TRUE(yes);
  ASSERT_OK(devplug_device_supports(dev[1], DEVPLUG_OP_add, DEVPLUG_DTYPE_INT32, &yes, nullptr));
  EXPECT_FALSE(yes) << "device 1 does not run int32";
  ASSERT_OK(devplug_device_supports(dev[1], DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, &yes, nullptr));
  EXPECT_TRUE(yes);
  expect_error(devplug_device_supports(dev[1], 4000, DEVPLUG_DTYPE_FLOAT32, &yes, nullptr),
               DEVPLUG_CODE_INVALID_ARGUMENT, "op 4000");

  const int64_t n = 3;
  auto add_int32 = [&](devplug_device_t* device) {
    devplug_tensor_t *a = nullptr, *out = nullptr;
    EXPECT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 1, &n, &a));
    EXPECT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 1, &n, &out));
    const int32_t values[3] = {1, -2, 2147483647};
    EXPECT_OK(devplug_tensor_copy_from_host(nullptr, a, values, sizeof values, DEVPLUG_COPY_BLOCKING));
    devplug_tensor_t* ins[2] = {a, a};
    EXPECT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &out, 1, nullptr));
    int32_t got[3] = {0, 0, 0};
    EXPECT_OK(devplug_tensor_copy_to_host(nullptr, out, got, sizeof got));
    EXPECT_EQ(std::vector<int32_t>(got, got + 3), (std::vector<int32_t>{2, -4, -2}));
    devplug_tensor_release(a);
    devplug_tensor_release(out);
  };
  uint64_t fell_back = 0;
  add_int32(dev[0]);
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_add, &fell_back));
  EXPECT_EQ(fell_back, 0u) << "device 0 runs add int32 itself";
  testing::internal::CaptureStderr();
  add_int32(dev[1]);
  const std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_add, &fell_back));
  EXPECT_EQ(fell_back, 1u) << "device 1 falls back";
  EXPECT_NE(warning.find(
                "add (int32) is not implemented by plugin fixture_claims on device 1 ('fixture device 1'), "
                "which does not run int32"),
            std::string::npos)
      << warning;

  // A call whose dispatch dtype the device runs but whose output it does not (float32 ->
  // float64) falls back too; float32 -> int64 runs natively.
  devplug_tensor_t *f = nullptr, *d = nullptr, *i64 = nullptr;
  ASSERT_OK(devplug_tensor_create(dev[1], DEVPLUG_DTYPE_FLOAT32, 1, &n, &f));
  ASSERT_OK(devplug_tensor_create(dev[1], DEVPLUG_DTYPE_FLOAT64, 1, &n, &d));
  ASSERT_OK(devplug_tensor_create(dev[1], DEVPLUG_DTYPE_INT64, 1, &n, &i64));
  const float values[3] = {1.5f, -2.0f, 3.25f};
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, f, values, sizeof values, DEVPLUG_COPY_BLOCKING));
  testing::internal::CaptureStderr();
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_convert_element_type, &f, 1, &d, 1, nullptr));
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_convert_element_type, &f, 1, &i64, 1, nullptr));
  testing::internal::GetCapturedStderr();
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_convert_element_type, &fell_back));
  EXPECT_EQ(fell_back, 1u) << "only the float64 output falls back";
  double doubles[3] = {0, 0, 0};
  int64_t longs[3] = {0, 0, 0};
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, d, doubles, sizeof doubles));
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, i64, longs, sizeof longs));
  EXPECT_EQ(std::vector<double>(doubles, doubles + 3), (std::vector<double>{1.5, -2.0, 3.25}));
  EXPECT_EQ(std::vector<int64_t>(longs, longs + 3), (std::vector<int64_t>{1, -2, 3}));
  for (auto* t : {f, d, i64}) devplug_tensor_release(t);
  devplug_context_destroy(context);

  // Strict: the device's unclaimed dtype is refused with the reason, the claimed one runs.
  devplug_context_t* strict = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT);
  ASSERT_OK(devplug_context_load_plugin(strict, fixture("claims").c_str(), nullptr));
  devplug_device_t* small = nullptr;
  ASSERT_OK(devplug_context_get_device(strict, 1, &small));
  devplug_tensor_t* a = nullptr;
  ASSERT_OK(devplug_tensor_create(small, DEVPLUG_DTYPE_INT32, 1, &n, &a));
  devplug_tensor_t* ins[2] = {a, a};
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
               "which does not run int32 (strict mode");
  devplug_tensor_release(a);
  devplug_context_destroy(strict);
}
#endif

#ifdef DEVPLUG_REFERENCE_PLUGIN
// The claims hook (ABI 1.2): fixture_claims' device 0 declines an add of 7777 elements.
// Such a call falls back (counted, and right), a small one runs on the device, the same call
// again is declined again (the hot path of a repeated call asks the hook too), and in strict
// mode the declined call is refused.
TEST(RuntimeDeviceClaims, CallsTheClaimsHookDeclinesFallBack) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  ASSERT_OK(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, nullptr));
  ASSERT_OK(devplug_context_load_plugin(context, fixture("claims").c_str(), nullptr));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 1, &device));  // fixture device 0
  auto add = [&](int64_t n) {
    devplug_tensor_t *a = nullptr, *out = nullptr;
    EXPECT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &a));
    EXPECT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &out));
    std::vector<float> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>(i) - 2.5f;
    EXPECT_OK(
        devplug_tensor_copy_from_host(nullptr, a, values.data(), values.size() * 4, DEVPLUG_COPY_BLOCKING));
    devplug_tensor_t* ins[2] = {a, a};
    EXPECT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &out, 1, nullptr));
    std::vector<float> got(values.size());
    EXPECT_OK(devplug_tensor_copy_to_host(nullptr, out, got.data(), got.size() * 4));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], 2 * values[i]) << i;
    devplug_tensor_release(a);
    devplug_tensor_release(out);
  };
  uint64_t fell_back = 0;
  add(4);
  add(7776);
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_add, &fell_back));
  EXPECT_EQ(fell_back, 0u) << "4 and 7776 elements run on the device";
  testing::internal::CaptureStderr();
  add(7777);
  add(7777);
  const std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_add, &fell_back));
  EXPECT_EQ(fell_back, 2u) << "7777 elements are declined, each time";
  EXPECT_NE(warning.find("its claims hook declined the call"), std::string::npos) << warning;
  devplug_context_destroy(context);

  devplug_context_t* strict = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT);
  ASSERT_OK(devplug_context_load_plugin(strict, fixture("claims").c_str(), nullptr));
  ASSERT_OK(devplug_context_get_device(strict, 0, &device));
  const int64_t n = 7777;
  devplug_tensor_t* a = nullptr;
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &a));
  devplug_tensor_t* ins[2] = {a, a};
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
               "its claims hook declined the call");
  devplug_tensor_release(a);
  devplug_context_destroy(strict);
}
#endif

#ifdef DEVPLUG_REFERENCE_PLUGIN
// On the reference device: where with a broadcast bool condition and promoted branches, and
// a float-only op on integers (computed in float32, as PyTorch).
TEST(RuntimeElementwiseReference, WhereBroadcastsAndPromotesBranchesOnly) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  ASSERT_OK(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, nullptr));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 0, &device));
  const int64_t col[2] = {3, 1}, row[1] = {4};
  devplug_tensor_t *cond = nullptr, *a = nullptr, *b = nullptr;
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_BOOL, 2, col, &cond));
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 1, row, &a));
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 0, nullptr, &b));
  const bool c[3] = {true, false, true};
  const int32_t av[4] = {1, 2, 3, 4};
  const float bv = -0.5f;
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, cond, c, 3, DEVPLUG_COPY_BLOCKING));
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, a, av, 16, DEVPLUG_COPY_BLOCKING));
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, b, &bv, 4, DEVPLUG_COPY_BLOCKING));
  devplug_tensor_t* ins[3] = {cond, a, b};
  devplug_tensor_t* result = nullptr;
  ASSERT_OK(devplug_elementwise(nullptr, DEVPLUG_OP_where, ins, 3, &result));
  devplug_tensor_desc_t desc{};
  desc.struct_size = sizeof(desc);
  ASSERT_OK(devplug_tensor_describe(result, &desc));
  EXPECT_EQ(desc.dtype, DEVPLUG_DTYPE_FLOAT32);  // int32 with dims + 0-d float32: float category wins
  ASSERT_EQ(desc.rank, 2);
  std::vector<float> values(12);
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, result, values.data(), 48));
  EXPECT_EQ(values, (std::vector<float>{1, 2, 3, 4, -0.5f, -0.5f, -0.5f, -0.5f, 1, 2, 3, 4}));
  devplug_tensor_t* root = nullptr;
  ASSERT_OK(devplug_elementwise(nullptr, DEVPLUG_OP_sqrt, &a, 1, &root));
  ASSERT_OK(devplug_tensor_describe(root, &desc));
  EXPECT_EQ(desc.dtype, DEVPLUG_DTYPE_FLOAT32);
  std::vector<float> roots(4);
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, root, roots.data(), 16));
  EXPECT_FLOAT_EQ(roots[3], 2.0f);
  devplug_tensor_t* eq = nullptr;
  devplug_tensor_t* pair[2] = {a, b};
  ASSERT_OK(devplug_elementwise(nullptr, DEVPLUG_OP_gt, pair, 2, &eq));
  ASSERT_OK(devplug_tensor_describe(eq, &desc));
  EXPECT_EQ(desc.dtype, DEVPLUG_DTYPE_BOOL);
  expect_error(devplug_elementwise(nullptr, DEVPLUG_OP_sum, &a, 1, &eq), DEVPLUG_CODE_INVALID_ARGUMENT,
               "not elementwise");
  for (auto* t : {cond, a, b, result, root, eq}) devplug_tensor_release(t);
  devplug_context_destroy(context);
}
#endif

// ---- elementwise ----------------------------------------------------------------------------

TEST_F(Runtime, ElementwiseBroadcastsAndAllocates) {
  devplug_tensor_t* col = floats({3, 1}, {1, 2, 3});
  devplug_tensor_t* row = floats({4}, {10, 20, 30, 40});
  devplug_tensor_t* ins[2] = {col, row};
  devplug_tensor_t* result = nullptr;
  ASSERT_OK(devplug_elementwise(nullptr, DEVPLUG_OP_add, ins, 2, &result));
  ASSERT_NE(result, nullptr);
  devplug_tensor_desc_t desc{};
  desc.struct_size = sizeof(desc);
  ASSERT_OK(devplug_tensor_describe(result, &desc));
  EXPECT_EQ(desc.rank, 2);
  EXPECT_EQ(desc.shape[0], 3);
  EXPECT_EQ(desc.shape[1], 4);
  EXPECT_EQ(read<float>(result), (std::vector<float>{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
  // Shapes that do not broadcast.
  devplug_tensor_t* three = floats({3}, {1, 2, 3});
  devplug_tensor_t* bad[2] = {row, three};
  devplug_tensor_t* none = nullptr;
  expect_error(devplug_elementwise(nullptr, DEVPLUG_OP_add, bad, 2, &none), DEVPLUG_CODE_INVALID_ARGUMENT,
               "");
  EXPECT_EQ(none, nullptr);
  devplug_tensor_t* elsewhere = floats({4}, {1, 2, 3, 4}, dev1_);
  devplug_tensor_t* split[2] = {row, elsewhere};
  expect_error(devplug_elementwise(nullptr, DEVPLUG_OP_add, split, 2, &none), DEVPLUG_CODE_INVALID_ARGUMENT,
               "inputs[1] is not on the stream's device");
  devplug_tensor_release(elsewhere);
  for (auto* t : {col, row, result, three}) devplug_tensor_release(t);
}

TEST_F(Runtime, ElementwisePromotesAndCastsIntoTheGivenResult) {
  devplug_tensor_t* f = floats({3}, {0.5f, 1.5f, 2.5f});
  devplug_tensor_t* i = tensor(dev0_, DEVPLUG_DTYPE_INT32, {3});
  const std::vector<int32_t> ints = {1, 2, 3};
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, i, ints.data(), 12, DEVPLUG_COPY_BLOCKING));
  devplug_tensor_t* ins[2] = {i, f};
  devplug_tensor_t* result = nullptr;
  ASSERT_OK(devplug_elementwise(nullptr, DEVPLUG_OP_add, ins, 2, &result));
  devplug_tensor_desc_t desc{};
  desc.struct_size = sizeof(desc);
  ASSERT_OK(devplug_tensor_describe(result, &desc));
  EXPECT_EQ(desc.dtype, DEVPLUG_DTYPE_FLOAT32);
  EXPECT_EQ(read<float>(result), (std::vector<float>{1.5f, 3.5f, 5.5f}));
  devplug_tensor_t* f64 = tensor(dev0_, DEVPLUG_DTYPE_FLOAT64, {3});
  ASSERT_OK(devplug_elementwise(nullptr, DEVPLUG_OP_add, ins, 2, &f64));
  EXPECT_EQ(read<double>(f64), (std::vector<double>{1.5, 3.5, 5.5}));
  devplug_tensor_t* i32 = tensor(dev0_, DEVPLUG_DTYPE_INT32, {3});
  expect_error(devplug_elementwise(nullptr, DEVPLUG_OP_add, ins, 2, &i32), DEVPLUG_CODE_INVALID_ARGUMENT,
               "cannot hold");
  // A 0-d float64 tensor does not lift float32 tensors with dims.
  devplug_tensor_t* scalar = tensor(dev0_, DEVPLUG_DTYPE_FLOAT64, {});
  const double two = 2;
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, scalar, &two, 8, DEVPLUG_COPY_BLOCKING));
  devplug_tensor_t* mixed[2] = {f, scalar};
  devplug_tensor_t* sum = nullptr;
  ASSERT_OK(devplug_elementwise(nullptr, DEVPLUG_OP_add, mixed, 2, &sum));
  ASSERT_OK(devplug_tensor_describe(sum, &desc));
  EXPECT_EQ(desc.dtype, DEVPLUG_DTYPE_FLOAT32);
  EXPECT_EQ(read<float>(sum), (std::vector<float>{2.5f, 3.5f, 4.5f}));
  for (auto* t : {f, i, result, f64, i32, scalar, sum}) devplug_tensor_release(t);
}

TEST(RuntimePromotion, PublicHelpers) {
  devplug_dtype_t d = -1;
  ASSERT_OK(devplug_promote_types(DEVPLUG_DTYPE_UINT8, DEVPLUG_DTYPE_INT8, &d));
  EXPECT_EQ(d, DEVPLUG_DTYPE_INT16);
  expect_error(devplug_promote_types(77, DEVPLUG_DTYPE_INT8, &d), DEVPLUG_CODE_INVALID_ARGUMENT,
               "a is an unknown dtype");
  const int64_t a[2] = {3, 1}, b[1] = {4};
  int64_t out[DEVPLUG_MAX_RANK] = {};
  int32_t rank = 0;
  ASSERT_OK(devplug_broadcast_shapes(2, a, 1, b, &rank, out));
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 4);
}

// ---- allocator, streams, tracing, threads ------------------------------------------------------

TEST_F(Runtime, CachingAllocatorReusesBuffersAndFreesThemAtTheEnd) {
  devplug_tensor_release(tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {100}));
  const int64_t allocations = fixture_counter("good", "fixture_allocations");
  for (int k = 0; k < 10; ++k) devplug_tensor_release(tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {100 + k}));
  EXPECT_EQ(fixture_counter("good", "fixture_allocations"),
            allocations);  // 400..436 bytes: one 512-byte class
  devplug_tensor_release(tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {1000}));
  EXPECT_EQ(fixture_counter("good", "fixture_allocations"), allocations + 1);
  tensor(dev1_, DEVPLUG_DTYPE_FLOAT32, {7});  // forgotten by the host: freed with the context
  EXPECT_GT(fixture_counter("good", "fixture_live_buffers"), 0);
  devplug_context_t* other = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);  // keeps the library loaded
  ASSERT_OK(devplug_context_load_plugin(other, fixture("good").c_str(), nullptr));
  devplug_context_destroy(context_);
  context_ = nullptr;
  EXPECT_EQ(fixture_counter("good", "fixture_live_buffers"), 0);
  devplug_context_destroy(other);
}

TEST_F(Runtime, StreamsAndEvents) {
  devplug_stream_t* s0 = nullptr;
  devplug_stream_t* s1 = nullptr;
  ASSERT_OK(devplug_stream_create(dev0_, &s0));
  ASSERT_OK(devplug_stream_create(dev1_, &s1));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_stream_get_device(s1, &device));
  EXPECT_EQ(device, dev1_);
  devplug_event_t* e = nullptr;
  ASSERT_OK(devplug_event_create(dev0_, &e));
  expect_error(devplug_event_record(e, s1), DEVPLUG_CODE_INVALID_ARGUMENT, "different devices");
  ASSERT_OK(devplug_event_record(e, s0));
  ASSERT_OK(devplug_stream_wait_event(s1, e));
  ASSERT_OK(devplug_event_synchronize(e));
  ASSERT_OK(devplug_stream_synchronize(s1));
  ASSERT_OK(devplug_device_synchronize(dev0_));
  devplug_stream_t* def = nullptr;
  ASSERT_OK(devplug_device_default_stream(dev0_, &def));
  expect_error(devplug_stream_destroy(def), DEVPLUG_CODE_INVALID_ARGUMENT, "default stream");
  ASSERT_OK(devplug_event_destroy(e));
  ASSERT_OK(devplug_stream_destroy(s0));
  EXPECT_OK(devplug_stream_destroy(nullptr));
  // s1 is left for the context to destroy.
}

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

TEST_F(Runtime, ConcurrentOpCallsOnTheirOwnStreams) {
  std::vector<std::thread> threads;
  std::vector<std::string> problems(4);
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      devplug_device_t* device = k % 2 ? dev1_ : dev0_;
      devplug_stream_t* stream = nullptr;
      problems[k] = take(devplug_stream_create(device, &stream));
      const int64_t shape[1] = {16};
      for (int i = 0; i < 200 && problems[k].empty(); ++i) {
        devplug_tensor_t* t = nullptr;
        problems[k] = take(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 1, shape, &t));
        std::vector<int32_t> v(16, i);
        if (problems[k].empty())
          problems[k] = take(devplug_tensor_copy_from_host(stream, t, v.data(), 64, 0));
        devplug_tensor_t* ins[2] = {t, t};
        if (problems[k].empty())
          problems[k] = take(devplug_op_call(stream, DEVPLUG_OP_add, ins, 2, &t, 1, nullptr));
        if (problems[k].empty()) problems[k] = take(devplug_tensor_copy_to_host(stream, t, v.data(), 64));
        if (problems[k].empty() && v[15] != 2 * i) problems[k] = "wrong value";
        devplug_tensor_release(t);
      }
      if (stream) devplug_stream_destroy(stream);
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& p : problems) EXPECT_EQ(p, "");
}

TEST(RuntimeArguments, NullAndBadHandlesAreInvalidArguments) {
  expect_error(devplug_context_create(nullptr, nullptr), DEVPLUG_CODE_INVALID_ARGUMENT,
               "out_context is NULL");
  devplug_context_options_t bad{4, 0};
  devplug_context_t* context = nullptr;
  expect_error(devplug_context_create(&bad, &context), DEVPLUG_CODE_INVALID_ARGUMENT, "struct_size");
  size_t n = 0;
  expect_error(devplug_context_plugin_count(nullptr, &n), DEVPLUG_CODE_INVALID_ARGUMENT, "context is NULL");
  int garbage[16] = {};
  expect_error(devplug_context_plugin_count(reinterpret_cast<devplug_context_t*>(garbage), &n),
               DEVPLUG_CODE_INVALID_ARGUMENT, "not a live context");
  const int64_t shape[1] = {-3};
  devplug_tensor_t* t = nullptr;
  expect_error(devplug_tensor_create(nullptr, DEVPLUG_DTYPE_FLOAT32, 1, shape, &t),
               DEVPLUG_CODE_INVALID_ARGUMENT, "device is NULL");
  expect_error(devplug_stream_synchronize(nullptr), DEVPLUG_CODE_INVALID_ARGUMENT, "stream is NULL");
  expect_error(devplug_tensor_numel(nullptr, nullptr), DEVPLUG_CODE_INVALID_ARGUMENT, "out_numel is NULL");
  devplug_tensor_t* result = nullptr;
  expect_error(devplug_elementwise(nullptr, DEVPLUG_OP_add, nullptr, 2, &result),
               DEVPLUG_CODE_INVALID_ARGUMENT, "inputs is NULL");
  devplug_tensor_release(nullptr);
  devplug_context_destroy(nullptr);
  devplug_error_destroy(nullptr);
  uint32_t major = 0, minor = 9;
  devplug_abi_version(&major, &minor);
  EXPECT_EQ(major, 1u);
  EXPECT_EQ(minor, 2u);
  EXPECT_STREQ(devplug_version_string(), "0.1.0");
}

TEST_F(Runtime, TensorArgumentsAreChecked) {
  const int64_t negative[1] = {-3};
  devplug_tensor_t* t = reinterpret_cast<devplug_tensor_t*>(1);
  expect_error(devplug_tensor_create(dev0_, DEVPLUG_DTYPE_FLOAT32, 1, negative, &t),
               DEVPLUG_CODE_INVALID_ARGUMENT, "shape");
  EXPECT_EQ(t, nullptr);
  const int64_t ok[1] = {3};
  expect_error(devplug_tensor_create(dev0_, 42, 1, ok, &t), DEVPLUG_CODE_INVALID_ARGUMENT, "");
  expect_error(devplug_tensor_create(dev0_, DEVPLUG_DTYPE_FLOAT32, 9, ok, &t), DEVPLUG_CODE_INVALID_ARGUMENT,
               "");
  const int64_t huge[2] = {int64_t{1} << 40, int64_t{1} << 40};
  expect_error(devplug_tensor_create(dev0_, DEVPLUG_DTYPE_FLOAT32, 2, huge, &t),
               DEVPLUG_CODE_INVALID_ARGUMENT, "");
  devplug_tensor_t* base = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {4});
  const int64_t shape[1] = {4}, strides[1] = {2};
  devplug_tensor_t* view = nullptr;
  expect_error(devplug_tensor_as_strided(base, 1, shape, strides, 0, &view), DEVPLUG_CODE_INVALID_ARGUMENT,
               "");
  expect_error(devplug_tensor_copy_from_host(nullptr, base, nullptr, 16, 0), DEVPLUG_CODE_INVALID_ARGUMENT,
               "src is NULL");
  expect_error(devplug_tensor_copy_from_host(nullptr, base, negative, 16, 77), DEVPLUG_CODE_INVALID_ARGUMENT,
               "flags");
  devplug_tensor_release(base);
}

}  // namespace
