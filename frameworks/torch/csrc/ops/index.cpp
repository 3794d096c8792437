// SPDX-License-Identifier: Apache-2.0
// Indexing: index_select, gather, scatter, scatter_add, index_add, index_fill_, index_copy,
// take and put_ on the devplug index prims (scatter_reduce's sum and mean and index_reduce's
// mean composed of them); torch's advanced indexing (x[idx], x[mask], x[idx] = v, x[idx] += v) by turning
// the indexed dims into one linear index over them; nonzero, nonzero_static, masked_select,
// masked_scatter_ and repeat_interleave's index by a running count; embedding and its backward on devplug's composites.
//
// Index values are checked on the device against their dim before use (one small read
// back per op): torch raises IndexError for a bad index, and a plugin is not required to
// check.
#include <ATen/ExpandUtils.h>
#include <c10/util/accumulate.h>

#include <algorithm>
#include <ATen/Functions.h>
#include <ATen/native/Resize.h>

#include "fallback.hpp"
#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// `index` (a torch integer tensor on the device, or a CPU scalar) as a devplug int64 tensor.
DTensor index_operand(const Dev& dev, const at::Tensor& index, const char* what) {
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt, what,
              "(): Expected dtype int32/int64 for index but got: ", index.scalar_type());
  return dev.cast(dev.operand(index), DEVPLUG_DTYPE_INT64);
}

// Throws IndexError unless every value of `index` lies in [lo, size).
void check_bounds(const Dev& dev, const DTensor& index, int64_t size, const char* what, int64_t lo = 0) {
  if (index.numel() == 0) return;
  DTensor below = dev.ew(DEVPLUG_OP_lt, {index, dev.scalar(DEVPLUG_DTYPE_INT64, lo)});
  DTensor above = dev.ew(DEVPLUG_OP_ge, {index, dev.scalar(DEVPLUG_DTYPE_INT64, size)});
  DTensor bad =
      dev.reduce(DEVPLUG_OP_any, dev.ew(DEVPLUG_OP_bitwise_or, {below, above}), (1u << index.rank()) - 1u);
  uint8_t flag = 0;
  bad.reshape({}).copy_to_host(&flag, 1, &dev.stream());
  TORCH_CHECK_INDEX(flag == 0, what, ": index out of range in self (every index must lie in [", lo, ", ",
                    size, "))");
}

// `t` with rank >= 1 (a 0-dim tensor as a 1-element vector), for the prims' shape rules.
DTensor at_least_1d(const DTensor& t) { return t.rank() == 0 ? t.reshape({1}) : t; }

// ---- index_select, gather ------------------------------------------------------------------

at::Tensor& index_select_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, at::Tensor& out) {
  Dev dev = Dev::of({&self, &index, &out});
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> shape = self.sizes().vec();
  if (self.dim() > 0) shape[d] = index.numel();
  prepare_out(out, shape);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "index_select(): self and out must have one dtype");
  DTensor idx = at_least_1d(index_operand(dev, index, "index_select"));
  const int64_t size = self.dim() > 0 ? self.size(d) : 1;
  check_bounds(dev, idx, size, "index_select()");
  if (out.numel() == 0) return out;
  const devplug_dim_attrs_t attrs = dim_attrs(d);
  dev.call(DEVPLUG_OP_index_select, {at_least_1d(view_of(self)), idx}, {at_least_1d(view_of(out))}, &attrs);
  return out;
}
at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  at::Tensor out = empty_torch(Dev::of(self), {0}, self.scalar_type());
  return index_select_out(self, dim, index, out);
}

at::Tensor& gather_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool /*sparse_grad*/,
                       at::Tensor& out) {
  Dev dev = Dev::of({&self, &index, &out});
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1),
              "Index tensor must have the same number of dimensions as input tensor");
  prepare_out(out, index.sizes());
  if (out.numel() == 0) return out;
  DTensor idx = at_least_1d(index_operand(dev, index, "gather"));
  check_bounds(dev, idx, self.dim() > 0 ? self.size(d) : 1, "gather()");
  const devplug_dim_attrs_t attrs = dim_attrs(d);
  dev.call(DEVPLUG_OP_gather, {at_least_1d(view_of(self)), idx}, {at_least_1d(view_of(out))}, &attrs);
  return out;
}
at::Tensor gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool sparse_grad) {
  at::Tensor out = empty_torch(Dev::of(self), index.sizes(), self.scalar_type());
  return gather_out(self, dim, index, sparse_grad, out);
}

// ---- take, put_, index_copy ------------------------------------------------------------------

// `index` (int64) as one dense vector, checked against [-size, size) and wrapped into [0, size).
DTensor wrapped_linear_index(const Dev& dev, const at::Tensor& index, int64_t size, const char* what) {
  DTensor idx = dev.contiguous(dev.operand(index)).reshape({index.numel()});
  check_bounds(dev, idx, size, what, -size);
  DTensor negative = dev.ew(DEVPLUG_OP_lt, {idx, dev.scalar(DEVPLUG_DTYPE_INT64, 0)});
  return dev.ew(DEVPLUG_OP_where, {negative, dev.ew_scalar(DEVPLUG_OP_add, idx, size), idx});
}

// take: self read as one row-major vector at `index`, in index's shape.
at::Tensor& take_out(const at::Tensor& self, const at::Tensor& index, at::Tensor& out) {
  TORCH_CHECK(index.scalar_type() == at::kLong, "take(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK(self.scalar_type() == out.scalar_type(),
              "take(): self and out expected to have the same dtype, but got self.dtype = ",
              self.scalar_type(), " and out.dtype = ", out.scalar_type());
  TORCH_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0), "take(): tried to take from an empty tensor");
  Dev dev = Dev::of({&self, &index, &out});
  prepare_out(out, index.sizes());
  if (index.numel() == 0) return out;
  const int64_t n = self.numel();
  DTensor idx = wrapped_linear_index(dev, index, n, "take()");
  DTensor flat = dev.contiguous(view_of(self)).reshape({n});
  DTensor taken = dev.empty(flat.dtype(), {index.numel()});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  dev.call(DEVPLUG_OP_index_select, {flat, idx}, {taken}, &attrs);
  dev.copy(taken.reshape(index.sizes().vec()), view_of(out));
  return out;
}
at::Tensor take(const at::Tensor& self, const at::Tensor& index) {
  at::Tensor out = empty_torch(Dev::of({&self, &index}), index.sizes(), self.scalar_type());
  return take_out(self, index, out);
}

