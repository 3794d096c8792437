// SPDX-License-Identifier: Apache-2.0
// What every devplug kernel of the bridge uses: the registration wrapper that turns
// devplug errors into torch errors and runs the calls a kernel leaves to torch's CPU there,
// and `Dev`, one device and its current stream with the devplug ops the kernels compose
// (elementwise with broadcasting and promotion, casts, reductions, fills).
//
// Kernels take torch tensors, make devplug views of them (view_of) and run devplug ops on
// the current stream of their device: prims, and devplug's composite ops (op set 2), which
// run the plugin's native kernel where it has one and devplug's decomposition into prims on
// the device otherwise. A call whose dtype the kernel's devplug op does not allow (integer
// matmul, bool scatter_add) is not refused: the kernel calls fallback_unless_allowed before
// it writes anything, and the same aten op runs on torch's CPU through the boxed fallback,
// counted like an op without a kernel. Nothing here copies data through the host except
// CPU scalars (0-dim CPU tensors and wrapped numbers, which torch lets mix with device
// tensors).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <torch/library.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fallback.hpp"
#include "runtime.hpp"
#include "storage.hpp"

namespace devplug::bridge {

// Whether a kernel argument is or holds a tensor of a dtype devplug tensors only hold
// (held_as: complex, uint16/32/64, float8), whose ops run on torch's CPU.
inline bool held_arg(const at::Tensor& t) { return t.defined() && held_as(t.scalar_type()).has_value(); }
inline bool held_arg(const std::optional<at::Tensor>& t) { return t.has_value() && held_arg(*t); }
// Element names the type each item is read as (a c10::List gives proxies, which the catch-all
// below would take for a non-tensor).
template <typename Element, typename List>
bool any_held(const List& list) {
  for (Element t : list)
    if (held_arg(t)) return true;
  return false;
}
inline bool held_arg(at::TensorList list) { return any_held<const at::Tensor&>(list); }
inline bool held_arg(const at::ITensorListRef& list) { return any_held<const at::Tensor&>(list); }
inline bool held_arg(const c10::List<std::optional<at::Tensor>>& list) {
  return any_held<std::optional<at::Tensor>>(list);
}
template <typename T>
bool held_arg(const T& /*not a tensor*/) {
  return false;
}
// The aten ops whose kernels take tensors of held dtypes themselves: copies, reading one
// element, and storage and metadata changes (ops/tensor.cpp).
bool handles_held_dtypes(const std::string& aten);

// Kernel F as torch registers it for aten op `aten` ("mm.out"): a devplug::Error thrown
// inside becomes the matching torch error, and an OnCpu (fallback.hpp) runs the same call
// on torch's CPU through the boxed fallback instead, as does a call with a tensor of a dtype
// devplug only holds. Arguments reach F as lvalues, so they are intact for the fallback when
// F gives up.
template <auto F>
struct Guarded;
template <typename R, typename... A, R (*F)(A...)>
struct Guarded<F> {
  static torch::CppFunction kernel(const char* aten) {
    const bool held_ok = handles_held_dtypes(aten);
    return torch::CppFunction([aten = std::string(aten), held_ok](A... args) -> R {
      try {
        if (!held_ok && (held_arg(args) || ...)) throw OnCpu{};
        return F(args...);
      } catch (const devplug::Error& e) {
        throw_torch_error(e);
      } catch (const OnCpu&) {
        // F left the call to torch's CPU: run it there, below, once the exception is gone.
      }
      return c10::impl::BoxedKernelWrapper<R(A...)>::call(c10::BoxedKernel::makeFromFunction<&cpu_fallback>(),
                                                          aten_op(aten), c10::DispatchKeySet(), args...);
    });
  }
};
// What Table::add takes for kernel F (ops.hpp): DEVPLUG_KERNEL(f).
template <auto F>
struct KernelOf {};
#define DEVPLUG_KERNEL(...) (::devplug::bridge::KernelOf<&__VA_ARGS__>{})
// The function registered for `aten`: F guarded, or a plain TORCH_FN as it is.
template <auto F>
torch::CppFunction registered(const char* aten, KernelOf<F>) {
  return Guarded<F>::kernel(aten);
}
template <typename Kernel>
Kernel&& registered(const char* /*aten*/, Kernel&& kernel) {
  return std::forward<Kernel>(kernel);
}

using DTensor = devplug::Tensor;
using OptDTensor = std::optional<DTensor>;
using Shape = std::vector<int64_t>;

// One device and the stream a kernel's ops go to.
class Dev {
 public:
  explicit Dev(c10::DeviceIndex index);
  // The device of the first devplug tensor among `tensors` (CPU scalars are skipped);
  // throws when devplug tensors of two devices meet.
  static Dev of(std::initializer_list<const at::Tensor*> tensors);
  static Dev of(const at::Tensor& t) { return of({&t}); }

