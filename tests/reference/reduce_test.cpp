// SPDX-License-Identifier: Apache-2.0
// Reference backend: reductions (sum prod amax amin argmax argmin var all any) and scans
// (cumsum cumprod). Expectations are worked by hand or computed here in long double,
// independently of the kernels.
#include <gtest/gtest.h>
#include <quadmath.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;
namespace sdk = devplug::sdk;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

rt::Tensor tensor(devplug_dtype_t dtype, const std::vector<int64_t>& shape,
                  const std::vector<double>& values) {
  rt::Tensor t = rt::make_tensor(dtype, shape);
  if (!values.empty()) rt::write_doubles(t, values);
  return t;
}

devplug_reduce_attrs_t reduce_attrs(uint32_t mask, double correction = 0) {
  return devplug_reduce_attrs_t{sizeof(devplug_reduce_attrs_t), mask, correction};
}

// The output shape of a reduction: reduced dims become 1.
std::vector<int64_t> reduced_shape(std::vector<int64_t> shape, uint32_t mask) {
  for (size_t d = 0; d < shape.size(); ++d)
    if ((mask >> d) & 1u) shape[d] = 1;
  return shape;
}

devplug_dtype_t out_dtype_of(devplug_op_t op, devplug_dtype_t in) {
  switch (devplug_op_info(op)->result) {
    case DEVPLUG_RESULT_bool:
      return DEVPLUG_DTYPE_BOOL;
    case DEVPLUG_RESULT_int64:
      return DEVPLUG_DTYPE_INT64;
    default:
      return in;
  }
}

// Runs reduction `op` of `in` over `mask`; returns the output as doubles.
std::vector<double> reduce(devplug_op_t op, const rt::Tensor& in, uint32_t mask, double correction = 0) {
  std::vector<int64_t> shape(in.desc.shape, in.desc.shape + in.desc.rank);
  rt::Tensor out = rt::make_tensor(out_dtype_of(op, in.desc.dtype), reduced_shape(shape, mask));
  const devplug_reduce_attrs_t attrs = reduce_attrs(mask, correction);
  rt::run_ok(op, {&in}, {&out}, &attrs);
  return rt::read_doubles(out);
}

rt::Result reduce_result(devplug_op_t op, const rt::Tensor& in, const std::vector<int64_t>& out_shape,
                         uint32_t mask) {
  rt::Tensor out = rt::make_tensor(out_dtype_of(op, in.desc.dtype), out_shape);
  const devplug_reduce_attrs_t attrs = reduce_attrs(mask);
  return rt::run(op, {&in}, {&out}, &attrs);
}

std::vector<double> scan(devplug_op_t op, const rt::Tensor& in, int32_t dim) {
  std::vector<int64_t> shape(in.desc.shape, in.desc.shape + in.desc.rank);
  rt::Tensor out = rt::make_tensor(in.desc.dtype, shape);
  const devplug_dim_attrs_t attrs{sizeof(devplug_dim_attrs_t), dim};
  rt::run_ok(op, {&in}, {&out}, &attrs);
  return rt::read_doubles(out);
}

// Element-wise equality that treats NaN as equal to NaN and tells -0.0 from +0.0.
void expect_same(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    } else {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "sign of element " << i;
    }
  }
}

std::vector<devplug_dtype_t> dtypes_of(devplug_op_t op) {
  std::vector<devplug_dtype_t> out;
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
    if (devplug_op_info(op)->dtypes & DEVPLUG_DTYPE_BIT(d)) out.push_back(d);
  return out;
}

// ---- every declared dtype, small exact examples --------------------------------------------

TEST(ReferenceReduce, DeclaresEveryReduceAndScanDtype) {
  for (devplug_op_t op : sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (info->category != DEVPLUG_CATEGORY_reduce && info->category != DEVPLUG_CATEGORY_scan) continue;
    for (devplug_dtype_t d : dtypes_of(op))
      EXPECT_NE(rt::find_kernel(op, d), nullptr) << info->name << " " << devplug_dtype_name(d);
  }
}

