// SPDX-License-Identifier: Apache-2.0
// DLPack export and import of devplug tensors (see dlpack.hpp), with the capsule rules of the
// DLPack Python specification: a capsule is named "dltensor" (DLManagedTensor) or
// "dltensor_versioned" (DLManagedTensorVersioned); a consumer renames it "used_..." and then
// owns the managed tensor; the capsule's destructor deletes only a capsule nobody consumed.
#include "dlpack.hpp"

#include <ATen/DLConvertor.h>
#include <ATen/dlpack.h>
#include <c10/core/DeviceGuard.h>
#include <torch/python.h>

#include <mutex>
#include <vector>

#include "runtime.hpp"
#include "storage.hpp"

namespace py = pybind11;

namespace devplug::bridge {
namespace {

// What a capsule's managed tensor points to: the exported torch tensor (so its storage stays
// alive) and the shape and strides the DLTensor borrows. `T` is DLManagedTensor or
// DLManagedTensorVersioned; `managed.manager_ctx` points back to the Export.
template <class T>
struct Export {
  T managed{};
  at::Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

// The deleter of every managed tensor devplug makes; the importer recognizes devplug's
// capsules by it. Any thread may call it, with or without the GIL (it only drops a tensor).
template <class T>
void delete_export(T* self) {
  delete static_cast<Export<T>*>(self->manager_ctx);
}

// The capsule destructor of the DLPack Python specification: deletes the managed tensor of a
// capsule nobody consumed, keeping any Python error that is being raised.
template <class T>
void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, at::DLPackTraits<T>::used)) return;
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  auto* managed = static_cast<T*>(PyCapsule_GetPointer(capsule, at::DLPackTraits<T>::capsule));
  if (managed == nullptr) {
    PyErr_WriteUnraisable(capsule);
  } else if (managed->deleter != nullptr) {
    managed->deleter(managed);
  }
  PyErr_Restore(type, value, traceback);
}

// Raises torch's BufferError for what a capsule cannot carry (as Tensor.__dlpack__ does), and
// a TypeError for a dtype devplug lacks.
void check_exportable(const at::Tensor& t) {
  TORCH_CHECK(t.defined(), "devplug: expected a tensor, got an undefined one");
  if (t.requires_grad())
    throw py::buffer_error("Can't export tensors that require gradient, use tensor.detach()");
  if (t.is_conj()) throw py::buffer_error("Can't export tensors with the conjugate bit set");
  if (t.is_neg()) throw py::buffer_error("Can't export tensors with the negative bit set");
  if (t.layout() != c10::kStrided)
    throw py::buffer_error("Can't export tensors with layout other than torch.strided");
  require_devplug_dtype(t.scalar_type(), "a tensor exported to DLPack");
}

// The host address of `t`'s first element on a host-memory device, once the tensor's current
// stream has finished its work. nullptr for an empty tensor the plugin gives no address for.
void* host_address_of(const at::Tensor& t) {
  TORCH_CHECK(host_memory(t.device().index()), "devplug: ", t.device(),
              " is not host memory: its tensors have no host address (export it as kDLExtDev, or copy it to "
              "the CPU)");
  devplug::Tensor view = view_of(t);
  try {
    stream_for(t.device().index()).synchronize();
    return view.host_address();
  } catch (const devplug::Error& e) {
    if (t.numel() == 0) return nullptr;
    throw_torch_error(e);
  }
}

// Wraps `t` in a capsule: kDLCPU for a CPU tensor (a copy the caller made) and, when `host`,
// for a devplug tensor on a host-memory device; kDLExtDev otherwise. `flags` go to a
// versioned capsule.
template <class T>
py::capsule make_capsule(const at::Tensor& t, bool host, bool read_only, uint64_t flags) {
  auto export_ = std::make_unique<Export<T>>();
  DLTensor& dl = export_->managed.dl_tensor;
  if (t.device().is_cpu()) {
    dl.device = {kDLCPU, 0};
    dl.data = read_only ? const_cast<void*>(t.const_data_ptr()) : t.mutable_data_ptr();
  } else if (host) {
    dl.device = {kDLCPU, 0};
    dl.data = host_address_of(t);
  } else {
    const Block& block = block_of(t.storage());
    dl.device = {kDLExtDev, static_cast<int32_t>(t.device().index())};
    dl.data = reinterpret_cast<void*>(block.address);
    dl.byte_offset = static_cast<uint64_t>(t.storage_offset()) * t.element_size();
  }
  export_->tensor = t;
  export_->shape = t.sizes().vec();
  export_->strides = t.strides().vec();
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = at::getDLDataType(t);
  dl.shape = export_->shape.data();
  dl.strides = export_->strides.data();
  export_->managed.manager_ctx = export_.get();
  export_->managed.deleter = &delete_export<T>;
  if constexpr (std::is_same_v<T, DLManagedTensorVersioned>) {
    export_->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    export_->managed.flags = flags;
  }
  PyObject* capsule = PyCapsule_New(&export_->managed, at::DLPackTraits<T>::capsule, &capsule_destructor<T>);
  if (capsule == nullptr) throw py::error_already_set();
  export_.release();  // the capsule owns it now
  return py::reinterpret_steal<py::capsule>(capsule);
}