  c10::DeviceIndex index() const { return index_; }
  const devplug::Device& device() const { return device_; }
  const devplug::Stream& stream() const { return stream_; }
  // Whether the device runs prim `op` for dispatch dtype `dtype` itself (no devplug CPU
  // fallback).
  bool supports(devplug_op_t op, devplug_dtype_t dtype) const;

  // `t` as a devplug tensor: a view of a devplug tensor, or a CPU scalar (0-dim) copied to
  // the device, as `scalar_dtype` when given.
  DTensor operand(const at::Tensor& t, std::optional<devplug_dtype_t> scalar_dtype = std::nullopt) const;

  DTensor empty(devplug_dtype_t dtype, const Shape& shape) const;
  DTensor scalar(devplug_dtype_t dtype, const c10::Scalar& value) const;  // 0-dim
  DTensor full(devplug_dtype_t dtype, const Shape& shape, const c10::Scalar& value) const;
  void fill(const DTensor& t, const c10::Scalar& value) const;
  // Element k (row-major) = start + k * step.
  DTensor iota(devplug_dtype_t dtype, const Shape& shape, const c10::Scalar& start,
               const c10::Scalar& step) const;

  // Runs prim `op` with outputs given (devplug_op_call).
  void call(devplug_op_t op, const std::vector<DTensor>& inputs, const std::vector<DTensor>& outputs,
            const void* attrs = nullptr) const;
  // Runs composite `op` (devplug_op_call): an absent optional input or output is nullopt.
  // An output that shares memory with an input is computed into a fresh tensor and copied
  // over, since a composite never writes over its inputs (torch's in-place ops do).
  void composite(devplug_op_t op, const std::vector<OptDTensor>& inputs,
                 const std::vector<OptDTensor>& outputs, const void* attrs = nullptr) const;
  // Composite `op` with one output, written into `out` of any layout and dtype (computed in
  // the op's dtype and cast when out's differs).
  void composite_into(devplug_op_t op, const std::vector<OptDTensor>& inputs, const DTensor& out,
                      const void* attrs = nullptr) const;
  // Elementwise `op` with devplug's broadcasting and promotion: a new tensor, or into `out`
  // (cast to its dtype).
  DTensor ew(devplug_op_t op, const std::vector<DTensor>& inputs) const;
  void ew_into(devplug_op_t op, const std::vector<DTensor>& inputs, const DTensor& out) const;
  // Elementwise `op` of `x` and a scalar of x's dtype.
  DTensor ew_scalar(devplug_op_t op, const DTensor& x, const c10::Scalar& value) const;

  DTensor cast(const DTensor& x, devplug_dtype_t dtype) const;  // x itself when it has the dtype
  DTensor contiguous(const DTensor& x) const;                   // x itself when dense row-major
  void copy(const DTensor& src, const DTensor& dst) const;      // any layouts, same shape

