// SPDX-License-Identifier: Apache-2.0
// Unit tests of the view metadata (dispatcher/src/layout.cpp), checked against the shapes,
// strides and storage offsets PyTorch documents for the same views.
#include "layout.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace devplug::detail {
namespace {

using Dims = std::vector<int64_t>;

Layout contiguous(Dims shape, devplug_dtype_t dtype = DEVPLUG_DTYPE_FLOAT32) {
  return contiguous_layout(dtype, static_cast<int32_t>(shape.size()), shape.data());
}

Layout strided(Dims shape, Dims strides, int64_t offset = 0) {
  Layout l;
  l.rank = static_cast<int32_t>(shape.size());
  for (int32_t d = 0; d < l.rank; ++d) {
    l.shape[d] = shape[d];
    l.strides[d] = strides[d];
  }
  l.offset = offset;
  return l;
}

Dims shape_of(const Layout& l) { return Dims(l.shape, l.shape + l.rank); }
Dims strides_of(const Layout& l) { return Dims(l.strides, l.strides + l.rank); }

#define EXPECT_VIEW(l, want_shape, want_strides, want_offset) \
  do {                                                        \
    EXPECT_EQ(shape_of(l), Dims want_shape);                  \
    EXPECT_EQ(strides_of(l), Dims want_strides);              \
    EXPECT_EQ((l).offset, (want_offset));                     \
  } while (0)

// ---- check_shape -------------------------------------------------------------------

TEST(CheckShape, AcceptsOrdinaryAndEmptyShapes) {
  Dims s = {2, 3, 0, 5};
  EXPECT_EQ(check_shape(4, s.data(), DEVPLUG_DTYPE_FLOAT64, "shape"), "");
  EXPECT_EQ(check_shape(0, nullptr, DEVPLUG_DTYPE_BOOL, "shape"), "");
  Dims large_but_empty = {INT64_MAX, 0, 1};
  EXPECT_EQ(check_shape(3, large_but_empty.data(), DEVPLUG_DTYPE_FLOAT64, "shape"), "");
  Dims max_bool = {INT64_MAX};
  EXPECT_EQ(check_shape(1, max_bool.data(), DEVPLUG_DTYPE_BOOL, "shape"), "");
}

TEST(CheckShape, RefusesBadShapes) {
  Dims negative = {2, -3};
  EXPECT_EQ(check_shape(2, negative.data(), DEVPLUG_DTYPE_FLOAT32, "shape"),
            "shape[1] is -3, dims must be >= 0");
  Dims nine(9, 1);
  EXPECT_NE(check_shape(9, nine.data(), DEVPLUG_DTYPE_FLOAT32, "shape"), "");
  EXPECT_NE(check_shape(-1, nine.data(), DEVPLUG_DTYPE_FLOAT32, "shape"), "");
  EXPECT_NE(check_shape(2, nullptr, DEVPLUG_DTYPE_FLOAT32, "shape").find("NULL"), std::string::npos);
  Dims ok = {2};
  EXPECT_NE(check_shape(1, ok.data(), 10, "shape").find("dtype 10"), std::string::npos);
  EXPECT_NE(check_shape(1, ok.data(), -1, "shape"), "");
  Dims count_overflow = {int64_t(1) << 32, int64_t(1) << 32};
  EXPECT_NE(check_shape(2, count_overflow.data(), DEVPLUG_DTYPE_BOOL, "shape").find("overflows"),
            std::string::npos);
  Dims byte_overflow = {int64_t(1) << 62};
  EXPECT_NE(check_shape(1, byte_overflow.data(), DEVPLUG_DTYPE_FLOAT32, "shape").find("bytes"),
            std::string::npos);
  Dims big3 = {INT64_MAX, INT64_MAX, INT64_MAX};
  EXPECT_NE(check_shape(3, big3.data(), DEVPLUG_DTYPE_BOOL, "shape"), "");
}

// Found by fuzz_views (UBSan: signed overflow in contiguous_layout): an empty shape whose
// other dims multiply past int64 has no element, but its dense strides overflow, and so does
// the element count of any code that multiplies its dims before meeting the 0 (every
// plugin's numel). Refused like a count that overflows.
TEST(CheckShape, RefusesEmptyShapesWhoseOtherDimsOverflow) {
  for (Dims shape :
       {Dims{0, 4021925229619697471, 6}, Dims{INT64_MAX, 0, INT64_MAX}, Dims{int64_t(1) << 62, 4, 0}}) {
    EXPECT_NE(check_shape(3, shape.data(), DEVPLUG_DTYPE_BOOL, "shape").find("non-zero dims"),
              std::string::npos);
  }
  Layout empty = contiguous({0});
  Layout out;
  Dims to = {0, int64_t(1) << 62, 8};
  EXPECT_NE(view_reshape(empty, 3, to.data(), &out), "");
  Dims wide = {int64_t(1) << 62, 4, 0};
  EXPECT_NE(view_expand(empty, 3, wide.data(), &out), "");
}

// ---- contiguity, ranges, bounds ------------------------------------------------------

TEST(Layout, ContiguousStridesAsPyTorch) {
  EXPECT_EQ(strides_of(contiguous({2, 3, 4})), (Dims{12, 4, 1}));
  EXPECT_EQ(strides_of(contiguous({2, 0, 4})), (Dims{4, 4, 1}));  // torch.empty(2,0,4).stride()
  EXPECT_EQ(numel(contiguous({2, 3, 4})), 24);
  EXPECT_EQ(numel(contiguous({})), 1);
  EXPECT_EQ(numel(contiguous({3, 0})), 0);
}

TEST(Layout, IsContiguous) {
  EXPECT_TRUE(is_contiguous(contiguous({2, 3})));
  EXPECT_FALSE(is_contiguous(strided({3, 2}, {1, 3})));
  EXPECT_TRUE(is_contiguous(strided({2, 1, 3}, {3, 99, 1})));  // size-1 strides ignored
  EXPECT_TRUE(is_contiguous(strided({2, 0}, {5, 7})));
  EXPECT_FALSE(is_contiguous(strided({3}, {-1}, 2)));
  EXPECT_FALSE(is_contiguous(strided({3, 2}, {0, 1})));
}

TEST(Layout, ElementRange) {
  int64_t lo = -7, hi = -7;
  ASSERT_TRUE(element_range(strided({3, 4}, {4, 1}, 2), &lo, &hi));
  EXPECT_EQ(lo, 2);
  EXPECT_EQ(hi, 13);
  ASSERT_TRUE(element_range(strided({3, 4}, {-4, 1}, 8), &lo, &hi));
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 11);
  ASSERT_TRUE(element_range(contiguous({}), &lo, &hi));
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 0);
  lo = hi = -7;
  EXPECT_FALSE(element_range(contiguous({3, 0}), &lo, &hi));
  EXPECT_EQ(lo, -7);
}

