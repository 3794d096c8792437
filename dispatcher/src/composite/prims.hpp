// SPDX-License-Identifier: Apache-2.0
// What decompositions are written against: the dispatcher's own op calls on one stream,
// with temporaries from the device's caching allocator, views that never reach a plugin,
// and PyTorch-style broadcasting of binary operands (stride-0 views).
//
//   Prims p(stream);
//   Tensor m = p.reduce(DEVPLUG_OP_amax, x, 1u << dim);
//   Tensor e = p.unary(DEVPLUG_OP_exp, p.binary(DEVPLUG_OP_sub, x, m));
//
// Every op goes through dispatch_op, so a plugin's kernel runs it (or, for a composite, its
// native kernel or decomposition; a prim it lacks falls back as any call would). Work is
// only enqueued: temporaries may be released before it finishes, which the allocator and
// the plugins' buffer_release allow. Not thread-safe (one stream, one thread).
#pragma once

#include <initializer_list>
#include <memory>
#include <vector>

#include "../op_call.hpp"
#include "../stream_event.hpp"
#include "../tensor.hpp"

namespace devplug::detail::composite {

// A tensor a decomposition holds: a temporary or view it made (released with the last
// holder), or a caller's tensor it borrowed (never released here).
using Tensor = std::shared_ptr<const devplug_tensor_t>;
using Shape = std::vector<int64_t>;

// One composite call as its decomposition sees it (validated; absent optional tensors are
// NULL).
using Call = OpCall;

Shape shape_of(const devplug_tensor_t& t);
int64_t numel(const Shape& shape);

class Prims {
 public:
  explicit Prims(devplug_stream_t& stream) : stream_(stream) {}

  devplug_stream_t& stream() { return stream_; }

  // A caller's tensor (NULL stays NULL).
  static Tensor borrow(const devplug_tensor_t* t);

  // ---- new tensors (contiguous, from the caching allocator) ----
  Tensor empty(devplug_dtype_t dtype, const Shape& shape);
  Tensor full(devplug_dtype_t dtype, const Shape& shape, double value);
  // A 0-d tensor holding `value` rounded to `dtype`, to broadcast against others.
  Tensor scalar(devplug_dtype_t dtype, double value) { return full(dtype, {}, value); }
  // A 0-d tensor of `value` as fill takes it (`.f` for floats, `.i` for integers).
  Tensor scalar(devplug_dtype_t dtype, const devplug_scalar_t& value);
  // [0, 1, ..., n - 1] as a 1-D tensor.
  Tensor arange(devplug_dtype_t dtype, int64_t n);
  // philox_uniform of `shape` (element k of the row-major order is word k's uniform).
  Tensor uniform(devplug_dtype_t dtype, const Shape& shape, uint64_t seed, uint64_t offset);

  // ---- views: metadata only ----
  Tensor view(const Tensor& t, const Layout& layout);
  // A view with `shape` when the strides allow it, else a contiguous copy reshaped.
  Tensor reshape(const Tensor& t, const Shape& shape);
  Tensor expand(const Tensor& t, const Shape& shape);
  Tensor permute(const Tensor& t, const std::vector<int32_t>& dims);
  Tensor transpose(const Tensor& t, int32_t dim0, int32_t dim1);
  Tensor unsqueeze(const Tensor& t, int32_t dim);
  Tensor squeeze(const Tensor& t, int32_t dim);
  Tensor slice(const Tensor& t, int32_t dim, int64_t start, int64_t stop, int64_t step = 1);
  Tensor as_strided(const Tensor& t, const Shape& shape, const Shape& strides, int64_t storage_offset);
  // `t` itself when it is contiguous, else a contiguous copy.
  Tensor contiguous(const Tensor& t);

  // ---- prims; results are new contiguous tensors ----
  // An elementwise prim (unary, binary, compare, where) on operands broadcast to one shape
  // (the result has the op's result dtype). Operands must already share a dtype.
  Tensor map(devplug_op_t op, std::initializer_list<Tensor> operands);
  Tensor unary(devplug_op_t op, const Tensor& x) { return map(op, {x}); }
  Tensor binary(devplug_op_t op, const Tensor& a, const Tensor& b) { return map(op, {a, b}); }
  Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
    return map(DEVPLUG_OP_where, {cond, a, b});
  }
  // `x` op a scalar of x's dtype (x * 2, x - 1, ...).
  Tensor binary(devplug_op_t op, const Tensor& x, double value) {
    return binary(op, x, scalar(x->layout.dtype, value));
  }
  // `x` itself when it has `dtype`, else convert_element_type into a new tensor.
  Tensor convert(const Tensor& x, devplug_dtype_t dtype);
  // A reduction over the dims in `dims_mask`, keeping the rank.
  Tensor reduce(devplug_op_t op, const Tensor& x, uint32_t dims_mask, double correction = 0);
  // a [.., M, K] x b [.., K, N]; batch dims broadcast against each other.
  Tensor matmul(const Tensor& a, const Tensor& b);
  Tensor gather(const Tensor& x, int32_t dim, const Tensor& index);
  Tensor index_select(const Tensor& x, int32_t dim, const Tensor& index);
  // `base` with src added at index along dim (a new tensor).
  Tensor scatter_add(const Tensor& base, int32_t dim, const Tensor& index, const Tensor& src);
  Tensor pad(const Tensor& x, const Shape& before, const Shape& after, double value);
  // Any composite or prim with given outputs (absent optional outputs NULL).
  void run(devplug_op_t op, std::initializer_list<Tensor> inputs, std::initializer_list<Tensor> outputs,
           const void* attrs);

  // ---- writing into existing tensors ----
  // Runs elementwise `op` on the operands (broadcast to `out`'s shape) into `out`, which may
  // be a strided caller output or exactly one of the operands (in place).
  void map_into(const Tensor& out, devplug_op_t op, std::initializer_list<Tensor> operands);
  // Copies `src` (broadcast to `dst`'s shape) into `dst`, converting the dtype if needed.
  void copy_into(const Tensor& dst, const Tensor& src);
  void fill_into(const Tensor& dst, double value);

 private:
  Tensor own(devplug_tensor_t* t);
  Tensor broadcast_to(const Tensor& t, const Shape& shape);

  devplug_stream_t& stream_;
};

// The decomposition of every composite, by op id (generated from ops.def); see
// decompose.cpp for the entry point.
using Decomposition = void (*)(Prims& p, const Call& call);

}  // namespace devplug::detail::composite
