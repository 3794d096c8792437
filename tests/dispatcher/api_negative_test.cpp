// SPDX-License-Identifier: Apache-2.0
// Negative tests of every devplug.h entry point: NULL handles and out-pointers, bad sizes,
// bad dtypes, bad shapes, strides outside the storage, aliasing and bad attributes must all
// be answered with an error naming the argument, never a crash. Every check asserts the
// exact code of the function's "Errors:" line in devplug.h (Fails and Invalid destroy the
// error), and every row of those lines is exercised here, except UNIMPLEMENTED in strict
// mode, which api_fallback_test.cpp covers with its fixture plugin. Handles of the wrong
// kind stand in for stale ones: using a destroyed handle is undefined behaviour (and an
// ASan report), so it is not tested.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "api_test_util.hpp"

namespace devplug::test {
namespace {

using ApiNegative = ReferenceContext;

// A second context with the reference plugin: its device is another host device than the
// fixture's, even for the same plugin.
struct OtherContext {
  OtherContext() {
    EXPECT_TRUE(OpenPlugin(DEVPLUG_REFERENCE_PLUGIN_PATH, &context, &device));
    EXPECT_TRUE(Ok(devplug_device_default_stream(device, &stream)));
  }
  ~OtherContext() { devplug_context_destroy(context); }

  devplug_context_t* context = nullptr;
  devplug_device_t* device = nullptr;
  devplug_stream_t* stream = nullptr;
};

// ---- context -----------------------------------------------------------------------------

TEST(ApiNegativeContext, CreateNeedsAnOutPointer) {
  EXPECT_TRUE(Invalid(devplug_context_create(nullptr, nullptr), "out_context"));
}

TEST(ApiNegativeContext, CreateRefusesSmallStructAndUnknownFlags) {
  devplug_context_t* context = poison<devplug_context_t>();
  devplug_context_options_t small{0, DEVPLUG_CONTEXT_NO_DISCOVERY};
  EXPECT_TRUE(Invalid(devplug_context_create(&small, &context), "struct_size"));
  EXPECT_EQ(context, nullptr);
  devplug_context_options_t unknown{sizeof(unknown), DEVPLUG_CONTEXT_NO_DISCOVERY | 0x100u};
  EXPECT_TRUE(Invalid(devplug_context_create(&unknown, &context), "flags"));
  EXPECT_EQ(context, nullptr);
}

TEST_F(ApiNegative, LoadPluginNullArguments) {
  EXPECT_TRUE(
      Invalid(devplug_context_load_plugin(nullptr, DEVPLUG_REFERENCE_PLUGIN_PATH, nullptr), "context"));
  auto* not_a_context = reinterpret_cast<devplug_context_t*>(device_);
  devplug_plugin_t* plugin = poison<devplug_plugin_t>();
  EXPECT_TRUE(Invalid(devplug_context_load_plugin(not_a_context, DEVPLUG_REFERENCE_PLUGIN_PATH, &plugin),
                      "not a live context"));
  EXPECT_EQ(plugin, nullptr);
  EXPECT_TRUE(Invalid(devplug_context_load_plugin(context_, nullptr, nullptr), "path"));
  EXPECT_TRUE(Invalid(devplug_context_load_plugin(context_, "", nullptr), "path is empty"));
}

TEST_F(ApiNegative, LoadMissingFileIsReportedAndRecorded) {
  const std::string path = "/nonexistent/libdevplug_nothing.so";
  devplug_plugin_t* plugin = poison<devplug_plugin_t>();
  EXPECT_TRUE(
      Fails(devplug_context_load_plugin(context_, path.c_str(), &plugin), DEVPLUG_CODE_NOT_FOUND, path));
  EXPECT_EQ(plugin, nullptr);
  // A path that failed is refused again, the same way, and not recorded twice.
  EXPECT_TRUE(
      Fails(devplug_context_load_plugin(context_, path.c_str(), nullptr), DEVPLUG_CODE_NOT_FOUND, path));
  size_t failures = 0;
  ASSERT_TRUE(Ok(devplug_context_failure_count(context_, &failures)));
  ASSERT_EQ(failures, 1u);
  const char* failed_path = nullptr;
  const char* reason = nullptr;
  ASSERT_TRUE(Ok(devplug_context_get_failure(context_, 0, &failed_path, &reason)));
  EXPECT_EQ(std::string(failed_path), path);
  EXPECT_GT(std::strlen(reason), 0u);
  size_t plugins = 0;
  ASSERT_TRUE(Ok(devplug_context_plugin_count(context_, &plugins)));
  EXPECT_EQ(plugins, 1u);  // only the reference plugin
}

TEST_F(ApiNegative, LoadAFileThatIsNotALibrary) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "devplug_api_test_not_a_plugin.so").string();
  { std::ofstream(path) << "not an ELF file\n"; }
  // The file exists, so the refusal is FAILED_PRECONDITION, not NOT_FOUND.
  EXPECT_TRUE(Fails(devplug_context_load_plugin(context_, path.c_str(), nullptr),
                    DEVPLUG_CODE_FAILED_PRECONDITION, path));
  std::remove(path.c_str());
}

TEST_F(ApiNegative, RegistryQueriesCheckHandlesAndIndices) {
  size_t count = 0;
  devplug_plugin_t* plugin = poison<devplug_plugin_t>();
  devplug_device_t* device = poison<devplug_device_t>();
  EXPECT_TRUE(Invalid(devplug_context_plugin_count(nullptr, &count), "context"));
  EXPECT_TRUE(Invalid(devplug_context_plugin_count(context_, nullptr), "out_count"));
  EXPECT_TRUE(
      Invalid(devplug_context_get_plugin(context_, 1, &plugin), "index 1 is out of range (1 plugins)"));
  EXPECT_EQ(plugin, nullptr);
  EXPECT_TRUE(Invalid(devplug_context_get_plugin(nullptr, 0, &plugin), "context"));
  EXPECT_TRUE(Invalid(devplug_context_get_plugin(context_, 0, nullptr), "out_plugin"));
  EXPECT_TRUE(Fails(devplug_context_find_plugin(context_, "no_such_plugin", &plugin), DEVPLUG_CODE_NOT_FOUND,
                    "no_such_plugin"));
  EXPECT_TRUE(Invalid(devplug_context_find_plugin(context_, nullptr, &plugin), "name"));
  EXPECT_TRUE(Invalid(devplug_context_find_plugin(context_, "reference", nullptr), "out_plugin"));
  plugin = poison<devplug_plugin_t>();
  EXPECT_TRUE(Invalid(devplug_context_find_plugin(nullptr, "reference", &plugin), "context"));
  EXPECT_EQ(plugin, nullptr);
  EXPECT_TRUE(Invalid(devplug_context_device_count(nullptr, &count), "context"));
  EXPECT_TRUE(Invalid(devplug_context_device_count(context_, nullptr), "out_count"));
  EXPECT_TRUE(Invalid(devplug_context_get_device(context_, 1000, &device), "index 1000 is out of range"));
  EXPECT_EQ(device, nullptr);
  EXPECT_TRUE(Invalid(devplug_context_failure_count(nullptr, &count), "context"));
  const char* path = "x";
  const char* reason = "x";
  EXPECT_TRUE(Invalid(devplug_context_get_failure(context_, 0, &path, &reason),
                      "index 0 is out of range (0 failures)"));
  EXPECT_EQ(path, nullptr);
  EXPECT_EQ(reason, nullptr);
  uint64_t fallbacks = 0;
  EXPECT_TRUE(Invalid(devplug_context_fallback_count(nullptr, DEVPLUG_OP_INVALID, &fallbacks), "context"));
  EXPECT_TRUE(Invalid(devplug_context_fallback_count(context_, DEVPLUG_OP_add, nullptr), "out_count"));
  EXPECT_TRUE(Invalid(devplug_context_fallback_count(context_, 9999, &fallbacks), "9999"));
  EXPECT_TRUE(Invalid(devplug_context_fallback_count(context_, -1, &fallbacks), "op -1"));
  EXPECT_TRUE(Invalid(devplug_context_fallback_count(context_, DEVPLUG_OP_END_, &fallbacks), "not an op"));
}

