// SPDX-License-Identifier: Apache-2.0
// Reductions and scans: the devplug reduce prims (sum, prod, amax, amin, argmax, argmin,
// var, all, any) over a dims mask, keeping reduced dims as size 1 as devplug does; torch's
// keepdim=False result is a view of the same memory with those dims dropped. mean and
// logsumexp are devplug's composites; std, norms and counts are compositions of prims;
// cummax and cummin are log-depth running maxima (minima) of the values and their positions.
#include <ATen/Functions.h>
#include <ATen/native/Resize.h>

#include <cmath>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"
#include "ops/reduce.hpp"

namespace devplug::bridge {
namespace {

// Writes `reduced` (a reduction over `mask`, its dims kept as 1) into torch tensor `out`, whose
// shape drops those dims unless `keepdim`; casts when out's dtype differs.
void store_reduced(const Dev& dev, const DTensor& reduced, uint32_t mask, bool keepdim,
                   const at::Tensor& out) {
  DTensor target = view_of(out);
  if (!keepdim) target = unsqueeze_mask(target, mask);
  if (reduced.dtype() == target.dtype()) {
    dev.copy(reduced, target);
  } else {
    dev.call(DEVPLUG_OP_convert_element_type, {reduced}, {target});
  }
}

// Reduces `x` with `op` over `mask` into torch tensor `out` (store_reduced).
void reduce_to(const Dev& dev, devplug_op_t op, const DTensor& x, uint32_t mask, bool keepdim,
               const at::Tensor& out, double correction = 0) {
  if (out.numel() == 0) return;
  store_reduced(dev, dev.reduce(op, x, mask, correction), mask, keepdim, out);
}

uint32_t mask_of(const at::Tensor& self, at::OptionalIntArrayRef dim) {
  return dim.has_value() ? dims_mask(*dim, self.dim()) : dims_mask({}, self.dim());
}

at::ScalarType sum_dtype(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  if (dtype.has_value()) return *dtype;
  return c10::isIntegralType(self.scalar_type(), true) ? at::kLong : self.scalar_type();
}

// ---- sum, prod, mean ----------------------------------------------------------------------

at::Tensor& sum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                    std::optional<at::ScalarType> dtype, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  const uint32_t mask = mask_of(self, dim);
  fallback_unless_allowed(DEVPLUG_OP_sum, dtype.value_or(out.scalar_type()));
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  const devplug_dtype_t compute = require_dtype(dtype.value_or(out.scalar_type()), "sum's result");
  reduce_to(dev, DEVPLUG_OP_sum, dev.cast(view_of(self), compute), mask, keepdim, out);
  return out;
}
at::Tensor sum_fn(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                  std::optional<at::ScalarType> dtype) {
  Dev dev = Dev::of(self);
  at::Tensor out =
      empty_torch(dev, reduced_shape(self.sizes(), mask_of(self, dim), keepdim), sum_dtype(self, dtype));
  return sum_out(self, dim, keepdim, dtype, out);
}

// torch.equal: the same shape and every element equal after promotion (NaN is unequal to
// everything, itself included); read back to the host, as torch's CPU returns a bool.
bool equal(const at::Tensor& self, const at::Tensor& other) {
  Dev::of({&self, &other});  // one device
  if (!self.sizes().equals(other.sizes())) return false;
  if (self.numel() == 0) return true;
  return at::eq(self, other).all().item<bool>();
}

// nansum: sum of the input with NaN read as 0 (integers have no NaN: their sum).
at::Tensor nan_as_zero(const at::Tensor& self) {
  TORCH_CHECK(!c10::isComplexType(self.scalar_type()), "nansum does not support complex inputs");
  if (!c10::isFloatingType(self.scalar_type())) return self;
  Dev dev = Dev::of(self);
  at::Tensor clean = empty_torch(dev, self.sizes(), self.scalar_type());
  const DTensor x = view_of(self);
  dev.ew_into(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_isnan, {x}), dev.scalar(x.dtype(), 0), x}, view_of(clean));
  return clean;
}
at::Tensor& nansum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                       std::optional<at::ScalarType> dtype, at::Tensor& out) {
  return sum_out(nan_as_zero(self), dim, keepdim, dtype, out);
}
at::Tensor nansum_fn(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                     std::optional<at::ScalarType> dtype) {
  return sum_fn(nan_as_zero(self), dim, keepdim, dtype);
}

