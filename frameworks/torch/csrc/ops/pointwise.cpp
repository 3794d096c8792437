// SPDX-License-Identifier: Apache-2.0
// Pointwise ops torch computes with a formula of other pointwise ops, composed in the bridge
// from devplug prims with torch's CPU formula, step for step (in torch's opmath type for the
// 16-bit floats, rounded once at the end, unless torch rounds every step): logaddexp,
// logaddexp2, xlogy, heaviside, frac, round with decimals, rsub, special_xlog1py, sinc,
// special_entr, nan_to_num, polygamma (digamma, trigamma, Hurwitz zeta), logit and its
// backward, angle of real tensors, the modified Bessel functions i0, i0e, i1 and i1e (Cephes'
// Chebyshev series); conj_physical, a copy for real tensors; and mvlgamma's out= form around its
// functional one.
#include <ATen/ExpandUtils.h>
#include <ATen/Functions.h>
#include <ATen/native/TypeProperties.h>
#include <c10/util/MathConstants.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "fallback.hpp"
#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// The shape of `a` and `b` broadcast, out resized to it, and the dtype to compute in.
struct Binary {
  Dev dev;
  at::ScalarType result;
  devplug_dtype_t compute;
  DTensor a, b;
};

// torch's result dtype of a floating op on `dtype`: integers and bools promote to the default float.
at::ScalarType floating_result(at::ScalarType dtype) {
  return c10::isIntegralType(dtype, /*includeBool=*/true) ? default_float() : dtype;
}
// The same for a floating binary op.
at::ScalarType floating_result(const at::Tensor& a, const at::Tensor& b) {
  return floating_result(at::native::result_type(a, b));
}

Binary floating_binary(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, const char* what) {
  Dev dev = Dev::of({&a, &b, &out});
  const at::ScalarType result = floating_result(a, b);
  TORCH_CHECK(c10::isFloatingType(result), what, ": expected floating operands, got ", result);
  check_can_cast(result, out);
  prepare_out(out, at::infer_size(a.sizes(), b.sizes()));
  const devplug_dtype_t compute = opmath(require_dtype(result, "the operands' common dtype"));
  DTensor da = dev.cast(dev.operand(a, compute), compute);
  DTensor db = dev.cast(dev.operand(b, compute), compute);
  return {dev, result, compute, da, db};
}

// torch's CPU: a where a and b are the same infinity, else max(a, b) + log1p(exp(-|a - b|))
// (exp2 and a factor 1/ln 2 for base 2). NaN in either gives NaN (maximum propagates it).
at::Tensor& logaddexp_base_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out, bool base2) {
  Binary op = floating_binary(self, other, out, base2 ? "logaddexp2" : "logaddexp");
  if (out.numel() == 0) return out;
  const Dev& dev = op.dev;
  DTensor gap = dev.ew(DEVPLUG_OP_neg, {dev.ew(DEVPLUG_OP_abs, {dev.ew(DEVPLUG_OP_sub, {op.a, op.b})})});
  DTensor tail = dev.ew(DEVPLUG_OP_log1p, {dev.ew(base2 ? DEVPLUG_OP_exp2 : DEVPLUG_OP_exp, {gap})});
  if (base2) tail = dev.ew_scalar(DEVPLUG_OP_mul, tail, 1.0 / std::log(2.0));
  DTensor sum = dev.ew(DEVPLUG_OP_add, {dev.ew(DEVPLUG_OP_maximum, {op.a, op.b}), tail});
  DTensor same_infinity =
      dev.ew(DEVPLUG_OP_bitwise_and, {dev.ew(DEVPLUG_OP_isinf, {op.a}), dev.ew(DEVPLUG_OP_eq, {op.a, op.b})});
  dev.ew_into(DEVPLUG_OP_where, {same_infinity, op.a, sum}, view_of(out));
  return out;
}
at::Tensor& logaddexp_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return logaddexp_base_out(self, other, out, false);
}
at::Tensor& logaddexp2_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return logaddexp_base_out(self, other, out, true);
}

// torch's CPU: NaN where y is NaN, else 0 where x is 0, else x * log(y) (xlogy) or
// x * log1p(y) (special_xlog1py).
at::Tensor& xlog_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out, devplug_op_t log_op) {
  Binary op = floating_binary(self, other, out, log_op == DEVPLUG_OP_log ? "xlogy" : "xlog1py");
  if (out.numel() == 0) return out;
  const Dev& dev = op.dev;
  DTensor product = dev.ew(DEVPLUG_OP_mul, {op.a, dev.ew(log_op, {op.b})});
  DTensor zero = dev.scalar(op.compute, 0);
  DTensor nan = dev.scalar(op.compute, std::numeric_limits<double>::quiet_NaN());
  DTensor value = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_eq, {op.a, zero}), zero, product});
  dev.ew_into(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_isnan, {op.b}), nan, value}, view_of(out));
  return out;
}
at::Tensor& xlogy_tensor_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return xlog_out(self, other, out, DEVPLUG_OP_log);
}
at::Tensor& xlog1py_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return xlog_out(self, other, out, DEVPLUG_OP_log1p);
}
at::Tensor xlogy_fn(const at::Tensor& self, const at::Tensor& other) {
  Dev dev = Dev::of({&self, &other});
  at::Tensor out = new_like_broadcast(dev, {&self, &other}, floating_result(self, other));
  return xlogy_tensor_out(self, other, out);
}
at::Tensor& xlogy_tensor_(at::Tensor& self, const at::Tensor& other) {
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), other.sizes());
  TORCH_CHECK(self.sizes().equals(shape), "output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", c10::IntArrayRef(shape));
  return xlogy_tensor_out(self, other, self);
}

