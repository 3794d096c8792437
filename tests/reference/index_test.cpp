// SPDX-License-Identifier: Apache-2.0
// Reference backend: indexing (index_select gather scatter scatter_add) and shape ops (cat
// flip constant_pad). Expectations are worked examples written by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;
namespace sdk = devplug::sdk;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

rt::Tensor tensor(devplug_dtype_t dtype, const std::vector<int64_t>& shape,
                  const std::vector<double>& values) {
  rt::Tensor t = rt::make_tensor(dtype, shape);
  if (!values.empty()) rt::write_doubles(t, values);
  return t;
}

rt::Tensor index_tensor(const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  rt::Tensor t = rt::make_tensor(DEVPLUG_DTYPE_INT64, shape);
  if (!values.empty()) rt::write<int64_t>(t, values);
  return t;
}

devplug_dim_attrs_t dim_attrs(int32_t dim) { return devplug_dim_attrs_t{sizeof(devplug_dim_attrs_t), dim}; }

std::vector<devplug_dtype_t> dtypes_of(devplug_op_t op) {
  std::vector<devplug_dtype_t> out;
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
    if (devplug_op_info(op)->dtypes & DEVPLUG_DTYPE_BIT(d)) out.push_back(d);
  return out;
}

// Values 1..n that every dtype holds exactly (bool: 0/1 pattern).
std::vector<double> counting(devplug_dtype_t d, int n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = d == DEVPLUG_DTYPE_BOOL ? (i % 3 == 1) : i + 1;
  return v;
}

// Picks values[i] for each i in `order`.
std::vector<double> pick(const std::vector<double>& values, const std::vector<int>& order) {
  std::vector<double> out;
  for (int i : order) out.push_back(values[static_cast<size_t>(i)]);
  return out;
}

void expect_same(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "sign of element " << i;
    }
  }
}

TEST(ReferenceIndex, DeclaresEveryIndexAndShapeDtype) {
  for (devplug_op_t op : sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (info->category != DEVPLUG_CATEGORY_index && info->category != DEVPLUG_CATEGORY_shape) continue;
    for (devplug_dtype_t d : dtypes_of(op))
      EXPECT_NE(rt::find_kernel(op, d), nullptr) << info->name << " " << devplug_dtype_name(d);
  }
}

// ---- index_select --------------------------------------------------------------------------

TEST(ReferenceIndex, IndexSelectEveryDtype) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_index_select)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const std::vector<double> v = counting(d, 6);  // [[v0 v1 v2] [v3 v4 v5]]
    rt::Tensor in = tensor(d, {2, 3}, v);
    rt::Tensor index = index_tensor({4}, {2, 0, 2, 1});
    rt::Tensor out = rt::make_tensor(d, {2, 4});
    const devplug_dim_attrs_t attrs = dim_attrs(1);
    rt::run_ok(DEVPLUG_OP_index_select, {&in, &index}, {&out}, &attrs);
    expect_same(rt::read_doubles(out), pick(v, {2, 0, 2, 1, 5, 3, 5, 4}));
    rt::Tensor rows = index_tensor({3}, {1, 1, 0});
    rt::Tensor out0 = rt::make_tensor(d, {3, 3});
    const devplug_dim_attrs_t attrs0 = dim_attrs(0);
    rt::run_ok(DEVPLUG_OP_index_select, {&in, &rows}, {&out0}, &attrs0);
    expect_same(rt::read_doubles(out0), pick(v, {3, 4, 5, 3, 4, 5, 0, 1, 2}));
  }
}

TEST(ReferenceIndex, IndexSelectStridedIndexAndEmpty) {
  rt::Tensor in = tensor(DEVPLUG_DTYPE_FLOAT32, {3}, {10, 20, 30});
  // Index [2, 0] read through stride -1 from storage [0, 2].
  rt::Tensor index = rt::make_tensor(DEVPLUG_DTYPE_INT64, {2}, {-1});
  rt::write<int64_t>(index, {2, 0});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  rt::run_ok(DEVPLUG_OP_index_select, {&in, &index}, {&out}, &attrs);
  expect_same(rt::read_doubles(out), {30, 10});
  rt::Tensor none = index_tensor({0}, {});
  rt::Tensor empty = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {0});
  rt::run_ok(DEVPLUG_OP_index_select, {&in, &none}, {&empty}, &attrs);
}

