// SPDX-License-Identifier: Apache-2.0
// Positive tests of the host C API with the reference plugin: registry, devices, streams,
// tensor round trips, views that share storage, prim calls on strided operands,
// elementwise broadcasting and promotion, and fallback accounting.
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "api_test_util.hpp"
#include "devplug/sdk/half.hpp"

namespace devplug::test {
namespace {

using Api = ReferenceContext;
using Dims = std::vector<int64_t>;

TEST(ApiBasics, VersionAndAbi) {
  EXPECT_STREQ(devplug_version_string(), "0.1.0");
  uint32_t major = 99, minor = 99;
  devplug_abi_version(&major, &minor);
  EXPECT_EQ(major, uint32_t(DEVPLUG_ABI_MAJOR));
  EXPECT_EQ(minor, uint32_t(DEVPLUG_ABI_MINOR));
}

TEST(ApiBasics, NullIsIgnoredByReleaseFunctions) {
  devplug_error_destroy(nullptr);
  devplug_context_destroy(nullptr);
  devplug_tensor_release(nullptr);
  EXPECT_TRUE(Ok(devplug_stream_destroy(nullptr)));
  EXPECT_TRUE(Ok(devplug_event_destroy(nullptr)));
}

TEST_F(Api, RegistryListsTheLoadedPlugin) {
  devplug_plugin_t* again = nullptr;
  ASSERT_TRUE(Ok(devplug_context_load_plugin(context_, DEVPLUG_REFERENCE_PLUGIN_PATH, &again)));
  EXPECT_EQ(again, plugin_);  // one path, one plugin
  size_t count = 0;
  ASSERT_TRUE(Ok(devplug_context_plugin_count(context_, &count)));
  EXPECT_EQ(count, 1u);
  devplug_plugin_t* first = nullptr;
  ASSERT_TRUE(Ok(devplug_context_get_plugin(context_, 0, &first)));
  EXPECT_EQ(first, plugin_);
  devplug_plugin_t* found = nullptr;
  ASSERT_TRUE(Ok(devplug_context_find_plugin(context_, "reference", &found)));
  EXPECT_EQ(found, plugin_);
  ASSERT_TRUE(Ok(devplug_context_failure_count(context_, &count)));
  EXPECT_EQ(count, 0u);
  ASSERT_TRUE(Ok(devplug_context_device_count(context_, &count)));
  EXPECT_GE(count, 1u);
}

TEST_F(Api, PluginInfo) {
  devplug_plugin_info_t info{};
  info.struct_size = sizeof(info);
  ASSERT_TRUE(Ok(devplug_plugin_get_info(plugin_, &info)));
  EXPECT_STREQ(info.name, "reference");
  EXPECT_EQ(info.abi_major, uint32_t(DEVPLUG_ABI_MAJOR));
  EXPECT_EQ(info.opset_version, uint32_t(DEVPLUG_OPSET_VERSION));
  EXPECT_GE(info.device_count, 1);
  EXPECT_NE(std::string(info.path).find("libdevplug_reference"), std::string::npos);
  const devplug_plugin_api_t* api = nullptr;
  ASSERT_TRUE(Ok(devplug_plugin_get_table(plugin_, &api)));
  ASSERT_NE(api, nullptr);
  EXPECT_STREQ(api->plugin_name, "reference");
}

TEST_F(Api, ReferenceDeclaresEveryOpAndDtype) {
  for (devplug_op_t op = 1; op < DEVPLUG_OP_END_; ++op) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (!info) continue;
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      bool supported = false;
      uint32_t flags = 99;
      ASSERT_TRUE(Ok(devplug_plugin_supports(plugin_, op, d, &supported, &flags)));
      EXPECT_EQ(supported, (info->dtypes & DEVPLUG_DTYPE_BIT(d)) != 0)
          << info->name << " " << devplug_dtype_name(d);
    }
  }
}

