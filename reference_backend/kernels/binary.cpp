// SPDX-License-Identifier: Apache-2.0
// Binary, comparison and ternary (where) kernels of the reference backend (categories BINARY,
// COMPARE and TERNARY of ops.def). Each category has one kernel: it checks the call, picks
// the op's scalar function, dispatches the dtype once and runs a typed strided loop.
//
// Floating ops follow elementwise.hpp's precision rules; integer ops wrap in two's
// complement and never trap (division by zero and min / -1 give defined values); bool
// elements are read as bytes (non-zero is true) and written as 0/1.
#include <cmath>
#include <limits>
#include <string>

#include "kernels/elementwise.hpp"
#include "kernels/kernels.hpp"
#include "kernels/math.hpp"

namespace devplug::reference {
namespace {

template <typename T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Runs `f` on an integer dtype's loop (uint8 .. int64); INVALID_ARGUMENT otherwise.
template <typename F>
void int_map2(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
              const devplug_tensor_desc_t& out, F&& f, const char* name) {
  sdk::visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_int_v<T>)
      map2<T, T, T>(a, b, out, [&](T x, T y) { return static_cast<T>(f(x, y)); });
    else
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(name) + ": dtype not allowed");
  });
}

// An op defined for floats by `ff` (computed as P says), for integers by `fi` and for bool
// by `fb` (on true/false); nullptr for `ff` or `fb` means those dtypes are not allowed.
template <F64 P, typename FF, typename FI, typename FB>
void numeric_map2(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                  const devplug_tensor_desc_t& out, FF&& ff, FI&& fi, FB&& fb, const char* name) {
  sdk::visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_floating_v<T>) {
      if constexpr (std::is_same_v<std::decay_t<FF>, std::nullptr_t>)
        sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(name) + ": floating dtypes are not allowed");
      else
        float_map2<P>(a, b, out, ff);
    } else if constexpr (std::is_same_v<T, bool>) {
      if constexpr (std::is_same_v<std::decay_t<FB>, std::nullptr_t>) {
        sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(name) + ": bool is not allowed");
      } else {
        map2<BoolByte, BoolByte, BoolByte>(
            a, b, out, [&](BoolByte x, BoolByte y) { return BoolByte(fb(x != 0, y != 0) ? 1 : 0); });
      }
    } else {
      map2<T, T, T>(a, b, out, [&](T x, T y) { return static_cast<T>(fi(x, y)); });
    }
  });
}

// Python remainder on floats: the result takes the divisor's sign (zero too); NaN for b = 0.
double float_remainder(double a, double b) {
  double r = math::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  if (r == 0) r = std::copysign(0.0, b);
  return r;
}

// maximum/minimum (NaN-propagating) and fmax/fmin (NaN-ignoring) on floats, with
// -0.0 < +0.0. They select one of the inputs, so the pattern is copied, not rounded.
template <bool kMax, bool kIgnoreNaN>
void float_select(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                  const devplug_tensor_desc_t& out) {
  visit_float(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map2<T, T, T>(a, b, out, [](T x, T y) {
      const double dx = value_of(x), dy = value_of(y);
      const bool nx = std::isnan(dx), ny = std::isnan(dy);
      if (nx || ny) {
        if constexpr (kIgnoreNaN)
          return nx ? y : x;  // NaN only when both are
        else
          return nx ? x : y;
      }
      if (dx == dy) {
        // Equal values differ only in the sign of zero: the max takes +0.0, the min -0.0.
        const bool x_negative = std::signbit(dx);
        return (kMax ? x_negative : !x_negative) ? y : x;
      }
      return (kMax ? dx > dy : dx < dy) ? x : y;
    });
  });
}

template <bool kMax, bool kIgnoreNaN>
void run_select(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                const devplug_tensor_desc_t& out) {
  sdk::visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_floating_v<T>) {
      float_select<kMax, kIgnoreNaN>(a, b, out);
    } else if constexpr (std::is_same_v<T, bool>) {
      map2<BoolByte, BoolByte, BoolByte>(a, b, out, [](BoolByte x, BoolByte y) {
        return BoolByte(kMax ? (x != 0 || y != 0) : (x != 0 && y != 0));
      });
    } else {
      map2<T, T, T>(a, b, out, [](T x, T y) { return kMax ? (x > y ? x : y) : (x < y ? x : y); });
    }
  });
}

void run_copysign(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                  const devplug_tensor_desc_t& out) {
  visit_float(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_float16_v<T>)
      map2<T, T, T>(a, b, out, [](T x, T y) {
        return T{static_cast<uint16_t>((x.bits & 0x7FFFu) | (y.bits & 0x8000u))};
      });
    else
      map2<T, T, T>(a, b, out, [](T x, T y) { return std::copysign(x, y); });
  });
}

