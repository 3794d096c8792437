// SPDX-License-Identifier: Apache-2.0
// Unary ops (ops.def category UNARY): floating math in float32 (float64 for float64) rounded
// once to the dtype, integer ops with wrap-around, and the bool-valued predicates.
#include <type_traits>

#include "device_math.cuh"
#include "elementwise.cuh"
#include "gpu_ops.hpp"

namespace devplug::gpu {
namespace {

// A floating op on the compute type C (float or double).
#define FLOAT_OP(name, expr)        \
  struct Op_##name {                \
    template <typename C>           \
    GPU_D C operator()(C x) const { \
      return (expr);                \
    }                               \
  };
FLOAT_OP(ceil, m_ceil(x))
FLOAT_OP(floor, m_floor(x))
FLOAT_OP(round, m_rint(x))
FLOAT_OP(trunc, m_trunc(x))
FLOAT_OP(exp, m_exp(x))
FLOAT_OP(exp2, m_exp2(x))
FLOAT_OP(expm1, m_expm1(x))
FLOAT_OP(log, m_log(x))
FLOAT_OP(log2, m_log2(x))
FLOAT_OP(log10, m_log10(x))
FLOAT_OP(log1p, m_log1p(x))
FLOAT_OP(sqrt, m_sqrt(x))
FLOAT_OP(rsqrt, C(1) / m_sqrt(x))
FLOAT_OP(cbrt, m_cbrt(x))
FLOAT_OP(reciprocal, C(1) / x)
FLOAT_OP(sin, m_sin(x))
FLOAT_OP(cos, m_cos(x))
FLOAT_OP(tan, m_tan(x))
FLOAT_OP(asin, m_asin(x))
FLOAT_OP(acos, m_acos(x))
FLOAT_OP(atan, m_atan(x))
FLOAT_OP(sinh, m_sinh(x))
FLOAT_OP(cosh, m_cosh(x))
FLOAT_OP(tanh, m_tanh(x))
FLOAT_OP(asinh, m_asinh(x))
FLOAT_OP(acosh, m_acosh(x))
FLOAT_OP(atanh, m_atanh(x))
FLOAT_OP(erf, m_erf(x))
FLOAT_OP(erfc, m_erfc(x))
FLOAT_OP(erfinv, m_erfinv(x))
FLOAT_OP(lgamma, m_lgamma(x))
FLOAT_OP(digamma, m_digamma(x))
FLOAT_OP(fabs, m_fabs(x))
FLOAT_OP(fneg, -x)
FLOAT_OP(fsign, x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0)))
#undef FLOAT_OP

template <typename T, typename Op>
struct FloatMap {
  GPU_D T operator()(T v) const { return from_compute<T>(Op{}(to_compute(v))); }
};

template <typename T>
using unsigned_of = std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>;

template <typename T>
GPU_D inline T wrap_neg(T x) {
  using U = unsigned_of<T>;
  return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(x)));
}

template <typename T>
struct IntAbs {
  GPU_D T operator()(T x) const {
    if constexpr (std::is_signed_v<T>)
      return x < 0 ? wrap_neg(x) : x;
    else
      return x;
  }
};
template <typename T>
struct IntNeg {
  GPU_D T operator()(T x) const { return wrap_neg(x); }
};
template <typename T>
struct IntSign {
  GPU_D T operator()(T x) const {
    if constexpr (std::is_signed_v<T>)
      return static_cast<T>((x > 0) - (x < 0));
    else
      return static_cast<T>(x != 0);
  }
};
template <typename T>
struct IntSignbit {
  GPU_D bool operator()(T x) const {
    if constexpr (std::is_signed_v<T>)
      return x < 0;
    else
      return false;
  }
};
template <typename T>
struct BitwiseNot {
  GPU_D T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>)
      return !x;
    else
      return static_cast<T>(~x);
  }
};

enum class Predicate { kFinite, kInf, kNan, kSignbit };
template <typename T, Predicate P>
struct FloatPredicate {
  GPU_D bool operator()(T v) const {
    const auto x = to_compute(v);
    if constexpr (P == Predicate::kFinite)
      return !m_isnan(x) && !m_isinf(x);
    else if constexpr (P == Predicate::kInf)
      return m_isinf(x);
    else if constexpr (P == Predicate::kNan)
      return m_isnan(x);
    else
      return m_signbit(x);
  }
};

