// SPDX-License-Identifier: Apache-2.0
// Dev and the small helpers every kernel uses (see kernel.hpp).
#include "kernel.hpp"

#include <ATen/EmptyTensor.h>
#include <ATen/Functions.h>
#include <ATen/ScalarOps.h>
#include <ATen/TensorUtils.h>
#include <ATen/ops/_local_scalar_dense_native.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/DefaultDtype.h>
#include <c10/util/Exception.h>

#include <algorithm>

namespace devplug::bridge {
namespace {

// Throws a C API error as devplug::Error (which the kernel's guard turns into torch's).
void check(devplug_error_t* error) {
  if (error == nullptr) return;
  devplug::Error thrown(error->code, error->message ? error->message : "", error->native_code);
  devplug_error_destroy(error);
  throw thrown;
}

}  // namespace

Dev::Dev(c10::DeviceIndex index)
    : index_(index), device_(Runtime::get().device(index)), stream_(stream_for(index)) {}

Dev Dev::of(std::initializer_list<const at::Tensor*> tensors) {
  std::optional<c10::DeviceIndex> found;
  for (const at::Tensor* t : tensors) {
    if (t == nullptr || !t->defined() || t->device().type() != c10::DeviceType::PrivateUse1) continue;
    if (!found) found = t->device().index();
    TORCH_CHECK(*found == t->device().index(),
                "devplug: expected all tensors on one device, found devplug:", static_cast<int>(*found),
                " and devplug:", static_cast<int>(t->device().index()));
  }
  TORCH_CHECK(found.has_value(), "devplug: a devplug kernel ran without a devplug tensor");
  for (const at::Tensor* t : tensors)
    if (t != nullptr && t->defined() && t->device().type() != c10::DeviceType::PrivateUse1)
      TORCH_CHECK(is_cpu_scalar(*t), "devplug: expected all tensors on devplug:", static_cast<int>(*found),
                  ", found one on ", t->device(), " (only 0-dim CPU tensors may mix with device tensors)");
  return Dev(*found);
}

DTensor Dev::operand(const at::Tensor& t, std::optional<devplug_dtype_t> scalar_dtype) const {
  if (t.device().type() == c10::DeviceType::PrivateUse1) {
    TORCH_CHECK(t.device().index() == index_,
                "devplug: expected a tensor on devplug:", static_cast<int>(index_), ", got one on ",
                t.device());
    return view_of(t);
  }
  TORCH_CHECK(is_cpu_scalar(t), "devplug: expected a devplug tensor or a 0-dim CPU tensor, got a ", t.dim(),
              "-dim tensor on ", t.device());
  const devplug_dtype_t dtype = scalar_dtype.value_or(require_dtype(t.scalar_type(), "a CPU scalar"));
  // Read on the host without a dispatch of aten::item (a tensor with a conj or neg bit
  // goes through item(), which resolves the bit).
  return scalar(dtype, t.is_conj() || t.is_neg() ? t.item() : at::native::_local_scalar_dense_cpu(t));
}

bool Dev::supports(devplug_op_t op, devplug_dtype_t dtype) const {
  bool supported = false;
  check(devplug_device_supports(device_.handle(), op, dtype, &supported, nullptr));
  return supported;
}

DTensor Dev::empty(devplug_dtype_t dtype, const Shape& shape) const {
  return DTensor::empty(device_, dtype, shape);
}

devplug_scalar_t to_devplug_scalar(const c10::Scalar& value) {
  devplug_scalar_t s{};
  if (value.isBoolean()) {
    s.i = value.toBool() ? 1 : 0;
    s.f = static_cast<double>(s.i);
  } else if (value.isIntegral(false)) {
    s.i = value.toLong();
    s.f = static_cast<double>(s.i);
  } else {
    TORCH_CHECK(!value.isComplex(), "devplug: complex scalars are not supported");
    s.f = value.toDouble();
    // Integer outputs read `.i`: the value truncated toward zero, as a float to int cast.
    s.i = (s.f >= -9.2e18 && s.f <= 9.2e18) ? static_cast<int64_t>(s.f) : 0;
  }
  return s;
}

DTensor Dev::scalar(devplug_dtype_t dtype, const c10::Scalar& value) const { return full(dtype, {}, value); }

DTensor Dev::full(devplug_dtype_t dtype, const Shape& shape, const c10::Scalar& value) const {
  DTensor t = empty(dtype, shape);
  fill(t, value);
  return t;
}

void Dev::fill(const DTensor& t, const c10::Scalar& value) const {
  devplug_fill_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.value = to_devplug_scalar(value);
  call(DEVPLUG_OP_fill, {}, {t}, &attrs);
}

DTensor Dev::iota(devplug_dtype_t dtype, const Shape& shape, const c10::Scalar& start,
                  const c10::Scalar& step) const {
  DTensor t = empty(dtype, shape);
  devplug_iota_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.start = to_devplug_scalar(start);
  attrs.step = to_devplug_scalar(step);
  call(DEVPLUG_OP_iota, {}, {t}, &attrs);
  return t;
}

namespace {

// How output `out` and input `in` share bytes. devplug refuses a prim call whose output
// shares bytes with an input without being the same view (its check is by byte range), and
// a composite call whose output shares any, while torch allows in-place ops, including ones
// whose operands interleave without sharing elements (x.t()[1:4].mul_(x.t()[4:7])). The
// bridge then computes into a fresh tensor and copies it over, which is right for both.
enum class Overlap { none, same_view, partial };

Overlap overlap(const devplug_tensor_desc_t& out, const DTensor& input) {
  const devplug_tensor_desc_t in = input.describe();
  if (in.buffer != out.buffer) return Overlap::none;
  auto range = [](const devplug_tensor_desc_t& d, uint64_t* lo, uint64_t* hi) {
    const auto size = static_cast<int64_t>(devplug_dtype_size(d.dtype));
    int64_t low = 0, high = 0;
    for (int32_t k = 0; k < d.rank; ++k) {
      if (d.shape[k] == 0) return false;
      const int64_t span = (d.shape[k] - 1) * d.strides[k] * size;
      (span < 0 ? low : high) += span;
    }
    *lo = static_cast<uint64_t>(static_cast<int64_t>(d.byte_offset) + low);
    *hi = static_cast<uint64_t>(static_cast<int64_t>(d.byte_offset) + high + size);
    return true;
  };
  uint64_t out_lo = 0, out_hi = 0, in_lo = 0, in_hi = 0;
  if (!range(out, &out_lo, &out_hi) || !range(in, &in_lo, &in_hi)) return Overlap::none;
  if (in_hi <= out_lo || out_hi <= in_lo) return Overlap::none;
  const bool same_view = in.byte_offset == out.byte_offset && in.rank == out.rank &&
                         devplug_dtype_size(in.dtype) == devplug_dtype_size(out.dtype) &&
                         std::equal(in.shape, in.shape + in.rank, out.shape) &&
                         std::equal(in.strides, in.strides + in.rank, out.strides);
  return same_view ? Overlap::same_view : Overlap::partial;
}

// Whether a prim's output must be staged: it shares bytes with an input that is not itself.
bool partly_overlaps_any(const DTensor& out, const std::vector<DTensor>& inputs) {
  const devplug_tensor_desc_t d = out.describe();
  for (const DTensor& in : inputs)
    if (overlap(d, in) == Overlap::partial) return true;
  return false;
}

// Whether a composite's output must be staged: it shares any bytes with an input.
bool overlaps_any(const DTensor& out, const std::vector<OptDTensor>& inputs) {
  const devplug_tensor_desc_t d = out.describe();
  for (const OptDTensor& in : inputs)
    if (in && overlap(d, *in) != Overlap::none) return true;
  return false;
}

devplug_tensor_t* handle_or_null(const OptDTensor& t) { return t ? t->handle() : nullptr; }

}  // namespace

void Dev::call(devplug_op_t op, const std::vector<DTensor>& inputs, const std::vector<DTensor>& outputs,
               const void* attrs) const {
  std::vector<DTensor> targets = outputs;
  std::vector<size_t> staged;
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (!partly_overlaps_any(outputs[o], inputs)) continue;
    targets[o] = empty(outputs[o].dtype(), outputs[o].shape());
    staged.push_back(o);
  }
  devplug::call(op, inputs, targets, attrs, &stream_);
  for (size_t o : staged) copy(targets[o], outputs[o]);
}