// put_: self, read as one row-major vector, takes source's values at `index` (accumulate: adds
// them, repeated indices included).
at::Tensor& put_(at::Tensor& self, const at::Tensor& index, const at::Tensor& source, bool accumulate) {
  TORCH_CHECK_INDEX(index.scalar_type() == at::kLong, "put_(): Expected a long tensor for index, but got ",
                    index.scalar_type());
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "put_(): self and source expected to have the same dtype, but got self.dtype = ",
              self.scalar_type(), " and source.dtype = ", source.scalar_type());
  TORCH_CHECK(
      source.numel() == index.numel(),
      "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
      source.numel(), ", index.numel() = ", index.numel());
  TORCH_CHECK_INDEX(!(self.numel() == 0 && index.numel() != 0),
                    "put_(): Tried to put elements into an empty tensor");
  const devplug_op_t op = accumulate ? DEVPLUG_OP_scatter_add : DEVPLUG_OP_scatter;
  fallback_unless_allowed(op, self.scalar_type());
  Dev dev = Dev::of({&self, &index, &source});
  if (index.numel() == 0) return self;
  const int64_t n = self.numel();
  DTensor idx = wrapped_linear_index(dev, index, n, "put_()");
  DTensor src = dev.contiguous(view_of(source)).reshape({index.numel()});
  DTensor target = view_of(self);
  DTensor flat = dev.contiguous(target).reshape({n});
  DTensor result = dev.empty(flat.dtype(), {n});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  dev.call(op, {flat, idx, src}, {result}, &attrs);
  dev.copy(result.reshape(self.sizes().vec()), target);
  return self;
}

// index_copy: out = self with source's slices along dim written at `index`.
at::Tensor& index_copy_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                           const at::Tensor& source, at::Tensor& out) {
  const int64_t d = c10::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  TORCH_CHECK_INDEX(index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(),
                    ")");
  TORCH_CHECK_INDEX(index.scalar_type() == at::kLong,
                    "index_copy_(): Expected a long tensor for index, but got ", index.scalar_type());
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "index_copy_(): self and source expected to have the same dtype, but got (self) ",
              self.scalar_type(), " and (source) ", source.scalar_type());
  TORCH_CHECK(self.dim() == source.dim() || (self.dim() <= 1 && source.dim() <= 1),
              "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
              "Source dimensionality (",
              source.dim(), "), destination dimensionality (", self.dim(), ")");
  const int64_t along = source.dim() > 0 ? source.size(d) : 1;
  TORCH_CHECK_INDEX(index.numel() == along, "index_copy_(): Number of indices (", index.numel(),
                    ") should be equal to source.size(dim) (", along, ")");
  for (int64_t k = 0; k < self.dim() && self.dim() == source.dim(); ++k)
    TORCH_CHECK(k == d || self.size(k) == source.size(k),
                "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                "shape: ",
                self.sizes(), " at dimension ", d, " and source slice shape: ", source.sizes(),
                " at dimension 0.");
  fallback_unless_allowed(DEVPLUG_OP_scatter, self.scalar_type());
  Dev dev = Dev::of({&self, &index, &source, &out});
  prepare_out(out, self.sizes());
  const bool in_place = out.is_same(self);
  if (!in_place) dev.copy(view_of(self), view_of(out));
  if (self.numel() == 0 || index.numel() == 0) return out;
  const int64_t size = self.dim() > 0 ? self.size(d) : 1;
  DTensor src = at_least_1d(view_of(source));
  Shape index_shape(src.rank(), 1);
  index_shape[static_cast<size_t>(self.dim() > 0 ? d : 0)] = index.numel();
  DTensor idx = at_least_1d(dev.contiguous(dev.operand(index)));
  check_bounds(dev, idx, size, "index_copy_()");
  idx = dev.contiguous(idx.reshape(index_shape).expand(src.shape()));
  const devplug_dim_attrs_t attrs = dim_attrs(self.dim() > 0 ? d : 0);
  DTensor target = at_least_1d(view_of(out));
  DTensor tmp = dev.empty(target.dtype(), target.shape());
  dev.call(DEVPLUG_OP_scatter, {target, idx, src}, {tmp}, &attrs);
  dev.copy(tmp, target);
  return out;
}

// ---- index_fill_ ------------------------------------------------------------------------------

// self[.., index[k], ..] = value along dim (negative indices count from the end): a mask of
// the dim's positions scattered on the device, then `where` over self in place. `value` is a
// 0-dim devplug tensor of self's dtype.
at::Tensor& index_fill_with(at::Tensor& self, int64_t dim, const at::Tensor& index, const DTensor& value) {
  Dev dev = Dev::of({&self, &index});
  TORCH_CHECK_INDEX(index.scalar_type() == at::kLong, "index_fill_(): Expected dtype int64 for index.");
  const int64_t d = c10::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  TORCH_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  if (self.numel() == 0 || index.numel() == 0) return self;
  const int64_t size = self.dim() > 0 ? self.size(d) : 1;
  DTensor wrapped = wrapped_linear_index(dev, index, size, "index_fill_()");
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  DTensor mask = dev.empty(DEVPLUG_DTYPE_BOOL, {size});
  dev.call(DEVPLUG_OP_scatter,
           {dev.full(DEVPLUG_DTYPE_BOOL, {size}, false), wrapped,
            dev.full(DEVPLUG_DTYPE_BOOL, wrapped.shape(), true)},
           {mask}, &attrs);
  Shape along(static_cast<size_t>(self.dim()), 1);
  if (self.dim() > 0) along[static_cast<size_t>(d)] = size;
  DTensor target = view_of(self);
  dev.ew_into(DEVPLUG_OP_where, {mask.reshape(along), value, target}, target);
  return self;
}
at::Tensor& index_fill_scalar_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                               const at::Scalar& value) {
  TORCH_CHECK(self.is_complex() || !value.isComplex(),
              "index_fill_(): Converting complex Scalar to non-complex type is not supported");
  Dev dev = Dev::of({&self, &index});
  return index_fill_with(self, dim, index,
                         dev.scalar(require_dtype(self.scalar_type(), "index_fill_"), value));
}
at::Tensor& index_fill_tensor_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                               const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0,
              "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
              " dimension(s).");
  Dev dev = Dev::of({&self, &index, &value});
  const devplug_dtype_t dtype = require_dtype(self.scalar_type(), "index_fill_");
  return index_fill_with(self, dim, index, dev.cast(dev.operand(value, dtype), dtype));
}

// ---- scatter, scatter_add, index_add -----------------------------------------------------------