TEST_F(ApiNegative, AHandleOfTheWrongKindIsRefused) {
  // A stream passed where a device belongs: the handle check catches it.
  auto* not_a_device = reinterpret_cast<devplug_device_t*>(stream_);
  devplug_stream_t* stream = nullptr;
  EXPECT_TRUE(Invalid(devplug_stream_create(not_a_device, &stream), "device"));
  EXPECT_TRUE(Invalid(devplug_device_synchronize(not_a_device), "not a live device"));
  auto* not_a_plugin = reinterpret_cast<devplug_plugin_t*>(device_);
  devplug_plugin_info_t info{};
  info.struct_size = sizeof(info);
  EXPECT_TRUE(Invalid(devplug_plugin_get_info(not_a_plugin, &info), "not a live plugin"));
  auto* not_a_context = reinterpret_cast<devplug_context_t*>(plugin_);
  size_t count = 0;
  EXPECT_TRUE(Invalid(devplug_context_device_count(not_a_context, &count), "not a live context"));
  auto* not_a_stream = reinterpret_cast<devplug_stream_t*>(device_);
  EXPECT_TRUE(Invalid(devplug_stream_synchronize(not_a_stream), "not a live stream"));
  auto* not_an_event = reinterpret_cast<devplug_event_t*>(stream_);
  EXPECT_TRUE(Invalid(devplug_event_synchronize(not_an_event), "not a live event"));
  auto* not_a_tensor = reinterpret_cast<devplug_tensor_t*>(stream_);
  int64_t n = 0;
  EXPECT_TRUE(Invalid(devplug_tensor_numel(not_a_tensor, &n), "not a live tensor"));
}

TEST_F(ApiNegative, VoidCallsIgnoreNullAndForeignHandles) {
  // Nothing to report, nothing to crash: NULL and handles of the wrong kind are ignored.
  devplug_error_destroy(nullptr);
  devplug_context_destroy(nullptr);
  devplug_context_destroy(reinterpret_cast<devplug_context_t*>(stream_));
  devplug_tensor_release(nullptr);
  devplug_tensor_release(reinterpret_cast<devplug_tensor_t*>(stream_));
  EXPECT_TRUE(Ok(devplug_stream_destroy(nullptr)));
  EXPECT_TRUE(Ok(devplug_event_destroy(nullptr)));
  EXPECT_NE(devplug_version_string(), nullptr);
  EXPECT_TRUE(Ok(devplug_stream_synchronize(stream_)));  // the context and its stream live on
}

// fork() after a plugin was initialized: the child's calls are refused with
// FAILED_PRECONDITION instead of reaching the parent's drivers (which hang there on OpenCL,
// Level Zero and GPU runtimes), and destroying the inherited context leaves it alone. The
// child reports through its exit status.
TEST_F(ApiNegative, AForkedChildIsRefusedNotHung) {
  devplug_tensor_t* t = floats({2}, {1, 2});
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int failures = 0;
    auto refused = [&](devplug_error_t* e) {
      const bool ok = e != nullptr && e->code == DEVPLUG_CODE_FAILED_PRECONDITION &&
                      std::strstr(e->message, "fork") != nullptr;
      devplug_error_destroy(e);
      failures += ok ? 0 : 1;
    };
    float out[2];
    refused(devplug_tensor_copy_to_host(stream_, t, out, sizeof out));
    refused(devplug_device_synchronize(device_));
    devplug_tensor_t* made = nullptr;
    const int64_t n = 4;
    refused(devplug_tensor_create(device_, DEVPLUG_DTYPE_FLOAT32, 1, &n, &made));
    devplug_comm_unique_id_t id;
    refused(devplug_comm_unique_id(device_, &id));
    devplug_context_t* fresh = nullptr;
    refused(devplug_context_create(nullptr, &fresh));
    devplug_dtype_t promoted = DEVPLUG_DTYPE_BOOL;  // pure functions still answer
    devplug_error_t* e = devplug_promote_types(DEVPLUG_DTYPE_INT32, DEVPLUG_DTYPE_FLOAT32, &promoted);
    failures += e == nullptr && promoted == DEVPLUG_DTYPE_FLOAT32 ? 0 : 1;
    devplug_error_destroy(e);
    devplug_tensor_release(t);
    devplug_context_destroy(context_);
    _exit(failures);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "calls in the forked child that were not refused";
  float out[2] = {};  // the parent is unaffected
  ASSERT_TRUE(Ok(devplug_tensor_copy_to_host(stream_, t, out, sizeof out)));
  EXPECT_EQ(out[1], 2.0f);
  devplug_tensor_release(t);
}

TEST(ApiNegativeContext, AbiVersionAcceptsNullOutPointers) {
  devplug_abi_version(nullptr, nullptr);  // "never fails": must not crash either
  uint32_t major = 0;
  devplug_abi_version(&major, nullptr);
  EXPECT_EQ(major, uint32_t(DEVPLUG_ABI_MAJOR));
}

TEST_F(ApiNegative, RegistryOutPointers) {
  EXPECT_TRUE(Invalid(devplug_context_failure_count(context_, nullptr), "out_count"));
  const char* text = nullptr;
  ASSERT_TRUE(Fails(devplug_context_load_plugin(context_, "/nonexistent/x.so", nullptr),
                    DEVPLUG_CODE_NOT_FOUND, "/nonexistent/x.so"));
  EXPECT_TRUE(Invalid(devplug_context_get_failure(context_, 0, nullptr, &text), "out_path"));
  EXPECT_TRUE(Invalid(devplug_context_get_failure(context_, 0, &text, nullptr), "out_reason"));
  EXPECT_TRUE(Invalid(devplug_context_get_failure(nullptr, 0, &text, &text), "context"));
  devplug_device_t* device = nullptr;
  EXPECT_TRUE(Invalid(devplug_context_get_device(nullptr, 0, &device), "context"));
  EXPECT_TRUE(Invalid(devplug_context_get_device(context_, 0, nullptr), "out_device"));
}

// ---- plugins and devices -------------------------------------------------------------------

TEST_F(ApiNegative, PluginQueries) {
  devplug_plugin_info_t info{};
  info.struct_size = sizeof(info);
  EXPECT_TRUE(Invalid(devplug_plugin_get_info(nullptr, &info), "plugin"));
  EXPECT_TRUE(Invalid(devplug_plugin_get_info(plugin_, nullptr), "out_info"));
  devplug_plugin_info_t tiny{};
  tiny.struct_size = 1;
  EXPECT_TRUE(Invalid(devplug_plugin_get_info(plugin_, &tiny), "struct_size"));
  bool supported = true;
  uint32_t flags = 0;
  EXPECT_TRUE(Invalid(
      devplug_plugin_supports(nullptr, DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, &supported, &flags), "plugin"));
  EXPECT_TRUE(
      Invalid(devplug_plugin_supports(plugin_, DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, nullptr, &flags),
              "out_supported"));
  EXPECT_TRUE(
      Invalid(devplug_plugin_supports(plugin_, 9999, DEVPLUG_DTYPE_FLOAT32, &supported, &flags), "9999"));
  EXPECT_TRUE(Invalid(devplug_plugin_supports(plugin_, DEVPLUG_OP_add, 10, &supported, &flags), "10"));
  EXPECT_TRUE(
      Invalid(devplug_plugin_supports(plugin_, DEVPLUG_OP_INVALID, DEVPLUG_DTYPE_FLOAT32, &supported, &flags),
              "op 0"));
  EXPECT_TRUE(Invalid(devplug_plugin_supports(plugin_, DEVPLUG_OP_add, -1, &supported, nullptr), "dtype -1"));
  EXPECT_FALSE(supported);
  const devplug_plugin_api_t* api = nullptr;
  EXPECT_TRUE(Invalid(devplug_plugin_get_table(nullptr, &api), "plugin"));
  EXPECT_TRUE(Invalid(devplug_plugin_get_table(plugin_, nullptr), "out_api"));
}

