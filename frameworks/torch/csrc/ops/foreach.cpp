// SPDX-License-Identifier: Apache-2.0
// The _foreach_* ops that torch.optim's SGD, Adam and AdamW (foreach=True), clip_grad_norm_
// (foreach=True) and the GradScaler call, as one aten dispatch each. Without a kernel here a
// foreach op runs torch's slow path (at::native::foreach_tensor_*_slow, what torch's CUDA runs
// for the calls its fused kernels do not take), which dispatches one aten op per tensor; an
// optimizer step then makes several aten calls per parameter. These kernels run the same
// per-tensor kernels of the bridge (elementwise.hpp, reduce.hpp, tensor.hpp) in a loop, as C++
// calls: per tensor the same devplug ops as before, without the dispatch.
//
// The loop is the slow path without its dispatches, so it keeps the slow path's semantics:
// tensor i is computed by the kernel aten would have dispatched it to, in list order, so
// results, promotion, mixed dtypes within a list, aliasing between the lists (self in both)
// and an error part-way (the tensors before it already updated) are torch's. That holds when
// each per-tensor op would have reached a bridge kernel, which `takes` checks before the loop:
//   - the lists are non-empty and of one length, as is a scalar list;
//   - every tensor of the first list (the one written, or whose shapes the results take) is a
//     devplug tensor, and every tensor of the other lists a devplug tensor or a 0-dim CPU
//     tensor (which the per-tensor kernels take as a number).
// A call that fails the check runs the slow path whole: it raises torch's own errors (lists of
// different lengths, an empty list) and runs a CPU tensor's element on torch's CPU, as torch
// does. A per-tensor kernel that leaves its call to torch's CPU (OnCpu: a dtype its devplug op
// does not allow), which it does before writing anything, hands that tensor and the rest of
// the lists to the slow path, whose per-tensor dispatch falls back to the CPU, counted.
//
// One template (Foreach) makes every kernel from the overload's slow-path function and what one
// index runs. A call's tensors may sit on different devplug devices (each per-tensor kernel
// finds its own). The devplug ops themselves are not fused across the list: that would take a
// devplug op over lists of tensors, which devplug does not have.
#include <ATen/native/ForeachUtils.h>
#include <ATen/ops/_foreach_abs_native.h>
#include <ATen/ops/_foreach_acos_native.h>
#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_addcdiv_native.h>
#include <ATen/ops/_foreach_addcmul_native.h>
#include <ATen/ops/_foreach_asin_native.h>
#include <ATen/ops/_foreach_atan_native.h>
#include <ATen/ops/_foreach_ceil_native.h>
#include <ATen/ops/_foreach_clamp_max_native.h>
#include <ATen/ops/_foreach_clamp_min_native.h>
#include <ATen/ops/_foreach_cos_native.h>
#include <ATen/ops/_foreach_cosh_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_erf_native.h>
#include <ATen/ops/_foreach_erfc_native.h>
#include <ATen/ops/_foreach_exp_native.h>
#include <ATen/ops/_foreach_expm1_native.h>
#include <ATen/ops/_foreach_floor_native.h>
#include <ATen/ops/_foreach_lerp_native.h>
#include <ATen/ops/_foreach_lgamma_native.h>
#include <ATen/ops/_foreach_log10_native.h>
#include <ATen/ops/_foreach_log1p_native.h>
#include <ATen/ops/_foreach_log2_native.h>
#include <ATen/ops/_foreach_log_native.h>
#include <ATen/ops/_foreach_maximum_native.h>
#include <ATen/ops/_foreach_minimum_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <ATen/ops/_foreach_neg_native.h>
#include <ATen/ops/_foreach_norm_native.h>
#include <ATen/ops/_foreach_pow_native.h>
#include <ATen/ops/_foreach_reciprocal_native.h>
#include <ATen/ops/_foreach_round_native.h>
#include <ATen/ops/_foreach_rsqrt_native.h>
#include <ATen/ops/_foreach_sign_native.h>
#include <ATen/ops/_foreach_sin_native.h>
#include <ATen/ops/_foreach_sinh_native.h>
#include <ATen/ops/_foreach_sqrt_native.h>
#include <ATen/ops/_foreach_sub_native.h>
#include <ATen/ops/_foreach_tan_native.h>
#include <ATen/ops/_foreach_tanh_native.h>
#include <ATen/ops/_foreach_trunc_native.h>
#include <ATen/ops/_foreach_zero_native.h>

