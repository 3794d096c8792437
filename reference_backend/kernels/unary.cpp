// SPDX-License-Identifier: Apache-2.0
// Unary kernels of the reference backend (category UNARY of ops.def): one kernel serves every
// unary op; it picks the op's scalar function, dispatches the dtype once, and runs a typed
// loop over any strided layout.
//
// Floating ops follow elementwise.hpp's precision rules (float64 transcendental functions in
// long double, everything rounded once); integer ops wrap in two's complement.
#include <cmath>
#include <string>

#include "kernels/elementary.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/erfinv.hpp"
#include "kernels/gamma.hpp"
#include "kernels/kernels.hpp"
#include "kernels/math.hpp"
#include "kernels/trig.hpp"

namespace devplug::reference {
namespace {

// abs, neg, sign: every numeric dtype.
void run_abs(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out) {
  sdk::visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_float16_v<T>)
      map1<T, T>(in, out, [](T x) { return T{static_cast<uint16_t>(x.bits & 0x7FFFu)}; });
    else if constexpr (std::is_floating_point_v<T>)
      map1<T, T>(in, out, [](T x) { return std::fabs(x); });
    else if constexpr (std::is_same_v<T, bool>)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "abs: bool is not allowed");
    else
      map1<T, T>(in, out, [](T x) { return math::wrapping_abs(x); });
  });
}

void run_neg(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out) {
  sdk::visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_float16_v<T>)
      map1<T, T>(in, out, [](T x) { return T{static_cast<uint16_t>(x.bits ^ 0x8000u)}; });
    else if constexpr (std::is_floating_point_v<T>)
      map1<T, T>(in, out, [](T x) { return -x; });
    else if constexpr (std::is_same_v<T, bool>)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "neg: bool is not allowed");
    else
      map1<T, T>(in, out, [](T x) { return math::wrapping_neg(x); });
  });
}

void run_sign(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out) {
  sdk::visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_floating_v<T>) {
      // NaN and +-0.0 give +0.0.
      map1<T, T>(in, out, [](T x) {
        const double d = value_of(x);
        return round_to<T>(d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0);
      });
    } else if constexpr (std::is_same_v<T, bool>) {
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "sign: bool is not allowed");
    } else {
      map1<T, T>(in, out, [](T x) { return static_cast<T>((x > 0) - (x < 0)); });
    }
  });
}

void run_signbit(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out) {
  sdk::visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_float16_v<T>)
      map1<T, BoolByte>(in, out, [](T x) { return BoolByte((x.bits & 0x8000u) != 0); });
    else if constexpr (std::is_floating_point_v<T>)
      map1<T, BoolByte>(in, out, [](T x) { return BoolByte(std::signbit(x)); });
    else if constexpr (std::is_same_v<T, bool>)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "signbit: bool is not allowed");
    else
      map1<T, BoolByte>(in, out, [](T x) { return BoolByte(x < 0); });
  });
}

void run_bitwise_not(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out) {
  sdk::visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      map1<BoolByte, BoolByte>(in, out, [](BoolByte x) { return BoolByte(x == 0); });
    else if constexpr (std::is_integral_v<T>)
      map1<T, T>(in, out, [](T x) { return static_cast<T>(~x); });
    else
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "bitwise_not: floating dtypes are not allowed");
  });
}

// A floating predicate with a bool output.
template <typename P>
void float_predicate(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out, P&& p) {
  visit_float(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map1<T, BoolByte>(in, out, [&](T x) { return BoolByte(p(value_of(x))); });
  });
}

