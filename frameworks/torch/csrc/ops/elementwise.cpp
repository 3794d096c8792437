// SPDX-License-Identifier: Apache-2.0
// Elementwise ops: the devplug unary, binary, compare and ternary prims with torch's
// broadcasting and type promotion, run through devplug_elementwise (the dispatcher
// broadcasts as stride-0 views and casts as PyTorch does). torch decides the result dtype
// (at::native::result_type, which knows about wrapped Python numbers; called directly, not
// dispatched, so a kernel records no nested aten::result_type); CPU scalars become 0-dim
// device tensors of that dtype; devplug does the rest.
#include <ATen/ExpandUtils.h>
#include <ATen/Functions.h>
#include <ATen/ScalarOps.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/result_type_native.h>
#include <c10/core/ScalarType.h>

#include <limits>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {

// ---- the shared core -----------------------------------------------------------------------

void check_can_cast(at::ScalarType from, const at::Tensor& out) {
  TORCH_CHECK(c10::canCast(from, out.scalar_type()), "result type ", from,
              " can't be cast to the desired output type ", out.scalar_type());
}

void prepare_out(const at::Tensor& out, at::IntArrayRef shape) { at::native::resize_output(out, shape); }

void prepare_out(const at::Tensor& out, at::IntArrayRef shape,
                 std::initializer_list<const at::Tensor*> inputs) {
  for (const at::Tensor* t : inputs) {
    if (t != nullptr && t->is_same(out)) {
      TORCH_CHECK(out.sizes().equals(shape), "output with shape ", out.sizes(),
                  " doesn't match the broadcast shape ", shape);
      return;
    }
  }
  prepare_out(out, shape);
}

at::Tensor new_like_broadcast(const Dev& dev, std::initializer_list<const at::Tensor*> inputs,
                              at::ScalarType dtype) {
  std::vector<int64_t> shape;
  bool first = true;
  for (const at::Tensor* t : inputs) {
    shape = first ? t->sizes().vec() : at::infer_size(shape, t->sizes());
    first = false;
  }
  // A single full-size input keeps its layout (torch's preserve_format for elementwise).
  for (const at::Tensor* t : inputs)
    if (t->device().type() == c10::DeviceType::PrivateUse1 && t->sizes().vec() == shape &&
        t->is_non_overlapping_and_dense())
      return empty_like_torch(*t, dtype);
  return empty_torch(dev, shape, dtype);
}

void fallback_unless_elementwise_takes(devplug_op_t op, at::ScalarType dtype) {
  const devplug_op_info_t* info = devplug_op_info(op);
  if (info != nullptr && (info->dtypes & ~DEVPLUG_DTYPES_FLOAT) == 0) return;
  fallback_unless_allowed(op, dtype);
}

void binary_into(devplug_op_t op, const at::Tensor& a, const at::Tensor& b, const at::Tensor& out,
                 BinaryKind kind) {
  if (out.is_same(a) || out.is_same(b)) prepare_out(out, at::infer_size(a.sizes(), b.sizes()), {&a, &b});
  Dev dev = Dev::of({&a, &b, &out});
  at::ScalarType common = at::native::result_type(a, b);
  if (kind == BinaryKind::true_div && c10::isIntegralType(common, /*includeBool=*/true))
    common = default_float();
  fallback_unless_elementwise_takes(op, common);
  if (kind == BinaryKind::promote || kind == BinaryKind::true_div) check_can_cast(common, out);
  const devplug_dtype_t c = require_dtype(common, "the operands' common dtype");
  DTensor da = dev.operand(a, c), db = dev.operand(b, c);
  if (kind == BinaryKind::true_div) {
    da = dev.cast(da, c);
    db = dev.cast(db, c);
  }
  dev.ew_into(op, {da, db}, view_of(out));
}

at::Tensor binary(devplug_op_t op, const at::Tensor& a, const at::Tensor& b, BinaryKind kind) {
  Dev dev = Dev::of({&a, &b});
  at::ScalarType type = at::native::result_type(a, b);
  if (kind == BinaryKind::true_div && c10::isIntegralType(type, true)) type = default_float();
  if (kind == BinaryKind::compare) type = at::kBool;
  at::Tensor out = new_like_broadcast(dev, {&a, &b}, type);
  binary_into(op, a, b, out, kind);
  return out;
}

at::ScalarType unary_result(UnaryKind kind, at::ScalarType in) {
  switch (kind) {
    case UnaryKind::floating:
      return c10::isIntegralType(in, true) ? default_float() : in;
    case UnaryKind::to_bool:
      return at::kBool;
    default:
      return in;
  }
}

void unary_into(devplug_op_t op, const at::Tensor& self, const at::Tensor& out, UnaryKind kind) {
  Dev dev = Dev::of({&self, &out});
  if (!(kind == UnaryKind::rounding && c10::isIntegralType(self.scalar_type(), true)))
    fallback_unless_elementwise_takes(op, self.scalar_type());
  const at::ScalarType result = unary_result(kind, self.scalar_type());
  if (kind != UnaryKind::to_bool) check_can_cast(result, out);
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return;
  if (kind == UnaryKind::rounding && c10::isIntegralType(self.scalar_type(), true)) {
    dev.copy(dev.cast(view_of(self), view_of(out).dtype()), view_of(out));  // integers are already integral
    return;
  }
  dev.ew_into(op, {view_of(self)}, view_of(out));
}

at::Tensor unary(devplug_op_t op, const at::Tensor& self, UnaryKind kind) {
  at::Tensor out = empty_like_torch(self, unary_result(kind, self.scalar_type()));
  unary_into(op, self, out, kind);
  return out;
}

void alpha_binary_into(devplug_op_t op, const at::Tensor& self, const at::Tensor& other,
                       const at::Scalar& alpha, const at::Tensor& out) {
  prepare_out(out, at::infer_size(self.sizes(), other.sizes()), {&self, &other});
  if (alpha.equal(1)) {
    binary_into(op, self, other, out, BinaryKind::promote);
    return;
  }
  Dev dev = Dev::of({&self, &other, &out});
  const at::ScalarType common = at::native::result_type(self, other);
  fallback_unless_elementwise_takes(op, common);
  check_can_cast(common, out);
  const devplug_dtype_t c = require_dtype(common, "the operands' common dtype");
  DTensor scaled = dev.ew(DEVPLUG_OP_mul, {dev.operand(other, c), dev.scalar(c, alpha)});
  dev.ew_into(op, {dev.operand(self, c), scaled}, view_of(out));
}

