// SPDX-License-Identifier: Apache-2.0
// Test harness for the reference backend: drives libdevplug_reference.so through its ABI
// table directly (no dispatcher), so the tests see exactly what any host sees.
//
// API (small and stable; every *_test.cpp of tests/reference uses it):
//
//   namespace rt = devplug::reftest;
//   const devplug_plugin_api_t* api = rt::api();     // the table; device 0 and a stream are
//   rt::device(); rt::stream();                       // opened once per process
//
//   rt::Tensor t = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2, 3});          // contiguous
//   rt::Tensor u = rt::make_tensor(dtype, shape, strides, extra_offset_elems);
//       // any strides (zero, negative, overlapping); the buffer is sized to hold every
//       // reachable element; negative strides get the base offset they need, and
//       // `extra_offset_elems` moves the first element further into the buffer.
//   t.desc                                // the devplug_tensor_desc_t to pass to kernels
//   rt::write<float>(t, {1, 2, 3, ...});  // row-major logical order, through the strides
//   rt::write_doubles(t, {...});          // any dtype: values rounded once (sdk::from_double)
//                                         // for floats, static_cast for integers, !=0 for bool
//   rt::write_buffer<T>(t, {...});        // the whole buffer as an array of T from byte 0
//                                         // (for overlapping / zero-stride inputs)
//   std::vector<T> v = rt::read<T>(t);    // row-major logical order; T = bool reads 0/1 bytes
//   std::vector<double> d = rt::read_doubles(t);   // any dtype, exact
//   rt::Result r = rt::run(DEVPLUG_OP_add, {&a, &b}, {&out}, attrs_ptr_or_nullptr);
//       // finds the plugin's kernel row for (op, dispatch dtype) and calls it; r.ok(),
//       // r.code, r.message. No row: code UNIMPLEMENTED, message "no kernel ...".
//   rt::run_ok(op, inputs, outputs, attrs);          // ADD_FAILURE unless it succeeds
//   const devplug_kernel_t* k = rt::find_kernel(op, dtype);   // NULL when not declared
//   std::vector<Out> r = rt::apply<Out, In>(op, {{...}, {...}}, attrs);
//       // elementwise shortcut: 1-D contiguous inputs of dtype_of<In>, output of dtype_of<Out>
//   int64_t d = rt::ulp_diff(dtype, a, b);   // distance in units in the last place of `dtype`
//                                            // (a, b representable in it; NaN == NaN; -0 == +0)
//   bool s = rt::same_value(a, b);           // identical, incl. NaN and the sign of zero
//   std::vector<double> x = rt::uniform_doubles(lo, hi, n, seed);      // random inputs
//   std::vector<double> y = rt::log_uniform_doubles(lo, hi, n, seed, symmetric);
//   rt::expect_within_ulps(dtype, n, got, bound, exact_of_i, describe_i);  // fails for each
//                                            // got[i] over `bound` ulps from exact_of_i(i)
//   double e = rt::ulp_error(dtype, got, exact);   // |got - exact| in ulps of `dtype` at
//                                            // `exact`, a __float128 reference (0 for NaN vs
//                                            // NaN and for an Inf that `exact` rounds to)
//
// Element types: bool, uint8_t, int8_t, int16_t, int32_t, int64_t, sdk::float16,
// sdk::bfloat16, float, double (dtype.hpp). Buffers are released when the last Tensor copy
// that shares them goes away.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <quadmath.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/dtype.hpp"
#include "devplug/sdk/kernels.hpp"
#include "devplug/sdk/strided.hpp"

#ifndef DEVPLUG_REFERENCE_PLUGIN_PATH
#error "DEVPLUG_REFERENCE_PLUGIN_PATH must name libdevplug_reference.so"
#endif

