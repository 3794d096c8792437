// SPDX-License-Identifier: Apache-2.0
// Data ops of the reference backend (convert_element_type, copy_strided, fill, iota) against
// hand-written expectations, and the layout classes for every elementwise and data op: any
// input layout (transposed, negative, zero and overlapping strides, byte offsets, 0-d, empty,
// rank 8) and strided outputs give exactly the result of the same values laid out densely.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

namespace rt = devplug::reftest;
namespace sdk = devplug::sdk;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Converts `values` written into a 1-D tensor of `from` to dtype `to` and reads them back.
std::vector<double> convert(devplug_dtype_t from, devplug_dtype_t to, const std::vector<double>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  rt::Tensor in = rt::make_tensor(from, {n}), out = rt::make_tensor(to, {n});
  rt::write_doubles(in, values);
  rt::run_ok(DEVPLUG_OP_convert_element_type, {&in}, {&out});
  return rt::read_doubles(out);
}

// `v` rounded to nearest even with `digits` significant bits (no exponent limits), in long
// double: an expectation independent of the kernel's integer rounding.
long double round_to_digits(long double v, int digits) {
  if (v == 0) return v;
  int e = 0;
  std::frexp(v, &e);
  return std::ldexp(std::nearbyint(std::ldexp(v, digits - e)), e - digits);
}

// ---- convert_element_type ---------------------------------------------------------------------

TEST(Convert, FloatToIntegerTruncatesTowardZero) {
  for (devplug_dtype_t from :
       {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64})
    for (devplug_dtype_t to :
         {DEVPLUG_DTYPE_INT8, DEVPLUG_DTYPE_INT16, DEVPLUG_DTYPE_INT32, DEVPLUG_DTYPE_INT64})
      EXPECT_EQ(convert(from, to, {2.75, -2.75, -0.5, 0.5, -0.0, 100, -100, 1}),
                (std::vector<double>{2, -2, 0, 0, 0, 100, -100, 1}))
          << devplug_dtype_name(from) << " -> " << devplug_dtype_name(to);
  EXPECT_EQ(convert(DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_UINT8, {255.9, 0.9, 3}),
            (std::vector<double>{255, 0, 3}));
}

TEST(Convert, UnspecifiedFloatToIntegerCasesSaturateAndSendNaNToZero) {
  // ops.def leaves these unspecified; the reference defines them (and must never trap).
  EXPECT_EQ(convert(DEVPLUG_DTYPE_FLOAT64, DEVPLUG_DTYPE_INT8, {kNaN, kInf, -kInf, 1e10, -1e10, 128, -129}),
            (std::vector<double>{0, 127, -128, 127, -128, 127, -128}));
  EXPECT_EQ(convert(DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_UINT8, {-1, 256, kNaN}),
            (std::vector<double>{0, 255, 0}));
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {3}),
             out = rt::make_tensor(DEVPLUG_DTYPE_INT64, {3});
  rt::write<double>(in, {9.3e18, -9.3e18, 9223372036854774784.0});
  rt::run_ok(DEVPLUG_OP_convert_element_type, {&in}, {&out});
  EXPECT_EQ(rt::read<int64_t>(out), (std::vector<int64_t>{INT64_MAX, INT64_MIN, 9223372036854774784}));
}

