// SPDX-License-Identifier: Apache-2.0
// Op results of the OpenCL plugin: known answers, and a selection of (op, dtype, layout)
// cases compared with the reference backend (the full proof is devplug-conform). Layouts
// include transposes, broadcast (stride 0), negative strides and non-zero offsets.
#include <cmath>
#include <limits>
#include <memory>

#include "devplug/sdk/half.hpp"
#include "opencl_harness.hpp"

namespace devplug::opencl_test {
namespace {

// A tensor as the host builds it: values as bytes plus a layout over them.
struct HostTensor {
  devplug_dtype_t dtype;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: contiguous
  uint64_t byte_offset = 0;
  std::vector<unsigned char> bytes;  // the whole buffer
};

template <typename T>
HostTensor host(devplug_dtype_t dtype, std::vector<int64_t> shape, std::vector<T> values,
                std::vector<int64_t> strides = {}, uint64_t byte_offset = 0) {
  return HostTensor{dtype, std::move(shape), std::move(strides), byte_offset, bytes_of(values)};
}

// An output of `shape`, contiguous, zero-filled.
HostTensor output(devplug_dtype_t dtype, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return HostTensor{dtype,
                    std::move(shape),
                    {},
                    0,
                    std::vector<unsigned char>(static_cast<size_t>(n) * devplug_dtype_size(dtype))};
}

std::vector<float> float_grid(int n, float lo, float hi) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n - 1));
  const float specials[] = {0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            0.5f,
                            -0.5f,
                            2.5f,
                            1e-40f,
                            -1e-40f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            3e38f,
                            -3e38f,
                            1e-7f};
  v.insert(v.end(), std::begin(specials), std::end(specials));
  return v;
}

// Re-encodes float32 values into `dtype` (rounding once) for 16-bit and 64-bit inputs.
HostTensor float_tensor(devplug_dtype_t dtype, const std::vector<float>& values,
                        std::vector<int64_t> shape = {}, std::vector<int64_t> strides = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
  switch (dtype) {
    case DEVPLUG_DTYPE_FLOAT16: {
      std::vector<uint16_t> v;
      for (float x : values) v.push_back(sdk::double_to_half_bits(x));
      return host(dtype, shape, v, strides);
    }
    case DEVPLUG_DTYPE_BFLOAT16: {
      std::vector<uint16_t> v;
      for (float x : values) v.push_back(sdk::double_to_bfloat16_bits(x));
      return host(dtype, shape, v, strides);
    }
    case DEVPLUG_DTYPE_FLOAT64:
      return host(dtype, shape, std::vector<double>(values.begin(), values.end()), strides);
    default:
      return host(dtype, shape, values, strides);
  }
}

double decode(devplug_dtype_t dtype, const unsigned char* p) {
  switch (dtype) {
    case DEVPLUG_DTYPE_FLOAT16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return sdk::half_bits_to_double(b);
    }
    case DEVPLUG_DTYPE_BFLOAT16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return sdk::bfloat16_bits_to_double(b);
    }
    case DEVPLUG_DTYPE_FLOAT32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DEVPLUG_DTYPE_FLOAT64: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    default:
      return 0;
  }
}

// The spacing of `dtype` values near `x` (one ULP).
double ulp(devplug_dtype_t dtype, double x) {
  const int mantissa = dtype == DEVPLUG_DTYPE_FLOAT16    ? 10
                       : dtype == DEVPLUG_DTYPE_BFLOAT16 ? 7
                       : dtype == DEVPLUG_DTYPE_FLOAT32  ? 23
                                                         : 52;
  const int min_exp = dtype == DEVPLUG_DTYPE_FLOAT16 ? -14 : dtype == DEVPLUG_DTYPE_FLOAT64 ? -1022 : -126;
  int e = 0;
  std::frexp(x, &e);
  return std::ldexp(1.0, std::max(e - 1, min_exp) - mantissa);
}