TEST(ReferenceIndex, OutOfRangeIndexIsRefusedBeforeWriting) {
  rt::Tensor in = tensor(DEVPLUG_DTYPE_INT32, {3}, {1, 2, 3});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  for (int64_t bad : {int64_t{3}, int64_t{-1}, std::numeric_limits<int64_t>::min()}) {
    rt::Tensor index = index_tensor({2}, {0, bad});
    rt::Tensor out = tensor(DEVPLUG_DTYPE_INT32, {2}, {7, 7});
    const rt::Result r = rt::run(DEVPLUG_OP_index_select, {&in, &index}, {&out}, &attrs);
    EXPECT_EQ(r.code, DEVPLUG_CODE_INVALID_ARGUMENT) << bad;
    expect_same(rt::read_doubles(out), {7, 7});  // untouched
    rt::Tensor g = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2});
    EXPECT_EQ(rt::run(DEVPLUG_OP_gather, {&in, &index}, {&g}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
    rt::Tensor src = tensor(DEVPLUG_DTYPE_INT32, {2}, {5, 6});
    rt::Tensor s = tensor(DEVPLUG_DTYPE_INT32, {3}, {9, 9, 9});
    EXPECT_EQ(rt::run(DEVPLUG_OP_scatter, {&in, &index, &src}, {&s}, &attrs).code,
              DEVPLUG_CODE_INVALID_ARGUMENT);
    EXPECT_EQ(rt::run(DEVPLUG_OP_scatter_add, {&in, &index, &src}, {&s}, &attrs).code,
              DEVPLUG_CODE_INVALID_ARGUMENT);
    expect_same(rt::read_doubles(s), {9, 9, 9});
  }
  // A non-int64 index is refused too.
  rt::Tensor index32 = rt::make_tensor(DEVPLUG_DTYPE_INT32, {1});
  rt::write<int32_t>(index32, {0});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT32, {1});
  EXPECT_EQ(rt::run(DEVPLUG_OP_index_select, {&in, &index32}, {&out}, &attrs).code,
            DEVPLUG_CODE_INVALID_ARGUMENT);
}

// ---- gather --------------------------------------------------------------------------------

TEST(ReferenceIndex, GatherEveryDtype) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_gather)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const std::vector<double> v = counting(d, 6);  // [[v0 v1 v2] [v3 v4 v5]]
    rt::Tensor in = tensor(d, {2, 3}, v);
    // dim 1: out[i][j] = in[i][index[i][j]].
    rt::Tensor index = index_tensor({2, 2}, {2, 2, 0, 1});
    rt::Tensor out = rt::make_tensor(d, {2, 2});
    const devplug_dim_attrs_t attrs1 = dim_attrs(1);
    rt::run_ok(DEVPLUG_OP_gather, {&in, &index}, {&out}, &attrs1);
    expect_same(rt::read_doubles(out), pick(v, {2, 2, 3, 4}));
    // dim 0 with an index smaller than the input in dim 1: out[i][j] = in[index[i][j]][j].
    rt::Tensor index0 = index_tensor({3, 2}, {1, 0, 0, 0, 1, 1});
    rt::Tensor out0 = rt::make_tensor(d, {3, 2});
    const devplug_dim_attrs_t attrs0 = dim_attrs(0);
    rt::run_ok(DEVPLUG_OP_gather, {&in, &index0}, {&out0}, &attrs0);
    expect_same(rt::read_doubles(out0), pick(v, {3, 1, 0, 1, 3, 4}));
  }
}