void Dev::composite(devplug_op_t op, const std::vector<OptDTensor>& inputs,
                    const std::vector<OptDTensor>& outputs, const void* attrs) const {
  std::vector<OptDTensor> targets = outputs;
  std::vector<size_t> staged;
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (!outputs[o] || !overlaps_any(*outputs[o], inputs)) continue;
    targets[o] = empty(outputs[o]->dtype(), outputs[o]->shape());
    staged.push_back(o);
  }
  std::vector<devplug_tensor_t*> in, out;
  for (const OptDTensor& t : inputs) in.push_back(handle_or_null(t));
  for (const OptDTensor& t : targets) out.push_back(handle_or_null(t));
  check(devplug_op_call(stream_.handle(), op, in.data(), in.size(), out.data(), out.size(), attrs));
  for (size_t o : staged) copy(*targets[o], *outputs[o]);
}

void Dev::composite_into(devplug_op_t op, const std::vector<OptDTensor>& inputs, const DTensor& out,
                         const void* attrs) const {
  const devplug_dtype_t dtype = inputs.at(0)->dtype();
  if (out.dtype() == dtype) return composite(op, inputs, {out}, attrs);
  DTensor result = empty(dtype, out.shape());
  composite(op, inputs, {result}, attrs);
  copy(cast(result, out.dtype()), out);
}