TEST_F(ApiNegative, DeviceQueries) {
  devplug_device_properties_t props{};
  props.struct_size = sizeof(props);
  EXPECT_TRUE(Invalid(devplug_device_get_properties(nullptr, &props), "device"));
  EXPECT_TRUE(Invalid(devplug_device_get_properties(device_, nullptr), "out_properties"));
  devplug_plugin_t* plugin = nullptr;
  EXPECT_TRUE(Invalid(devplug_device_get_plugin(nullptr, &plugin), "device"));
  EXPECT_TRUE(Invalid(devplug_device_get_plugin(device_, nullptr), "out_plugin"));
  devplug_stream_t* stream = nullptr;
  EXPECT_TRUE(Invalid(devplug_device_default_stream(nullptr, &stream), "device"));
  EXPECT_TRUE(Invalid(devplug_device_default_stream(device_, nullptr), "out_stream"));
  EXPECT_TRUE(Invalid(devplug_device_synchronize(nullptr), "device"));
  devplug_device_properties_t tiny{};
  tiny.struct_size = 1;
  EXPECT_TRUE(Invalid(devplug_device_get_properties(device_, &tiny), "struct_size"));
  tiny.struct_size = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE - 1;
  EXPECT_TRUE(Invalid(devplug_device_get_properties(device_, &tiny), "struct_size"));
}

// A host of ABI 1.0 passes the struct without the 1.1 `dtypes` field: it is filled as far as
// it goes, and nothing past its struct_size is written.
TEST_F(ApiNegative, DevicePropertiesOfAbi10Host) {
  devplug_device_properties_t props;
  std::memset(&props, 0x5A, sizeof props);
  props.struct_size = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE;
  devplug_error_t* error = devplug_device_get_properties(device_, &props);
  ASSERT_EQ(error, nullptr) << error->message;
  EXPECT_EQ(props.struct_size, DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE);
  EXPECT_NE(props.name[0], 0x5A);
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&props);
  for (size_t b = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE; b < sizeof props; ++b)
    ASSERT_EQ(bytes[b], 0x5A) << "byte " << b << " past the 1.0 struct was written";
}

TEST_F(ApiNegative, DeviceSupports) {
  bool supported = true;
  uint32_t flags = 7;
  EXPECT_TRUE(Invalid(
      devplug_device_supports(nullptr, DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, &supported, &flags), "device"));
  EXPECT_FALSE(supported);
  EXPECT_EQ(flags, 0u);
  EXPECT_TRUE(Invalid(devplug_device_supports(reinterpret_cast<devplug_device_t*>(stream_), DEVPLUG_OP_add,
                                              DEVPLUG_DTYPE_FLOAT32, &supported, &flags),
                      "not a live device"));
  EXPECT_TRUE(
      Invalid(devplug_device_supports(device_, DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, nullptr, &flags),
              "out_supported"));
  EXPECT_TRUE(
      Invalid(devplug_device_supports(device_, 9999, DEVPLUG_DTYPE_FLOAT32, &supported, &flags), "op 9999"));
  EXPECT_TRUE(Invalid(
      devplug_device_supports(device_, DEVPLUG_OP_INVALID, DEVPLUG_DTYPE_FLOAT32, &supported, nullptr),
      "op 0"));
  EXPECT_TRUE(Invalid(devplug_device_supports(device_, DEVPLUG_OP_add, 10, &supported, &flags), "dtype 10"));
  EXPECT_TRUE(Invalid(devplug_device_supports(device_, DEVPLUG_OP_add, -1, &supported, &flags), "dtype -1"));
  // The order of the checks: the device first, then the out-pointer, the op, the dtype.
  EXPECT_TRUE(Invalid(devplug_device_supports(nullptr, 9999, -1, nullptr, nullptr), "device is NULL"));
  EXPECT_TRUE(Invalid(devplug_device_supports(device_, 9999, -1, nullptr, nullptr), "out_supported"));
  EXPECT_TRUE(Invalid(devplug_device_supports(device_, 9999, -1, &supported, nullptr), "op 9999"));
}

TEST_F(ApiNegative, StreamsAndEvents) {
  devplug_stream_t* stream = poison<devplug_stream_t>();
  EXPECT_TRUE(Invalid(devplug_stream_create(nullptr, &stream), "device"));
  EXPECT_EQ(stream, nullptr);
  EXPECT_TRUE(Invalid(devplug_stream_create(device_, nullptr), "out_stream"));
  EXPECT_TRUE(Invalid(devplug_stream_synchronize(nullptr), "stream"));
  devplug_device_t* device = nullptr;
  EXPECT_TRUE(Invalid(devplug_stream_get_device(nullptr, &device), "stream"));
  EXPECT_TRUE(Invalid(devplug_stream_get_device(stream_, nullptr), "out_device"));
  devplug_event_t* event = poison<devplug_event_t>();
  EXPECT_TRUE(Invalid(devplug_event_create(nullptr, &event), "device"));
  EXPECT_EQ(event, nullptr);
  EXPECT_TRUE(Invalid(devplug_event_create(device_, nullptr), "out_event"));
  ASSERT_TRUE(Ok(devplug_event_create(device_, &event)));
  EXPECT_TRUE(Invalid(devplug_event_record(nullptr, stream_), "event"));
  EXPECT_TRUE(Invalid(devplug_event_record(event, nullptr), "stream"));
  EXPECT_TRUE(Invalid(devplug_stream_wait_event(stream_, nullptr), "event"));
  EXPECT_TRUE(Invalid(devplug_stream_wait_event(nullptr, event), "stream"));
  EXPECT_TRUE(Invalid(devplug_event_synchronize(nullptr), "event"));
  // An event records only on a stream of its own device.
  OtherContext other;
  EXPECT_TRUE(Invalid(devplug_event_record(event, other.stream), "different devices"));
  EXPECT_TRUE(Ok(devplug_event_destroy(event)));
  // The default stream belongs to its device; handles of the wrong kind are refused.
  EXPECT_TRUE(Invalid(devplug_stream_destroy(stream_), "default stream"));
  EXPECT_TRUE(Invalid(devplug_stream_destroy(reinterpret_cast<devplug_stream_t*>(device_)), "stream"));
  EXPECT_TRUE(Invalid(devplug_event_destroy(reinterpret_cast<devplug_event_t*>(stream_)), "event"));
  EXPECT_TRUE(Ok(devplug_stream_synchronize(stream_)));  // still alive
}

// ---- tensors ---------------------------------------------------------------------------------