TEST(ReferenceReduce, SumProdEveryDtypeRowsAndColumns) {
  // [[1 2 3] [4 5 6]]: rows sum to 6, 15; columns 5, 7, 9; all 21. Products 6, 120; 4, 10, 18; 720.
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_sum)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor in = tensor(d, {2, 3}, {1, 2, 3, 4, 5, 6});
    expect_same(reduce(DEVPLUG_OP_sum, in, 2), {6, 15});
    expect_same(reduce(DEVPLUG_OP_sum, in, 1), {5, 7, 9});
    expect_same(reduce(DEVPLUG_OP_sum, in, 3), {21});
    expect_same(reduce(DEVPLUG_OP_sum, in, 0), {1, 2, 3, 4, 5, 6});
    expect_same(reduce(DEVPLUG_OP_prod, in, 2), {6, 120});
    expect_same(reduce(DEVPLUG_OP_prod, in, 1), {4, 10, 18});
    if (d != DEVPLUG_DTYPE_INT8 && d != DEVPLUG_DTYPE_UINT8)  // 720 wraps there (below)
      expect_same(reduce(DEVPLUG_OP_prod, in, 3), {720});
  }
}

TEST(ReferenceReduce, EmptySumIsZeroEmptyProdIsOne) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_sum)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor in = tensor(d, {0, 3}, {});
    expect_same(reduce(DEVPLUG_OP_sum, in, 1), {0, 0, 0});
    expect_same(reduce(DEVPLUG_OP_prod, in, 1), {1, 1, 1});
    expect_same(reduce(DEVPLUG_OP_sum, in, 3), {0});
    // Reducing only the non-empty dim leaves an empty output: nothing to do, no error.
    EXPECT_EQ(reduce(DEVPLUG_OP_sum, in, 2).size(), 0u);
  }
}

TEST(ReferenceReduce, IntegerSumAndProdWrap) {
  rt::Tensor i8 = tensor(DEVPLUG_DTYPE_INT8, {3}, {100, 100, 100});
  expect_same(reduce(DEVPLUG_OP_sum, i8, 1), {44});  // 300 - 256
  rt::Tensor u8 = tensor(DEVPLUG_DTYPE_UINT8, {2}, {200, 2});
  expect_same(reduce(DEVPLUG_OP_sum, u8, 1), {202});
  expect_same(reduce(DEVPLUG_OP_prod, u8, 1), {144});  // 400 - 256
  rt::Tensor i32 = tensor(DEVPLUG_DTYPE_INT32, {2}, {2147483647.0, 1});
  expect_same(reduce(DEVPLUG_OP_sum, i32, 1), {-2147483648.0});
  rt::Tensor i64 = rt::make_tensor(DEVPLUG_DTYPE_INT64, {2});
  rt::write<int64_t>(i64, {std::numeric_limits<int64_t>::min(), -1});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT64, {1});
  const devplug_reduce_attrs_t attrs = reduce_attrs(1);
  rt::run_ok(DEVPLUG_OP_prod, {&i64}, {&out}, &attrs);
  EXPECT_EQ(rt::read<int64_t>(out)[0], std::numeric_limits<int64_t>::min());
  rt::run_ok(DEVPLUG_OP_sum, {&i64}, {&out}, &attrs);
  EXPECT_EQ(rt::read<int64_t>(out)[0], std::numeric_limits<int64_t>::max());
  rt::Tensor i16 = tensor(DEVPLUG_DTYPE_INT16, {2}, {-32768, -1});
  expect_same(reduce(DEVPLUG_OP_prod, i16, 1), {-32768});  // 32768 wraps to -32768
}

TEST(ReferenceReduce, Int8ProductOfHundredsWrapsToLowByte) {
  // 100^3 = 1000000 = 0xF4240; the low byte 0x40 = 64.
  rt::Tensor i8 = tensor(DEVPLUG_DTYPE_INT8, {3}, {100, 100, 100});
  expect_same(reduce(DEVPLUG_OP_prod, i8, 1), {64});
}