// torch's CPU: values where x is 0, else x > 0 (NaN > 0 is false); one dtype for both.
at::Tensor& heaviside_out(const at::Tensor& self, const at::Tensor& values, at::Tensor& out) {
  TORCH_CHECK(!self.is_complex() && !values.is_complex(),
              "heaviside is not yet implemented for complex tensors.");
  TORCH_CHECK(self.scalar_type() == values.scalar_type(),
              "heaviside is not yet implemented for tensors with different dtypes.");
  Dev dev = Dev::of({&self, &values, &out});
  check_can_cast(self.scalar_type(), out);
  prepare_out(out, at::infer_size(self.sizes(), values.sizes()));
  if (out.numel() == 0) return out;
  const devplug_dtype_t dtype = require_dtype(self.scalar_type(), "heaviside's input");
  DTensor x = dev.operand(self, dtype), v = dev.operand(values, dtype);
  DTensor zero = dev.scalar(dtype, 0);
  DTensor positive = dev.cast(dev.ew(DEVPLUG_OP_gt, {x, zero}), dtype);
  dev.ew_into(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_eq, {x, zero}), v, positive}, view_of(out));
  return out;
}

// torch's CPU: x - trunc(x) (NaN for infinities).
at::Tensor& frac_out(const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), "\"frac_cpu\" not implemented for '",
              self.scalar_type(), "'");
  Dev dev = Dev::of({&self, &out});
  check_can_cast(self.scalar_type(), out);
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  const devplug_dtype_t compute = opmath(require_dtype(self.scalar_type(), "frac's input"));
  DTensor x = dev.cast(view_of(self), compute);
  dev.ew_into(DEVPLUG_OP_sub, {x, dev.ew(DEVPLUG_OP_trunc, {x})}, view_of(out));
  return out;
}

// torch's CPU: round-half-even of x * 10^d, divided by 10^d; for negative d, of x / 10^-d,
// multiplied by 10^-d (in opmath; integers are returned as they are, as torch does for d >= 0).
at::Tensor& round_decimals_out(const at::Tensor& self, int64_t decimals, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  check_can_cast(self.scalar_type(), out);
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  if (!c10::isFloatingType(self.scalar_type())) {
    TORCH_CHECK(decimals == 0, "round_cpu not implemented for '", self.scalar_type(), "' with decimals != 0");
    dev.copy(dev.cast(view_of(self), view_of(out).dtype()), view_of(out));
    return out;
  }
  const devplug_dtype_t compute = opmath(require_dtype(self.scalar_type(), "round's input"));
  const bool negative = decimals < 0;
  const double ten_pow = std::pow(10.0, static_cast<double>(negative ? -decimals : decimals));
  DTensor x = dev.cast(view_of(self), compute);
  DTensor scale = dev.scalar(compute, ten_pow);  // 10^d rounded to the compute dtype, as torch does
  DTensor scaled = dev.ew(negative ? DEVPLUG_OP_div : DEVPLUG_OP_mul, {x, scale});
  dev.ew_into(negative ? DEVPLUG_OP_mul : DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_round, {scaled}), scale},
              view_of(out));
  return out;
}
at::Tensor round_decimals_fn(const at::Tensor& self, int64_t decimals) {
  at::Tensor out = empty_like_torch(self, self.scalar_type());
  return round_decimals_out(self, decimals, out);
}
at::Tensor& round_decimals_(at::Tensor& self, int64_t decimals) {
  return round_decimals_out(self, decimals, self);
}

// conj_physical of a real tensor is a copy; complex tensors (a dtype devplug only holds) run on
// torch's CPU. torch's own conj_physical_ calls its CPU kernel directly, so devplug has its own:
// a real tensor is its own conjugate.
at::Tensor& conj_physical_(at::Tensor& self) { return self; }
at::Tensor& conj_physical_out(const at::Tensor& self, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Found dtype ", out.scalar_type(), " but expected ",
              self.scalar_type());
  prepare_out(out, self.sizes());
  if (self.numel() > 0) dev.copy(view_of(self), view_of(out));
  return out;
}