at::Tensor& prod_out(const at::Tensor& self, int64_t dim, bool keepdim, std::optional<at::ScalarType> dtype,
                     at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  const uint32_t mask = dims_mask({dim}, self.dim());
  fallback_unless_allowed(DEVPLUG_OP_prod, dtype.value_or(out.scalar_type()));
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  const devplug_dtype_t compute = require_dtype(dtype.value_or(out.scalar_type()), "prod's result");
  reduce_to(dev, DEVPLUG_OP_prod, dev.cast(view_of(self), compute), mask, keepdim, out);
  return out;
}
at::Tensor prod_dim(const at::Tensor& self, int64_t dim, bool keepdim, std::optional<at::ScalarType> dtype) {
  Dev dev = Dev::of(self);
  at::Tensor out = empty_torch(dev, reduced_shape(self.sizes(), dims_mask({dim}, self.dim()), keepdim),
                               sum_dtype(self, dtype));
  return prod_out(self, dim, keepdim, dtype, out);
}
at::Tensor prod_all(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  fallback_unless_allowed(DEVPLUG_OP_prod, sum_dtype(self, dtype));
  Dev dev = Dev::of(self);
  at::Tensor out = empty_torch(dev, {}, sum_dtype(self, dtype));
  reduce_to(dev, DEVPLUG_OP_prod, dev.cast(view_of(self), require_dtype(out.scalar_type(), "prod's result")),
            dims_mask({}, self.dim()), false, out);
  return out;
}

// Reduces `x` with composite `op` (mean, logsumexp) over `mask` into torch tensor `out`.
void reduce_composite(const Dev& dev, devplug_op_t op, const DTensor& x, uint32_t mask, bool keepdim,
                      const at::Tensor& out) {
  if (out.numel() == 0) return;
  DTensor target = view_of(out);
  if (!keepdim) target = unsqueeze_mask(target, mask);
  const devplug_reduce_attrs_t attrs{sizeof(attrs), mask, 0.0};
  dev.composite_into(op, {x}, target, &attrs);
}

at::Tensor& mean_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                     std::optional<at::ScalarType> dtype, at::Tensor& out) {
  const at::ScalarType type = dtype.value_or(out.scalar_type());
  TORCH_CHECK(c10::isFloatingType(type), "mean(): could not infer output dtype. ",
              dtype.has_value() ? "Optional" : "Input",
              " dtype must be either a floating point or complex dtype. "
              "Got: ",
              type);
  Dev dev = Dev::of({&self, &out});
  const uint32_t mask = mask_of(self, dim);
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  reduce_composite(dev, DEVPLUG_OP_mean, dev.cast(view_of(self), require_dtype(type, "mean's result")), mask,
                   keepdim, out);
  return out;
}
at::Tensor mean_fn(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                   std::optional<at::ScalarType> dtype) {
  Dev dev = Dev::of(self);
  const at::ScalarType type = dtype.value_or(self.scalar_type());
  at::Tensor out = empty_torch(dev, reduced_shape(self.sizes(), mask_of(self, dim), keepdim), type);
  return mean_out(self, dim, keepdim, dtype, out);
}

// Integers give the default float dtype, as torch's logsumexp.
at::Tensor& logsumexp_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  const uint32_t mask = dims_mask(dim, self.dim());
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  TORCH_CHECK(c10::isFloatingType(out.scalar_type()),
              "logsumexp(): Expected floating point type for result tensor, "
              "but got: ",
              out.scalar_type());
  reduce_composite(dev, DEVPLUG_OP_logsumexp, dev.cast(view_of(self), view_of(out).dtype()), mask, keepdim,
                   out);
  return out;
}
at::Tensor logsumexp(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  Dev dev = Dev::of(self);
  const at::ScalarType type =
      c10::isIntegralType(self.scalar_type(), true) ? default_float() : self.scalar_type();
  at::Tensor out = empty_torch(dev, reduced_shape(self.sizes(), dims_mask(dim, self.dim()), keepdim), type);
  return logsumexp_out(self, dim, keepdim, out);
}

// ---- amax, amin, max/min with indices, argmax, argmin ------------------------------------

template <devplug_op_t Op>
at::Tensor& extreme_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  TORCH_CHECK(self.scalar_type() == out.scalar_type(),
              "Expected the dtype for input and out to match, but got ", self.scalar_type(),
              " for input's dtype and ", out.scalar_type(), " for out's dtype.");
  const uint32_t mask = dims_mask(dim, self.dim());
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  reduce_to(dev, Op, view_of(self), mask, keepdim, out);
  return out;
}
template <devplug_op_t Op>
at::Tensor extreme_fn(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  Dev dev = Dev::of(self);
  at::Tensor out =
      empty_torch(dev, reduced_shape(self.sizes(), dims_mask(dim, self.dim()), keepdim), self.scalar_type());
  return extreme_out<Op>(self, dim, keepdim, out);
}
template <devplug_op_t Op>
at::Tensor extreme_all(const at::Tensor& self) {
  TORCH_CHECK(
      self.numel() > 0, Op == DEVPLUG_OP_amax ? "max" : "min",
      "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
      "'dim' argument.");
  return extreme_fn<Op>(self, {}, false);
}

