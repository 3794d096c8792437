// SPDX-License-Identifier: Apache-2.0
// C entry points: DLPack export and import of tensors (devplug.h). An export owns a view of
// the tensor and is listed in a process-wide registry, so that the import recognizes
// devplug's own managed tensors and a device shutting down (its context destroyed) detaches
// the views its exports hold before it frees them; a deleter called later frees only the
// managed tensor.
#include "dlpack.hpp"

#include <mutex>
#include <string>
#include <unordered_set>

#include "api_guard.hpp"
#include "context.hpp"
#include "dlpack_abi.hpp"
#include "graph.hpp"
#include "tensor.hpp"

using namespace devplug::detail;

namespace {

struct Export {
  DLManagedTensorVersioned managed{};
  devplug_tensor_t* view = nullptr;  // NULL once its device shut down
  devplug_device_t* device = nullptr;
  // What `managed.dl_tensor.data` is for the storage's first byte: the buffer handle
  // (kDLExtDev) or the storage's host address (kDLCPU).
  const unsigned char* base = nullptr;
  DLDevice exported{};  // dl_tensor.device as exported (a consumer may change managed's)
  int64_t shape[DEVPLUG_MAX_RANK] = {};
  int64_t strides[DEVPLUG_MAX_RANK] = {};
};

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::unordered_set<Export*>& registry() {                    // guarded by registry_mutex()
  static auto* exports = new std::unordered_set<Export*>();  // never destroyed: deleters may run at exit
  return *exports;
}

void delete_export(DLManagedTensorVersioned* self) noexcept {
  if (self == nullptr) return;
  auto* e = static_cast<Export*>(self->manager_ctx);
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().erase(e);
    if (e->view != nullptr && !forked_after_init()) release_tensor(e->view);
  }
  delete e;
}

DLDataType dl_dtype(devplug_dtype_t dtype) {
  const auto bits = static_cast<uint8_t>(devplug_dtype_size(dtype) * 8);
  switch (dtype) {
    case DEVPLUG_DTYPE_BOOL:
      return {kDLPackBool, 8, 1};
    case DEVPLUG_DTYPE_UINT8:
      return {kDLUInt, 8, 1};
    case DEVPLUG_DTYPE_INT8:
    case DEVPLUG_DTYPE_INT16:
    case DEVPLUG_DTYPE_INT32:
    case DEVPLUG_DTYPE_INT64:
      return {kDLInt, bits, 1};
    case DEVPLUG_DTYPE_BFLOAT16:
      return {kDLBfloat, 16, 1};
    default:
      return {kDLFloat, bits, 1};
  }
}

// The devplug dtype of `t`, or DEVPLUG_DTYPE_COUNT when devplug has none.
devplug_dtype_t devplug_dtype_of(const DLDataType& t) {
  if (t.lanes != 1) return DEVPLUG_DTYPE_COUNT;
  for (int d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
    const DLDataType ours = dl_dtype(static_cast<devplug_dtype_t>(d));
    if (ours.code == t.code && ours.bits == t.bits) return static_cast<devplug_dtype_t>(d);
  }
  return DEVPLUG_DTYPE_COUNT;
}

// The index of `device` in its context's device list.
int32_t context_index(devplug_device_t& device) {
  devplug_context_t& context = *device.plugin->context;
  std::lock_guard<std::mutex> lock(context.mutex);
  for (size_t i = 0; i < context.devices.size(); ++i)
    if (context.devices[i] == &device) return static_cast<int32_t>(i);
  throw Error(DEVPLUG_CODE_INTERNAL, "a device missing from its context's device list");
}

std::string dl_dtype_name(const DLDataType& t) {
  return "(code " + std::to_string(t.code) + ", bits " + std::to_string(t.bits) + ", lanes " +
         std::to_string(t.lanes) + ")";
}

// The layout `dl` describes as a view of `e`'s storage, checked against it.
Layout imported_layout(const Export& e, const DLTensor& dl) {
  const devplug_dtype_t dtype = devplug_dtype_of(dl.dtype);
  if (dtype == DEVPLUG_DTYPE_COUNT) invalid_argument("devplug has no dtype " + dl_dtype_name(dl.dtype));
  if (dl.ndim < 0 || dl.ndim > DEVPLUG_MAX_RANK)
    invalid_argument("dl_tensor.ndim " + std::to_string(dl.ndim) + " is outside [0, " +
                     std::to_string(DEVPLUG_MAX_RANK) + "]");
  if (dl.ndim > 0 && dl.shape == nullptr) invalid_argument("dl_tensor.shape is NULL with ndim above 0");
  // NULL strides: compact row-major, as a contiguous tensor of that shape has them.
  const Layout compact = contiguous_layout(dtype, dl.ndim, dl.shape);
  const int64_t* strides = dl.strides != nullptr ? dl.strides : compact.strides;
  const auto* first = static_cast<const unsigned char*>(dl.data);
  const auto itemsize = static_cast<int64_t>(devplug_dtype_size(dtype));
  // Pointer arithmetic on a buffer handle would be meaningless: differences of integers.
  const int64_t byte_offset =
      static_cast<int64_t>(reinterpret_cast<uintptr_t>(first) - reinterpret_cast<uintptr_t>(e.base)) +
      static_cast<int64_t>(dl.byte_offset);
  if (byte_offset < 0) invalid_argument("dl_tensor's first element lies before its storage");
  if (byte_offset % itemsize != 0)
    invalid_argument("dl_tensor's first element, " + std::to_string(byte_offset) +
                     " bytes into its storage, is not on a boundary of its " + std::to_string(itemsize) +
                     "-byte elements");
  Layout in = e.view->layout;
  in.dtype = dtype;
  Layout out;
  const Problem problem =
      view_as_strided(in, dl.ndim, dl.shape, strides, byte_offset / itemsize, e.view->storage->bytes, &out);
  if (!problem.empty()) invalid_argument(problem);
  return out;
}

}  // namespace