// A unary op torch computes in floating point (integers and bools promote to the default
// float): out checked and resized, the input in the result's opmath dtype (in the result's
// own dtype for an op torch computes in it).
struct Unary {
  Dev dev;
  devplug_dtype_t compute;
  DTensor x;
};
Unary floating_unary(const at::Tensor& self, const at::Tensor& out, const char* what, bool in_opmath = true) {
  Dev dev = Dev::of({&self, &out});
  const at::ScalarType result = floating_result(self.scalar_type());
  TORCH_CHECK(c10::isFloatingType(result), what, ": expected a real input, got ", self.scalar_type());
  check_can_cast(result, out);
  prepare_out(out, self.sizes());
  const devplug_dtype_t dtype = require_dtype(result, what);
  const devplug_dtype_t compute = in_opmath ? opmath(dtype) : dtype;
  return {dev, compute, dev.cast(dev.operand(self), compute)};
}

// torch's CPU: 1 where x is 0, else sin(pi x) / (pi x), pi in the opmath dtype.
at::Tensor& sinc_out(const at::Tensor& self, at::Tensor& out) {
  Unary op = floating_unary(self, out, "sinc");
  if (out.numel() == 0) return out;
  const Dev& dev = op.dev;
  DTensor product = dev.ew_scalar(DEVPLUG_OP_mul, op.x, c10::pi<double>);
  DTensor ratio = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_sin, {product}), product});
  DTensor zero = dev.scalar(op.compute, 0);
  dev.ew_into(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_eq, {op.x, zero}), dev.scalar(op.compute, 1), ratio},
              view_of(out));
  return out;
}

// torch's CPU: log(x / (1 - x)), +Inf where x is 1, x first clamped to [eps, 1 - eps] when eps
// is given and not negative. Each step rounds to the result's dtype (torch computes logit in
// the dtype itself, also for float16 and bfloat16), as do eps and 1 - eps.
at::Tensor& logit_out(const at::Tensor& self, std::optional<double> eps, at::Tensor& out) {
  Unary op = floating_unary(self, out, "logit", /*in_opmath=*/false);
  if (out.numel() == 0) return out;
  const Dev& dev = op.dev;
  DTensor x = op.x;
  DTensor one = dev.scalar(op.compute, 1);
  const double e = eps.value_or(-1.0);
  DTensor lo = dev.scalar(op.compute, e);
  if (!(e < 0)) {  // NaN clamps nothing: every comparison with it is false
    DTensor hi = dev.ew(DEVPLUG_OP_sub, {one, lo});
    x = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_lt, {x, lo}), lo,
                                  dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_gt, {x, hi}), hi, x})});
  }
  DTensor log_odds = dev.ew(DEVPLUG_OP_log, {dev.ew(DEVPLUG_OP_div, {x, dev.ew(DEVPLUG_OP_sub, {one, x})})});
  dev.ew_into(DEVPLUG_OP_where,
              {dev.ew(DEVPLUG_OP_eq, {x, one}),
               dev.scalar(op.compute, std::numeric_limits<double>::infinity()), log_odds},
              view_of(out));
  return out;
}
at::Tensor logit(const at::Tensor& self, std::optional<double> eps) {
  Dev dev = Dev::of(self);
  at::Tensor out = empty_torch(dev, self.sizes(), floating_result(self.scalar_type()));
  return logit_out(self, eps, out);
}
at::Tensor& logit_(at::Tensor& self, std::optional<double> eps) { return logit_out(self, eps, self); }

// torch's CPU, in the dtype: dy / (x (1 - x)), dy * Inf where x is 0 or 1; without eps (or a
// negative one) NaN outside [0, 1], with it 0 outside [eps, 1 - eps].
at::Tensor& logit_backward_out(const at::Tensor& grad, const at::Tensor& self, std::optional<double> eps,
                               at::Tensor& grad_input) {
  const at::ScalarType result = at::native::result_type(grad, self);
  if (!c10::isFloatingType(result)) throw OnCpu{};  // torch's CPU names the dtype it does not take
  Dev dev = Dev::of({&grad, &self, &grad_input});
  check_can_cast(result, grad_input);
  prepare_out(grad_input, at::infer_size(grad.sizes(), self.sizes()));
  if (grad_input.numel() == 0) return grad_input;
  const devplug_dtype_t dtype = require_dtype(result, "logit_backward");
  DTensor dy = dev.cast(dev.operand(grad, dtype), dtype);
  DTensor x = dev.cast(dev.operand(self, dtype), dtype);
  DTensor zero = dev.scalar(dtype, 0);
  DTensor one = dev.scalar(dtype, 1);
  DTensor inside =
      dev.ew(DEVPLUG_OP_div, {dy, dev.ew(DEVPLUG_OP_mul, {x, dev.ew(DEVPLUG_OP_sub, {one, x})})});
  DTensor at_ends =
      dev.ew(DEVPLUG_OP_bitwise_or, {dev.ew(DEVPLUG_OP_eq, {x, zero}), dev.ew(DEVPLUG_OP_eq, {x, one})});
  DTensor value =
      dev.ew(DEVPLUG_OP_where,
             {at_ends, dev.ew_scalar(DEVPLUG_OP_mul, dy, std::numeric_limits<double>::infinity()), inside});
  const double e = eps.value_or(-1.0);
  DTensor lo = e < 0 ? zero : dev.scalar(dtype, e);
  DTensor hi = e < 0 ? one : dev.ew(DEVPLUG_OP_sub, {one, lo});
  DTensor outside =
      dev.ew(DEVPLUG_OP_bitwise_or, {dev.ew(DEVPLUG_OP_lt, {x, lo}), dev.ew(DEVPLUG_OP_gt, {x, hi})});
  DTensor there = e < 0 ? dev.scalar(dtype, std::numeric_limits<double>::quiet_NaN()) : zero;
  dev.ew_into(DEVPLUG_OP_where, {outside, there, value}, view_of(grad_input));
  return grad_input;
}