TEST_F(Api, DevicesAndStreams) {
  devplug_device_properties_t props{};
  props.struct_size = sizeof(props);
  ASSERT_TRUE(Ok(devplug_device_get_properties(device_, &props)));
  EXPECT_GT(std::strlen(props.name), 0u);
  devplug_plugin_t* owner = nullptr;
  ASSERT_TRUE(Ok(devplug_device_get_plugin(device_, &owner)));
  EXPECT_EQ(owner, plugin_);
  devplug_stream_t* again = nullptr;
  ASSERT_TRUE(Ok(devplug_device_default_stream(device_, &again)));
  EXPECT_EQ(again, stream_);
  devplug_stream_t* stream = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_create(device_, &stream)));
  devplug_device_t* of_stream = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_get_device(stream, &of_stream)));
  EXPECT_EQ(of_stream, device_);
  devplug_event_t* event = nullptr;
  ASSERT_TRUE(Ok(devplug_event_create(device_, &event)));
  EXPECT_TRUE(Ok(devplug_event_synchronize(event)));  // never recorded: complete
  EXPECT_TRUE(Ok(devplug_event_record(event, stream)));
  EXPECT_TRUE(Ok(devplug_stream_wait_event(stream_, event)));
  EXPECT_TRUE(Ok(devplug_event_synchronize(event)));
  EXPECT_TRUE(Ok(devplug_stream_synchronize(stream)));
  EXPECT_TRUE(Ok(devplug_device_synchronize(device_)));
  EXPECT_TRUE(Ok(devplug_event_destroy(event)));
  EXPECT_TRUE(Ok(devplug_stream_destroy(stream)));
}

TEST_F(Api, TensorMetadata) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT64, {2, 3, 4});
  devplug_tensor_desc_t d = describe(t);
  EXPECT_EQ(d.dtype, DEVPLUG_DTYPE_FLOAT64);
  EXPECT_EQ(shape_of(t), (Dims{2, 3, 4}));
  EXPECT_EQ(strides_of(t), (Dims{12, 4, 1}));
  EXPECT_EQ(d.byte_offset, 0u);
  EXPECT_NE(d.buffer, nullptr);
  int64_t n = 0;
  ASSERT_TRUE(Ok(devplug_tensor_numel(t, &n)));
  EXPECT_EQ(n, 24);
  uint64_t bytes = 0;
  ASSERT_TRUE(Ok(devplug_tensor_storage_bytes(t, &bytes)));
  EXPECT_EQ(bytes, 24u * 8u);
  devplug_device_t* device = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_get_device(t, &device)));
  EXPECT_EQ(device, device_);

  devplug_tensor_t* scalar = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_create(device_, DEVPLUG_DTYPE_INT8, 0, nullptr, &scalar)));
  ASSERT_TRUE(Ok(devplug_tensor_numel(scalar, &n)));
  EXPECT_EQ(n, 1);
  devplug_tensor_t* empty = make(DEVPLUG_DTYPE_FLOAT32, {3, 0});
  ASSERT_TRUE(Ok(devplug_tensor_numel(empty, &n)));
  EXPECT_EQ(n, 0);
  EXPECT_TRUE(Ok(devplug_tensor_copy_from_host(nullptr, empty, nullptr, 0, DEVPLUG_COPY_BLOCKING)));
  EXPECT_TRUE(Ok(devplug_tensor_copy_to_host(nullptr, empty, nullptr, 0)));
  devplug_tensor_release(t);
}

TEST_F(Api, RoundTripEveryDtype) {
  for (devplug_dtype_t dtype = 0; dtype < DEVPLUG_DTYPE_COUNT; ++dtype) {
    SCOPED_TRACE(devplug_dtype_name(dtype));
    const size_t size = devplug_dtype_size(dtype);
    std::vector<unsigned char> bytes(7 * size);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 5);
    if (dtype == DEVPLUG_DTYPE_BOOL)
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = i % 3 == 0;
    devplug_tensor_t* t = upload(dtype, {7}, bytes);
    std::vector<unsigned char> back(bytes.size(), 0xAA);
    ASSERT_TRUE(Ok(devplug_tensor_copy_to_host(stream_, t, back.data(), back.size())));
    EXPECT_EQ(back, bytes);
  }
}