namespace devplug::reftest {

// The floating dtypes, and values the elementwise tests share.
inline constexpr devplug_dtype_t kFloatDtypes[] = {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16,
                                                   DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64};
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr long double kPiL = 3.141592653589793238462643383279502884L;

// Calls f(sdk::TypeTag<T>{}) for every integer element type (not bool).
template <typename F>
void for_each_int_type(F&& f) {
  f(sdk::TypeTag<uint8_t>{});
  f(sdk::TypeTag<int8_t>{});
  f(sdk::TypeTag<int16_t>{});
  f(sdk::TypeTag<int32_t>{});
  f(sdk::TypeTag<int64_t>{});
}

// `v` rounded to the floating `dtype` (from long double), as a double.
inline double to_dtype(devplug_dtype_t dtype, long double v) {
  switch (dtype) {
    case DEVPLUG_DTYPE_FLOAT64:
      return static_cast<double>(v);
    case DEVPLUG_DTYPE_FLOAT32:
      return static_cast<float>(v);
    case DEVPLUG_DTYPE_FLOAT16:
      return sdk::half_bits_to_double(sdk::double_to_half_bits(static_cast<double>(v)));
    default:
      return sdk::bfloat16_bits_to_double(sdk::double_to_bfloat16_bits(static_cast<double>(v)));
  }
}

// The loaded plugin, its device 0 and one stream; made on first use, kept for the process.
struct Session {
  void* library = nullptr;
  const devplug_plugin_api_t* api = nullptr;
  devplug_device_handle_t* device = nullptr;
  devplug_stream_handle_t* stream = nullptr;
  std::string failure;  // why the session could not be set up; empty when it is usable
};

// Calls `call`; on error returns "CODE: message" and destroys the error, else "".
inline std::string take_error(const devplug_plugin_api_t* api, devplug_error_t* error) {
  if (error == nullptr) return {};
  std::string text = std::string(devplug_code_name(error->code)) + ": " + error->message;
  api->error_destroy(error);
  return text;
}

inline Session& session() {
  static Session s = [] {
    Session r;
    r.library = dlopen(DEVPLUG_REFERENCE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (r.library == nullptr) {
      r.failure = std::string("dlopen: ") + dlerror();
      return r;
    }
    auto get = reinterpret_cast<devplug_plugin_get_api_fn>(dlsym(r.library, DEVPLUG_PLUGIN_ENTRY_SYMBOL));
    if (get == nullptr || (r.api = get()) == nullptr) {
      r.failure = "devplug_plugin_get_api missing or returned NULL";
      return r;
    }
    devplug_plugin_init_args_t args = {sizeof args, DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR};
    r.failure = take_error(r.api, r.api->plugin_initialize(&args));
    if (r.failure.empty()) r.failure = take_error(r.api, r.api->device_open(0, &r.device));
    if (r.failure.empty()) r.failure = take_error(r.api, r.api->stream_create(r.device, &r.stream));
    return r;
  }();
  if (!s.failure.empty()) throw std::runtime_error("reference plugin session: " + s.failure);
  return s;
}

inline const devplug_plugin_api_t* api() { return session().api; }
inline devplug_device_handle_t* device() { return session().device; }
inline devplug_stream_handle_t* stream() { return session().stream; }

// Fails the current test (and throws, ending it) when `error` is not NULL.
inline void check(devplug_error_t* error, const char* what) {
  const std::string text = take_error(api(), error);
  if (!text.empty()) throw std::runtime_error(std::string(what) + ": " + text);
}

// A buffer owned by the test, released with the last Tensor that shares it.
struct Buffer {
  devplug_buffer_handle_t* handle = nullptr;
  uint64_t size = 0;
  ~Buffer() {
    if (handle != nullptr) take_error(api(), api()->buffer_release(handle));
  }
};

struct Tensor {
  std::shared_ptr<Buffer> buffer;
  devplug_tensor_desc_t desc{};
  int64_t numel() const { return sdk::numel(desc); }
};

inline Tensor make_tensor(devplug_dtype_t dtype, const std::vector<int64_t>& shape,
                          const std::vector<int64_t>& strides = {}, int64_t extra_offset_elems = 0) {
  if (shape.size() > DEVPLUG_MAX_RANK) throw std::invalid_argument("make_tensor: rank above 8");
  if (!strides.empty() && strides.size() != shape.size())
    throw std::invalid_argument("make_tensor: strides and shape differ in rank");
  Tensor t;
  t.desc.struct_size = sizeof(devplug_tensor_desc_t);
  t.desc.dtype = dtype;
  t.desc.rank = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) t.desc.shape[d] = shape[d];
  if (strides.empty())
    sdk::contiguous_strides(t.desc.rank, t.desc.shape, t.desc.strides);
  else
    for (size_t d = 0; d < strides.size(); ++d) t.desc.strides[d] = strides[d];
  int64_t lo = 0, hi = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t span = (shape[d] > 0 ? shape[d] - 1 : 0) * t.desc.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  const uint64_t elem = devplug_dtype_size(dtype);
  t.desc.byte_offset = static_cast<uint64_t>(extra_offset_elems - lo) * elem;
  t.buffer = std::make_shared<Buffer>();
  t.buffer->size = t.desc.byte_offset + static_cast<uint64_t>(hi + 1) * elem;
  check(api()->buffer_allocate(device(), t.buffer->size, &t.buffer->handle), "buffer_allocate");
  t.desc.buffer = t.buffer->handle;
  // Start from a known pattern so that unwritten bytes never look like results.
  std::vector<unsigned char> pattern(t.buffer->size, 0xA5);
  check(api()->buffer_copy_from_host(stream(), pattern.data(), t.buffer->handle, 0, t.buffer->size),
        "buffer_copy_from_host");
  return t;
}

inline std::vector<unsigned char> read_bytes(const Tensor& t) {
  std::vector<unsigned char> bytes(t.buffer->size);
  check(api()->buffer_copy_to_host(stream(), t.buffer->handle, 0, bytes.data(), bytes.size()),
        "buffer_copy_to_host");
  check(api()->stream_synchronize(stream()), "stream_synchronize");
  return bytes;
}

inline void write_bytes(const Tensor& t, const std::vector<unsigned char>& bytes) {
  check(api()->buffer_copy_from_host(stream(), bytes.data(), t.buffer->handle, 0, bytes.size()),
        "buffer_copy_from_host");
  check(api()->stream_synchronize(stream()), "stream_synchronize");
}

// Storage of T in a buffer: bool is one byte.
template <typename T>
using StorageOf = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <typename T>
void check_element_type(const Tensor& t) {
  if (sdk::dtype_of<T>() != t.desc.dtype)
    throw std::invalid_argument(std::string("element type does not match the tensor's dtype ") +
                                devplug_dtype_name(t.desc.dtype));
}

// Writes `values` (row-major logical order) into `t` through its strides.
template <typename T>
void write(const Tensor& t, const std::vector<T>& values) {
  check_element_type<T>(t);
  if (static_cast<int64_t>(values.size()) != t.numel())
    throw std::invalid_argument("write: wrong number of values");
  std::vector<unsigned char> bytes = read_bytes(t);
  auto* base = reinterpret_cast<StorageOf<T>*>(bytes.data() + t.desc.byte_offset);
  size_t k = 0;
  sdk::for_each_offset<1>(t.desc.rank, t.desc.shape, {t.desc.strides}, [&](const std::array<int64_t, 1>& at) {
    base[at[0]] = static_cast<StorageOf<T>>(values[k++]);
  });
  write_bytes(t, bytes);
}

// Writes the whole buffer as an array of T starting at byte 0 (size must fit).
template <typename T>
void write_buffer(const Tensor& t, const std::vector<T>& values) {
  check_element_type<T>(t);
  std::vector<unsigned char> bytes = read_bytes(t);
  if (values.size() * sizeof(StorageOf<T>) > bytes.size())
    throw std::invalid_argument("write_buffer: too many values");
  for (size_t i = 0; i < values.size(); ++i) {
    const StorageOf<T> v = static_cast<StorageOf<T>>(values[i]);
    std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
  }
  write_bytes(t, bytes);
}

// Reads `t` in row-major logical order.
template <typename T>
std::vector<T> read(const Tensor& t) {
  check_element_type<T>(t);
  const std::vector<unsigned char> bytes = read_bytes(t);
  const auto* base = reinterpret_cast<const StorageOf<T>*>(bytes.data() + t.desc.byte_offset);
  std::vector<T> values;
  values.reserve(static_cast<size_t>(t.numel()));
  sdk::for_each_offset<1>(t.desc.rank, t.desc.shape, {t.desc.strides}, [&](const std::array<int64_t, 1>& at) {
    values.push_back(static_cast<T>(base[at[0]]));
  });
  return values;
}

// Writes doubles into a tensor of any dtype: floats rounded once (sdk::from_double),
// integers by static_cast (the value must be representable), bool as value != 0.
inline void write_doubles(const Tensor& t, const std::vector<double>& values) {
  sdk::visit_dtype(t.desc.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> typed;
    typed.reserve(values.size());
    for (double v : values) {
      if constexpr (sdk::is_floating_v<T>)
        typed.push_back(sdk::from_double<T>(v));
      else if constexpr (std::is_same_v<T, bool>)
        typed.push_back(v != 0);
      else
        typed.push_back(static_cast<T>(v));
    }
    write<T>(t, typed);
  });
}

