// SPDX-License-Identifier: Apache-2.0
// Unit tests of type promotion and broadcasting (dispatcher/src/promotion.cpp) against
// PyTorch's documented torch.promote_types table and broadcasting rules.
#include "promotion.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace devplug::detail {
namespace {

using Dims = std::vector<int64_t>;

constexpr devplug_dtype_t b1 = DEVPLUG_DTYPE_BOOL, u1 = DEVPLUG_DTYPE_UINT8, i1 = DEVPLUG_DTYPE_INT8,
                          i2 = DEVPLUG_DTYPE_INT16, i4 = DEVPLUG_DTYPE_INT32, i8 = DEVPLUG_DTYPE_INT64,
                          f2 = DEVPLUG_DTYPE_FLOAT16, bf = DEVPLUG_DTYPE_BFLOAT16, f4 = DEVPLUG_DTYPE_FLOAT32,
                          f8 = DEVPLUG_DTYPE_FLOAT64;

// torch.promote_types(row, column), written out as PyTorch's table has it (rows and
// columns in devplug's dtype order).
constexpr devplug_dtype_t kPyTorchTable[10][10] = {
    /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
    /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
    /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
    /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
    /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
    /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
    /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
    /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
};

TEST(PromoteTypes, MatchesPyTorchTable) {
  for (devplug_dtype_t a = 0; a < DEVPLUG_DTYPE_COUNT; ++a)
    for (devplug_dtype_t b = 0; b < DEVPLUG_DTYPE_COUNT; ++b)
      EXPECT_EQ(promote_types(a, b), kPyTorchTable[a][b])
          << devplug_dtype_name(a) << " + " << devplug_dtype_name(b);
}

TEST(PromoteTypes, DocumentedExamples) {
  EXPECT_EQ(promote_types(u1, i1), i2);
  EXPECT_EQ(promote_types(i4, f2), f2);
  EXPECT_EQ(promote_types(b1, i1), i1);
  EXPECT_EQ(promote_types(f2, bf), f4);
  EXPECT_EQ(promote_types(i8, bf), bf);
}

TEST(PromoteTypes, UnknownDtypes) {
  EXPECT_EQ(promote_types(-1, f4), -1);
  EXPECT_EQ(promote_types(f4, 10), -1);
  EXPECT_EQ(promote_types(1000, 1000), -1);
}

struct BroadcastCase {
  Dims a, b;
  bool ok;
  Dims out;
};

TEST(BroadcastShapes, PyTorchRules) {
  const BroadcastCase cases[] = {
      {{5, 7, 3}, {5, 7, 3}, true, {5, 7, 3}},
      {{5, 3, 4, 1}, {3, 1, 1}, true, {5, 3, 4, 1}},
      {{1}, {3, 1, 7}, true, {3, 1, 7}},
      {{5, 1, 4, 1}, {3, 1, 1}, true, {5, 3, 4, 1}},
      {{}, {2, 3}, true, {2, 3}},
      {{}, {}, true, {}},
      {{0}, {1}, true, {0}},
      {{2, 1}, {1, 0}, true, {2, 0}},
      {{5, 2, 4, 1}, {3, 1, 1}, false, {}},
      {{0}, {2}, false, {}},
      {{3}, {4}, false, {}},
  };
  for (const BroadcastCase& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.a) + " with " + ::testing::PrintToString(c.b));
    int32_t rank = -1;
    int64_t out[DEVPLUG_MAX_RANK] = {};
    Problem p = broadcast_shapes(static_cast<int32_t>(c.a.size()), c.a.data(),
                                 static_cast<int32_t>(c.b.size()), c.b.data(), &rank, out);
    ASSERT_EQ(p.empty(), c.ok) << p;
    if (!c.ok) continue;
    EXPECT_EQ(Dims(out, out + rank), c.out);
    // Symmetric.
    p = broadcast_shapes(static_cast<int32_t>(c.b.size()), c.b.data(), static_cast<int32_t>(c.a.size()),
                         c.a.data(), &rank, out);
    ASSERT_EQ(p, "");
    EXPECT_EQ(Dims(out, out + rank), c.out);
  }
}

TEST(BroadcastShapes, OutputMayAliasAnInput) {
  int64_t a[DEVPLUG_MAX_RANK] = {3, 1};
  int64_t b[] = {2, 1, 4};
  int32_t rank = 0;
  ASSERT_EQ(broadcast_shapes(2, a, 3, b, &rank, a), "");
  EXPECT_EQ(Dims(a, a + rank), (Dims{2, 3, 4}));
}

TEST(BroadcastShapes, BadArguments) {
  Dims a = {3, 4}, negative = {-1, 4}, nine(9, 1);
  int32_t rank;
  int64_t out[DEVPLUG_MAX_RANK];
  EXPECT_NE(broadcast_shapes(2, a.data(), 2, negative.data(), &rank, out).find("shape_b[0] is -1"),
            std::string::npos);
  EXPECT_NE(broadcast_shapes(-1, a.data(), 2, a.data(), &rank, out).find("rank_a"), std::string::npos);
  EXPECT_NE(broadcast_shapes(2, a.data(), 9, nine.data(), &rank, out).find("rank_b"), std::string::npos);
  EXPECT_NE(broadcast_shapes(2, nullptr, 2, a.data(), &rank, out).find("shape_a is NULL"), std::string::npos);
  Dims three = {3};
  EXPECT_NE(broadcast_shapes(2, a.data(), 1, three.data(), &rank, out).find("shape_a[1] = 4"),
            std::string::npos);
}

TEST(ElementwiseResultDtype, FollowsTheResultColumn) {
  EXPECT_EQ(elementwise_result_dtype(DEVPLUG_OP_add, i4), i4);
  EXPECT_EQ(elementwise_result_dtype(DEVPLUG_OP_exp, bf), bf);
  EXPECT_EQ(elementwise_result_dtype(DEVPLUG_OP_lt, f4), b1);
  EXPECT_EQ(elementwise_result_dtype(DEVPLUG_OP_isnan, f2), b1);
  EXPECT_EQ(elementwise_result_dtype(DEVPLUG_OP_signbit, i8), b1);
  EXPECT_EQ(elementwise_result_dtype(DEVPLUG_OP_argmax, f4), i8);
  EXPECT_EQ(elementwise_result_dtype(DEVPLUG_OP_where, f8), f8);
  EXPECT_EQ(elementwise_result_dtype(DEVPLUG_OP_INVALID, f4), -1);
  EXPECT_EQ(elementwise_result_dtype(9999, f4), -1);
  // Every op of the table: the column decides.
  for (devplug_op_t op = 1; op < DEVPLUG_OP_END_; ++op) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (!info) continue;
    devplug_dtype_t expected = info->result == DEVPLUG_RESULT_bool    ? b1
                               : info->result == DEVPLUG_RESULT_int64 ? i8
                                                                      : f4;
    EXPECT_EQ(elementwise_result_dtype(op, f4), expected) << info->name;
  }
}

}  // namespace
}  // namespace devplug::detail