TEST(ReferenceReduce, FloatSumsAccumulateWiderThanTheDtype) {
  // float32 accumulation would lose the 1: 1e8 + 1 rounds back to 1e8.
  expect_same(reduce(DEVPLUG_OP_sum, tensor(DEVPLUG_DTYPE_FLOAT32, {3}, {1e8, 1, -1e8}), 1), {1});
  // float16: 2048 + 1 rounds to 2048 in float16; in double the sum is 2050.
  expect_same(reduce(DEVPLUG_OP_sum, tensor(DEVPLUG_DTYPE_FLOAT16, {3}, {2048, 1, 1}), 1), {2050});
  expect_same(reduce(DEVPLUG_OP_sum, tensor(DEVPLUG_DTYPE_BFLOAT16, {3}, {256, 1, 1}), 1), {258});
  // float64: 1e16 + 1 is not a double; long double (or a compensated sum) keeps it.
  expect_same(reduce(DEVPLUG_OP_sum, tensor(DEVPLUG_DTYPE_FLOAT64, {4}, {1e16, 1, 1, -1e16}), 1), {2});
  // Products: float32 1e30 * 1e30 overflows float but 1e30 * 1e30 * 1e-30 does not in double.
  const double p =
      static_cast<double>(static_cast<float>(1e30)) * static_cast<float>(1e30) * static_cast<float>(1e-30);
  expect_same(reduce(DEVPLUG_OP_prod, tensor(DEVPLUG_DTYPE_FLOAT32, {3}, {1e30, 1e30, 1e-30}), 1),
              {static_cast<double>(static_cast<float>(p))});
}

TEST(ReferenceReduce, FloatSpecialValuesInSumAndProd) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_var)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    expect_same(reduce(DEVPLUG_OP_sum, tensor(d, {3}, {1, kNaN, 2}), 1), {kNaN});
    expect_same(reduce(DEVPLUG_OP_sum, tensor(d, {2}, {kInf, -kInf}), 1), {kNaN});
    expect_same(reduce(DEVPLUG_OP_sum, tensor(d, {2}, {kInf, 1}), 1), {kInf});
    expect_same(reduce(DEVPLUG_OP_sum, tensor(d, {2}, {-0.0, -0.0}), 1), {-0.0});
    expect_same(reduce(DEVPLUG_OP_sum, tensor(d, {2}, {-0.0, 0.0}), 1), {0.0});
    expect_same(reduce(DEVPLUG_OP_prod, tensor(d, {2}, {-0.0, 3}), 1), {-0.0});
    expect_same(reduce(DEVPLUG_OP_prod, tensor(d, {2}, {kInf, 0}), 1), {kNaN});
  }
  // Subnormals add exactly: 2^-1074 * 3.
  const double tiny = std::ldexp(1.0, -1074);
  expect_same(reduce(DEVPLUG_OP_sum, tensor(DEVPLUG_DTYPE_FLOAT64, {3}, {tiny, tiny, tiny}), 1), {3 * tiny});
  const double tiny32 = std::ldexp(1.0, -149);
  expect_same(reduce(DEVPLUG_OP_sum, tensor(DEVPLUG_DTYPE_FLOAT32, {2}, {tiny32, tiny32}), 1), {2 * tiny32});
}

// The spacing of the dtype's values at |x| (its unit in the last place).
double ulp_of(devplug_dtype_t d, double x) {
  const int bits = d == DEVPLUG_DTYPE_FLOAT32    ? 24
                   : d == DEVPLUG_DTYPE_FLOAT16  ? 11
                   : d == DEVPLUG_DTYPE_BFLOAT16 ? 8
                                                 : 53;
  int e = 0;
  std::frexp(x, &e);
  return std::ldexp(1.0, e - bits);
}

TEST(ReferenceReduce, RandomFloatSumsMatchLongDouble) {
  std::mt19937_64 gen(7);
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_var)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    // float16 tops out at 65504: keep its variance in range.
    const double range = d == DEVPLUG_DTYPE_FLOAT16 ? 100 : 1000;
    std::uniform_real_distribution<double> dist(-range, range);
    rt::Tensor in = rt::make_tensor(d, {4, 1000});
    std::vector<double> values(4000);
    for (double& v : values) v = dist(gen);
    rt::write_doubles(in, values);
    const std::vector<double> stored = rt::read_doubles(in);  // exact values after rounding
    const std::vector<double> got = reduce(DEVPLUG_OP_sum, in, 2);
    const std::vector<double> var = reduce(DEVPLUG_OP_var, in, 2, 1);
    for (int r = 0; r < 4; ++r) {
      long double exact = 0;
      for (int i = 0; i < 1000; ++i) exact += stored[r * 1000 + i];
      long double mean = exact / 1000, squares = 0;
      for (int i = 0; i < 1000; ++i) squares += (stored[r * 1000 + i] - mean) * (stored[r * 1000 + i] - mean);
      const double exact_var = static_cast<double>(squares / 999);
      // Correct rounding of the exact result is within half an ulp; allow a hair more for
      // the accumulation's own error.
      EXPECT_LE(std::fabs(got[r] - static_cast<double>(exact)), 0.5 * ulp_of(d, got[r]) * 1.0001 + 1e-9)
          << "row " << r;
      EXPECT_LE(std::fabs(var[r] - exact_var), 0.5 * ulp_of(d, var[r]) * 1.0001 + 1e-9) << "row " << r;
    }
  }
}