// Exports `t` (a devplug tensor, or a CPU copy of one) as a DLPack capsule; see dlpack.hpp
// for the two forms. `versioned` makes a "dltensor_versioned" capsule, with the read-only bit
// when `read_only` and the copied bit when `copied`; `host` asks for the kDLCPU form of a
// devplug tensor. The capsule keeps `t` alive until it or its consumer deletes it.
//
// Errors: BufferError for what DLPack cannot carry (check_exportable) and for `read_only`
// without `versioned`; RuntimeError for `host` on a device that is not host memory.
py::capsule to_dlpack(const at::Tensor& t, bool versioned, bool read_only, bool host, bool copied) {
  check_exportable(t);
  TORCH_CHECK(t.device().is_cpu() || t.device().type() == c10::DeviceType::PrivateUse1,
              "devplug: _to_dlpack exports devplug tensors (and CPU copies of them), got one on ",
              t.device());
  if (read_only && !versioned)
    throw py::buffer_error(
        "read_only export requires the versioned DLPack protocol; pass max_version=(1, 0) or higher");
  if (!versioned) return make_capsule<DLManagedTensor>(t, host, read_only, 0);
  const uint64_t flags =
      (read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) | (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
  return make_capsule<DLManagedTensorVersioned>(t, host, read_only, flags);
}

// The devplug tensor of a devplug-made kDLExtDev capsule: a new tensor on the kept tensor's
// storage with the capsule's dtype, shape, strides and offset. Consumes the capsule.
template <class T>
at::Tensor import_capsule(PyObject* capsule) {
  auto* managed = static_cast<T*>(PyCapsule_GetPointer(capsule, at::DLPackTraits<T>::capsule));
  if (managed == nullptr) throw py::error_already_set();
  const DLTensor& dl = managed->dl_tensor;
  TORCH_CHECK(dl.device.device_type == kDLExtDev,
              "devplug: _from_dlpack imports kDLExtDev capsules; this one's device type is ",
              static_cast<int>(dl.device.device_type), " (torch.from_dlpack takes it)");
  TORCH_CHECK(
      managed->deleter == &delete_export<T>,
      "devplug: this kDLExtDev DLPack capsule was not made by torch_devplug. A kDLExtDev address means "
      "something only to its producer, so only capsules of devplug tensors become devplug tensors");
  if constexpr (std::is_same_v<T, DLManagedTensorVersioned>) {
    TORCH_CHECK(managed->version.major == DLPACK_MAJOR_VERSION,
                "unsupported DLPack capsule major version: ", managed->version.major);
  }
  const at::Tensor& kept = static_cast<Export<T>*>(managed->manager_ctx)->tensor;
  TORCH_CHECK(
      kept.device().type() == c10::DeviceType::PrivateUse1 && kept.device().index() == dl.device.device_id,
      "devplug: the capsule's device_id ", dl.device.device_id, " is not its tensor's device ",
      kept.device());
  const Block& block = block_of(kept.storage());
  TORCH_CHECK(reinterpret_cast<uintptr_t>(dl.data) == block.address,
              "devplug: the storage of this capsule's tensor was resized (reallocated) after the export");
  const c10::ScalarType dtype = at::toScalarType(dl.dtype);
  require_devplug_dtype(dtype, "a DLPack capsule");
  const int64_t itemsize = static_cast<int64_t>(c10::elementSize(dtype));
  TORCH_CHECK(dl.byte_offset % itemsize == 0, "devplug: the capsule's byte_offset ", dl.byte_offset,
              " is not a multiple of its element size ", itemsize);
  const std::vector<int64_t> shape(dl.shape, dl.shape + dl.ndim);
  std::vector<int64_t> strides;
  if (dl.strides != nullptr) {
    strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {
    const c10::DimVector contiguous = c10::contiguous_strides(shape);
    strides.assign(contiguous.begin(), contiguous.end());
  }
  const c10::DeviceGuard guard(kept.device());
  at::Tensor tensor = at::empty({0}, kept.options().dtype(dtype));
  tensor.set_(kept.storage(), static_cast<int64_t>(dl.byte_offset) / itemsize, shape, strides);
  // Consumed: the capsule no longer deletes the managed tensor; this import does, as the new
  // tensor holds the storage itself.
  if (PyCapsule_SetName(capsule, at::DLPackTraits<T>::used) != 0) throw py::error_already_set();
  managed->deleter(managed);
  return tensor;
}

// Imports a devplug-made kDLExtDev capsule (see import_capsule).
//
// Errors: RuntimeError for a consumed or foreign capsule, a capsule of another device type, or
// one not made by torch_devplug.
at::Tensor from_dlpack(const py::object& capsule) {
  PyObject* c = capsule.ptr();
  if (PyCapsule_IsValid(c, at::DLPackTraits<DLManagedTensorVersioned>::capsule))
    return import_capsule<DLManagedTensorVersioned>(c);
  if (PyCapsule_IsValid(c, at::DLPackTraits<DLManagedTensor>::capsule))
    return import_capsule<DLManagedTensor>(c);
  TORCH_CHECK(false,
              "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only "
              "once, so you might have already constructed a tensor from it once.");
}

// (device_type, device_id) of an unconsumed DLPack capsule; None for anything else.
py::object capsule_device(const py::object& object) {
  PyObject* c = object.ptr();
  const DLTensor* dl = nullptr;
  if (PyCapsule_IsValid(c, at::DLPackTraits<DLManagedTensorVersioned>::capsule)) {
    dl = &static_cast<DLManagedTensorVersioned*>(
              PyCapsule_GetPointer(c, at::DLPackTraits<DLManagedTensorVersioned>::capsule))
              ->dl_tensor;
  } else if (PyCapsule_IsValid(c, at::DLPackTraits<DLManagedTensor>::capsule)) {
    dl = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, at::DLPackTraits<DLManagedTensor>::capsule))
              ->dl_tensor;
  }
  if (dl == nullptr) return py::none();
  return py::make_tuple(static_cast<int>(dl->device.device_type), static_cast<int>(dl->device.device_id));
}

}  // namespace