TEST_F(Api, ReadsViewsInLogicalOrder) {
  devplug_tensor_t* t = floats({2, 3}, {0, 1, 2, 3, 4, 5});
  devplug_tensor_t* v = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_transpose(t, 0, 1, &v)));
  EXPECT_EQ(download<float>(v), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(strides_of(v), (Dims{1, 3}));
  ASSERT_TRUE(Ok(devplug_tensor_slice(t, 1, INT64_MAX, INT64_MIN, -2, &v)));
  EXPECT_EQ(download<float>(v), (std::vector<float>{2, 0, 5, 3}));
  EXPECT_EQ(strides_of(v), (Dims{3, -2}));
  EXPECT_EQ(describe(v).byte_offset, 2u * 4u);
  int64_t expanded_shape[] = {2, 2, 3};
  ASSERT_TRUE(Ok(devplug_tensor_expand(t, 3, expanded_shape, &v)));
  EXPECT_EQ(download<float>(v), (std::vector<float>{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  ASSERT_TRUE(Ok(devplug_tensor_diagonal(t, 1, 0, 1, &v)));
  EXPECT_EQ(download<float>(v), (std::vector<float>{1, 5}));
  int64_t window_shape[] = {4, 3}, window_strides[] = {1, 1};
  ASSERT_TRUE(Ok(devplug_tensor_as_strided(t, 2, window_shape, window_strides, 0, &v)));
  EXPECT_EQ(download<float>(v), (std::vector<float>{0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5}));
  int64_t flat[] = {-1};
  ASSERT_TRUE(Ok(devplug_tensor_reshape(t, 1, flat, &v)));
  EXPECT_EQ(shape_of(v), (Dims{6}));
  int32_t dims[] = {1, 0};
  ASSERT_TRUE(Ok(devplug_tensor_permute(t, dims, &v)));
  EXPECT_EQ(download<float>(v), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  ASSERT_TRUE(Ok(devplug_tensor_unsqueeze(t, 1, &v)));
  EXPECT_EQ(shape_of(v), (Dims{2, 1, 3}));
  devplug_tensor_t* squeezed = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_squeeze(v, -2, &squeezed)));
  EXPECT_EQ(shape_of(squeezed), (Dims{2, 3}));
  EXPECT_EQ(download<float>(squeezed), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

// Found by fuzz_op_call (UBSan in the reference: "addition of unsigned offset overflowed"):
// as_strided accepts any offset for an empty view, as PyTorch does, and INT64_MAX float16
// elements made a byte_offset of 2^64 - 2, from which the plugin formed its base pointer.
// An empty view is now handed on with byte_offset 0, always inside its buffer.
TEST_F(Api, EmptyViewsFarFromTheirStorageReachPluginsAtOffsetZero) {
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT16, {3});
  int64_t shape[] = {3, 0}, strides[] = {-3, -4};
  for (int64_t offset : {int64_t{1000}, INT64_MAX}) {
    devplug_tensor_t* empty = nullptr;
    ASSERT_TRUE(Ok(devplug_tensor_as_strided(t, 2, shape, strides, offset, &empty)));
    EXPECT_EQ(describe(empty).byte_offset, 0u);
    const devplug_philox_attrs_t attrs{sizeof(attrs), 1, 2};
    EXPECT_TRUE(Ok(devplug_op_call(nullptr, DEVPLUG_OP_philox_normal, nullptr, 0, &empty, 1, &attrs)));
    EXPECT_TRUE(Ok(devplug_stream_synchronize(stream_)));
  }
}

TEST_F(Api, ViewsShareStorageAndOutliveTheirBase) {
  devplug_tensor_t* base = floats({2, 3}, {0, 0, 0, 0, 0, 0});
  devplug_tensor_t* column = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(base, 1, 1, 2, 1, &column)));  // base[:, 1:2]
  std::vector<float> values = {7, 8};
  ASSERT_TRUE(Ok(devplug_tensor_copy_from_host(nullptr, column, values.data(), 8, DEVPLUG_COPY_BLOCKING)));
  EXPECT_EQ(download<float>(base), (std::vector<float>{0, 7, 0, 0, 8, 0}));
  devplug_tensor_release(base);
  EXPECT_EQ(download<float>(column), (std::vector<float>{7, 8}));
  uint64_t bytes = 0;
  ASSERT_TRUE(Ok(devplug_tensor_storage_bytes(column, &bytes)));
  EXPECT_EQ(bytes, 24u);
}

TEST_F(Api, AsStridedDtypeReinterpretsTheSameBytes) {
  // A byte storage seen as float32 and as int32 (PyTorch's untyped storage and view(dtype)).
  devplug_tensor_t* bytes = make(DEVPLUG_DTYPE_UINT8, {16});
  devplug_tensor_t* floats_view = nullptr;
  devplug_tensor_t* ints_view = nullptr;
  int64_t shape[] = {2, 2}, strides[] = {1, 2};  // transposed, offset by one element
  ASSERT_TRUE(
      Ok(devplug_tensor_as_strided_dtype(bytes, DEVPLUG_DTYPE_FLOAT32, 2, shape, strides, 0, &floats_view)));
  std::vector<float> values = {1.0f, -2.0f, 0.5f, 3.0f};
  ASSERT_TRUE(
      Ok(devplug_tensor_copy_from_host(nullptr, floats_view, values.data(), 16, DEVPLUG_COPY_BLOCKING)));
  int64_t flat[] = {3}, one[] = {1};
  ASSERT_TRUE(Ok(devplug_tensor_as_strided_dtype(bytes, DEVPLUG_DTYPE_INT32, 1, flat, one, 1, &ints_view)));
  EXPECT_EQ(describe(ints_view).byte_offset, 4u);
  EXPECT_EQ(describe(ints_view).dtype, DEVPLUG_DTYPE_INT32);
  // Storage order is 1, 0.5, -2, 3 (the view was transposed); int32 elements 1..3 read them raw.
  std::vector<float> stored = {0.5f, -2.0f, 3.0f};
  std::vector<int32_t> raw(3);
  std::memcpy(raw.data(), stored.data(), sizeof(float) * 3);
  EXPECT_EQ(download<int32_t>(ints_view), raw);
}

TEST_F(Api, WritesIntoTransposedViews) {
  devplug_tensor_t* base = floats({2, 3}, {0, 0, 0, 0, 0, 0});
  devplug_tensor_t* t = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_transpose(base, 0, 1, &t)));
  std::vector<float> values = {0, 3, 1, 4, 2, 5};  // t is [3, 2]
  ASSERT_TRUE(Ok(devplug_tensor_copy_from_host(nullptr, t, values.data(), 24, DEVPLUG_COPY_BLOCKING)));
  EXPECT_EQ(download<float>(base), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  devplug_tensor_t* dense = make(DEVPLUG_DTYPE_FLOAT32, {3, 2});
  ASSERT_TRUE(Ok(devplug_tensor_copy(nullptr, dense, t)));
  EXPECT_EQ(download<float>(dense), values);
}