void run_nextafter(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                   const devplug_tensor_desc_t& out) {
  visit_float(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_float16_v<T>)
      map2<T, T, T>(a, b, out, [](T x, T y) { return math::nextafter_bits(x, y); });
    else
      map2<T, T, T>(a, b, out, [](T x, T y) { return std::nextafter(x, y); });
  });
}

// Every binary op; false when `op` is not one.
bool run_binary(devplug_op_t op, const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                const devplug_tensor_desc_t& out) {
  constexpr F64 kWide = F64::kWide, kNative = F64::kNative;
  const char* name = devplug_op_name(op);
  const std::nullptr_t no_bool = nullptr;
  switch (op) {
    case DEVPLUG_OP_add:
      numeric_map2<kNative>(
          a, b, out, [](auto x, auto y) { return x + y; },
          [](auto x, auto y) { return math::wrapping_add(x, y); }, [](bool x, bool y) { return x || y; },
          name);
      return true;
    case DEVPLUG_OP_sub:
      numeric_map2<kNative>(
          a, b, out, [](auto x, auto y) { return x - y; },
          [](auto x, auto y) { return math::wrapping_sub(x, y); }, no_bool, name);
      return true;
    case DEVPLUG_OP_mul:
      numeric_map2<kNative>(
          a, b, out, [](auto x, auto y) { return x * y; },
          [](auto x, auto y) { return math::wrapping_mul(x, y); }, [](bool x, bool y) { return x && y; },
          name);
      return true;
    case DEVPLUG_OP_div:
      numeric_map2<kNative>(
          a, b, out, [](auto x, auto y) { return x / y; }, [](auto x, auto y) { return math::int_div(x, y); },
          no_bool, name);
      return true;
    case DEVPLUG_OP_remainder:
      numeric_map2<kNative>(
          a, b, out, [](double x, double y) { return float_remainder(x, y); },
          [](auto x, auto y) { return math::int_remainder(x, y); }, no_bool, name);
      return true;
    case DEVPLUG_OP_fmod:
      numeric_map2<kNative>(
          a, b, out, [](double x, double y) { return math::fmod(x, y); },
          [](auto x, auto y) { return math::int_fmod(x, y); }, no_bool, name);
      return true;
    // glibc's double pow is within 0.52 ulp (nearly always correctly rounded) while powl
    // costs ten times as much (0.4 s per million elements), so float64 pow stays in double.
    case DEVPLUG_OP_pow:
      numeric_map2<kNative>(
          a, b, out, [](auto x, auto y) { return std::pow(x, y); },
          [](auto x, auto y) { return math::int_pow(x, y); }, no_bool, name);
      return true;
    case DEVPLUG_OP_atan2:
      float_map2<kWide>(a, b, out, [](auto x, auto y) { return std::atan2(x, y); });
      return true;
    case DEVPLUG_OP_hypot:
      float_map2<kWide>(a, b, out, [](auto x, auto y) { return std::hypot(x, y); });
      return true;
    case DEVPLUG_OP_copysign:
      run_copysign(a, b, out);
      return true;
    case DEVPLUG_OP_nextafter:
      run_nextafter(a, b, out);
      return true;
    case DEVPLUG_OP_maximum:
      run_select<true, false>(a, b, out);
      return true;
    case DEVPLUG_OP_minimum:
      run_select<false, false>(a, b, out);
      return true;
    case DEVPLUG_OP_fmax:
      run_select<true, true>(a, b, out);
      return true;
    case DEVPLUG_OP_fmin:
      run_select<false, true>(a, b, out);
      return true;
    case DEVPLUG_OP_bitwise_and:
      numeric_map2<kNative>(
          a, b, out, nullptr, [](auto x, auto y) { return x & y; }, [](bool x, bool y) { return x && y; },
          name);
      return true;
    case DEVPLUG_OP_bitwise_or:
      numeric_map2<kNative>(
          a, b, out, nullptr, [](auto x, auto y) { return x | y; }, [](bool x, bool y) { return x || y; },
          name);
      return true;
    case DEVPLUG_OP_bitwise_xor:
      numeric_map2<kNative>(
          a, b, out, nullptr, [](auto x, auto y) { return x ^ y; }, [](bool x, bool y) { return x != y; },
          name);
      return true;
    case DEVPLUG_OP_shift_left:
      int_map2(
          a, b, out, [](auto x, auto y) { return math::shift_left(x, y); }, name);
      return true;
    case DEVPLUG_OP_shift_right_arithmetic:
      int_map2(
          a, b, out, [](auto x, auto y) { return math::shift_right_arithmetic(x, y); }, name);
      return true;
    case DEVPLUG_OP_shift_right_logical:
      int_map2(
          a, b, out, [](auto x, auto y) { return math::shift_right_logical(x, y); }, name);
      return true;
    case DEVPLUG_OP_gcd:
      int_map2(
          a, b, out, [](auto x, auto y) { return math::gcd(x, y); }, name);
      return true;
    default:
      return false;
  }
}