// Reads a tensor of any dtype as doubles (exact for every dtype but int64 beyond 2^53).
inline std::vector<double> read_doubles(const Tensor& t) {
  return sdk::visit_dtype(t.desc.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<double> out;
    for (const T& v : read<T>(t)) {
      if constexpr (sdk::is_floating_v<T>)
        out.push_back(sdk::to_double(v));
      else
        out.push_back(static_cast<double>(v));
    }
    return out;
  });
}

// The plugin's declared kernel row for (op, dtype), or NULL.
inline const devplug_kernel_t* find_kernel(devplug_op_t op, devplug_dtype_t dtype) {
  const devplug_plugin_api_t* a = api();
  for (size_t i = 0; i < a->kernel_count; ++i) {
    const devplug_kernel_t* k = a->kernels[i];
    if (k->op == op && (k->dtypes & DEVPLUG_DTYPE_BIT(dtype)) != 0) return k;
  }
  return nullptr;
}

struct Result {
  devplug_code_t code = DEVPLUG_CODE_OK;
  std::string message;
  bool ok() const { return code == DEVPLUG_CODE_OK; }
};

// Runs `op` through the plugin's kernel for the call's dispatch dtype.
inline Result run(devplug_op_t op, const std::vector<const Tensor*>& inputs,
                  const std::vector<const Tensor*>& outputs, const void* attrs = nullptr) {
  std::vector<const devplug_tensor_desc_t*> in, out;
  for (const Tensor* t : inputs) in.push_back(&t->desc);
  for (const Tensor* t : outputs) out.push_back(&t->desc);
  devplug_op_call_t call{sizeof(devplug_op_call_t), op, in.data(), in.size(), out.data(), out.size(), attrs};
  const devplug_op_info_t* info = devplug_op_info(op);
  if (info == nullptr) return {DEVPLUG_CODE_INVALID_ARGUMENT, "unknown op"};
  devplug_dtype_t dtype;
  if (info->result == DEVPLUG_RESULT_made)
    dtype = out.empty() ? -1 : out[0]->dtype;
  else if (info->result == DEVPLUG_RESULT_select)
    dtype = in.size() < 2 ? -1 : in[1]->dtype;
  else
    dtype = in.empty() ? -1 : in[0]->dtype;
  const devplug_kernel_t* kernel = find_kernel(op, dtype);
  if (kernel == nullptr)
    return {DEVPLUG_CODE_UNIMPLEMENTED, std::string("no kernel for ") + info->name + " " +
                                            (devplug_dtype_name(dtype) ? devplug_dtype_name(dtype) : "?")};
  Result r;
  devplug_error_t* error = kernel->fn(stream(), &call);
  if (error != nullptr) {
    r.code = error->code;
    r.message = error->message;
    api()->error_destroy(error);
    return r;
  }
  check(api()->stream_synchronize(stream()), "stream_synchronize");
  return r;
}