// max(input, out=) and min(input, out=): torch reduces in the input's dtype, then casts into out.
template <devplug_op_t Op>
at::Tensor& extreme_all_out(const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(c10::canCast(self.scalar_type(), out.scalar_type()), "result type ", self.scalar_type(),
              " can't be cast to the desired output type ", out.scalar_type());
  if (out.scalar_type() == self.scalar_type()) {
    TORCH_CHECK(self.numel() > 0, Op == DEVPLUG_OP_amax ? "max" : "min",
                "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                "dim with the "
                "'dim' argument.");
    return extreme_out<Op>(self, {}, false, out);
  }
  const at::Tensor value = extreme_all<Op>(self);
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, {});
  dev.copy(dev.cast(view_of(value), view_of(out).dtype()), view_of(out));
  return out;
}

// aminmax: amin and amax over `dim`, or over every dim, with torch's errors for an empty
// reduction; in the input's dtype (bool, which amin and amax do not take, on the CPU).
std::tuple<at::Tensor&, at::Tensor&> aminmax_out(const at::Tensor& self, std::optional<int64_t> dim,
                                                 bool keepdim, at::Tensor& min, at::Tensor& max) {
  fallback_unless_allowed(DEVPLUG_OP_amin, self.scalar_type());
  for (const at::Tensor* out : {&min, &max})
    TORCH_CHECK(out->scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ",
                self.scalar_type(), ", but got ", out->scalar_type(), " instead");
  Dev dev = Dev::of({&self, &min, &max});
  uint32_t mask = 0;
  if (dim.has_value()) {
    const int64_t d = at::maybe_wrap_dim(*dim, self.dim());
    TORCH_CHECK_INDEX(self.dim() == 0 || self.size(d) != 0, "aminmax: Expected reduction dim ", d,
                      " to have non-zero size.");
    mask = dims_mask({d}, self.dim());
  } else {
    TORCH_CHECK(
        self.numel() > 0,
        "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    mask = dims_mask({}, self.dim());
  }
  const Shape shape = reduced_shape(self.sizes(), mask, keepdim);
  prepare_out(min, shape);
  prepare_out(max, shape);
  const DTensor x = view_of(self);
  reduce_to(dev, DEVPLUG_OP_amin, x, mask, keepdim, min);
  reduce_to(dev, DEVPLUG_OP_amax, x, mask, keepdim, max);
  return {min, max};
}

template <devplug_op_t ValueOp, devplug_op_t IndexOp>
std::tuple<at::Tensor&, at::Tensor&> extreme_dim_out(const at::Tensor& self, int64_t dim, bool keepdim,
                                                     at::Tensor& values, at::Tensor& indices) {
  fallback_unless_allowed(IndexOp, self.scalar_type());
  Dev dev = Dev::of({&self, &values, &indices});
  const uint32_t mask = dims_mask({dim}, self.dim());
  const Shape shape = reduced_shape(self.sizes(), mask, keepdim);
  prepare_out(values, shape);
  prepare_out(indices, shape);
  DTensor x = view_of(self);
  reduce_to(dev, ValueOp, x, mask, keepdim, values);
  reduce_to(dev, IndexOp, x, mask, keepdim, indices);
  return {values, indices};
}
template <devplug_op_t ValueOp, devplug_op_t IndexOp>
std::tuple<at::Tensor, at::Tensor> extreme_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  Dev dev = Dev::of(self);
  const Shape shape = reduced_shape(self.sizes(), dims_mask({dim}, self.dim()), keepdim);
  at::Tensor values = empty_torch(dev, shape, self.scalar_type());
  at::Tensor indices = empty_torch(dev, shape, at::kLong);
  extreme_dim_out<ValueOp, IndexOp>(self, dim, keepdim, values, indices);
  return {values, indices};
}

template <devplug_op_t Op>
at::Tensor& arg_out(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim, at::Tensor& out) {
  fallback_unless_allowed(Op, self.scalar_type());
  Dev dev = Dev::of({&self, &out});
  const uint32_t mask = dim.has_value() ? dims_mask({*dim}, self.dim()) : dims_mask({}, self.dim());
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  reduce_to(dev, Op, view_of(self), mask, keepdim, out);
  return out;
}
template <devplug_op_t Op>
at::Tensor arg_fn(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  Dev dev = Dev::of(self);
  const uint32_t mask = dim.has_value() ? dims_mask({*dim}, self.dim()) : dims_mask({}, self.dim());
  at::Tensor out = empty_torch(dev, reduced_shape(self.sizes(), mask, keepdim), at::kLong);
  return arg_out<Op>(self, dim, keepdim, out);
}