DTensor Dev::ew(devplug_op_t op, const std::vector<DTensor>& inputs) const {
  return devplug::elementwise(op, inputs, &stream_);
}

void Dev::ew_into(devplug_op_t op, const std::vector<DTensor>& inputs, const DTensor& out) const {
  if (partly_overlaps_any(out, inputs)) {
    DTensor staged = empty(out.dtype(), out.shape());
    devplug::elementwise_into(op, inputs, staged, &stream_);
    copy(staged, out);
    return;
  }
  DTensor result = out;
  devplug::elementwise_into(op, inputs, result, &stream_);
}

DTensor Dev::ew_scalar(devplug_op_t op, const DTensor& x, const c10::Scalar& value) const {
  return ew(op, {x, scalar(x.dtype(), value)});
}

DTensor Dev::cast(const DTensor& x, devplug_dtype_t dtype) const {
  if (x.dtype() == dtype) return x;
  DTensor out = empty(dtype, x.shape());
  call(DEVPLUG_OP_convert_element_type, {x}, {out});
  return out;
}

DTensor Dev::contiguous(const DTensor& x) const {
  const devplug_tensor_desc_t d = x.describe();
  int64_t expected = 1;
  bool dense = true;
  for (int32_t i = d.rank - 1; i >= 0; --i) {
    if (d.shape[i] != 1 && d.strides[i] != expected) dense = false;
    expected *= d.shape[i];
  }
  if (dense) return x;
  DTensor out = empty(d.dtype, x.shape());
  copy(x, out);
  return out;
}

void Dev::copy(const DTensor& src, const DTensor& dst) const {
  DTensor target = dst;
  target.copy_from(src, &stream_);
}