TEST_F(Api, OpCallOnStridedOperands) {
  devplug_tensor_t* a = floats({2, 3}, {0, 1, 2, 3, 4, 5});
  devplug_tensor_t* b_base = floats({3, 2}, {10, 40, 20, 50, 30, 60});
  devplug_tensor_t* b = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_transpose(b_base, 0, 1, &b)));  // [[10,20,30],[40,50,60]]
  devplug_tensor_t* out = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  devplug_tensor_t* ins[] = {a, b};
  devplug_tensor_t* outs[] = {out};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr)));
  EXPECT_EQ(download<float>(out), (std::vector<float>{10, 21, 32, 43, 54, 65}));
  // A flipped input (negative stride) and a stride-0 input.
  devplug_tensor_t* flipped = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(a, 1, INT64_MAX, INT64_MIN, -1, &flipped)));
  devplug_tensor_t* row = floats({3}, {100, 200, 300});
  devplug_tensor_t* rows = nullptr;
  int64_t shape[] = {2, 3};
  ASSERT_TRUE(Ok(devplug_tensor_expand(row, 2, shape, &rows)));
  devplug_tensor_t* ins2[] = {flipped, rows};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_mul, ins2, 2, outs, 1, nullptr)));
  EXPECT_EQ(download<float>(out), (std::vector<float>{200, 200, 0, 500, 800, 900}));
  // NULL stream: the first output's device's default stream.
  ASSERT_TRUE(Ok(devplug_op_call(nullptr, DEVPLUG_OP_sub, ins, 2, outs, 1, nullptr)));
  EXPECT_EQ(download<float>(out), (std::vector<float>{-10, -19, -28, -37, -46, -55}));
}