// ---- var, std ------------------------------------------------------------------------------

double correction_of(const std::optional<at::Scalar>& correction) {
  return correction.has_value() ? correction->toDouble() : 1.0;
}

at::Tensor& var_out(const at::Tensor& self, at::OptionalIntArrayRef dim,
                    const std::optional<at::Scalar>& correction, bool keepdim, at::Tensor& out) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()),
              "std and var only support floating point and complex dtypes");
  Dev dev = Dev::of({&self, &out});
  const uint32_t mask = mask_of(self, dim);
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  const double c = correction_of(correction);
  if (!(c < 0)) {
    reduce_to(dev, DEVPLUG_OP_var, view_of(self), mask, keepdim, out, c);
    return out;
  }
  // torch divides by max(0, N - correction); devplug's var takes corrections >= 0. A negative
  // one scales the population variance (correction 0) by N / (N - correction), computed in
  // float32 at least and rounded once.
  if (out.numel() == 0) return out;
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (mask & (1u << d)) n *= self.size(d);
  DTensor x = view_of(self);
  const devplug_dtype_t compute = opmath(x.dtype());
  DTensor population = dev.reduce(DEVPLUG_OP_var, dev.cast(x, compute), mask, 0.0);
  store_reduced(dev,
                dev.ew(DEVPLUG_OP_mul, {population, dev.scalar(compute, static_cast<double>(n) / (n - c))}),
                mask, keepdim, out);
  return out;
}
at::Tensor var_fn(const at::Tensor& self, at::OptionalIntArrayRef dim,
                  const std::optional<at::Scalar>& correction, bool keepdim) {
  Dev dev = Dev::of(self);
  at::Tensor out =
      empty_torch(dev, reduced_shape(self.sizes(), mask_of(self, dim), keepdim), self.scalar_type());
  return var_out(self, dim, correction, keepdim, out);
}
at::Tensor& std_out(const at::Tensor& self, at::OptionalIntArrayRef dim,
                    const std::optional<at::Scalar>& correction, bool keepdim, at::Tensor& out) {
  var_out(self, dim, correction, keepdim, out);
  if (out.numel() > 0) {
    Dev dev = Dev::of(out);
    DTensor o = view_of(out);
    dev.ew_into(DEVPLUG_OP_sqrt, {o}, o);
  }
  return out;
}
at::Tensor std_fn(const at::Tensor& self, at::OptionalIntArrayRef dim,
                  const std::optional<at::Scalar>& correction, bool keepdim) {
  Dev dev = Dev::of(self);
  at::Tensor out =
      empty_torch(dev, reduced_shape(self.sizes(), mask_of(self, dim), keepdim), self.scalar_type());
  return std_out(self, dim, correction, keepdim, out);
}
std::tuple<at::Tensor, at::Tensor> var_mean_fn(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                               const std::optional<at::Scalar>& correction, bool keepdim) {
  return {var_fn(self, dim, correction, keepdim), mean_fn(self, dim, keepdim, std::nullopt)};
}
std::tuple<at::Tensor, at::Tensor> std_mean_fn(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                               const std::optional<at::Scalar>& correction, bool keepdim) {
  return {std_fn(self, dim, correction, keepdim), mean_fn(self, dim, keepdim, std::nullopt)};
}

// ---- all, any ------------------------------------------------------------------------------

// torch keeps uint8 for all/any of uint8 inputs (a legacy rule); bool otherwise.
at::ScalarType logic_dtype(const at::Tensor& self) {
  return self.scalar_type() == at::kByte ? at::kByte : at::kBool;
}

template <devplug_op_t Op>
at::Tensor& logic_dims_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                           at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  const uint32_t mask = mask_of(self, dim);
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  reduce_to(dev, Op, view_of(self), mask, keepdim, out);
  return out;
}
template <devplug_op_t Op>
at::Tensor logic_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim) {
  Dev dev = Dev::of(self);
  at::Tensor out =
      empty_torch(dev, reduced_shape(self.sizes(), mask_of(self, dim), keepdim), logic_dtype(self));
  return logic_dims_out<Op>(self, dim, keepdim, out);
}
template <devplug_op_t Op>
at::Tensor& logic_dim_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& out) {
  return logic_dims_out<Op>(self, at::IntArrayRef{dim}, keepdim, out);
}
template <devplug_op_t Op>
at::Tensor logic_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  return logic_dims<Op>(self, at::IntArrayRef{dim}, keepdim);
}
template <devplug_op_t Op>
at::Tensor& logic_all_out(const at::Tensor& self, at::Tensor& out) {
  return logic_dims_out<Op>(self, std::nullopt, false, out);
}
template <devplug_op_t Op>
at::Tensor logic_all(const at::Tensor& self) {
  return logic_dims<Op>(self, std::nullopt, false);
}