// The data movement ops move a bool's byte as it is and never load it as a `bool` (the same
// finding as ReferenceReduce.BoolBytesOtherThanOneAreTrue): UBSan checks the loads in the
// asan tree, this checks the bytes everywhere.
TEST(ReferenceIndex, BoolBytesMoveUnchanged) {
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  rt::write_bytes(in, {192, 0, 2});
  rt::Tensor index = index_tensor({3}, {2, 0, 1});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  rt::run_ok(DEVPLUG_OP_gather, {&in, &index}, {&out}, &attrs);
  EXPECT_EQ(rt::read_bytes(out), (std::vector<unsigned char>{2, 192, 0}));
  rt::run_ok(DEVPLUG_OP_index_select, {&in, &index}, {&out}, &attrs);
  EXPECT_EQ(rt::read_bytes(out), (std::vector<unsigned char>{2, 192, 0}));
  const devplug_flip_attrs_t flip{sizeof(devplug_flip_attrs_t), 1u};
  rt::run_ok(DEVPLUG_OP_flip, {&in}, {&out}, &flip);
  EXPECT_EQ(rt::read_bytes(out), (std::vector<unsigned char>{2, 0, 192}));
}

TEST(ReferenceIndex, GatherFromTransposedInput) {
  // Logical [[1 2 3] [4 5 6]] stored column-major.
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {2, 3}, {1, 2});
  rt::write<double>(in, {1, 2, 3, 4, 5, 6});
  rt::Tensor index = index_tensor({2, 1}, {1, 2});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {2, 1});
  const devplug_dim_attrs_t attrs = dim_attrs(1);
  rt::run_ok(DEVPLUG_OP_gather, {&in, &index}, {&out}, &attrs);
  expect_same(rt::read_doubles(out), {2, 6});
}

// ---- scatter and scatter_add ---------------------------------------------------------------

TEST(ReferenceIndex, ScatterEveryDtype) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_scatter)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const std::vector<double> v = counting(d, 6);
    const double z = 0;
    rt::Tensor in = tensor(d, {2, 3}, std::vector<double>(6, z));
    // src is larger than index: only src[:2][:1] is used.
    rt::Tensor src = tensor(d, {2, 3}, v);
    rt::Tensor index = index_tensor({2, 1}, {2, 0});
    rt::Tensor out = rt::make_tensor(d, {2, 3});
    const devplug_dim_attrs_t attrs = dim_attrs(1);
    rt::run_ok(DEVPLUG_OP_scatter, {&in, &index, &src}, {&out}, &attrs);
    expect_same(rt::read_doubles(out), {z, z, v[0], v[3], z, z});
  }
}

TEST(ReferenceIndex, ScatterAddEveryDtypeWithDuplicates) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_scatter_add)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor in = tensor(d, {4}, {1, 1, 1, 1});
    rt::Tensor src = tensor(d, {5}, {1, 2, 3, 4, 5});
    rt::Tensor index = index_tensor({5}, {3, 0, 3, 3, 1});
    rt::Tensor out = rt::make_tensor(d, {4});
    const devplug_dim_attrs_t attrs = dim_attrs(0);
    rt::run_ok(DEVPLUG_OP_scatter_add, {&in, &index, &src}, {&out}, &attrs);
    expect_same(rt::read_doubles(out), {3, 6, 1, 9});
  }
}

TEST(ReferenceIndex, ScatterAddIntegerWrapsAndFloatRoundsOnce) {
  rt::Tensor in = tensor(DEVPLUG_DTYPE_INT8, {1}, {120});
  rt::Tensor src = tensor(DEVPLUG_DTYPE_INT8, {2}, {5, 5});
  rt::Tensor index = index_tensor({2}, {0, 0});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT8, {1});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  rt::run_ok(DEVPLUG_OP_scatter_add, {&in, &index, &src}, {&out}, &attrs);
  expect_same(rt::read_doubles(out), {-126});  // 130 - 256
  // float16: 2048 + 1 + 1 in double is 2050; adding in float16 one at a time gives 2048.
  rt::Tensor hin = tensor(DEVPLUG_DTYPE_FLOAT16, {1}, {2048});
  rt::Tensor hsrc = tensor(DEVPLUG_DTYPE_FLOAT16, {2}, {1, 1});
  rt::Tensor hout = rt::make_tensor(DEVPLUG_DTYPE_FLOAT16, {1});
  rt::run_ok(DEVPLUG_OP_scatter_add, {&hin, &index, &hsrc}, {&hout}, &attrs);
  expect_same(rt::read_doubles(hout), {2050});
  // NaN in a source reaches only its own target.
  rt::Tensor fin = tensor(DEVPLUG_DTYPE_FLOAT32, {2}, {0, 0});
  rt::Tensor fsrc = tensor(DEVPLUG_DTYPE_FLOAT32, {2}, {kNaN, 1});
  rt::Tensor findex = index_tensor({2}, {1, 0});
  rt::Tensor fout = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2});
  rt::run_ok(DEVPLUG_OP_scatter_add, {&fin, &findex, &fsrc}, {&fout}, &attrs);
  expect_same(rt::read_doubles(fout), {1, kNaN});
}