TEST_F(ApiNegative, TensorCreateRefusesBadShapes) {
  devplug_tensor_t* t = poison<devplug_tensor_t>();
  int64_t shape[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
  EXPECT_TRUE(Invalid(devplug_tensor_create(nullptr, DEVPLUG_DTYPE_FLOAT32, 1, shape, &t), "device"));
  EXPECT_EQ(t, nullptr);
  EXPECT_TRUE(
      Invalid(devplug_tensor_create(device_, DEVPLUG_DTYPE_FLOAT32, 1, shape, nullptr), "out_tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_create(device_, DEVPLUG_DTYPE_FLOAT32, 9, shape, &t), "rank 9"));
  EXPECT_TRUE(Invalid(devplug_tensor_create(device_, DEVPLUG_DTYPE_FLOAT32, -1, shape, &t), "rank"));
  EXPECT_TRUE(Invalid(devplug_tensor_create(device_, DEVPLUG_DTYPE_FLOAT32, 2, nullptr, &t), "NULL"));
  int64_t negative[] = {2, -3};
  EXPECT_TRUE(
      Invalid(devplug_tensor_create(device_, DEVPLUG_DTYPE_FLOAT32, 2, negative, &t), "shape[1] is -3"));
  int64_t ok[] = {2};
  EXPECT_TRUE(Invalid(devplug_tensor_create(device_, 10, 1, ok, &t), "dtype"));
  EXPECT_TRUE(Invalid(devplug_tensor_create(device_, -1, 1, ok, &t), "dtype"));
  int64_t count_overflow[] = {int64_t(1) << 32, int64_t(1) << 32};
  EXPECT_TRUE(
      Invalid(devplug_tensor_create(device_, DEVPLUG_DTYPE_BOOL, 2, count_overflow, &t), "overflows"));
  int64_t byte_overflow[] = {int64_t(1) << 61};
  EXPECT_TRUE(
      Invalid(devplug_tensor_create(device_, DEVPLUG_DTYPE_FLOAT64, 1, byte_overflow, &t), "overflows"));
  EXPECT_EQ(t, nullptr);
}

TEST_F(ApiNegative, TensorCreateTooLargeForTheDevice) {
  devplug_tensor_t* t = nullptr;
  int64_t huge[] = {int64_t(1) << 60};
  // The plugin words the message; the code is the contract.
  EXPECT_TRUE(Fails(devplug_tensor_create(device_, DEVPLUG_DTYPE_INT8, 1, huge, &t),
                    DEVPLUG_CODE_RESOURCE_EXHAUSTED, ""));
  EXPECT_EQ(t, nullptr);
}

TEST_F(ApiNegative, TensorQueries) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {2});
  devplug_tensor_desc_t desc{};
  desc.struct_size = sizeof(desc);
  EXPECT_TRUE(Invalid(devplug_tensor_describe(nullptr, &desc), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_describe(t, nullptr), "out_desc"));
  devplug_device_t* device = nullptr;
  EXPECT_TRUE(Invalid(devplug_tensor_get_device(nullptr, &device), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_get_device(t, nullptr), "out_device"));
  int64_t n = 0;
  EXPECT_TRUE(Invalid(devplug_tensor_numel(nullptr, &n), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_numel(t, nullptr), "out_numel"));
  uint64_t bytes = 0;
  EXPECT_TRUE(Invalid(devplug_tensor_storage_bytes(nullptr, &bytes), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_storage_bytes(t, nullptr), "out_bytes"));
  auto* not_a_tensor = reinterpret_cast<const devplug_tensor_t*>(device_);
  EXPECT_TRUE(Invalid(devplug_tensor_describe(not_a_tensor, &desc), "not a live tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_get_device(not_a_tensor, &device), "not a live tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_storage_bytes(not_a_tensor, &bytes), "not a live tensor"));
}

TEST_F(ApiNegative, DescribeRespectsStructSize) {
  // Like plugin_get_info and device_get_properties, describe may write only what the
  // caller's struct_size holds; one too small to hold any field is refused.
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {2});
  devplug_tensor_desc_t tiny{};
  tiny.struct_size = 1;
  EXPECT_TRUE(Invalid(devplug_tensor_describe(t, &tiny), "struct_size"));
}

TEST_F(ApiNegative, CopyFromHost) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  std::vector<float> data(6, 1.0f);
  EXPECT_TRUE(Invalid(devplug_tensor_copy_from_host(nullptr, nullptr, data.data(), 24, 0), "dst"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_from_host(nullptr, t, nullptr, 24, 0), "src"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_from_host(nullptr, t, data.data(), 20, 0), "size_bytes"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_from_host(nullptr, t, data.data(), 28, 0), "size_bytes"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_from_host(nullptr, t, data.data(), 24, 0x80u), "flags"));
  // Writing through an expanded view would write one element twice.
  devplug_tensor_t* row = make(DEVPLUG_DTYPE_FLOAT32, {1, 3});
  devplug_tensor_t* expanded = nullptr;
  int64_t shape[] = {2, 3};
  ASSERT_TRUE(Ok(devplug_tensor_expand(row, 2, shape, &expanded)));
  EXPECT_TRUE(
      Invalid(devplug_tensor_copy_from_host(nullptr, expanded, data.data(), 24, 0), "overlaps itself"));
  auto* not_a_stream = reinterpret_cast<devplug_stream_t*>(device_);
  EXPECT_TRUE(
      Invalid(devplug_tensor_copy_from_host(not_a_stream, t, data.data(), 24, 0), "not a live stream"));
  auto* not_a_tensor = reinterpret_cast<devplug_tensor_t*>(stream_);
  EXPECT_TRUE(Invalid(devplug_tensor_copy_from_host(nullptr, not_a_tensor, data.data(), 24, 0), "dst"));
  // No elements, no bytes: a NULL `src` is fine then.
  devplug_tensor_t* empty = make(DEVPLUG_DTYPE_FLOAT32, {0, 3});
  EXPECT_TRUE(Ok(devplug_tensor_copy_from_host(nullptr, empty, nullptr, 0, DEVPLUG_COPY_BLOCKING)));
}

TEST_F(ApiNegative, CopyToHost) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_INT16, {5});
  std::vector<int16_t> data(5);
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(nullptr, nullptr, data.data(), 10), "src"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(nullptr, t, nullptr, 10), "dst"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(nullptr, t, data.data(), 5), "size_bytes"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(nullptr, t, data.data(), 20), "size_bytes"));
  auto* not_a_stream = reinterpret_cast<devplug_stream_t*>(device_);
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(not_a_stream, t, data.data(), 10), "not a live stream"));
  OtherContext other;
  EXPECT_TRUE(
      Invalid(devplug_tensor_copy_to_host(other.stream, t, data.data(), 10), "another device than src"));
  devplug_tensor_t* empty = make(DEVPLUG_DTYPE_INT16, {0});
  EXPECT_TRUE(Ok(devplug_tensor_copy_to_host(nullptr, empty, nullptr, 0)));
}

TEST_F(ApiNegative, TensorCopy) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* other_shape = make(DEVPLUG_DTYPE_FLOAT32, {3, 2});
  devplug_tensor_t* other_dtype = make(DEVPLUG_DTYPE_FLOAT64, {2, 3});
  EXPECT_TRUE(Invalid(devplug_tensor_copy(nullptr, nullptr, a), "dst"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy(nullptr, a, nullptr), "src"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy(nullptr, other_shape, a), "shape"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy(nullptr, other_dtype, a), "dtype"));
  devplug_tensor_t* row = make(DEVPLUG_DTYPE_FLOAT32, {1, 3});
  devplug_tensor_t* expanded = nullptr;
  int64_t shape[] = {2, 3};
  ASSERT_TRUE(Ok(devplug_tensor_expand(row, 2, shape, &expanded)));
  EXPECT_TRUE(Invalid(devplug_tensor_copy(nullptr, expanded, a), "overlaps itself"));
  auto* not_a_stream = reinterpret_cast<devplug_stream_t*>(device_);
  EXPECT_TRUE(Invalid(devplug_tensor_copy(not_a_stream, a, a), "not a live stream"));
  OtherContext other;
  EXPECT_TRUE(Invalid(devplug_tensor_copy(other.stream, a, a), "another device than dst"));
}

