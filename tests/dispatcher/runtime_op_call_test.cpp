// SPDX-License-Identifier: Apache-2.0
// Tests of devplug_op_call on fixture_good's kernels: strided and in-place operands, a hot path
// that allocates nothing on the host, argument validation, and dense-only kernels given
// materialized operands (and outputs).
#include <vector>

#include "runtime_test_util.hpp"

// This thread's heap allocations through operator new, or -1 where they are not counted
// (sanitizer builds); see fixture_allocation_counter.cpp.
long fixture_thread_allocations();

namespace devplug::runtime_test {
namespace {

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

}  // namespace
}  // namespace devplug::runtime_test