TEST(Convert, IntegerToIntegerWraps) {
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_INT64, {5}), out8 = rt::make_tensor(DEVPLUG_DTYPE_UINT8, {5});
  rt::Tensor outi8 = rt::make_tensor(DEVPLUG_DTYPE_INT8, {5}),
             out32 = rt::make_tensor(DEVPLUG_DTYPE_INT32, {5});
  rt::write<int64_t>(in, {300, -1, 128, INT64_MIN, 0x123456789});
  rt::run_ok(DEVPLUG_OP_convert_element_type, {&in}, {&out8});
  rt::run_ok(DEVPLUG_OP_convert_element_type, {&in}, {&outi8});
  rt::run_ok(DEVPLUG_OP_convert_element_type, {&in}, {&out32});
  EXPECT_EQ(rt::read<uint8_t>(out8), (std::vector<uint8_t>{44, 255, 128, 0, 0x89}));
  EXPECT_EQ(rt::read<int8_t>(outi8), (std::vector<int8_t>{44, -1, -128, 0, -119}));
  EXPECT_EQ(rt::read<int32_t>(out32), (std::vector<int32_t>{300, -1, 128, 0, 0x23456789}));
  EXPECT_EQ(convert(DEVPLUG_DTYPE_UINT8, DEVPLUG_DTYPE_INT8, {200, 127}), (std::vector<double>{-56, 127}));
  EXPECT_EQ(convert(DEVPLUG_DTYPE_INT8, DEVPLUG_DTYPE_UINT8, {-56, -128}), (std::vector<double>{200, 128}));
  EXPECT_EQ(convert(DEVPLUG_DTYPE_INT16, DEVPLUG_DTYPE_INT64, {-32768, 32767}),
            (std::vector<double>{-32768, 32767}));
}

TEST(Convert, ToBoolIsNonZeroWithNaNTrue) {
  for (devplug_dtype_t from :
       {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64})
    EXPECT_EQ(convert(from, DEVPLUG_DTYPE_BOOL, {kNaN, -0.0, 0.0, 0.5, -kInf, 1e-30}),
              (std::vector<double>{1, 0, 0, 1, 1, from == DEVPLUG_DTYPE_FLOAT16 ? 0.0 : 1.0}))
        << devplug_dtype_name(from);  // 1e-30 is 0 in float16
  EXPECT_EQ(convert(DEVPLUG_DTYPE_INT64, DEVPLUG_DTYPE_BOOL, {0, -1, 256}), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(convert(DEVPLUG_DTYPE_UINT8, DEVPLUG_DTYPE_BOOL, {0, 2}), (std::vector<double>{0, 1}));
  // From bool: 0 and 1 in every dtype; a non-canonical byte is true.
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  rt::write_bytes(in, {0, 1, 7});
  for (devplug_dtype_t to = 0; to < DEVPLUG_DTYPE_COUNT; ++to) {
    rt::Tensor out = rt::make_tensor(to, {3});
    rt::run_ok(DEVPLUG_OP_convert_element_type, {&in}, {&out});
    EXPECT_EQ(rt::read_doubles(out), (std::vector<double>{0, 1, 1})) << devplug_dtype_name(to);
    if (to == DEVPLUG_DTYPE_BOOL) {
      EXPECT_EQ(rt::read_bytes(out), (std::vector<unsigned char>{0, 1, 1}));
    }
  }
}

TEST(Convert, Int64ToFloatRoundsOnce) {
  // Going through double would round twice: 2^60 + 2^36 + 1 becomes 2^60 + 2^36 in double, a
  // tie that float32 breaks to even (2^60); rounded once it is above the tie.
  const int64_t p60 = int64_t{1} << 60;
  const std::vector<int64_t> values = {p60 + (int64_t{1} << 36) + 1,
                                       p60 + (int64_t{1} << 52) + 1,
                                       (int64_t{1} << 53) + 1,
                                       INT64_MAX,
                                       INT64_MIN,
                                       -p60 - (int64_t{1} << 36) - 1,
                                       65519,
                                       65520,
                                       2049,
                                       2051,
                                       -2051,
                                       0,
                                       12345678901234567};
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_INT64, {static_cast<int64_t>(values.size())});
  rt::write<int64_t>(in, values);
  for (devplug_dtype_t to :
       {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64}) {
    rt::Tensor out = rt::make_tensor(to, {static_cast<int64_t>(values.size())});
    rt::run_ok(DEVPLUG_OP_convert_element_type, {&in}, {&out});
    const std::vector<double> got = rt::read_doubles(out);
    const int digits = to == DEVPLUG_DTYPE_FLOAT16    ? 11
                       : to == DEVPLUG_DTYPE_BFLOAT16 ? 8
                       : to == DEVPLUG_DTYPE_FLOAT32  ? 24
                                                      : 53;
    for (size_t i = 0; i < values.size(); ++i) {
      long double expected = round_to_digits(static_cast<long double>(values[i]), digits);
      if (to == DEVPLUG_DTYPE_FLOAT16 && std::fabs(expected) > 65504)
        expected = std::copysign(INFINITY, expected);
      EXPECT_EQ(got[i], static_cast<double>(expected)) << values[i] << " -> " << devplug_dtype_name(to);
    }
  }
  // The worked example itself.
  EXPECT_EQ(convert(DEVPLUG_DTYPE_INT32, DEVPLUG_DTYPE_FLOAT32, {16777217}), (std::vector<double>{16777216}));
}