namespace devplug::detail {

void forget_dlpack_exports(const devplug_device_t& device) noexcept {
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (Export* e : registry())
    if (e->device == &device) e->view = nullptr;  // the device frees the view with its tensors
}

}  // namespace devplug::detail

extern "C" {

DEVPLUG_API devplug_error_t* devplug_tensor_to_dlpack(const devplug_tensor_t* tensor, uint32_t flags,
                                                      DLManagedTensorVersioned** out_managed) {
  return guard([&] {
    require_not_null(out_managed, "out_managed");
    *out_managed = nullptr;
    require_handle(tensor, "tensor");
    if ((flags & ~(DEVPLUG_DLPACK_READ_ONLY | DEVPLUG_DLPACK_HOST)) != 0)
      invalid_argument("flags has unknown bits " + std::to_string(flags));
    devplug_device_t& device = tensor->device();
    auto e = std::make_unique<Export>();
    DLTensor& dl = e->managed.dl_tensor;
    if ((flags & DEVPLUG_DLPACK_HOST) != 0) {
      void* address = host_address(*tensor);
      refuse_device_capture(device, "a DLPack export to the host");  // it waits for the device
      device.synchronize();
      const uint64_t offset_bytes =
          static_cast<uint64_t>(tensor->layout.offset) * devplug_dtype_size(tensor->layout.dtype);
      e->base = static_cast<const unsigned char*>(address) - offset_bytes;
      dl.device = {kDLCPU, 0};
      dl.data = address;
      dl.byte_offset = 0;
    } else {
      e->base = reinterpret_cast<const unsigned char*>(tensor->storage->buffer);
      dl.device = {kDLExtDev, context_index(device)};
      dl.data = tensor->storage->buffer;
      dl.byte_offset = tensor->desc.byte_offset;
    }
    const Layout& l = tensor->layout;
    std::copy(l.shape, l.shape + l.rank, e->shape);
    std::copy(l.strides, l.strides + l.rank, e->strides);
    dl.ndim = l.rank;
    dl.dtype = dl_dtype(l.dtype);
    dl.shape = e->shape;
    dl.strides = e->strides;
    e->managed.version = {1, 0};
    e->managed.manager_ctx = e.get();
    e->managed.deleter = &delete_export;
    e->managed.flags = (flags & DEVPLUG_DLPACK_READ_ONLY) != 0 ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    e->device = &device;
    e->exported = dl.device;
    e->view = new_view(*tensor, tensor->layout);
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().insert(e.get());
    *out_managed = &e.release()->managed;
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_from_dlpack(DLManagedTensorVersioned* managed,
                                                        devplug_tensor_t** out_tensor) {
  return guard([&] {
    require_not_null(out_tensor, "out_tensor");
    *out_tensor = nullptr;
    if (forked_after_init()) refuse_forked();  // the exports' views are the parent's
    require_not_null(managed, "managed");
    if (managed->version.major != 1)
      invalid_argument("managed tensor has DLPack major version " + std::to_string(managed->version.major) +
                       "; devplug reads major version 1");
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      auto* e = static_cast<Export*>(managed->manager_ctx);
      if (managed->deleter != &delete_export || registry().count(e) == 0 || &e->managed != managed)
        invalid_argument(
            "the managed tensor was not made by devplug_tensor_to_dlpack: devplug cannot address "
            "another producer's memory (copy it in with devplug_tensor_copy_from_host)");
      if (e->view == nullptr)
        invalid_argument("the managed tensor's device was shut down (its context destroyed)");
      if ((managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0)
        invalid_argument("the managed tensor is read-only, and devplug tensors are writable");
      const DLTensor& dl = managed->dl_tensor;
      const DLDevice& exported = e->exported;
      if (dl.device.device_type != exported.device_type || dl.device.device_id != exported.device_id)
        invalid_argument("dl_tensor.device (" + std::to_string(dl.device.device_type) + ", " +
                         std::to_string(dl.device.device_id) + ") is not the export's (" +
                         std::to_string(exported.device_type) + ", " + std::to_string(exported.device_id) +
                         ")");
      *out_tensor = new_view(*e->view, imported_layout(*e, dl));
    }
    managed->deleter(managed);  // consumed: the new view holds the storage
  });
}

}  // extern "C"
