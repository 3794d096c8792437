// SPDX-License-Identifier: Apache-2.0
// Tensors themselves: factories, copies between devplug and CPU and between devplug
// devices, the view ops torch leaves to backends, resizing, set_, fill and reading one
// element. Views are torch's own metadata functions on devplug storages, so they alias.
#include <ATen/EmptyTensor.h>
#include <ATen/ExpandUtils.h>
#include <ATen/Functions.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/is_set_to_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>

#include "ops/ops.hpp"
#include "ops/tensor.hpp"
#include "pinned.hpp"

namespace devplug::bridge {

at::Tensor empty_memory_format(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout, std::optional<at::Device> device,
                               std::optional<bool> pin_memory,
                               std::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!layout.has_value() || *layout == at::kStrided, "devplug: only strided tensors, got layout ",
              *layout);
  TORCH_CHECK(!pin_memory.value_or(false), "devplug: only CPU tensors can be pinned");
  const at::ScalarType type = dtype.value_or(default_float());
  if (!held_as(type).has_value()) require_devplug_dtype(type, "the new tensor");
  const c10::DeviceIndex index =
      device.has_value() && device->has_index() ? device->index() : current_device();
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, index));
  return at::detail::empty_generic(size, allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   type, memory_format);
}

at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride, std::optional<at::ScalarType> dtype,
                         std::optional<at::Layout> layout, std::optional<at::Device> device,
                         std::optional<bool> pin_memory) {
  TORCH_CHECK(!layout.has_value() || *layout == at::kStrided, "devplug: only strided tensors, got layout ",
              *layout);
  TORCH_CHECK(!pin_memory.value_or(false), "devplug: only CPU tensors can be pinned");
  const at::ScalarType type = dtype.value_or(default_float());
  if (!held_as(type).has_value()) require_devplug_dtype(type, "the new tensor");
  const c10::DeviceIndex index =
      device.has_value() && device->has_index() ? device->index() : current_device();
  c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, index));
  return at::detail::empty_strided_generic(size, stride, allocator(),
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), type);
}

