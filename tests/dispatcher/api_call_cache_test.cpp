// SPDX-License-Identifier: Apache-2.0
// The per-stream cache of validated calls (dispatcher/src/call_cache.hpp): a repeated call
// skips validation, so each test repeats a valid call and then changes one thing validation
// depends on, which must be checked again and refused.
#include "api_test_util.hpp"

namespace devplug::test {
namespace {

class CallCache : public ReferenceContext {
 protected:
  devplug_error_t* add(devplug_tensor_t* a, devplug_tensor_t* b, devplug_tensor_t* out) {
    devplug_tensor_t* ins[] = {a, b};
    devplug_tensor_t* outs[] = {out};
    return devplug_op_call(stream_, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr);
  }
  devplug_error_t* sum(devplug_tensor_t* in, devplug_tensor_t* out, const devplug_reduce_attrs_t* attrs) {
    devplug_tensor_t* ins[] = {in};
    devplug_tensor_t* outs[] = {out};
    return devplug_op_call(stream_, DEVPLUG_OP_sum, ins, 1, outs, 1, attrs);
  }
};

TEST_F(CallCache, RepeatedCallsComputeEachTime) {
  devplug_tensor_t* a = floats({3}, {1, 2, 3});
  devplug_tensor_t* out = floats({3}, {0, 0, 0});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Ok(add(a, out, out)));  // in place: out += a
  EXPECT_EQ(download<float>(out), (std::vector<float>{3, 6, 9}));
}

// A tensor made where a released one lived (the allocator likely hands back the same
// address) is a different tensor: the call is validated again.
TEST_F(CallCache, ANewTensorAtAReleasedOnesAddressIsValidatedAgain) {
  devplug_tensor_t* a = floats({3}, {1, 2, 3});
  devplug_tensor_t* out = floats({3}, {0, 0, 0});
  devplug_tensor_t* b = floats({3}, {1, 1, 1});
  ASSERT_TRUE(Ok(add(a, b, out)));
  ASSERT_TRUE(Ok(add(a, b, out)));
  for (int round = 0; round < 8; ++round) {
    devplug_tensor_release(b);
    b = floats({4}, {1, 1, 1, 1});
    EXPECT_TRUE(Invalid(add(a, b, out), "inputs[1]")) << "round " << round;
    devplug_tensor_release(b);
    b = floats({3}, {1, 1, 1});
    ASSERT_TRUE(Ok(add(a, b, out)));
  }
  EXPECT_EQ(download<float>(out), (std::vector<float>{2, 3, 4}));
}

// Views share their base's storage but are tensors of their own: a view that overlaps the
// output without being it is refused even right after a valid call on the same storage.
TEST_F(CallCache, AViewOfTheSameStorageIsADifferentTensor) {
  devplug_tensor_t* a = floats({4}, {1, 2, 3, 4});
  devplug_tensor_t* out = floats({4}, {0, 0, 0, 0});
  const int64_t shape[] = {2};
  const int64_t strides[] = {1};
  devplug_tensor_t *a_head = nullptr, *out_head = nullptr, *out_middle = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_as_strided(a, 1, shape, strides, 0, &a_head)));
  ASSERT_TRUE(Ok(devplug_tensor_as_strided(out, 1, shape, strides, 0, &out_head)));
  ASSERT_TRUE(Ok(devplug_tensor_as_strided(out, 1, shape, strides, 1, &out_middle)));
  ASSERT_TRUE(Ok(add(a_head, a_head, out_head)));
  ASSERT_TRUE(Ok(add(a_head, a_head, out_head)));
  EXPECT_TRUE(Invalid(add(a_head, out_middle, out_head), "overlap"));  // out[1:3] against out[0:2]
  ASSERT_TRUE(Ok(add(a_head, out_head, out_head)));                    // exactly the output: in place
  EXPECT_EQ(download<float>(out), (std::vector<float>{3, 6, 0, 0}));
}