TEST(ReferenceIndex, ScatterIntoTheInputsOwnBuffer) {
  // In place: out and input are the same view; the input's values are read before writing.
  rt::Tensor t = tensor(DEVPLUG_DTYPE_INT32, {3}, {1, 2, 3});
  rt::Tensor src = tensor(DEVPLUG_DTYPE_INT32, {2}, {10, 20});
  rt::Tensor index = index_tensor({2}, {2, 0});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  rt::run_ok(DEVPLUG_OP_scatter_add, {&t, &index, &src}, {&t}, &attrs);
  expect_same(rt::read_doubles(t), {21, 2, 13});
}

TEST(ReferenceIndex, ScatterOnStridedInputsAndOutput) {
  // Input broadcast (stride 0), src transposed, output with negative strides.
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2, 2}, {0, 1});
  rt::write<float>(in, {1, 2, 1, 2});
  rt::Tensor src = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2, 2}, {1, 2});
  rt::write<float>(src, {10, 20, 30, 40});
  rt::Tensor index = index_tensor({2, 2}, {1, 0, 0, 0});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2, 2}, {-2, -1});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  rt::run_ok(DEVPLUG_OP_scatter_add, {&in, &index, &src}, {&out}, &attrs);
  // out[index[i][j]][j] += src[i][j]: (1,0)+=10, (0,1)+=20, (0,0)+=30, (0,1)+=40.
  expect_same(rt::read_doubles(out), {31, 62, 11, 2});
}

// ---- cat -----------------------------------------------------------------------------------

TEST(ReferenceShape, CatEveryDtype) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_cat)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const std::vector<double> v = counting(d, 12);
    rt::Tensor a = tensor(d, {2, 1}, {v[0], v[1]});
    rt::Tensor b = tensor(d, {2, 0}, {});
    rt::Tensor c = tensor(d, {2, 2}, {v[2], v[3], v[4], v[5]});
    rt::Tensor out = rt::make_tensor(d, {2, 3});
    const devplug_dim_attrs_t attrs1 = dim_attrs(1);
    rt::run_ok(DEVPLUG_OP_cat, {&a, &b, &c}, {&out}, &attrs1);
    expect_same(rt::read_doubles(out), {v[0], v[2], v[3], v[1], v[4], v[5]});
    rt::Tensor out0 = rt::make_tensor(d, {4, 2});
    const devplug_dim_attrs_t attrs0 = dim_attrs(0);
    rt::run_ok(DEVPLUG_OP_cat, {&c, &c}, {&out0}, &attrs0);
    expect_same(rt::read_doubles(out0), {v[2], v[3], v[4], v[5], v[2], v[3], v[4], v[5]});
  }
}