at::Tensor alpha_binary(devplug_op_t op, const at::Tensor& self, const at::Tensor& other,
                        const at::Scalar& alpha) {
  Dev dev = Dev::of({&self, &other});
  at::Tensor out = new_like_broadcast(dev, {&self, &other}, at::native::result_type(self, other));
  alpha_binary_into(op, self, other, alpha, out);
  return out;
}

// ---- families: functional, in-place and out= variants from one op -----------------------

namespace {

template <devplug_op_t Op, UnaryKind K>
at::Tensor& unary_out(const at::Tensor& self, at::Tensor& out) {
  unary_into(Op, self, out, K);
  return out;
}
template <devplug_op_t Op, UnaryKind K>
at::Tensor unary_fn(const at::Tensor& self) {
  return unary(Op, self, K);
}
template <devplug_op_t Op, UnaryKind K>
at::Tensor& unary_inplace(at::Tensor& self) {
  unary_into(Op, self, self, K);
  return self;
}

template <devplug_op_t Op, UnaryKind K>
void unary_family(Table& t, const std::string& name, Impl impl = Impl::prim) {
  const char* via = devplug_op_name(Op);
  t.add(name.c_str(), impl, via, DEVPLUG_KERNEL(unary_fn<Op, K>));
  t.add((name + ".out").c_str(), impl, via, DEVPLUG_KERNEL(unary_out<Op, K>));
  if (K != UnaryKind::to_bool) t.add((name + "_").c_str(), impl, via, DEVPLUG_KERNEL(unary_inplace<Op, K>));
}

template <devplug_op_t Op>
at::Tensor& alpha_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                      at::Tensor& out) {
  alpha_binary_into(Op, self, other, alpha, out);
  return out;
}
template <devplug_op_t Op>
at::Tensor alpha_fn(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return alpha_binary(Op, self, other, alpha);
}
template <devplug_op_t Op>
at::Tensor& alpha_inplace(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return alpha_out<Op>(self, other, alpha, self);
}

template <devplug_op_t Op, BinaryKind K>
at::Tensor& binary_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  prepare_out(out, at::infer_size(self.sizes(), other.sizes()), {&self, &other});
  binary_into(Op, self, other, out, K);
  return out;
}
template <devplug_op_t Op, BinaryKind K>
at::Tensor binary_fn(const at::Tensor& self, const at::Tensor& other) {
  return binary(Op, self, other, K);
}
template <devplug_op_t Op, BinaryKind K>
at::Tensor& binary_inplace(at::Tensor& self, const at::Tensor& other) {
  binary_into(Op, self, other, self, K);
  return self;
}
template <devplug_op_t Op, BinaryKind K>
at::Tensor& binary_scalar_out(const at::Tensor& self, const at::Scalar& other, at::Tensor& out) {
  return binary_out<Op, K>(self, wrap_scalar(other), out);
}
template <devplug_op_t Op, BinaryKind K>
at::Tensor binary_scalar_fn(const at::Tensor& self, const at::Scalar& other) {
  return binary(Op, self, wrap_scalar(other), K);
}
template <devplug_op_t Op, BinaryKind K>
at::Tensor& binary_scalar_inplace(at::Tensor& self, const at::Scalar& other) {
  binary_into(Op, self, wrap_scalar(other), self, K);
  return self;
}
template <devplug_op_t Op, BinaryKind K>
at::Tensor binary_scalar_tensor_fn(const at::Scalar& self, const at::Tensor& other) {
  return binary(Op, wrap_scalar(self), other, K);
}
template <devplug_op_t Op, BinaryKind K>
at::Tensor& binary_scalar_tensor_out(const at::Scalar& self, const at::Tensor& other, at::Tensor& out) {
  return binary_out<Op, K>(wrap_scalar(self), other, out);
}

// Registers `base` (functional), `base_` and `out_name` for Op, with the given overload
// suffix on the Tensor variants.
template <devplug_op_t Op, BinaryKind K>
void binary_family(Table& t, const std::string& functional, const std::string& inplace,
                   const std::string& out) {
  const char* via = devplug_op_name(Op);
  t.add(functional.c_str(), Impl::prim, via, DEVPLUG_KERNEL(binary_fn<Op, K>));
  if (!inplace.empty()) t.add(inplace.c_str(), Impl::prim, via, DEVPLUG_KERNEL(binary_inplace<Op, K>));
  t.add(out.c_str(), Impl::prim, via, DEVPLUG_KERNEL(binary_out<Op, K>));
}

// ---- division with rounding modes ------------------------------------------------------

// Floor division as torch computes it (div_floor_floating / div_floor_integer): exact for
// integers, and for floats the quotient of a - fmod(a, b), rounded to the nearest integer
// at or below the true quotient.
DTensor floor_divide(const Dev& dev, const DTensor& a, const DTensor& b) {
  const devplug_dtype_t dtype = a.dtype();
  DTensor mod = dev.ew(DEVPLUG_OP_fmod, {a, b});
  DTensor zero = dev.scalar(dtype, 0);
  // The remainder has the wrong sign when it is non-zero and its sign differs from b's.
  DTensor wrong =
      dev.ew(DEVPLUG_OP_bitwise_and,
             {dev.ew(DEVPLUG_OP_ne, {mod, zero}),
              dev.ew(DEVPLUG_OP_ne, {dev.ew(DEVPLUG_OP_lt, {b, zero}), dev.ew(DEVPLUG_OP_lt, {mod, zero})})});
  DTensor one = dev.scalar(dtype, 1);
  if (!(DEVPLUG_DTYPE_BIT(dtype) & DEVPLUG_DTYPES_FLOAT)) {
    DTensor q = dev.ew(DEVPLUG_OP_div, {a, b});
    return dev.ew(DEVPLUG_OP_where, {wrong, dev.ew(DEVPLUG_OP_sub, {q, one}), q});
  }
  DTensor div = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_sub, {a, mod}), b});
  div = dev.ew(DEVPLUG_OP_where, {wrong, dev.ew(DEVPLUG_OP_sub, {div, one}), div});
  DTensor floor = dev.ew(DEVPLUG_OP_floor, {div});
  DTensor half = dev.scalar(dtype, 0.5);
  floor = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_gt, {dev.ew(DEVPLUG_OP_sub, {div, floor}), half}),
                                    dev.ew(DEVPLUG_OP_add, {floor, one}), floor});
  DTensor plain = dev.ew(DEVPLUG_OP_div, {a, b});
  DTensor signed_zero = dev.ew(DEVPLUG_OP_copysign, {zero.expand(plain.shape()), plain});
  DTensor result = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_eq, {div, zero}), signed_zero, floor});
  return dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_eq, {b, zero}), plain, result});
}