template <typename T>
void run_float(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const devplug_tensor_desc_t* const* in = call.inputs;
  const char* what = devplug_op_name(call.op);
#define MAP(Op) return launch_map<T, T>(s, out, in, FloatMap<T, Op>{}, what)
#define PRED(P) return launch_map<bool, T>(s, out, in, FloatPredicate<T, P>{}, what)
  switch (call.op) {
    case DEVPLUG_OP_abs:
      MAP(Op_fabs);
    case DEVPLUG_OP_neg:
      MAP(Op_fneg);
    case DEVPLUG_OP_sign:
      MAP(Op_fsign);
    case DEVPLUG_OP_signbit:
      PRED(Predicate::kSignbit);
    case DEVPLUG_OP_ceil:
      MAP(Op_ceil);
    case DEVPLUG_OP_floor:
      MAP(Op_floor);
    case DEVPLUG_OP_round:
      MAP(Op_round);
    case DEVPLUG_OP_trunc:
      MAP(Op_trunc);
    case DEVPLUG_OP_exp:
      MAP(Op_exp);
    case DEVPLUG_OP_exp2:
      MAP(Op_exp2);
    case DEVPLUG_OP_expm1:
      MAP(Op_expm1);
    case DEVPLUG_OP_log:
      MAP(Op_log);
    case DEVPLUG_OP_log2:
      MAP(Op_log2);
    case DEVPLUG_OP_log10:
      MAP(Op_log10);
    case DEVPLUG_OP_log1p:
      MAP(Op_log1p);
    case DEVPLUG_OP_sqrt:
      MAP(Op_sqrt);
    case DEVPLUG_OP_rsqrt:
      MAP(Op_rsqrt);
    case DEVPLUG_OP_cbrt:
      MAP(Op_cbrt);
    case DEVPLUG_OP_reciprocal:
      MAP(Op_reciprocal);
    case DEVPLUG_OP_sin:
      MAP(Op_sin);
    case DEVPLUG_OP_cos:
      MAP(Op_cos);
    case DEVPLUG_OP_tan:
      MAP(Op_tan);
    case DEVPLUG_OP_asin:
      MAP(Op_asin);
    case DEVPLUG_OP_acos:
      MAP(Op_acos);
    case DEVPLUG_OP_atan:
      MAP(Op_atan);
    case DEVPLUG_OP_sinh:
      MAP(Op_sinh);
    case DEVPLUG_OP_cosh:
      MAP(Op_cosh);
    case DEVPLUG_OP_tanh:
      MAP(Op_tanh);
    case DEVPLUG_OP_asinh:
      MAP(Op_asinh);
    case DEVPLUG_OP_acosh:
      MAP(Op_acosh);
    case DEVPLUG_OP_atanh:
      MAP(Op_atanh);
    case DEVPLUG_OP_erf:
      MAP(Op_erf);
    case DEVPLUG_OP_erfc:
      MAP(Op_erfc);
    case DEVPLUG_OP_erfinv:
      MAP(Op_erfinv);
    case DEVPLUG_OP_lgamma:
      MAP(Op_lgamma);
    case DEVPLUG_OP_digamma:
      MAP(Op_digamma);
    case DEVPLUG_OP_isfinite:
      PRED(Predicate::kFinite);
    case DEVPLUG_OP_isinf:
      PRED(Predicate::kInf);
    case DEVPLUG_OP_isnan:
      PRED(Predicate::kNan);
    default:
      break;
  }
#undef MAP
#undef PRED
  sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(what) + ": no floating GPU kernel");
}

template <typename T>
void run_integral(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const devplug_tensor_desc_t* const* in = call.inputs;
  const char* what = devplug_op_name(call.op);
  if (call.op == DEVPLUG_OP_bitwise_not) return launch_map<T, T>(s, out, in, BitwiseNot<T>{}, what);
  if constexpr (!std::is_same_v<T, bool>) {
    switch (call.op) {
      case DEVPLUG_OP_abs:
        return launch_map<T, T>(s, out, in, IntAbs<T>{}, what);
      case DEVPLUG_OP_neg:
        return launch_map<T, T>(s, out, in, IntNeg<T>{}, what);
      case DEVPLUG_OP_sign:
        return launch_map<T, T>(s, out, in, IntSign<T>{}, what);
      case DEVPLUG_OP_signbit:
        return launch_map<bool, T>(s, out, in, IntSignbit<T>{}, what);
      default:
        break;
    }
  }
  sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(what) + ": no integer GPU kernel");
}

}  // namespace

void run_unary(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  visit(call.inputs[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>)
      run_float<T>(stream, call);
    else
      run_integral<T>(stream, call);
  });
}

}  // namespace devplug::gpu