// ---- amax / amin ---------------------------------------------------------------------------

TEST(ReferenceReduce, AmaxAminEveryDtype) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_amax)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    if (d == DEVPLUG_DTYPE_BOOL) {
      rt::Tensor in = tensor(d, {2, 3}, {0, 1, 0, 0, 0, 0});
      expect_same(reduce(DEVPLUG_OP_amax, in, 2), {1, 0});
      expect_same(reduce(DEVPLUG_OP_amin, in, 2), {0, 0});
      expect_same(reduce(DEVPLUG_OP_amax, in, 1), {0, 1, 0});
      continue;
    }
    rt::Tensor in = tensor(d, {2, 3}, {3, 7, 5, 9, 2, 4});
    expect_same(reduce(DEVPLUG_OP_amax, in, 2), {7, 9});
    expect_same(reduce(DEVPLUG_OP_amin, in, 2), {3, 2});
    expect_same(reduce(DEVPLUG_OP_amax, in, 1), {9, 7, 5});
    expect_same(reduce(DEVPLUG_OP_amin, in, 3), {2});
  }
}

TEST(ReferenceReduce, AmaxAminIntegerExtremes) {
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_INT64, {3});
  rt::write<int64_t>(in, {0, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT64, {1});
  const devplug_reduce_attrs_t attrs = reduce_attrs(1);
  rt::run_ok(DEVPLUG_OP_amax, {&in}, {&out}, &attrs);
  EXPECT_EQ(rt::read<int64_t>(out)[0], std::numeric_limits<int64_t>::max());
  rt::run_ok(DEVPLUG_OP_amin, {&in}, {&out}, &attrs);
  EXPECT_EQ(rt::read<int64_t>(out)[0], std::numeric_limits<int64_t>::min());
  expect_same(reduce(DEVPLUG_OP_amax, tensor(DEVPLUG_DTYPE_UINT8, {2}, {255, 0}), 1), {255});
  expect_same(reduce(DEVPLUG_OP_amin, tensor(DEVPLUG_DTYPE_INT8, {2}, {-128, 127}), 1), {-128});
}

TEST(ReferenceReduce, AmaxAminPropagateNaNAndOrderSignedZeros) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_var)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    expect_same(reduce(DEVPLUG_OP_amax, tensor(d, {3}, {1, kNaN, 5}), 1), {kNaN});
    expect_same(reduce(DEVPLUG_OP_amin, tensor(d, {3}, {kNaN, 1, 5}), 1), {kNaN});
    expect_same(reduce(DEVPLUG_OP_amax, tensor(d, {3}, {1, 5, kNaN}), 1), {kNaN});
    expect_same(reduce(DEVPLUG_OP_amax, tensor(d, {3}, {-kInf, 1, kInf}), 1), {kInf});
    expect_same(reduce(DEVPLUG_OP_amin, tensor(d, {3}, {-kInf, 1, kInf}), 1), {-kInf});
    expect_same(reduce(DEVPLUG_OP_amax, tensor(d, {2}, {-0.0, 0.0}), 1), {0.0});
    expect_same(reduce(DEVPLUG_OP_amax, tensor(d, {2}, {0.0, -0.0}), 1), {0.0});
    expect_same(reduce(DEVPLUG_OP_amin, tensor(d, {2}, {0.0, -0.0}), 1), {-0.0});
    expect_same(reduce(DEVPLUG_OP_amin, tensor(d, {2}, {-0.0, 0.0}), 1), {-0.0});
  }
}

TEST(ReferenceReduce, EmptyExtremesAreRefused) {
  for (devplug_op_t op : {DEVPLUG_OP_amax, DEVPLUG_OP_amin, DEVPLUG_OP_argmax, DEVPLUG_OP_argmin}) {
    SCOPED_TRACE(devplug_op_name(op));
    rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {0, 3});
    const rt::Result r = reduce_result(op, in, {1, 3}, 1);
    EXPECT_EQ(r.code, DEVPLUG_CODE_INVALID_ARGUMENT) << r.message;
  }
}