  // Reduction `op` over the dims in `mask`, keeping them as size 1 (devplug's shape rule).
  DTensor reduce(devplug_op_t op, const DTensor& x, uint32_t mask, double correction = 0) const;
  void reduce_into(devplug_op_t op, const DTensor& x, uint32_t mask, const DTensor& out,
                   double correction = 0) const;

  // a @ b with batch dims broadcast: the matmul prim, or for integer dtypes (which it does
  // not take) products summed on the device, exact and wrapping as torch's CPU does.
  DTensor matmul(const DTensor& a, const DTensor& b) const;

 private:
  c10::DeviceIndex index_;
  devplug::Device device_;
  devplug::Stream stream_;
};

// The dims mask of `dims` (negative dims wrap) in a tensor of `rank`; all dims when
// `dims` is empty and `empty_means_all`.
uint32_t dims_mask(at::IntArrayRef dims, int64_t rank, bool empty_means_all = true);
// `shape` with the dims of `mask` removed (keepdim=False) or kept as 1.
Shape reduced_shape(at::IntArrayRef shape, uint32_t mask, bool keepdim);
// `t` (whose masked dims have size 1) with those dims dropped, as a view.
DTensor squeeze_mask(const DTensor& t, uint32_t mask);
// `t` with size-1 dims inserted where `mask` has bits, as a view (inverse of squeeze_mask).
DTensor unsqueeze_mask(const DTensor& t, uint32_t mask);

// A new devplug torch tensor on `dev`. Allocated here, as the bridge's own empty kernel does,
// without a dispatch of aten::empty (a kernel that calls this records no nested op).
at::Tensor empty_torch(const Dev& dev, at::IntArrayRef shape, at::ScalarType dtype);
// A new devplug torch tensor of `dtype` with the shape and layout of devplug tensor `like`:
// torch's empty_like with preserve_format (like's strides when it is non-overlapping and
// dense, else dense strides in its dimension order), without a dispatch.
at::Tensor empty_like_torch(const at::Tensor& like, at::ScalarType dtype);
// The dtype torch gives float results of integral inputs (torch.get_default_dtype()).
at::ScalarType default_float();
// `value` as devplug's scalar: `.i` and `.f` both set (a float truncated toward zero).
devplug_scalar_t to_devplug_scalar(const c10::Scalar& value);
// `s` as a CPU wrapped-number tensor (what torch passes for Python numbers).
at::Tensor wrap_scalar(const c10::Scalar& s);
// The dtype the bridge computes `dtype` in where torch uses its opmath type: float32 for the
// 16-bit floats (sums of squares and norms, activations' intermediates), else `dtype`.
devplug_dtype_t opmath(devplug_dtype_t dtype);
// Whether devplug op `op` allows `dtype` (its dtype set in ops.def).
bool op_allows(devplug_op_t op, at::ScalarType dtype);
// Whether Dev::matmul takes `dtype` through its integer path (products summed on the device).
bool integer_matmul_dtype(devplug_dtype_t dtype);
// fallback_unless_allowed for the matmul family: the dtypes of the matmul prim and the
// integer dtypes Dev::matmul sums itself.
void fallback_unless_matmul(at::ScalarType dtype);
// Leaves the call to torch's CPU (throws OnCpu, fallback.hpp) unless devplug op `op`
// allows `dtype`. Call it before the kernel writes anything.
void fallback_unless_allowed(devplug_op_t op, at::ScalarType dtype);
// The attributes of a devplug op along one dim (index_select, gather, scatter, cumsum, ...).
inline devplug_dim_attrs_t dim_attrs(int64_t dim) {
  return {sizeof(devplug_dim_attrs_t), static_cast<int32_t>(dim)};
}
// Whether an optional tensor argument was given.
inline bool given(const std::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }
// Whether `t` is a CPU scalar that may mix with device tensors.
inline bool is_cpu_scalar(const at::Tensor& t) { return t.device().is_cpu() && t.dim() == 0; }

}  // namespace devplug::bridge