// out = self with src scattered along dim (op scatter or scatter_add). `out` may be `self`:
// the prim's output must not overlap its input, so then it goes through a temporary.
void scatter_into(devplug_op_t op, const at::Tensor& self, int64_t dim, const at::Tensor& index,
                  const DTensor& src, const at::Tensor& out) {
  fallback_unless_allowed(op, self.scalar_type());
  Dev dev = Dev::of({&self, &index, &out});
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1),
              "Index tensor must have the same number of dimensions as self tensor");
  prepare_out(out, self.sizes());
  if (self.numel() == 0) return;
  DTensor idx = at_least_1d(index_operand(dev, index, "scatter"));
  check_bounds(dev, idx, self.dim() > 0 ? self.size(d) : 1,
               op == DEVPLUG_OP_scatter ? "scatter()" : "scatter_add()");
  const devplug_dim_attrs_t attrs = dim_attrs(d);
  DTensor base = at_least_1d(view_of(self));
  DTensor source = at_least_1d(dev.cast(src, base.dtype()));
  DTensor target = at_least_1d(view_of(out));
  if (out.is_same(self) || out.unsafeGetTensorImpl()->storage().is_alias_of(self.storage())) {
    DTensor tmp = dev.empty(base.dtype(), base.shape());
    dev.call(op, {base, idx, source}, {tmp}, &attrs);
    dev.copy(tmp, target);
  } else {
    dev.call(op, {base, idx, source}, {target}, &attrs);
  }
}

template <devplug_op_t Op>
at::Tensor& scatter_src_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                            const at::Tensor& src, at::Tensor& out) {
  TORCH_CHECK(src.scalar_type() == self.scalar_type(),
              "scatter(): Expected self.dtype to be equal to src.dtype");
  Dev dev = Dev::of({&self, &src});
  scatter_into(Op, self, dim, index, view_of(src), out);
  return out;
}
template <devplug_op_t Op>
at::Tensor scatter_src(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  at::Tensor out = at::empty_like(self);
  return scatter_src_out<Op>(self, dim, index, src, out);
}
template <devplug_op_t Op>
at::Tensor& scatter_src_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  return scatter_src_out<Op>(self, dim, index, src, self);
}

at::Tensor& scatter_value_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                              const at::Scalar& value, at::Tensor& out) {
  Dev dev = Dev::of({&self, &index});
  const devplug_dtype_t dtype = require_dtype(self.scalar_type(), "scatter's self");
  DTensor src = dev.scalar(dtype, value);
  Shape shape = index.sizes().vec();
  if (shape.empty()) shape = {1};
  scatter_into(DEVPLUG_OP_scatter, self, dim, index, src.expand(shape), out);
  return out;
}
at::Tensor scatter_value(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Scalar& value) {
  at::Tensor out = at::empty_like(self);
  return scatter_value_out(self, dim, index, value, out);
}
at::Tensor& scatter_value_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value) {
  return scatter_value_out(self, dim, index, value, self);
}

// index_add: scatter_add with the 1-D index spread over the source's shape (stride-0 view).
at::Tensor& index_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                          const at::Tensor& source, const at::Scalar& alpha, at::Tensor& out) {
  Dev dev = Dev::of({&self, &index, &source, &out});
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector");
  TORCH_CHECK(source.scalar_type() == self.scalar_type(), "index_add_(): self (", self.scalar_type(),
              ") and source (", source.scalar_type(), ") must have the same scalar type");
  fallback_unless_allowed(DEVPLUG_OP_scatter_add, self.scalar_type());
  DTensor src = at_least_1d(view_of(source));
  if (!alpha.equal(1)) src = dev.ew(DEVPLUG_OP_mul, {src, dev.scalar(src.dtype(), alpha)});
  Shape index_shape(std::max<int64_t>(source.dim(), 1), 1);
  index_shape[self.dim() > 0 ? d : 0] = index.numel();
  Dev idev = Dev::of({&self, &index});
  DTensor idx = index_operand(idev, index, "index_add").reshape(index_shape).expand(src.shape());
  Dev odev = Dev::of({&self, &out});
  prepare_out(out, self.sizes());
  if (self.numel() == 0 || source.numel() == 0) {
    if (!out.is_same(self)) out.copy_(self);
    return out;
  }
  check_bounds(odev, idx, self.dim() > 0 ? self.size(d) : 1, "index_add()");
  const devplug_dim_attrs_t attrs = dim_attrs(self.dim() > 0 ? d : 0);
  DTensor base = at_least_1d(view_of(self));
  DTensor target = at_least_1d(view_of(out));
  DTensor tmp = dev.empty(base.dtype(), base.shape());
  dev.call(DEVPLUG_OP_scatter_add, {base, dev.contiguous(idx), src}, {tmp}, &attrs);
  dev.copy(tmp, target);
  return out;
}
at::Tensor index_add(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                     const at::Scalar& alpha) {
  at::Tensor out = at::empty_like(self);
  return index_add_out(self, dim, index, source, alpha, out);
}
at::Tensor& index_add_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                       const at::Scalar& alpha) {
  return index_add_out(self, dim, index, source, alpha, self);
}

// ---- scatter_reduce and index_reduce: sum and mean ------------------------------------------

// Whether a call is one torch accepts: the rest run on torch's CPU, for its own messages (as
// does an out tensor of another dtype).
// Bool runs there too (its sum is an or, its mean a division of bools).
bool scatter_call_holds(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  if (index.scalar_type() != at::kLong || src.scalar_type() != self.scalar_type()) return false;
  if (self.scalar_type() == at::kBool) return false;
  if (index.dim() != self.dim() || src.dim() != self.dim()) return false;
  if (self.dim() == 0) return dim == 0 || dim == -1;
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  for (int64_t i = 0; i < self.dim(); ++i)
    if (index.size(i) > src.size(i) || (i != d && index.size(i) > self.size(i))) return false;
  return true;
}
// index_reduce's bfloat16 runs there too: torch's CPU rounds its running sum to bfloat16 after
// each add, devplug's scatter_add rounds the sum once, and with bfloat16's 8 bits OpInfo's
// sample of many values at one place differs by more than its tolerance (7% relative).
bool index_call_holds(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                      const at::Tensor& source) {
  if (index.scalar_type() != at::kLong || index.dim() > 1 || source.scalar_type() != self.scalar_type())
    return false;
  if (self.scalar_type() == at::kBool || self.scalar_type() == at::kBFloat16) return false;
  if (source.dim() != self.dim()) return false;
  if (self.dim() == 0) return (dim == 0 || dim == -1) && index.numel() == 1;
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d && source.size(i) != self.size(i)) return false;
  return index.numel() == source.size(d);
}