// ---- argmax / argmin -----------------------------------------------------------------------

TEST(ReferenceReduce, ArgmaxArgminEveryDtypeFirstOnTies) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_argmax)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor in = tensor(d, {2, 4}, {1, 3, 3, 0, 5, 5, 2, 2});
    expect_same(reduce(DEVPLUG_OP_argmax, in, 2), {1, 0});
    expect_same(reduce(DEVPLUG_OP_argmin, in, 2), {3, 2});
    expect_same(reduce(DEVPLUG_OP_argmax, in, 1), {1, 1, 0, 1});
    expect_same(reduce(DEVPLUG_OP_argmin, in, 1), {0, 0, 1, 0});
    // Whole tensor: row-major index within the reduced sub-space.
    expect_same(reduce(DEVPLUG_OP_argmax, in, 3), {4});
    expect_same(reduce(DEVPLUG_OP_argmin, in, 3), {3});
  }
}

TEST(ReferenceReduce, ArgmaxFirstNaNWins) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_var)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor in = tensor(d, {5}, {1, 9, kNaN, 9, kNaN});
    expect_same(reduce(DEVPLUG_OP_argmax, in, 1), {2});
    expect_same(reduce(DEVPLUG_OP_argmin, in, 1), {2});
    expect_same(reduce(DEVPLUG_OP_argmax, tensor(d, {2}, {kNaN, kInf}), 1), {0});
    expect_same(reduce(DEVPLUG_OP_argmin, tensor(d, {3}, {kInf, -kInf, -kInf}), 1), {1});
    // -0.0 and +0.0 tie: the first wins.
    expect_same(reduce(DEVPLUG_OP_argmax, tensor(d, {2}, {-0.0, 0.0}), 1), {0});
  }
}

TEST(ReferenceReduce, ArgmaxIndexIsRowMajorWithinNonAdjacentReducedDims) {
  // in[i][j][k] = value; reduce dims 0 and 2 (mask 0b101): for each j the index is i*2 + k.
  rt::Tensor in = tensor(DEVPLUG_DTYPE_INT32, {2, 2, 2},
                         {/*i0 j0*/ 0, 1, /*i0 j1*/ 7, 0, /*i1 j0*/ 5, 2, /*i1 j1*/ 3, 3});
  expect_same(reduce(DEVPLUG_OP_argmax, in, 5), {2, 0});  // j1: 7 at (i0, k0)
  expect_same(reduce(DEVPLUG_OP_argmin, in, 5), {0, 1});
}

// ---- var -----------------------------------------------------------------------------------

TEST(ReferenceReduce, VarCorrections) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_var)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor in = tensor(d, {4}, {1, 2, 3, 4});  // squared deviations sum to 5
    expect_same(reduce(DEVPLUG_OP_var, in, 1, 0), {rt::read_doubles(tensor(d, {1}, {1.25}))[0]});
    expect_same(reduce(DEVPLUG_OP_var, in, 1, 1), {rt::read_doubles(tensor(d, {1}, {5.0 / 3}))[0]});
    expect_same(reduce(DEVPLUG_OP_var, in, 1, 4), {kInf});                      // n - correction = 0
    expect_same(reduce(DEVPLUG_OP_var, in, 1, 5), {kInf});                      // max(0, -1) = 0
    expect_same(reduce(DEVPLUG_OP_var, tensor(d, {2}, {2, 2}), 1, 2), {kNaN});  // 0 / 0
    expect_same(reduce(DEVPLUG_OP_var, tensor(d, {1}, {3}), 1, 1), {kNaN});
    expect_same(reduce(DEVPLUG_OP_var, tensor(d, {0}, {}), 1, 0), {kNaN});
    expect_same(reduce(DEVPLUG_OP_var, tensor(d, {3}, {1, kInf, 2}), 1, 1), {kNaN});
    expect_same(reduce(DEVPLUG_OP_var, tensor(d, {2, 2}, {1, 3, 5, 9}), 1, 1), {8, 18});
    // mask 0: every element is its own group of one.
    expect_same(reduce(DEVPLUG_OP_var, tensor(d, {2}, {1, 5}), 0, 0), {0, 0});
  }
}

