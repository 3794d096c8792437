// SPDX-License-Identifier: Apache-2.0
// Shape ops that move data: cat, flip, roll, tril/triu, and the iota-based factories
// (arange, linspace, logspace) and eye; narrow_copy and channel_shuffle. Pure views (transpose, slice, expand, ...) are torch's own
// metadata functions and never get here.
#include <ATen/Dispatch.h>
#include <ATen/Functions.h>
#include <ATen/native/Resize.h>

#include <cmath>

#include "fallback.hpp"
#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// torch skips 1-D empty tensors in cat (a legacy rule); any other shape must match.
bool skipped_in_cat(const at::Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

at::Tensor& cat_out(const at::ITensorListRef& tensors, int64_t dim, at::Tensor& out) {
  std::vector<at::Tensor> inputs;
  for (const at::Tensor& t : tensors) inputs.push_back(t);
  TORCH_CHECK(!inputs.empty(), "torch.cat(): expected a non-empty list of Tensors");
  const at::Tensor* reference = nullptr;
  for (const at::Tensor& t : inputs)
    if (!skipped_in_cat(t)) {
      reference = &t;
      break;
    }
  if (reference == nullptr) {
    prepare_out(out, {0});
    return out;
  }
  const int64_t rank = reference->dim();
  const int64_t d = c10::maybe_wrap_dim(dim, rank);
  std::vector<int64_t> shape = reference->sizes().vec();
  shape[d] = 0;
  at::ScalarType common = inputs.front().scalar_type();
  for (const at::Tensor& t : inputs) common = c10::promoteTypes(common, t.scalar_type());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor& t = inputs[i];
    if (skipped_in_cat(t)) continue;
    TORCH_CHECK(t.dim() == rank, "torch.cat(): Tensors must have same number of dimensions: got ", rank,
                " and ", t.dim());
    for (int64_t k = 0; k < rank; ++k)
      TORCH_CHECK(k == d || t.size(k) == reference->size(k),
                  "Sizes of tensors must match except in dimension ", d, ". Expected size ",
                  reference->size(k), " but got size ", t.size(k), " for tensor number ", i, " in the list.");
    shape[d] += t.size(d);
  }
  check_can_cast(common, out);
  Dev dev = Dev::of({&out});
  prepare_out(out, shape);
  if (out.numel() == 0) return out;
  const devplug_dtype_t c = require_dtype(common, "cat's inputs");
  std::vector<DTensor> parts;
  for (const at::Tensor& t : inputs) {
    if (skipped_in_cat(t) || t.numel() == 0) continue;
    parts.push_back(dev.cast(dev.operand(t), c));
  }
  const devplug_dim_attrs_t attrs = dim_attrs(d);
  DTensor target = view_of(out);
  if (target.dtype() == c) {
    dev.call(DEVPLUG_OP_cat, parts, {target}, &attrs);
  } else {
    DTensor tmp = dev.empty(c, target.shape());
    dev.call(DEVPLUG_OP_cat, parts, {tmp}, &attrs);
    dev.call(DEVPLUG_OP_convert_element_type, {tmp}, {target});
  }
  return out;
}
at::Tensor cat(const at::ITensorListRef& tensors, int64_t dim) {
  at::ScalarType common = at::kBool;
  bool first = true;
  const at::Tensor* any = nullptr;
  for (const at::Tensor& t : tensors) {
    common = first ? t.scalar_type() : c10::promoteTypes(common, t.scalar_type());
    first = false;
    if (t.device().type() == c10::DeviceType::PrivateUse1) any = &t;
  }
  TORCH_CHECK(any != nullptr, "torch.cat(): expected a devplug tensor among the inputs");
  at::Tensor out = empty_torch(Dev::of(*any), {0}, common);
  return cat_out(tensors, dim, out);
}

at::Tensor flip(const at::Tensor& self, at::IntArrayRef dims) {
  Dev dev = Dev::of(self);
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (self.numel() == 0) return out;
  devplug_flip_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.dims_mask = dims_mask(dims, self.dim(), /*empty_means_all=*/false);
  dev.call(DEVPLUG_OP_flip, {view_of(self)}, {view_of(out)}, &attrs);
  return out;
}

