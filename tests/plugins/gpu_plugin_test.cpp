// SPDX-License-Identifier: Apache-2.0
// The GPU plugins (cuda, hip, gpu_emulated) as a host sees them, on machines with or without
// a GPU: they load, report their devices (zero here for cuda and hip, with the runtime's
// reason), declare exactly the (op, dtype) pairs of ops.def, answer bad input with errors
// instead of crashing, and offer event timestamps (measured where a device exists).
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "devplug/plugin_api.h"
#include "devplug/sdk/kernels.hpp"
#include "opencl_harness.hpp"  // the raw-table plugin host shared by the plugin tests

namespace {

struct PluginCase {
  const char* name;
  const char* path;
  const char* no_device_note;  // the note expected when the machine has no such GPU
};

// The build's path, unless the environment names another (a build copied to a GPU machine).
const char* plugin_path(const char* env, const char* built) {
  const char* p = std::getenv(env);
  return p != nullptr && *p != '\0' ? p : built;
}

std::vector<PluginCase> plugins() {
  std::vector<PluginCase> list;
#ifdef DEVPLUG_CUDA_PLUGIN
  list.push_back({"cuda", plugin_path("DEVPLUG_TEST_CUDA_PLUGIN", DEVPLUG_CUDA_PLUGIN),
                  "cudaGetDeviceCount: cudaErrorInsufficientDriver (35): no NVIDIA driver"});
#endif
#ifdef DEVPLUG_HIP_PLUGIN
  list.push_back({"hip", plugin_path("DEVPLUG_TEST_HIP_PLUGIN", DEVPLUG_HIP_PLUGIN),
                  "hipGetDeviceCount: hipErrorNoDevice (100): no AMD GPU"});
#endif
#ifdef DEVPLUG_GPU_EMULATED_PLUGIN
  list.push_back(
      {"gpu_emulated", plugin_path("DEVPLUG_TEST_GPU_EMULATED_PLUGIN", DEVPLUG_GPU_EMULATED_PLUGIN), ""});
#endif
  return list;
}

// Owns one error and frees it through the plugin's table.
class ErrorHolder {
 public:
  ErrorHolder(const devplug_plugin_api_t* api, devplug_error_t* e) : api_(api), e_(e) {}
  ~ErrorHolder() { api_->error_destroy(e_); }
  devplug_code_t code() const { return e_ ? e_->code : DEVPLUG_CODE_OK; }
  std::string message() const { return e_ ? e_->message : ""; }

