// SPDX-License-Identifier: Apache-2.0
// Binary, comparison and ternary ops (ops.def BINARY, COMPARE, TERNARY). Floats compute in
// float32 (float64 for float64) and round once; integers wrap (arithmetic runs on the
// unsigned type of the same width); integer division by zero is defined as 0 here (ops.def
// leaves it unspecified; GPUs do not trap).
#include <type_traits>

#include "device_math.cuh"
#include "elementwise.cuh"
#include "gpu_ops.hpp"

namespace devplug::gpu {
namespace {

enum class B {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kRemainder,
  kFmod,
  kPow,
  kAtan2,
  kHypot,
  kCopysign,
  kNextafter,
  kMaximum,
  kMinimum,
  kFmax,
  kFmin,
  kAnd,
  kOr,
  kXor,
  kShl,
  kSar,
  kShr,
  kGcd
};

template <B Op, typename C>
GPU_D inline C float_op(C a, C b) {
  if constexpr (Op == B::kAdd)
    return a + b;
  else if constexpr (Op == B::kSub)
    return a - b;
  else if constexpr (Op == B::kMul)
    return a * b;
  else if constexpr (Op == B::kDiv)
    return a / b;
  else if constexpr (Op == B::kRemainder) {
    C r = m_fmod(a, b);
    if (r != C(0) && ((r < C(0)) != (b < C(0)))) r += b;
    if (r == C(0)) r = m_copysign(C(0), b);
    return r;
  } else if constexpr (Op == B::kFmod)
    return m_fmod(a, b);
  else if constexpr (Op == B::kPow)
    return m_pow(a, b);
  else if constexpr (Op == B::kAtan2)
    return m_atan2(a, b);
  else if constexpr (Op == B::kHypot) {
    if (m_isinf(a) || m_isinf(b)) return static_cast<C>(INFINITY);
    return m_hypot(a, b);
  } else if constexpr (Op == B::kCopysign)
    return m_copysign(a, b);
  else if constexpr (Op == B::kMaximum) {
    if (m_isnan(a) || m_isnan(b)) return a + b;  // propagates the NaN
    if (a == b) return m_signbit(a) ? b : a;     // maximum(-0, +0) = +0
    return a > b ? a : b;
  } else if constexpr (Op == B::kMinimum) {
    if (m_isnan(a) || m_isnan(b)) return a + b;
    if (a == b) return m_signbit(a) ? a : b;
    return a < b ? a : b;
  } else if constexpr (Op == B::kFmax) {
    if (m_isnan(a)) return b;
    if (m_isnan(b)) return a;
    if (a == b) return m_signbit(a) ? b : a;
    return a > b ? a : b;
  } else {
    static_assert(Op == B::kFmin, "not a floating binary op");
    if (m_isnan(a)) return b;
    if (m_isnan(b)) return a;
    if (a == b) return m_signbit(a) ? a : b;
    return a < b ? a : b;
  }
}

template <typename T, B Op>
struct FloatBinary {
  GPU_D T operator()(T a, T b) const {
    if constexpr (Op == B::kNextafter) {
      if constexpr (std::is_same_v<T, f16>)
        return f16{nextafter16(a.bits, b.bits, to_compute(a), to_compute(b), 0x7e00u)};
      else if constexpr (std::is_same_v<T, bf16>)
        return bf16{nextafter16(a.bits, b.bits, to_compute(a), to_compute(b), 0x7fc0u)};
      else
        return m_nextafter(a, b);
    } else {
      return from_compute<T>(float_op<Op>(to_compute(a), to_compute(b)));
    }
  }
};

template <typename T>
using uint_of = std::make_unsigned_t<T>;
// The unsigned type integer arithmetic wraps in: at least 32 bits, so that 8- and 16-bit
// operands are not promoted to (overflowing) signed int.
template <typename T>
using wide_uint_of = std::conditional_t<(sizeof(T) < 4), uint32_t, uint_of<T>>;
template <typename T>
constexpr int bit_width = static_cast<int>(sizeof(T) * 8);

template <typename T>
GPU_D inline T int_pow(T a, T b) {
  using U = wide_uint_of<T>;
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {  // 1 / a^|b| truncated: only +-1 survive; a == 0 is defined as 0 here
      if (a == 1) return 1;
      if (a == -1) return (b & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  U result = 1, base = static_cast<U>(a);
  for (uint_of<T> e = static_cast<uint_of<T>>(b); e != 0; e >>= 1) {
    if (e & 1) result = static_cast<U>(result * base);
    base = static_cast<U>(base * base);
  }
  return static_cast<T>(result);
}

template <typename T>
GPU_D inline T int_gcd(T a, T b) {
  using U = uint_of<T>;
  U x = static_cast<U>(a), y = static_cast<U>(b);
  if constexpr (std::is_signed_v<T>) {
    if (a < 0) x = static_cast<U>(U(0) - x);
    if (b < 0) y = static_cast<U>(U(0) - y);
  }
  while (y != 0) {
    const U t = static_cast<U>(x % y);
    x = y;
    y = t;
  }
  return static_cast<T>(x);  // |min| wraps back to min
}

// A shift count outside [0, width) (for uint8 only the upper bound can fail).
template <typename T>
GPU_D inline bool shift_out_of_range(T b) {
  if constexpr (std::is_signed_v<T>)
    return b < 0 || b >= bit_width<T>;
  else
    return b >= bit_width<T>;
}

template <typename T>
GPU_D inline bool is_negative(T a) {
  if constexpr (std::is_signed_v<T>)
    return a < 0;
  else
    return false;
}

template <typename T, B Op>
struct IntBinary {
  GPU_D T operator()(T a, T b) const {
    using U = wide_uint_of<T>;
    constexpr bool is_signed = std::is_signed_v<T>;
    if constexpr (Op == B::kAdd)
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    else if constexpr (Op == B::kSub)
      return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    else if constexpr (Op == B::kMul)
      return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    else if constexpr (Op == B::kDiv || Op == B::kFmod || Op == B::kRemainder) {
      if (b == 0) return 0;
      if constexpr (is_signed) {
        if (b == T(-1))
          return Op == B::kDiv ? static_cast<T>(static_cast<U>(U(0) - static_cast<U>(a))) : T(0);
      }
      if constexpr (Op == B::kDiv) return static_cast<T>(a / b);
      T r = static_cast<T>(a % b);
      if constexpr (Op == B::kRemainder && is_signed) {
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      }
      return r;
    } else if constexpr (Op == B::kPow)
      return int_pow(a, b);
    else if constexpr (Op == B::kMaximum || Op == B::kFmax)
      return a > b ? a : b;
    else if constexpr (Op == B::kMinimum || Op == B::kFmin)
      return a < b ? a : b;
    else if constexpr (Op == B::kAnd)
      return static_cast<T>(a & b);
    else if constexpr (Op == B::kOr)
      return static_cast<T>(a | b);
    else if constexpr (Op == B::kXor)
      return static_cast<T>(a ^ b);
    else if constexpr (Op == B::kShl) {
      if (shift_out_of_range(b)) return 0;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
    } else if constexpr (Op == B::kSar) {
      if (shift_out_of_range(b)) return is_negative(a) ? T(-1) : T(0);
      return static_cast<T>(a >> b);  // arithmetic for signed types on CUDA and HIP
    } else if constexpr (Op == B::kShr) {
      if (shift_out_of_range(b)) return 0;
      return static_cast<T>(static_cast<uint_of<T>>(a) >> b);  // on the narrow pattern
    } else {
      static_assert(Op == B::kGcd, "not an integer binary op");
      return int_gcd(a, b);
    }
  }
};

template <B Op>
struct BoolBinary {
  GPU_D bool operator()(bool a, bool b) const {
    if constexpr (Op == B::kAdd || Op == B::kOr || Op == B::kMaximum)
      return a || b;
    else if constexpr (Op == B::kMul || Op == B::kAnd || Op == B::kMinimum)
      return a && b;
    else
      return a != b;  // kXor
  }
};

template <typename T, B Op>
void launch_binary(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const char* what = devplug_op_name(call.op);
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (Op == B::kAdd || Op == B::kMul || Op == B::kMaximum || Op == B::kMinimum || Op == B::kAnd ||
                  Op == B::kOr || Op == B::kXor)
      return launch_map<bool, bool, bool>(s, out, call.inputs, BoolBinary<Op>{}, what);
  } else if constexpr (is_float_v<T>) {
    if constexpr (Op != B::kAnd && Op != B::kOr && Op != B::kXor && Op != B::kShl && Op != B::kSar &&
                  Op != B::kShr && Op != B::kGcd)
      return launch_map<T, T, T>(s, out, call.inputs, FloatBinary<T, Op>{}, what);
  } else {
    if constexpr (Op != B::kAtan2 && Op != B::kHypot && Op != B::kCopysign && Op != B::kNextafter)
      return launch_map<T, T, T>(s, out, call.inputs, IntBinary<T, Op>{}, what);
  }
  sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(what) + ": no GPU kernel for this dtype");
}

template <typename T>
void run_binary_typed(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  switch (call.op) {
    case DEVPLUG_OP_add:
      return launch_binary<T, B::kAdd>(s, call);
    case DEVPLUG_OP_sub:
      return launch_binary<T, B::kSub>(s, call);
    case DEVPLUG_OP_mul:
      return launch_binary<T, B::kMul>(s, call);
    case DEVPLUG_OP_div:
      return launch_binary<T, B::kDiv>(s, call);
    case DEVPLUG_OP_remainder:
      return launch_binary<T, B::kRemainder>(s, call);
    case DEVPLUG_OP_fmod:
      return launch_binary<T, B::kFmod>(s, call);
    case DEVPLUG_OP_pow:
      return launch_binary<T, B::kPow>(s, call);
    case DEVPLUG_OP_atan2:
      return launch_binary<T, B::kAtan2>(s, call);
    case DEVPLUG_OP_hypot:
      return launch_binary<T, B::kHypot>(s, call);
    case DEVPLUG_OP_copysign:
      return launch_binary<T, B::kCopysign>(s, call);
    case DEVPLUG_OP_nextafter:
      return launch_binary<T, B::kNextafter>(s, call);
    case DEVPLUG_OP_maximum:
      return launch_binary<T, B::kMaximum>(s, call);
    case DEVPLUG_OP_minimum:
      return launch_binary<T, B::kMinimum>(s, call);
    case DEVPLUG_OP_fmax:
      return launch_binary<T, B::kFmax>(s, call);
    case DEVPLUG_OP_fmin:
      return launch_binary<T, B::kFmin>(s, call);
    case DEVPLUG_OP_bitwise_and:
      return launch_binary<T, B::kAnd>(s, call);
    case DEVPLUG_OP_bitwise_or:
      return launch_binary<T, B::kOr>(s, call);
    case DEVPLUG_OP_bitwise_xor:
      return launch_binary<T, B::kXor>(s, call);
    case DEVPLUG_OP_shift_left:
      return launch_binary<T, B::kShl>(s, call);
    case DEVPLUG_OP_shift_right_arithmetic:
      return launch_binary<T, B::kSar>(s, call);
    case DEVPLUG_OP_shift_right_logical:
      return launch_binary<T, B::kShr>(s, call);
    case DEVPLUG_OP_gcd:
      return launch_binary<T, B::kGcd>(s, call);
    default:
      sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(devplug_op_name(call.op)) + ": not a binary op");
  }
}

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

template <typename T, Cmp Op>
struct Compare {
  GPU_D bool operator()(T va, T vb) const {
    const auto a = to_compute(va);
    const auto b = to_compute(vb);
    if constexpr (Op == Cmp::kEq)
      return a == b;
    else if constexpr (Op == Cmp::kNe)
      return a != b;
    else if constexpr (Op == Cmp::kLt)
      return a < b;
    else if constexpr (Op == Cmp::kLe)
      return a <= b;
    else if constexpr (Op == Cmp::kGt)
      return a > b;
    else
      return a >= b;
  }
};

template <typename T>
struct Select {
  GPU_D T operator()(bool c, T a, T b) const { return c ? a : b; }
};

}  // namespace