// roll: the two slices of each rolled dim swap places (one copy each).
at::Tensor roll_fn(const at::Tensor& self, at::IntArrayRef shifts, at::IntArrayRef dims) {
  Dev dev = Dev::of(self);
  TORCH_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty()) {
    TORCH_CHECK(shifts.size() == 1, "shifts and dimensions must align. shifts: ", shifts.size(), ", dims: 0");
    return roll_fn(self.flatten(), shifts, {0}).view(self.sizes());
  }
  TORCH_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  DTensor current = view_of(self);
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = c10::maybe_wrap_dim(dims[k], self.dim());
    const int64_t n = self.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[k] % n) + n) % n;
    DTensor rolled = dev.empty(current.dtype(), current.shape());
    if (s == 0) {
      dev.copy(current, rolled);
    } else {
      const int32_t d32 = static_cast<int32_t>(d);
      dev.copy(current.slice(d32, n - s, n), rolled.slice(d32, 0, s));
      dev.copy(current.slice(d32, 0, n - s), rolled.slice(d32, s, n));
    }
    current = rolled;
  }
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (out.numel() > 0) dev.copy(current, view_of(out));
  return out;
}

// tril/triu: keep element (i, j) of the last two dims when j - i <= k (tril) or >= k (triu).
template <bool Lower>
at::Tensor& triangle_out(const at::Tensor& self, int64_t k, at::Tensor& out) {
  TORCH_CHECK(self.dim() >= 2, Lower ? "tril" : "triu", ": input tensor must have at least 2 dimensions");
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  const int64_t rows = self.size(-2), cols = self.size(-1);
  DTensor i = dev.iota(DEVPLUG_DTYPE_INT64, {rows, 1}, 0, 1);
  DTensor j = dev.iota(DEVPLUG_DTYPE_INT64, {1, cols}, 0, 1);
  DTensor diff = dev.ew(DEVPLUG_OP_sub, {j, i});
  DTensor keep = dev.ew(Lower ? DEVPLUG_OP_le : DEVPLUG_OP_ge, {diff, dev.scalar(DEVPLUG_DTYPE_INT64, k)});
  DTensor x = view_of(self);
  DTensor zero = dev.scalar(x.dtype(), 0);
  dev.ew_into(DEVPLUG_OP_where, {keep, x, zero}, view_of(out));  // in place when out is self
  return out;
}
template <bool Lower>
at::Tensor triangle(const at::Tensor& self, int64_t k) {
  at::Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  return triangle_out<Lower>(self, k, out);
}
template <bool Lower>
at::Tensor& triangle_(at::Tensor& self, int64_t k) {
  return triangle_out<Lower>(self, k, self);
}

at::Tensor& arange_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step,
                       at::Tensor& out) {
  Dev dev = Dev::of(out);
  const double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  TORCH_CHECK(st != 0, "step must be nonzero");
  TORCH_CHECK(std::isfinite(s) && std::isfinite(e), "unsupported range: ", s, " -> ", e);
  TORCH_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
              "upper bound and larger bound inconsistent with step sign");
  int64_t n = 0;
  if (c10::isIntegralType(out.scalar_type(), true) && start.isIntegral(false) && end.isIntegral(false) &&
      step.isIntegral(false)) {
    const int64_t is = start.toLong(), ie = end.toLong(), ist = step.toLong();
    n = ist > 0 ? (ie - is + ist - 1) / ist : (is - ie - ist - 1) / (-ist);
  } else {
    n = static_cast<int64_t>(std::ceil((e - s) / st));
  }
  n = std::max<int64_t>(n, 0);
  prepare_out(out, {n});
  if (n == 0) return out;
  DTensor target = view_of(out);
  devplug_iota_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.start.f = s;
  attrs.start.i = start.isIntegral(false) ? start.toLong() : static_cast<int64_t>(s);
  attrs.step.f = st;
  attrs.step.i = step.isIntegral(false) ? step.toLong() : static_cast<int64_t>(st);
  dev.call(DEVPLUG_OP_iota, {}, {target}, &attrs);
  return out;
}

