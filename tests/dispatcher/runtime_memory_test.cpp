// SPDX-License-Identifier: Apache-2.0
// Tests of tensors and device memory through the host C API: round trips and metadata, empty
// and scalar tensors, views copied in logical order (and written through), copies across
// layouts and devices, strided copies staged on the host when the plugin has no strided copy
// kernel, and the caching allocator's reuse of buffers and their release with the context.
#include <vector>

#include "runtime_test_util.hpp"

namespace devplug::runtime_test {
namespace {

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

}  // namespace
}  // namespace devplug::runtime_test