// A 0-dim operand as the 1-element tensor along dim 0 that torch takes it for (a view).
at::Tensor as_1d(const at::Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

// `out` holds self's values (it may be self); returns the wrapped dim (0 for a 0-dim self).
int64_t start_from_self(const at::Tensor& self, int64_t dim, at::Tensor& out) {
  if (!out.is_same(self)) {
    at::native::resize_output(out, self.sizes());
    out.copy_(self);
  }
  return self.dim() == 0 ? 0 : c10::maybe_wrap_dim(dim, self.dim());
}

// out /= how many values landed at each place (self counting as one with include_self; a
// place nothing landed on divides by one), rounding down for integers: torch's mean.
void divide_by_counts(at::Tensor& out, const at::Tensor& counts) {
  counts.masked_fill_(counts.eq(0), 1);
  if (out.is_floating_point())
    out.div_(counts);
  else
    out.div_(counts, "floor");
}

// scatter_reduce with "sum" or "mean", as torch's CPU composes it: the places the index names
// start from zero without include_self, src is scatter-added, and mean divides by the counts,
// a scatter_add of ones. "prod", "amax" and "amin" run on the CPU (counted).
at::Tensor& scatter_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                               const at::Tensor& src, c10::string_view reduce, bool include_self,
                               at::Tensor& out) {
  const bool mean = reduce == "mean";
  if ((!mean && reduce != "sum") || !scatter_call_holds(self, dim, index, src) ||
      out.scalar_type() != self.scalar_type())
    throw OnCpu{};
  const int64_t d = start_from_self(self, dim, out);
  if (index.numel() == 0) return out;
  at::Tensor target = as_1d(out), places = as_1d(index), values = as_1d(src);
  if (!include_self) target.scatter_(d, places, 0);
  target.scatter_add_(d, places, values);
  if (mean) {
    at::Tensor counts = include_self ? at::ones_like(target) : at::zeros_like(target);
    counts.scatter_add_(d, places, at::ones_like(values));
    divide_by_counts(target, counts);
  }
  return out;
}
at::Tensor scatter_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                          c10::string_view reduce, bool include_self) {
  at::Tensor out = at::empty_like(self);
  return scatter_reduce_out(self, dim, index, src, reduce, include_self, out);
}
at::Tensor& scatter_reduce_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                            c10::string_view reduce, bool include_self) {
  return scatter_reduce_out(self, dim, index, src, reduce, include_self, self);
}

// index_reduce with "mean", as torch's CPU composes it: index_fill_ with zero without
// include_self, index_add_ of the source, then the counts. "prod", "amax" and "amin" run on
// the CPU (counted).
at::Tensor& index_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                             const at::Tensor& source, c10::string_view reduce, bool include_self,
                             at::Tensor& out) {
  if (reduce != "mean" || !index_call_holds(self, dim, index, source) ||
      out.scalar_type() != self.scalar_type())
    throw OnCpu{};
  const int64_t d = start_from_self(self, dim, out);
  at::Tensor target = as_1d(out), places = index.reshape({-1}), values = as_1d(source);
  if (!include_self) target.index_fill_(d, places, 0);
  target.index_add_(d, places, values);
  at::Tensor counts = include_self ? at::ones_like(target) : at::zeros_like(target);
  counts.index_add_(d, places, at::ones_like(values));
  divide_by_counts(target, counts);
  return out;
}
at::Tensor index_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                        const at::Tensor& source, c10::string_view reduce, bool include_self) {
  at::Tensor out = at::empty_like(self);
  return index_reduce_out(self, dim, index, source, reduce, include_self, out);
}
at::Tensor& index_reduce_(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                          c10::string_view reduce, bool include_self) {
  return index_reduce_out(self, dim, index, source, reduce, include_self, self);
}

// ---- nonzero, masked_select ------------------------------------------------------------------

// The row-major positions of the non-zero elements of `t`, as int64 [count]; reads the count
// back (the result's size depends on the data).
DTensor nonzero_flat(const Dev& dev, const DTensor& t, int64_t* count) {
  const int64_t n = t.numel();
  DTensor flat = dev.contiguous(t).reshape({n});
  DTensor hit = dev.cast(dev.cast(flat, DEVPLUG_DTYPE_BOOL), DEVPLUG_DTYPE_INT64);
  DTensor total = dev.reduce(DEVPLUG_OP_sum, hit, 1u);
  total.reshape({}).copy_to_host(count, sizeof(int64_t), &dev.stream());
  // Element k goes to slot cumsum(hit)[k] - 1 when hit, else to a spare slot at `count`.
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  DTensor running = dev.empty(DEVPLUG_DTYPE_INT64, {n});
  dev.call(DEVPLUG_OP_cumsum, {hit}, {running}, &attrs);
  DTensor slot =
      dev.ew(DEVPLUG_OP_where, {dev.cast(hit, DEVPLUG_DTYPE_BOOL),
                                dev.ew(DEVPLUG_OP_sub, {running, dev.scalar(DEVPLUG_DTYPE_INT64, 1)}),
                                dev.scalar(DEVPLUG_DTYPE_INT64, *count)});
  DTensor positions = dev.iota(DEVPLUG_DTYPE_INT64, {n}, 0, 1);
  DTensor out = dev.full(DEVPLUG_DTYPE_INT64, {*count + 1}, 0);
  DTensor filled = dev.empty(DEVPLUG_DTYPE_INT64, {*count + 1});
  dev.call(DEVPLUG_OP_scatter, {out, slot, positions}, {filled}, &attrs);
  return filled.slice(0, 0, *count);
}

at::Tensor& nonzero_out(const at::Tensor& self, at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  int64_t count = 0;
  const int64_t rank = self.dim();
  if (self.numel() == 0) {
    prepare_out(out, {0, rank});
    return out;
  }
  DTensor flat = nonzero_flat(dev, view_of(self), &count);
  prepare_out(out, {count, rank});
  if (count == 0 || rank == 0) return out;
  // Coordinates: (flat / stride_d) % size_d for each dim d.
  DTensor target = view_of(out);
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    DTensor q = dev.ew(DEVPLUG_OP_div, {flat, dev.scalar(DEVPLUG_DTYPE_INT64, stride)});
    DTensor coord = dev.ew(DEVPLUG_OP_remainder, {q, dev.scalar(DEVPLUG_DTYPE_INT64, self.size(d))});
    dev.copy(coord, target.slice(1, d, d + 1).reshape({count}));
    stride *= self.size(d);
  }
  return out;
}
at::Tensor nonzero(const at::Tensor& self) {
  at::Tensor out = empty_torch(Dev::of(self), {0, self.dim()}, at::kLong);
  return nonzero_out(self, out);
}