// linspace as torch computes it: start + i * step for the first half, end - (n - 1 - i) *
// step for the rest, so both ends are exact.
at::Tensor& linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  Dev dev = Dev::of(out);
  prepare_out(out, {steps});
  if (steps == 0) return out;
  DTensor target = view_of(out);
  const devplug_dtype_t compute =
      c10::isIntegralType(out.scalar_type(), true) ? DEVPLUG_DTYPE_FLOAT64 : target.dtype();
  if (steps == 1) {
    dev.copy(dev.cast(dev.full(compute, {1}, start), target.dtype()), target);
    return out;
  }
  const double s = start.toDouble(), e = end.toDouble();
  const double step = (e - s) / static_cast<double>(steps - 1);
  const int64_t half = steps / 2;
  DTensor values = dev.empty(compute, {steps});
  devplug_iota_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.start.f = s;
  attrs.step.f = step;
  dev.call(DEVPLUG_OP_iota, {}, {values.slice(0, 0, half)}, &attrs);
  attrs.start.f = e - step * static_cast<double>(steps - 1 - half);
  dev.call(DEVPLUG_OP_iota, {}, {values.slice(0, half, steps)}, &attrs);
  dev.copy(dev.cast(values, target.dtype()), target);
  return out;
}

// logspace as torch's CPU computes it, in double: base ** (start + step * i) for the first
// half and base ** (end - step * (steps - 1 - i)) for the rest, with start and end taken in
// the result's dtype first and step = (end - start) / (steps - 1) from them; an integer
// result takes the base as a float and truncates (wrapping). Each exponent is rounded as torch rounds
// it (the product, then the sum), so integer results land on the same side of an integer.
// One step is torch's fill of base ** start; bool runs on the CPU, which refuses it.
at::Tensor& logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                         at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  const at::ScalarType dtype = out.scalar_type();
  if (dtype == at::kBool || !devplug_dtype(dtype).has_value()) throw OnCpu{};
  Dev dev = Dev::of(out);
  if (out.numel() != steps) out.resize_({steps});
  if (steps == 0) return out;
  if (steps == 1) {
    out.fill_(std::pow(base, start.to<double>()));
    return out;
  }
  double first = 0, last = 0, step = 0, b = base;
  const auto take = [&](auto s, auto e) {
    first = static_cast<double>(s);
    last = static_cast<double>(e);
    step = static_cast<double>(e - s) / static_cast<double>(steps - 1);
  };
  if (c10::isIntegralType(dtype, /*includeBool=*/false)) {
    AT_DISPATCH_INTEGRAL_TYPES(dtype, "logspace", [&] { take(start.to<scalar_t>(), end.to<scalar_t>()); });
    b = static_cast<float>(base);
  } else {
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dtype, "logspace",
                                    [&] { take(start.to<scalar_t>(), end.to<scalar_t>()); });
  }
  const devplug_dtype_t f64 = DEVPLUG_DTYPE_FLOAT64;
  const int64_t half = steps / 2;
  DTensor exponent = dev.empty(f64, {steps});
  DTensor ahead = dev.ew_scalar(DEVPLUG_OP_mul, dev.iota(f64, {half}, 0, 1), step);
  dev.ew_into(DEVPLUG_OP_add, {dev.scalar(f64, first), ahead}, exponent.slice(0, 0, half));
  DTensor behind = dev.ew_scalar(DEVPLUG_OP_mul, dev.iota(f64, {steps - half}, steps - 1 - half, -1), step);
  dev.ew_into(DEVPLUG_OP_sub, {dev.scalar(f64, last), behind}, exponent.slice(0, half, steps));
  DTensor target = out.dim() == 1 ? view_of(out) : view_of(out.view({steps}));
  DTensor value = dev.ew(DEVPLUG_OP_pow, {dev.scalar(f64, b), exponent});
  // Integers through int64, so that a value too large for a narrower dtype wraps as torch's
  // conversion does on the CPU rather than being left unspecified.
  if (c10::isIntegralType(dtype, /*includeBool=*/false)) value = dev.cast(value, DEVPLUG_DTYPE_INT64);
  dev.copy(dev.cast(value, target.dtype()), target);
  return out;
}