#include <iterator>
#include <optional>
#include <type_traits>
#include <vector>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"
#include "ops/reduce.hpp"
#include "ops/tensor.hpp"

namespace devplug::bridge {
namespace {

using Tensors = std::vector<at::Tensor>;
using Scalars = at::ArrayRef<at::Scalar>;

bool on_devplug(const at::Tensor& t) {
  return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1;
}

// What the loop asks of each argument after the first list, by its type (the file comment says
// why): another list as long, of devplug tensors or 0-dim CPU tensors; a scalar list as long;
// the one tensor of a Tensor overload 0-dim, on devplug or the CPU (the slow path raises
// torch's error for any other); numbers and dtypes as they come.
bool takes_arg(size_t n, at::TensorList list) {
  if (list.size() != n) return false;
  for (const at::Tensor& t : list)
    if (!on_devplug(t) && !(t.defined() && is_cpu_scalar(t))) return false;
  return true;
}
bool takes_arg(size_t n, Scalars scalars) { return scalars.size() == n; }
bool takes_arg(size_t /*n*/, const at::Tensor& t) {
  return t.defined() && t.dim() == 0 && (on_devplug(t) || t.device().is_cpu());
}
template <typename T>
bool takes_arg(size_t /*n*/, const T& /*number or dtype*/) {
  return true;
}
// Whether the loop runs a call: its first list `self` non-empty and all on devplug, and `args`.
template <typename... A>
bool takes(at::TensorList self, const A&... args) {
  if (self.empty()) return false;
  for (const at::Tensor& t : self)
    if (!on_devplug(t)) return false;
  return (takes_arg(self.size(), args) && ...);
}

// An argument at index `i` (a list's element; a number or a single tensor as it is), and the
// argument from index `i` on.
const at::Tensor& at_index(at::TensorList list, size_t i) { return list[i]; }
const at::Scalar& at_index(Scalars scalars, size_t i) { return scalars[i]; }
template <typename T>
const T& at_index(const T& arg, size_t /*i*/) {
  return arg;
}
at::TensorList from_index(at::TensorList list, size_t i) { return list.slice(i); }
Scalars from_index(Scalars scalars, size_t i) { return scalars.slice(i); }
template <typename T>
const T& from_index(const T& arg, size_t /*i*/) {
  return arg;
}

// The kernel of one foreach overload. `Slow` is torch's slow path of the overload, whose
// signature the kernel has; `Each` is what one index runs, Each(self[i], the other arguments at
// i): a per-tensor kernel of the bridge, in place, or returning the index's new tensor. A call
// the loop does not take runs `Slow` whole; from the first index whose kernel leaves its call
// to torch's CPU (OnCpu, thrown before that kernel writes anything) on, `Slow` runs the tails
// of the lists.
template <auto Slow, auto Each>
struct Foreach;
template <typename R, typename... A, R (*Slow)(at::TensorList, A...), auto Each>
struct Foreach<Slow, Each> {
  static R kernel(at::TensorList self, A... args) {
    if (!takes(self, args...)) return Slow(self, args...);
    const size_t n = self.size();
    [[maybe_unused]] std::conditional_t<std::is_void_v<R>, bool, R> results{};
    if constexpr (!std::is_void_v<R>) results.reserve(n);
    size_t i = 0;
    for (; i < n; ++i) {
      try {
        if constexpr (std::is_void_v<R>) {
          Each(self[i], at_index(args, i)...);
        } else {
          results.push_back(Each(self[i], at_index(args, i)...));
        }
      } catch (const OnCpu&) {
        break;  // the slow path runs the rest, below, once the exception is gone
      }
    }
    if constexpr (std::is_void_v<R>) {
      if (i < n) Slow(self.slice(i), from_index(args, i)...);
    } else {
      if (i < n) {
        R tail = Slow(self.slice(i), from_index(args, i)...);
        results.insert(results.end(), std::make_move_iterator(tail.begin()),
                       std::make_move_iterator(tail.end()));
      }
      return results;
    }
  }
};

// ---- what one index runs: the kernel its per-tensor aten op is registered with -----------------

// mul, div, pow: `t.op_(other)` and `t.op(other)`; with a number, torch's Scalar op, which it
// runs as the Tensor op of the number wrapped (for add and sub too).
template <devplug_op_t Op, BinaryKind K>
struct Binary {
  static void in(const at::Tensor& t, const at::Tensor& o) { binary_into(Op, t, o, t, K); }
  static at::Tensor out(const at::Tensor& t, const at::Tensor& o) { return binary(Op, t, o, K); }
  static void number_in(const at::Tensor& t, const at::Scalar& s) {
    binary_into(Op, t, wrap_scalar(s), t, K);
  }
  static at::Tensor number_out(const at::Tensor& t, const at::Scalar& s) {
    return binary(Op, t, wrap_scalar(s), K);
  }
};
// add and sub: with a tensor, alpha scales it.
template <devplug_op_t Op>
struct Alpha : Binary<Op, BinaryKind::promote> {
  static void in(const at::Tensor& t, const at::Tensor& o, const at::Scalar& alpha) {
    alpha_binary_into(Op, t, o, alpha, t);
  }
  static at::Tensor out(const at::Tensor& t, const at::Tensor& o, const at::Scalar& alpha) {
    return alpha_binary(Op, t, o, alpha);
  }
};
// clamp_min (which torch runs maximum as) and clamp_max (minimum), with a tensor or a number.
template <bool Min>
struct Clamp {
  static void in(const at::Tensor& t, const at::Tensor& o) {
    at::Tensor self = t;
    clamp_tensor_out(t, lo(o), hi(o), self);
  }
  static at::Tensor out(const at::Tensor& t, const at::Tensor& o) { return clamp_tensor_fn(t, lo(o), hi(o)); }
  static void number_in(const at::Tensor& t, const at::Scalar& s) {
    at::Tensor self = t;
    clamp_out(t, lo(s), hi(s), self);
  }
  static at::Tensor number_out(const at::Tensor& t, const at::Scalar& s) { return clamp_fn(t, lo(s), hi(s)); }