at::Tensor& div_mode_out(const at::Tensor& self, const at::Tensor& other,
                         std::optional<std::string_view> mode, at::Tensor& out) {
  prepare_out(out, at::infer_size(self.sizes(), other.sizes()), {&self, &other});
  if (!mode.has_value()) {
    binary_into(DEVPLUG_OP_div, self, other, out, BinaryKind::true_div);
    return out;
  }
  TORCH_CHECK(*mode == "trunc" || *mode == "floor",
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
              "but found '",
              *mode, "'");
  Dev dev = Dev::of({&self, &other, &out});
  const at::ScalarType common = at::native::result_type(self, other);
  fallback_unless_elementwise_takes(DEVPLUG_OP_fmod, common);
  check_can_cast(common, out);
  const devplug_dtype_t c = require_dtype(common, "the operands' common dtype");
  DTensor a = dev.cast(dev.operand(self, c), c), b = dev.cast(dev.operand(other, c), c);
  const bool floating = DEVPLUG_DTYPE_BIT(c) & DEVPLUG_DTYPES_FLOAT;
  auto rounded = [&]() -> DTensor {
    if (*mode == "floor") return floor_divide(dev, a, b);
    DTensor q = dev.ew(DEVPLUG_OP_div, {a, b});  // integers truncate already
    return floating ? dev.ew(DEVPLUG_OP_trunc, {q}) : q;
  };
  DTensor result = rounded();
  dev.copy(dev.cast(result.expand(view_of(out).shape()), view_of(out).dtype()), view_of(out));
  return out;
}
at::Tensor& floor_divide_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return div_mode_out(self, other, "floor", out);
}
at::Tensor div_mode(const at::Tensor& self, const at::Tensor& other, std::optional<std::string_view> mode) {
  Dev dev = Dev::of({&self, &other});
  at::ScalarType type = at::native::result_type(self, other);
  if (!mode.has_value() && c10::isIntegralType(type, true)) type = default_float();
  at::Tensor out = new_like_broadcast(dev, {&self, &other}, type);
  return div_mode_out(self, other, mode, out);
}
at::Tensor& div_mode_inplace(at::Tensor& self, const at::Tensor& other,
                             std::optional<std::string_view> mode) {
  return div_mode_out(self, other, mode, self);
}

at::Tensor floor_divide_fn(const at::Tensor& self, const at::Tensor& other) {
  return div_mode(self, other, "floor");
}
at::Tensor& floor_divide_inplace(at::Tensor& self, const at::Tensor& other) {
  return div_mode_out(self, other, "floor", self);
}

// ---- logical ops: on truth values ------------------------------------------------------

DTensor truth(const Dev& dev, const at::Tensor& t) {
  DTensor d = dev.operand(t);
  if (d.dtype() == DEVPLUG_DTYPE_BOOL) return d;
  return dev.cast(d, DEVPLUG_DTYPE_BOOL);  // x != 0, NaN is true
}

template <devplug_op_t Op>
at::Tensor& logical_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  prepare_out(out, at::infer_size(self.sizes(), other.sizes()));
  Dev dev = Dev::of({&self, &other, &out});
  dev.ew_into(Op, {truth(dev, self), truth(dev, other)}, view_of(out));
  return out;
}

at::Tensor& logical_not_out(const at::Tensor& self, at::Tensor& out) {
  prepare_out(out, self.sizes());
  Dev dev = Dev::of({&self, &out});
  dev.ew_into(DEVPLUG_OP_bitwise_not, {truth(dev, self)}, view_of(out));
  return out;
}

// ---- where, masked_fill, clamp, lerp, addcmul, addcdiv ----------------------------------

at::Tensor& where_out(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other,
                      at::Tensor& out) {
  TORCH_CHECK(condition.scalar_type() == at::kBool,
              "where expected condition to be a boolean tensor, but got a "
              "tensor with dtype ",
              condition.scalar_type());
  Dev dev = Dev::of({&condition, &self, &other, &out});
  prepare_out(out, at::infer_size(at::infer_size(condition.sizes(), self.sizes()), other.sizes()));
  const at::ScalarType common = at::native::result_type(self, other);
  const devplug_dtype_t c = require_dtype(common, "where's operands");
  dev.ew_into(DEVPLUG_OP_where, {dev.operand(condition), dev.operand(self, c), dev.operand(other, c)},
              view_of(out));
  return out;
}
at::Tensor where_fn(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  Dev dev = Dev::of({&condition, &self, &other});
  at::Tensor out = new_like_broadcast(dev, {&condition, &self, &other}, at::native::result_type(self, other));
  return where_out(condition, self, other, out);
}

at::Tensor& masked_fill_tensor_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
              " dimension(s).");
  TORCH_CHECK(mask.scalar_type() == at::kBool,
              "masked_fill_ only supports boolean masks, but got mask with dtype ", mask.scalar_type());
  if (self.numel() == 0) return self;
  Dev dev = Dev::of({&self, &mask, &value});
  DTensor target = view_of(self);
  DTensor fill = dev.cast(dev.operand(value, target.dtype()), target.dtype());
  dev.ew_into(DEVPLUG_OP_where, {dev.operand(mask), fill, target}, target);
  return self;
}
at::Tensor& masked_fill_scalar_(at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  return masked_fill_tensor_(self, mask, c10::scalar_to_tensor(value));
}

}  // namespace

// ---- clamp, lerp, addcmul, addcdiv: also called by the foreach ops (foreach.cpp) ----------

namespace {

// torch's result dtype of clamp(self, lo, hi).
at::ScalarType clamp_dtype(const at::Tensor& self, const std::optional<at::Tensor>& lo,
                           const std::optional<at::Tensor>& hi) {
  at::ScalarType common = self.scalar_type();
  if (given(lo)) common = at::native::result_type(self, *lo);
  if (given(hi)) common = c10::promoteTypes(common, at::native::result_type(self, *hi));
  return common;
}

}  // namespace