// eye: zeros, then ones written through the diagonal view (m = -1: square).
at::Tensor& eye_m_out(c10::SymInt n_sym, c10::SymInt m_sym, at::Tensor& out) {
  const int64_t n = n_sym.guard_int(__FILE__, __LINE__), m = m_sym.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  Dev dev = Dev::of(out);
  prepare_out(out, {n, m});
  if (out.numel() == 0) return out;
  DTensor target = view_of(out);
  dev.fill(target, 0);
  dev.fill(target.diagonal(0, 0, 1), 1);
  return out;
}
at::Tensor& eye_out(c10::SymInt n, at::Tensor& out) { return eye_m_out(n, n, out); }

// narrow_copy: torch's narrow view (its checks and messages), copied into out.
at::Tensor& narrow_copy_out(const at::Tensor& self, int64_t dim, c10::SymInt start, c10::SymInt length,
                            at::Tensor& out) {
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ",
              self.scalar_type(), ", but got ", out.scalar_type(), " instead");
  Dev dev = Dev::of({&self, &out});
  const at::Tensor part =
      self.narrow(dim, start.guard_int(__FILE__, __LINE__), length.guard_int(__FILE__, __LINE__));
  prepare_out(out, part.sizes());
  if (part.numel() > 0) dev.copy(view_of(part), view_of(out));
  return out;
}

// channel_shuffle: [N, C, ...] as [N, g, C / g, rest], groups and channels swapped, in the
// input's suggested memory format (torch's CPU); an empty input is returned as an alias.
at::Tensor channel_shuffle(const at::Tensor& self, c10::SymInt groups_sym) {
  const int64_t groups = groups_sym.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(self.dim() > 2,
              "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes ",
              self.sizes());
  TORCH_CHECK(groups > 0, "Number of groups to divide channels in must be positive.",
              " Value of groups:", groups);
  TORCH_CHECK(self.size(1) % groups == 0, "Number of channels must be divisible by groups. Got ",
              self.size(1), " channels and ", groups, " groups.");
  if (self.numel() == 0) return self.alias();
  const at::Tensor grouped = self.reshape({self.size(0), groups, self.size(1) / groups, -1});
  const at::Tensor shuffled = grouped.permute({0, 2, 1, 3}).contiguous().reshape(self.sizes());
  return shuffled.contiguous(self.suggest_memory_format());
}

}  // namespace

void register_shape_ops(Table& t) {
  t.add("cat", Impl::prim, "cat", DEVPLUG_KERNEL(cat));
  t.add("cat.out", Impl::prim, "cat", DEVPLUG_KERNEL(cat_out));
  t.add("flip", Impl::prim, "flip", DEVPLUG_KERNEL(flip));
  t.add("roll", Impl::prim, "copy_strided", DEVPLUG_KERNEL(roll_fn));
  t.add("tril", Impl::bridge, "iota, sub, le, where", DEVPLUG_KERNEL(triangle<true>));
  t.add("tril_", Impl::bridge, "iota, sub, le, where", DEVPLUG_KERNEL(triangle_<true>));
  t.add("tril.out", Impl::bridge, "iota, sub, le, where", DEVPLUG_KERNEL(triangle_out<true>));
  t.add("triu", Impl::bridge, "iota, sub, ge, where", DEVPLUG_KERNEL(triangle<false>));
  t.add("triu_", Impl::bridge, "iota, sub, ge, where", DEVPLUG_KERNEL(triangle_<false>));
  t.add("triu.out", Impl::bridge, "iota, sub, ge, where", DEVPLUG_KERNEL(triangle_out<false>));
  t.add("arange.start_out", Impl::prim, "iota", DEVPLUG_KERNEL(arange_out));
  t.add("eye.out", Impl::prim, "fill", DEVPLUG_KERNEL(eye_out));
  t.add("eye.m_out", Impl::prim, "fill", DEVPLUG_KERNEL(eye_m_out));
  t.add("linspace.out", Impl::prim, "iota", DEVPLUG_KERNEL(linspace_out));
  t.add("logspace.out", Impl::bridge, "iota, mul, add, sub, pow", DEVPLUG_KERNEL(logspace_out));
  t.add("narrow_copy.out", Impl::prim, "copy_strided", DEVPLUG_KERNEL(narrow_copy_out));
  t.add("channel_shuffle", Impl::prim, "copy_strided", DEVPLUG_KERNEL(channel_shuffle));
}

}  // namespace devplug::bridge