namespace {

bool on_devplug(const at::Tensor& t) { return t.device().type() == c10::DeviceType::PrivateUse1; }

// Copies host tensor `host` (dst's shape and dtype, contiguous) into devplug tensor `dst`:
// enqueued without waiting when `non_blocking` and `host` is the plugin's pinned memory for
// dst's device (pinned.hpp), synchronously otherwise.
void upload(const at::Tensor& host, const at::Tensor& dst, bool non_blocking) {
  Dev dev = Dev::of(dst);
  DTensor target = bytes_view_of(dst);
  const void* data = host.const_data_ptr();
  if (non_blocking && copies_async(data, host.nbytes(), dev.index())) {
    target.copy_from_host_async(data, host.nbytes(), &dev.stream());
    record_use(data, dev.stream(), dev.index());
    return;
  }
  target.copy_from_host(data, host.nbytes(), &dev.stream());
}

// Whether either side of a copy has a dtype devplug tensors only hold (storage.hpp).
bool held(const at::Tensor& a, const at::Tensor& b) {
  return held_as(a.scalar_type()).has_value() || held_as(b.scalar_type()).has_value();
}

// `self`'s values on the CPU, in its dtype: its bytes copied to the host, then its conj and neg
// bits (which the bytes do not carry) applied as torch's lazy views.
at::Tensor to_host(const at::Tensor& self) {
  Dev dev = Dev::of(self);
  at::Tensor host = at::empty(self.sizes(), self.options().device(at::kCPU));
  bytes_view_of(self).copy_to_host(host.data_ptr(), host.nbytes(), &dev.stream());
  if (self.is_neg()) host = host._neg_view();
  if (self.is_conj()) host = host.conj();
  return host;
}

}  // namespace

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  // No op here dispatches on `self` or `dst` themselves: torch would resolve a conj or neg bit
  // of theirs by a clone, which copies through this kernel again.
  TORCH_CHECK(self.sizes() == dst.sizes() || at::is_expandable_to(self.sizes(), dst.sizes()),
              "devplug: copy_ from shape ", self.sizes(), " into shape ", dst.sizes(), ": not broadcastable");
  if (dst.numel() == 0) return dst;
  // A conj or neg bit that differs between the two (a neg bit also comes with the real dtype
  // of `.imag` of a conjugated tensor) is applied on the CPU.
  if (on_devplug(self) && on_devplug(dst) &&
      (self.is_conj() != dst.is_conj() || self.is_neg() != dst.is_neg())) {
    dst.copy_(to_host(self));
    return dst;
  }
  if (on_devplug(self) && on_devplug(dst)) {
    // A dtype devplug only holds converts on the CPU; so does a complex tensor of devplug's
    // largest rank, whose merged dims (bytes_view_of) the two sides need not share.
    if (held(self, dst) && (self.scalar_type() != dst.scalar_type() ||
                            dst.dim() + (held_as(dst.scalar_type())->lanes > 1 ? 1 : 0) > DEVPLUG_MAX_RANK)) {
      dst.copy_(to_host(self));
      return dst;
    }
    Dev dev = Dev::of(dst);
    DTensor target = bytes_view_of(dst);
    DTensor src = bytes_view_of(self);
    if (self.sizes() != dst.sizes()) src = src.expand(target.shape());
    if (self.device() != dst.device() && src.dtype() != target.dtype()) {
      Dev source(self.device().index());
      src = source.cast(src, target.dtype());
      source.stream().synchronize();  // the destination's stream cannot wait for it otherwise
    }
    if (self.is_alias_of(dst)) {  // overlapping views of one storage: read everything first
      DTensor staged = dev.empty(src.dtype(), src.shape());
      dev.copy(src, staged);
      src = staged;
    }
    if (src.dtype() == target.dtype()) {
      dev.copy(src, target);
    } else {
      dev.call(DEVPLUG_OP_convert_element_type, {src}, {target});
    }
    return dst;
  }
  // Copies with host memory wait for the device, except with non_blocking=True between a
  // devplug tensor and the plugin's pinned memory of its device (pin_memory()): then the
  // copy is enqueued on the current stream and ordered there, as CUDA's.
  if (on_devplug(dst)) {  // CPU -> devplug
    at::Tensor host = self.to(dst.scalar_type()).expand(dst.sizes()).contiguous();
    // A conj or neg bit of `dst` applies to what its bytes hold: store their inverse.
    if (dst.is_conj()) host = host.conj();
    if (dst.is_neg()) host = host._neg_view();
    if (host.is_conj()) host = host.resolve_conj();
    if (host.is_neg()) host = host.resolve_neg();
    upload(host, dst, non_blocking);
    return dst;
  }
  // devplug -> CPU
  if (self.is_conj() || self.is_neg()) {
    dst.copy_(to_host(self));
    return dst;
  }
  Dev dev = Dev::of(self);
  DTensor src = bytes_view_of(self);
  if (dst.is_contiguous() && dst.scalar_type() == self.scalar_type() && self.sizes() == dst.sizes() &&
      !dst.is_conj() && !dst.is_neg()) {
    void* data = dst.data_ptr();
    if (non_blocking && copies_async(data, dst.nbytes(), dev.index())) {
      if (!src.copy_to_host_async(data, dst.nbytes(), &dev.stream())) return dst;  // it waited
      record_use(data, dev.stream(), dev.index());
      return dst;
    }
    src.copy_to_host(data, dst.nbytes(), &dev.stream());
    return dst;
  }
  at::Tensor host = at::empty(self.sizes(), self.options().device(at::kCPU));
  src.copy_to_host(host.data_ptr(), host.nbytes(), &dev.stream());
  dst.copy_(host);
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  return copy_from(self, dst, false);
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "devplug: a Tensor with ", self.numel(),
              " elements cannot be converted to Scalar");
  return to_host(self.reshape({})).item();
}

const at::Tensor& resize_(const at::Tensor& self, at::IntArrayRef size,
                          std::optional<at::MemoryFormat> format) {
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  at::native::resize_impl_cpu_(impl, size, std::nullopt, /*resize_storage=*/false);
  if (self.numel() > 0) {
    const size_t needed = at::detail::computeStorageNbytesContiguous(
        size, self.dtype().itemsize(), static_cast<size_t>(self.storage_offset()));
    if (needed > self.storage().nbytes()) resize_storage(self.storage(), needed);
  }
  if (format.has_value()) {
    TORCH_CHECK(*format != at::MemoryFormat::Preserve, "devplug: unsupported memory format ", *format);
    impl->empty_tensor_restride(*format);
  }
  return self;
}