// ---- scans ---------------------------------------------------------------------------------

template <devplug_op_t Op>
at::Tensor& scan_out(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> /*dtype: out has it*/,
                     at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return out;
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  DTensor x = dev.cast(view_of(self), require_dtype(out.scalar_type(), "the scan's result"));
  const devplug_dim_attrs_t attrs = dim_attrs(d);
  DTensor target = view_of(out);
  if (x.rank() == 0) {  // torch scans a 0-dim tensor as a 1-element vector
    x = x.reshape({1});
    target = target.reshape({1});
  }
  dev.call(Op, {x}, {target}, &attrs);
  return out;
}
template <devplug_op_t Op>
at::Tensor scan_fn(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  at::Tensor out =
      at::empty_like(self, self.options().dtype(sum_dtype(self, dtype)), at::MemoryFormat::Contiguous);
  return scan_out<Op>(self, dim, dtype, out);
}
template <devplug_op_t Op>
at::Tensor& scan_inplace(at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  return scan_out<Op>(self, dim, dtype, self);
}

// ---- cummax, cummin ---------------------------------------------------------------------------

// The running `op` (maximum or minimum) of `x` along `dim`, inclusive: log2(n) passes, each
// combining every element with the one `shift` before it (Hillis and Steele), on the device.
DTensor running(const Dev& dev, devplug_op_t op, const DTensor& x, int32_t dim) {
  const int64_t n = x.shape()[static_cast<size_t>(dim)];
  DTensor y = x;
  for (int64_t shift = 1; shift < n; shift *= 2) {
    DTensor next = dev.empty(x.dtype(), x.shape());
    dev.copy(y.slice(dim, 0, shift), next.slice(dim, 0, shift));
    dev.ew_into(op, {y.slice(dim, shift, n), y.slice(dim, 0, n - shift)}, next.slice(dim, shift, n));
    y = next;
  }
  return y;
}

// torch's CPU _cummax_helper (_cummin_helper with `min`): element i takes over when it is NaN,
// or when the running value before it is not NaN and x[i] >= it (<= for cummin), so ties and
// NaN take the later index. indices = the running max of the positions that take over;
// values = x gathered there. No read back.
template <bool Min>
void cummaxmin_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  Dev dev = Dev::of({&self, &values, &indices});
  if (self.numel() == 0) return;
  const int32_t d = static_cast<int32_t>(c10::maybe_wrap_dim(dim, self.dim()));
  const int64_t n = self.size(d);
  DTensor x = dev.contiguous(view_of(self));
  const devplug_dtype_t i64 = DEVPLUG_DTYPE_INT64;
  // Whether element i takes over from the running value of the elements before it.
  DTensor before = running(dev, Min ? DEVPLUG_OP_minimum : DEVPLUG_OP_maximum, x, d);
  DTensor takes = dev.empty(DEVPLUG_DTYPE_BOOL, x.shape());
  dev.fill(takes.slice(d, 0, 1), true);
  if (n > 1) {
    const DTensor cur = x.slice(d, 1, n), prev = before.slice(d, 0, n - 1);
    DTensor wins = dev.ew(Min ? DEVPLUG_OP_le : DEVPLUG_OP_ge, {cur, prev});
    if (c10::isFloatingType(self.scalar_type()))
      wins = dev.ew(DEVPLUG_OP_bitwise_or,
                    {dev.ew(DEVPLUG_OP_isnan, {cur}),
                     dev.ew(DEVPLUG_OP_bitwise_and,
                            {wins, dev.ew(DEVPLUG_OP_bitwise_not, {dev.ew(DEVPLUG_OP_isnan, {prev})})})});
    dev.copy(wins, takes.slice(d, 1, n));
  }
  Shape along(static_cast<size_t>(self.dim()), 1);
  along[static_cast<size_t>(d)] = n;
  DTensor position = dev.iota(i64, {n}, 0, 1).reshape(along);
  DTensor last =
      running(dev, DEVPLUG_OP_maximum, dev.ew(DEVPLUG_OP_where, {takes, position, dev.scalar(i64, -1)}), d);
  dev.copy(last, view_of(indices));
  const devplug_dim_attrs_t attrs = dim_attrs(d);
  DTensor picked = dev.empty(x.dtype(), x.shape());
  dev.call(DEVPLUG_OP_gather, {x, last}, {picked}, &attrs);
  dev.copy(picked, view_of(values));
}

}  // namespace

// ---- norms and counts ------------------------------------------------------------------------