 private:
  template <typename T>
  static std::optional<T> lo(const T& bound) {
    return Min ? std::optional<T>(bound) : std::nullopt;
  }
  template <typename T>
  static std::optional<T> hi(const T& bound) {
    return Min ? std::nullopt : std::optional<T>(bound);
  }
};

using Add = Alpha<DEVPLUG_OP_add>;
using Sub = Alpha<DEVPLUG_OP_sub>;
using Mul = Binary<DEVPLUG_OP_mul, BinaryKind::promote>;
using Div = Binary<DEVPLUG_OP_div, BinaryKind::true_div>;
using Pow = Binary<DEVPLUG_OP_pow, BinaryKind::promote>;
using ClampMin = Clamp<true>;
using ClampMax = Clamp<false>;

template <devplug_op_t Op, UnaryKind K>
void unary_in(const at::Tensor& t) {
  unary_into(Op, t, t, K);
}
template <devplug_op_t Op, UnaryKind K>
at::Tensor unary_out(const at::Tensor& t) {
  return unary(Op, t, K);
}

void zero_in(const at::Tensor& t) {
  at::Tensor self = t;
  fill_scalar_(self, 0);
}

template <devplug_op_t Op>  // addcmul, addcdiv
void addc_in(const at::Tensor& t, const at::Tensor& t1, const at::Tensor& t2, const at::Scalar& value) {
  addc_into(Op, t, t1, t2, value, t);
}
template <devplug_op_t Op>
at::Tensor addc_out(const at::Tensor& t, const at::Tensor& t1, const at::Tensor& t2,
                    const at::Scalar& value) {
  return addc(Op, t, t1, t2, value);
}

void lerp_number_in(const at::Tensor& t, const at::Tensor& end, const at::Scalar& weight) {
  at::Tensor self = t;
  lerp_scalar_out(t, end, weight, self);
}
at::Tensor lerp_number_out(const at::Tensor& t, const at::Tensor& end, const at::Scalar& weight) {
  return lerp_scalar_fn(t, end, weight);
}
void lerp_in(const at::Tensor& t, const at::Tensor& end, const at::Tensor& weight) {
  at::Tensor self = t;
  lerp_tensor_out(t, end, weight, self);
}
at::Tensor lerp_out(const at::Tensor& t, const at::Tensor& end, const at::Tensor& weight) {
  return lerp_tensor_fn(t, end, weight);
}

// torch's linalg_vector_norm of the whole tensor.
at::Tensor norm_out(const at::Tensor& t, const at::Scalar& ord, std::optional<at::ScalarType> dtype) {
  return vector_norm(t, ord, std::nullopt, false, dtype);
}

// pow.ScalarAndTensor, number ** exponent[i] (torch's pow.Scalar per tensor), with the list
// first for Foreach.
Tensors scalar_pow_slow(at::TensorList exponent, const at::Scalar& self) {
  return at::native::foreach_scalar_pow_list_kernel_slow(self, exponent);
}
at::Tensor scalar_pow_out(const at::Tensor& exponent, const at::Scalar& self) {
  return binary(DEVPLUG_OP_pow, wrap_scalar(self), exponent, BinaryKind::promote);
}
Tensors scalar_pow(const at::Scalar& self, at::TensorList exponent) {
  return Foreach<&scalar_pow_slow, &scalar_pow_out>::kernel(exponent, self);
}

// addcmul's and addcdiv's Tensor overloads read their numbers on the host, as torch's slow
// path does (with its errors: a 1-dim contiguous CPU tensor as long as the lists), then run as
// the ScalarList overload (`ScalarListKernel`).
template <auto SlowTensor, auto ScalarListKernel>
auto addc_tensor(at::TensorList self, at::TensorList t1, at::TensorList t2, const at::Tensor& scalars) {
  if (!takes(self, t1, t2)) return SlowTensor(self, t1, t2, scalars);
  return ScalarListKernel(self, t1, t2, at::native::convert_tensor_to_scalar_list(scalars, self.size()));
}

// Registers `aten`, which runs as `via`, with the kernel Foreach<Slow, Each>.
template <auto Slow, auto Each>
void row(Table& t, const char* aten, const char* via) {
  t.add(aten, Impl::bridge, via, DEVPLUG_KERNEL(Foreach<Slow, Each>::kernel));
}

}  // namespace

void register_foreach_ops(Table& t) {
  namespace an = at::native;

  // The overloads of one binary op `name` with a number (Scalar, ScalarList), a list of tensors
  // (List) and one tensor (Tensor), with P's kernels and the slow-path functions torch names
  // after `slow` (clamp_min for maximum's).
#define DEVPLUG_FOREACH_NUMBER(name, slow, P, via)                                                           \
  row<&an::foreach_tensor_##slow##_scalar_kernel_slow, &P::number_out>(t, "_foreach_" name ".Scalar", via);  \
  row<&an::foreach_tensor_##slow##_scalar_kernel_slow_, &P::number_in>(t, "_foreach_" name "_.Scalar", via); \
  row<&an::foreach_tensor_##slow##_scalarlist_kernel_slow, &P::number_out>(                                  \
      t, "_foreach_" name ".ScalarList", via);                                                               \
  row<&an::foreach_tensor_##slow##_scalarlist_kernel_slow_, &P::number_in>(                                  \
      t, "_foreach_" name "_.ScalarList", via)