TEST_F(Api, OpCallInPlace) {
  devplug_tensor_t* a = floats({4}, {1, -2, 3, -4});
  devplug_tensor_t* ins[] = {a};
  devplug_tensor_t* outs[] = {a};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_neg, ins, 1, outs, 1, nullptr)));
  EXPECT_EQ(download<float>(a), (std::vector<float>{-1, 2, -3, 4}));
  // Same storage, disjoint halves: allowed.
  devplug_tensor_t *head = nullptr, *tail = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(a, 0, 0, 2, 1, &head)));
  ASSERT_TRUE(Ok(devplug_tensor_slice(a, 0, 2, 4, 1, &tail)));
  devplug_tensor_t* head_in[] = {head};
  devplug_tensor_t* tail_out[] = {tail};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_abs, head_in, 1, tail_out, 1, nullptr)));
  EXPECT_EQ(download<float>(a), (std::vector<float>{-1, 2, 1, 2}));
}

TEST_F(Api, OpCallWithAttrs) {
  devplug_tensor_t* a = floats({2, 3}, {0, 1, 2, 3, 4, 5});
  devplug_tensor_t* sum = make(DEVPLUG_DTYPE_FLOAT32, {2, 1});
  devplug_reduce_attrs_t over_columns{sizeof(over_columns), 0b10u, 0.0};
  devplug_tensor_t* ins[] = {a};
  devplug_tensor_t* outs[] = {sum};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_sum, ins, 1, outs, 1, &over_columns)));
  EXPECT_EQ(download<float>(sum), (std::vector<float>{3, 12}));

  devplug_tensor_t* filled = make(DEVPLUG_DTYPE_INT32, {3});
  devplug_fill_attrs_t fill{sizeof(fill), {7.0, 7}};
  devplug_tensor_t* fill_out[] = {filled};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_fill, nullptr, 0, fill_out, 1, &fill)));
  EXPECT_EQ(download<int32_t>(filled), (std::vector<int32_t>{7, 7, 7}));

  devplug_tensor_t* product = make(DEVPLUG_DTYPE_FLOAT32, {2, 2});
  devplug_tensor_t* at = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_transpose(a, 0, 1, &at)));
  devplug_matmul_attrs_t mm{sizeof(mm), 0u};
  devplug_tensor_t* mm_in[] = {a, at};
  devplug_tensor_t* mm_out[] = {product};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_matmul, mm_in, 2, mm_out, 1, &mm)));
  EXPECT_EQ(download<float>(product), (std::vector<float>{5, 14, 14, 50}));
}