TEST(Layout, CheckInStorage) {
  EXPECT_EQ(check_in_storage(contiguous({2, 3}), 24, "t"), "");
  EXPECT_NE(check_in_storage(contiguous({2, 3}), 23, "t"), "");
  EXPECT_EQ(check_in_storage(strided({3}, {-1}, 2), 12, "t"), "");
  EXPECT_NE(check_in_storage(strided({3}, {-1}, 1), 12, "t"), "");
  EXPECT_EQ(check_in_storage(contiguous({0, 5}), 0, "t"), "");  // empty reaches nothing
  EXPECT_EQ(check_in_storage(strided({5, 0}, {INT64_MAX, 1}, INT64_MAX), 0, "t"), "");
  EXPECT_EQ(check_in_storage(contiguous({}), 4, "t"), "");
  EXPECT_NE(check_in_storage(contiguous({}), 3, "t"), "");
  EXPECT_NE(check_in_storage(strided({}, {}, -1), 100, "t"), "");
}

TEST(Layout, CheckInStorageNeverOverflows) {
  const int64_t big = INT64_MAX;
  EXPECT_NE(check_in_storage(strided({2}, {big}), UINT64_MAX, "t"), "");
  EXPECT_NE(check_in_storage(strided({big}, {big}), UINT64_MAX, "t"), "");
  EXPECT_NE(check_in_storage(strided({big}, {INT64_MIN}, big), UINT64_MAX, "t"), "");
  EXPECT_NE(check_in_storage(
                strided({big, big, big, big, big, big, big, big}, {big, big, big, big, big, big, big, big}),
                UINT64_MAX, "t"),
            "");
  EXPECT_NE(check_in_storage(strided({big, big, big, big, big, big, big, big},
                                     {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN,
                                      INT64_MIN, INT64_MIN},
                                     big),
                             UINT64_MAX, "t"),
            "");
  // The last element's end byte (offset + 1) * 8 would overflow int64.
  Layout l = strided({}, {}, big / 4);
  l.dtype = DEVPLUG_DTYPE_FLOAT64;
  EXPECT_NE(check_in_storage(l, UINT64_MAX, "t"), "");
  Layout bad_dtype = contiguous({1});
  bad_dtype.dtype = 99;
  EXPECT_NE(check_in_storage(bad_dtype, 100, "t"), "");
  Layout bad_shape = strided({-1}, {1});
  EXPECT_NE(check_in_storage(bad_shape, 100, "t"), "");
}