// max(min(x, hi), lo) in torch's order: min(max(x, lo), hi); NaN propagates.
at::Tensor& clamp_tensor_out(const at::Tensor& self, const std::optional<at::Tensor>& lo,
                             const std::optional<at::Tensor>& hi, at::Tensor& out) {
  const bool has_lo = given(lo), has_hi = given(hi);
  TORCH_CHECK(has_lo || has_hi, "torch.clamp: At least one of 'min' or 'max' must not be None");
  Dev dev = Dev::of({&self, has_lo ? &*lo : nullptr, has_hi ? &*hi : nullptr, &out});
  const at::ScalarType common = clamp_dtype(self, lo, hi);
  check_can_cast(common, out);
  std::vector<int64_t> shape = self.sizes().vec();
  if (has_lo) shape = at::infer_size(shape, lo->sizes());
  if (has_hi) shape = at::infer_size(shape, hi->sizes());
  prepare_out(out, shape, {&self, has_lo ? &*lo : nullptr, has_hi ? &*hi : nullptr});
  const devplug_dtype_t c = require_dtype(common, "clamp's operands");
  DTensor x = dev.cast(dev.operand(self), c);
  if (has_lo) x = dev.ew(DEVPLUG_OP_maximum, {x, dev.operand(*lo, c)});
  if (has_hi) x = dev.ew(DEVPLUG_OP_minimum, {x, dev.operand(*hi, c)});
  dev.copy(dev.cast(x.expand(shape), view_of(out).dtype()), view_of(out));
  return out;
}

// Number bounds that keep self's dtype (no promotion) run the clamp composite; the rest goes
// through maximum and minimum (clamp_tensor_out).
at::Tensor& clamp_out(const at::Tensor& self, const std::optional<at::Scalar>& lo,
                      const std::optional<at::Scalar>& hi, at::Tensor& out) {
  std::optional<at::Tensor> tlo, thi;
  if (lo.has_value()) tlo = wrap_scalar(*lo);
  if (hi.has_value()) thi = wrap_scalar(*hi);
  const at::ScalarType common = clamp_dtype(self, tlo, thi);
  if ((!tlo && !thi) || common != self.scalar_type() || out.scalar_type() != common || common == at::kBool)
    return clamp_tensor_out(self, tlo, thi, out);
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  devplug_clamp_attrs_t attrs{sizeof(attrs), 0u, {}, {}};
  if (lo.has_value()) {
    attrs.flags |= DEVPLUG_CLAMP_MIN;
    attrs.min = to_devplug_scalar(*lo);
  }
  if (hi.has_value()) {
    attrs.flags |= DEVPLUG_CLAMP_MAX;
    attrs.max = to_devplug_scalar(*hi);
  }
  dev.composite_into(DEVPLUG_OP_clamp, {view_of(self)}, view_of(out), &attrs);
  return out;
}
at::Tensor clamp_fn(const at::Tensor& self, const std::optional<at::Scalar>& lo,
                    const std::optional<at::Scalar>& hi) {
  std::optional<at::Tensor> tlo, thi;
  if (lo.has_value()) tlo = wrap_scalar(*lo);
  if (hi.has_value()) thi = wrap_scalar(*hi);
  at::Tensor out = empty_like_torch(self, clamp_dtype(self, tlo, thi));
  return clamp_out(self, lo, hi, out);
}
at::Tensor& clamp_inplace(at::Tensor& self, const std::optional<at::Scalar>& lo,
                          const std::optional<at::Scalar>& hi) {
  return clamp_out(self, lo, hi, self);
}
at::Tensor clamp_tensor_fn(const at::Tensor& self, const std::optional<at::Tensor>& lo,
                           const std::optional<at::Tensor>& hi) {
  std::vector<int64_t> shape = self.sizes().vec();
  if (given(lo)) shape = at::infer_size(shape, lo->sizes());
  if (given(hi)) shape = at::infer_size(shape, hi->sizes());
  at::Tensor out = empty_torch(Dev::of(self), shape, clamp_dtype(self, lo, hi));
  return clamp_tensor_out(self, lo, hi, out);
}
at::Tensor& clamp_tensor_inplace(at::Tensor& self, const std::optional<at::Tensor>& lo,
                                 const std::optional<at::Tensor>& hi) {
  return clamp_tensor_out(self, lo, hi, self);
}
at::Tensor& clamp_min_out(const at::Tensor& self, const at::Scalar& lo, at::Tensor& out) {
  return clamp_out(self, lo, std::nullopt, out);
}
at::Tensor clamp_min_fn(const at::Tensor& self, const at::Scalar& lo) {
  return clamp_fn(self, lo, std::nullopt);
}
at::Tensor& clamp_min_inplace(at::Tensor& self, const at::Scalar& lo) {
  return clamp_out(self, lo, std::nullopt, self);
}
at::Tensor& clamp_max_out(const at::Tensor& self, const at::Scalar& hi, at::Tensor& out) {
  return clamp_out(self, std::nullopt, hi, out);
}
at::Tensor clamp_max_fn(const at::Tensor& self, const at::Scalar& hi) {
  return clamp_fn(self, std::nullopt, hi);
}
at::Tensor& clamp_max_inplace(at::Tensor& self, const at::Scalar& hi) {
  return clamp_out(self, std::nullopt, hi, self);
}
at::Tensor& clamp_min_tensor_out(const at::Tensor& self, const at::Tensor& lo, at::Tensor& out) {
  return clamp_tensor_out(self, lo, std::nullopt, out);
}
at::Tensor clamp_min_tensor_fn(const at::Tensor& self, const at::Tensor& lo) {
  return clamp_tensor_fn(self, lo, std::nullopt);
}
at::Tensor& clamp_min_tensor_inplace(at::Tensor& self, const at::Tensor& lo) {
  return clamp_tensor_out(self, lo, std::nullopt, self);
}
at::Tensor& clamp_max_tensor_out(const at::Tensor& self, const at::Tensor& hi, at::Tensor& out) {
  return clamp_tensor_out(self, std::nullopt, hi, out);
}
at::Tensor clamp_max_tensor_fn(const at::Tensor& self, const at::Tensor& hi) {
  return clamp_tensor_fn(self, std::nullopt, hi);
}
at::Tensor& clamp_max_tensor_inplace(at::Tensor& self, const at::Tensor& hi) {
  return clamp_tensor_out(self, std::nullopt, hi, self);
}