// ---- views -------------------------------------------------------------------------------

TEST_F(ApiNegative, ViewsRefuseNullTensorsAndOutPointers) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* v = nullptr;
  int64_t shape[] = {6};
  int64_t strides[] = {1};
  int32_t dims[] = {1, 0};
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(nullptr, 1, shape, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(t, 1, shape, nullptr), "out_view"));
  EXPECT_TRUE(Invalid(devplug_tensor_permute(nullptr, dims, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_permute(t, dims, nullptr), "out_view"));
  EXPECT_TRUE(Invalid(devplug_tensor_transpose(nullptr, 0, 1, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_transpose(t, 0, 1, nullptr), "out_view"));
  EXPECT_TRUE(Invalid(devplug_tensor_expand(nullptr, 1, shape, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_expand(t, 2, shape, nullptr), "out_view"));
  EXPECT_TRUE(Invalid(devplug_tensor_slice(nullptr, 0, 0, 1, 1, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_slice(t, 0, 0, 1, 1, nullptr), "out_view"));
  EXPECT_TRUE(Invalid(devplug_tensor_squeeze(nullptr, 0, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_squeeze(t, 0, nullptr), "out_view"));
  EXPECT_TRUE(Invalid(devplug_tensor_unsqueeze(nullptr, 0, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_unsqueeze(t, 0, nullptr), "out_view"));
  EXPECT_TRUE(Invalid(devplug_tensor_diagonal(nullptr, 0, 0, 1, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_diagonal(t, 0, 0, 1, nullptr), "out_view"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(nullptr, 1, shape, strides, 0, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 1, shape, strides, 0, nullptr), "out_view"));
}

TEST_F(ApiNegative, ViewsRefuseBadArgumentsAndClearTheOutPointer) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* transposed = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_transpose(t, 0, 1, &transposed)));
  devplug_tensor_t* v = poison<devplug_tensor_t>();
  int64_t flat[] = {6};
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(transposed, 1, flat, &v), "copy"));
  EXPECT_EQ(v, nullptr);
  int64_t wrong_count[] = {7};
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(t, 1, wrong_count, &v), "6 elements"));
  int64_t two_inferred[] = {-1, -1};
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(t, 2, two_inferred, &v), "-1"));
  int32_t not_permutation[] = {0, 0};
  EXPECT_TRUE(Invalid(devplug_tensor_permute(t, not_permutation, &v), "dims[1]"));
  EXPECT_TRUE(Invalid(devplug_tensor_permute(t, nullptr, &v), "dims"));
  EXPECT_TRUE(Invalid(devplug_tensor_transpose(t, 0, 2, &v), "dim1 is 2"));
  int64_t mismatch[] = {4, 3};
  EXPECT_TRUE(Invalid(devplug_tensor_expand(t, 2, mismatch, &v), "shape[0] is 4"));
  int64_t fewer[] = {3};
  EXPECT_TRUE(Invalid(devplug_tensor_expand(t, 1, fewer, &v), "rank"));
  EXPECT_TRUE(Invalid(devplug_tensor_slice(t, 1, 0, 3, 0, &v), "step is 0"));
  EXPECT_TRUE(Invalid(devplug_tensor_slice(t, 2, 0, 3, 1, &v), "dim is 2"));
  EXPECT_TRUE(Invalid(devplug_tensor_squeeze(t, 0, &v), "size 2"));
  EXPECT_TRUE(Invalid(devplug_tensor_unsqueeze(t, 4, &v), "dim is 4"));
  EXPECT_TRUE(Invalid(devplug_tensor_diagonal(t, 0, 1, 1, &v), "differ"));
  EXPECT_EQ(v, nullptr);
}

TEST_F(ApiNegative, ViewsRefuseEveryDocumentedMisuse) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* v = poison<devplug_tensor_t>();
  int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 6};
  // reshape
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(t, 9, nine, &v), "rank is 9"));
  EXPECT_EQ(v, nullptr);
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(t, -1, nine, &v), "rank is -1"));
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(t, 1, nullptr, &v), "shape is NULL"));
  int64_t below_minus_one[] = {-2, 3};
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(t, 2, below_minus_one, &v), "shape[0] is -2"));
  int64_t no_fit[] = {-1, 4};
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(t, 2, no_fit, &v), "for any value of shape[0]"));
  devplug_tensor_t* empty = make(DEVPLUG_DTYPE_FLOAT32, {0});
  int64_t beside_zero[] = {0, -1};
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(empty, 2, beside_zero, &v), "beside a 0 dim"));
  int64_t past_int64[] = {0, INT64_MAX, 4};
  EXPECT_TRUE(Invalid(devplug_tensor_reshape(empty, 3, past_int64, &v), "past int64"));
  // permute
  int32_t out_of_range[] = {0, 2};
  EXPECT_TRUE(Invalid(devplug_tensor_permute(t, out_of_range, &v), "dims[1] is 2"));
  int32_t negative_ok[] = {-1, -2};
  devplug_tensor_t* permuted = nullptr;
  EXPECT_TRUE(Ok(devplug_tensor_permute(t, negative_ok, &permuted)));
  // transpose
  EXPECT_TRUE(Invalid(devplug_tensor_transpose(t, -3, 0, &v), "dim0 is -3"));
  // expand
  EXPECT_TRUE(Invalid(devplug_tensor_expand(t, 9, nine, &v), "rank is 9"));
  EXPECT_TRUE(Invalid(devplug_tensor_expand(t, 2, nullptr, &v), "shape is NULL"));
  int64_t negative_leading[] = {-1, 2, 3};
  EXPECT_TRUE(Invalid(devplug_tensor_expand(t, 3, negative_leading, &v), "new leading dim"));
  int64_t keep_below_minus_one[] = {2, -2};
  EXPECT_TRUE(Invalid(devplug_tensor_expand(t, 2, keep_below_minus_one, &v), "shape[1] is -2"));
  devplug_tensor_t* one = make(DEVPLUG_DTYPE_FLOAT32, {1});
  int64_t overflowing[] = {INT64_MAX, 2};
  EXPECT_TRUE(Invalid(devplug_tensor_expand(one, 2, overflowing, &v), "overflows int64"));
  // slice
  EXPECT_TRUE(Invalid(devplug_tensor_slice(t, -3, 0, 1, 1, &v), "dim is -3"));
  devplug_tensor_t* scalar = make(DEVPLUG_DTYPE_FLOAT32, {});
  EXPECT_TRUE(Invalid(devplug_tensor_slice(scalar, 0, 0, 1, 1, &v), "dim is 0"));
  // squeeze
  EXPECT_TRUE(Invalid(devplug_tensor_squeeze(t, 2, &v), "dim is 2"));
  EXPECT_TRUE(Invalid(devplug_tensor_squeeze(scalar, 1, &v), "dim is 1"));
  // unsqueeze
  EXPECT_TRUE(Invalid(devplug_tensor_unsqueeze(t, -4, &v), "dim is -4"));
  devplug_tensor_t* full_rank = make(DEVPLUG_DTYPE_FLOAT32, {1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_TRUE(Invalid(devplug_tensor_unsqueeze(full_rank, 0, &v), "already has rank 8"));
  // diagonal
  EXPECT_TRUE(Invalid(devplug_tensor_diagonal(one, 0, 0, 1, &v), "rank 1"));
  EXPECT_TRUE(Invalid(devplug_tensor_diagonal(t, 0, 0, 2, &v), "dim1 is 2"));
  EXPECT_TRUE(Invalid(devplug_tensor_diagonal(t, 0, -3, 1, &v), "dim0 is -3"));
  EXPECT_TRUE(Invalid(devplug_tensor_diagonal(t, 0, -1, 1, &v), "differ"));
  // as_strided: the shape checks of devplug_tensor_create
  int64_t strides[9] = {};
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 9, nine, strides, 0, &v), "rank 9"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 1, nullptr, strides, 0, &v), "shape is NULL"));
  EXPECT_EQ(v, nullptr);
}

