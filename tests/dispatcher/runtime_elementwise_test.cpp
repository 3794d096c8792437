// SPDX-License-Identifier: Apache-2.0
// Tests of devplug_elementwise: broadcasting and allocating the result, type promotion and
// casting into a given result, the public promotion and broadcast helpers, and, on the
// reference device, where with a broadcast condition and float-only ops on integers.
#include <vector>

#include "runtime_test_util.hpp"

namespace devplug::runtime_test {
namespace {

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

}  // namespace
}  // namespace devplug::runtime_test