// nonzero_static: nonzero's first `size` rows, then rows of fill_value. The shape is known
// up front, so nothing is read back: element k goes to row cumsum(hit)[k] - 1 when it is
// non-zero and that row is below `size`, else to a spare row; rows nobody wrote stay -1.
at::Tensor& nonzero_static_out(const at::Tensor& self, int64_t size, int64_t fill_value, at::Tensor& out) {
  TORCH_CHECK(size >= 0, "nonzero_static: 'size' must be an non-negative integer");
  TORCH_CHECK(out.scalar_type() == at::kLong,
              "nonzero_static: Expected out tensor to have scalar type Long but got scalar type",
              out.scalar_type());
  Dev dev = Dev::of({&self, &out});
  const int64_t rank = self.dim();
  prepare_out(out, {size, rank});
  if (size == 0 || rank == 0) return out;
  DTensor target = view_of(out);
  const int64_t n = self.numel();
  if (n == 0) {
    dev.fill(target, fill_value);
    return out;
  }
  const devplug_dtype_t i64 = DEVPLUG_DTYPE_INT64;
  DTensor hit = dev.cast(dev.contiguous(view_of(self)).reshape({n}), DEVPLUG_DTYPE_BOOL);
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  DTensor running = dev.empty(i64, {n});
  dev.call(DEVPLUG_OP_cumsum, {dev.cast(hit, i64)}, {running}, &attrs);
  DTensor kept =
      dev.ew(DEVPLUG_OP_bitwise_and, {hit, dev.ew(DEVPLUG_OP_le, {running, dev.scalar(i64, size)})});
  DTensor slot =
      dev.ew(DEVPLUG_OP_where, {kept, dev.ew_scalar(DEVPLUG_OP_sub, running, 1), dev.scalar(i64, size)});
  DTensor rows = dev.empty(i64, {size + 1});
  dev.call(DEVPLUG_OP_scatter, {dev.full(i64, {size + 1}, -1), slot, dev.iota(i64, {n}, 0, 1)}, {rows},
           &attrs);
  DTensor flat = rows.slice(0, 0, size);
  DTensor unused = dev.ew(DEVPLUG_OP_lt, {flat, dev.scalar(i64, 0)});
  DTensor fill = dev.scalar(i64, fill_value);
  // Coordinates: (flat / stride_d) % size_d for each dim d.
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    DTensor q = dev.ew_scalar(DEVPLUG_OP_div, flat, stride);
    DTensor coord = dev.ew_scalar(DEVPLUG_OP_remainder, q, self.size(d));
    dev.ew_into(DEVPLUG_OP_where, {unused, fill, coord}, target.slice(1, d, d + 1).reshape({size}));
    stride *= self.size(d);
  }
  return out;
}
at::Tensor nonzero_static(const at::Tensor& self, int64_t size, int64_t fill_value) {
  at::Tensor out = empty_torch(Dev::of(self), {0, self.dim()}, at::kLong);
  return nonzero_static_out(self, size, fill_value, out);
}

// repeat_interleave(repeats): index i repeated repeats[i] times, in repeats' dtype. Position
// j holds the number of running totals of repeats at or below j: one scatter_add of ones at
// each total and a cumsum. Reads back whether a repeat is negative (torch's error) and,
// without output_size, their sum.
at::Tensor repeat_interleave_index(const at::Tensor& repeats, std::optional<c10::SymInt> output_size) {
  // torch's CPU refuses other dtypes before it looks at anything: its error, from there.
  if (repeats.scalar_type() != at::kLong && repeats.scalar_type() != at::kInt) throw OnCpu{};
  TORCH_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  Dev dev = Dev::of(repeats);
  const int64_t n = repeats.size(0);
  if (n == 0) return empty_torch(dev, {0}, repeats.scalar_type());
  const devplug_dtype_t i64 = DEVPLUG_DTYPE_INT64;
  DTensor counts = dev.cast(view_of(repeats), i64);
  uint8_t negative = 0;
  dev.reduce(DEVPLUG_OP_any, dev.ew(DEVPLUG_OP_lt, {counts, dev.scalar(i64, 0)}), 1u)
      .reshape({})
      .copy_to_host(&negative, 1, &dev.stream());
  TORCH_CHECK(negative == 0, "repeats can not be negative");
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  DTensor ends = dev.empty(i64, {n});
  dev.call(DEVPLUG_OP_cumsum, {counts}, {ends}, &attrs);
  int64_t total = 0;
  if (output_size.has_value())
    total = output_size->guard_int(__FILE__, __LINE__);
  else
    dev.reduce(DEVPLUG_OP_sum, counts, 1u).reshape({}).copy_to_host(&total, sizeof(total), &dev.stream());
  at::Tensor out = empty_torch(dev, {total}, repeats.scalar_type());
  if (total == 0) return out;
  // A total beyond the output (the last ones, or past a given output_size) lands in a spare slot.
  DTensor slot = dev.ew(DEVPLUG_OP_minimum, {ends, dev.scalar(i64, total)});
  DTensor marks = dev.empty(i64, {total + 1});
  dev.call(DEVPLUG_OP_scatter_add, {dev.full(i64, {total + 1}, 0), slot, dev.full(i64, {n}, 1)}, {marks},
           &attrs);
  DTensor index = dev.empty(i64, {total + 1});
  dev.call(DEVPLUG_OP_cumsum, {marks}, {index}, &attrs);
  dev.copy(dev.cast(index.slice(0, 0, total), view_of(out).dtype()), view_of(out));
  return out;
}

at::Tensor& masked_select_out(const at::Tensor& self, const at::Tensor& mask, at::Tensor& out) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_select: expected BoolTensor for mask");
  Dev dev = Dev::of({&self, &mask, &out});
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), mask.sizes());
  const int64_t n = c10::multiply_integers(shape);
  int64_t count = 0;
  DTensor positions = nonzero_flat(dev, dev.operand(mask).expand(shape), &count);
  prepare_out(out, {count});
  if (count == 0) return out;
  DTensor values = dev.contiguous(view_of(self).expand(shape)).reshape({n});
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  dev.call(DEVPLUG_OP_index_select, {values, positions}, {view_of(out)}, &attrs);
  return out;
}
at::Tensor masked_select(const at::Tensor& self, const at::Tensor& mask) {
  at::Tensor out = empty_torch(Dev::of(self), {0}, self.scalar_type());
  return masked_select_out(self, mask, out);
}