TEST(Layout, MessageNamesTheTensor) {
  EXPECT_NE(check_in_storage(contiguous({4}), 8, "inputs[1]").find("inputs[1]"), std::string::npos);
}

TEST(Layout, OverlapsItself) {
  EXPECT_FALSE(overlaps_itself(contiguous({2, 3, 4})));
  EXPECT_FALSE(overlaps_itself(strided({4, 3}, {1, 4})));       // transposed
  EXPECT_FALSE(overlaps_itself(strided({3, 2}, {-2, -1}, 5)));  // flipped
  EXPECT_FALSE(overlaps_itself(strided({2, 3}, {10, 2})));      // sliced with step
  EXPECT_FALSE(overlaps_itself(strided({1, 3}, {0, 1})));       // size-1 dim, stride 0
  EXPECT_FALSE(overlaps_itself(strided({0, 3}, {0, 0})));       // empty
  EXPECT_FALSE(overlaps_itself(contiguous({})));
  EXPECT_TRUE(overlaps_itself(strided({2, 3}, {0, 1})));  // expanded
  EXPECT_TRUE(overlaps_itself(strided({3, 3}, {1, 1})));  // sliding window
  EXPECT_TRUE(overlaps_itself(strided({2, 2}, {1, -1}, 1)));
  // Reaches 0 3 2 5 4 7 without a repeat, but the strides interleave: the contract
  // allows a conservative true here.
  EXPECT_TRUE(overlaps_itself(strided({3, 2}, {2, 3})));
  EXPECT_FALSE(overlaps_itself(strided({2, 2}, {INT64_MAX / 2, 1})));
  // Absurd layouts (never inside a storage) still get an answer without overflow.
  const int64_t big = INT64_MAX;
  EXPECT_TRUE(overlaps_itself(strided({big, big, big}, {1, big, big})));
  EXPECT_FALSE(overlaps_itself(strided({big}, {big})));
}

TEST(Layout, MayOverlap) {
  Layout first_half = strided({4}, {1}, 0);
  Layout second_half = strided({4}, {1}, 4);
  EXPECT_FALSE(may_overlap(first_half, second_half));
  EXPECT_TRUE(may_overlap(first_half, strided({4}, {1}, 3)));
  EXPECT_TRUE(may_overlap(strided({4}, {2}, 0), strided({4}, {2}, 1)));  // interleaved: unsure
  EXPECT_FALSE(may_overlap(first_half, strided({0}, {1}, 0)));
  // Byte ranges: an int8 view of byte 4 is inside float32 element 1.
  Layout bytes = strided({1}, {1}, 4);
  bytes.dtype = DEVPLUG_DTYPE_INT8;
  EXPECT_TRUE(may_overlap(strided({1}, {1}, 1), bytes));
  EXPECT_FALSE(may_overlap(strided({1}, {1}, 0), bytes));
}

TEST(Layout, SameView) {
  EXPECT_TRUE(same_view(contiguous({2, 3}), contiguous({2, 3})));
  EXPECT_FALSE(same_view(contiguous({2, 3}), contiguous({3, 2})));
  EXPECT_FALSE(same_view(contiguous({2, 3}), contiguous({2, 3}, DEVPLUG_DTYPE_INT32)));
  EXPECT_FALSE(same_view(strided({2}, {1}, 0), strided({2}, {1}, 1)));
  Layout a = contiguous({2}), b = contiguous({2});
  b.strides[5] = 42;  // past the rank: ignored
  EXPECT_TRUE(same_view(a, b));
}