TEST_F(Api, ElementwiseBroadcasts) {
  devplug_tensor_t* column = floats({2, 1}, {10, 20});
  devplug_tensor_t* row = floats({3}, {1, 2, 3});
  devplug_tensor_t* ins[] = {column, row};
  devplug_tensor_t* result = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_add, ins, 2, &result)));
  EXPECT_EQ(shape_of(result), (Dims{2, 3}));
  EXPECT_EQ(describe(result).dtype, DEVPLUG_DTYPE_FLOAT32);
  EXPECT_EQ(download<float>(result), (std::vector<float>{11, 12, 13, 21, 22, 23}));
  devplug_tensor_t* less = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_lt, ins, 2, &less)));
  EXPECT_EQ(describe(less).dtype, DEVPLUG_DTYPE_BOOL);
  EXPECT_EQ(download<uint8_t>(less), (std::vector<uint8_t>(6, 0)));
  devplug_tensor_t* cond = upload<uint8_t>(DEVPLUG_DTYPE_BOOL, {3}, {1, 0, 1});
  devplug_tensor_t* where_in[] = {cond, column, row};
  devplug_tensor_t* picked = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_where, where_in, 3, &picked)));
  EXPECT_EQ(download<float>(picked), (std::vector<float>{10, 2, 10, 20, 2, 20}));
}

TEST_F(Api, ElementwisePromotesAsPyTorch) {
  devplug_tensor_t* ints = upload<int32_t>(DEVPLUG_DTYPE_INT32, {3}, {1, 2, 3});
  devplug_tensor_t* halves = upload<uint16_t>(
      DEVPLUG_DTYPE_FLOAT16, {3},
      {sdk::double_to_half_bits(0.5), sdk::double_to_half_bits(0.25), sdk::double_to_half_bits(-4)});
  devplug_tensor_t* ins[] = {ints, halves};
  devplug_tensor_t* result = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_add, ins, 2, &result)));
  EXPECT_EQ(describe(result).dtype, DEVPLUG_DTYPE_FLOAT16);  // int32 + float16 -> float16
  std::vector<uint16_t> bits = download<uint16_t>(result);
  EXPECT_EQ(sdk::half_bits_to_double(bits[0]), 1.5);
  EXPECT_EQ(sdk::half_bits_to_double(bits[1]), 2.25);
  EXPECT_EQ(sdk::half_bits_to_double(bits[2]), -1.0);

  devplug_tensor_t* i8 = upload<int8_t>(DEVPLUG_DTYPE_INT8, {2}, {-100, 1});
  devplug_tensor_t* flags = upload<uint8_t>(DEVPLUG_DTYPE_BOOL, {2}, {1, 0});
  devplug_tensor_t* with_bool[] = {flags, i8};
  result = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_mul, with_bool, 2, &result)));
  EXPECT_EQ(describe(result).dtype, DEVPLUG_DTYPE_INT8);  // bool * int8 -> int8
  EXPECT_EQ(download<int8_t>(result), (std::vector<int8_t>{-100, 0}));

  // exp of integers computes in float32, as torch.exp does.
  devplug_tensor_t* one_in[] = {ints};
  result = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_exp, one_in, 1, &result)));
  EXPECT_EQ(describe(result).dtype, DEVPLUG_DTYPE_FLOAT32);
}

TEST_F(Api, ElementwiseUint8PlusInt8IsInt16) {
  devplug_tensor_t* u8 = upload<uint8_t>(DEVPLUG_DTYPE_UINT8, {3}, {200, 255, 0});
  devplug_tensor_t* i8 = upload<int8_t>(DEVPLUG_DTYPE_INT8, {3}, {-100, 1, -128});
  devplug_tensor_t* mixed[] = {u8, i8};
  devplug_tensor_t* result = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_add, mixed, 2, &result)));
  EXPECT_EQ(describe(result).dtype, DEVPLUG_DTYPE_INT16);
  // Both operands are cast to int16 first: int8 values keep their sign.
  EXPECT_EQ(download<int16_t>(result), (std::vector<int16_t>{100, 256, -128}));
}