// masked_scatter_: the elements of self where mask (broadcast to self) is set take source's
// elements in row-major order: slot k of such an element is the running count of the mask
// before it, and index_select picks source's flattened elements at those slots.
at::Tensor& masked_scatter_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& source) {
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "masked_scatter: expected self and source to have same dtypes but got", self.scalar_type(),
              " and ", source.scalar_type());
  TORCH_CHECK(mask.scalar_type() == at::kBool,
              "masked_scatter_ only supports boolean masks, but got mask with dtype ", mask.scalar_type());
  TORCH_CHECK(at::is_expandable_to(mask.sizes(), self.sizes()), "masked_scatter_: the mask of shape ",
              mask.sizes(), " does not broadcast to self's shape ", self.sizes());
  Dev dev = Dev::of({&self, &mask, &source});
  const int64_t n = self.numel();
  if (n == 0) return self;
  DTensor flat_mask = dev.contiguous(dev.operand(mask).expand(self.sizes().vec())).reshape({n});
  DTensor hit = dev.cast(flat_mask, DEVPLUG_DTYPE_INT64);
  int64_t count = 0;
  dev.reduce(DEVPLUG_OP_sum, hit, 1u).reshape({}).copy_to_host(&count, sizeof(count), &dev.stream());
  TORCH_CHECK(count <= source.numel(), "Number of elements of source < number of ones in mask");
  if (count == 0) return self;
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  DTensor running = dev.empty(DEVPLUG_DTYPE_INT64, {n});
  dev.call(DEVPLUG_OP_cumsum, {hit}, {running}, &attrs);
  // Elements outside the mask read slot 0, which exists (count > 0) and is not used.
  DTensor slot = dev.ew(DEVPLUG_OP_where, {flat_mask, dev.ew_scalar(DEVPLUG_OP_sub, running, 1),
                                           dev.scalar(DEVPLUG_DTYPE_INT64, 0)});
  DTensor values = dev.contiguous(view_of(source)).reshape({source.numel()});
  DTensor picked = dev.empty(values.dtype(), {n});
  dev.call(DEVPLUG_OP_index_select, {values, slot}, {picked}, &attrs);
  const Shape shape = self.sizes().vec();
  DTensor target = view_of(self);
  dev.ew_into(DEVPLUG_OP_where, {flat_mask.reshape(shape), picked.reshape(shape), target}, target);
  return self;
}

// ---- advanced indexing -------------------------------------------------------------------------

// torch's x[i0, i1, ...] with tensor indices (None for a full slice), reduced to one
// index_select: the indexed dims move to the front and collapse into one, whose linear
// index is sum(i_k * stride_k) over the broadcast indices (negative indices wrap).
struct Linearized {
  DTensor source;             // x with the indexed dims collapsed into dim 0 (dense)
  DTensor index;              // int64 [numel of the broadcast index shape]
  Shape index_shape;          // the broadcast shape of the indices
  Shape rest_shape;           // the dims that were not indexed, in order
  std::vector<int64_t> perm;  // x's dims: indexed first, then the rest
  int64_t insert_at;          // where the index shape goes in the result (0 unless adjacent)
};

Linearized linearize(const Dev& dev, const DTensor& x, const at::Tensor& self,
                     const c10::List<std::optional<at::Tensor>>& indices) {
  // Boolean masks become one long index per dim they cover.
  std::vector<std::optional<DTensor>> idx;
  for (size_t k = 0; k < indices.size(); ++k) {
    std::optional<at::Tensor> maybe = indices.get(k);
    if (!maybe.has_value() || !maybe->defined()) {
      idx.push_back(std::nullopt);
      continue;
    }
    // torch lets CPU index tensors index a tensor of any device (as CUDA's do): moved there.
    const at::Tensor t = maybe->device().is_cpu() && maybe->dim() > 0 ? maybe->to(self.device()) : *maybe;
    if (t.scalar_type() == at::kBool || t.scalar_type() == at::kByte) {
      const int64_t first = static_cast<int64_t>(idx.size());
      for (int64_t d = 0; d < t.dim(); ++d)
        TORCH_CHECK_INDEX(first + d < self.dim() && t.size(d) == self.size(first + d),
                          "The shape of the mask ", t.sizes(), " at index ", d,
                          " does not match the shape of the indexed tensor ", self.sizes(), " at index ",
                          first + d);
      int64_t count = 0;
      DTensor flat = nonzero_flat(dev, dev.operand(t), &count);
      int64_t stride = 1;
      std::vector<DTensor> coords;  // last dim first
      for (int64_t d = t.dim() - 1; d >= 0; --d) {
        DTensor q = dev.ew(DEVPLUG_OP_div, {flat, dev.scalar(DEVPLUG_DTYPE_INT64, stride)});
        coords.push_back(dev.ew(DEVPLUG_OP_remainder, {q, dev.scalar(DEVPLUG_DTYPE_INT64, t.size(d))}));
        stride *= t.size(d);
      }
      for (auto it = coords.rbegin(); it != coords.rend(); ++it) idx.push_back(*it);
      continue;
    }
    idx.push_back(index_operand(dev, t, "index"));
  }
  TORCH_CHECK_INDEX(static_cast<int64_t>(idx.size()) <= self.dim(),
                    "too many indices for tensor of dimension ", self.dim(), " (got ", idx.size(), ")");
  std::vector<int64_t> indexed;
  for (size_t d = 0; d < idx.size(); ++d)
    if (idx[d].has_value()) indexed.push_back(static_cast<int64_t>(d));
  TORCH_CHECK(!indexed.empty(), "index: expected at least one index tensor");
  bool adjacent = true;
  for (size_t k = 1; k < indexed.size(); ++k) adjacent = adjacent && indexed[k] == indexed[k - 1] + 1;
  const int64_t insert_at = adjacent ? indexed.front() : 0;
  Shape index_shape = idx[indexed.front()]->shape();
  for (int64_t d : indexed) index_shape = devplug::broadcast_shapes(index_shape, idx[d]->shape());
  std::vector<int64_t> perm = indexed;
  Shape rest_shape;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (std::find(indexed.begin(), indexed.end(), d) == indexed.end()) {
      perm.push_back(d);
      rest_shape.push_back(self.size(d));
    }
  // Linear index over the indexed dims, row-major.
  std::optional<DTensor> linear;
  int64_t span = 1;
  for (auto it = indexed.rbegin(); it != indexed.rend(); ++it) {
    const int64_t size = self.size(*it);
    DTensor i = idx[*it]->expand(index_shape);
    check_bounds(dev, i, size, "index", -size);
    // Negative indices count from the end.
    DTensor wrapped = dev.ew(
        DEVPLUG_OP_add,
        {i, dev.ew(DEVPLUG_OP_mul, {dev.cast(dev.ew(DEVPLUG_OP_lt, {i, dev.scalar(DEVPLUG_DTYPE_INT64, 0)}),
                                             DEVPLUG_DTYPE_INT64),
                                    dev.scalar(DEVPLUG_DTYPE_INT64, size)})});
    DTensor term =
        span == 1 ? wrapped : dev.ew(DEVPLUG_OP_mul, {wrapped, dev.scalar(DEVPLUG_DTYPE_INT64, span)});
    linear = linear.has_value() ? dev.ew(DEVPLUG_OP_add, {*linear, term}) : term;
    span *= size;
  }
  int64_t index_count = 1;
  for (int64_t s : index_shape) index_count *= s;
  DTensor flat_index = dev.contiguous(linear->expand(index_shape)).reshape({index_count});
  std::vector<int32_t> perm32(perm.begin(), perm.end());
  Shape collapsed{span};
  collapsed.insert(collapsed.end(), rest_shape.begin(), rest_shape.end());
  DTensor source = dev.contiguous(x.permute(perm32)).reshape(collapsed);
  return Linearized{source, flat_index, index_shape, rest_shape, perm, insert_at};
}