// var of {0, 2} with correction c is 2 / (2 - c). Pick c so that this lies just above the
// tie between 1 and the next 16-bit value, closer to it than half a double ulp: rounding
// to double first would land on the tie and round down; the exact result rounds up.
TEST(ReferenceReduce, VarOf16BitFormatsRoundsOnceFromTheExactValue) {
  for (devplug_dtype_t d : {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16}) {
    SCOPED_TRACE(devplug_dtype_name(d));
    const int mantissa_bits = d == DEVPLUG_DTYPE_FLOAT16 ? 10 : 7;
    const __float128 tie = 1 + ldexpq(1, -mantissa_bits - 1);
    // 2 / (2 - c) = tie + 2^-58 for c = 2 - 2 / (tie + 2^-58); c is rounded to a double, so
    // step it until the quotient (exact enough in binary128) is above the tie but rounds
    // to it as a double.
    double c = static_cast<double>(2 - 2 / (tie + ldexpq(1, -58)));
    __float128 quotient = 0;
    for (int step = 0; step < 64; ++step, c = std::nextafter(c, 1.0)) {
      quotient = 2 / (2 - static_cast<__float128>(c));
      if (quotient > tie && static_cast<double>(quotient) == static_cast<double>(tie)) break;
    }
    ASSERT_TRUE(quotient > tie && static_cast<double>(quotient) == static_cast<double>(tie));
    const double above_tie = 1 + std::ldexp(1.0, -mantissa_bits);
    expect_same(reduce(DEVPLUG_OP_var, tensor(d, {2}, {0, 2}), 1, c), {above_tie});
  }
}

TEST(ReferenceReduce, VarIsTwoPassAndStableForLargeOffsets) {
  // A one-pass formula (E[x^2] - E[x]^2) loses everything here in double.
  rt::Tensor in = tensor(DEVPLUG_DTYPE_FLOAT64, {3}, {1e9 + 1, 1e9 + 2, 1e9 + 3});
  expect_same(reduce(DEVPLUG_OP_var, in, 1, 1), {1});
}

// ---- all / any -----------------------------------------------------------------------------

TEST(ReferenceReduce, AllAnyEveryDtype) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_all)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor in = tensor(d, {3, 2}, {1, 1, 0, 1, 0, 0});
    expect_same(reduce(DEVPLUG_OP_all, in, 2), {1, 0, 0});
    expect_same(reduce(DEVPLUG_OP_any, in, 2), {1, 1, 0});
    expect_same(reduce(DEVPLUG_OP_all, in, 1), {0, 0});
    expect_same(reduce(DEVPLUG_OP_any, in, 1), {1, 1});
    rt::Tensor empty = tensor(d, {0}, {});
    expect_same(reduce(DEVPLUG_OP_all, empty, 1), {1});
    expect_same(reduce(DEVPLUG_OP_any, empty, 1), {0});
  }
}

// A bool element is a byte, and any non-zero byte is true: a host may hand over other bytes
// (its own buffer, or a bool view of other storage), and reading them must never be an
// invalid `bool` load (found by fuzz_op_call: UBSan, "load of value 192, which is not a valid
// value for type 'const bool'" in all_or_any). The results are written as 0 and 1.
TEST(ReferenceReduce, BoolBytesOtherThanOneAreTrue) {
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {4});
  rt::write_bytes(in, {0, 2, 192, 0});
  expect_same(reduce(DEVPLUG_OP_any, in, 1), {1});
  expect_same(reduce(DEVPLUG_OP_all, in, 1), {0});
  expect_same(reduce(DEVPLUG_OP_amax, in, 1), {1});
  expect_same(reduce(DEVPLUG_OP_amin, in, 1), {0});
  rt::Tensor ones = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {2});
  rt::write_bytes(ones, {0x80, 0xff});
  expect_same(reduce(DEVPLUG_OP_all, ones, 1), {1});
  expect_same(reduce(DEVPLUG_OP_amin, ones, 1), {1});
}

TEST(ReferenceReduce, AllAnyFloatSpecials) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_var)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    expect_same(reduce(DEVPLUG_OP_all, tensor(d, {2}, {kNaN, 1}), 1), {1});
    expect_same(reduce(DEVPLUG_OP_any, tensor(d, {2}, {kNaN, 0}), 1), {1});
    expect_same(reduce(DEVPLUG_OP_any, tensor(d, {2}, {-0.0, 0.0}), 1), {0});
    expect_same(reduce(DEVPLUG_OP_all, tensor(d, {2}, {-0.0, 1}), 1), {0});
  }
  // The smallest subnormal is non-zero.
  expect_same(reduce(DEVPLUG_OP_all, tensor(DEVPLUG_DTYPE_FLOAT64, {1}, {std::ldexp(1.0, -1074)}), 1), {1});
  expect_same(reduce(DEVPLUG_OP_any, tensor(DEVPLUG_DTYPE_INT64, {2}, {0, -1}), 1), {1});
}