TEST(Convert, FloatToFloatRoundsOnceToNearestEven) {
  const double tie = 1 + std::ldexp(1.0, -11), above = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(convert(DEVPLUG_DTYPE_FLOAT64, DEVPLUG_DTYPE_FLOAT16,
                    {tie, above, 65520, 65519.99, std::ldexp(1.0, -25), std::ldexp(3.0, -26)}),
            (std::vector<double>{1, 1 + std::ldexp(1.0, -10), kInf, 65504, 0, std::ldexp(1.0, -24)}));
  // float64 -> float16 directly, not through float32: 1 + 2^-11 + 2^-30 is above the tie, but
  // float32 rounds it to the tie (1 + 2^-11), which float16 would then break to 1.
  EXPECT_EQ(convert(DEVPLUG_DTYPE_FLOAT64, DEVPLUG_DTYPE_FLOAT16,
                    {1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)}),
            (std::vector<double>{1 + std::ldexp(1.0, -10)}));
  EXPECT_EQ(
      convert(DEVPLUG_DTYPE_FLOAT64, DEVPLUG_DTYPE_FLOAT32, {1e39, -1e39, 1e-46, std::ldexp(1.0, -149)}),
      (std::vector<double>{kInf, -kInf, 0, std::ldexp(1.0, -149)}));
  EXPECT_EQ(convert(DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_BFLOAT16,
                    {1 + std::ldexp(1.0, -8), 1 + std::ldexp(3.0, -9)}),
            (std::vector<double>{1, 1 + std::ldexp(1.0, -7)}));
  const std::vector<double> specials =
      convert(DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT16, {kNaN, -kInf, -0.0});
  EXPECT_TRUE(std::isnan(specials[0]));
  EXPECT_EQ(specials[1], -kInf);
  EXPECT_TRUE(rt::same_value(specials[2], -0.0));
}

TEST(Convert, Every16BitValueWidensExactly) {
  for (devplug_dtype_t from : {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16}) {
    std::vector<double> values;
    for (uint32_t bits = 0; bits <= 0xFFFF; ++bits)
      values.push_back(from == DEVPLUG_DTYPE_FLOAT16
                           ? sdk::half_bits_to_double(static_cast<uint16_t>(bits))
                           : sdk::bfloat16_bits_to_double(static_cast<uint16_t>(bits)));
    for (devplug_dtype_t to :
         std::vector<devplug_dtype_t>{DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64, from}) {
      const std::vector<double> got = convert(from, to, values);
      int reported = 0;
      for (size_t i = 0; i < values.size(); ++i)
        if (!rt::same_value(got[i], values[i]) && reported++ < 3)
          ADD_FAILURE() << devplug_dtype_name(from) << " -> " << devplug_dtype_name(to) << ": " << values[i]
                        << " became " << got[i];
    }
  }
}