at::Tensor& vector_norm_out(const at::Tensor& self, const at::Scalar& ord, at::OptionalIntArrayRef dim,
                            bool keepdim, std::optional<at::ScalarType> dtype, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  TORCH_CHECK_NOT_IMPLEMENTED(
      c10::isFloatingType(self.scalar_type()),
      "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ", self.scalar_type());
  TORCH_CHECK(!dtype.has_value() || c10::isFloatingType(*dtype),
              "linalg.vector_norm: dtype should be floating point or complex, but got ", *dtype);
  const at::ScalarType type = dtype.value_or(self.scalar_type());
  const uint32_t mask = mask_of(self, dim);
  prepare_out(out, reduced_shape(self.sizes(), mask, keepdim));
  if (out.numel() == 0) return out;
  // In float32 for 16-bit dtypes, as torch (its opmath type): a sum of float16 squares
  // overflows from 65504 on. The result is rounded to out's dtype once, at the end.
  const devplug_dtype_t given_dtype = require_dtype(type, "the norm"), c = opmath(given_dtype);
  DTensor x = dev.cast(dev.cast(view_of(self), given_dtype), c);
  DTensor a = dev.ew(DEVPLUG_OP_abs, {x});
  const double p = ord.toDouble();
  auto norm = [&]() -> DTensor {
    if (std::isinf(p)) {
      TORCH_CHECK(self.numel() > 0, "linalg.vector_norm cannot compute the ", p, " norm on an empty tensor");
      return dev.reduce(p > 0 ? DEVPLUG_OP_amax : DEVPLUG_OP_amin, a, mask);
    }
    if (p == 0)
      return dev.reduce(DEVPLUG_OP_sum, dev.cast(dev.ew(DEVPLUG_OP_ne, {a, dev.scalar(c, 0)}), c), mask);
    if (p == 1) return dev.reduce(DEVPLUG_OP_sum, a, mask);
    if (p == 2)
      return dev.ew(DEVPLUG_OP_sqrt, {dev.reduce(DEVPLUG_OP_sum, dev.ew(DEVPLUG_OP_mul, {a, a}), mask)});
    DTensor s = dev.reduce(DEVPLUG_OP_sum, dev.ew(DEVPLUG_OP_pow, {a, dev.scalar(c, p)}), mask);
    return dev.ew(DEVPLUG_OP_pow, {s, dev.scalar(c, 1.0 / p)});
  };
  DTensor r = norm();
  DTensor target = view_of(out);
  if (!keepdim) target = unsqueeze_mask(target, mask);
  dev.copy(dev.cast(r, target.dtype()), target);
  return out;
}
at::Tensor vector_norm(const at::Tensor& self, const at::Scalar& ord, at::OptionalIntArrayRef dim,
                       bool keepdim, std::optional<at::ScalarType> dtype) {
  Dev dev = Dev::of(self);
  at::Tensor out = empty_torch(dev, reduced_shape(self.sizes(), mask_of(self, dim), keepdim),
                               dtype.value_or(self.scalar_type()));
  return vector_norm_out(self, ord, dim, keepdim, dtype, out);
}

namespace {

at::Tensor& norm_out(const at::Tensor& self, const std::optional<at::Scalar>& p, at::IntArrayRef dim,
                     bool keepdim, at::Tensor& out) {
  return vector_norm_out(self, p.value_or(2), dim, keepdim, std::nullopt, out);
}
at::Tensor norm_dim(const at::Tensor& self, const std::optional<at::Scalar>& p, at::IntArrayRef dim,
                    bool keepdim) {
  return vector_norm(self, p.value_or(2), dim, keepdim, std::nullopt);
}
at::Tensor& norm_dtype_out(const at::Tensor& self, const std::optional<at::Scalar>& p, at::IntArrayRef dim,
                           bool keepdim, at::ScalarType dtype, at::Tensor& out) {
  return vector_norm_out(self, p.value_or(2), dim, keepdim, dtype, out);
}
at::Tensor norm_dtype(const at::Tensor& self, const std::optional<at::Scalar>& p, at::IntArrayRef dim,
                      bool keepdim, at::ScalarType dtype) {
  return vector_norm(self, p.value_or(2), dim, keepdim, dtype);
}

at::Tensor count_nonzero(const at::Tensor& self, at::IntArrayRef dim) {
  Dev dev = Dev::of(self);
  const uint32_t mask = dims_mask(dim, self.dim());
  at::Tensor out = empty_torch(dev, reduced_shape(self.sizes(), mask, false), at::kLong);
  DTensor nz = dev.cast(dev.cast(view_of(self), DEVPLUG_DTYPE_BOOL), DEVPLUG_DTYPE_INT64);
  reduce_to(dev, DEVPLUG_OP_sum, nz, mask, false, out);
  return out;
}

}  // namespace