// ---- reshape ------------------------------------------------------------------------

struct ReshapeCase {
  Dims in_shape, in_strides;
  Dims target;
  bool ok;
  Dims out_shape, out_strides;
};

TEST(ViewReshape, MatchesPyTorchView) {
  const ReshapeCase cases[] = {
      {{2, 3, 4}, {12, 4, 1}, {6, 4}, true, {6, 4}, {4, 1}},
      {{2, 3, 4}, {12, 4, 1}, {4, -1}, true, {4, 6}, {6, 1}},
      {{2, 3, 4}, {12, 4, 1}, {-1}, true, {24}, {1}},
      {{2, 3, 4}, {12, 4, 1}, {2, 1, 12, 1}, true, {2, 1, 12, 1}, {12, 12, 1, 1}},
      // x = torch.empty(3, 2).t(): shape [2, 3] strides [1, 2]
      {{2, 3}, {1, 2}, {6}, false, {}, {}},
      {{2, 3}, {1, 2}, {2, 3, 1}, true, {2, 3, 1}, {1, 2, 2}},
      {{2, 3}, {1, 2}, {1, 2, 3}, true, {1, 2, 3}, {2, 1, 2}},
      // torch.empty(4, 6)[:, :4]: shape [4, 4] strides [6, 1]: rows split, not merged
      {{4, 4}, {6, 1}, {4, 2, 2}, true, {4, 2, 2}, {6, 2, 1}},
      {{4, 4}, {6, 1}, {16}, false, {}, {}},
      {{4, 4}, {6, 1}, {2, 8}, false, {}, {}},
      {{4, 4}, {6, 1}, {2, 2, 4}, true, {2, 2, 4}, {12, 6, 1}},
      // expanded [3, 4] with strides [0, 1]: the stride-0 dim stays separate
      {{3, 4}, {0, 1}, {3, 2, 2}, true, {3, 2, 2}, {0, 2, 1}},
      {{3, 4}, {0, 1}, {12}, false, {}, {}},
      // flipped view [4] stride -1 splits with negative strides
      {{4}, {-1}, {2, 2}, true, {2, 2}, {-2, -1}},
      // 0-d to [1, 1] and back
      {{}, {}, {1, 1}, true, {1, 1}, {1, 1}},
      {{1, 1}, {1, 1}, {}, true, {}, {}},
      {{1}, {1}, {-1}, true, {1}, {1}},
      // empty tensors: same shape keeps strides, a new shape is contiguous
      {{0, 3}, {7, 2}, {0, 3}, true, {0, 3}, {7, 2}},
      {{0, 3}, {7, 2}, {3, 0}, true, {3, 0}, {1, 1}},
      {{0, 3}, {7, 2}, {2, 0, 5}, true, {2, 0, 5}, {5, 5, 1}},
  };
  for (const ReshapeCase& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.in_shape) + " -> " + ::testing::PrintToString(c.target));
    Layout in = strided(c.in_shape, c.in_strides, 3), out;
    Problem p = view_reshape(in, static_cast<int32_t>(c.target.size()), c.target.data(), &out);
    EXPECT_EQ(p.empty(), c.ok) << p;
    if (!c.ok || !p.empty()) continue;
    EXPECT_EQ(shape_of(out), c.out_shape);
    EXPECT_EQ(strides_of(out), c.out_strides);
    EXPECT_EQ(out.offset, 3);
  }
}

TEST(ViewReshape, RefusesBadShapes) {
  Layout in = contiguous({2, 3, 4}), out;
  Dims two_minus_ones = {-1, -1}, wrong_count = {5, 5}, negative = {-2, 12}, zero_infer = {0, -1},
       not_divisible = {5, -1}, overflow = {INT64_MAX, INT64_MAX, -1};
  EXPECT_NE(view_reshape(in, 2, two_minus_ones.data(), &out).find("both -1"), std::string::npos);
  EXPECT_NE(view_reshape(in, 2, wrong_count.data(), &out).find("24"), std::string::npos);
  EXPECT_NE(view_reshape(in, 2, negative.data(), &out).find("shape[0] is -2"), std::string::npos);
  EXPECT_NE(view_reshape(in, 2, zero_infer.data(), &out), "");
  EXPECT_NE(view_reshape(in, 2, not_divisible.data(), &out), "");
  EXPECT_NE(view_reshape(in, 3, overflow.data(), &out), "");
  EXPECT_NE(view_reshape(in, 9, wrong_count.data(), &out), "");
  EXPECT_NE(view_reshape(in, 2, nullptr, &out), "");
  Layout empty = contiguous({0, 4});
  EXPECT_NE(view_reshape(empty, 2, zero_infer.data(), &out), "");  // PyTorch: ambiguous
}