TEST(Convert, Float64To16BitMatchesTheSdkRoundingEverywhere) {
  // Random doubles over every exponent either format can reach (and beyond), plus exact ties
  // and near-ties around each 16-bit value, against sdk::double_to_*_bits.
  std::mt19937_64 gen(17);
  std::uniform_int_distribution<int> exponent(-160, 140);
  std::uniform_real_distribution<double> mantissa(1, 2);
  std::vector<double> values;
  for (int i = 0; i < 60000; ++i)
    values.push_back((i % 2 ? -1 : 1) * std::ldexp(mantissa(gen), exponent(gen)));
  for (uint32_t bits = 0; bits < 0x7C00; bits += 7) {
    const double lo = sdk::half_bits_to_double(static_cast<uint16_t>(bits));
    const double hi = sdk::half_bits_to_double(static_cast<uint16_t>(bits + 1));
    const double mid = (lo + hi) / 2;
    values.insert(values.end(), {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1.0), -mid});
  }
  for (uint32_t bits = 0; bits < 0x7F80; bits += 5) {
    const double lo = sdk::bfloat16_bits_to_double(static_cast<uint16_t>(bits));
    const double hi = sdk::bfloat16_bits_to_double(static_cast<uint16_t>(bits + 1));
    const double mid = (lo + hi) / 2;
    values.insert(values.end(), {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1.0), -mid});
  }
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {static_cast<int64_t>(values.size())});
  rt::write<double>(in, values);
  for (devplug_dtype_t to : {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16}) {
    rt::Tensor out = rt::make_tensor(to, {static_cast<int64_t>(values.size())});
    rt::run_ok(DEVPLUG_OP_convert_element_type, {&in}, {&out});
    std::vector<uint16_t> got;
    if (to == DEVPLUG_DTYPE_FLOAT16)
      for (sdk::float16 h : rt::read<sdk::float16>(out)) got.push_back(h.bits);
    else
      for (sdk::bfloat16 h : rt::read<sdk::bfloat16>(out)) got.push_back(h.bits);
    int reported = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t expected = to == DEVPLUG_DTYPE_FLOAT16 ? sdk::double_to_half_bits(values[i])
                                                            : sdk::double_to_bfloat16_bits(values[i]);
      if (got[i] != expected && reported++ < 5)
        ADD_FAILURE() << std::hexfloat << values[i] << " -> " << devplug_dtype_name(to) << ": got "
                      << std::hex << got[i] << ", expected " << expected;
    }
  }
}

// ---- fill and iota ----------------------------------------------------------------------------

TEST(Fill, RoundsOnceAndWrapsIntegers) {
  auto fill = [](devplug_dtype_t dtype, double f, int64_t i) {
    rt::Tensor out = rt::make_tensor(dtype, {2, 3}, {1, 2});  // a transposed output
    devplug_fill_attrs_t attrs{sizeof attrs, {f, i}};
    rt::run_ok(DEVPLUG_OP_fill, {}, {&out}, &attrs);
    return rt::read_doubles(out);
  };
  EXPECT_EQ(fill(DEVPLUG_DTYPE_FLOAT16, 0.1, 0)[0], sdk::half_bits_to_double(sdk::double_to_half_bits(0.1)));
  EXPECT_EQ(fill(DEVPLUG_DTYPE_FLOAT32, 1.0 / 3, 0)[5], static_cast<float>(1.0 / 3));
  EXPECT_EQ(fill(DEVPLUG_DTYPE_FLOAT64, 1.0 / 3, 0)[3], 1.0 / 3);
  EXPECT_EQ(fill(DEVPLUG_DTYPE_BFLOAT16, 1e39, 0)[1], 1e39 > 3.39e38 ? kInf : 0)
      << "bfloat16 overflows above its max";
  EXPECT_TRUE(rt::same_value(fill(DEVPLUG_DTYPE_FLOAT32, -0.0, 0)[2], -0.0));
  EXPECT_TRUE(std::isnan(fill(DEVPLUG_DTYPE_FLOAT64, kNaN, 0)[4]));
  EXPECT_EQ(fill(DEVPLUG_DTYPE_INT8, 999, 300), std::vector<double>(6, 44)) << "integers read .i and wrap";
  EXPECT_EQ(fill(DEVPLUG_DTYPE_UINT8, 0, -1), std::vector<double>(6, 255));
  EXPECT_EQ(fill(DEVPLUG_DTYPE_BOOL, 0, 2), std::vector<double>(6, 1));
  EXPECT_EQ(fill(DEVPLUG_DTYPE_BOOL, 1, 0), std::vector<double>(6, 0)) << "bool reads .i";
  rt::Tensor big = rt::make_tensor(DEVPLUG_DTYPE_INT64, {2});
  devplug_fill_attrs_t attrs{sizeof attrs, {0, INT64_MIN}};
  rt::run_ok(DEVPLUG_OP_fill, {}, {&big}, &attrs);
  EXPECT_EQ(rt::read<int64_t>(big), (std::vector<int64_t>{INT64_MIN, INT64_MIN}));
}