// Whether tensors of devplug device `index` are host memory the host may address: the device
// says DEVPLUG_DEVICE_UNIFIED_MEMORY and its plugin gives a host address for a probe tensor.
// Asked once per device. Thread-safe.
bool host_memory(c10::DeviceIndex index) {
  static std::mutex mutex;
  static std::vector<int8_t> known;  // per device: -1 not asked yet, 0 no, 1 yes
  check_not_forked();
  Runtime& runtime = Runtime::get();
  const devplug::Device& device = runtime.device(index);  // throws for a bad index
  std::lock_guard<std::mutex> lock(mutex);
  if (known.empty()) known.assign(static_cast<size_t>(runtime.device_count()), -1);
  int8_t& answer = known[static_cast<size_t>(index)];
  if (answer < 0) {
    try {
      answer = 0;
      if (device.properties().capabilities & DEVPLUG_DEVICE_UNIFIED_MEMORY) {
        devplug::Tensor probe = devplug::Tensor::empty(device, DEVPLUG_DTYPE_UINT8, {1});
        answer = probe.host_address() != nullptr ? 1 : 0;
      }
    } catch (const devplug::Error& e) {
      if (e.code() != DEVPLUG_CODE_UNIMPLEMENTED && e.code() != DEVPLUG_CODE_FAILED_PRECONDITION) {
        answer = -1;
        throw_torch_error(e);
      }
    }
  }
  return answer == 1;
}

void bind_dlpack(py::module_& m) {
  m.def("_to_dlpack", &to_dlpack, py::arg("tensor"), py::arg("versioned"), py::arg("read_only"),
        py::arg("host"), py::arg("copied"));
  m.def("_from_dlpack", &from_dlpack, py::arg("capsule"));
  m.def("_dlpack_check", &check_exportable, py::arg("tensor"));
  m.def("_dlpack_host_memory", [](int index) { return host_memory(static_cast<c10::DeviceIndex>(index)); });
  m.def("_dlpack_capsule_device", &capsule_device, py::arg("object"));
}

}  // namespace devplug::bridge
