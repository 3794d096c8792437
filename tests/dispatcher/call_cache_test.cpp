// SPDX-License-Identifier: Apache-2.0
// ValidatedCall (dispatcher/src/call_cache.hpp) on its own: what makes a call the same as the
// remembered one. Tensors here are bare host objects with ids; nothing runs.
#include "call_cache.hpp"

#include <gtest/gtest.h>

namespace devplug::detail {
namespace {

class ValidatedCallTest : public ::testing::Test {
 protected:
  ValidatedCallTest() {
    for (uint64_t i = 0; i < 4; ++i) tensors_[i].id = 100 + i;
    attrs_.struct_size = sizeof(attrs_);
    attrs_.dims_mask = 2;
  }
  const devplug_tensor_t* in_[2] = {&tensors_[0], &tensors_[1]};
  const devplug_tensor_t* out_[1] = {&tensors_[2]};
  devplug_tensor_t tensors_[4];
  devplug_reduce_attrs_t attrs_{};
  KernelSlot slot_;
  ValidatedCall call_;
};

TEST_F(ValidatedCallTest, ForgetsNothingItWasNotTold) {
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, nullptr}), nullptr);
  call_.remember(*devplug_op_info(DEVPLUG_OP_add),
                 OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, nullptr, DEVPLUG_DTYPE_FLOAT32}, slot_);
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, nullptr}), &slot_);
  EXPECT_EQ(call_.dtype(), DEVPLUG_DTYPE_FLOAT32);
}

TEST_F(ValidatedCallTest, KeysOnOpArityAndEachTensorsId) {
  call_.remember(*devplug_op_info(DEVPLUG_OP_add),
                 OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, nullptr, DEVPLUG_DTYPE_FLOAT32}, slot_);
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_sub, in_, 2, out_, 1, nullptr}), nullptr);
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_add, in_, 1, out_, 1, nullptr}), nullptr);
  const devplug_tensor_t* swapped[2] = {&tensors_[1], &tensors_[0]};
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_add, swapped, 2, out_, 1, nullptr}), nullptr);
  const devplug_tensor_t* other_out[1] = {&tensors_[3]};
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_add, in_, 2, other_out, 1, nullptr}), nullptr);
  tensors_[1].id = 999;  // a new tensor where an old one lived
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, nullptr}), nullptr);
}

// add reads no attributes: whatever `attrs` is, even an invalid pointer, is never read.
TEST_F(ValidatedCallTest, IgnoresAttrsOfAnOpWithout) {
  call_.remember(*devplug_op_info(DEVPLUG_OP_add),
                 OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, nullptr, DEVPLUG_DTYPE_FLOAT32}, slot_);
  const void* garbage = reinterpret_cast<const void*>(static_cast<uintptr_t>(0x10));
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, garbage}), &slot_);
}

TEST_F(ValidatedCallTest, KeysOnTheAttributeBytes) {
  const devplug_tensor_t* one_in[1] = {&tensors_[0]};
  call_.remember(*devplug_op_info(DEVPLUG_OP_sum),
                 OpCall{DEVPLUG_OP_sum, one_in, 1, out_, 1, &attrs_, DEVPLUG_DTYPE_FLOAT32}, slot_);
  devplug_reduce_attrs_t same = attrs_;  // another address, the same bytes
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_sum, one_in, 1, out_, 1, &same}), &slot_);
  devplug_reduce_attrs_t other = attrs_;
  other.dims_mask = 1;
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_sum, one_in, 1, out_, 1, &other}), nullptr);
  other = attrs_;
  other.correction = 1;
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_sum, one_in, 1, out_, 1, &other}), nullptr);
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_sum, one_in, 1, out_, 1, nullptr}), nullptr);
  // struct_size below the remembered bytes: not read past it, left to validation.
  size_t too_small = sizeof(size_t);
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_sum, one_in, 1, out_, 1, &too_small}), nullptr);
}

TEST_F(ValidatedCallTest, NeverKeysACallWithTooManyTensors) {
  const devplug_tensor_t* many[5] = {&tensors_[0], &tensors_[1], &tensors_[2], &tensors_[3], &tensors_[0]};
  call_.remember(*devplug_op_info(DEVPLUG_OP_add),
                 OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, nullptr, DEVPLUG_DTYPE_FLOAT32}, slot_);
  call_.remember(*devplug_op_info(DEVPLUG_OP_cat),
                 OpCall{DEVPLUG_OP_cat, many, 5, out_, 1, &attrs_, DEVPLUG_DTYPE_FLOAT32}, slot_);
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_cat, many, 5, out_, 1, &attrs_}), nullptr);
  EXPECT_EQ(call_.match(OpCall{DEVPLUG_OP_add, in_, 2, out_, 1, nullptr}), nullptr);  // forgotten too
}

}  // namespace
}  // namespace devplug::detail