// ---- modified Bessel functions of the first kind: i0, i0e, i1, i1e ------------------------------

// Cephes' Chebyshev coefficients (the tables torch's CPU uses): exp(-x) I0(x) on [0, 8] and
// exp(-x) sqrt(x) I0(x) on (8, inf); the same for I1, whose float tables are these tables' tails.
constexpr double kI0eA[] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17,  -2.43127984654795469359E-16,
    1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12,  -1.72682629144155570723E-11,
    9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,   -2.67079385394061173391E-7,
    1.11738753912010371815E-6,   -4.41673835845875056359E-6,  1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,   -5.76375574538582365885E-4,
    1.63947561694133579842E-3,   -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,   -9.49010970480476444210E-2,
    1.71620901522208775349E-1,   -3.04682672343198398683E-1,  6.76795274409476084995E-1};
constexpr double kI0eB[] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
    2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};
constexpr double kI1eA[] = {
    2.77791411276104639959E-18,  -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15,  -5.04218550472791168711E-14,
    3.22379336594557470981E-13,  -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10,  -1.88724975172282928790E-9,
    9.38153738649577178388E-9,   -4.44505912879632808065E-8,  2.00329475355213526229E-7,
    -8.56872026469545474066E-7,  3.47025130813767847674E-6,   -1.32731636560394358279E-5,
    4.78156510755005422638E-5,   -1.61760815825896745588E-4,  5.12285956168575772895E-4,
    -1.51357245063125314899E-3,  4.15642294431288815669E-3,   -1.05640848946261981558E-2,
    2.47264490306265168283E-2,   -5.29459812080949914269E-2,  1.02643658689847095384E-1,
    -1.76416518357834055153E-1,  2.52587186443633654823E-1};
constexpr double kI1eB[] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
    3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};
constexpr size_t kI1eAFloat = 17, kI1eBFloat = 7;  // float's tables: the last 17 and 7 entries

// Cephes' chbevl as torch runs it: b0 = x b1 - b2 + c[i], then (b0 - b2) / 2, each step
// rounded to x's dtype. torch's CPU kernels (built for AVX2 and AVX-512) contract x b1 - b2 into
// one fused multiply-add; in float32 so does this: the product is exact in float64, so
// x b1 - b2 taken there and rounded to float32 is the fused result (but for a double rounding
// no sample of the tests meets). float64 has no wider type on the device: it rounds twice.
DTensor chebyshev(const Dev& dev, const DTensor& x, const double* coeff, size_t n) {
  const devplug_dtype_t t = x.dtype();
  const bool fuse = t == DEVPLUG_DTYPE_FLOAT32;
  DTensor wide_x = fuse ? dev.cast(x, DEVPLUG_DTYPE_FLOAT64) : x;
  DTensor b0 = dev.scalar(t, coeff[0]);
  DTensor b1 = dev.scalar(t, 0);
  DTensor b2 = b1;
  for (size_t i = 1; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    DTensor step =
        fuse ? dev.cast(dev.ew(DEVPLUG_OP_sub,
                               {dev.ew(DEVPLUG_OP_mul, {wide_x, dev.cast(b1, DEVPLUG_DTYPE_FLOAT64)}),
                                dev.cast(b2, DEVPLUG_DTYPE_FLOAT64)}),
                        t)
             : dev.ew(DEVPLUG_OP_sub, {dev.ew(DEVPLUG_OP_mul, {x, b1}), b2});
    b0 = dev.ew_scalar(DEVPLUG_OP_add, step, coeff[i]);
  }
  return dev.ew_scalar(DEVPLUG_OP_mul, dev.ew(DEVPLUG_OP_sub, {b0, b2}), 0.5);
}

enum class Bessel { i0, i0e, i1, i1e };