// ---- permute / transpose ---------------------------------------------------------------

TEST(ViewPermute, MatchesPyTorch) {
  Layout in = contiguous({2, 3, 4}), out;
  int32_t dims[] = {2, 0, 1};
  ASSERT_EQ(view_permute(in, dims, &out), "");
  EXPECT_VIEW(out, ({4, 2, 3}), ({1, 12, 4}), 0);
  int32_t negative[] = {-1, 0, -2};
  ASSERT_EQ(view_permute(in, negative, &out), "");
  EXPECT_VIEW(out, ({4, 2, 3}), ({1, 12, 4}), 0);
  ASSERT_EQ(view_permute(contiguous({}), nullptr, &out), "");
  EXPECT_EQ(out.rank, 0);
}

TEST(ViewPermute, RefusesNonPermutations) {
  Layout in = contiguous({2, 3, 4}), out;
  int32_t repeated[] = {0, 0, 1}, out_of_range[] = {0, 1, 3}, too_negative[] = {-4, 0, 1},
          same_dim_twice[] = {2, -1, 0};
  EXPECT_NE(view_permute(in, repeated, &out).find("dims[1]"), std::string::npos);
  EXPECT_NE(view_permute(in, out_of_range, &out).find("dims[2] is 3"), std::string::npos);
  EXPECT_NE(view_permute(in, too_negative, &out), "");
  EXPECT_NE(view_permute(in, same_dim_twice, &out), "");
  EXPECT_NE(view_permute(in, nullptr, &out), "");
}

TEST(ViewTranspose, MatchesPyTorch) {
  Layout in = contiguous({2, 3, 4}), out;
  ASSERT_EQ(view_transpose(in, 0, 2, &out), "");
  EXPECT_VIEW(out, ({4, 3, 2}), ({1, 4, 12}), 0);
  ASSERT_EQ(view_transpose(in, -1, -2, &out), "");
  EXPECT_VIEW(out, ({2, 4, 3}), ({12, 1, 4}), 0);
  ASSERT_EQ(view_transpose(in, 1, 1, &out), "");
  EXPECT_VIEW(out, ({2, 3, 4}), ({12, 4, 1}), 0);
  ASSERT_EQ(view_transpose(contiguous({}), 0, -1, &out), "");  // torch.tensor(1.).t()
  EXPECT_NE(view_transpose(in, 3, 0, &out).find("dim0 is 3"), std::string::npos);
  EXPECT_NE(view_transpose(in, 0, -4, &out).find("dim1"), std::string::npos);
  EXPECT_NE(view_transpose(contiguous({}), 1, 0, &out), "");
}

// ---- expand ----------------------------------------------------------------------------

TEST(ViewExpand, MatchesPyTorch) {
  Layout in = strided({3, 1}, {1, 1}, 2), out;
  Dims to = {2, 3, 4};
  ASSERT_EQ(view_expand(in, 3, to.data(), &out), "");
  EXPECT_VIEW(out, ({2, 3, 4}), ({0, 1, 0}), 2);
  Dims keep = {-1, 5};
  ASSERT_EQ(view_expand(in, 2, keep.data(), &out), "");
  EXPECT_VIEW(out, ({3, 5}), ({1, 0}), 2);
  Dims to_zero = {3, 0};
  ASSERT_EQ(view_expand(in, 2, to_zero.data(), &out), "");
  EXPECT_VIEW(out, ({3, 0}), ({1, 0}), 2);
  Dims same = {3, 1};
  ASSERT_EQ(view_expand(in, 2, same.data(), &out), "");
  EXPECT_VIEW(out, ({3, 1}), ({1, 1}), 2);
  Dims scalar_to = {2, 2};
  ASSERT_EQ(view_expand(contiguous({}), 2, scalar_to.data(), &out), "");
  EXPECT_VIEW(out, ({2, 2}), ({0, 0}), 0);
  Dims new_zero = {0, 3, 1};
  ASSERT_EQ(view_expand(in, 3, new_zero.data(), &out), "");
  EXPECT_VIEW(out, ({0, 3, 1}), ({0, 1, 1}), 2);
}