inline void run_ok(devplug_op_t op, const std::vector<const Tensor*>& inputs,
                   const std::vector<const Tensor*>& outputs, const void* attrs = nullptr) {
  const Result r = run(op, inputs, outputs, attrs);
  if (!r.ok())
    ADD_FAILURE() << devplug_op_name(op) << " failed: " << devplug_code_name(r.code) << ": " << r.message;
}

// Runs an elementwise `op` on 1-D contiguous inputs holding `inputs` and returns its output
// (dtype_of<Out>, same length). ADD_FAILURE and an empty result when the op fails.
template <typename Out, typename In>
std::vector<Out> apply(devplug_op_t op, const std::vector<std::vector<In>>& inputs,
                       const void* attrs = nullptr) {
  const int64_t n = inputs.empty() ? 0 : static_cast<int64_t>(inputs[0].size());
  std::vector<Tensor> tensors;
  for (const std::vector<In>& values : inputs) {
    tensors.push_back(make_tensor(sdk::dtype_of<In>(), {n}));
    write<In>(tensors.back(), values);
  }
  Tensor out = make_tensor(sdk::dtype_of<Out>(), {n});
  std::vector<const Tensor*> in;
  for (const Tensor& t : tensors) in.push_back(&t);
  const Result r = run(op, in, {&out}, attrs);
  if (!r.ok()) {
    ADD_FAILURE() << devplug_op_name(op) << " failed: " << devplug_code_name(r.code) << ": " << r.message;
    return {};
  }
  return read<Out>(out);
}

// Whether a and b are the same value: NaN matches NaN, and +0.0 does not match -0.0.
inline bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// The position of `x` on the ordered line of `dtype`'s values (x must be representable).
inline int64_t ordinal(devplug_dtype_t dtype, double x) {
  int64_t bits = 0, sign_bit = 0;
  switch (dtype) {
    case DEVPLUG_DTYPE_FLOAT16:
      bits = sdk::double_to_half_bits(x);
      sign_bit = 0x8000;
      break;
    case DEVPLUG_DTYPE_BFLOAT16:
      bits = sdk::double_to_bfloat16_bits(x);
      sign_bit = 0x8000;
      break;
    case DEVPLUG_DTYPE_FLOAT32: {
      const float f = static_cast<float>(x);
      uint32_t u;
      std::memcpy(&u, &f, sizeof u);
      bits = u;
      sign_bit = int64_t{1} << 31;
      break;
    }
    default: {
      uint64_t u;
      std::memcpy(&u, &x, sizeof u);
      if (u >> 63) return -static_cast<int64_t>(u & ~(uint64_t{1} << 63));
      return static_cast<int64_t>(u);
    }
  }
  return (bits & sign_bit) ? -(bits & (sign_bit - 1)) : bits;
}