class OpenclOps : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    opencl_ = std::make_unique<LoadedPlugin>(DEVPLUG_OPENCL_PLUGIN);
#ifdef DEVPLUG_REFERENCE_PLUGIN
    reference_ = std::make_unique<LoadedPlugin>(DEVPLUG_REFERENCE_PLUGIN);
#endif
  }
  static void TearDownTestSuite() {
    opencl_.reset();
    reference_.reset();
  }
  void SetUp() override {
    const devplug_plugin_api_t* api = opencl_->api();
    ASSERT_NE(api, nullptr);
    int32_t count = 0;
    DEVPLUG_EXPECT_OK(api, api->device_count(&count, nullptr));
    if (count == 0) GTEST_SKIP() << "no OpenCL device";
  }

  // Runs `op` on `plugin` and returns the output buffer's bytes.
  static std::vector<unsigned char> run_on(const devplug_plugin_api_t* api, devplug_op_t op,
                                           const std::vector<HostTensor>& inputs, const HostTensor& out,
                                           const void* attrs, ErrorText* error) {
    Session s(api);
    if (!s.ok()) return {};
    std::vector<devplug_tensor_desc_t> ins;
    for (const HostTensor& t : inputs)
      ins.push_back(tensor(s.upload(t.bytes), t.dtype, t.shape, t.strides, t.byte_offset));
    devplug_buffer_handle_t* out_buffer = s.upload(out.bytes);
    *error = s.run(op, ins, tensor(out_buffer, out.dtype, out.shape, out.strides, out.byte_offset), attrs);
    return s.download(out_buffer, out.bytes.size());
  }

  std::vector<unsigned char> run(devplug_op_t op, const std::vector<HostTensor>& inputs,
                                 const HostTensor& out, const void* attrs = nullptr) {
    ErrorText e;
    std::vector<unsigned char> bytes = run_on(opencl_->api(), op, inputs, out, attrs, &e);
    EXPECT_EQ(e.code, DEVPLUG_CODE_OK) << devplug_op_name(op) << ": " << e.message;
    return bytes;
  }

  // Compares the OpenCL result with the reference backend's: floating outputs within `ulps`
  // (NaN matches NaN, zeros must agree in sign when ulps is 0) or `abs_tol`, everything else
  // bit-exact.
  void compare(devplug_op_t op, const std::vector<HostTensor>& inputs, const HostTensor& out,
               const void* attrs = nullptr, double ulps = 0, double abs_tol = 0) {
    if (!reference_ || reference_->api() == nullptr) GTEST_SKIP() << "reference backend not built";
    ErrorText ref_error;
    const std::vector<unsigned char> expected = run_on(reference_->api(), op, inputs, out, attrs, &ref_error);
    ASSERT_EQ(ref_error.code, DEVPLUG_CODE_OK) << "reference: " << ref_error.message;
    const std::vector<unsigned char> actual = run(op, inputs, out, attrs);
    ASSERT_EQ(actual.size(), expected.size());
    const size_t size = devplug_dtype_size(out.dtype);
    const bool floating = out.dtype >= DEVPLUG_DTYPE_FLOAT16;
    int reported = 0;
    for (size_t i = 0; i < actual.size(); i += size) {
      bool same = std::memcmp(&actual[i], &expected[i], size) == 0;
      double a = 0, b = 0;
      if (!same && floating) {
        a = decode(out.dtype, &actual[i]);
        b = decode(out.dtype, &expected[i]);
        same = (std::isnan(a) && std::isnan(b)) ||
               (ulps > 0 && (a == b || std::fabs(a - b) <= ulps * ulp(out.dtype, b))) ||
               std::fabs(a - b) <= abs_tol;
      }
      if (!same && reported++ < 8)
        ADD_FAILURE() << devplug_op_name(op) << " " << devplug_dtype_name(out.dtype) << " element "
                      << i / size << ": opencl " << a << " reference " << b;
    }
  }

  static std::unique_ptr<LoadedPlugin> opencl_;
  static std::unique_ptr<LoadedPlugin> reference_;
};
std::unique_ptr<LoadedPlugin> OpenclOps::opencl_;
std::unique_ptr<LoadedPlugin> OpenclOps::reference_;