// The result dims: [rest before insert_at..., index..., rest after...].
Shape result_shape(const Linearized& l) {
  Shape out(l.rest_shape.begin(), l.rest_shape.begin() + l.insert_at);
  out.insert(out.end(), l.index_shape.begin(), l.index_shape.end());
  out.insert(out.end(), l.rest_shape.begin() + l.insert_at, l.rest_shape.end());
  return out;
}

// Permutation from [index..., rest...] to the result's order.
std::vector<int32_t> to_result_order(const Linearized& l) {
  const int32_t ni = static_cast<int32_t>(l.index_shape.size());
  const int32_t nr = static_cast<int32_t>(l.rest_shape.size());
  std::vector<int32_t> perm;
  for (int32_t r = 0; r < l.insert_at; ++r) perm.push_back(ni + r);
  for (int32_t i = 0; i < ni; ++i) perm.push_back(i);
  for (int32_t r = static_cast<int32_t>(l.insert_at); r < nr; ++r) perm.push_back(ni + r);
  return perm;
}

at::Tensor& index_out(const at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices,
                      at::Tensor& out) {
  Dev dev = Dev::of({&self, &out});
  Linearized l = linearize(dev, view_of(self), self, indices);
  prepare_out(out, result_shape(l));
  if (out.numel() == 0) return out;
  Shape picked_shape{l.index.numel()};
  picked_shape.insert(picked_shape.end(), l.rest_shape.begin(), l.rest_shape.end());
  DTensor picked = dev.empty(l.source.dtype(), picked_shape);
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  dev.call(DEVPLUG_OP_index_select, {l.source, l.index}, {picked}, &attrs);
  Shape unflat = l.index_shape;
  unflat.insert(unflat.end(), l.rest_shape.begin(), l.rest_shape.end());
  dev.copy(picked.reshape(unflat).permute(to_result_order(l)), view_of(out));
  return out;
}
at::Tensor index(const at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices) {
  at::Tensor out = empty_torch(Dev::of(self), {0}, self.scalar_type());
  return index_out(self, indices, out);
}

// x[indices] = values (or += with accumulate): scatter (or scatter_add) into x's collapsed
// form, then back into x.
at::Tensor& index_put_impl_(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices,
                            const at::Tensor& values, bool accumulate, bool /*unsafe*/) {
  Dev dev = Dev::of({&self, &values});
  TORCH_CHECK(values.scalar_type() == self.scalar_type(),
              "Index put requires the source and destination dtypes "
              "match, got ",
              self.scalar_type(), " for the destination and ", values.scalar_type(), " for the source.");
  if (accumulate) fallback_unless_allowed(DEVPLUG_OP_scatter_add, self.scalar_type());
  if (self.numel() == 0) return self;
  DTensor x = view_of(self);
  Linearized l = linearize(dev, x, self, indices);
  if (l.index.numel() == 0) return self;
  // values broadcast to the result's shape, then put in [index..., rest...] order.
  const Shape rshape = result_shape(l);
  DTensor v = dev.operand(values, x.dtype()).expand(rshape);
  const std::vector<int32_t> order = to_result_order(l);
  std::vector<int32_t> inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = static_cast<int32_t>(i);
  Shape flat_shape{l.index.numel()};
  flat_shape.insert(flat_shape.end(), l.rest_shape.begin(), l.rest_shape.end());
  DTensor src = dev.contiguous(v.permute(inverse)).reshape(flat_shape);
  // The index spread over the source's trailing dims.
  Shape index_view(flat_shape.size(), 1);
  index_view[0] = l.index.numel();
  DTensor idx = dev.contiguous(l.index.reshape(index_view).expand(flat_shape));
  const devplug_dim_attrs_t attrs = dim_attrs(0);
  DTensor updated = dev.empty(l.source.dtype(), l.source.shape());
  dev.call(accumulate ? DEVPLUG_OP_scatter_add : DEVPLUG_OP_scatter, {l.source, idx, src}, {updated}, &attrs);
  // Back into self: undo the collapse and the permutation.
  Shape permuted_shape;
  for (int64_t d : l.perm) permuted_shape.push_back(self.size(d));
  std::vector<int32_t> back(l.perm.size());
  for (size_t i = 0; i < l.perm.size(); ++i) back[l.perm[i]] = static_cast<int32_t>(i);
  dev.copy(updated.reshape(permuted_shape).permute(back), x);
  return self;
}

// ---- embedding -----------------------------------------------------------------------------------

// The embedding composite, after the device check of the indices (torch's IndexError).
at::Tensor embedding(const at::Tensor& weight, const at::Tensor& indices, int64_t /*padding_idx*/,
                     bool /*scale_grad_by_freq*/, bool /*sparse*/) {
  TORCH_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  Dev dev = Dev::of({&weight, &indices});
  DTensor idx = index_operand(dev, indices, "embedding");
  check_bounds(dev, idx, weight.size(0), "embedding()");
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.size(1));
  at::Tensor out = empty_torch(dev, shape, weight.scalar_type());
  if (out.numel() == 0) return out;
  devplug_embedding_attrs_t attrs{sizeof(attrs), -1, 0u};
  dev.composite(DEVPLUG_OP_embedding, {view_of(weight), idx}, {view_of(out)}, &attrs);
  return out;
}