DTensor Dev::reduce(devplug_op_t op, const DTensor& x, uint32_t mask, double correction) const {
  Shape shape = x.shape();
  for (size_t d = 0; d < shape.size(); ++d)
    if (mask & (1u << d)) shape[d] = 1;
  devplug_dtype_t dtype = x.dtype();
  if (op == DEVPLUG_OP_argmax || op == DEVPLUG_OP_argmin) dtype = DEVPLUG_DTYPE_INT64;
  if (op == DEVPLUG_OP_all || op == DEVPLUG_OP_any) dtype = DEVPLUG_DTYPE_BOOL;
  DTensor out = empty(dtype, shape);
  reduce_into(op, x, mask, out, correction);
  return out;
}

void Dev::reduce_into(devplug_op_t op, const DTensor& x, uint32_t mask, const DTensor& out,
                      double correction) const {
  devplug_reduce_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.dims_mask = mask;
  attrs.correction = correction;
  call(op, {x}, {out}, &attrs);
}

DTensor Dev::matmul(const DTensor& a, const DTensor& b) const {
  Shape sa = a.shape(), sb = b.shape();
  TORCH_CHECK(sa.size() >= 2 && sb.size() >= 2, "devplug: matmul needs two operands of rank >= 2");
  TORCH_CHECK(sa.back() == sb[sb.size() - 2], "devplug: matmul shapes do not fit: [..., ", sa[sa.size() - 2],
              ", ", sa.back(), "] x [..., ", sb[sb.size() - 2], ", ", sb.back(), "]");
  Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  Shape batch = devplug::broadcast_shapes(batch_a, batch_b);
  auto expand = [&](const DTensor& t, const Shape& s) {
    Shape full = batch;
    full.push_back(s[s.size() - 2]);
    full.push_back(s.back());
    return s == full ? t : t.expand(full);
  };
  DTensor ea = expand(a, sa), eb = expand(b, sb);
  Shape out_shape = batch;
  out_shape.push_back(sa[sa.size() - 2]);
  out_shape.push_back(sb.back());
  DTensor out = empty(a.dtype(), out_shape);
  if (!integer_matmul_dtype(a.dtype())) {
    devplug_matmul_attrs_t attrs{};
    attrs.struct_size = sizeof(attrs);
    call(DEVPLUG_OP_matmul, {ea, eb}, {out}, &attrs);
    return out;
  }
  // Integer matrices, which the matmul prim does not take: each block of rows as one
  // broadcast product [.., m, k, n] summed over k, exact and wrapping in the dtype as torch's
  // CPU does (the product and the sum wrap modulo 2^bits, so the order does not matter).
  // Blocks keep the product near 2^24 elements.
  const int32_t rank = static_cast<int32_t>(out_shape.size());
  const int64_t m = sa[sa.size() - 2];
  int64_t per_row = 1;
  for (size_t d = 0; d < batch.size(); ++d) per_row *= batch[d];
  per_row *= sa.back() * sb.back();
  const int64_t rows = std::max<int64_t>(1, (int64_t{1} << 24) / std::max<int64_t>(1, per_row));
  const DTensor eb_rows = eb.unsqueeze(rank - 2);  // [.., 1, k, n]
  for (int64_t r0 = 0; r0 < m; r0 += rows) {
    const int64_t r1 = std::min(m, r0 + rows);
    const DTensor block = ea.slice(rank - 2, r0, r1).unsqueeze(rank);  // [.., rows, k, 1]
    const DTensor product = ew(DEVPLUG_OP_mul, {block, eb_rows});      // [.., rows, k, n]
    reduce_into(DEVPLUG_OP_sum, product, 1u << (rank - 1), out.slice(rank - 2, r0, r1).unsqueeze(rank - 1));
  }
  return out;
}

bool integer_matmul_dtype(devplug_dtype_t dtype) {
  return (DEVPLUG_DTYPES_INT & DEVPLUG_DTYPE_BIT(dtype)) != 0;
}