TEST(Iota, IntegersWrap) {
  auto iota = [](devplug_dtype_t dtype, int64_t start, int64_t step, std::vector<int64_t> shape) {
    rt::Tensor out = rt::make_tensor(dtype, shape);
    devplug_iota_attrs_t attrs{sizeof attrs, {0, start}, {0, step}};
    rt::run_ok(DEVPLUG_OP_iota, {}, {&out}, &attrs);
    return out;
  };
  EXPECT_EQ(rt::read_doubles(iota(DEVPLUG_DTYPE_INT32, -5, 3, {2, 2})), (std::vector<double>{-5, -2, 1, 4}));
  EXPECT_EQ(rt::read_doubles(iota(DEVPLUG_DTYPE_INT8, 120, 5, {4})),
            (std::vector<double>{120, 125, -126, -121}));
  EXPECT_EQ(rt::read_doubles(iota(DEVPLUG_DTYPE_UINT8, 2, -1, {4})), (std::vector<double>{2, 1, 0, 255}));
  EXPECT_EQ(rt::read<int64_t>(iota(DEVPLUG_DTYPE_INT64, INT64_MAX, 1, {2})),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN}));
  EXPECT_EQ(rt::read<int16_t>(iota(DEVPLUG_DTYPE_INT16, 0, 1000, {1, 3, 1})),
            (std::vector<int16_t>{0, 1000, 2000}));
}