// Units in the last place of `dtype` between a and b; 0 when both are NaN, a huge number
// when only one is.
inline int64_t ulp_diff(devplug_dtype_t dtype, double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  const __int128 d = static_cast<__int128>(ordinal(dtype, a)) - ordinal(dtype, b);
  const __int128 m = d < 0 ? -d : d;
  return m > INT64_MAX ? INT64_MAX : static_cast<int64_t>(m);
}

// The distance from `got` to `exact` in units in the last place of `dtype` at `exact`:
// the tool to judge a result to a fraction of an ulp (a correctly rounded one is within
// 0.5). 0 when both are NaN or when `got` is the infinity `exact` rounds to; +Inf when only
// one of them is NaN or infinite.
inline double ulp_error(devplug_dtype_t dtype, double got, __float128 exact) {
  if (std::isnan(got) || isnanq(exact)) return std::isnan(got) && isnanq(exact) ? 0 : HUGE_VAL;
  const double rounded = to_dtype(dtype, static_cast<long double>(exact));
  if (std::isinf(got) || std::isinf(rounded)) return got == rounded ? 0 : HUGE_VAL;
  int significand = 53, min_exponent = -1022;  // IEEE binary64
  switch (dtype) {
    case DEVPLUG_DTYPE_FLOAT16:
      significand = 11, min_exponent = -14;
      break;
    case DEVPLUG_DTYPE_BFLOAT16:
      significand = 8, min_exponent = -126;
      break;
    case DEVPLUG_DTYPE_FLOAT32:
      significand = 24, min_exponent = -126;
      break;
    default:
      break;
  }
  int exponent = 0;
  frexpq(exact, &exponent);  // |exact| in [2^(exponent-1), 2^exponent)
  const int binade = exact == 0 ? min_exponent : std::max(exponent - 1, min_exponent);
  const int ulp_exponent = binade - (significand - 1);
  return static_cast<double>(fabsq(got - exact) / ldexpq(1, ulp_exponent));
}

// What the accuracy tests allow a float64 (float32) result computed in long double (double)
// and rounded once: half an ulp, plus 1/512 ulp for a few ulps of the wide type's own error
// (long double has 11 more bits than double, double 29 more than float).
inline constexpr double kRoundedOnceUlps = 0.5 + 1.0 / 512;

// `n` random doubles uniform in [lo, hi].
inline std::vector<double> uniform_doubles(double lo, double hi, size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> draw(lo, hi);
  std::vector<double> xs(n);
  for (double& x : xs) x = draw(gen);
  return xs;
}

// `n` random doubles with magnitudes log-uniform in [lo, hi] (0 < lo), so that every
// binade gets its share; random signs when `symmetric`.
inline std::vector<double> log_uniform_doubles(double lo, double hi, size_t n, uint64_t seed,
                                               bool symmetric = true) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> draw(std::log(lo), std::log(hi));
  std::vector<double> xs(n);
  for (double& x : xs) {
    x = std::min(std::max(std::exp(draw(gen)), lo), hi);
    if (symmetric && (gen() & 1)) x = -x;
  }
  return xs;
}

// `x` with all its digits ("%.17g"), for failure messages.
inline std::string digits(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

// Fails unless `got` has `n` results each within `bound` ulps of `dtype` of exact(i), a
// __float128; reports the first five misses as "describe(i) = got: error ulp from exact".
template <typename Exact, typename Describe>
void expect_within_ulps(devplug_dtype_t dtype, size_t n, const std::vector<double>& got, double bound,
                        Exact&& exact, Describe&& describe) {
  if (got.size() != n) {
    ADD_FAILURE() << got.size() << " results for " << n << " inputs";
    return;
  }
  int reported = 0;
  for (size_t i = 0; i < n; ++i) {
    const __float128 expected = exact(i);
    const double error = ulp_error(dtype, got[i], expected);
    if (error > bound && reported++ < 5)
      ADD_FAILURE() << describe(i) << " = " << digits(got[i]) << ": " << error << " ulp from "
                    << digits(static_cast<double>(expected));
  }
}

}  // namespace devplug::reftest
