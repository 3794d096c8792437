// SPDX-License-Identifier: Apache-2.0
// Reference backend: matmul. Expectations are worked by hand or computed here in long
// double from the stored (already rounded) operands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const std::vector<devplug_dtype_t> kFloatDtypes = {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16,
                                                   DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64};

rt::Tensor tensor(devplug_dtype_t dtype, const std::vector<int64_t>& shape, const std::vector<double>& values,
                  const std::vector<int64_t>& strides = {}) {
  rt::Tensor t = rt::make_tensor(dtype, shape, strides);
  if (!values.empty()) rt::write_doubles(t, values);
  return t;
}

std::vector<double> matmul(const rt::Tensor& a, const rt::Tensor& b, const std::vector<int64_t>& out_shape,
                           const std::vector<int64_t>& out_strides = {}) {
  rt::Tensor out = rt::make_tensor(a.desc.dtype, out_shape, out_strides);
  const devplug_matmul_attrs_t attrs{sizeof(devplug_matmul_attrs_t), 0};
  rt::run_ok(DEVPLUG_OP_matmul, {&a, &b}, {&out}, &attrs);
  return rt::read_doubles(out);
}

void expect_same(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    else
      EXPECT_EQ(got[i], want[i]) << "element " << i;
  }
}

TEST(ReferenceLinalg, DeclaresEveryFloatDtype) {
  for (devplug_dtype_t d : kFloatDtypes) EXPECT_NE(rt::find_kernel(DEVPLUG_OP_matmul, d), nullptr);
}

TEST(ReferenceLinalg, SmallProductEveryDtype) {
  // [[1 2 3] [4 5 6]] x [[7 8] [9 10] [11 12]] = [[58 64] [139 154]]
  for (devplug_dtype_t d : kFloatDtypes) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor a = tensor(d, {2, 3}, {1, 2, 3, 4, 5, 6});
    rt::Tensor b = tensor(d, {3, 2}, {7, 8, 9, 10, 11, 12});
    expect_same(matmul(a, b, {2, 2}), {58, 64, 139, 154});  // exact even in bfloat16's 8 bits
  }
}

TEST(ReferenceLinalg, TransposedOperandsAndStridedOutput) {
  for (devplug_dtype_t d : kFloatDtypes) {
    SCOPED_TRACE(devplug_dtype_name(d));
    // Same logical operands as above, stored column-major; output column-major too.
    rt::Tensor a = tensor(d, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 2});
    rt::Tensor b = tensor(d, {3, 2}, {7, 8, 9, 10, 11, 12}, {1, 3});
    expect_same(matmul(a, b, {2, 2}, {1, 2}), {58, 64, 139, 154});
    // b read backwards along both dims: logical [[12 11] [10 9] [8 7]].
    rt::Tensor r = tensor(d, {3, 2}, {12, 11, 10, 9, 8, 7}, {-2, -1});
    expect_same(matmul(a, r, {2, 2}), {56, 50, 146, 131});
  }
}

TEST(ReferenceLinalg, BatchedWithBroadcastBatch) {
  // a: two batches; b: one matrix seen through a stride-0 batch dim.
  rt::Tensor a = tensor(DEVPLUG_DTYPE_FLOAT32, {2, 1, 2}, {1, 2, 3, 4});
  rt::Tensor b = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2, 2, 2}, {0, 2, 1});
  rt::write_buffer<float>(b, {5, 6, 7, 8});  // [[5 6] [7 8]]
  expect_same(matmul(a, b, {2, 1, 2}), {19, 22, 43, 50});
  // Rank 4: batch [2, 2] where dim 0 of b is broadcast.
  std::vector<double> av(2 * 2 * 1 * 2);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<double>(i + 1);
  rt::Tensor a4 = tensor(DEVPLUG_DTYPE_FLOAT64, {2, 2, 1, 2}, av);
  rt::Tensor b4 = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {2, 2, 2, 1}, {0, 1, 1, 1});
  rt::write_buffer<double>(b4, {1, 10, 100});  // batch j: [[b[j]] [b[j+1]]]
  // batch (i, j): a = [2(2i+j)+1, 2(2i+j)+2]; b = [s_j, s_{j+1}] with s = 1, 10, 100.
  expect_same(matmul(a4, b4, {2, 2, 1, 1}),
              {1 * 1 + 2 * 10, 3 * 10 + 4 * 100, 5 * 1 + 6 * 10, 7 * 10 + 8 * 100});
}