at::Tensor& set_storage(at::Tensor& self, at::Storage source, int64_t offset, at::IntArrayRef size,
                        at::IntArrayRef stride) {
  TORCH_CHECK(source.device().type() == c10::DeviceType::PrivateUse1, "devplug: set_ with a storage on ",
              source.device());
  at::native::checkSetStorage(self, source, offset, size, stride);
  self.unsafeGetTensorImpl()->set_storage_offset(offset);
  at::OptionalIntArrayRef stride_opt =
      stride.data() != nullptr ? at::OptionalIntArrayRef(stride) : std::nullopt;
  at::native::resize_impl_cpu_(self.unsafeGetTensorImpl(), size, stride_opt, /*resize_storage=*/false);
  if (self.numel() > 0) {
    const size_t needed = stride_opt.has_value()
                              ? at::detail::computeStorageNbytes(size, *stride_opt, self.dtype().itemsize(),
                                                                 static_cast<size_t>(offset))
                              : at::detail::computeStorageNbytesContiguous(size, self.dtype().itemsize(),
                                                                           static_cast<size_t>(offset));
    if (needed > self.storage().nbytes()) resize_storage(self.storage(), needed);
  }
  return self;
}

at::Tensor& set_source_storage(at::Tensor& self, at::Storage source) {
  const int64_t count = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return set_storage(self, std::move(source), 0, {count}, {});
}

at::Tensor& set_source_tensor(at::Tensor& self, const at::Tensor& source) {
  if (self.is_same(source)) return self;
  return set_storage(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor& set_empty(at::Tensor& self) {
  c10::DeviceGuard guard(self.device());
  at::Storage fresh(c10::Storage::use_byte_size_t(), 0, allocator(), /*resizable=*/true);
  return set_storage(self, std::move(fresh), 0, {0}, {});
}

at::Tensor& fill_scalar_(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  Dev dev = Dev::of(self);
  dev.fill(view_of(self), value);
  return self;
}

at::Tensor& fill_tensor_(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "devplug: fill_ only supports a 0-dim value tensor, got ", value.dim(),
              " dims");
  if (value.device().is_cpu()) return fill_scalar_(self, value.item());
  if (self.numel() == 0) return self;
  return self.copy_(value);
}

at::Tensor& zero_(at::Tensor& self) { return fill_scalar_(self, 0); }

void register_tensor_ops(Table& t) {
  t.add("empty.memory_format", Impl::prim, "tensor_create", DEVPLUG_KERNEL(empty_memory_format));
  t.add("empty_strided", Impl::prim, "tensor_create", DEVPLUG_KERNEL(empty_strided));
  t.add("_copy_from", Impl::prim, "copy_strided, convert_element_type, host copies",
        DEVPLUG_KERNEL(copy_from));
  t.add("_copy_from_and_resize", Impl::prim, "copy_strided, host copies",
        DEVPLUG_KERNEL(copy_from_and_resize));
  t.add("_local_scalar_dense", Impl::prim, "copy to host", DEVPLUG_KERNEL(local_scalar_dense));
  t.add("resize_", Impl::prim, "tensor_create, copy_strided", DEVPLUG_KERNEL(resize_));
  t.add("set_.source_Storage_storage_offset", Impl::prim, "view", DEVPLUG_KERNEL(set_storage));
  t.add("set_.source_Storage", Impl::prim, "view", DEVPLUG_KERNEL(set_source_storage));
  t.add("set_.source_Tensor", Impl::prim, "view", DEVPLUG_KERNEL(set_source_tensor));
  t.add("set_", Impl::prim, "view", DEVPLUG_KERNEL(set_empty));
  t.add("is_set_to", Impl::prim, "view", TORCH_FN(at::native::is_set_to));
  t.add("view", Impl::view, "as_strided view", TORCH_FN(at::native::view));
  t.add("as_strided", Impl::view, "as_strided view", TORCH_FN(at::native::as_strided_tensorimpl));
  t.add("_reshape_alias", Impl::view, "as_strided view", TORCH_FN(at::native::_reshape_alias));
  t.add("unfold", Impl::view, "as_strided view", TORCH_FN(at::native::unfold));
  t.add("view_as_real", Impl::view, "as_strided view", TORCH_FN(at::native::view_as_real));
  t.add("view_as_complex", Impl::view, "as_strided view", TORCH_FN(at::native::view_as_complex));
  t.add("fill_.Scalar", Impl::prim, "fill", DEVPLUG_KERNEL(fill_scalar_));
  t.add("fill_.Tensor", Impl::prim, "fill, copy_strided", DEVPLUG_KERNEL(fill_tensor_));
  t.add("zero_", Impl::prim, "fill", DEVPLUG_KERNEL(zero_));
}

}  // namespace devplug::bridge

// torch resolves a conj or neg bit of an op's inputs by cloning them (its Conjugate and Negative
// fallbacks), and a clone of a devplug tensor copies through _copy_from: with those fallbacks
// in front of _copy_from a conjugated complex devplug tensor recursed until the stack ran out.
// copy_from applies both bits itself (to_host), so they pass _copy_from through untouched.
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, Negative, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