void run_binary(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  visit(call.inputs[0]->dtype,
        [&](auto tag) { run_binary_typed<typename decltype(tag)::type>(stream, call); });
}

void run_compare(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  visit(call.inputs[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const devplug_tensor_desc_t& out = *call.outputs[0];
    const char* what = devplug_op_name(call.op);
    switch (call.op) {
      case DEVPLUG_OP_eq:
        return launch_map<bool, T, T>(stream, out, call.inputs, Compare<T, Cmp::kEq>{}, what);
      case DEVPLUG_OP_ne:
        return launch_map<bool, T, T>(stream, out, call.inputs, Compare<T, Cmp::kNe>{}, what);
      case DEVPLUG_OP_lt:
        return launch_map<bool, T, T>(stream, out, call.inputs, Compare<T, Cmp::kLt>{}, what);
      case DEVPLUG_OP_le:
        return launch_map<bool, T, T>(stream, out, call.inputs, Compare<T, Cmp::kLe>{}, what);
      case DEVPLUG_OP_gt:
        return launch_map<bool, T, T>(stream, out, call.inputs, Compare<T, Cmp::kGt>{}, what);
      case DEVPLUG_OP_ge:
        return launch_map<bool, T, T>(stream, out, call.inputs, Compare<T, Cmp::kGe>{}, what);
      default:
        sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(what) + ": not a comparison");
    }
  });
}

void run_where(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  sdk::check_argument(call.inputs[0]->dtype == DEVPLUG_DTYPE_BOOL, "where: cond must be bool");
  visit(call.inputs[1]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_map<T, bool, T, T>(stream, *call.outputs[0], call.inputs, Select<T>{}, "where");
  });
}

}  // namespace devplug::gpu