// torch's calc_i0, calc_i0e, calc_i1 and calc_i1e: |x| <= 8 from the first table at x/2 - 2,
// above from the second at 32/|x| - 2 over sqrt(|x|); exp(|x|) for the unscaled ones; i1 and
// i1e take x's sign. In float32 for float32 and the 16-bit floats, float64 for float64.
template <Bessel Kind>
at::Tensor& bessel_out(const at::Tensor& self, at::Tensor& out) {
  static constexpr const char* names[] = {"i0", "special_i0e", "special_i1", "special_i1e"};
  Unary op = floating_unary(self, out, names[static_cast<int>(Kind)]);
  if (out.numel() == 0) return out;
  const Dev& dev = op.dev;
  const bool f64 = op.compute == DEVPLUG_DTYPE_FLOAT64;
  const bool first = Kind == Bessel::i0 || Kind == Bessel::i0e;
  const double* a = first ? kI0eA : kI1eA;
  const double* b = first ? kI0eB : kI1eB;
  size_t na = first ? std::size(kI0eA) : std::size(kI1eA);
  size_t nb = first ? std::size(kI0eB) : std::size(kI1eB);
  if (!first && !f64) {
    a += na - kI1eAFloat, na = kI1eAFloat;
    b += nb - kI1eBFloat, nb = kI1eBFloat;
  }
  DTensor x = dev.ew(DEVPLUG_OP_abs, {op.x});
  DTensor near =
      chebyshev(dev, dev.ew_scalar(DEVPLUG_OP_sub, dev.ew_scalar(DEVPLUG_OP_div, x, 2.0), 2.0), a, na);
  DTensor far = chebyshev(
      dev, dev.ew_scalar(DEVPLUG_OP_sub, dev.ew(DEVPLUG_OP_div, {dev.scalar(op.compute, 32.0), x}), 2.0), b,
      nb);
  DTensor root = dev.ew(DEVPLUG_OP_sqrt, {x});
  const bool scaled = Kind == Bessel::i0e || Kind == Bessel::i1e;
  if (!scaled) {
    DTensor grow = dev.ew(DEVPLUG_OP_exp, {x});
    near = Kind == Bessel::i0 ? dev.ew(DEVPLUG_OP_mul, {grow, near})
                              : dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_mul, {grow, x}), near});
    far = dev.ew(DEVPLUG_OP_mul, {grow, far});
  } else if (Kind == Bessel::i1e) {
    near = dev.ew(DEVPLUG_OP_mul, {near, x});
  }
  far = dev.ew(DEVPLUG_OP_div, {far, root});
  DTensor value = dev.ew(DEVPLUG_OP_where, {dev.ew_scalar(DEVPLUG_OP_le, x, 8.0), near, far});
  if (!first)
    value = dev.ew(DEVPLUG_OP_where,
                   {dev.ew_scalar(DEVPLUG_OP_lt, op.x, 0.0), dev.ew(DEVPLUG_OP_neg, {value}), value});
  DTensor target = view_of(out);
  dev.copy(dev.cast(value, target.dtype()), target);
  return out;
}

// torch's CPU for real x: x where x is NaN, pi where x < 0, else 0 (pi in the result's dtype).
at::Tensor& angle_out(const at::Tensor& self, at::Tensor& out) {
  Unary op = floating_unary(self, out, "angle", /*in_opmath=*/false);
  if (out.numel() == 0) return out;
  const Dev& dev = op.dev;
  DTensor zero = dev.scalar(op.compute, 0);
  DTensor sign = dev.ew(DEVPLUG_OP_where,
                        {dev.ew(DEVPLUG_OP_lt, {op.x, zero}), dev.scalar(op.compute, c10::pi<double>), zero});
  dev.ew_into(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_isnan, {op.x}), op.x, sign}, view_of(out));
  return out;
}
at::Tensor angle(const at::Tensor& self) {
  Dev dev = Dev::of(self);
  at::Tensor out = empty_torch(dev, self.sizes(), floating_result(self.scalar_type()));
  return angle_out(self, out);
}

// torch's CPU: x where x is NaN, -x log(x) where x > 0, 0 where x is 0, -Inf below.
at::Tensor& entr_out(const at::Tensor& self, at::Tensor& out) {
  Unary op = floating_unary(self, out, "entr");
  if (out.numel() == 0) return out;
  const Dev& dev = op.dev;
  DTensor zero = dev.scalar(op.compute, 0);
  DTensor positive = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_neg, {op.x}), dev.ew(DEVPLUG_OP_log, {op.x})});
  DTensor below =
      dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_eq, {op.x, zero}), zero,
                                dev.scalar(op.compute, -std::numeric_limits<double>::infinity())});
  DTensor value = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_gt, {op.x, zero}), positive, below});
  dev.ew_into(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_isnan, {op.x}), op.x, value}, view_of(out));
  return out;
}