// ---- layouts -------------------------------------------------------------------------------

// Every reduction of a strided view equals the same reduction of a contiguous copy.
TEST(ReferenceReduce, StridedInputsMatchContiguousCopies) {
  std::mt19937 gen(3);
  std::uniform_int_distribution<int> dist(-20, 20);
  // A 3x4 logical tensor read through four layouts of one buffer.
  struct Layout {
    const char* name;
    std::vector<int64_t> strides;
    int64_t offset;
  };
  const std::vector<Layout> layouts = {{"transposed", {1, 3}, 0},     {"negative", {-4, -1}, 0},
                                       {"offset", {4, 1}, 5},         {"stepped", {8, 2}, 1},
                                       {"broadcast_rows", {0, 1}, 0}, {"overlapping", {1, 1}, 0}};
  for (devplug_op_t op : sdk::all_ops()) {
    if (devplug_op_info(op)->category != DEVPLUG_CATEGORY_reduce) continue;
    for (const Layout& layout : layouts) {
      SCOPED_TRACE(std::string(devplug_op_name(op)) + " " + layout.name);
      rt::Tensor view = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {3, 4}, layout.strides, layout.offset);
      std::vector<double> values(static_cast<size_t>(view.buffer->size / 4));
      for (double& v : values) v = dist(gen) / 4.0;
      rt::write_buffer<float>(view, std::vector<float>(values.begin(), values.end()));
      const std::vector<double> logical = rt::read_doubles(view);
      rt::Tensor dense = tensor(DEVPLUG_DTYPE_FLOAT32, {3, 4}, logical);
      for (uint32_t mask : {0u, 1u, 2u, 3u})
        expect_same(reduce(op, view, mask, 1), reduce(op, dense, mask, 1));
    }
  }
}

TEST(ReferenceReduce, StridedOutputAndRankEight) {
  // Input [2,1,2,1,2,1,2,1] counting 0..15; reduce dims 0 and 4 (mask 0b10001).
  std::vector<int64_t> shape = {2, 1, 2, 1, 2, 1, 2, 1};
  std::vector<double> values(16);
  for (int i = 0; i < 16; ++i) values[i] = i;
  rt::Tensor in = tensor(DEVPLUG_DTYPE_INT32, shape, values);
  // Output [1,1,2,1,1,1,2,1] written through reversed strides.
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT32, {1, 1, 2, 1, 1, 1, 2, 1}, {0, 0, -1, 0, 0, 0, -2, 0});
  const devplug_reduce_attrs_t attrs = reduce_attrs(0x11);
  rt::run_ok(DEVPLUG_OP_sum, {&in}, {&out}, &attrs);
  // Logical index (i0, i2, i4, i6) = 8 i0 + 4 i2 + 2 i4 + i6; sum over i0, i4 for each (i2, i6):
  // (i2, i6) = (0,0): 0+2+8+10 = 20; (0,1): 24; (1,0): 36; (1,1): 40.
  expect_same(rt::read_doubles(out), {20, 24, 36, 40});
}

TEST(ReferenceReduce, ZeroDimensionalInput) {
  rt::Tensor in = tensor(DEVPLUG_DTYPE_FLOAT32, {}, {2.5});
  expect_same(reduce(DEVPLUG_OP_sum, in, 0), {2.5});
  expect_same(reduce(DEVPLUG_OP_argmax, in, 0), {0});
  expect_same(reduce(DEVPLUG_OP_var, in, 0, 0), {0});
  expect_same(scan(DEVPLUG_OP_cumsum, in, 0), {2.5});
}