// ---- known answers (no reference needed) ----------------------------------------------------

TEST_F(OpenclOps, PhiloxKnownAnswer) {
  devplug_philox_attrs_t attrs{sizeof attrs, 0, 0};
  const auto words =
      values_of<uint32_t>(run(DEVPLUG_OP_philox_bits, {}, output(DEVPLUG_DTYPE_INT32, {4}), &attrs));
  EXPECT_EQ(words, (std::vector<uint32_t>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST_F(OpenclOps, EdgeCasesOfTheOpTable) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto sign = values_of<float>(
      run(DEVPLUG_OP_sign, {host(DEVPLUG_DTYPE_FLOAT32, {4}, std::vector<float>{nan, -0.0f, -3.0f, 2.0f})},
          output(DEVPLUG_DTYPE_FLOAT32, {4})));
  EXPECT_EQ(sign[0], 0.0f);
  EXPECT_FALSE(std::signbit(sign[1]));
  EXPECT_EQ(sign[2], -1.0f);
  const auto round = values_of<float>(
      run(DEVPLUG_OP_round, {host(DEVPLUG_DTYPE_FLOAT32, {3}, std::vector<float>{2.5f, -0.5f, 3.5f})},
          output(DEVPLUG_DTYPE_FLOAT32, {3})));
  EXPECT_EQ(round[0], 2.0f);
  EXPECT_TRUE(std::signbit(round[1]) && round[1] == 0.0f);
  EXPECT_EQ(round[2], 4.0f);
  const auto dg = values_of<double>(
      run(DEVPLUG_OP_digamma, {host(DEVPLUG_DTYPE_FLOAT64, {3}, std::vector<double>{0.0, -2.0, 1.0})},
          output(DEVPLUG_DTYPE_FLOAT64, {3})));
  EXPECT_EQ(dg[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(dg[1]));
  EXPECT_NEAR(dg[2], -0.5772156649015329, 1e-15);
  const auto mx = values_of<float>(run(DEVPLUG_OP_maximum,
                                       {host(DEVPLUG_DTYPE_FLOAT32, {2}, std::vector<float>{-0.0f, nan}),
                                        host(DEVPLUG_DTYPE_FLOAT32, {2}, std::vector<float>{0.0f, 1.0f})},
                                       output(DEVPLUG_DTYPE_FLOAT32, {2})));
  EXPECT_FALSE(std::signbit(mx[0]));
  EXPECT_TRUE(std::isnan(mx[1]));
  const auto div =
      values_of<int32_t>(run(DEVPLUG_OP_div,
                             {host(DEVPLUG_DTYPE_INT32, {2}, std::vector<int32_t>{INT32_MIN, -7}),
                              host(DEVPLUG_DTYPE_INT32, {2}, std::vector<int32_t>{-1, 2})},
                             output(DEVPLUG_DTYPE_INT32, {2})));
  EXPECT_EQ(div, (std::vector<int32_t>{INT32_MIN, -3}));
  const auto rem = values_of<int32_t>(run(DEVPLUG_OP_remainder,
                                          {host(DEVPLUG_DTYPE_INT32, {2}, std::vector<int32_t>{-7, 7}),
                                           host(DEVPLUG_DTYPE_INT32, {2}, std::vector<int32_t>{3, -3})},
                                          output(DEVPLUG_DTYPE_INT32, {2})));
  EXPECT_EQ(rem, (std::vector<int32_t>{2, -2}));
  const auto shl = values_of<int8_t>(run(DEVPLUG_OP_shift_right_arithmetic,
                                         {host(DEVPLUG_DTYPE_INT8, {3}, std::vector<int8_t>{-128, -128, 64}),
                                          host(DEVPLUG_DTYPE_INT8, {3}, std::vector<int8_t>{9, -1, 3})},
                                         output(DEVPLUG_DTYPE_INT8, {3})));
  EXPECT_EQ(shl, (std::vector<int8_t>{-1, -1, 8}));
  // nextafter in bfloat16's own format: 1.0 toward 2.0 is 1 + 2^-7.
  const auto na = values_of<uint16_t>(run(DEVPLUG_OP_nextafter,
                                          {float_tensor(DEVPLUG_DTYPE_BFLOAT16, {1.0f, 0.0f}),
                                           float_tensor(DEVPLUG_DTYPE_BFLOAT16, {2.0f, -1.0f})},
                                          output(DEVPLUG_DTYPE_BFLOAT16, {2})));
  EXPECT_EQ(na[0], 0x3F81u);
  EXPECT_EQ(na[1], 0x8001u);
}

// ---- against the reference backend ------------------------------------------------------------

TEST_F(OpenclOps, UnaryFloatOpsMatchOnTransposedLayouts) {
  const std::vector<float> grid = float_grid(20, -6.0f, 6.0f);  // 35 values: 5 x 7
  const devplug_op_t ops[] = {DEVPLUG_OP_exp,    DEVPLUG_OP_log1p,   DEVPLUG_OP_tan,  DEVPLUG_OP_erfinv,
                              DEVPLUG_OP_lgamma, DEVPLUG_OP_digamma, DEVPLUG_OP_rsqrt};
  for (devplug_dtype_t dtype : {DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_BFLOAT16}) {
    for (devplug_op_t op : ops) {
      SCOPED_TRACE(devplug_op_name(op));
      // The input is the transpose of a 7 x 5 buffer.
      compare(op, {float_tensor(dtype, grid, {5, 7}, {1, 5})}, output(dtype, {5, 7}), nullptr, 1);
    }
  }
  compare(DEVPLUG_OP_erfinv, {float_tensor(DEVPLUG_DTYPE_FLOAT64, float_grid(40, -1.0f, 1.0f))},
          output(DEVPLUG_DTYPE_FLOAT64, {55}), nullptr, 2);
}

TEST_F(OpenclOps, BinaryOpsHandleBroadcastNegativeStridesAndOffsets) {
  std::vector<int32_t> a = {INT32_MIN, -7, 0, 7, INT32_MAX};
  std::vector<int32_t> b(20);
  for (int i = 0; i < 20; ++i) b[static_cast<size_t>(i)] = (i * 7919) % 23 - 11;
  // a broadcast along dim 0 (stride 0); b read backwards from an offset.
  const HostTensor ta = host(DEVPLUG_DTYPE_INT32, {4, 5}, a, {0, 1});
  const HostTensor tb = host(DEVPLUG_DTYPE_INT32, {4, 5}, b, {-5, -1}, 19 * 4);
  for (devplug_op_t op : {DEVPLUG_OP_add, DEVPLUG_OP_mul, DEVPLUG_OP_remainder, DEVPLUG_OP_shift_left,
                          DEVPLUG_OP_gcd, DEVPLUG_OP_lt}) {
    SCOPED_TRACE(devplug_op_name(op));
    const devplug_dtype_t out =
        devplug_op_info(op)->result == DEVPLUG_RESULT_bool ? DEVPLUG_DTYPE_BOOL : DEVPLUG_DTYPE_INT32;
    compare(op, {ta, tb}, output(out, {4, 5}));
  }
  const std::vector<float> x = float_grid(10, -3.0f, 3.0f), y = float_grid(10, 2.0f, -2.0f);
  for (devplug_op_t op :
       {DEVPLUG_OP_remainder, DEVPLUG_OP_fmin, DEVPLUG_OP_atan2, DEVPLUG_OP_pow, DEVPLUG_OP_nextafter}) {
    for (devplug_dtype_t dtype : {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_FLOAT64}) {
      SCOPED_TRACE(devplug_op_name(op));
      compare(op, {float_tensor(dtype, x), float_tensor(dtype, y)}, output(dtype, {25}), nullptr, 1);
    }
  }
}

TEST_F(OpenclOps, CastsRoundOnce) {
  const std::vector<float> x = float_grid(30, -70000.0f, 70000.0f);
  for (devplug_dtype_t to :
       {DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BOOL, DEVPLUG_DTYPE_FLOAT64}) {
    SCOPED_TRACE(devplug_dtype_name(to));
    compare(DEVPLUG_OP_convert_element_type, {float_tensor(DEVPLUG_DTYPE_FLOAT32, x)}, output(to, {45}));
  }
  const std::vector<int64_t> big = {INT64_MAX, INT64_MIN, (1ll << 40) + (1ll << 32) + 1, -3, 0, 255, 65519};
  for (devplug_dtype_t to :
       {DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_INT8}) {
    SCOPED_TRACE(devplug_dtype_name(to));
    compare(DEVPLUG_OP_convert_element_type, {host(DEVPLUG_DTYPE_INT64, {7}, big)}, output(to, {7}));
  }
  compare(DEVPLUG_OP_convert_element_type, {float_tensor(DEVPLUG_DTYPE_FLOAT64, float_grid(30, -1e5f, 1e5f))},
          output(DEVPLUG_DTYPE_BFLOAT16, {45}));
}

TEST_F(OpenclOps, ReductionsAndScans) {
  std::vector<float> x(3 * 40 * 1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 2654435761u) % 1000) / 250.0f - 2.0f;
  devplug_reduce_attrs_t all_dims{sizeof all_dims, 7u, 1.0};
  devplug_reduce_attrs_t outer{sizeof outer, 5u, 1.0};
  devplug_reduce_attrs_t inner{sizeof inner, 4u, 0.0};
  const HostTensor t = host(DEVPLUG_DTYPE_FLOAT32, {3, 40, 1000}, x);
  compare(DEVPLUG_OP_sum, {t}, output(DEVPLUG_DTYPE_FLOAT32, {1, 1, 1}), &all_dims, 1);  // two-level path
  compare(DEVPLUG_OP_var, {t}, output(DEVPLUG_DTYPE_FLOAT32, {1, 40, 1}), &outer, 1);
  compare(DEVPLUG_OP_argmax, {t}, output(DEVPLUG_DTYPE_INT64, {3, 40, 1}), &inner);
  compare(DEVPLUG_OP_amin, {t}, output(DEVPLUG_DTYPE_FLOAT32, {1, 40, 1}), &outer);
  // NaN wins argmax (first one) and amax.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const HostTensor with_nan =
      host(DEVPLUG_DTYPE_FLOAT32, {2, 4}, std::vector<float>{1, nan, 3, nan, 5, 5, -1, 2});
  devplug_reduce_attrs_t last{sizeof last, 2u, 1.0};
  compare(DEVPLUG_OP_argmax, {with_nan}, output(DEVPLUG_DTYPE_INT64, {2, 1}), &last);
  compare(DEVPLUG_OP_amax, {with_nan}, output(DEVPLUG_DTYPE_FLOAT32, {2, 1}), &last);
  std::vector<int32_t> ints(6 * 9);
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>(i * 40503u) - 1000000;
  devplug_dim_attrs_t dim1{sizeof dim1, 1};
  compare(DEVPLUG_OP_cumsum, {host(DEVPLUG_DTYPE_INT32, {9, 6}, ints, {1, 9})},
          output(DEVPLUG_DTYPE_INT32, {9, 6}), &dim1);
  compare(DEVPLUG_OP_prod, {host(DEVPLUG_DTYPE_INT32, {9, 6}, ints)}, output(DEVPLUG_DTYPE_INT32, {9, 1}),
          &last);
  devplug_reduce_attrs_t none_dims{sizeof none_dims, 1u, 1.0};
  compare(DEVPLUG_OP_sum, {host(DEVPLUG_DTYPE_INT32, {0, 3}, std::vector<int32_t>{})},
          output(DEVPLUG_DTYPE_INT32, {1, 3}), &none_dims);
}

TEST_F(OpenclOps, MatmulIsTiledCorrectly) {
  std::vector<float> a(2 * 33 * 29), b(29 * 17);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 37) % 17) / 8.0f - 1.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 11) % 13) / 6.0f - 1.0f;
  devplug_matmul_attrs_t attrs{sizeof attrs, 0};
  // Batch of 2 with b broadcast (stride 0) and transposed (stored 17 x 29).
  compare(
      DEVPLUG_OP_matmul,
      {host(DEVPLUG_DTYPE_FLOAT32, {2, 33, 29}, a), host(DEVPLUG_DTYPE_FLOAT32, {2, 29, 17}, b, {0, 1, 29})},
      output(DEVPLUG_DTYPE_FLOAT32, {2, 33, 17}), &attrs, 4,
      29 * 29 * std::ldexp(1.0, -24));  // summation order: K * eps * sum |a b|, |a|, |b| <= 1
  compare(DEVPLUG_OP_matmul,
          {float_tensor(DEVPLUG_DTYPE_BFLOAT16, a, {2, 33, 29}),
           float_tensor(DEVPLUG_DTYPE_BFLOAT16, b, {2, 29, 17}, {0, 1, 29})},
          output(DEVPLUG_DTYPE_BFLOAT16, {2, 33, 17}), &attrs, 1);
}