TEST(ReferenceShape, CatStridedAndBadShapes) {
  rt::Tensor a = rt::make_tensor(DEVPLUG_DTYPE_INT16, {2, 2}, {1, 2});  // transposed
  rt::write<int16_t>(a, {1, 2, 3, 4});
  rt::Tensor b = rt::make_tensor(DEVPLUG_DTYPE_INT16, {1, 2}, {0, 0});  // one element broadcast
  rt::write_buffer<int16_t>(b, {9});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT16, {3, 2}, {1, 3});  // column-major output
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  rt::run_ok(DEVPLUG_OP_cat, {&a, &b}, {&out}, &attrs);
  expect_same(rt::read_doubles(out), {1, 2, 3, 4, 9, 9});
  rt::Tensor wrong = rt::make_tensor(DEVPLUG_DTYPE_INT16, {4, 2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_cat, {&a, &b}, {&wrong}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor c = rt::make_tensor(DEVPLUG_DTYPE_INT16, {1, 3});
  rt::Tensor out2 = rt::make_tensor(DEVPLUG_DTYPE_INT16, {3, 2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_cat, {&a, &c}, {&out2}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor f = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {1, 2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_cat, {&a, &f}, {&out2}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

// ---- flip ----------------------------------------------------------------------------------

TEST(ReferenceShape, FlipEveryDtypeAndMask) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_flip)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const std::vector<double> v = counting(d, 6);  // [[v0 v1 v2] [v3 v4 v5]]
    rt::Tensor in = tensor(d, {2, 3}, v);
    const std::vector<std::pair<uint32_t, std::vector<int>>> cases = {
        {0, {0, 1, 2, 3, 4, 5}}, {1, {3, 4, 5, 0, 1, 2}}, {2, {2, 1, 0, 5, 4, 3}}, {3, {5, 4, 3, 2, 1, 0}}};
    for (const auto& [mask, order] : cases) {
      rt::Tensor out = rt::make_tensor(d, {2, 3});
      const devplug_flip_attrs_t attrs{sizeof(devplug_flip_attrs_t), mask};
      rt::run_ok(DEVPLUG_OP_flip, {&in}, {&out}, &attrs);
      expect_same(rt::read_doubles(out), pick(v, order));
    }
  }
}

TEST(ReferenceShape, FlipOfFlippedViewIsIdentityAndEmptyAndZeroD) {
  // A view with negative strides (already flipped storage), flipped again.
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {3}, {-1}, 2);
  rt::write<double>(in, {1, -0.0, kNaN});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {3}, {2});
  const devplug_flip_attrs_t attrs{sizeof(devplug_flip_attrs_t), 1};
  rt::run_ok(DEVPLUG_OP_flip, {&in}, {&out}, &attrs);
  expect_same(rt::read_doubles(out), {kNaN, -0.0, 1});
  rt::Tensor empty = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {0, 2});
  rt::Tensor empty_out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {0, 2});
  const devplug_flip_attrs_t both{sizeof(devplug_flip_attrs_t), 3};
  rt::run_ok(DEVPLUG_OP_flip, {&empty}, {&empty_out}, &both);
  rt::Tensor scalar = tensor(DEVPLUG_DTYPE_INT64, {}, {5});
  rt::Tensor scalar_out = rt::make_tensor(DEVPLUG_DTYPE_INT64, {});
  const devplug_flip_attrs_t none{sizeof(devplug_flip_attrs_t), 0};
  rt::run_ok(DEVPLUG_OP_flip, {&scalar}, {&scalar_out}, &none);
  expect_same(rt::read_doubles(scalar_out), {5});
  EXPECT_EQ(rt::run(DEVPLUG_OP_flip, {&scalar}, {&scalar_out}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

// ---- constant_pad --------------------------------------------------------------------------

devplug_pad_attrs_t pad_attrs(const std::vector<int64_t>& before, const std::vector<int64_t>& after, double f,
                              int64_t i) {
  devplug_pad_attrs_t a{};
  a.struct_size = sizeof a;
  for (size_t d = 0; d < before.size(); ++d) a.before[d] = before[d];
  for (size_t d = 0; d < after.size(); ++d) a.after[d] = after[d];
  a.value = devplug_scalar_t{f, i};
  return a;
}

TEST(ReferenceShape, ConstantPadEveryDtype) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_constant_pad)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const bool is_float = (DEVPLUG_DTYPES_FLOAT & DEVPLUG_DTYPE_BIT(d)) != 0;
    // Floats read .f, integers .i (the two differ here on purpose), bool .i != 0.
    const double pad = is_float ? 7.5 : d == DEVPLUG_DTYPE_BOOL ? 1 : 9;
    const std::vector<double> v = counting(d, 4);  // [[v0 v1] [v2 v3]]
    rt::Tensor in = tensor(d, {2, 2}, v);
    rt::Tensor out = rt::make_tensor(d, {3, 5});
    const devplug_pad_attrs_t attrs = pad_attrs({1, 2}, {0, 1}, 7.5, 9);
    rt::run_ok(DEVPLUG_OP_constant_pad, {&in}, {&out}, &attrs);
    const double p = pad;
    expect_same(rt::read_doubles(out), {p, p, p, p, p,        //
                                        p, p, v[0], v[1], p,  //
                                        p, p, v[2], v[3], p});
  }
}