TEST(ViewExpand, RefusesWhatPyTorchRefuses) {
  Layout in = strided({3, 1}, {1, 1}), out;
  Dims mismatch = {4, 1}, leading_minus_one = {-1, 3, 1}, fewer = {3}, negative = {3, -2},
       overflow = {INT64_MAX, 3, 2};
  EXPECT_NE(view_expand(in, 2, mismatch.data(), &out).find("shape[0] is 4"), std::string::npos);
  EXPECT_NE(view_expand(in, 3, leading_minus_one.data(), &out).find("leading"), std::string::npos);
  EXPECT_NE(view_expand(in, 1, fewer.data(), &out), "");
  EXPECT_NE(view_expand(in, 2, negative.data(), &out), "");
  EXPECT_NE(view_expand(in, 3, overflow.data(), &out).find("overflows"), std::string::npos);
  EXPECT_NE(view_expand(in, 9, overflow.data(), &out), "");
  EXPECT_NE(view_expand(in, 2, nullptr, &out), "");
}

// ---- slice -----------------------------------------------------------------------------

struct SliceCase {
  int64_t start, stop, step;
  int64_t length, stride, offset;  // of a [10] tensor with stride 2 and offset 1
};

TEST(ViewSlice, PythonSliceRules) {
  constexpr int64_t kEnd = INT64_MAX, kBegin = INT64_MIN;
  const SliceCase cases[] = {
      {2, 8, 2, 3, 4, 5},              // x[2:8:2] -> 2, 4, 6
      {0, kEnd, 1, 10, 2, 1},          // x[:]
      {-3, kEnd, 1, 3, 2, 15},         // x[-3:] -> 7, 8, 9
      {5, 100, 1, 5, 2, 11},           // stop clamped
      {-100, 3, 1, 3, 2, 1},           // start clamped to 0
      {3, 3, 1, 0, 2, 7},              // empty; offset as PyTorch
      {8, 2, 1, 0, 2, 17},             // empty
      {12, kEnd, 1, 0, 2, 21},         // start clamped to the length
      {kEnd, kBegin, -1, 10, -2, 19},  // x[::-1]
      {8, 2, -3, 2, -6, 17},           // x[8:2:-3] -> 8, 5
      {kEnd, kBegin, -4, 3, -8, 19},   // x[::-4] -> 9, 5, 1
      {-1, -11, -1, 10, -2, 19},       // x[-1:-11:-1]
      {2, 8, -1, 0, -2, 5},            // empty backward slice
      {-20, kBegin, -1, 0, -2, 1},     // start before the beginning, backward: empty
      {0, kEnd, kEnd, 1, 2, 1},        // huge step: one element, stride not representable
      {9, -11, kBegin, 1, 2, 19},      // most negative step: one element
      {0, 10, 3, 4, 6, 1},             // 0, 3, 6, 9
      {1, 10, 3, 3, 6, 3},             // 1, 4, 7
  };
  for (const SliceCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.start) + ":" + std::to_string(c.stop) + ":" + std::to_string(c.step));
    Layout in = strided({10}, {2}, 1), out;
    ASSERT_EQ(view_slice(in, 0, c.start, c.stop, c.step, &out), "");
    EXPECT_EQ(out.shape[0], c.length);
    if (c.length > 1) {
      EXPECT_EQ(out.strides[0], c.stride);
    }
    EXPECT_EQ(out.offset, c.offset);
    EXPECT_EQ(check_in_storage(out, 21 * 4, "slice"), "");
  }
}

