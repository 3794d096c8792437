// SPDX-License-Identifier: Apache-2.0
// Negative tests of every devplug.h entry point: NULL handles and out-pointers, bad sizes,
// bad dtypes, bad shapes, strides outside the storage, aliasing and bad attributes must all
// be answered with an error naming the argument, never a crash.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "api_test_util.hpp"

namespace devplug::test {
namespace {

using ApiNegative = ReferenceContext;

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
  EXPECT_TRUE(Invalid(devplug_context_load_plugin(context_, nullptr, nullptr), "path"));
}

TEST_F(ApiNegative, LoadMissingFileIsReportedAndRecorded) {
  const std::string path = "/nonexistent/libdevplug_nothing.so";
  devplug_plugin_t* plugin = poison<devplug_plugin_t>();
  devplug_error_t* error = devplug_context_load_plugin(context_, path.c_str(), &plugin);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(error->code, DEVPLUG_CODE_OK);
  EXPECT_NE(std::string(error->message).find(path), std::string::npos) << error->message;
  devplug_error_destroy(error);
  EXPECT_EQ(plugin, nullptr);
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
  devplug_error_t* error = devplug_context_load_plugin(context_, path.c_str(), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error->message).find(path), std::string::npos) << error->message;
  devplug_error_destroy(error);
  std::remove(path.c_str());
}

TEST_F(ApiNegative, RegistryQueriesCheckHandlesAndIndices) {
  size_t count = 0;
  devplug_plugin_t* plugin = poison<devplug_plugin_t>();
  devplug_device_t* device = poison<devplug_device_t>();
  EXPECT_TRUE(Invalid(devplug_context_plugin_count(nullptr, &count), "context"));
  EXPECT_TRUE(Invalid(devplug_context_plugin_count(context_, nullptr), "out_count"));
  EXPECT_FALSE(Ok(devplug_context_get_plugin(context_, 1, &plugin)));
  EXPECT_EQ(plugin, nullptr);
  EXPECT_TRUE(Invalid(devplug_context_get_plugin(nullptr, 0, &plugin), "context"));
  EXPECT_TRUE(Invalid(devplug_context_get_plugin(context_, 0, nullptr), "out_plugin"));
  EXPECT_TRUE(Fails(devplug_context_find_plugin(context_, "no_such_plugin", &plugin), DEVPLUG_CODE_NOT_FOUND,
                    "no_such_plugin"));
  EXPECT_TRUE(Invalid(devplug_context_find_plugin(context_, nullptr, &plugin), "name"));
  EXPECT_TRUE(Invalid(devplug_context_device_count(nullptr, &count), "context"));
  EXPECT_TRUE(Invalid(devplug_context_device_count(context_, nullptr), "out_count"));
  EXPECT_FALSE(Ok(devplug_context_get_device(context_, 1000, &device)));
  EXPECT_EQ(device, nullptr);
  EXPECT_TRUE(Invalid(devplug_context_failure_count(nullptr, &count), "context"));
  const char* path = "x";
  const char* reason = "x";
  EXPECT_FALSE(Ok(devplug_context_get_failure(context_, 0, &path, &reason)));
  uint64_t fallbacks = 0;
  EXPECT_TRUE(Invalid(devplug_context_fallback_count(nullptr, DEVPLUG_OP_INVALID, &fallbacks), "context"));
  EXPECT_TRUE(Invalid(devplug_context_fallback_count(context_, DEVPLUG_OP_add, nullptr), "out_count"));
  EXPECT_TRUE(Invalid(devplug_context_fallback_count(context_, 9999, &fallbacks), "9999"));
}

TEST_F(ApiNegative, AHandleOfTheWrongKindIsRefused) {
  // A stream passed where a device belongs: the handle check catches it.
  auto* not_a_device = reinterpret_cast<devplug_device_t*>(stream_);
  devplug_stream_t* stream = nullptr;
  EXPECT_TRUE(Invalid(devplug_stream_create(not_a_device, &stream), "device"));
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
  devplug_error_t* refused = devplug_context_load_plugin(context_, "/nonexistent/x.so", nullptr);
  ASSERT_NE(refused, nullptr);
  devplug_error_destroy(refused);
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
  devplug_error_t* error = devplug_tensor_create(device_, DEVPLUG_DTYPE_INT8, 1, huge, &t);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, DEVPLUG_CODE_RESOURCE_EXHAUSTED) << error->message;
  devplug_error_destroy(error);
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
}

TEST_F(ApiNegative, CopyToHost) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_INT16, {5});
  std::vector<int16_t> data(5);
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(nullptr, nullptr, data.data(), 10), "src"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(nullptr, t, nullptr, 10), "dst"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(nullptr, t, data.data(), 5), "size_bytes"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host(nullptr, t, data.data(), 20), "size_bytes"));
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
  devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY};
  devplug_context_t* other = nullptr;
  ASSERT_TRUE(Ok(devplug_context_create(&options, &other)));
  ASSERT_TRUE(Ok(devplug_context_load_plugin(other, DEVPLUG_REFERENCE_PLUGIN_PATH, nullptr)));
  devplug_device_t* other_device = nullptr;
  ASSERT_TRUE(Ok(devplug_context_get_device(other, 0, &other_device)));
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
}

}  // namespace
}  // namespace devplug::test