TEST_F(CallCache, ChangedAttributesAreValidatedAgain) {
  devplug_tensor_t* in = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  devplug_tensor_t* out = floats({2, 1}, {0, 0});
  devplug_reduce_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.dims_mask = 2;  // over dim 1
  ASSERT_TRUE(Ok(sum(in, out, &attrs)));
  ASSERT_TRUE(Ok(sum(in, out, &attrs)));
  EXPECT_EQ(download<float>(out), (std::vector<float>{6, 15}));

  devplug_reduce_attrs_t other = attrs;  // same values at another address: still valid
  ASSERT_TRUE(Ok(sum(in, out, &other)));
  other.dims_mask = 4;  // dim 2 of a rank-2 tensor
  EXPECT_TRUE(Invalid(sum(in, out, &other), "dims_mask"));
  other.dims_mask = 1;  // over dim 0: [1, 3] expected, out is [2, 1]
  EXPECT_TRUE(Invalid(sum(in, out, &other), "shape"));
  ASSERT_TRUE(Ok(sum(in, out, &attrs)));
  other = attrs;
  other.struct_size = sizeof(size_t);  // too small to hold the attributes
  EXPECT_TRUE(Invalid(sum(in, out, &other), "struct_size"));
  EXPECT_TRUE(Invalid(sum(in, out, nullptr), "attrs is NULL"));
  ASSERT_TRUE(Ok(sum(in, out, &attrs)));
}

TEST_F(CallCache, ADifferentOpOrArityIsValidatedAgain) {
  devplug_tensor_t* a = floats({3}, {1, 2, 3});
  devplug_tensor_t* out = floats({3}, {0, 0, 0});
  ASSERT_TRUE(Ok(add(a, a, out)));
  ASSERT_TRUE(Ok(add(a, a, out)));
  devplug_tensor_t* ins[] = {a, a};
  devplug_tensor_t* outs[] = {out};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_add, ins, 1, outs, 1, nullptr), "n_inputs"));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_neg, ins, 2, outs, 1, nullptr), "n_inputs"));
  devplug_tensor_t* flags = nullptr;
  const int64_t shape[] = {3};
  ASSERT_TRUE(Ok(devplug_tensor_create(device_, DEVPLUG_DTYPE_BOOL, 1, shape, &flags)));
  devplug_tensor_t* bool_outs[] = {flags};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_lt, ins, 2, bool_outs, 1, nullptr)));
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_add, ins, 2, bool_outs, 1, nullptr), "dtype"));
}

TEST_F(CallCache, ANullHandleIsRefusedEvenAfterAHit) {
  devplug_tensor_t* a = floats({3}, {1, 2, 3});
  devplug_tensor_t* out = floats({3}, {0, 0, 0});
  ASSERT_TRUE(Ok(add(a, a, out)));
  ASSERT_TRUE(Ok(add(a, a, out)));
  devplug_tensor_t* ins[] = {a, nullptr};
  devplug_tensor_t* outs[] = {out};
  EXPECT_TRUE(Invalid(devplug_op_call(stream_, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr), "inputs[1]"));
}

// Each stream remembers its own last call: a call valid on one stream's device is checked
// on another's.
TEST_F(CallCache, StreamsKeepTheirOwnCalls) {
  devplug_tensor_t* a = floats({3}, {1, 2, 3});
  devplug_tensor_t* out = floats({3}, {0, 0, 0});
  devplug_stream_t* other = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_create(device_, &other)));
  devplug_tensor_t* ins[] = {a, a};
  devplug_tensor_t* outs[] = {out};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr)));
  ASSERT_TRUE(Ok(devplug_op_call(other, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr)));
  ASSERT_TRUE(Ok(devplug_op_call(other, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr)));
  ASSERT_TRUE(Ok(devplug_stream_synchronize(other)));
  EXPECT_EQ(download<float>(out), (std::vector<float>{2, 4, 6}));
}

}  // namespace
}  // namespace devplug::test