// Every unary op; false when `op` is not one (the caller answers UNIMPLEMENTED).
bool run_unary(devplug_op_t op, const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& out) {
  using std::atan, std::ceil, std::erf, std::expm1, std::floor, std::log10, std::log1p, std::log2, std::sqrt,
      std::tanh, std::trunc;
  constexpr F64 kWide = F64::kWide, kNative = F64::kNative;
  switch (op) {
    case DEVPLUG_OP_abs:
      run_abs(in, out);
      return true;
    case DEVPLUG_OP_neg:
      run_neg(in, out);
      return true;
    case DEVPLUG_OP_sign:
      run_sign(in, out);
      return true;
    case DEVPLUG_OP_signbit:
      run_signbit(in, out);
      return true;
    case DEVPLUG_OP_ceil:
      float_map1<kNative>(in, out, [](auto x) { return ceil(x); });
      return true;
    case DEVPLUG_OP_floor:
      float_map1<kNative>(in, out, [](auto x) { return floor(x); });
      return true;
    case DEVPLUG_OP_round:
      float_map1<kNative>(in, out, [](double x) { return math::round_half_even(x); });
      return true;
    case DEVPLUG_OP_trunc:
      float_map1<kNative>(in, out, [](auto x) { return trunc(x); });
      return true;
    case DEVPLUG_OP_exp:
      float_map1<kWide>(in, out, [](auto x) { return math::exp(x); });
      return true;
    case DEVPLUG_OP_exp2:
      float_map1<kWide>(in, out, [](auto x) { return math::exp2(x); });
      return true;
    case DEVPLUG_OP_expm1:
      float_map1<kWide>(in, out, [](auto x) { return expm1(x); });
      return true;
    case DEVPLUG_OP_log:
      float_map1<kWide>(in, out, [](auto x) { return math::log(x); });
      return true;
    case DEVPLUG_OP_log2:
      float_map1<kWide>(in, out, [](auto x) { return log2(x); });
      return true;
    case DEVPLUG_OP_log10:
      float_map1<kWide>(in, out, [](auto x) { return log10(x); });
      return true;
    case DEVPLUG_OP_log1p:
      float_map1<kWide>(in, out, [](auto x) { return log1p(x); });
      return true;
    case DEVPLUG_OP_sqrt:
      float_map1<kNative>(in, out, [](auto x) { return sqrt(x); });
      return true;
    // 1 / sqrt(x) is two roundings in double: compute it in long double for float64.
    case DEVPLUG_OP_rsqrt:
      float_map1<kWide>(in, out, [](auto x) { return 1 / sqrt(x); });
      return true;
    case DEVPLUG_OP_cbrt:
      float_map1<kWide>(in, out, [](auto x) { return math::cbrt(x); });
      return true;
    case DEVPLUG_OP_reciprocal:
      float_map1<kNative>(in, out, [](auto x) { return 1 / x; });
      return true;
    case DEVPLUG_OP_sin:
      float_map1<kWide>(in, out, [](auto x) { return math::sin(x); });
      return true;
    case DEVPLUG_OP_cos:
      float_map1<kWide>(in, out, [](auto x) { return math::cos(x); });
      return true;
    case DEVPLUG_OP_tan:
      float_map1<kWide>(in, out, [](auto x) { return math::tan(x); });
      return true;
    case DEVPLUG_OP_asin:
      float_map1<kWide>(in, out, [](auto x) { return math::asin(x); });
      return true;
    case DEVPLUG_OP_acos:
      float_map1<kWide>(in, out, [](auto x) { return math::acos(x); });
      return true;
    case DEVPLUG_OP_atan:
      float_map1<kWide>(in, out, [](auto x) { return atan(x); });
      return true;
    case DEVPLUG_OP_sinh:
      float_map1<kWide>(in, out, [](auto x) { return math::sinh(x); });
      return true;
    case DEVPLUG_OP_cosh:
      float_map1<kWide>(in, out, [](auto x) { return math::cosh(x); });
      return true;
    case DEVPLUG_OP_tanh:
      float_map1<kWide>(in, out, [](auto x) { return tanh(x); });
      return true;
    case DEVPLUG_OP_asinh:
      float_map1<kWide>(in, out, [](auto x) { return math::asinh(x); });
      return true;
    case DEVPLUG_OP_acosh:
      float_map1<kWide>(in, out, [](auto x) { return math::acosh(x); });
      return true;
    case DEVPLUG_OP_atanh:
      float_map1<kWide>(in, out, [](auto x) { return math::atanh(x); });
      return true;
    case DEVPLUG_OP_erf:
      float_map1<kWide>(in, out, [](auto x) { return erf(x); });
      return true;
    case DEVPLUG_OP_erfc:
      float_map1<kWide>(in, out, [](auto x) { return math::erfc(x); });
      return true;
    case DEVPLUG_OP_erfinv:
      float_map1<kWide>(in, out, [](auto x) { return math::erfinv(x); });
      return true;
    case DEVPLUG_OP_lgamma:
      float_map1<kWide>(in, out, [](auto x) { return math::lgamma(x); });
      return true;
    case DEVPLUG_OP_digamma:
      float_map1<kWide>(in, out, [](auto x) { return math::digamma(x); });
      return true;
    case DEVPLUG_OP_isfinite:
      float_predicate(in, out, [](double x) { return std::isfinite(x); });
      return true;
    case DEVPLUG_OP_isinf:
      float_predicate(in, out, [](double x) { return std::isinf(x); });
      return true;
    case DEVPLUG_OP_isnan:
      float_predicate(in, out, [](double x) { return std::isnan(x); });
      return true;
    case DEVPLUG_OP_bitwise_not:
      run_bitwise_not(in, out);
      return true;
    default:
      return false;
  }
}

devplug_error_t* unary_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    check_in_buffers(*call);
    const devplug_op_info_t& info = *devplug_op_info(call->op);
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    check_same_shape(in, out, info.name);
    check_dtype(out, info.result == DEVPLUG_RESULT_bool ? DEVPLUG_DTYPE_BOOL : in.dtype, info.name,
                "the output");
    if (!run_unary(call->op, in, out))
      sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string("the unary kernel does not implement ") + info.name);
  });
}

}  // namespace

void register_unary_kernels(sdk::KernelTable& table) {
  table.add_all(sdk::ops_in_category(DEVPLUG_CATEGORY_unary), DEVPLUG_DTYPES_ALL, 0, &unary_kernel);
}

}  // namespace devplug::reference
