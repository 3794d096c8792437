// SPDX-License-Identifier: Apache-2.0
// Host-side unit tests of the pure logic in the shared GPU code: tensor packing and dim
// coalescing, 32/64-bit index choice, launch and reduction plans, Philox against the known
// answer and the devplug word mapping, the bit-exact 16-bit encoders against the SDK's, and
// (CUDA) the cuBLASLt layout choice. These functions are compiled unchanged into the kernels.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "devplug/sdk/half.hpp"
#include "device_types.cuh"
#include "special_double.cuh"
#include "pack.hpp"
#include "philox.hpp"
#ifdef DEVPLUG_CUDA_PLUGIN
#include "cublaslt_plan.hpp"
#endif

namespace {

using namespace devplug::gpu;

Layout make(std::initializer_list<int64_t> shape, std::initializer_list<int64_t> strides) {
  Layout l{};
  l.rank = static_cast<int32_t>(shape.size());
  int d = 0;
  for (int64_t s : shape) l.shape[d++] = s;
  d = 0;
  for (int64_t s : strides) l.strides[d++] = s;
  return l;
}

TEST(GpuPack, OffsetOfWalksRowMajorOrder) {
  const Layout t = make({2, 3}, {1, 2});  // a transposed 3x2
  const int64_t expected[] = {0, 2, 4, 1, 3, 5};
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(offset_of<int64_t>(t, i), expected[i]) << i;
  const Layout flipped = make({4}, {-1});
  EXPECT_EQ(offset_of<int32_t>(flipped, 3), -3);
  const Layout scalar = make({}, {});
  EXPECT_EQ(offset_of<int64_t>(scalar, 0), 0);
}

TEST(GpuPack, CoalesceMergesDimsContiguousInEveryTensor) {
  Layout ls[2] = {make({2, 3, 4}, {12, 4, 1}), make({2, 3, 4}, {12, 4, 1})};
  coalesce(ls, 2);
  EXPECT_EQ(ls[0].rank, 1);
  EXPECT_EQ(ls[0].shape[0], 24);
  EXPECT_EQ(ls[0].strides[0], 1);
  // The second tensor is transposed in its last two dims: only the outer dim can't merge.
  Layout mixed[2] = {make({2, 3, 4}, {12, 4, 1}), make({2, 3, 4}, {12, 1, 3})};
  coalesce(mixed, 2);
  EXPECT_EQ(mixed[0].rank, 3);
  // Size-1 dims vanish; a broadcast dim stays.
  Layout bcast[2] = {make({1, 5, 6}, {30, 6, 1}), make({1, 5, 6}, {0, 0, 1})};
  coalesce(bcast, 2);
  EXPECT_EQ(bcast[0].rank, 2);
  EXPECT_EQ(bcast[1].strides[0], 0);
  // Element order is kept: every logical index maps to the same offsets as before.
  Layout orig[2] = {make({3, 1, 4, 2}, {8, 99, 2, 1}), make({3, 1, 4, 2}, {1, 7, 6, 3})};
  Layout merged[2] = {orig[0], orig[1]};
  coalesce(merged, 2);
  for (int64_t i = 0; i < 24; ++i)
    for (int k = 0; k < 2; ++k) EXPECT_EQ(offset_of<int64_t>(merged[k], i), offset_of<int64_t>(orig[k], i));
}

TEST(GpuPack, Int32IndexingOnlyWhenEveryOffsetFits) {
  const Layout small = make({1000, 1000}, {1000, 1});
  EXPECT_TRUE(fits_int32(&small, 1));
  const Layout many = make({int64_t{1} << 31}, {1});
  EXPECT_FALSE(fits_int32(&many, 1));
  const Layout wide = make({2, 2}, {int64_t{1} << 31, 1});  // few elements, far apart
  EXPECT_FALSE(fits_int32(&wide, 1));
  const Layout negative = make({3}, {-(int64_t{1} << 30)});
  EXPECT_FALSE(fits_int32(&negative, 1));
  const Layout empty = make({0, int64_t{1} << 40}, {1, 1});
  EXPECT_TRUE(fits_int32(&empty, 1));
  EXPECT_EQ(layout_extent(make({4, 5}, {5, 1})), 20);
}

// A grid-stride loop on the 32-bit path never steps past INT32_MAX: the largest count
// fits_int32 takes, plus one grid of the largest launch, stays below 2^31.
TEST(GpuPack, Int32CountsLeaveRoomForTheGridStride) {
  int64_t largest = 0;
  for (int64_t n : {int64_t{1} << 30, (int64_t{1} << 31) - (int64_t{1} << 28) - 1,
                    (int64_t{1} << 31) - (int64_t{1} << 27), (int64_t{1} << 31) - 1}) {
    const Layout l = make({n}, {1});
    if (fits_int32(&l, 1)) largest = std::max(largest, n);
  }
  ASSERT_GT(largest, int64_t{1} << 30);
  const LaunchConfig c = launch_1d(largest);
  const int64_t stride = int64_t{c.blocks} * c.threads;
  EXPECT_LE(largest - 1 + stride, int64_t{INT32_MAX}) << "i += stride overflows int32";
  EXPECT_LE(largest - 1 + (int64_t{1} << 20), int64_t{INT32_MAX}) << "a reduction's o += gridDim.x overflows";
}

TEST(GpuPack, LaunchConfigCoversTheWork) {
  EXPECT_EQ(launch_1d(0).blocks, 0u);
  EXPECT_EQ(launch_1d(1).blocks, 1u);
  EXPECT_EQ(launch_1d(257).blocks, 2u);
  const LaunchConfig huge = launch_1d(int64_t{1} << 40);
  EXPECT_GT(huge.blocks, 0u);
  EXPECT_LE(huge.blocks, 65535u * 8);  // the kernels loop grid-stride over the rest
}

TEST(GpuPack, ReducePlanSplitsLongReductionsOnly) {
  const ReducePlan one_long = plan_reduce(1, int64_t{1} << 28);
  EXPECT_EQ(one_long.threads, 256u);
  EXPECT_GT(one_long.splits, 100u);
  const ReducePlan many_short = plan_reduce(1 << 20, 20);
  EXPECT_EQ(many_short.splits, 1u);
  EXPECT_EQ(many_short.threads, 32u);
  EXPECT_FALSE(many_short.serial);
  const ReducePlan empty = plan_reduce(4, 0);
  EXPECT_EQ(empty.splits, 1u);
  for (int64_t length : {17, 31, 33, 1000, 1 << 20}) {
    const ReducePlan p = plan_reduce(3, length);
    EXPECT_EQ(p.threads & (p.threads - 1), 0u) << "block tree needs a power of two";
    EXPECT_GE(p.splits, 1u);
    EXPECT_FALSE(p.serial);
  }
}

TEST(GpuPack, ReducePlanFoldsShortRowsOneThreadEach) {
  for (int64_t length : {int64_t{0}, int64_t{1}, int64_t{4}, kSerialReduceLength}) {
    const ReducePlan p = plan_reduce(12800, length);
    EXPECT_TRUE(p.serial) << length;
    EXPECT_EQ(p.splits, 1u);
    EXPECT_EQ(launch_1d(p.outputs, p.threads).blocks, 100u);
  }
  EXPECT_FALSE(plan_reduce(12800, kSerialReduceLength + 1).serial);
}

TEST(GpuPhilox, KnownAnswer) {
  const PhiloxBlock b = philox4x32_10(0, 0, 0, 0, 0, 0);
  EXPECT_EQ(b.w[0], 0x6627e8d5u);
  EXPECT_EQ(b.w[1], 0xe169c58du);
  EXPECT_EQ(b.w[2], 0xbc57ac4cu);
  EXPECT_EQ(b.w[3], 0x9b00dbd8u);
}

TEST(GpuPhilox, WordMappingFollowsTheCounterRule) {
  const uint64_t seed = 0x0123456789abcdefull, offset = 0xfffffffffffffffeull;  // wraps
  for (uint64_t w = 0; w < 16; ++w) {
    const uint64_t n = offset + w / 4;
    const PhiloxBlock b = philox4x32_10(static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32), 0, 0,
                                        0x89abcdefu, 0x01234567u);
    EXPECT_EQ(philox_word(seed, offset, w), b.w[w % 4]) << w;
  }
}

