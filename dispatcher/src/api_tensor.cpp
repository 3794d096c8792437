// SPDX-License-Identifier: Apache-2.0
// C entry points: tensors (create, release, metadata) and copies.
#include "api_guard.hpp"
#include "copy.hpp"
#include "plugin_record.hpp"
#include "tensor.hpp"
#include "versioned.hpp"

using namespace devplug::detail;

namespace {

devplug_stream_t& stream_or_default(devplug_stream_t* stream, devplug_device_t& device) {
  if (stream == nullptr) return *device.default_stream();
  return *require_handle(stream, "stream");
}

}  // namespace

namespace devplug::detail {

void* host_address(const devplug_tensor_t& tensor) {
  const devplug_plugin_t& plugin = tensor.plugin();
  if (plugin.host_address == nullptr)
    throw Error(DEVPLUG_CODE_UNIMPLEMENTED,
                "plugin " + plugin.name + " gives no host addresses (it offers no host_address extension)");
  void* base = nullptr;
  check_plugin(plugin, plugin.host_address->buffer_host_address(tensor.storage->buffer, &base),
               "buffer_host_address");
  return static_cast<unsigned char*>(base) +
         static_cast<uint64_t>(tensor.layout.offset) * devplug_dtype_size(tensor.layout.dtype);
}

}  // namespace devplug::detail

extern "C" {

DEVPLUG_API devplug_error_t* devplug_tensor_create(devplug_device_t* device, devplug_dtype_t dtype,
                                                   int32_t rank, const int64_t* shape,
                                                   devplug_tensor_t** out_tensor) {
  return guard([&] {
    require_not_null(out_tensor, "out_tensor");
    *out_tensor = nullptr;
    require_handle(device, "device");
    Problem problem = check_shape(rank, shape, dtype, "shape");
    if (!problem.empty()) invalid_argument(problem);
    *out_tensor = new_tensor(*device, contiguous_layout(dtype, rank, shape));
  });
}

DEVPLUG_API void devplug_tensor_release(devplug_tensor_t* tensor) {
  guard_void([&] {
    if (tensor == nullptr || tensor->magic != devplug_tensor_t::kMagic) return;
    if (forked_after_init()) return;  // the parent's tensor, in a forked child: left alone
    release_tensor(tensor);
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_describe(const devplug_tensor_t* tensor,
                                                     devplug_tensor_desc_t* out_desc) {
  return guard([&] {
    require_not_null(out_desc, "out_desc");
    require_handle(tensor, "tensor");
    devplug_tensor_desc_t desc;
    describe(*tensor, &desc);
    copy_versioned(desc, out_desc, "out_desc");
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_get_device(const devplug_tensor_t* tensor,
                                                       devplug_device_t** out_device) {
  return guard([&] {
    require_not_null(out_device, "out_device");
    *out_device = nullptr;
    require_handle(tensor, "tensor");
    *out_device = &tensor->device();
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_numel(const devplug_tensor_t* tensor, int64_t* out_numel) {
  return guard([&] {
    require_not_null(out_numel, "out_numel");
    *out_numel = 0;
    require_handle(tensor, "tensor");
    *out_numel = numel(tensor->layout);
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_storage_bytes(const devplug_tensor_t* tensor,
                                                          uint64_t* out_bytes) {
  return guard([&] {
    require_not_null(out_bytes, "out_bytes");
    *out_bytes = 0;
    require_handle(tensor, "tensor");
    *out_bytes = tensor->storage->bytes;
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_copy_from_host(devplug_stream_t* stream, devplug_tensor_t* dst,
                                                           const void* src, uint64_t size_bytes,
                                                           uint32_t flags) {
  return guard([&] {
    require_handle(dst, "dst");
    if (flags & ~DEVPLUG_COPY_BLOCKING) invalid_argument("flags has unknown bits " + std::to_string(flags));
    copy_from_host(stream_or_default(stream, dst->device()), *dst, src, size_bytes,
                   (flags & DEVPLUG_COPY_BLOCKING) != 0);
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_copy_to_host(devplug_stream_t* stream,
                                                         const devplug_tensor_t* src, void* dst,
                                                         uint64_t size_bytes) {
  return guard([&] {
    require_handle(src, "src");
    copy_to_host(stream_or_default(stream, src->device()), *src, dst, size_bytes);
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_copy_to_host_async(devplug_stream_t* stream,
                                                               const devplug_tensor_t* src, void* dst,
                                                               uint64_t size_bytes, bool* out_waited) {
  return guard([&] {
    require_handle(src, "src");
    if (stream != nullptr) require_handle(stream, "stream");
    const bool waited = copy_to_host(stream_or_default(stream, src->device()), *src, dst, size_bytes, false);
    if (out_waited != nullptr) *out_waited = waited;
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_host_address(const devplug_tensor_t* tensor, void** out_address) {
  return guard([&] {
    require_not_null(out_address, "out_address");
    *out_address = nullptr;
    require_handle(tensor, "tensor");
    *out_address = host_address(*tensor);
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_from_host_memory(devplug_device_t* device, void* host,
                                                             uint64_t size_bytes, void (*release)(void*),
                                                             void* release_context,
                                                             devplug_tensor_t** out_tensor) {
  return guard([&] {
    require_not_null(out_tensor, "out_tensor");
    *out_tensor = nullptr;
    require_handle(device, "device");
    require_not_null(host, "host");
    if (size_bytes == 0) invalid_argument("size_bytes is 0");
    if (reinterpret_cast<uintptr_t>(host) % 64 != 0) invalid_argument("host is not aligned to 64 bytes");
    *out_tensor = new_tensor_over_host(*device, host, size_bytes, release, release_context);
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_copy(devplug_stream_t* stream, devplug_tensor_t* dst,
                                                 const devplug_tensor_t* src) {
  return guard([&] {
    require_handle(dst, "dst");
    require_handle(src, "src");
    copy_tensor(stream_or_default(stream, dst->device()), *dst, *src);
  });
}

}  // extern "C"