// The embedding_backward composite: each position's gradient summed into its row, none
// into padding_idx, divided by the row's count in the batch with scale_grad_by_freq.
at::Tensor embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices,
                                    int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq) {
  Dev dev = Dev::of({&grad_output, &indices});
  at::Tensor grad_weight = empty_torch(dev, {num_weights, grad_output.size(-1)}, grad_output.scalar_type());
  if (grad_weight.numel() == 0) return grad_weight;
  if (indices.numel() == 0) {
    dev.fill(view_of(grad_weight), 0);
    return grad_weight;
  }
  devplug_embedding_attrs_t attrs{sizeof(attrs), padding_idx < 0 ? -1 : padding_idx,
                                  scale_grad_by_freq ? DEVPLUG_EMBEDDING_SCALE_GRAD_BY_FREQ : 0u};
  DTensor idx = index_operand(dev, indices, "embedding_backward");
  dev.composite(DEVPLUG_OP_embedding_backward, {view_of(grad_output), idx}, {view_of(grad_weight)}, &attrs);
  return grad_weight;
}

}  // namespace

void register_index_ops(Table& t) {
  t.add("index_select", Impl::prim, "index_select", DEVPLUG_KERNEL(index_select));
  t.add("index_select.out", Impl::prim, "index_select", DEVPLUG_KERNEL(index_select_out));
  t.add("gather", Impl::prim, "gather", DEVPLUG_KERNEL(gather));
  t.add("gather.out", Impl::prim, "gather", DEVPLUG_KERNEL(gather_out));
  t.add("scatter.src", Impl::prim, "scatter", DEVPLUG_KERNEL(scatter_src<DEVPLUG_OP_scatter>));
  t.add("scatter_.src", Impl::prim, "scatter", DEVPLUG_KERNEL(scatter_src_<DEVPLUG_OP_scatter>));
  t.add("scatter.src_out", Impl::prim, "scatter", DEVPLUG_KERNEL(scatter_src_out<DEVPLUG_OP_scatter>));
  t.add("scatter.value", Impl::prim, "scatter", DEVPLUG_KERNEL(scatter_value));
  t.add("scatter_.value", Impl::prim, "scatter", DEVPLUG_KERNEL(scatter_value_));
  t.add("scatter.value_out", Impl::prim, "scatter", DEVPLUG_KERNEL(scatter_value_out));
  t.add("scatter_add", Impl::prim, "scatter_add", DEVPLUG_KERNEL(scatter_src<DEVPLUG_OP_scatter_add>));
  t.add("scatter_add_", Impl::prim, "scatter_add", DEVPLUG_KERNEL(scatter_src_<DEVPLUG_OP_scatter_add>));
  t.add("scatter_add.out", Impl::prim, "scatter_add",
        DEVPLUG_KERNEL(scatter_src_out<DEVPLUG_OP_scatter_add>));
  t.add("index_fill_.int_Scalar", Impl::bridge, "scatter, lt, add, where",
        DEVPLUG_KERNEL(index_fill_scalar_));
  t.add("index_fill_.int_Tensor", Impl::bridge, "scatter, lt, add, where",
        DEVPLUG_KERNEL(index_fill_tensor_));
  t.add("take", Impl::bridge, "lt, ge, any, add, where, index_select", DEVPLUG_KERNEL(take));
  t.add("take.out", Impl::bridge, "lt, ge, any, add, where, index_select", DEVPLUG_KERNEL(take_out));
  t.add("put_", Impl::bridge, "lt, ge, any, add, where, scatter, scatter_add", DEVPLUG_KERNEL(put_));
  t.add("index_copy.out", Impl::bridge, "lt, ge, any, scatter", DEVPLUG_KERNEL(index_copy_out));
  t.add("index_add", Impl::prim, "scatter_add", DEVPLUG_KERNEL(index_add));
  t.add("index_add_", Impl::prim, "scatter_add", DEVPLUG_KERNEL(index_add_));
  t.add("index_add.out", Impl::prim, "scatter_add", DEVPLUG_KERNEL(index_add_out));
  const char* scatter_mean =
      "scatter, scatter_add, eq, where, div, floor (sum and mean; the rest on the CPU)";
  t.add("scatter_reduce.two", Impl::bridge, scatter_mean, DEVPLUG_KERNEL(scatter_reduce));
  t.add("scatter_reduce_.two", Impl::bridge, scatter_mean, DEVPLUG_KERNEL(scatter_reduce_));
  t.add("scatter_reduce.two_out", Impl::bridge, scatter_mean, DEVPLUG_KERNEL(scatter_reduce_out));
  const char* index_mean = "scatter, scatter_add, eq, where, div, floor (mean; the rest on the CPU)";
  t.add("index_reduce", Impl::bridge, index_mean, DEVPLUG_KERNEL(index_reduce));
  t.add("index_reduce_", Impl::bridge, index_mean, DEVPLUG_KERNEL(index_reduce_));
  t.add("index_reduce.out", Impl::bridge, index_mean, DEVPLUG_KERNEL(index_reduce_out));
  t.add("nonzero", Impl::bridge, "cumsum, where, scatter, div, remainder", DEVPLUG_KERNEL(nonzero));
  t.add("nonzero.out", Impl::bridge, "cumsum, where, scatter, div, remainder", DEVPLUG_KERNEL(nonzero_out));
  t.add("nonzero_static", Impl::bridge, "cumsum, le, where, scatter, div, remainder",
        DEVPLUG_KERNEL(nonzero_static));
  t.add("nonzero_static.out", Impl::bridge, "cumsum, le, where, scatter, div, remainder",
        DEVPLUG_KERNEL(nonzero_static_out));
  t.add("repeat_interleave.Tensor", Impl::bridge, "lt, any, sum, cumsum, minimum, scatter_add",
        DEVPLUG_KERNEL(repeat_interleave_index));
  t.add("masked_scatter_", Impl::bridge, "cumsum, sum, sub, where, index_select",
        DEVPLUG_KERNEL(masked_scatter_));
  t.add("masked_select", Impl::bridge, "cumsum, where, scatter, index_select", DEVPLUG_KERNEL(masked_select));
  t.add("masked_select.out", Impl::bridge, "cumsum, where, scatter, index_select",
        DEVPLUG_KERNEL(masked_select_out));
  t.add("index.Tensor", Impl::bridge, "mul, add, index_select", DEVPLUG_KERNEL(index));
  t.add("index.Tensor_out", Impl::bridge, "mul, add, index_select", DEVPLUG_KERNEL(index_out));
  t.add("_index_put_impl_", Impl::bridge, "mul, add, scatter, scatter_add", DEVPLUG_KERNEL(index_put_impl_));
  t.add("embedding", Impl::composite, "embedding; lt, ge, any (index check)", DEVPLUG_KERNEL(embedding));
  t.add("embedding_dense_backward", Impl::composite, "embedding_backward",
        DEVPLUG_KERNEL(embedding_dense_backward));
}

}  // namespace devplug::bridge