TEST(GpuHalf, DecodersAreExactForEveryPattern) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const double h = devplug::sdk::half_bits_to_double(static_cast<uint16_t>(bits));
    const double got = half_bits_to_float(static_cast<uint16_t>(bits));
    if (std::isnan(h)) {
      EXPECT_TRUE(std::isnan(got));
    } else {
      EXPECT_EQ(got, h) << std::hex << bits;
      EXPECT_EQ(std::signbit(got), std::signbit(h)) << std::hex << bits;
    }
    const double b = devplug::sdk::bfloat16_bits_to_double(static_cast<uint16_t>(bits));
    if (!std::isnan(b)) {
      EXPECT_EQ(static_cast<double>(bf16_bits_to_float(static_cast<uint16_t>(bits))), b);
    }
  }
}

TEST(GpuHalf, EncodersRoundOnceToNearestEven) {
  std::mt19937 rng(7);
  std::vector<float> values = {0.0f,           -0.0f,          65504.0f,
                               65519.99f,      65520.0f,       1e-8f,
                               2.98023224e-8f, 5.96046448e-8f, 6.1035156e-5f,
                               1.0009765625f,  1.00048828125f, std::numeric_limits<float>::infinity(),
                               3.3961e38f,     3.4e38f,        std::numeric_limits<float>::denorm_min()};
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    if (!std::isnan(f)) values.push_back(f);
  }
  for (float f : values) {
    for (float v : {f, -f}) {
      EXPECT_EQ(float_to_half_bits(v), devplug::sdk::double_to_half_bits(v)) << v;
      EXPECT_EQ(float_to_bf16_bits(v), devplug::sdk::double_to_bfloat16_bits(v)) << v;
    }
  }
}