namespace {

// torch's error for lerp of a dtype its kernels lack (integers, bool), named after the kernel.
void check_lerp_dtype(const at::Tensor& self, const char* kernel) {
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(self.scalar_type()), "\"", kernel,
                              "\" not implemented for '", c10::toString(self.scalar_type()), "'");
}

}  // namespace

// torch's lerp: weight < 0.5 ? self + weight * (end - self) : end - (end - self) * (1 - weight).
at::Tensor& lerp_tensor_out(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight,
                            at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() == end.scalar_type(), "expected dtype ", self.dtype(),
              " for `end` but got dtype ", end.dtype());
  TORCH_CHECK(weight.dim() == 0 || self.scalar_type() == weight.scalar_type(), "expected dtype ",
              self.dtype(), " for `weight` but got dtype ", weight.dtype());
  check_lerp_dtype(self, "lerp_kernel_tensor");
  Dev dev = Dev::of({&self, &end, &weight, &out});
  prepare_out(out, at::infer_size(at::infer_size(self.sizes(), end.sizes()), weight.sizes()),
              {&self, &end, &weight});
  const devplug_dtype_t c = require_dtype(self.scalar_type(), "lerp's operands");
  DTensor a = dev.operand(self), b = dev.operand(end), w = dev.cast(dev.operand(weight, c), c);
  DTensor diff = dev.ew(DEVPLUG_OP_sub, {b, a});
  DTensor low = dev.ew(DEVPLUG_OP_add, {a, dev.ew(DEVPLUG_OP_mul, {w, diff})});
  DTensor high = dev.ew(DEVPLUG_OP_sub,
                        {b, dev.ew(DEVPLUG_OP_mul, {diff, dev.ew(DEVPLUG_OP_sub, {dev.scalar(c, 1), w})})});
  DTensor small = dev.ew(DEVPLUG_OP_lt, {dev.ew(DEVPLUG_OP_abs, {w}), dev.scalar(c, 0.5)});
  dev.ew_into(DEVPLUG_OP_where, {small, low, high}, view_of(out));
  return out;
}
at::Tensor& lerp_scalar_out(const at::Tensor& self, const at::Tensor& end, const at::Scalar& weight,
                            at::Tensor& out) {
  TORCH_CHECK(self.scalar_type() == end.scalar_type(), "expected dtype ", self.dtype(),
              " for `end` but got dtype ", end.dtype());
  check_lerp_dtype(self, "lerp_kernel_scalar");
  Dev dev = Dev::of({&self, &end, &out});
  prepare_out(out, at::infer_size(self.sizes(), end.sizes()), {&self, &end});
  const devplug_dtype_t c = require_dtype(self.scalar_type(), "lerp's operands");
  DTensor a = dev.operand(self), b = dev.operand(end);
  DTensor diff = dev.ew(DEVPLUG_OP_sub, {b, a});
  const double w = weight.toDouble();
  if (std::abs(w) < 0.5) {
    dev.ew_into(DEVPLUG_OP_add, {a, dev.ew(DEVPLUG_OP_mul, {dev.scalar(c, weight), diff})}, view_of(out));
  } else {
    dev.ew_into(DEVPLUG_OP_sub, {b, dev.ew(DEVPLUG_OP_mul, {diff, dev.scalar(c, 1.0 - w)})}, view_of(out));
  }
  return out;
}
at::Tensor lerp_scalar_fn(const at::Tensor& self, const at::Tensor& end, const at::Scalar& weight) {
  Dev dev = Dev::of({&self, &end});
  at::Tensor out = new_like_broadcast(dev, {&self, &end}, self.scalar_type());
  return lerp_scalar_out(self, end, weight, out);
}
at::Tensor& lerp_scalar_inplace(at::Tensor& self, const at::Tensor& end, const at::Scalar& weight) {
  return lerp_scalar_out(self, end, weight, self);
}
at::Tensor lerp_tensor_fn(const at::Tensor& self, const at::Tensor& end, const at::Tensor& weight) {
  Dev dev = Dev::of({&self, &end, &weight});
  at::Tensor out = new_like_broadcast(dev, {&self, &end, &weight}, self.scalar_type());
  return lerp_tensor_out(self, end, weight, out);
}
at::Tensor& lerp_tensor_inplace(at::Tensor& self, const at::Tensor& end, const at::Tensor& weight) {
  return lerp_tensor_out(self, end, weight, self);
}