// Hurwitz zeta(n + 1, q) as torch's CPU computes it (Cephes' zeta), in float64: q^-x plus
// (q + i)^-x for i = 1, 2, ... while i <= 9 or q + i - 1 <= 9, then the Euler-Maclaurin tail
// at w = q + i with twelve Bernoulli terms; +Inf at the poles (q a non-positive integer).
// The rounds run for every element, masked where torch's loop has ended; their number comes
// from the smallest finite q, read back once. torch also stops early once a term falls below
// 2^-53 of the sum: what the extra terms add here is below that. More than 64 rounds (q below
// about -54) leave the call to the CPU (throws OnCpu, before anything is written).
DTensor hurwitz_zeta(const Dev& dev, int64_t n, const DTensor& q) {
  static constexpr double divisors[12] =  // (2k)! / B_2k, Cephes' A[]
      {12.0,
       -720.0,
       30240.0,
       -1209600.0,
       47900160.0,
       -1.8924375803183791606e9,
       7.47242496e10,
       -2.950130727918164224e12,
       1.1646782814350067249e14,
       -4.5979787224074726105e15,
       1.8152105401943546773e17,
       -7.1661652561756670113e18};
  const devplug_dtype_t f64 = DEVPLUG_DTYPE_FLOAT64;
  const auto c = [&](double v) { return dev.scalar(f64, v); };
  const double x = static_cast<double>(n + 1);
  DTensor pole = dev.ew(DEVPLUG_OP_bitwise_and, {dev.ew(DEVPLUG_OP_le, {q, c(0)}),
                                                 dev.ew(DEVPLUG_OP_eq, {q, dev.ew(DEVPLUG_OP_floor, {q})})});
  DTensor looped = dev.ew(DEVPLUG_OP_bitwise_and,
                          {dev.ew(DEVPLUG_OP_isfinite, {q}), dev.ew(DEVPLUG_OP_bitwise_not, {pole})});
  double lowest = 0;
  const uint32_t all = q.rank() == 0 ? 0u : static_cast<uint32_t>((uint64_t{1} << q.rank()) - 1);
  dev.reduce(DEVPLUG_OP_amin, dev.ew(DEVPLUG_OP_where, {looped, q, c(0)}), all)
      .reshape({})
      .copy_to_host(&lowest, sizeof(lowest), &dev.stream());
  const int64_t rounds = std::max<int64_t>(9, static_cast<int64_t>(std::floor(10 - lowest)) + 1);
  if (rounds > 64) throw OnCpu{};
  DTensor s = dev.ew(DEVPLUG_OP_pow, {q, c(-x)});
  DTensor a = q;
  DTensor b = dev.full(f64, q.shape(), 0);
  for (int64_t i = 1; i <= rounds; ++i) {
    DTensor next = dev.ew(DEVPLUG_OP_add, {a, c(1)});
    DTensor term = dev.ew(DEVPLUG_OP_pow, {next, c(-x)});
    DTensor sum = dev.ew(DEVPLUG_OP_add, {s, term});
    if (i <= 9) {
      a = next;
      b = term;
      s = sum;
      continue;
    }
    DTensor active = dev.ew(DEVPLUG_OP_le, {a, c(9)});
    a = dev.ew(DEVPLUG_OP_where, {active, next, a});
    b = dev.ew(DEVPLUG_OP_where, {active, term, b});
    s = dev.ew(DEVPLUG_OP_where, {active, sum, s});
  }
  const DTensor w = a;
  s = dev.ew(DEVPLUG_OP_add, {s, dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {b, w}), c(x - 1)})});
  s = dev.ew(DEVPLUG_OP_sub, {s, dev.ew(DEVPLUG_OP_mul, {c(0.5), b})});
  double factor = 1, k = 0;
  for (double divisor : divisors) {
    factor *= x + k;
    b = dev.ew(DEVPLUG_OP_div, {b, w});
    s = dev.ew(DEVPLUG_OP_add,
               {s, dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {c(factor), b}), c(divisor)})});
    k += 1;
    factor *= x + k;
    b = dev.ew(DEVPLUG_OP_div, {b, w});
    k += 1;
  }
  return dev.ew(DEVPLUG_OP_where, {pole, c(std::numeric_limits<double>::infinity()), s});
}

