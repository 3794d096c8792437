// SPDX-License-Identifier: Apache-2.0
// Host tensors: a shared, reference-counted storage (a plugin buffer on one device) plus a
// Layout (dtype, shape, strides, offset). Views share the storage; the buffer goes back to
// the device's allocator with the last view.
//
// A tensor of 0 bytes (an empty shape) still holds a buffer: plugins refuse 0-byte
// allocations, so the allocator takes the smallest size it has (1 byte, or one 512-byte
// class when caching); storage_bytes reports 0 and as_strided can reach nothing.
//
// Thread-safety: the reference count is atomic; the device's live list has its own mutex.
#pragma once

#include <atomic>
#include <cstring>
#include <memory>

#include "device.hpp"
#include "layout.hpp"

namespace devplug::detail {

struct Storage {
  devplug_device_t* device = nullptr;
  devplug_buffer_handle_t* buffer = nullptr;
  uint64_t bytes = 0;  // as requested; what views may reach
  std::atomic<int64_t> refs{1};
  // Increases with every storage made in the process: a graph's capture tells the storages
  // made during it from older ones (graph.hpp).
  uint64_t serial = 0;
  // Host memory a caller lent (devplug_tensor_from_host_memory), not the allocator's: the last
  // release waits for the device's work, releases the plugin's buffer, then calls
  // `lent_release(lent_context)` when it is not NULL.
  bool lent = false;
  void (*lent_release)(void*) = nullptr;
  void* lent_context = nullptr;
};

// The serial the next storage will get.
uint64_t next_storage_serial() noexcept;
// Takes one more share of `storage` (a graph holding what it recorded).
inline void retain_storage(Storage* storage) noexcept {
  storage->refs.fetch_add(1, std::memory_order_relaxed);
}
// Drops one share; the last returns the buffer to the device's allocator. Never throws.
void release_storage(Storage* storage) noexcept;

}  // namespace devplug::detail

struct devplug_tensor_t {
  static constexpr uint32_t kMagic = 0x544e5352;  // "TNSR"
  static constexpr const char* kKind = "tensor";
  uint32_t magic = kMagic;
  // Unique for the life of the process (never reused, unlike the address): what the
  // per-stream cache of validated calls (call_cache.hpp) keys on.
  uint64_t id = 0;
  devplug::detail::Storage* storage = nullptr;
  // Fixed once the tensor is made (a view is a new tensor), so the plugin-level descriptor
  // is made once too and kernels are handed a pointer to it.
  devplug::detail::Layout layout;
  devplug_tensor_desc_t desc{};
  devplug_tensor_t* live_prev = nullptr;
  devplug_tensor_t* live_next = nullptr;

  devplug_device_t& device() const noexcept { return *storage->device; }
  devplug_plugin_t& plugin() const noexcept { return *storage->device->plugin; }
};

namespace devplug::detail {

// Allocates a contiguous tensor of `layout` (whose shape passed check_shape) on `device`.
devplug_tensor_t* new_tensor(devplug_device_t& device, const Layout& layout);
// A uint8 [size_bytes] tensor over `size_bytes` of the caller's host memory at `host`, through
// the plugin's host_memory_import extension (see devplug_tensor_from_host_memory). Throws.
devplug_tensor_t* new_tensor_over_host(devplug_device_t& device, void* host, uint64_t size_bytes,
                                       void (*release)(void*), void* release_context);
// A new view of `base`'s storage with `layout` (which must lie inside it).
devplug_tensor_t* new_view(const devplug_tensor_t& base, const Layout& layout);
// Drops the tensor's share of its storage and frees the host object. Never throws.
void release_tensor(devplug_tensor_t* tensor) noexcept;
// Frees a tensor the device still lists, at context destruction (the caller holds the
// device's tensors_mutex and has unlinked it).
void release_unlinked_tensor(devplug_tensor_t* tensor) noexcept;

// The host address of the tensor's first element (devplug_tensor_host_address). Throws
// UNIMPLEMENTED without the plugin's host_address extension, or the plugin's error.
void* host_address(const devplug_tensor_t& tensor);

// Owns one tensor and releases it at scope exit.
struct TensorReleaser {
  void operator()(devplug_tensor_t* t) const noexcept { release_tensor(t); }
};
using TensorPtr = std::unique_ptr<devplug_tensor_t, TensorReleaser>;

// The plugin-level descriptor of a view of `storage`.
inline void describe(const Storage& storage, const Layout& l, devplug_tensor_desc_t* out) noexcept {
  out->struct_size = sizeof(devplug_tensor_desc_t);
  out->buffer = storage.buffer;
  // An empty view reaches no element, and its offset may lie anywhere (as_strided accepts any
  // offset for one, as PyTorch does): 0 is handed on instead, always inside the buffer, so a
  // plugin may form a pointer from byte_offset for every tensor. (Found by fuzz_op_call: an
  // offset of INT64_MAX float16 elements wrapped to 2^64 - 2 bytes.)
  out->byte_offset = numel(l) == 0 ? 0 : static_cast<uint64_t>(l.offset) * devplug_dtype_size(l.dtype);
  out->dtype = l.dtype;
  out->rank = l.rank;
  // Layout keeps entries past its rank zero, so the whole arrays copy as they are.
  static_assert(sizeof(out->shape) == sizeof(l.shape) && sizeof(out->strides) == sizeof(l.strides));
  std::memcpy(out->shape, l.shape, sizeof(l.shape));
  std::memcpy(out->strides, l.strides, sizeof(l.strides));
}
inline void describe(const devplug_tensor_t& t, devplug_tensor_desc_t* out) noexcept { *out = t.desc; }

// Bytes of `l`'s elements when dense.
inline uint64_t dense_bytes(const Layout& l) {
  return static_cast<uint64_t>(numel(l)) * devplug_dtype_size(l.dtype);
}

}  // namespace devplug::detail