TEST(ReferenceLinalg, EdgeShapes) {
  for (devplug_dtype_t d : kFloatDtypes) {
    SCOPED_TRACE(devplug_dtype_name(d));
    // K = 0: zeros (the output starts as a 0xA5 pattern, so zeros are written, not found).
    rt::Tensor a0 = tensor(d, {2, 0}, {});
    rt::Tensor b0 = tensor(d, {0, 3}, {});
    expect_same(matmul(a0, b0, {2, 3}), {0, 0, 0, 0, 0, 0});
    // M = 0 and N = 0: nothing to write.
    EXPECT_EQ(matmul(tensor(d, {0, 2}, {}), tensor(d, {2, 3}, {1, 2, 3, 4, 5, 6}), {0, 3}).size(), 0u);
    EXPECT_EQ(matmul(tensor(d, {2, 2}, {1, 2, 3, 4}), tensor(d, {2, 0}, {}), {2, 0}).size(), 0u);
    // 1xK x Kx1: a dot product. Kx1 x 1xK: an outer product.
    rt::Tensor row = tensor(d, {1, 3}, {1, 2, 3});
    rt::Tensor col = tensor(d, {3, 1}, {4, 5, 6});
    expect_same(matmul(row, col, {1, 1}), {32});
    expect_same(matmul(col, row, {3, 3}), {4, 8, 12, 5, 10, 15, 6, 12, 18});
  }
}

TEST(ReferenceLinalg, AccumulatesWiderThanTheDtype) {
  // float32 accumulation would lose the 1.
  expect_same(matmul(tensor(DEVPLUG_DTYPE_FLOAT32, {1, 3}, {1e8, 1, -1e8}),
                     tensor(DEVPLUG_DTYPE_FLOAT32, {3, 1}, {1, 1, 1}), {1, 1}),
              {1});
  // float16: 2048 + 1 + 1 = 2050 only when the sum is kept wider than float16.
  expect_same(matmul(tensor(DEVPLUG_DTYPE_FLOAT16, {1, 3}, {2048, 1, 1}),
                     tensor(DEVPLUG_DTYPE_FLOAT16, {3, 1}, {1, 1, 1}), {1, 1}),
              {2050});
  // float16 products are exact: 1.5 * (1 + 2^-10) = 1.5 + 1.5 * 2^-10 needs 12 bits; the sum
  // with -1.5 leaves 1.5 * 2^-10, exact in float16.
  const double e = std::ldexp(1.0, -10);
  expect_same(matmul(tensor(DEVPLUG_DTYPE_FLOAT16, {1, 2}, {1.5, -1.5}),
                     tensor(DEVPLUG_DTYPE_FLOAT16, {2, 1}, {1 + e, 1}), {1, 1}),
              {1.5 * e});
  // float64: long double keeps 1e16 + 1.
  expect_same(matmul(tensor(DEVPLUG_DTYPE_FLOAT64, {1, 4}, {1e16, 1, 1, -1e16}),
                     tensor(DEVPLUG_DTYPE_FLOAT64, {4, 1}, {1, 1, 1, 1}), {1, 1}),
              {2});
}