TEST_F(ApiNegative, AsStridedStaysInsideTheStorage) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {10});
  devplug_tensor_t* v = poison<devplug_tensor_t>();
  int64_t three[] = {3};
  int64_t back[] = {-1}, wide[] = {5}, huge[] = {INT64_MAX}, lowest[] = {INT64_MIN};
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 1, three, back, 1, &v), "outside"));
  EXPECT_EQ(v, nullptr);
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 1, three, wide, 0, &v), "outside"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 1, three, huge, 0, &v), "outside"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 1, three, lowest, 9, &v), "outside"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 0, nullptr, nullptr, 10, &v), "outside"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 0, nullptr, nullptr, -1, &v), "storage_offset"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 1, three, nullptr, 0, &v), "strides"));
  int64_t negative[] = {-3};
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 1, negative, back, 0, &v), "shape[0] is -3"));
  int64_t max_shape[] = {INT64_MAX, INT64_MAX};
  int64_t max_strides[] = {1, 1};
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(t, 2, max_shape, max_strides, 0, &v), "overflows"));
  // A view of a slice still reaches the whole storage, and no further.
  devplug_tensor_t* tail = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(t, 0, 5, 10, 1, &tail)));
  int64_t ten[] = {10}, one[] = {1};
  EXPECT_TRUE(Ok(devplug_tensor_as_strided(tail, 1, ten, one, 0, &v)));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided(tail, 1, ten, one, 1, &v), "outside"));
}

TEST_F(ApiNegative, AsStridedDtypeCountsInTheNewDtypeAndStaysInside) {
  devplug_tensor_t* bytes = make(DEVPLUG_DTYPE_UINT8, {10});  // 2 float32 and 2 spare bytes
  devplug_tensor_t* v = poison<devplug_tensor_t>();
  int64_t two[] = {2}, three[] = {3}, one[] = {1};
  EXPECT_TRUE(Ok(devplug_tensor_as_strided_dtype(bytes, DEVPLUG_DTYPE_FLOAT32, 1, two, one, 0, &v)));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided_dtype(bytes, DEVPLUG_DTYPE_FLOAT32, 1, three, one, 0, &v),
                      "outside"));
  EXPECT_EQ(v, nullptr);
  EXPECT_TRUE(
      Invalid(devplug_tensor_as_strided_dtype(bytes, DEVPLUG_DTYPE_FLOAT32, 1, two, one, 1, &v), "outside"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided_dtype(bytes, 42, 1, two, one, 0, &v), "dtype 42"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided_dtype(bytes, -1, 1, two, one, 0, &v), "dtype -1"));
  EXPECT_TRUE(
      Invalid(devplug_tensor_as_strided_dtype(nullptr, DEVPLUG_DTYPE_FLOAT32, 1, two, one, 0, &v), "tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_as_strided_dtype(bytes, DEVPLUG_DTYPE_FLOAT32, 1, two, one, 0, nullptr),
                      "out_view"));
}

// ---- ops -----------------------------------------------------------------------------------

TEST_F(ApiNegative, OpCallRefusesUnknownOpsAndWrongArity) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {3});
  devplug_tensor_t* out = make(DEVPLUG_DTYPE_FLOAT32, {3});
  devplug_tensor_t* ins[] = {a, a, a};
  devplug_tensor_t* outs[] = {out, out};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, 9999, ins, 1, outs, 1, nullptr), "9999"));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_INVALID, ins, 1, outs, 1, nullptr), "op 0"));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_add, ins, 3, outs, 1, nullptr), "n_inputs is 3"));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_add, ins, 1, outs, 1, nullptr), "n_inputs is 1"));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_exp, ins, 1, outs, 2, nullptr), "n_outputs is 2"));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_exp, nullptr, 1, outs, 1, nullptr), "inputs"));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_exp, ins, 1, nullptr, 1, nullptr), "outputs"));
  devplug_tensor_t* null_input[] = {nullptr};
  EXPECT_TRUE(
      Invalid(devplug_op_call(stream_, DEVPLUG_OP_exp, null_input, 1, outs, 1, nullptr), "inputs[0]"));
}

TEST_F(ApiNegative, OpCallChecksHandlesAndTheStream) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {3});
  devplug_tensor_t* ins[] = {a};
  devplug_tensor_t* outs[] = {make(DEVPLUG_DTYPE_FLOAT32, {3})};
  devplug_tensor_t* null_output[] = {nullptr};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_exp, ins, 1, null_output, 1, nullptr),
                      "outputs[0] is NULL"));
  devplug_tensor_t* foreign[] = {reinterpret_cast<devplug_tensor_t*>(stream_)};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_exp, foreign, 1, outs, 1, nullptr),
                      "inputs[0] is not a live tensor handle"));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_exp, ins, 1, foreign, 1, nullptr),
                      "outputs[0] is not a live tensor handle"));
  auto* not_a_stream = reinterpret_cast<devplug_stream_t*>(device_);
  EXPECT_TRUE(Invalid(devplug_op_call(not_a_stream, DEVPLUG_OP_exp, ins, 1, outs, 1, nullptr),
                      "stream is not a live stream handle"));
  // No stream and no output to take the device from.
  EXPECT_TRUE(Invalid(devplug_op_call(nullptr, DEVPLUG_OP_exp, ins, 1, nullptr, 0, nullptr),
                      "no output to take the device from"));
  // The handle checks come before the op's: an unknown op with a NULL input names the input.
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, 9999, null_output, 1, outs, 1, nullptr), "inputs[0] is NULL"));
  // A composite's required tensor may not be absent (layer_norm: input, weight?, bias?).
  devplug_tensor_t* no_input[] = {nullptr, nullptr, nullptr};
  devplug_tensor_t* norm_outs[] = {outs[0], outs[0], outs[0]};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_layer_norm, no_input, 3, norm_outs, 3, nullptr),
                      "inputs[0] (input) is NULL but not optional"));
}

TEST_F(ApiNegative, OpCallRefusesDtypes) {
  devplug_tensor_t* i = make(DEVPLUG_DTYPE_INT32, {3});
  devplug_tensor_t* f = make(DEVPLUG_DTYPE_FLOAT32, {3});
  devplug_tensor_t* b = make(DEVPLUG_DTYPE_BOOL, {3});
  devplug_tensor_t* in_i[] = {i};
  devplug_tensor_t* out_i[] = {i};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_exp, in_i, 1, out_i, 1, nullptr),
                      "does not allow dtype int32"));
  devplug_tensor_t* mixed[] = {f, i};
  devplug_tensor_t* out_f[] = {make(DEVPLUG_DTYPE_FLOAT32, {3})};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_add, mixed, 2, out_f, 1, nullptr),
                      "inputs[1]: dtype int32 does not match inputs[0] dtype float32"));
  devplug_tensor_t* ff[] = {f, f};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_lt, ff, 2, out_f, 1, nullptr), "expected bool"));
  devplug_tensor_t* not_bool_cond[] = {f, f, f};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_where, not_bool_cond, 3, out_f, 1, nullptr),
                      "inputs[0]: dtype float32, expected bool"));
  devplug_tensor_t* bb[] = {b, b};
  devplug_tensor_t* out_b[] = {make(DEVPLUG_DTYPE_BOOL, {3})};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_sub, bb, 2, out_b, 1, nullptr),
                      "does not allow dtype bool"));
}