TEST(GpuHalf, DoublesRoundOnceThroughRoundToOdd) {
  std::mt19937_64 rng(11);
  std::vector<double> values = {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),  // just above a tie
                                1.0 + std::ldexp(1.0, -11),
                                65519.999999,
                                65520.0,
                                1e300,
                                -1e-300,
                                std::ldexp(1.0, -25) * 1.0000001};
  for (int i = 0; i < 200000; ++i) {
    uint64_t u = rng();
    double d;
    std::memcpy(&d, &u, 8);
    if (!std::isnan(d)) values.push_back(d);
    values.push_back(std::ldexp(static_cast<double>(rng() >> 11), -60 + static_cast<int>(rng() % 80)));
  }
  for (double d : values) {
    EXPECT_EQ(float_from_double<f16>(d).bits, devplug::sdk::double_to_half_bits(d)) << d;
    EXPECT_EQ(float_from_double<bf16>(d).bits, devplug::sdk::double_to_bfloat16_bits(d)) << d;
  }
}

TEST(GpuScalar, FillValuesFollowTheirDtype) {
  EXPECT_EQ(from_scalar<int8_t>(0.0, 300), static_cast<int8_t>(44));  // wraps
  EXPECT_TRUE(from_scalar<bool>(0.0, 2));
  EXPECT_FALSE(from_scalar<bool>(1.0, 0));  // bool reads .i
  EXPECT_EQ(from_scalar<f16>(1.0 / 3.0, 0).bits, devplug::sdk::double_to_half_bits(1.0 / 3.0));
}

#ifdef DEVPLUG_CUDA_PLUGIN
using namespace devplug::cuda;

TEST(CublasLtPlan, ChoosesRowOrColumnMajorViews) {
  const MatrixView row = choose_view(4, 5, 5, 1);
  EXPECT_TRUE(row.ok);
  EXPECT_TRUE(row.row_major);
  EXPECT_EQ(row.ld, 5);
  const MatrixView padded = choose_view(4, 5, 8, 1);
  EXPECT_TRUE(padded.ok);
  EXPECT_EQ(padded.ld, 8);
  const MatrixView col = choose_view(4, 5, 1, 4);
  EXPECT_TRUE(col.ok);
  EXPECT_FALSE(col.row_major);
  EXPECT_EQ(col.ld, 4);
  EXPECT_FALSE(choose_view(4, 5, 10, 2).ok);  // sliced with step: materialize
  EXPECT_FALSE(choose_view(4, 5, -5, 1).ok);  // flipped rows
  EXPECT_FALSE(choose_view(4, 5, 3, 1).ok);   // overlapping rows
  const MatrixView vector = choose_view(1, 7, 0, 1);
  EXPECT_TRUE(vector.ok);
  EXPECT_EQ(vector.ld, 7);
}