TEST_F(OpenclOps, RandomIsBitIdenticalWithTheReference) {
  devplug_philox_attrs_t attrs{sizeof attrs, 0x123456789abcdefull, 0xfffffffffffffffeull};  // counter wraps
  compare(DEVPLUG_OP_philox_bits, {}, output(DEVPLUG_DTYPE_INT64, {3, 7}), &attrs);
  compare(DEVPLUG_OP_philox_uniform, {}, output(DEVPLUG_DTYPE_FLOAT64, {5, 3}), &attrs);
  compare(DEVPLUG_OP_philox_uniform, {}, output(DEVPLUG_DTYPE_BFLOAT16, {33}), &attrs);
  compare(DEVPLUG_OP_philox_normal, {}, output(DEVPLUG_DTYPE_FLOAT32, {4, 9}), &attrs, 4);
}

TEST_F(OpenclOps, IndexingAndShapeOps) {
  std::vector<int16_t> x(4 * 6);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int16_t>(i * 3 - 20);
  const HostTensor t = host(DEVPLUG_DTYPE_INT16, {4, 6}, x);
  devplug_dim_attrs_t dim1{sizeof dim1, 1}, dim0{sizeof dim0, 0};
  compare(DEVPLUG_OP_index_select, {t, host(DEVPLUG_DTYPE_INT64, {3}, std::vector<int64_t>{5, 0, 5})},
          output(DEVPLUG_DTYPE_INT16, {4, 3}), &dim1);
  std::vector<int64_t> index(4 * 2);
  for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<int64_t>((i * 5) % 4);
  compare(DEVPLUG_OP_gather, {t, host(DEVPLUG_DTYPE_INT64, {4, 2}, index)},
          output(DEVPLUG_DTYPE_INT16, {4, 2}), &dim1);
  compare(DEVPLUG_OP_scatter_add, {t, host(DEVPLUG_DTYPE_INT64, {2, 2}, std::vector<int64_t>{3, 3, 0, 3}), t},
          output(DEVPLUG_DTYPE_INT16, {4, 6}), &dim0);
  compare(DEVPLUG_OP_cat,
          {t, host(DEVPLUG_DTYPE_INT16, {4, 2}, std::vector<int16_t>{1, 2, 3, 4, 5, 6, 7, 8})},
          output(DEVPLUG_DTYPE_INT16, {4, 8}), &dim1);
  devplug_flip_attrs_t flip{sizeof flip, 3u};
  compare(DEVPLUG_OP_flip, {host(DEVPLUG_DTYPE_INT16, {6, 4}, x, {1, 6})},
          output(DEVPLUG_DTYPE_INT16, {6, 4}), &flip);
  devplug_pad_attrs_t pad{};
  pad.struct_size = sizeof pad;
  pad.before[0] = 2;
  pad.after[0] = -1;
  pad.before[1] = -2;
  pad.after[1] = 3;
  pad.value = {-5.0, -5};
  compare(DEVPLUG_OP_constant_pad, {t}, output(DEVPLUG_DTYPE_INT16, {5, 7}), &pad);
}

}  // namespace
}  // namespace devplug::opencl_test