// Comparison on any dtype: floats compare as values (NaN unordered, -0.0 == +0.0), bool as
// 0/1.
template <typename Cmp>
void compare(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b, const devplug_tensor_desc_t& out,
             Cmp&& cmp) {
  sdk::visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sdk::is_float16_v<T>)
      map2<T, T, BoolByte>(a, b, out, [&](T x, T y) { return BoolByte(cmp(value_of(x), value_of(y))); });
    else if constexpr (std::is_same_v<T, bool>)
      map2<BoolByte, BoolByte, BoolByte>(
          a, b, out, [&](BoolByte x, BoolByte y) { return BoolByte(cmp(x != 0, y != 0)); });
    else
      map2<T, T, BoolByte>(a, b, out, [&](T x, T y) { return BoolByte(cmp(x, y)); });
  });
}

bool run_compare(devplug_op_t op, const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                 const devplug_tensor_desc_t& out) {
  switch (op) {
    case DEVPLUG_OP_eq:
      compare(a, b, out, [](auto x, auto y) { return x == y; });
      return true;
    case DEVPLUG_OP_ne:
      compare(a, b, out, [](auto x, auto y) { return x != y; });
      return true;
    case DEVPLUG_OP_lt:
      compare(a, b, out, [](auto x, auto y) { return x < y; });
      return true;
    case DEVPLUG_OP_le:
      compare(a, b, out, [](auto x, auto y) { return x <= y; });
      return true;
    case DEVPLUG_OP_gt:
      compare(a, b, out, [](auto x, auto y) { return x > y; });
      return true;
    case DEVPLUG_OP_ge:
      compare(a, b, out, [](auto x, auto y) { return x >= y; });
      return true;
    default:
      return false;
  }
}

devplug_error_t* binary_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    check_in_buffers(*call);
    const devplug_op_info_t& info = *devplug_op_info(call->op);
    const devplug_tensor_desc_t& a = *call->inputs[0];
    const devplug_tensor_desc_t& b = *call->inputs[1];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    check_same_shape(a, out, info.name);
    check_same_shape(b, out, info.name);
    check_dtype(b, a.dtype, info.name, "input 1");
    check_dtype(out, info.result == DEVPLUG_RESULT_bool ? DEVPLUG_DTYPE_BOOL : a.dtype, info.name,
                "the output");
    const bool done = info.category == DEVPLUG_CATEGORY_compare ? run_compare(call->op, a, b, out)
                                                                : run_binary(call->op, a, b, out);
    if (!done)
      sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string("the binary kernel does not implement ") + info.name);
  });
}

// where(cond, a, b): copies the selected element's pattern (bool outputs normalised to 0/1).
devplug_error_t* where_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    check_in_buffers(*call);
    const devplug_op_info_t& info = *devplug_op_info(call->op);
    if (call->op != DEVPLUG_OP_where)
      sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string("the where kernel does not implement ") + info.name);
    const devplug_tensor_desc_t& cond = *call->inputs[0];
    const devplug_tensor_desc_t& a = *call->inputs[1];
    const devplug_tensor_desc_t& b = *call->inputs[2];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    for (const devplug_tensor_desc_t* t : {&cond, &a, &b}) check_same_shape(*t, out, info.name);
    check_dtype(cond, DEVPLUG_DTYPE_BOOL, info.name, "the condition");
    check_dtype(b, a.dtype, info.name, "input 2");
    check_dtype(out, a.dtype, info.name, "the output");
    sdk::visit_dtype(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>)
        map3<BoolByte, BoolByte, BoolByte, BoolByte>(cond, a, b, out, [](BoolByte c, BoolByte x, BoolByte y) {
          return BoolByte((c != 0 ? x : y) != 0);
        });
      else
        map3<BoolByte, T, T, T>(cond, a, b, out, [](BoolByte c, T x, T y) { return c != 0 ? x : y; });
    });
  });
}

}  // namespace

void register_binary_kernels(sdk::KernelTable& table) {
  table.add_all(sdk::ops_in_category(DEVPLUG_CATEGORY_binary), DEVPLUG_DTYPES_ALL, 0, &binary_kernel);
  table.add_all(sdk::ops_in_category(DEVPLUG_CATEGORY_compare), DEVPLUG_DTYPES_ALL, 0, &binary_kernel);
  table.add_all(sdk::ops_in_category(DEVPLUG_CATEGORY_ternary), DEVPLUG_DTYPES_ALL, 0, &where_kernel);
}

}  // namespace devplug::reference