#define DEVPLUG_FOREACH_LIST(name, slow, P, via)                                                 \
  row<&an::foreach_tensor_##slow##_list_kernel_slow, &P::out>(t, "_foreach_" name ".List", via); \
  row<&an::foreach_tensor_##slow##_list_kernel_slow_, &P::in>(t, "_foreach_" name "_.List", via)
#define DEVPLUG_FOREACH_TENSOR(name, slow, P, via)                                                   \
  row<&an::foreach_tensor_##slow##_tensor_kernel_slow, &P::out>(t, "_foreach_" name ".Tensor", via); \
  row<&an::foreach_tensor_##slow##_tensor_kernel_slow_, &P::in>(t, "_foreach_" name "_.Tensor", via)
  DEVPLUG_FOREACH_NUMBER("add", add, Add, "add");
  DEVPLUG_FOREACH_LIST("add", add, Add, "add");
  DEVPLUG_FOREACH_TENSOR("add", add, Add, "add");
  DEVPLUG_FOREACH_NUMBER("sub", sub, Sub, "sub");
  DEVPLUG_FOREACH_LIST("sub", sub, Sub, "sub");
  DEVPLUG_FOREACH_NUMBER("mul", mul, Mul, "mul");
  DEVPLUG_FOREACH_LIST("mul", mul, Mul, "mul");
  DEVPLUG_FOREACH_TENSOR("mul", mul, Mul, "mul");
  DEVPLUG_FOREACH_NUMBER("div", div, Div, "div");
  DEVPLUG_FOREACH_LIST("div", div, Div, "div");
  DEVPLUG_FOREACH_TENSOR("div", div, Div, "div");
  DEVPLUG_FOREACH_NUMBER("pow", pow, Pow, "pow");
  DEVPLUG_FOREACH_LIST("pow", pow, Pow, "pow");
  const char* clamp = "clamp (number bounds, no promotion); else maximum, minimum";
  DEVPLUG_FOREACH_NUMBER("clamp_min", clamp_min, ClampMin, clamp);
  DEVPLUG_FOREACH_LIST("clamp_min", clamp_min, ClampMin, "maximum");
  DEVPLUG_FOREACH_NUMBER("maximum", clamp_min, ClampMin, clamp);
  DEVPLUG_FOREACH_LIST("maximum", clamp_min, ClampMin, "maximum");
  DEVPLUG_FOREACH_NUMBER("clamp_max", clamp_max, ClampMax, clamp);
  DEVPLUG_FOREACH_LIST("clamp_max", clamp_max, ClampMax, "minimum");
  DEVPLUG_FOREACH_NUMBER("minimum", clamp_max, ClampMax, clamp);
  DEVPLUG_FOREACH_LIST("minimum", clamp_max, ClampMax, "minimum");