TEST(ViewSlice, OtherDimsAndErrors) {
  Layout in = contiguous({4, 5}), out;
  ASSERT_EQ(view_slice(in, -1, 1, 4, 2, &out), "");
  EXPECT_VIEW(out, ({4, 2}), ({5, 2}), 1);
  ASSERT_EQ(view_slice(in, 0, INT64_MAX, INT64_MIN, -2, &out), "");
  EXPECT_VIEW(out, ({2, 5}), ({-10, 1}), 15);
  EXPECT_EQ(view_slice(in, 1, 0, 5, 0, &out), "step is 0");
  EXPECT_NE(view_slice(in, 2, 0, 5, 1, &out).find("dim is 2"), std::string::npos);
  EXPECT_NE(view_slice(in, -3, 0, 5, 1, &out), "");
  EXPECT_NE(view_slice(contiguous({}), 0, 0, 1, 1, &out), "");
}

// ---- squeeze / unsqueeze ---------------------------------------------------------------

TEST(ViewSqueeze, MatchesPyTorch) {
  Layout in = strided({2, 1, 3}, {3, 7, 1}), out;
  ASSERT_EQ(view_squeeze(in, 1, &out), "");
  EXPECT_VIEW(out, ({2, 3}), ({3, 1}), 0);
  ASSERT_EQ(view_squeeze(in, -2, &out), "");
  EXPECT_VIEW(out, ({2, 3}), ({3, 1}), 0);
  ASSERT_EQ(view_squeeze(contiguous({1}), 0, &out), "");
  EXPECT_EQ(out.rank, 0);
  ASSERT_EQ(view_squeeze(contiguous({}), -1, &out), "");  // a 0-d tensor stays 0-d
  EXPECT_EQ(out.rank, 0);
  EXPECT_NE(view_squeeze(in, 0, &out).find("size 2"), std::string::npos);
  EXPECT_NE(view_squeeze(in, 3, &out), "");
}

TEST(ViewUnsqueeze, StridesAsPyTorch) {
  Layout in = contiguous({2, 3}), out;
  ASSERT_EQ(view_unsqueeze(in, 0, &out), "");
  EXPECT_VIEW(out, ({1, 2, 3}), ({6, 3, 1}), 0);
  ASSERT_EQ(view_unsqueeze(in, 1, &out), "");
  EXPECT_VIEW(out, ({2, 1, 3}), ({3, 3, 1}), 0);
  ASSERT_EQ(view_unsqueeze(in, 2, &out), "");
  EXPECT_VIEW(out, ({2, 3, 1}), ({3, 1, 1}), 0);
  ASSERT_EQ(view_unsqueeze(in, -1, &out), "");
  EXPECT_VIEW(out, ({2, 3, 1}), ({3, 1, 1}), 0);
  ASSERT_EQ(view_unsqueeze(in, -3, &out), "");
  EXPECT_VIEW(out, ({1, 2, 3}), ({6, 3, 1}), 0);
  ASSERT_EQ(view_unsqueeze(strided({3, 2}, {1, 3}), 1, &out), "");  // transposed
  EXPECT_VIEW(out, ({3, 1, 2}), ({1, 6, 3}), 0);
  ASSERT_EQ(view_unsqueeze(contiguous({}), 0, &out), "");
  EXPECT_VIEW(out, ({1}), ({1}), 0);
  EXPECT_NE(view_unsqueeze(in, 3, &out), "");
  EXPECT_NE(view_unsqueeze(in, -4, &out), "");
  EXPECT_NE(view_unsqueeze(contiguous({1, 1, 1, 1, 1, 1, 1, 1}), 0, &out).find("rank 8"), std::string::npos);
}

// ---- diagonal --------------------------------------------------------------------------

struct DiagonalCase {
  int64_t offset;
  int32_t dim0, dim1;
  Dims shape, strides;
  int64_t storage_offset;
};