TEST(CublasLtPlan, CollapsesBatchDims) {
  const int64_t shape[] = {2, 3};
  const int64_t dense[] = {60, 20};
  EXPECT_TRUE(collapse_batch(2, shape, dense).ok);
  EXPECT_EQ(collapse_batch(2, shape, dense).stride, 20);
  const int64_t broadcast[] = {0, 0};
  EXPECT_TRUE(collapse_batch(2, shape, broadcast).ok);
  EXPECT_EQ(collapse_batch(2, shape, broadcast).stride, 0);
  const int64_t permuted[] = {20, 40};
  EXPECT_FALSE(collapse_batch(2, shape, permuted).ok);
  const int64_t ones_shape[] = {1, 3};
  const int64_t any[] = {12345, 20};
  EXPECT_TRUE(collapse_batch(2, ones_shape, any).ok);
}

// Multiplies with the plan on the host, reading memory exactly as cuBLAS would (column-major
// stored operands, op = transpose or not), to prove the plan computes out = a b.
void check_plan_computes_product(const Operand2d& a, const Operand2d& b, const Operand2d& o) {
  const LtPlan p = plan_lt(a, b, o);
  ASSERT_TRUE(p.ok);
  std::vector<double> ma(64, 0), mb(64, 0), mo(64, 0);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) ma[i * a.row_stride + j * a.col_stride] = 1 + i * 3 + j;
  for (int64_t i = 0; i < b.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j) mb[i * b.row_stride + j * b.col_stride] = 2 - i + j * 5;
  const std::vector<double>& first = p.swap ? mb : ma;
  const std::vector<double>& second = p.swap ? ma : mb;
  auto at = [](const std::vector<double>& m, const LtMatrix& x, int64_t i, int64_t j) {
    return x.transposed ? m[j + i * x.ld] : m[i + j * x.ld];  // element (i, j) of op(stored)
  };
  const int64_t rows = p.d.rows, cols = p.d.cols;
  const int64_t k = p.first.transposed ? p.first.rows : p.first.cols;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double s = 0;
      for (int64_t t = 0; t < k; ++t) s += at(first, p.first, i, t) * at(second, p.second, t, j);
      mo[i + j * p.d.ld] = s;
    }
  for (int64_t i = 0; i < o.rows; ++i)
    for (int64_t j = 0; j < o.cols; ++j) {
      double s = 0;
      for (int64_t t = 0; t < a.cols; ++t)
        s += ma[i * a.row_stride + t * a.col_stride] * mb[t * b.row_stride + j * b.col_stride];
      EXPECT_EQ(mo[i * o.row_stride + j * o.col_stride], s) << i << "," << j;
    }
}

TEST(CublasLtPlan, EveryLayoutCombinationComputesTheProduct) {
  const int64_t m = 3, k = 4, n = 2;
  for (bool a_col : {false, true})
    for (bool b_col : {false, true})
      for (bool o_col : {false, true}) {
        SCOPED_TRACE(std::to_string(a_col) + std::to_string(b_col) + std::to_string(o_col));
        const Operand2d a = a_col ? Operand2d{m, k, 1, m} : Operand2d{m, k, k, 1};
        const Operand2d b = b_col ? Operand2d{k, n, 1, k} : Operand2d{k, n, n, 1};
        const Operand2d o = o_col ? Operand2d{m, n, 1, m} : Operand2d{m, n, n, 1};
        check_plan_computes_product(a, b, o);
      }
}

TEST(CublasLtPlan, AsksToMaterializeWhatItCannotDescribe) {
  const LtPlan p = plan_lt(Operand2d{3, 4, 8, 2}, Operand2d{4, 2, 2, 1}, Operand2d{3, 2, 2, 1});
  EXPECT_FALSE(p.ok);
  EXPECT_TRUE(p.need_dense_a);
  EXPECT_FALSE(p.need_dense_b);
  EXPECT_FALSE(p.need_dense_out);
}
#endif