// self + value * t1 (op) t2, in torch's order: (value * t1) (op) t2.
void addc_into(devplug_op_t op, const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
               const at::Scalar& value, const at::Tensor& out) {
  Dev dev = Dev::of({&self, &t1, &t2, &out});
  if (op == DEVPLUG_OP_div)
    TORCH_CHECK(
        !(c10::isIntegralType(t1.scalar_type(), true) && c10::isIntegralType(t2.scalar_type(), true)),
        "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
        "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
        "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
        "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
        "latter "
        "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  prepare_out(out, at::infer_size(at::infer_size(self.sizes(), t1.sizes()), t2.sizes()), {&self, &t1, &t2});
  const at::ScalarType common = c10::promoteTypes(at::native::result_type(self, t1), t2.scalar_type());
  const devplug_dtype_t c = require_dtype(common, "the operands' common dtype");
  DTensor scaled = dev.ew(DEVPLUG_OP_mul, {dev.scalar(c, value), dev.cast(dev.operand(t1), c)});
  DTensor term = dev.ew(op, {scaled, dev.cast(dev.operand(t2), c)});
  dev.ew_into(DEVPLUG_OP_add, {dev.operand(self, c), term}, view_of(out));
}
at::Tensor addc(devplug_op_t op, const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
                const at::Scalar& value) {
  Dev dev = Dev::of({&self, &t1, &t2});
  at::Tensor out = new_like_broadcast(dev, {&self, &t1, &t2},
                                      c10::promoteTypes(at::native::result_type(self, t1), t2.scalar_type()));
  addc_into(op, self, t1, t2, value, out);
  return out;
}

namespace {

template <devplug_op_t Op>
at::Tensor& addc_out(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
                     const at::Scalar& value, at::Tensor& out) {
  addc_into(Op, self, t1, t2, value, out);
  return out;
}
template <devplug_op_t Op>
at::Tensor addc_fn(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
                   const at::Scalar& value) {
  return addc(Op, self, t1, t2, value);
}
template <devplug_op_t Op>
at::Tensor& addc_inplace(at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
                         const at::Scalar& value) {
  addc_into(Op, self, t1, t2, value, self);
  return self;
}

// isposinf / isneginf: x == +-inf; never true for integers.
template <bool Positive>
at::Tensor& infinity_out(const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(out.scalar_type() == at::kBool, Positive ? "isposinf" : "isneginf",
              " does not support non-boolean outputs.");
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  DTensor x = view_of(self);
  if (!(DEVPLUG_DTYPE_BIT(x.dtype()) & DEVPLUG_DTYPES_FLOAT)) {
    dev.fill(view_of(out), false);
    return out;
  }
  const double inf = std::numeric_limits<double>::infinity();
  dev.ew_into(DEVPLUG_OP_eq, {x, dev.scalar(x.dtype(), Positive ? inf : -inf)}, view_of(out));
  return out;
}
template <bool Positive>
at::Tensor infinity(const at::Tensor& self) {
  at::Tensor out = at::empty_like(self, self.options().dtype(at::kBool));
  return infinity_out<Positive>(self, out);
}

at::Tensor remainder_scalar_tensor(const at::Scalar& self, const at::Tensor& other) {
  return binary(DEVPLUG_OP_remainder, wrap_scalar(self), other, BinaryKind::promote);
}

}  // namespace

void register_elementwise_ops(Table& t) {
  using U = UnaryKind;
  unary_family<DEVPLUG_OP_abs, U::same>(t, "abs");
  unary_family<DEVPLUG_OP_neg, U::same>(t, "neg");
  unary_family<DEVPLUG_OP_sign, U::same>(t, "sign");
  unary_family<DEVPLUG_OP_sign, U::same>(t, "sgn");  // sign, for real dtypes
  unary_family<DEVPLUG_OP_signbit, U::to_bool>(t, "signbit");
  unary_family<DEVPLUG_OP_ceil, U::rounding>(t, "ceil");
  unary_family<DEVPLUG_OP_floor, U::rounding>(t, "floor");
  unary_family<DEVPLUG_OP_round, U::rounding>(t, "round");
  unary_family<DEVPLUG_OP_trunc, U::rounding>(t, "trunc");
  unary_family<DEVPLUG_OP_exp, U::floating>(t, "exp");
  unary_family<DEVPLUG_OP_exp2, U::floating>(t, "exp2");
  unary_family<DEVPLUG_OP_expm1, U::floating>(t, "expm1");
  unary_family<DEVPLUG_OP_log, U::floating>(t, "log");
  unary_family<DEVPLUG_OP_log2, U::floating>(t, "log2");
  unary_family<DEVPLUG_OP_log10, U::floating>(t, "log10");
  unary_family<DEVPLUG_OP_log1p, U::floating>(t, "log1p");
  unary_family<DEVPLUG_OP_sqrt, U::floating>(t, "sqrt");
  unary_family<DEVPLUG_OP_rsqrt, U::floating>(t, "rsqrt");
  unary_family<DEVPLUG_OP_reciprocal, U::floating>(t, "reciprocal");
  unary_family<DEVPLUG_OP_sin, U::floating>(t, "sin");
  unary_family<DEVPLUG_OP_cos, U::floating>(t, "cos");
  unary_family<DEVPLUG_OP_tan, U::floating>(t, "tan");
  unary_family<DEVPLUG_OP_asin, U::floating>(t, "asin");
  unary_family<DEVPLUG_OP_acos, U::floating>(t, "acos");
  unary_family<DEVPLUG_OP_atan, U::floating>(t, "atan");
  unary_family<DEVPLUG_OP_sinh, U::floating>(t, "sinh");
  unary_family<DEVPLUG_OP_cosh, U::floating>(t, "cosh");
  unary_family<DEVPLUG_OP_tanh, U::floating>(t, "tanh");
  unary_family<DEVPLUG_OP_asinh, U::floating>(t, "asinh");
  unary_family<DEVPLUG_OP_acosh, U::floating>(t, "acosh");
  unary_family<DEVPLUG_OP_atanh, U::floating>(t, "atanh");
  unary_family<DEVPLUG_OP_erf, U::floating>(t, "erf");
  unary_family<DEVPLUG_OP_erfc, U::floating>(t, "erfc");
  unary_family<DEVPLUG_OP_erfinv, U::floating>(t, "erfinv");
  unary_family<DEVPLUG_OP_lgamma, U::floating>(t, "lgamma");
  unary_family<DEVPLUG_OP_digamma, U::floating>(t, "digamma");
  unary_family<DEVPLUG_OP_bitwise_not, U::same>(t, "bitwise_not");
  t.add("isnan", Impl::prim, "isnan", DEVPLUG_KERNEL(unary_fn<DEVPLUG_OP_isnan, U::to_bool>));

  t.add("add.Tensor", Impl::prim, "add", DEVPLUG_KERNEL(alpha_fn<DEVPLUG_OP_add>));
  t.add("add_.Tensor", Impl::prim, "add", DEVPLUG_KERNEL(alpha_inplace<DEVPLUG_OP_add>));
  t.add("add.out", Impl::prim, "add", DEVPLUG_KERNEL(alpha_out<DEVPLUG_OP_add>));
  t.add("sub.Tensor", Impl::prim, "sub", DEVPLUG_KERNEL(alpha_fn<DEVPLUG_OP_sub>));
  t.add("sub_.Tensor", Impl::prim, "sub", DEVPLUG_KERNEL(alpha_inplace<DEVPLUG_OP_sub>));
  t.add("sub.out", Impl::prim, "sub", DEVPLUG_KERNEL(alpha_out<DEVPLUG_OP_sub>));

  using B = BinaryKind;
  binary_family<DEVPLUG_OP_mul, B::promote>(t, "mul.Tensor", "mul_.Tensor", "mul.out");
  binary_family<DEVPLUG_OP_div, B::true_div>(t, "div.Tensor", "div_.Tensor", "div.out");
  t.add("div.Tensor_mode", Impl::prim, "div, trunc, floor, fmod", DEVPLUG_KERNEL(div_mode));
  t.add("div_.Tensor_mode", Impl::prim, "div, trunc, floor, fmod", DEVPLUG_KERNEL(div_mode_inplace));
  t.add("div.out_mode", Impl::prim, "div, trunc, floor, fmod", DEVPLUG_KERNEL(div_mode_out));
  binary_family<DEVPLUG_OP_maximum, B::promote>(t, "maximum", "", "maximum.out");
  binary_family<DEVPLUG_OP_minimum, B::promote>(t, "minimum", "", "minimum.out");
  binary_family<DEVPLUG_OP_fmax, B::promote>(t, "fmax", "", "fmax.out");
  binary_family<DEVPLUG_OP_fmin, B::promote>(t, "fmin", "", "fmin.out");
  binary_family<DEVPLUG_OP_remainder, B::promote>(t, "remainder.Tensor", "remainder_.Tensor",
                                                  "remainder.Tensor_out");
  t.add("remainder.Scalar_Tensor", Impl::prim, "remainder", DEVPLUG_KERNEL(remainder_scalar_tensor));
  binary_family<DEVPLUG_OP_fmod, B::promote>(t, "fmod.Tensor", "fmod_.Tensor", "fmod.Tensor_out");
  binary_family<DEVPLUG_OP_pow, B::promote>(t, "pow.Tensor_Tensor", "pow_.Tensor", "pow.Tensor_Tensor_out");
  t.add("pow.Tensor_Scalar", Impl::prim, "pow", DEVPLUG_KERNEL(binary_scalar_fn<DEVPLUG_OP_pow, B::promote>));
  t.add("pow_.Scalar", Impl::prim, "pow", DEVPLUG_KERNEL(binary_scalar_inplace<DEVPLUG_OP_pow, B::promote>));
  t.add("pow.Tensor_Scalar_out", Impl::prim, "pow",
        DEVPLUG_KERNEL(binary_scalar_out<DEVPLUG_OP_pow, B::promote>));
  t.add("pow.Scalar", Impl::prim, "pow", DEVPLUG_KERNEL(binary_scalar_tensor_fn<DEVPLUG_OP_pow, B::promote>));
  t.add("pow.Scalar_out", Impl::prim, "pow",
        DEVPLUG_KERNEL(binary_scalar_tensor_out<DEVPLUG_OP_pow, B::promote>));
  binary_family<DEVPLUG_OP_atan2, B::true_div>(t, "atan2", "atan2_", "atan2.out");
  binary_family<DEVPLUG_OP_hypot, B::promote>(t, "hypot", "hypot_", "hypot.out");
  binary_family<DEVPLUG_OP_copysign, B::true_div>(t, "copysign.Tensor", "copysign_.Tensor", "copysign.out");
  binary_family<DEVPLUG_OP_nextafter, B::promote>(t, "nextafter", "nextafter_", "nextafter.out");
  binary_family<DEVPLUG_OP_bitwise_and, B::promote>(t, "bitwise_and.Tensor", "bitwise_and_.Tensor",
                                                    "bitwise_and.Tensor_out");
  binary_family<DEVPLUG_OP_bitwise_or, B::promote>(t, "bitwise_or.Tensor", "bitwise_or_.Tensor",
                                                   "bitwise_or.Tensor_out");
  binary_family<DEVPLUG_OP_bitwise_xor, B::promote>(t, "bitwise_xor.Tensor", "bitwise_xor_.Tensor",
                                                    "bitwise_xor.Tensor_out");
  binary_family<DEVPLUG_OP_shift_left, B::promote>(
      t, "bitwise_left_shift.Tensor", "bitwise_left_shift_.Tensor", "bitwise_left_shift.Tensor_out");
  binary_family<DEVPLUG_OP_shift_right_arithmetic, B::promote>(
      t, "bitwise_right_shift.Tensor", "bitwise_right_shift_.Tensor", "bitwise_right_shift.Tensor_out");
  // Python's << and >> (torch's own operators, kernels per backend like bitwise_*_shift's).
  t.add("__lshift__.Tensor", Impl::prim, "shift_left",
        DEVPLUG_KERNEL(binary_fn<DEVPLUG_OP_shift_left, B::promote>));
  t.add("__lshift__.Scalar", Impl::prim, "shift_left",
        DEVPLUG_KERNEL(binary_scalar_fn<DEVPLUG_OP_shift_left, B::promote>));
  t.add("__ilshift__.Tensor", Impl::prim, "shift_left",
        DEVPLUG_KERNEL(binary_inplace<DEVPLUG_OP_shift_left, B::promote>));
  t.add("__ilshift__.Scalar", Impl::prim, "shift_left",
        DEVPLUG_KERNEL(binary_scalar_inplace<DEVPLUG_OP_shift_left, B::promote>));
  t.add("__rshift__.Tensor", Impl::prim, "shift_right_arithmetic",
        DEVPLUG_KERNEL(binary_fn<DEVPLUG_OP_shift_right_arithmetic, B::promote>));
  t.add("__rshift__.Scalar", Impl::prim, "shift_right_arithmetic",
        DEVPLUG_KERNEL(binary_scalar_fn<DEVPLUG_OP_shift_right_arithmetic, B::promote>));
  t.add("__irshift__.Tensor", Impl::prim, "shift_right_arithmetic",
        DEVPLUG_KERNEL(binary_inplace<DEVPLUG_OP_shift_right_arithmetic, B::promote>));
  t.add("__irshift__.Scalar", Impl::prim, "shift_right_arithmetic",
        DEVPLUG_KERNEL(binary_scalar_inplace<DEVPLUG_OP_shift_right_arithmetic, B::promote>));
  binary_family<DEVPLUG_OP_gcd, B::promote>(t, "gcd", "gcd_", "gcd.out");

#define DEVPLUG_COMPARE(name)                                                                                \
  t.add(#name ".Tensor", Impl::prim, #name, DEVPLUG_KERNEL(binary_fn<DEVPLUG_OP_##name, B::compare>));       \
  t.add(#name "_.Tensor", Impl::prim, #name, DEVPLUG_KERNEL(binary_inplace<DEVPLUG_OP_##name, B::compare>)); \
  t.add(#name ".Tensor_out", Impl::prim, #name, DEVPLUG_KERNEL(binary_out<DEVPLUG_OP_##name, B::compare>));  \
  t.add(#name ".Scalar", Impl::prim, #name,                                                                  \
        DEVPLUG_KERNEL(binary_scalar_fn<DEVPLUG_OP_##name, B::compare>));                                    \
  t.add(#name "_.Scalar", Impl::prim, #name,                                                                 \
        DEVPLUG_KERNEL(binary_scalar_inplace<DEVPLUG_OP_##name, B::compare>));                               \
  t.add(#name ".Scalar_out", Impl::prim, #name,                                                              \
        DEVPLUG_KERNEL(binary_scalar_out<DEVPLUG_OP_##name, B::compare>))
  DEVPLUG_COMPARE(eq);
  DEVPLUG_COMPARE(ne);
  DEVPLUG_COMPARE(lt);
  DEVPLUG_COMPARE(le);
  DEVPLUG_COMPARE(gt);
  DEVPLUG_COMPARE(ge);
#undef DEVPLUG_COMPARE

  t.add("logical_and.out", Impl::prim, "convert_element_type, bitwise_and",
        DEVPLUG_KERNEL(logical_out<DEVPLUG_OP_bitwise_and>));
  t.add("logical_or.out", Impl::prim, "convert_element_type, bitwise_or",
        DEVPLUG_KERNEL(logical_out<DEVPLUG_OP_bitwise_or>));
  t.add("logical_xor.out", Impl::prim, "convert_element_type, bitwise_xor",
        DEVPLUG_KERNEL(logical_out<DEVPLUG_OP_bitwise_xor>));
  t.add("logical_not.out", Impl::prim, "convert_element_type, bitwise_not", DEVPLUG_KERNEL(logical_not_out));

  t.add("isposinf", Impl::prim, "eq", DEVPLUG_KERNEL(infinity<true>));
  t.add("isposinf.out", Impl::prim, "eq", DEVPLUG_KERNEL(infinity_out<true>));
  t.add("isneginf", Impl::prim, "eq", DEVPLUG_KERNEL(infinity<false>));
  t.add("isneginf.out", Impl::prim, "eq", DEVPLUG_KERNEL(infinity_out<false>));
  t.add("floor_divide", Impl::bridge, "fmod, sub, div, floor, where", DEVPLUG_KERNEL(floor_divide_fn));
  t.add("floor_divide_.Tensor", Impl::bridge, "fmod, sub, div, floor, where",
        DEVPLUG_KERNEL(floor_divide_inplace));
  t.add("floor_divide.out", Impl::bridge, "fmod, sub, div, floor, where", DEVPLUG_KERNEL(floor_divide_out));

  t.add("where.self", Impl::prim, "where", DEVPLUG_KERNEL(where_fn));
  t.add("where.self_out", Impl::prim, "where", DEVPLUG_KERNEL(where_out));
  t.add("masked_fill_.Scalar", Impl::prim, "where", DEVPLUG_KERNEL(masked_fill_scalar_));
  t.add("masked_fill_.Tensor", Impl::prim, "where", DEVPLUG_KERNEL(masked_fill_tensor_));

  const char* clamp = "clamp (number bounds, no promotion); else maximum, minimum";
  t.add("clamp", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_fn));
  t.add("clamp_", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_inplace));
  t.add("clamp.out", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_out));
  t.add("clamp.Tensor", Impl::prim, "maximum, minimum", DEVPLUG_KERNEL(clamp_tensor_fn));
  t.add("clamp_.Tensor", Impl::prim, "maximum, minimum", DEVPLUG_KERNEL(clamp_tensor_inplace));
  t.add("clamp.Tensor_out", Impl::prim, "maximum, minimum", DEVPLUG_KERNEL(clamp_tensor_out));
  t.add("clamp_min", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_min_fn));
  t.add("clamp_min_", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_min_inplace));
  t.add("clamp_min.out", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_min_out));
  t.add("clamp_min.Tensor", Impl::prim, "maximum", DEVPLUG_KERNEL(clamp_min_tensor_fn));
  t.add("clamp_min_.Tensor", Impl::prim, "maximum", DEVPLUG_KERNEL(clamp_min_tensor_inplace));
  t.add("clamp_min.Tensor_out", Impl::prim, "maximum", DEVPLUG_KERNEL(clamp_min_tensor_out));
  t.add("clamp_max", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_max_fn));
  t.add("clamp_max_", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_max_inplace));
  t.add("clamp_max.out", Impl::composite, clamp, DEVPLUG_KERNEL(clamp_max_out));
  t.add("clamp_max.Tensor", Impl::prim, "minimum", DEVPLUG_KERNEL(clamp_max_tensor_fn));
  t.add("clamp_max_.Tensor", Impl::prim, "minimum", DEVPLUG_KERNEL(clamp_max_tensor_inplace));
  t.add("clamp_max.Tensor_out", Impl::prim, "minimum", DEVPLUG_KERNEL(clamp_max_tensor_out));

  t.add("lerp.Scalar", Impl::bridge, "sub, mul, add", DEVPLUG_KERNEL(lerp_scalar_fn));
  t.add("lerp_.Scalar", Impl::bridge, "sub, mul, add", DEVPLUG_KERNEL(lerp_scalar_inplace));
  t.add("lerp.Scalar_out", Impl::bridge, "sub, mul, add", DEVPLUG_KERNEL(lerp_scalar_out));
  t.add("lerp.Tensor", Impl::bridge, "sub, mul, add, where", DEVPLUG_KERNEL(lerp_tensor_fn));
  t.add("lerp_.Tensor", Impl::bridge, "sub, mul, add, where", DEVPLUG_KERNEL(lerp_tensor_inplace));
  t.add("lerp.Tensor_out", Impl::bridge, "sub, mul, add, where", DEVPLUG_KERNEL(lerp_tensor_out));
  t.add("addcmul", Impl::bridge, "mul, add", DEVPLUG_KERNEL(addc_fn<DEVPLUG_OP_mul>));
  t.add("addcmul_", Impl::bridge, "mul, add", DEVPLUG_KERNEL(addc_inplace<DEVPLUG_OP_mul>));
  t.add("addcmul.out", Impl::bridge, "mul, add", DEVPLUG_KERNEL(addc_out<DEVPLUG_OP_mul>));
  t.add("addcdiv", Impl::bridge, "mul, div, add", DEVPLUG_KERNEL(addc_fn<DEVPLUG_OP_div>));
  t.add("addcdiv_", Impl::bridge, "mul, div, add", DEVPLUG_KERNEL(addc_inplace<DEVPLUG_OP_div>));
  t.add("addcdiv.out", Impl::bridge, "mul, div, add", DEVPLUG_KERNEL(addc_out<DEVPLUG_OP_div>));
}

}  // namespace devplug::bridge