 private:
  const devplug_plugin_api_t* api_;
  devplug_error_t* e_;
};

class GpuPluginTest : public ::testing::TestWithParam<PluginCase> {
 protected:
  void SetUp() override {
    library_ = dlopen(GetParam().path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    auto get = reinterpret_cast<devplug_plugin_get_api_fn>(dlsym(library_, DEVPLUG_PLUGIN_ENTRY_SYMBOL));
    ASSERT_NE(get, nullptr);
    api_ = get();
    ASSERT_NE(api_, nullptr);
    devplug_plugin_init_args_t args{sizeof args, DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR};
    ErrorHolder e(api_, api_->plugin_initialize(&args));
    ASSERT_EQ(e.code(), DEVPLUG_CODE_OK) << e.message();
  }
  void TearDown() override {
    if (api_) api_->plugin_shutdown();
    // The runtimes stay mapped: unloading cudart/HIP at exit is what leaks and crashes.
  }
  ErrorHolder check(devplug_error_t* e) { return ErrorHolder(api_, e); }
  int32_t device_count() {
    int32_t n = -1;
    ErrorHolder e = check(api_->device_count(&n, nullptr));
    EXPECT_EQ(e.code(), DEVPLUG_CODE_OK);
    return n;
  }
  // A handle the entry points must reject before touching it (never dereferenced).
  template <typename T>
  static T* bogus() {
    static char storage[64];
    return reinterpret_cast<T*>(storage);
  }

  void* library_ = nullptr;
  const devplug_plugin_api_t* api_ = nullptr;
};

TEST_P(GpuPluginTest, TableIdentifiesThePlugin) {
  EXPECT_GE(api_->struct_size, DEVPLUG_PLUGIN_API_MIN_SIZE);
  EXPECT_EQ(api_->abi_major, static_cast<uint32_t>(DEVPLUG_ABI_MAJOR));
  EXPECT_EQ(api_->opset_version, static_cast<uint32_t>(DEVPLUG_OPSET_VERSION));
  EXPECT_STREQ(api_->plugin_name, GetParam().name);
  EXPECT_TRUE(api_->flags & DEVPLUG_PLUGIN_CACHING_ALLOCATOR);
}

TEST_P(GpuPluginTest, ZeroDevicesComeWithTheRuntimesReason) {
  int32_t count = -1;
  const char* note = "unset";
  ErrorHolder e = check(api_->device_count(&count, &note));
  ASSERT_EQ(e.code(), DEVPLUG_CODE_OK) << e.message();
  ASSERT_GE(count, 0);
  if (count == 0) {
    ASSERT_NE(note, nullptr);
    EXPECT_STREQ(note, GetParam().no_device_note);
  } else {
    EXPECT_EQ(note, nullptr);  // a GPU machine: devices, no note
  }
}

TEST_P(GpuPluginTest, KernelTableClaimsEveryOpAndDtypeOnce) {
  std::map<devplug_op_t, devplug_dtype_mask_t> claimed;
  for (size_t i = 0; i < api_->kernel_count; ++i) {
    const devplug_kernel_t* row = api_->kernels[i];
    ASSERT_NE(row, nullptr);
    EXPECT_GE(row->struct_size, sizeof(devplug_kernel_t));
    EXPECT_NE(row->fn, nullptr);
    EXPECT_EQ(claimed[row->op] & row->dtypes, 0u) << devplug_op_name(row->op) << " claimed twice";
    claimed[row->op] |= row->dtypes;
  }
  // Every prim for every dtype ops.def allows; composites run through the dispatcher's
  // decompositions on the GPU plugins (no native composite kernels there yet).
  for (devplug_op_t op : devplug::sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    const bool composite = info->category == DEVPLUG_CATEGORY_composite;
    EXPECT_EQ(claimed[op], composite ? 0u : info->dtypes) << info->name;
  }
  EXPECT_EQ(claimed.size(), devplug::sdk::all_ops().size());
}

TEST_P(GpuPluginTest, RefusesAMismatchedHostAbi) {
  devplug_plugin_init_args_t args{sizeof args, DEVPLUG_ABI_MAJOR + 1, 0};
  ErrorHolder e = check(api_->plugin_initialize(&args));
  EXPECT_EQ(e.code(), DEVPLUG_CODE_FAILED_PRECONDITION);
  ErrorHolder null_args = check(api_->plugin_initialize(nullptr));
  EXPECT_EQ(null_args.code(), DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST_P(GpuPluginTest, DeviceEntryPointsRejectBadInput) {
  EXPECT_EQ(check(api_->device_count(nullptr, nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  const int32_t n = device_count();
  devplug_device_handle_t* device = bogus<devplug_device_handle_t>();
  ErrorHolder open = check(api_->device_open(n, &device));
  EXPECT_EQ(open.code(), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_NE(open.message().find("device index"), std::string::npos) << open.message();
  EXPECT_EQ(device, nullptr) << "out_device must be cleared on entry";
  EXPECT_EQ(check(api_->device_open(-1, &device)).code(), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(check(api_->device_open(0, nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_device_properties_t props{};
  props.struct_size = sizeof props;
  EXPECT_EQ(check(api_->device_get_properties(-1, &props)).code(), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(check(api_->device_get_properties(0, nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  props.struct_size = 4;
  EXPECT_EQ(check(api_->device_get_properties(0, &props)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(check(api_->device_close(nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST_P(GpuPluginTest, HandleEntryPointsRejectNullHandles) {
  devplug_buffer_handle_t* buffer = bogus<devplug_buffer_handle_t>();
  EXPECT_EQ(check(api_->buffer_allocate(nullptr, 64, &buffer)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_EQ(check(api_->buffer_allocate(bogus<devplug_device_handle_t>(), 64, nullptr)).code(),
            DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(check(api_->buffer_release(nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  uint64_t size = 7;
  EXPECT_EQ(check(api_->buffer_get_size(nullptr, &size)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(size, 0u);
  char host[8] = {};
  EXPECT_EQ(check(api_->buffer_copy_from_host(nullptr, host, bogus<devplug_buffer_handle_t>(), 0, 8)).code(),
            DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(check(api_->buffer_copy_to_host(bogus<devplug_stream_handle_t>(), nullptr, 0, host, 8)).code(),
            DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(check(api_->buffer_copy(nullptr, nullptr, 0, nullptr, 0, 8)).code(),
            DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_stream_handle_t* stream = bogus<devplug_stream_handle_t>();
  EXPECT_EQ(check(api_->stream_create(nullptr, &stream)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(stream, nullptr);
  EXPECT_EQ(check(api_->stream_destroy(nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(check(api_->stream_synchronize(nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_event_handle_t* event = bogus<devplug_event_handle_t>();
  EXPECT_EQ(check(api_->event_create(nullptr, &event)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(event, nullptr);
  EXPECT_EQ(check(api_->event_destroy(nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(check(api_->event_record(nullptr, nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(check(api_->stream_wait_event(nullptr, nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(check(api_->event_synchronize(nullptr)).code(), DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST_P(GpuPluginTest, KernelsRejectBadCallsBeforeTouchingTheDevice) {
  for (size_t i = 0; i < api_->kernel_count; ++i) {
    const devplug_kernel_t* row = api_->kernels[i];
    const char* name = devplug_op_name(row->op);
    ErrorHolder no_stream = check(row->fn(nullptr, nullptr));
    EXPECT_EQ(no_stream.code(), DEVPLUG_CODE_INVALID_ARGUMENT) << name;
    EXPECT_NE(no_stream.message().find("stream"), std::string::npos) << no_stream.message();
    ErrorHolder no_call = check(row->fn(bogus<devplug_stream_handle_t>(), nullptr));
    EXPECT_EQ(no_call.code(), DEVPLUG_CODE_INVALID_ARGUMENT) << name;
    // Right op, wrong arity: refused by the frame check.
    devplug_op_call_t call{};
    call.struct_size = sizeof call;
    call.op = row->op;
    call.n_inputs = 5;
    call.n_outputs = 1;
    ErrorHolder arity = check(row->fn(bogus<devplug_stream_handle_t>(), &call));
    if (devplug_op_info(row->op)->n_inputs >= 0)
      EXPECT_EQ(arity.code(), DEVPLUG_CODE_INVALID_ARGUMENT) << name << ": " << arity.message();
    else
      EXPECT_EQ(arity.code(), DEVPLUG_CODE_INVALID_ARGUMENT) << name << " (null inputs): " << arity.message();
    // Unknown op id.
    call.op = 9999;
    ErrorHolder unknown = check(row->fn(bogus<devplug_stream_handle_t>(), &call));
    EXPECT_EQ(unknown.code(), DEVPLUG_CODE_INVALID_ARGUMENT) << name;
    EXPECT_NE(unknown.message().find("9999"), std::string::npos) << unknown.message();
  }
}

TEST_P(GpuPluginTest, ErrorsCarryCodeAndMessage) {
  devplug_error_t* e = api_->error_create(DEVPLUG_CODE_UNAVAILABLE, 35, "cudaMalloc: x (35)");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, DEVPLUG_CODE_UNAVAILABLE);
  EXPECT_EQ(e->native_code, 35);
  EXPECT_STREQ(e->message, "cudaMalloc: x (35)");
  api_->error_destroy(e);
  api_->error_destroy(nullptr);
}

// The event_timestamps extension: offered with or without a device; on a device (the emulated
// GPU everywhere, cuda and hip on a GPU machine) short and long work timed between events.
TEST_P(GpuPluginTest, EventTimestampsTimeTheDevicesWork) {
  const devplug_ext_event_timestamps_t* ext = devplug::opencl_test::event_timestamps(api_);
  ASSERT_NE(ext, nullptr);
  int64_t ns = 7;
  EXPECT_EQ(check(ext->event_elapsed_ns(nullptr, bogus<devplug_event_handle_t>(), &ns)).code(),
            DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(ns, 0);
  if (device_count() == 0) GTEST_SKIP() << "no " << GetParam().name << " device to time work on";
  devplug::opencl_test::Session s(api_);
  ASSERT_TRUE(s.ok());
  devplug::opencl_test::check_event_timestamps(s);
}

std::string case_name(const ::testing::TestParamInfo<PluginCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Gpu, GpuPluginTest, ::testing::ValuesIn(plugins()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuPluginTest);

// Every plugin built from the one kernel source declares the same kernels, row for row.
TEST(GpuPlugins, AllDeclareTheSameKernels) {
  auto table = [](const char* path) {
    std::map<devplug_op_t, devplug_dtype_mask_t> rows;
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(lib, nullptr) << dlerror();
    if (lib == nullptr) return rows;
    auto get = reinterpret_cast<devplug_plugin_get_api_fn>(dlsym(lib, DEVPLUG_PLUGIN_ENTRY_SYMBOL));
    const devplug_plugin_api_t* api = get();
    for (size_t i = 0; i < api->kernel_count; ++i) rows[api->kernels[i]->op] |= api->kernels[i]->dtypes;
    return rows;
  };
  const std::vector<PluginCase> all = plugins();
  for (size_t i = 1; i < all.size(); ++i)
    EXPECT_EQ(table(all[0].path), table(all[i].path)) << all[0].name << " and " << all[i].name;
}

}  // namespace