// digamma in double (special_double.cuh), the same method as the OpenCL kernels: within 2 ulp of
// mpmath's value at 200 bits, also at the doubles next to the positive root and to negative
// roots near and far, next to poles, and through the recurrence and asymptotic ranges.
TEST(GpuMath, DigammaDoubleWithinTwoUlpAlsoAtItsRoots) {
  const struct {
    double x, expected;
  } cases[] = {
      {1.4616321449683622, -9.241265521729427e-17},
      {1.4616321449683625, 1.2245374622004068e-16},
      {1.461632144968362, -3.072790566546293e-16},
      {-0.5040830082644554, 7.289763902976895e-17},
      {-0.5040830082644553, 1.0654146585779509e-15},
      {-2.6107208684441447, -1.0720275936410002e-15},
      {-2.610720868444145, -5.889653358275491e-15},
      {-5.6671624415568855, 4.1867794464524804e-17},
      {-9.702672540001863, 4.939256869086382e-15},
      {-99.80953650218777, -1.978880127929045e-14},
      {-999.8641415089436, -1.3635638941675375e-12},
      {0.25, -4.2274535333762655},
      {1.0, -0.5772156649015329},
      {2.0, 0.42278433509846713},
      {3.5, 1.103156640645243},
      {7.75, 1.9817915626943456},
      {31.9, 3.446850145414428},
      {32.0, 3.4500295305349873},
      {100.5, 4.605174352581845},
      {1000000.0, 13.815510057964191},
      {1e-20, -1e+20},
      {-1e-20, 1e+20},
      {-0.5, 0.03648997397857652},
      {-1.5000000001, 0.7031566397073185},
      {-20.25, 6.174235633614484},
      {-12345.678, 7.454965900116613},
      {-0.9999999999999999, -9007199254740992.0},
      {-3.0000000000000004, 2251799813685249.5},
  };
  for (const auto& c : cases) {
    const double got = digamma_double(c.x);
    const double ulp = std::nextafter(std::fabs(c.expected), INFINITY) - std::fabs(c.expected);
    EXPECT_LE(std::fabs(got - c.expected), 2 * ulp) << "digamma(" << c.x << ") = " << got;
  }
  EXPECT_EQ(digamma_double(0.0), -INFINITY);
  EXPECT_EQ(digamma_double(-0.0), INFINITY);
  EXPECT_TRUE(std::isnan(digamma_double(-3.0)));
  EXPECT_TRUE(std::isnan(digamma_double(-INFINITY)));
  EXPECT_EQ(digamma_double(INFINITY), INFINITY);
}

// lgamma in double (special_double.cuh): within 2 ulp of mpmath also at the doubles next to
// the negative roots (the reflection in double-double, Taylor series at the roots); for
// x > 0 the host's lgamma stands in for the vendor's (4 ulp), hence 4 there.
TEST(GpuMath, LgammaDoubleAccurateNextToTheNegativeRoots) {
  const struct {
    double x, expected, ulps;
  } cases[] = {
      {-2.4570247382208006, 5.619192358950097e-17, 2},
      {-2.4570247382208, 7.292550612674704e-16, 2},
      {-3.955294284858598, -4.14382750757705e-16, 2},
      {-3.9552942848585984, 8.789393144349778e-15, 2},
      {-4.991544640560048, 1.7683619350849613e-14, 2},
      {-2.7476826467274127, 1.733509244024501e-16, 2},
      {-0.5, 1.2655121234846454, 2},
      {-2.5, -0.056243716497674054, 2},
      {-1e-300, 690.7755278982137, 2},
      {-7.0001, 0.6849774625489625, 2},
      {-4.9406564584124654e-324, 744.4400719213812, 2},
      {-100000.3, -1051301.3191134701, 2},
      {-23.5, -52.04576464031987, 2},
      {0.5, 0.5723649429247001, 4},
      {1.5, -0.12078223763524522, 4},
      {3.0, 0.6931471805599453, 4},
      {10000000000.0, 220258509288.81058, 4},
  };
  for (const auto& c : cases) {
    const double got = lgamma_double(c.x);
    const double ulp = std::nextafter(std::fabs(c.expected), INFINITY) - std::fabs(c.expected);
    EXPECT_LE(std::fabs(got - c.expected), c.ulps * ulp) << "lgamma(" << c.x << ") = " << got;
  }
  EXPECT_EQ(lgamma_double(0.0), INFINITY);
  EXPECT_EQ(lgamma_double(-4.0), INFINITY);
  EXPECT_EQ(lgamma_double(-INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(lgamma_double(NAN)));
}

}  // namespace