TEST_F(Api, ElementwiseZeroDimOperandsPromoteLessEagerly) {
  devplug_tensor_t* f32 = floats({2}, {1, 2});
  double two = 2.0;
  devplug_tensor_t* f64_scalar = upload<double>(DEVPLUG_DTYPE_FLOAT64, {}, {two});
  devplug_tensor_t* ins[] = {f32, f64_scalar};
  devplug_tensor_t* result = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_mul, ins, 2, &result)));
  EXPECT_EQ(describe(result).dtype, DEVPLUG_DTYPE_FLOAT32);  // same category: the tensor wins
  EXPECT_EQ(download<float>(result), (std::vector<float>{2, 4}));

  devplug_tensor_t* i32 = upload<int32_t>(DEVPLUG_DTYPE_INT32, {2}, {1, 2});
  devplug_tensor_t* higher_category[] = {i32, f64_scalar};
  result = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_add, higher_category, 2, &result)));
  EXPECT_EQ(describe(result).dtype, DEVPLUG_DTYPE_FLOAT64);
  EXPECT_EQ(download<double>(result), (std::vector<double>{3, 4}));
}

TEST_F(Api, ElementwiseIntoAGivenResult) {
  devplug_tensor_t* a = floats({2}, {1.5f, 2.5f});
  devplug_tensor_t* ins[] = {a, a};
  devplug_tensor_t* wide = make(DEVPLUG_DTYPE_FLOAT64, {2});
  devplug_tensor_t* given = wide;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_add, ins, 2, &given)));
  EXPECT_EQ(given, wide);
  EXPECT_EQ(download<double>(wide), (std::vector<double>{3.0, 5.0}));
  // In place: the result is one of the inputs.
  given = a;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_add, ins, 2, &given)));
  EXPECT_EQ(download<float>(a), (std::vector<float>{3.0f, 5.0f}));
}

TEST_F(Api, PromotionAndBroadcastHelpers) {
  devplug_dtype_t d = -1;
  ASSERT_TRUE(Ok(devplug_promote_types(DEVPLUG_DTYPE_INT64, DEVPLUG_DTYPE_BFLOAT16, &d)));
  EXPECT_EQ(d, DEVPLUG_DTYPE_BFLOAT16);
  ASSERT_TRUE(Ok(devplug_promote_types(DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, &d)));
  EXPECT_EQ(d, DEVPLUG_DTYPE_FLOAT32);
  int64_t a[] = {5, 1, 4, 1}, b[] = {3, 1, 1};
  int32_t rank = 0;
  int64_t out[DEVPLUG_MAX_RANK] = {};
  ASSERT_TRUE(Ok(devplug_broadcast_shapes(4, a, 3, b, &rank, out)));
  EXPECT_EQ(Dims(out, out + rank), (Dims{5, 3, 4, 1}));
}

TEST_F(Api, NoFallbackWhenThePluginHasTheKernel) {
  devplug_tensor_t* a = floats({3}, {1, 2, 3});
  devplug_tensor_t* ins[] = {a};
  devplug_tensor_t* outs[] = {make(DEVPLUG_DTYPE_FLOAT32, {3})};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_exp, ins, 1, outs, 1, nullptr)));
  uint64_t count = 99;
  ASSERT_TRUE(Ok(devplug_context_fallback_count(context_, DEVPLUG_OP_INVALID, &count)));
  EXPECT_EQ(count, 0u);
  ASSERT_TRUE(Ok(devplug_context_fallback_count(context_, DEVPLUG_OP_exp, &count)));
  EXPECT_EQ(count, 0u);
}

TEST(ApiContext, StrictContextRunsWhatThePluginHas) {
  devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT};
  devplug_context_t* context = nullptr;
  ASSERT_TRUE(Ok(devplug_context_create(&options, &context)));
  ASSERT_TRUE(Ok(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN_PATH, nullptr)));
  devplug_device_t* device = nullptr;
  ASSERT_TRUE(Ok(devplug_context_get_device(context, 0, &device)));
  int64_t shape[] = {2};
  devplug_tensor_t* t = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, shape, &t)));
  devplug_tensor_t* ins[] = {t, t};
  devplug_tensor_t* outs[] = {t};
  EXPECT_TRUE(Ok(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr)));
  devplug_context_destroy(context);  // also releases t
}

}  // namespace
}  // namespace devplug::test