TEST(ReferenceLinalg, SpecialValues) {
  for (devplug_dtype_t d : kFloatDtypes) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor a = tensor(d, {2, 2}, {kInf, 1, kNaN, 1});
    rt::Tensor b = tensor(d, {2, 2}, {0, 1, 1, 1});
    // Row 0: inf*0 + 1*1 = NaN, inf*1 + 1 = inf. Row 1: NaN everywhere.
    expect_same(matmul(a, b, {2, 2}), {kNaN, kInf, kNaN, kNaN});
    // -0.0 * 1 + -0.0 * 1 = -0.0.
    rt::Tensor z = tensor(d, {1, 2}, {-0.0, -0.0});
    rt::Tensor ones = tensor(d, {2, 1}, {1, 1});
    const std::vector<double> got = matmul(z, ones, {1, 1});
    EXPECT_EQ(got[0], 0.0);
  }
}

TEST(ReferenceLinalg, RandomProductsMatchLongDouble) {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> dist(-4, 4);
  const int64_t M = 7, K = 33, N = 5;
  for (devplug_dtype_t d : kFloatDtypes) {
    SCOPED_TRACE(devplug_dtype_name(d));
    std::vector<double> av(M * K), bv(K * N);
    for (double& v : av) v = dist(gen);
    for (double& v : bv) v = dist(gen);
    // b stored transposed to exercise the strided path as well.
    rt::Tensor a = tensor(d, {M, K}, av);
    rt::Tensor b = tensor(d, {K, N}, bv, {1, K});
    const std::vector<double> as = rt::read_doubles(a), bs = rt::read_doubles(b);
    const std::vector<double> got = matmul(a, b, {M, N});
    const int bits = d == DEVPLUG_DTYPE_FLOAT16    ? 11
                     : d == DEVPLUG_DTYPE_BFLOAT16 ? 8
                     : d == DEVPLUG_DTYPE_FLOAT32  ? 24
                                                   : 53;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        long double exact = 0;
        for (int64_t k = 0; k < K; ++k) exact += static_cast<long double>(as[i * K + k]) * bs[k * N + j];
        int e = 0;
        std::frexp(static_cast<double>(exact), &e);
        const double half_ulp = std::ldexp(0.5, e - bits);
        // Correctly rounded within half an ulp, plus the double accumulation's own error for
        // the narrower dtypes (tiny next to their ulp). float64 sums in long double in this
        // same order, so it must match exactly.
        const double bound = d == DEVPLUG_DTYPE_FLOAT64 ? 0 : half_ulp * 1.01 + 1e-12;
        EXPECT_LE(std::fabs(got[i * N + j] - static_cast<double>(exact)), bound) << i << "," << j;
      }
  }
}

TEST(ReferenceLinalg, BadShapesAreRefused) {
  const devplug_matmul_attrs_t attrs{sizeof(devplug_matmul_attrs_t), 0};
  rt::Tensor a = tensor(DEVPLUG_DTYPE_FLOAT32, {2, 3}, {1, 2, 3, 4, 5, 6});
  rt::Tensor b = tensor(DEVPLUG_DTYPE_FLOAT32, {2, 2}, {1, 2, 3, 4});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2, 2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_matmul, {&a, &b}, {&out}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor v = tensor(DEVPLUG_DTYPE_FLOAT32, {3}, {1, 2, 3});
  rt::Tensor out1 = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_matmul, {&a, &v}, {&out1}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor a3 = tensor(DEVPLUG_DTYPE_FLOAT32, {2, 1, 1}, {1, 2});
  rt::Tensor b3 = tensor(DEVPLUG_DTYPE_FLOAT32, {3, 1, 1}, {1, 2, 3});
  rt::Tensor out3 = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2, 1, 1});
  EXPECT_EQ(rt::run(DEVPLUG_OP_matmul, {&a3, &b3}, {&out3}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor b64 = tensor(DEVPLUG_DTYPE_FLOAT64, {3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(rt::run(DEVPLUG_OP_matmul, {&a, &b64}, {&out}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

}  // namespace