TEST(ViewDiagonal, MatchesPyTorch) {
  // torch.empty(3, 4).diagonal(...) and torch.empty(2, 3, 4).diagonal(...)
  const DiagonalCase matrix[] = {
      {0, 0, 1, {3}, {5}, 0},         {1, 0, 1, {3}, {5}, 1},         {2, 0, 1, {2}, {5}, 2},
      {-1, 0, 1, {2}, {5}, 4},        {-2, 0, 1, {1}, {5}, 8},        {4, 0, 1, {0}, {5}, 0},
      {-3, 0, 1, {0}, {5}, 0},        {0, 1, 0, {3}, {5}, 0},         {1, 1, 0, {2}, {5}, 4},
      {INT64_MAX, 0, 1, {0}, {5}, 0}, {INT64_MIN, 0, 1, {0}, {5}, 0},
  };
  for (const DiagonalCase& c : matrix) {
    SCOPED_TRACE(c.offset);
    Layout out;
    ASSERT_EQ(view_diagonal(contiguous({3, 4}), c.offset, c.dim0, c.dim1, &out), "");
    EXPECT_EQ(shape_of(out), c.shape);
    EXPECT_EQ(strides_of(out), c.strides);
    EXPECT_EQ(out.offset, c.storage_offset);
  }
  const DiagonalCase cube[] = {
      {0, 1, 2, {2, 3}, {12, 5}, 0},
      {0, 0, 2, {3, 2}, {4, 13}, 0},
      {1, -1, 0, {3, 1}, {4, 13}, 12},
      {0, -2, -1, {2, 3}, {12, 5}, 0},
  };
  for (const DiagonalCase& c : cube) {
    SCOPED_TRACE(std::to_string(c.dim0) + "," + std::to_string(c.dim1));
    Layout out;
    ASSERT_EQ(view_diagonal(contiguous({2, 3, 4}), c.offset, c.dim0, c.dim1, &out), "");
    EXPECT_EQ(shape_of(out), c.shape);
    EXPECT_EQ(strides_of(out), c.strides);
    EXPECT_EQ(out.offset, c.storage_offset);
  }
}

TEST(ViewDiagonal, Errors) {
  Layout out;
  EXPECT_NE(view_diagonal(contiguous({3}), 0, 0, 1, &out).find("rank 1"), std::string::npos);
  EXPECT_NE(view_diagonal(contiguous({3, 3}), 0, 1, -1, &out).find("differ"), std::string::npos);
  EXPECT_NE(view_diagonal(contiguous({3, 3}), 0, 0, 2, &out).find("dim1"), std::string::npos);
}

// ---- as_strided ------------------------------------------------------------------------

TEST(ViewAsStrided, InsideTheStorage) {
  Layout in = contiguous({10}), out;  // float32: 40 bytes
  Dims shape = {3, 3}, window = {1, 1};
  ASSERT_EQ(view_as_strided(in, 2, shape.data(), window.data(), 1, 40, &out), "");
  EXPECT_VIEW(out, ({3, 3}), ({1, 1}), 1);
  Dims back_shape = {3}, back = {-1};
  ASSERT_EQ(view_as_strided(in, 1, back_shape.data(), back.data(), 2, 40, &out), "");
  EXPECT_VIEW(out, ({3}), ({-1}), 2);
  ASSERT_EQ(view_as_strided(in, 0, nullptr, nullptr, 9, 40, &out), "");
  EXPECT_EQ(out.rank, 0);
  Dims empty = {0};
  ASSERT_EQ(view_as_strided(in, 1, empty.data(), window.data(), 1000, 40, &out), "");
  EXPECT_EQ(out.dtype, DEVPLUG_DTYPE_FLOAT32);
}

TEST(ViewAsStrided, OutsideTheStorage) {
  Layout in = contiguous({10}), out = contiguous({7});
  Dims three = {3}, back = {-1}, wide = {9}, huge = {INT64_MAX}, negative = {-3};
  EXPECT_NE(view_as_strided(in, 1, three.data(), back.data(), 1, 40, &out), "");
  EXPECT_NE(view_as_strided(in, 1, three.data(), wide.data(), 0, 40, &out), "");
  EXPECT_NE(view_as_strided(in, 1, three.data(), huge.data(), 0, 40, &out), "");
  EXPECT_NE(view_as_strided(in, 0, nullptr, nullptr, 10, 40, &out), "");
  EXPECT_NE(view_as_strided(in, 0, nullptr, nullptr, -1, 40, &out).find("storage_offset"), std::string::npos);
  EXPECT_NE(view_as_strided(in, 1, negative.data(), back.data(), 0, 40, &out), "");
  EXPECT_NE(view_as_strided(in, 1, three.data(), nullptr, 0, 40, &out).find("strides"), std::string::npos);
  EXPECT_NE(view_as_strided(in, 9, three.data(), back.data(), 0, 40, &out), "");
  EXPECT_EQ(shape_of(out), (Dims{7}));  // untouched on failure
}

}  // namespace
}  // namespace devplug::detail