TEST(Iota, FloatsAreExactThenRoundedOnce) {
  auto iota = [](devplug_dtype_t dtype, double start, double step, int64_t n) {
    rt::Tensor out = rt::make_tensor(dtype, {n}, {-1});  // row-major order, not memory order
    devplug_iota_attrs_t attrs{sizeof attrs, {start, 0}, {step, 0}};
    rt::run_ok(DEVPLUG_OP_iota, {}, {&out}, &attrs);
    return rt::read_doubles(out);
  };
  EXPECT_EQ(iota(DEVPLUG_DTYPE_FLOAT64, 0.5, 0.25, 4), (std::vector<double>{0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(iota(DEVPLUG_DTYPE_FLOAT32, -1, -2, 3), (std::vector<double>{-1, -3, -5}));
  // Each element is start + k * step rounded once: the tail below the dtype's precision
  // breaks what would otherwise be a tie.
  const double f64_step = std::ldexp(1.0, -53) + std::ldexp(1.0, -100);
  EXPECT_EQ(iota(DEVPLUG_DTYPE_FLOAT64, 1, f64_step, 2)[1], 1 + std::ldexp(1.0, -52));
  EXPECT_EQ(iota(DEVPLUG_DTYPE_FLOAT32, 1, std::ldexp(1.0, -24) + std::ldexp(1.0, -60), 2)[1],
            1 + std::ldexp(1.0, -23));
  EXPECT_EQ(iota(DEVPLUG_DTYPE_FLOAT16, 1, std::ldexp(1.0, -11) + std::ldexp(1.0, -60), 2)[1],
            1 + std::ldexp(1.0, -10));
  EXPECT_EQ(iota(DEVPLUG_DTYPE_BFLOAT16, 1, std::ldexp(1.0, -8) + std::ldexp(1.0, -60), 2)[1],
            1 + std::ldexp(1.0, -7));
  // 0.1 steps: element k is the double nearest k * 0.1(double), no accumulated error.
  const std::vector<double> tenths = iota(DEVPLUG_DTYPE_FLOAT64, 0, 0.1, 50);
  for (int k = 0; k < 50; ++k)
    EXPECT_EQ(tenths[k], static_cast<double>(k * static_cast<long double>(0.1))) << k;
}

// ---- layouts: every elementwise and data op, every dtype ----------------------------------------

struct Layout {
  const char* name;
  std::vector<int64_t> shape, in_strides, out_strides;  // empty strides: contiguous
  int64_t in_offset, out_offset;                        // extra elements before the first
};

const std::vector<Layout>& layouts() {
  static const std::vector<Layout> table = {
      {"odd_contiguous", {7}, {}, {}, 0, 0},
      {"transposed", {3, 4}, {1, 3}, {}, 0, 0},
      {"transposed_output", {3, 4}, {}, {1, 3}, 0, 0},
      {"negative_strides", {2, 5}, {-5, -1}, {}, 0, 0},
      {"negative_output", {6}, {}, {-1}, 0, 0},
      {"broadcast_zero_stride", {4, 3}, {0, 1}, {}, 0, 0},
      {"overlapping_windows", {4, 3}, {1, 1}, {}, 0, 0},
      {"sliced_with_step", {4}, {3}, {2}, 0, 0},
      {"byte_offset", {5}, {}, {}, 3, 7},
      {"zero_d", {}, {}, {}, 1, 2},
      {"empty", {3, 0, 2}, {}, {}, 0, 0},
      {"rank8", {2, 1, 2, 1, 2, 1, 2, 3}, {96, 7, 48, 5, 24, 3, 12, -2}, {}, 4, 0},
  };
  return table;
}

// The bytes of each element of `t`, in row-major logical order.
std::vector<unsigned char> logical_bytes(const rt::Tensor& t) {
  const std::vector<unsigned char> bytes = rt::read_bytes(t);
  const size_t size = devplug_dtype_size(t.desc.dtype);
  std::vector<unsigned char> out;
  sdk::for_each_offset<1>(t.desc.rank, t.desc.shape, {t.desc.strides}, [&](const std::array<int64_t, 1>& at) {
    const unsigned char* p = bytes.data() + t.desc.byte_offset + at[0] * static_cast<int64_t>(size);
    out.insert(out.end(), p, p + size);
  });
  return out;
}

// Random bytes over a whole buffer; bool buffers get 0/1 mostly, some other bytes.
void randomize(const rt::Tensor& t, std::mt19937_64& gen) {
  std::vector<unsigned char> bytes(t.buffer->size);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(gen());
  if (t.desc.dtype == DEVPLUG_DTYPE_BOOL)
    for (unsigned char& b : bytes) b = (b % 5 == 0) ? b : (b & 1u);
  rt::write_bytes(t, bytes);
}

// Floating inputs as random moderate values, so that results are mostly finite numbers.
void randomize_values(const rt::Tensor& t, std::mt19937_64& gen) {
  if (t.desc.dtype < DEVPLUG_DTYPE_FLOAT16) return randomize(t, gen);
  randomize(t, gen);  // the bytes between elements stay random
  std::uniform_real_distribution<double> dist(-4, 4);
  std::vector<double> values;
  for (int64_t i = 0; i < t.numel(); ++i) values.push_back(dist(gen));
  // Writing through overlapping or zero strides is fine: later writes win, and the
  // expectation reads the values back the same way.
  rt::write_doubles(t, values);
}

// Runs `op` with inputs of `dtypes` in `layout` and with the same values laid out densely,
// and expects byte-identical outputs.
void check_layout(devplug_op_t op, const std::vector<devplug_dtype_t>& in_dtypes, devplug_dtype_t out_dtype,
                  const Layout& layout, std::mt19937_64& gen) {
  std::vector<rt::Tensor> strided, dense;
  for (devplug_dtype_t dtype : in_dtypes) {
    strided.push_back(rt::make_tensor(dtype, layout.shape, layout.in_strides, layout.in_offset));
    randomize_values(strided.back(), gen);
    dense.push_back(rt::make_tensor(dtype, layout.shape));
    // The dense copy gets the strided tensor's logical values byte for byte.
    std::vector<unsigned char> buffer = rt::read_bytes(dense.back());
    const std::vector<unsigned char> values = logical_bytes(strided.back());
    std::copy(values.begin(), values.end(),
              buffer.begin() + static_cast<int64_t>(dense.back().desc.byte_offset));
    rt::write_bytes(dense.back(), buffer);
  }
  rt::Tensor out_strided = rt::make_tensor(out_dtype, layout.shape, layout.out_strides, layout.out_offset);
  rt::Tensor out_dense = rt::make_tensor(out_dtype, layout.shape);
  const std::vector<unsigned char> untouched = rt::read_bytes(out_strided);
  std::vector<const rt::Tensor*> in_s, in_d;
  for (size_t i = 0; i < strided.size(); ++i) in_s.push_back(&strided[i]), in_d.push_back(&dense[i]);
  const std::string what = std::string(devplug_op_name(op)) + " " + devplug_dtype_name(in_dtypes.back()) +
                           " -> " + devplug_dtype_name(out_dtype) + " " + layout.name;
  const rt::Result rs = rt::run(op, in_s, {&out_strided});
  const rt::Result rd = rt::run(op, in_d, {&out_dense});
  ASSERT_TRUE(rs.ok()) << what << ": " << rs.message;
  ASSERT_TRUE(rd.ok()) << what << ": " << rd.message;
  EXPECT_EQ(logical_bytes(out_strided), logical_bytes(out_dense)) << what;
  // Bytes outside the output's elements are left alone.
  std::vector<unsigned char> after = rt::read_bytes(out_strided), before = untouched;
  const size_t size = devplug_dtype_size(out_dtype);
  sdk::for_each_offset<1>(out_strided.desc.rank, out_strided.desc.shape, {out_strided.desc.strides},
                          [&](const std::array<int64_t, 1>& at) {
                            const size_t at_byte =
                                out_strided.desc.byte_offset + at[0] * static_cast<int64_t>(size);
                            std::fill(after.begin() + at_byte, after.begin() + at_byte + size, 0);
                            std::fill(before.begin() + at_byte, before.begin() + at_byte + size, 0);
                          });
  EXPECT_EQ(after, before) << what << ": bytes outside the output were written";
}

std::vector<devplug_dtype_t> dtypes_of(devplug_dtype_mask_t mask) {
  std::vector<devplug_dtype_t> out;
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
    if (mask & DEVPLUG_DTYPE_BIT(d)) out.push_back(d);
  return out;
}

TEST(Layouts, EveryElementwiseOpAndDtypeMatchesItsDenseCopy) {
  std::mt19937_64 gen(2024);
  int cases = 0;
  for (devplug_op_t op : sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    const devplug_category_t c = info->category;
    const bool elementwise = c == DEVPLUG_CATEGORY_unary || c == DEVPLUG_CATEGORY_binary ||
                             c == DEVPLUG_CATEGORY_compare || c == DEVPLUG_CATEGORY_ternary;
    if (!elementwise && op != DEVPLUG_OP_copy_strided) continue;
    for (devplug_dtype_t dtype : dtypes_of(info->dtypes)) {
      std::vector<devplug_dtype_t> inputs(static_cast<size_t>(info->n_inputs), dtype);
      if (info->result == DEVPLUG_RESULT_select) inputs[0] = DEVPLUG_DTYPE_BOOL;
      const devplug_dtype_t out = info->result == DEVPLUG_RESULT_bool ? DEVPLUG_DTYPE_BOOL : dtype;
      for (const Layout& layout : layouts()) {
        check_layout(op, inputs, out, layout, gen);
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 4000);
}

TEST(Layouts, ConvertEveryDtypePairMatchesItsDenseCopy) {
  std::mt19937_64 gen(7);
  for (devplug_dtype_t from = 0; from < DEVPLUG_DTYPE_COUNT; ++from)
    for (devplug_dtype_t to = 0; to < DEVPLUG_DTYPE_COUNT; ++to)
      for (const Layout& layout : layouts())
        check_layout(DEVPLUG_OP_convert_element_type, {from}, to, layout, gen);
}

TEST(Layouts, FillAndIotaFollowRowMajorOrderInAnyOutputLayout) {
  for (const Layout& layout : layouts()) {
    for (devplug_dtype_t dtype : {DEVPLUG_DTYPE_INT32, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT16}) {
      rt::Tensor out = rt::make_tensor(dtype, layout.shape, layout.out_strides, layout.out_offset);
      devplug_iota_attrs_t attrs{sizeof attrs, {1, 1}, {2, 2}};
      rt::run_ok(DEVPLUG_OP_iota, {}, {&out}, &attrs);
      std::vector<double> expected;
      for (int64_t k = 0; k < out.numel(); ++k) expected.push_back(1 + 2.0 * static_cast<double>(k));
      EXPECT_EQ(rt::read_doubles(out), expected) << layout.name << " " << devplug_dtype_name(dtype);
      devplug_fill_attrs_t fill{sizeof fill, {-3, -3}};
      rt::run_ok(DEVPLUG_OP_fill, {}, {&out}, &fill);
      EXPECT_EQ(rt::read_doubles(out), std::vector<double>(expected.size(), -3)) << layout.name;
    }
  }
}

TEST(CopyStrided, CopiesIntoTheOutputsLayoutAndNormalisesBool) {
  rt::Tensor in = rt::make_tensor(DEVPLUG_DTYPE_INT16, {2, 3});
  rt::write<int16_t>(in, {1, 2, 3, 4, 5, 6});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_INT16, {2, 3}, {1, 2});  // column-major
  rt::run_ok(DEVPLUG_OP_copy_strided, {&in}, {&out});
  EXPECT_EQ(rt::read<int16_t>(out), (std::vector<int16_t>{1, 2, 3, 4, 5, 6}));
  const std::vector<unsigned char> bytes = rt::read_bytes(out);
  int16_t memory[6];
  std::memcpy(memory, bytes.data() + out.desc.byte_offset, sizeof memory);
  EXPECT_EQ((std::vector<int16_t>(memory, memory + 6)), (std::vector<int16_t>{1, 4, 2, 5, 3, 6}));
  rt::Tensor b = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3}), bo = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  rt::write_bytes(b, {0, 9, 1});
  rt::run_ok(DEVPLUG_OP_copy_strided, {&b}, {&bo});
  EXPECT_EQ(rt::read_bytes(bo), (std::vector<unsigned char>{0, 1, 1}));
  rt::Tensor wrong = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2, 3});
  EXPECT_EQ(rt::run(DEVPLUG_OP_copy_strided, {&in}, {&wrong}).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(DataChecks, MissingAttrsAreRefused) {
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {3});
  EXPECT_EQ(rt::run(DEVPLUG_OP_fill, {}, {&out}, nullptr).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_iota_attrs_t short_attrs{4, {0, 0}, {1, 1}};
  EXPECT_EQ(rt::run(DEVPLUG_OP_iota, {}, {&out}, &short_attrs).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor flag = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  devplug_iota_attrs_t attrs{sizeof attrs, {0, 0}, {1, 1}};
  EXPECT_NE(rt::run(DEVPLUG_OP_iota, {}, {&flag}, &attrs).code, DEVPLUG_CODE_OK) << "iota has no bool kernel";
}

}  // namespace