TEST_F(ApiNegative, OpCallRefusesShapes) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* b = make(DEVPLUG_DTYPE_FLOAT32, {3, 2});
  devplug_tensor_t* row = make(DEVPLUG_DTYPE_FLOAT32, {1, 3});
  devplug_tensor_t* out = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* outs[] = {out};
  devplug_tensor_t* ab[] = {a, b};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_add, ab, 2, outs, 1, nullptr),
                      "inputs[1] has shape [3, 2]"));
  devplug_tensor_t* a_row[] = {a, row};  // prims do not broadcast
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_add, a_row, 2, outs, 1, nullptr),
                      "inputs[1] has shape [1, 3]"));
  devplug_matmul_attrs_t mm{sizeof(mm), 0};
  devplug_tensor_t* aa[] = {a, a};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_matmul, aa, 2, outs, 1, &mm), "K = 3"));
}

TEST_F(ApiNegative, OpCallRefusesBadAttrs) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* out = make(DEVPLUG_DTYPE_FLOAT32, {1, 3});
  devplug_tensor_t* ins[] = {a};
  devplug_tensor_t* outs[] = {out};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_sum, ins, 1, outs, 1, nullptr), "attrs is NULL"));
  devplug_reduce_attrs_t past_rank{sizeof(past_rank), 0b100u, 0.0};
  EXPECT_TRUE(
      Invalid(devplug_op_call(stream_, DEVPLUG_OP_sum, ins, 1, outs, 1, &past_rank), "attrs.dims_mask"));
  devplug_reduce_attrs_t small{sizeof(size_t), 0b1u, 0.0};
  EXPECT_TRUE(
      Invalid(devplug_op_call(stream_, DEVPLUG_OP_sum, ins, 1, outs, 1, &small), "attrs.struct_size"));
  devplug_reduce_attrs_t negative{sizeof(negative), 0b1u, -1.0};
  EXPECT_TRUE(
      Invalid(devplug_op_call(stream_, DEVPLUG_OP_var, ins, 1, outs, 1, &negative), "attrs.correction"));
  devplug_dim_attrs_t dim{sizeof(dim), 2};
  devplug_tensor_t* same[] = {make(DEVPLUG_DTYPE_FLOAT32, {2, 3})};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_cumsum, ins, 1, same, 1, &dim), "attrs.dim is 2"));
  devplug_tensor_t* index32 = make(DEVPLUG_DTYPE_INT32, {2});
  devplug_tensor_t* select_in[] = {a, index32};
  devplug_dim_attrs_t dim0{sizeof(dim0), 0};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_index_select, select_in, 2, same, 1, &dim0),
                      "index tensors are int64"));
}

TEST_F(ApiNegative, OpCallRefusesOverlappingOutputs) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* row = make(DEVPLUG_DTYPE_FLOAT32, {1, 3});
  devplug_tensor_t* expanded = nullptr;
  int64_t shape[] = {2, 3};
  ASSERT_TRUE(Ok(devplug_tensor_expand(row, 2, shape, &expanded)));
  devplug_tensor_t* ins[] = {a};
  devplug_tensor_t* outs[] = {expanded};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_neg, ins, 1, outs, 1, nullptr),
                      "outputs[0] overlaps itself"));
  // An output that is a shifted view of its input's storage.
  devplug_tensor_t* base = make(DEVPLUG_DTYPE_FLOAT32, {8});
  devplug_tensor_t *head = nullptr, *shifted = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(base, 0, 0, 6, 1, &head)));
  ASSERT_TRUE(Ok(devplug_tensor_slice(base, 0, 2, 8, 1, &shifted)));
  devplug_tensor_t* head_in[] = {head};
  devplug_tensor_t* shifted_out[] = {shifted};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_neg, head_in, 1, shifted_out, 1, nullptr),
                      "outputs[0] overlaps inputs[0]"));
  // A non-elementwise op may not write over its input at all.
  devplug_flip_attrs_t flip{sizeof(flip), 1u};
  devplug_tensor_t* base_in[] = {base};
  devplug_tensor_t* base_out[] = {base};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_flip, base_in, 1, base_out, 1, &flip),
                      "outputs[0] overlaps inputs[0]"));
}

TEST_F(ApiNegative, TensorsMustLiveOnTheStreamsDevice) {
  // A second context: its device is a different host device, even for the same plugin.
  devplug_context_t* other = nullptr;
  devplug_device_t* other_device = nullptr;
  ASSERT_TRUE(OpenPlugin(DEVPLUG_REFERENCE_PLUGIN_PATH, &other, &other_device));
  devplug_stream_t* other_stream = nullptr;
  ASSERT_TRUE(Ok(devplug_device_default_stream(other_device, &other_stream)));
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {2});
  devplug_tensor_t* ins[] = {a};
  devplug_tensor_t* outs[] = {a};
  EXPECT_TRUE(Invalid(devplug_op_call(other_stream, DEVPLUG_OP_neg, ins, 1, outs, 1, nullptr), "device"));
  devplug_tensor_t* result = nullptr;
  EXPECT_TRUE(Invalid(devplug_elementwise(other_stream, DEVPLUG_OP_neg, ins, 1, &result), "device"));
  float values[2] = {1, 2};
  EXPECT_TRUE(
      Invalid(devplug_tensor_copy_from_host(other_stream, a, values, 8, DEVPLUG_COPY_BLOCKING), "device"));
  devplug_context_destroy(other);
}

TEST_F(ApiNegative, Elementwise) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* b = make(DEVPLUG_DTYPE_FLOAT32, {4});
  devplug_tensor_t* result = nullptr;
  devplug_tensor_t* ab[] = {a, b};
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, ab, 2, &result), "broadcast"));
  EXPECT_EQ(result, nullptr);
  devplug_tensor_t* aa[] = {a, a};
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, aa, 2, nullptr), "inout_result"));
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_sum, aa, 1, &result), "elementwise"));
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, aa, 1, &result), "n_inputs"));
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, 9999, aa, 2, &result), "9999"));
  devplug_tensor_t* wrong_shape = make(DEVPLUG_DTYPE_FLOAT32, {3, 2});
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, aa, 2, &wrong_shape), "shape"));
  devplug_tensor_t* narrow = make(DEVPLUG_DTYPE_INT32, {2, 3});  // float into int: refused
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, aa, 2, &narrow), "int32"));
  devplug_tensor_t* null_in[] = {a, nullptr};
  result = nullptr;
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, null_in, 2, &result), "inputs[1]"));
}