void register_reduction_ops(Table& t) {
  t.add("sum.dim_IntList", Impl::prim, "sum", DEVPLUG_KERNEL(sum_fn));
  t.add("sum.IntList_out", Impl::prim, "sum", DEVPLUG_KERNEL(sum_out));
  t.add("equal", Impl::bridge, "eq, all", DEVPLUG_KERNEL(equal));
  t.add("nansum", Impl::bridge, "isnan, where, sum", DEVPLUG_KERNEL(nansum_fn));
  t.add("nansum.out", Impl::bridge, "isnan, where, sum", DEVPLUG_KERNEL(nansum_out));
  t.add("prod", Impl::prim, "prod", DEVPLUG_KERNEL(prod_all));
  t.add("prod.dim_int", Impl::prim, "prod", DEVPLUG_KERNEL(prod_dim));
  t.add("prod.int_out", Impl::prim, "prod", DEVPLUG_KERNEL(prod_out));
  t.add("mean.dim", Impl::composite, "mean", DEVPLUG_KERNEL(mean_fn));
  t.add("logsumexp", Impl::composite, "logsumexp", DEVPLUG_KERNEL(logsumexp));
  t.add("logsumexp.out", Impl::composite, "logsumexp", DEVPLUG_KERNEL(logsumexp_out));
  t.add("mean.out", Impl::composite, "mean", DEVPLUG_KERNEL(mean_out));
  t.add("amax", Impl::prim, "amax", DEVPLUG_KERNEL(extreme_fn<DEVPLUG_OP_amax>));
  t.add("amax.out", Impl::prim, "amax", DEVPLUG_KERNEL(extreme_out<DEVPLUG_OP_amax>));
  t.add("amin", Impl::prim, "amin", DEVPLUG_KERNEL(extreme_fn<DEVPLUG_OP_amin>));
  t.add("amin.out", Impl::prim, "amin", DEVPLUG_KERNEL(extreme_out<DEVPLUG_OP_amin>));
  t.add("aminmax.out", Impl::prim, "amin, amax", DEVPLUG_KERNEL(aminmax_out));
  t.add("max", Impl::prim, "amax", DEVPLUG_KERNEL(extreme_all<DEVPLUG_OP_amax>));
  t.add("min", Impl::prim, "amin", DEVPLUG_KERNEL(extreme_all<DEVPLUG_OP_amin>));
  t.add("max.unary_out", Impl::prim, "amax", DEVPLUG_KERNEL(extreme_all_out<DEVPLUG_OP_amax>));
  t.add("min.unary_out", Impl::prim, "amin", DEVPLUG_KERNEL(extreme_all_out<DEVPLUG_OP_amin>));
  t.add("max.dim", Impl::prim, "amax, argmax",
        DEVPLUG_KERNEL(extreme_dim<DEVPLUG_OP_amax, DEVPLUG_OP_argmax>));
  t.add("max.dim_max", Impl::prim, "amax, argmax",
        DEVPLUG_KERNEL(extreme_dim_out<DEVPLUG_OP_amax, DEVPLUG_OP_argmax>));
  t.add("min.dim", Impl::prim, "amin, argmin",
        DEVPLUG_KERNEL(extreme_dim<DEVPLUG_OP_amin, DEVPLUG_OP_argmin>));
  t.add("min.dim_min", Impl::prim, "amin, argmin",
        DEVPLUG_KERNEL(extreme_dim_out<DEVPLUG_OP_amin, DEVPLUG_OP_argmin>));
  t.add("argmax", Impl::prim, "argmax", DEVPLUG_KERNEL(arg_fn<DEVPLUG_OP_argmax>));
  t.add("argmax.out", Impl::prim, "argmax", DEVPLUG_KERNEL(arg_out<DEVPLUG_OP_argmax>));
  t.add("argmin", Impl::prim, "argmin", DEVPLUG_KERNEL(arg_fn<DEVPLUG_OP_argmin>));
  t.add("argmin.out", Impl::prim, "argmin", DEVPLUG_KERNEL(arg_out<DEVPLUG_OP_argmin>));
  t.add("var.correction", Impl::prim, "var; a negative correction: var, mul, convert_element_type",
        DEVPLUG_KERNEL(var_fn));
  t.add("var.correction_out", Impl::prim, "var; a negative correction: var, mul, convert_element_type",
        DEVPLUG_KERNEL(var_out));
  t.add("std.correction", Impl::prim,
        "var, sqrt; a negative correction: var, mul, convert_element_type, sqrt", DEVPLUG_KERNEL(std_fn));
  t.add("std.correction_out", Impl::prim,
        "var, sqrt; a negative correction: var, mul, convert_element_type, sqrt", DEVPLUG_KERNEL(std_out));
  t.add("var_mean.correction", Impl::prim,
        "var, sum, div; a negative correction: also mul, convert_element_type", DEVPLUG_KERNEL(var_mean_fn));
  t.add("std_mean.correction", Impl::prim,
        "var, sqrt, sum, div; a negative correction: also mul, convert_element_type",
        DEVPLUG_KERNEL(std_mean_fn));
  t.add("all", Impl::prim, "all", DEVPLUG_KERNEL(logic_all<DEVPLUG_OP_all>));
  t.add("all.all_out", Impl::prim, "all", DEVPLUG_KERNEL(logic_all_out<DEVPLUG_OP_all>));
  t.add("all.dim", Impl::prim, "all", DEVPLUG_KERNEL(logic_dim<DEVPLUG_OP_all>));
  t.add("all.out", Impl::prim, "all", DEVPLUG_KERNEL(logic_dim_out<DEVPLUG_OP_all>));
  t.add("all.dims", Impl::prim, "all", DEVPLUG_KERNEL(logic_dims<DEVPLUG_OP_all>));
  t.add("all.dims_out", Impl::prim, "all", DEVPLUG_KERNEL(logic_dims_out<DEVPLUG_OP_all>));
  t.add("any", Impl::prim, "any", DEVPLUG_KERNEL(logic_all<DEVPLUG_OP_any>));
  t.add("any.all_out", Impl::prim, "any", DEVPLUG_KERNEL(logic_all_out<DEVPLUG_OP_any>));
  t.add("any.dim", Impl::prim, "any", DEVPLUG_KERNEL(logic_dim<DEVPLUG_OP_any>));
  t.add("any.out", Impl::prim, "any", DEVPLUG_KERNEL(logic_dim_out<DEVPLUG_OP_any>));
  t.add("any.dims", Impl::prim, "any", DEVPLUG_KERNEL(logic_dims<DEVPLUG_OP_any>));
  t.add("any.dims_out", Impl::prim, "any", DEVPLUG_KERNEL(logic_dims_out<DEVPLUG_OP_any>));
  t.add("cumsum", Impl::prim, "cumsum", DEVPLUG_KERNEL(scan_fn<DEVPLUG_OP_cumsum>));
  t.add("cumsum_", Impl::prim, "cumsum", DEVPLUG_KERNEL(scan_inplace<DEVPLUG_OP_cumsum>));
  t.add("cumsum.out", Impl::prim, "cumsum", DEVPLUG_KERNEL(scan_out<DEVPLUG_OP_cumsum>));
  t.add("_cummax_helper", Impl::bridge, "maximum, ge, isnan, iota, where, gather",
        DEVPLUG_KERNEL(cummaxmin_helper<false>));
  t.add("_cummin_helper", Impl::bridge, "minimum, maximum, le, isnan, iota, where, gather",
        DEVPLUG_KERNEL(cummaxmin_helper<true>));
  t.add("cumprod", Impl::prim, "cumprod", DEVPLUG_KERNEL(scan_fn<DEVPLUG_OP_cumprod>));
  t.add("cumprod_", Impl::prim, "cumprod", DEVPLUG_KERNEL(scan_inplace<DEVPLUG_OP_cumprod>));
  t.add("cumprod.out", Impl::prim, "cumprod", DEVPLUG_KERNEL(scan_out<DEVPLUG_OP_cumprod>));
  t.add("linalg_vector_norm", Impl::bridge, "abs, mul, sum, sqrt, pow, amax, amin",
        DEVPLUG_KERNEL(vector_norm));
  t.add("linalg_vector_norm.out", Impl::bridge, "abs, mul, sum, sqrt, pow, amax, amin",
        DEVPLUG_KERNEL(vector_norm_out));
  t.add("norm.ScalarOpt_dim", Impl::bridge, "abs, mul, sum, sqrt, pow", DEVPLUG_KERNEL(norm_dim));
  t.add("norm.out", Impl::bridge, "abs, mul, sum, sqrt, pow", DEVPLUG_KERNEL(norm_out));
  t.add("norm.ScalarOpt_dim_dtype", Impl::bridge, "abs, mul, sum, sqrt, pow", DEVPLUG_KERNEL(norm_dtype));
  t.add("norm.dtype_out", Impl::bridge, "abs, mul, sum, sqrt, pow", DEVPLUG_KERNEL(norm_dtype_out));
  t.add("count_nonzero.dim_IntList", Impl::prim, "convert_element_type, sum", DEVPLUG_KERNEL(count_nonzero));
}

}  // namespace devplug::bridge