uint32_t dims_mask(at::IntArrayRef dims, int64_t rank, bool empty_means_all) {
  if (dims.empty() && empty_means_all)
    return rank == 0 ? 0u : static_cast<uint32_t>((uint64_t{1} << rank) - 1);
  uint32_t mask = 0;
  for (int64_t d : dims) {
    const int64_t w = c10::maybe_wrap_dim(d, rank);
    TORCH_CHECK(!(mask & (1u << w)), "devplug: dim ", w, " appears twice in the list of dims");
    mask |= 1u << w;
  }
  // torch takes dim 0 and -1 of a 0-dim tensor as its one element: there is no dim to reduce.
  return rank == 0 ? 0u : mask;
}

Shape reduced_shape(at::IntArrayRef shape, uint32_t mask, bool keepdim) {
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (mask & (1u << d)) {
      if (keepdim) out.push_back(1);
    } else {
      out.push_back(shape[d]);
    }
  }
  return out;
}

DTensor squeeze_mask(const DTensor& t, uint32_t mask) {
  DTensor out = t;
  for (int32_t d = t.rank() - 1; d >= 0; --d)
    if (mask & (1u << d)) out = out.squeeze(d);
  return out;
}

DTensor unsqueeze_mask(const DTensor& t, uint32_t mask) {
  DTensor out = t;
  for (int32_t d = 0; d < 32; ++d)
    if (mask & (1u << d)) out = out.unsqueeze(d);
  return out;
}

at::Tensor empty_torch(const Dev& dev, at::IntArrayRef shape, at::ScalarType dtype) {
  require_dtype(dtype, "the new tensor");
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, dev.index()));  // allocator() uses it
  return at::detail::empty_generic(shape, allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   dtype, std::nullopt);
}

at::Tensor empty_like_torch(const at::Tensor& like, at::ScalarType dtype) {
  require_dtype(dtype, "the new tensor");
  c10::DeviceGuard guard(like.device());
  const c10::DispatchKeySet keys(c10::DispatchKey::PrivateUse1);
  if (like.is_non_overlapping_and_dense())
    return at::detail::empty_strided_generic(like.sizes(), like.strides(), allocator(), keys, dtype);
  // Dense strides in like's dimension order (a slice of a transposed tensor stays transposed).
  return at::detail::empty_strided_generic(
      like.sizes(), at::infer_dense_strides(like.sizes(), like.strides()), allocator(), keys, dtype);
}

devplug_dtype_t opmath(devplug_dtype_t dtype) {
  return dtype == DEVPLUG_DTYPE_FLOAT16 || dtype == DEVPLUG_DTYPE_BFLOAT16 ? DEVPLUG_DTYPE_FLOAT32 : dtype;
}

bool op_allows(devplug_op_t op, at::ScalarType dtype) {
  const devplug_op_info_t* info = devplug_op_info(op);
  const std::optional<devplug_dtype_t> d = devplug_dtype(dtype);
  return info != nullptr && d.has_value() && (info->dtypes & DEVPLUG_DTYPE_BIT(*d)) != 0;
}

void fallback_unless_allowed(devplug_op_t op, at::ScalarType dtype) {
  if (!op_allows(op, dtype)) throw OnCpu{};
}

void fallback_unless_matmul(at::ScalarType dtype) {
  const std::optional<devplug_dtype_t> d = devplug_dtype(dtype);
  if (d.has_value() && integer_matmul_dtype(*d)) return;
  fallback_unless_allowed(DEVPLUG_OP_matmul, dtype);
}

at::ScalarType default_float() { return c10::typeMetaToScalarType(c10::get_default_dtype()); }

at::Tensor wrap_scalar(const c10::Scalar& s) {
  at::Tensor t = c10::scalar_to_tensor(s);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

bool handles_held_dtypes(const std::string& aten) {
  static const char* const ops[] = {"_copy_from",
                                    "_copy_from_and_resize",
                                    "_local_scalar_dense",
                                    "resize_",
                                    "set_.source_Storage_storage_offset",
                                    "set_.source_Storage",
                                    "set_.source_Tensor",
                                    "set_"};
  for (const char* op : ops)
    if (aten == op) return true;
  return false;
}

}  // namespace devplug::bridge