#undef DEVPLUG_FOREACH_NUMBER
#undef DEVPLUG_FOREACH_LIST
#undef DEVPLUG_FOREACH_TENSOR
  t.add("_foreach_pow.ScalarAndTensor", Impl::bridge, "pow", DEVPLUG_KERNEL(scalar_pow));

  // addcmul and addcdiv: Scalar, ScalarList, Tensor.
#define DEVPLUG_FOREACH_ADDC(name, Op, via)                                                                  \
  row<&an::foreach_tensor_##name##_scalar_slow, &addc_out<Op>>(t, "_foreach_" #name ".Scalar", via);         \
  row<&an::foreach_tensor_##name##_scalar_slow_, &addc_in<Op>>(t, "_foreach_" #name "_.Scalar", via);        \
  row<&an::foreach_tensor_##name##_scalarlist_slow, &addc_out<Op>>(t, "_foreach_" #name ".ScalarList", via); \
  row<&an::foreach_tensor_##name##_scalarlist_slow_, &addc_in<Op>>(t, "_foreach_" #name "_.ScalarList",      \
                                                                   via);                                     \
  t.add("_foreach_" #name ".Tensor", Impl::bridge, via,                                                      \
        DEVPLUG_KERNEL(                                                                                      \
            addc_tensor<&an::foreach_tensor_##name##_tensor_slow,                                            \
                        &Foreach<&an::foreach_tensor_##name##_scalarlist_slow, &addc_out<Op>>::kernel>));    \
  t.add("_foreach_" #name "_.Tensor", Impl::bridge, via,                                                     \
        DEVPLUG_KERNEL(                                                                                      \
            addc_tensor<&an::foreach_tensor_##name##_tensor_slow_,                                           \
                        &Foreach<&an::foreach_tensor_##name##_scalarlist_slow_, &addc_in<Op>>::kernel>))
  DEVPLUG_FOREACH_ADDC(addcmul, DEVPLUG_OP_mul, "mul, add");
  DEVPLUG_FOREACH_ADDC(addcdiv, DEVPLUG_OP_div, "mul, div, add");
#undef DEVPLUG_FOREACH_ADDC

  row<&an::foreach_tensor_lerp_list_kernel_slow, &lerp_number_out>(t, "_foreach_lerp.Scalar",
                                                                   "sub, mul, add");
  row<&an::foreach_tensor_lerp_list_kernel_slow_, &lerp_number_in>(t, "_foreach_lerp_.Scalar",
                                                                   "sub, mul, add");
  row<&an::foreach_tensor_lerp_scalarlist_kernel_slow, &lerp_number_out>(t, "_foreach_lerp.ScalarList",
                                                                         "sub, mul, add");
  row<&an::foreach_tensor_lerp_scalarlist_kernel_slow_, &lerp_number_in>(t, "_foreach_lerp_.ScalarList",
                                                                         "sub, mul, add");
  row<&an::foreach_tensor_ternary_lerp_slow, &lerp_out>(t, "_foreach_lerp.List", "sub, mul, add, where");
  row<&an::foreach_tensor_ternary_lerp_slow_, &lerp_in>(t, "_foreach_lerp_.List", "sub, mul, add, where");

  row<&an::foreach_tensor_norm_slow, &norm_out>(t, "_foreach_norm.Scalar",
                                                "abs, mul, sum, sqrt, pow, amax, amin");
  row<&an::foreach_tensor_zero_slow_, &zero_in>(t, "_foreach_zero_", "fill");

  // Every unary op the bridge has a kernel for, functional and in place.
  using U = UnaryKind;
#define DEVPLUG_FOREACH_UNARY(name, K)                                                                   \
  row<&an::foreach_tensor_##name##_slow, &unary_out<DEVPLUG_OP_##name, K>>(t, "_foreach_" #name, #name); \
  row<&an::foreach_tensor_##name##_slow_, &unary_in<DEVPLUG_OP_##name, K>>(t, "_foreach_" #name "_", #name)
  DEVPLUG_FOREACH_UNARY(abs, U::same);
  DEVPLUG_FOREACH_UNARY(neg, U::same);
  DEVPLUG_FOREACH_UNARY(sign, U::same);
  DEVPLUG_FOREACH_UNARY(ceil, U::rounding);
  DEVPLUG_FOREACH_UNARY(floor, U::rounding);
  DEVPLUG_FOREACH_UNARY(round, U::rounding);
  DEVPLUG_FOREACH_UNARY(trunc, U::rounding);
  DEVPLUG_FOREACH_UNARY(exp, U::floating);
  DEVPLUG_FOREACH_UNARY(expm1, U::floating);
  DEVPLUG_FOREACH_UNARY(log, U::floating);
  DEVPLUG_FOREACH_UNARY(log2, U::floating);
  DEVPLUG_FOREACH_UNARY(log10, U::floating);
  DEVPLUG_FOREACH_UNARY(log1p, U::floating);
  DEVPLUG_FOREACH_UNARY(sqrt, U::floating);
  DEVPLUG_FOREACH_UNARY(rsqrt, U::floating);
  DEVPLUG_FOREACH_UNARY(reciprocal, U::floating);
  DEVPLUG_FOREACH_UNARY(sin, U::floating);
  DEVPLUG_FOREACH_UNARY(cos, U::floating);
  DEVPLUG_FOREACH_UNARY(tan, U::floating);
  DEVPLUG_FOREACH_UNARY(asin, U::floating);
  DEVPLUG_FOREACH_UNARY(acos, U::floating);
  DEVPLUG_FOREACH_UNARY(atan, U::floating);
  DEVPLUG_FOREACH_UNARY(sinh, U::floating);
  DEVPLUG_FOREACH_UNARY(cosh, U::floating);
  DEVPLUG_FOREACH_UNARY(tanh, U::floating);
  DEVPLUG_FOREACH_UNARY(erf, U::floating);
  DEVPLUG_FOREACH_UNARY(erfc, U::floating);
  DEVPLUG_FOREACH_UNARY(lgamma, U::floating);
#undef DEVPLUG_FOREACH_UNARY
}

}  // namespace devplug::bridge