// torch's CPU polygamma: digamma for n = 0; for n = 1 its trigamma series, step for step in
// the opmath dtype: below 1/2 the reflection -pi^2 / sin^2(pi x) and x = 1 - x, then six
// terms 1 / x^2 with x stepping by 1, the asymptotic tail (1 + 1/(2x) + (1/6 - (1/30 -
// 1/42 / x^2) / x^2) / x^2) / x, and the sign flipped after a reflection; for n >= 2,
// (-1)^(n+1) exp(lgamma(n + 1)) zeta(n + 1, x), the factor in the opmath dtype (on the host)
// and zeta rounded to the result's dtype first, as torch rounds it.
at::Tensor& polygamma_out(int64_t n, const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  Unary op = floating_unary(self, out, "polygamma");
  if (out.numel() == 0) return out;
  const Dev& dev = op.dev;
  const devplug_dtype_t c = op.compute;
  if (n == 0) {
    dev.ew_into(DEVPLUG_OP_digamma, {op.x}, view_of(out));
    return out;
  }
  if (n > 1) {
    DTensor zeta = hurwitz_zeta(dev, n, dev.cast(op.x, DEVPLUG_DTYPE_FLOAT64));
    const devplug_dtype_t rounded = require_dtype(floating_result(self.scalar_type()), "polygamma");
    const double sign = n % 2 == 1 ? 1.0 : -1.0;
    const double factor = c == DEVPLUG_DTYPE_FLOAT64
                              ? sign * std::exp(std::lgamma(static_cast<double>(n) + 1))
                              : static_cast<double>(static_cast<float>(sign) *
                                                    std::exp(std::lgamma(static_cast<float>(n) + 1.f)));
    dev.ew_into(DEVPLUG_OP_mul, {dev.scalar(c, factor), dev.cast(dev.cast(zeta, rounded), c)}, view_of(out));
    return out;
  }
  const double pi = c == DEVPLUG_DTYPE_FLOAT64 ? c10::pi<double> : static_cast<double>(c10::pi<float>);
  const auto constant = [&](double v) { return dev.scalar(c, v); };
  const auto inverse_square = [&](const DTensor& v) {
    return dev.ew(DEVPLUG_OP_div, {constant(1), dev.ew(DEVPLUG_OP_mul, {v, v})});
  };
  DTensor reflect = dev.ew(DEVPLUG_OP_lt, {op.x, constant(0.5)});
  DTensor sin_pi_x = dev.ew(DEVPLUG_OP_sin, {dev.ew(DEVPLUG_OP_mul, {constant(pi), op.x})});
  DTensor pole = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {constant(pi), constant(pi)}),
                                         dev.ew(DEVPLUG_OP_mul, {sin_pi_x, sin_pi_x})});
  DTensor result =
      dev.ew(DEVPLUG_OP_where, {reflect, dev.ew(DEVPLUG_OP_sub, {constant(0), pole}), constant(0)});
  DTensor x = dev.ew(DEVPLUG_OP_where, {reflect, dev.ew(DEVPLUG_OP_sub, {constant(1), op.x}), op.x});
  for (int i = 0; i < 6; ++i) {
    result = dev.ew(DEVPLUG_OP_add, {result, inverse_square(x)});
    x = dev.ew(DEVPLUG_OP_add, {x, constant(1)});
  }
  DTensor ixx = inverse_square(x);
  DTensor series =
      dev.ew(DEVPLUG_OP_sub, {constant(1. / 30), dev.ew(DEVPLUG_OP_mul, {ixx, constant(1. / 42)})});
  series = dev.ew(DEVPLUG_OP_mul,
                  {ixx, dev.ew(DEVPLUG_OP_sub, {constant(1. / 6), dev.ew(DEVPLUG_OP_mul, {ixx, series})})});
  DTensor head =
      dev.ew(DEVPLUG_OP_add,
             {constant(1), dev.ew(DEVPLUG_OP_div, {constant(1), dev.ew(DEVPLUG_OP_mul, {constant(2), x})})});
  result =
      dev.ew(DEVPLUG_OP_add, {result, dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_add, {head, series}), x})});
  dev.ew_into(DEVPLUG_OP_where, {reflect, dev.ew(DEVPLUG_OP_neg, {result}), result}, view_of(out));
  return out;
}

// The largest finite value of floating `dtype` and its negative (torch's defaults for
// nan_to_num's infinities).
double finite_max(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return static_cast<double>(std::numeric_limits<c10::Half>::max());
    case at::kBFloat16:
      return static_cast<double>(std::numeric_limits<c10::BFloat16>::max());
    case at::kFloat:
      return static_cast<double>(std::numeric_limits<float>::max());
    default:
      return std::numeric_limits<double>::max();
  }
}

// torch's CPU: NaN, +Inf and -Inf replaced (by 0 and the dtype's largest and lowest finite
// values unless given), in the input's dtype; integer and bool tensors are copied.
at::Tensor& nan_to_num_out(const at::Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                           std::optional<double> neginf, at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "nan_to_num: dtype of out: ", out.scalar_type(),
              " should be same as input: ", self.scalar_type());
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  DTensor x = view_of(self);
  if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/true)) {
    dev.copy(x, view_of(out));
    return out;
  }
  const devplug_dtype_t dtype = x.dtype();
  const double inf = std::numeric_limits<double>::infinity();
  const double largest = finite_max(self.scalar_type());
  DTensor value = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_eq, {x, dev.scalar(dtype, -inf)}),
                                            dev.scalar(dtype, neginf.value_or(-largest)), x});
  value = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_eq, {x, dev.scalar(dtype, inf)}),
                                    dev.scalar(dtype, posinf.value_or(largest)), value});
  dev.ew_into(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_isnan, {x}), dev.scalar(dtype, nan.value_or(0.0)), value},
              view_of(out));
  return out;
}