TEST(ReferenceShape, ConstantPadNegativeCropsAndMixes) {
  // [[1 2 3] [4 5 6]]: crop one column on the left, pad one row after with -1.
  rt::Tensor in = tensor(DEVPLUG_DTYPE_INT32, {2, 3}, {1, 2, 3, 4, 5, 6});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT32, {3, 2});
  const devplug_pad_attrs_t attrs = pad_attrs({0, -1}, {1, 0}, -1, -1);
  rt::run_ok(DEVPLUG_OP_constant_pad, {&in}, {&out}, &attrs);
  expect_same(rt::read_doubles(out), {2, 3, 5, 6, -1, -1});
  // Crop everything in dim 1 and pad it back: the input is never read.
  rt::Tensor out2 = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2, 2});
  const devplug_pad_attrs_t attrs2 = pad_attrs({0, -3}, {0, 2}, 0, 8);
  rt::run_ok(DEVPLUG_OP_constant_pad, {&in}, {&out2}, &attrs2);
  expect_same(rt::read_doubles(out2), {8, 8, 8, 8});
  // Crop to empty.
  rt::Tensor out3 = rt::make_tensor(DEVPLUG_DTYPE_INT32, {0, 3});
  const devplug_pad_attrs_t attrs3 = pad_attrs({-1, 0}, {-1, 0}, 0, 0);
  rt::run_ok(DEVPLUG_OP_constant_pad, {&in}, {&out3}, &attrs3);
  // Pads at the ends of int64 that cancel out: every output element lies outside the input.
  rt::Tensor out6 = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2, 2});
  const devplug_pad_attrs_t attrs6 =
      pad_attrs({0, std::numeric_limits<int64_t>::min()}, {0, std::numeric_limits<int64_t>::max()}, 0, 4);
  rt::run_ok(DEVPLUG_OP_constant_pad, {&in}, {&out6}, &attrs6);
  expect_same(rt::read_doubles(out6), {4, 4, 4, 4});
  // A size that does not add up, and one that would be negative.
  rt::Tensor out4 = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2, 3});
  const devplug_pad_attrs_t attrs4 = pad_attrs({1, 0}, {0, 0}, 0, 0);
  EXPECT_EQ(rt::run(DEVPLUG_OP_constant_pad, {&in}, {&out4}, &attrs4).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  const devplug_pad_attrs_t attrs5 = pad_attrs({-3, 0}, {0, 0}, 0, 0);
  rt::Tensor out5 = rt::make_tensor(DEVPLUG_DTYPE_INT32, {0, 3});
  EXPECT_EQ(rt::run(DEVPLUG_OP_constant_pad, {&in}, {&out5}, &attrs5).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(ReferenceShape, ConstantPadValueRoundsOnceAndStridedInput) {
  // 0.1 rounds to the nearest float16 (not via float32: same here, but NaN and -0.0 too).
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_FLOAT16, {2}, {-1}, 1);  // reversed, offset
  rt::write_doubles(in, {1, 2});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT16, {4});
  const devplug_pad_attrs_t attrs = pad_attrs({1}, {1}, 0.1, 0);
  rt::run_ok(DEVPLUG_OP_constant_pad, {&in}, {&out}, &attrs);
  const double tenth = sdk::half_bits_to_double(sdk::double_to_half_bits(0.1));
  expect_same(rt::read_doubles(out), {tenth, 1, 2, tenth});
  const devplug_pad_attrs_t neg = pad_attrs({1}, {1}, -0.0, 0);
  rt::run_ok(DEVPLUG_OP_constant_pad, {&in}, {&out}, &neg);
  expect_same(rt::read_doubles(out), {-0.0, 1, 2, -0.0});
  // int8 pads wrap the .i value.
  rt::Tensor i8 = tensor(DEVPLUG_DTYPE_INT8, {1}, {1});
  rt::Tensor i8out = rt::make_tensor(DEVPLUG_DTYPE_INT8, {2});
  const devplug_pad_attrs_t wrap = pad_attrs({1}, {0}, 0, 255);
  rt::run_ok(DEVPLUG_OP_constant_pad, {&i8}, {&i8out}, &wrap);
  expect_same(rt::read_doubles(i8out), {-1, 1});
}

