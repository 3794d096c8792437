// SPDX-License-Identifier: Apache-2.0
// The dispatcher's own op calls for decompositions (see prims.hpp).
#include "prims.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../api_guard.hpp"
#include "../dispatch.hpp"
#include "../promotion.hpp"

namespace devplug::detail::composite {
namespace {

void release(const devplug_tensor_t* t) { release_tensor(const_cast<devplug_tensor_t*>(t)); }

void check(const Problem& problem, const char* what) {
  if (!problem.empty())
    throw Error(DEVPLUG_CODE_INTERNAL, std::string("decomposition: ") + what + ": " + problem);
}

// `value` as the `.i` of a scalar attribute (integer dtypes read it); 0 where it has none.
int64_t integer_part(double value) {
  return std::isfinite(value) && std::fabs(value) < 9.2e18 ? static_cast<int64_t>(value) : 0;
}

// The broadcast shape of several shapes (PyTorch's rules).
Shape broadcast_all(std::initializer_list<Tensor> operands) {
  int32_t rank = 0;
  int64_t shape[DEVPLUG_MAX_RANK] = {};
  bool first = true;
  for (const Tensor& t : operands) {
    if (first) {
      rank = t->layout.rank;
      for (int32_t d = 0; d < rank; ++d) shape[d] = t->layout.shape[d];
      first = false;
      continue;
    }
    check(broadcast_shapes(rank, shape, t->layout.rank, t->layout.shape, &rank, shape), "broadcast");
  }
  return Shape(shape, shape + rank);
}

devplug_dtype_t result_dtype(devplug_op_t op, std::initializer_list<Tensor> operands) {
  const devplug_op_info_t* info = devplug_op_info(op);
  const Tensor* args = operands.begin();
  switch (info->result) {
    case DEVPLUG_RESULT_bool:
      return DEVPLUG_DTYPE_BOOL;
    case DEVPLUG_RESULT_int64:
      return DEVPLUG_DTYPE_INT64;
    case DEVPLUG_RESULT_select:
      return args[1]->layout.dtype;
    default:
      return args[0]->layout.dtype;
  }
}

}  // namespace

Shape shape_of(const devplug_tensor_t& t) { return Shape(t.layout.shape, t.layout.shape + t.layout.rank); }

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Tensor Prims::borrow(const devplug_tensor_t* t) {
  return Tensor(t, [](const devplug_tensor_t*) {});
}

Tensor Prims::own(devplug_tensor_t* t) { return Tensor(t, release); }

Tensor Prims::empty(devplug_dtype_t dtype, const Shape& shape) {
  return own(new_tensor(*stream_.device,
                        contiguous_layout(dtype, static_cast<int32_t>(shape.size()), shape.data())));
}

Tensor Prims::full(devplug_dtype_t dtype, const Shape& shape, double value) {
  Tensor t = empty(dtype, shape);
  fill_into(t, value);
  return t;
}

Tensor Prims::scalar(devplug_dtype_t dtype, const devplug_scalar_t& value) {
  Tensor t = empty(dtype, {});
  devplug_fill_attrs_t attrs{sizeof(attrs), value};
  run(DEVPLUG_OP_fill, {}, {t}, &attrs);
  return t;
}

void Prims::fill_into(const Tensor& dst, double value) {
  devplug_fill_attrs_t attrs{sizeof(attrs), {value, integer_part(value)}};
  run(DEVPLUG_OP_fill, {}, {dst}, &attrs);
}

Tensor Prims::arange(devplug_dtype_t dtype, int64_t n) {
  Tensor t = empty(dtype, {n});
  devplug_iota_attrs_t attrs{sizeof(attrs), {0.0, 0}, {1.0, 1}};
  run(DEVPLUG_OP_iota, {}, {t}, &attrs);
  return t;
}

Tensor Prims::uniform(devplug_dtype_t dtype, const Shape& shape, uint64_t seed, uint64_t offset) {
  Tensor t = empty(dtype, shape);
  devplug_philox_attrs_t attrs{sizeof(attrs), seed, offset};
  run(DEVPLUG_OP_philox_uniform, {}, {t}, &attrs);
  return t;
}

Tensor Prims::view(const Tensor& t, const Layout& layout) { return own(new_view(*t, layout)); }

Tensor Prims::reshape(const Tensor& t, const Shape& shape) {
  Layout out;
  if (view_reshape(t->layout, static_cast<int32_t>(shape.size()), shape.data(), &out).empty())
    return view(t, out);
  Tensor dense = contiguous(t);
  check(view_reshape(dense->layout, static_cast<int32_t>(shape.size()), shape.data(), &out), "reshape");
  return view(dense, out);
}

Tensor Prims::expand(const Tensor& t, const Shape& shape) {
  Layout out;
  check(view_expand(t->layout, static_cast<int32_t>(shape.size()), shape.data(), &out), "expand");
  return view(t, out);
}

Tensor Prims::permute(const Tensor& t, const std::vector<int32_t>& dims) {
  Layout out;
  check(view_permute(t->layout, dims.data(), &out), "permute");
  return view(t, out);
}

Tensor Prims::transpose(const Tensor& t, int32_t dim0, int32_t dim1) {
  Layout out;
  check(view_transpose(t->layout, dim0, dim1, &out), "transpose");
  return view(t, out);
}

Tensor Prims::unsqueeze(const Tensor& t, int32_t dim) {
  Layout out;
  check(view_unsqueeze(t->layout, dim, &out), "unsqueeze");
  return view(t, out);
}

Tensor Prims::squeeze(const Tensor& t, int32_t dim) {
  Layout out;
  check(view_squeeze(t->layout, dim, &out), "squeeze");
  return view(t, out);
}

Tensor Prims::slice(const Tensor& t, int32_t dim, int64_t start, int64_t stop, int64_t step) {
  Layout out;
  check(view_slice(t->layout, dim, start, stop, step, &out), "slice");
  return view(t, out);
}

Tensor Prims::as_strided(const Tensor& t, const Shape& shape, const Shape& strides, int64_t storage_offset) {
  Layout out;
  check(view_as_strided(t->layout, static_cast<int32_t>(shape.size()), shape.data(), strides.data(),
                        storage_offset, t->storage->bytes, &out),
        "as_strided");
  return view(t, out);
}

Tensor Prims::contiguous(const Tensor& t) {
  if (is_contiguous(t->layout)) return t;
  Tensor out = empty(t->layout.dtype, shape_of(*t));
  copy_into(out, t);
  return out;
}

Tensor Prims::broadcast_to(const Tensor& t, const Shape& shape) {
  if (shape_of(*t) == shape) return t;
  return expand(t, shape);
}

Tensor Prims::map(devplug_op_t op, std::initializer_list<Tensor> operands) {
  Tensor out = empty(result_dtype(op, operands), broadcast_all(operands));
  map_into(out, op, operands);
  return out;
}

void Prims::map_into(const Tensor& out, devplug_op_t op, std::initializer_list<Tensor> operands) {
  const Shape shape = shape_of(*out);
  std::vector<Tensor> held;
  std::vector<const devplug_tensor_t*> in;
  for (const Tensor& t : operands) {
    held.push_back(broadcast_to(t, shape));
    in.push_back(held.back().get());
  }
  const devplug_tensor_t* outs[1] = {out.get()};
  dispatch_op(stream_, OpCall{op, in.data(), in.size(), outs, 1, nullptr});
}

Tensor Prims::convert(const Tensor& x, devplug_dtype_t dtype) {
  if (x->layout.dtype == dtype) return x;
  Tensor out = empty(dtype, shape_of(*x));
  copy_into(out, x);
  return out;
}

void Prims::copy_into(const Tensor& dst, const Tensor& src) {
  Tensor from = broadcast_to(src, shape_of(*dst));
  const devplug_tensor_t* in[1] = {from.get()};
  const devplug_tensor_t* outs[1] = {dst.get()};
  const devplug_op_t op =
      from->layout.dtype == dst->layout.dtype ? DEVPLUG_OP_copy_strided : DEVPLUG_OP_convert_element_type;
  dispatch_op(stream_, OpCall{op, in, 1, outs, 1, nullptr});
}

Tensor Prims::reduce(devplug_op_t op, const Tensor& x, uint32_t dims_mask, double correction) {
  Shape shape = shape_of(*x);
  for (size_t d = 0; d < shape.size(); ++d)
    if ((dims_mask >> d) & 1u) shape[d] = 1;
  const devplug_op_info_t* info = devplug_op_info(op);
  const devplug_dtype_t dtype = info->result == DEVPLUG_RESULT_int64 ? DEVPLUG_DTYPE_INT64 : x->layout.dtype;
  Tensor out = empty(dtype, shape);
  devplug_reduce_attrs_t attrs{sizeof(attrs), dims_mask, correction};
  run(op, {x}, {out}, &attrs);
  return out;
}

Tensor Prims::matmul(const Tensor& a, const Tensor& b) {
  const Shape sa = shape_of(*a), sb = shape_of(*b);
  // Batch dims broadcast; then [.., M, K] x [.., K, N].
  int32_t batch_rank = 0;
  int64_t batch[DEVPLUG_MAX_RANK] = {};
  check(broadcast_shapes(static_cast<int32_t>(sa.size() - 2), sa.data(), static_cast<int32_t>(sb.size() - 2),
                         sb.data(), &batch_rank, batch),
        "matmul batch dims");
  Shape ea(batch, batch + batch_rank), eb = ea, eo = ea;
  ea.insert(ea.end(), {sa[sa.size() - 2], sa.back()});
  eb.insert(eb.end(), {sb[sb.size() - 2], sb.back()});
  eo.insert(eo.end(), {sa[sa.size() - 2], sb.back()});
  Tensor out = empty(a->layout.dtype, eo);
  devplug_matmul_attrs_t attrs{sizeof(attrs), 0};
  run(DEVPLUG_OP_matmul, {broadcast_to(a, ea), broadcast_to(b, eb)}, {out}, &attrs);
  return out;
}

Tensor Prims::gather(const Tensor& x, int32_t dim, const Tensor& index) {
  Tensor out = empty(x->layout.dtype, shape_of(*index));
  devplug_dim_attrs_t attrs{sizeof(attrs), dim};
  run(DEVPLUG_OP_gather, {x, index}, {out}, &attrs);
  return out;
}

Tensor Prims::index_select(const Tensor& x, int32_t dim, const Tensor& index) {
  Shape shape = shape_of(*x);
  shape[static_cast<size_t>(dim)] = index->layout.shape[0];
  Tensor out = empty(x->layout.dtype, shape);
  devplug_dim_attrs_t attrs{sizeof(attrs), dim};
  run(DEVPLUG_OP_index_select, {x, index}, {out}, &attrs);
  return out;
}

Tensor Prims::scatter_add(const Tensor& base, int32_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = empty(base->layout.dtype, shape_of(*base));
  devplug_dim_attrs_t attrs{sizeof(attrs), dim};
  run(DEVPLUG_OP_scatter_add, {base, index, src}, {out}, &attrs);
  return out;
}

Tensor Prims::pad(const Tensor& x, const Shape& before, const Shape& after, double value) {
  Shape shape = shape_of(*x);
  devplug_pad_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  for (size_t d = 0; d < shape.size(); ++d) {
    attrs.before[d] = before[d];
    attrs.after[d] = after[d];
    shape[d] += before[d] + after[d];
  }
  attrs.value = {value, integer_part(value)};
  Tensor out = empty(x->layout.dtype, shape);
  run(DEVPLUG_OP_constant_pad, {x}, {out}, &attrs);
  return out;
}

void Prims::run(devplug_op_t op, std::initializer_list<Tensor> inputs, std::initializer_list<Tensor> outputs,
                const void* attrs) {
  std::vector<const devplug_tensor_t*> in, out;
  for (const Tensor& t : inputs) in.push_back(t.get());
  for (const Tensor& t : outputs) out.push_back(t.get());
  dispatch_op(stream_, OpCall{op, in.data(), in.size(), out.data(), out.size(), attrs});
}

}  // namespace devplug::detail::composite