TEST(ReferenceReduce, BadShapesAndMasksAreRefused) {
  rt::Tensor in = tensor(DEVPLUG_DTYPE_FLOAT32, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(reduce_result(DEVPLUG_OP_sum, in, {2, 3}, 1).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(reduce_result(DEVPLUG_OP_sum, in, {1, 3, 1}, 1).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(reduce_result(DEVPLUG_OP_sum, in, {2, 3}, 4).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  // Wrong output dtype for argmax (must be int64).
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT32, {1, 3});
  const devplug_reduce_attrs_t attrs = reduce_attrs(1);
  EXPECT_EQ(rt::run(DEVPLUG_OP_argmax, {&in}, {&out}, &attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  // Missing attributes.
  rt::Tensor out2 = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {1, 3});
  EXPECT_EQ(rt::run(DEVPLUG_OP_sum, {&in}, {&out2}, nullptr).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

// ---- cumsum / cumprod ----------------------------------------------------------------------

TEST(ReferenceScan, CumsumCumprodEveryDtype) {
  for (devplug_dtype_t d : dtypes_of(DEVPLUG_OP_cumsum)) {
    SCOPED_TRACE(devplug_dtype_name(d));
    rt::Tensor in = tensor(d, {2, 3}, {1, 2, 3, 4, 5, 6});
    expect_same(scan(DEVPLUG_OP_cumsum, in, 1), {1, 3, 6, 4, 9, 15});
    expect_same(scan(DEVPLUG_OP_cumsum, in, 0), {1, 2, 3, 5, 7, 9});
    expect_same(scan(DEVPLUG_OP_cumprod, in, 1), {1, 2, 6, 4, 20, 120});
    expect_same(scan(DEVPLUG_OP_cumprod, in, 0), {1, 2, 3, 4, 10, 18});
    EXPECT_EQ(scan(DEVPLUG_OP_cumsum, tensor(d, {0, 3}, {}), 1).size(), 0u);
  }
}

TEST(ReferenceScan, IntegerScansWrap) {
  expect_same(scan(DEVPLUG_OP_cumsum, tensor(DEVPLUG_DTYPE_INT8, {3}, {100, 100, -100}), 0), {100, -56, 100});
  expect_same(scan(DEVPLUG_OP_cumprod, tensor(DEVPLUG_DTYPE_UINT8, {3}, {16, 16, 3}), 0), {16, 0, 0});
  expect_same(scan(DEVPLUG_OP_cumprod, tensor(DEVPLUG_DTYPE_INT16, {3}, {256, 128, 2}), 0), {256, -32768, 0});
}

TEST(ReferenceScan, FloatScansKeepAWideRunningValue) {
  // float16: 2048 + 1 = 2049 rounds to 2048 (ties to even); the running value stays 2049 in
  // double, so the next output is 2050, where a float16 running value would give 2048.
  expect_same(scan(DEVPLUG_OP_cumsum, tensor(DEVPLUG_DTYPE_FLOAT16, {3}, {2048, 1, 1}), 0),
              {2048, 2048, 2050});
  expect_same(scan(DEVPLUG_OP_cumsum, tensor(DEVPLUG_DTYPE_FLOAT32, {3}, {1e8, 1, -1e8}), 0), {1e8, 1e8, 1});
  expect_same(scan(DEVPLUG_OP_cumsum, tensor(DEVPLUG_DTYPE_FLOAT32, {3}, {-0.0, -0.0, 1}), 0),
              {-0.0, -0.0, 1});
  expect_same(scan(DEVPLUG_OP_cumsum, tensor(DEVPLUG_DTYPE_FLOAT64, {3}, {1, kNaN, 1}), 0), {1, kNaN, kNaN});
  expect_same(scan(DEVPLUG_OP_cumprod, tensor(DEVPLUG_DTYPE_FLOAT32, {3}, {kInf, 0, 1}), 0),
              {kInf, kNaN, kNaN});
}

TEST(ReferenceScan, StridedInputAndOutput) {
  // Logical [[1 2] [3 4]] stored transposed, output written with negative strides.
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2, 2}, {1, 2});
  rt::write<int32_t>(in, {1, 2, 3, 4});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2, 2}, {-2, -1});
  const devplug_dim_attrs_t attrs{sizeof(devplug_dim_attrs_t), 1};
  rt::run_ok(DEVPLUG_OP_cumsum, {&in}, {&out}, &attrs);
  EXPECT_EQ(rt::read<int32_t>(out), (std::vector<int32_t>{1, 3, 3, 7}));
  const devplug_dim_attrs_t bad{sizeof(devplug_dim_attrs_t), 2};
  EXPECT_EQ(rt::run(DEVPLUG_OP_cumsum, {&in}, {&out}, &bad).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

}  // namespace