TEST(ReferenceShape, RankEightPadAndFlip) {
  std::vector<int64_t> shape(8, 1);
  shape[7] = 2;
  rt::Tensor in = tensor(DEVPLUG_DTYPE_UINT8, shape, {3, 4});
  std::vector<int64_t> padded = shape;
  padded[0] = 2;
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_UINT8, padded);
  const devplug_pad_attrs_t attrs = pad_attrs({1, 0, 0, 0, 0, 0, 0, 0}, {}, 0, 5);
  rt::run_ok(DEVPLUG_OP_constant_pad, {&in}, {&out}, &attrs);
  expect_same(rt::read_doubles(out), {5, 5, 3, 4});
  rt::Tensor flipped = rt::make_tensor(DEVPLUG_DTYPE_UINT8, padded);
  const devplug_flip_attrs_t flip{sizeof(devplug_flip_attrs_t), 0x81};
  rt::run_ok(DEVPLUG_OP_flip, {&out}, {&flipped}, &flip);
  expect_same(rt::read_doubles(flipped), {4, 3, 5, 5});
}

// Every index and shape op gives the same result for a strided view of its data input as
// for a contiguous copy of it.
TEST(ReferenceShape, StridedInputsMatchContiguousCopies) {
  struct Layout {
    const char* name;
    std::vector<int64_t> strides;
    int64_t offset;
  };
  const std::vector<Layout> layouts = {{"transposed", {1, 3}, 0},
                                       {"negative", {-4, -1}, 0},
                                       {"offset_stepped", {8, 2}, 3},
                                       {"broadcast", {0, 1}, 0},
                                       {"overlapping", {1, 1}, 0}};
  const devplug_dim_attrs_t dim1 = dim_attrs(1);
  const devplug_flip_attrs_t flip{sizeof(devplug_flip_attrs_t), 3};
  const devplug_pad_attrs_t pad = pad_attrs({1, -1}, {-2, 2}, 0.5, 0);
  rt::Tensor pick_index = index_tensor({3}, {3, 0, 3});
  rt::Tensor gather_index = index_tensor({2, 2}, {3, 1, 0, 2});
  rt::Tensor src = tensor(DEVPLUG_DTYPE_FLOAT32, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  for (const Layout& layout : layouts) {
    SCOPED_TRACE(layout.name);
    rt::Tensor view = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {3, 4}, layout.strides, layout.offset);
    std::vector<float> storage(static_cast<size_t>(view.buffer->size / 4));
    for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<float>(i * 7 % 11) - 5.25f;
    rt::write_buffer<float>(view, storage);
    rt::Tensor dense = tensor(DEVPLUG_DTYPE_FLOAT32, {3, 4}, rt::read_doubles(view));
    auto both = [&](devplug_op_t op, const std::vector<const rt::Tensor*>& rest,
                    const std::vector<int64_t>& out_shape, const void* attrs) {
      SCOPED_TRACE(devplug_op_name(op));
      rt::Tensor a = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, out_shape);
      rt::Tensor b = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, out_shape);
      std::vector<const rt::Tensor*> with_view = {&view}, with_dense = {&dense};
      with_view.insert(with_view.end(), rest.begin(), rest.end());
      with_dense.insert(with_dense.end(), rest.begin(), rest.end());
      rt::run_ok(op, with_view, {&a}, attrs);
      rt::run_ok(op, with_dense, {&b}, attrs);
      expect_same(rt::read_doubles(a), rt::read_doubles(b));
    };
    both(DEVPLUG_OP_index_select, {&pick_index}, {3, 3}, &dim1);
    both(DEVPLUG_OP_gather, {&gather_index}, {2, 2}, &dim1);
    both(DEVPLUG_OP_scatter, {&gather_index, &src}, {3, 4}, &dim1);
    both(DEVPLUG_OP_scatter_add, {&gather_index, &src}, {3, 4}, &dim1);
    both(DEVPLUG_OP_cat, {&src}, {3, 8}, &dim1);
    both(DEVPLUG_OP_flip, {}, {3, 4}, &flip);
    both(DEVPLUG_OP_constant_pad, {}, {2, 5}, &pad);
  }
}

}  // namespace