// torch's CPU mvlgamma.out: its functional form (composite in torch: arange, add, lgamma,
// sum, which run on the device), cast into out.
at::Tensor& mvlgamma_out(const at::Tensor& self, int64_t p, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  const at::Tensor result = at::mvlgamma(self, p);
  TORCH_CHECK(at::can_cast(result.scalar_type(), out.scalar_type()), "mvlgamma: result type ",
              self.scalar_type(), " can't be cast to the desired output type ", result.scalar_type());
  prepare_out(out, result.sizes());
  if (result.numel() > 0) dev.copy(dev.cast(view_of(result), view_of(out).dtype()), view_of(out));
  return out;
}

// rsub(self, other, alpha) is other - alpha * self: torch's sub with the operands swapped.
at::Tensor rsub_tensor(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return at::sub(other, self, alpha);
}

}  // namespace

void register_pointwise_ops(Table& t) {
  const auto B = Impl::bridge;
  t.add("logaddexp.out", B, "sub, abs, neg, exp, log1p, maximum, add, isinf, eq, where",
        DEVPLUG_KERNEL(logaddexp_out));
  t.add("logaddexp2.out", B, "sub, abs, neg, exp2, log1p, mul, maximum, add, isinf, eq, where",
        DEVPLUG_KERNEL(logaddexp2_out));
  t.add("xlogy.OutTensor", B, "log, mul, eq, isnan, where", DEVPLUG_KERNEL(xlogy_tensor_out));
  t.add("xlogy.Tensor", B, "log, mul, eq, isnan, where", DEVPLUG_KERNEL(xlogy_fn));
  t.add("xlogy_.Tensor", B, "log, mul, eq, isnan, where", DEVPLUG_KERNEL(xlogy_tensor_));
  t.add("heaviside.out", B, "eq, gt, where", DEVPLUG_KERNEL(heaviside_out));
  t.add("frac.out", B, "trunc, sub", DEVPLUG_KERNEL(frac_out));
  t.add("round.decimals_out", B, "mul, round, div", DEVPLUG_KERNEL(round_decimals_out));
  t.add("round.decimals", B, "mul, round, div", DEVPLUG_KERNEL(round_decimals_fn));
  t.add("round_.decimals", B, "mul, round, div", DEVPLUG_KERNEL(round_decimals_));
  t.add("rsub.Tensor", B, "sub", DEVPLUG_KERNEL(rsub_tensor));
  t.add("conj_physical.out", B, "copy_strided", DEVPLUG_KERNEL(conj_physical_out));
  t.add("conj_physical_", B, "(nothing: a real tensor is its own conjugate)", DEVPLUG_KERNEL(conj_physical_));
  t.add("mvlgamma.out", B, "iota, add, lgamma, sum, gt, all", DEVPLUG_KERNEL(mvlgamma_out));
  t.add("special_xlog1py.out", B, "log1p, mul, eq, isnan, where", DEVPLUG_KERNEL(xlog1py_out));
  t.add("sinc.out", B, "mul, sin, div, eq, where", DEVPLUG_KERNEL(sinc_out));
  t.add("special_entr.out", B, "neg, log, mul, eq, gt, isnan, where", DEVPLUG_KERNEL(entr_out));
  t.add("logit.out", B, "sub, lt, gt, where, div, log, eq", DEVPLUG_KERNEL(logit_out));
  t.add("logit", B, "sub, lt, gt, where, div, log, eq", DEVPLUG_KERNEL(logit));
  t.add("logit_", B, "sub, lt, gt, where, div, log, eq", DEVPLUG_KERNEL(logit_));
  t.add("logit_backward.grad_input", B, "sub, mul, div, eq, bitwise_or, lt, gt, where",
        DEVPLUG_KERNEL(logit_backward_out));
  t.add("i0.out", B, "abs, mul, sub, add, div, sqrt, exp, le, where", DEVPLUG_KERNEL(bessel_out<Bessel::i0>));
  t.add("special_i0e.out", B, "abs, mul, sub, add, div, sqrt, le, where",
        DEVPLUG_KERNEL(bessel_out<Bessel::i0e>));
  t.add("special_i1.out", B, "abs, mul, sub, add, div, sqrt, exp, le, lt, neg, where",
        DEVPLUG_KERNEL(bessel_out<Bessel::i1>));
  t.add("special_i1e.out", B, "abs, mul, sub, add, div, sqrt, le, lt, neg, where",
        DEVPLUG_KERNEL(bessel_out<Bessel::i1e>));
  t.add("angle.out", B, "lt, isnan, where", DEVPLUG_KERNEL(angle_out));
  t.add("angle", B, "lt, isnan, where", DEVPLUG_KERNEL(angle));
  t.add("nan_to_num.out", B, "eq, isnan, where, copy_strided", DEVPLUG_KERNEL(nan_to_num_out));
  t.add("polygamma.out", B,
        "digamma (n = 0); mul, sin, div, sub, add, lt, where, neg (n = 1); pow, add, le, floor, amin, where, "
        "mul, div (n >= 2)",
        DEVPLUG_KERNEL(polygamma_out));
}

}  // namespace devplug::bridge