TEST_F(ApiNegative, ElementwiseChecksHandlesAndDtypes) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* aa[] = {a, a};
  devplug_tensor_t* foreign = reinterpret_cast<devplug_tensor_t*>(stream_);
  EXPECT_TRUE(
      Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, aa, 2, &foreign), "*inout_result is not a live"));
  devplug_tensor_t* result = nullptr;
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, aa, 0, &result), "n_inputs is 0"));
  EXPECT_TRUE(Invalid(devplug_elementwise(stream_, DEVPLUG_OP_add, nullptr, 2, &result), "inputs is NULL"));
  auto* not_a_stream = reinterpret_cast<devplug_stream_t*>(device_);
  EXPECT_TRUE(
      Invalid(devplug_elementwise(not_a_stream, DEVPLUG_OP_add, aa, 2, &result), "not a live stream"));
  // Broadcasting and promotion done, the prim's own checks still apply: sub refuses bool.
  devplug_tensor_t* b = make(DEVPLUG_DTYPE_BOOL, {3});
  devplug_tensor_t* bb[] = {b, b};
  EXPECT_TRUE(
      Invalid(devplug_elementwise(stream_, DEVPLUG_OP_sub, bb, 2, &result), "does not allow dtype bool"));
  EXPECT_EQ(result, nullptr);
}

TEST(ApiNegativePromotion, PromoteAndBroadcast) {
  devplug_dtype_t d = 0;
  EXPECT_TRUE(Invalid(devplug_promote_types(10, DEVPLUG_DTYPE_FLOAT32, &d), "10"));
  EXPECT_TRUE(Invalid(devplug_promote_types(DEVPLUG_DTYPE_FLOAT32, -1, &d), "-1"));
  EXPECT_TRUE(
      Invalid(devplug_promote_types(DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_INT8, nullptr), "out_dtype"));
  int64_t a[] = {2, 3}, b[] = {4}, negative[] = {-2};
  int32_t rank = 0;
  int64_t out[DEVPLUG_MAX_RANK];
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(2, a, 1, b, &rank, out), "shape_a[1] = 3"));
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(1, negative, 1, b, &rank, out), "shape_a[0] is -2"));
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(9, a, 1, b, &rank, out), "shape_a has rank 9"));
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(2, a, 2, a, nullptr, out), "out_rank"));
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(2, a, 2, a, &rank, nullptr), "out_shape"));
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(2, nullptr, 2, a, &rank, out), "shape_a"));
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(2, a, 2, nullptr, &rank, out), "shape_b is NULL"));
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(2, a, -1, b, &rank, out), "shape_b has rank -1"));
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(2, a, 1, negative, &rank, out), "shape_b[0] is -2"));
  int64_t huge[] = {INT64_MAX, 2};
  EXPECT_TRUE(Invalid(devplug_broadcast_shapes(2, huge, 2, a, &rank, out), "overflows int64"));
}

// ---- collectives ---------------------------------------------------------------------------
// The reference plugin offers no collectives extension, so no communicator can be made here:
// these are the rows up to UNIMPLEMENTED, and every collective's refusal of a handle that is
// not a live communicator. api_comm_test.cpp covers the rows that need a live one.

TEST_F(ApiNegative, CommUniqueIdChecksInOrder) {
  EXPECT_TRUE(Invalid(devplug_comm_unique_id(device_, nullptr), "out_id is NULL"));
  devplug_comm_unique_id_t id;
  std::memset(&id, 0xab, sizeof id);
  EXPECT_TRUE(Invalid(devplug_comm_unique_id(nullptr, &id), "device is NULL"));
  EXPECT_EQ(id.bytes[0], 0) << "out_id is cleared on entry";
  auto* not_a_device = reinterpret_cast<devplug_device_t*>(stream_);
  EXPECT_TRUE(Invalid(devplug_comm_unique_id(not_a_device, &id), "device is not a live device"));
  EXPECT_TRUE(Fails(devplug_comm_unique_id(device_, &id), DEVPLUG_CODE_UNIMPLEMENTED,
                    "offers no collectives extension"));
}

TEST_F(ApiNegative, CommCreateChecksInOrder) {
  devplug_comm_unique_id_t id{};
  devplug_comm_t* comm = poison<devplug_comm_t>();
  EXPECT_TRUE(Invalid(devplug_comm_create(device_, &id, 2, 0, nullptr), "out_comm is NULL"));
  EXPECT_TRUE(Invalid(devplug_comm_create(nullptr, &id, 2, 0, &comm), "device is NULL"));
  EXPECT_EQ(comm, nullptr);
  auto* not_a_device = reinterpret_cast<devplug_device_t*>(stream_);
  EXPECT_TRUE(Invalid(devplug_comm_create(not_a_device, &id, 2, 0, &comm), "device is not a live device"));
  EXPECT_TRUE(Invalid(devplug_comm_create(device_, nullptr, 2, 0, &comm), "id is NULL"));
  EXPECT_TRUE(Invalid(devplug_comm_create(device_, &id, 0, 0, &comm), "world_size is 0"));
  EXPECT_TRUE(Invalid(devplug_comm_create(device_, &id, 2, 2, &comm), "rank 2 is not below world_size 2"));
  comm = poison<devplug_comm_t>();
  EXPECT_TRUE(Fails(devplug_comm_create(device_, &id, 2, 1, &comm), DEVPLUG_CODE_UNIMPLEMENTED,
                    "offers no collectives extension"));
  EXPECT_EQ(comm, nullptr);
}

TEST_F(ApiNegative, CommRankAndDestroyRefuseAHandleThatIsNotACommunicator) {
  auto* not_a_comm = reinterpret_cast<devplug_comm_t*>(stream_);
  uint32_t rank = 7, world_size = 7;
  EXPECT_TRUE(Invalid(devplug_comm_rank(nullptr, &rank, &world_size), "comm is NULL"));
  EXPECT_EQ(rank, 0u);
  EXPECT_EQ(world_size, 0u);
  EXPECT_TRUE(Invalid(devplug_comm_rank(not_a_comm, &rank, &world_size), "comm is not a live communicator"));
  // The communicator is checked first: NULL out-pointers with a bad one name the handle.
  EXPECT_TRUE(Invalid(devplug_comm_rank(not_a_comm, nullptr, nullptr), "comm is not a live communicator"));
  EXPECT_TRUE(Ok(devplug_comm_destroy(nullptr)));
  EXPECT_TRUE(Invalid(devplug_comm_destroy(not_a_comm), "comm is not a live communicator"));
}

TEST_F(ApiNegative, CollectivesRefuseAHandleThatIsNotACommunicator) {
  devplug_tensor_t* a = make(DEVPLUG_DTYPE_FLOAT32, {4});
  devplug_tensor_t* b = make(DEVPLUG_DTYPE_FLOAT32, {4});
  auto* not_a_comm = reinterpret_cast<devplug_comm_t*>(a);
  for (devplug_comm_t* comm : {static_cast<devplug_comm_t*>(nullptr), not_a_comm}) {
    const char* part = comm == nullptr ? "comm is NULL" : "comm is not a live communicator";
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(stream_, comm, a, b, DEVPLUG_REDUCE_SUM), part));
    EXPECT_TRUE(Invalid(devplug_comm_all_gather(stream_, comm, a, b), part));
    EXPECT_TRUE(Invalid(devplug_comm_reduce_scatter(stream_, comm, a, b, DEVPLUG_REDUCE_SUM), part));
    EXPECT_TRUE(Invalid(devplug_comm_broadcast(stream_, comm, a, 0), part));
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(stream_, comm, a, b), part));
    EXPECT_TRUE(Invalid(devplug_comm_send(stream_, comm, a, 1), part));
    EXPECT_TRUE(Invalid(devplug_comm_recv(stream_, comm, a, 1), part));
    // The communicator comes first: a NULL stream and tensors do not change the answer.
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(nullptr, comm, nullptr, nullptr, DEVPLUG_REDUCE_SUM), part));
  }
}

}  // namespace
}  // namespace devplug::test
