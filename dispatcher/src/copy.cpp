// SPDX-License-Identifier: Apache-2.0
// Copies in row-major logical order between host memory and tensors of any layout, and
// between tensors (see copy.hpp for the paths).
#include "copy.hpp"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "api_guard.hpp"
#include "device.hpp"
#include "devplug/sdk/fault.hpp"
#include "devplug/sdk/strided.hpp"
#include "graph.hpp"
#include "kernel_call.hpp"
#include "plugin_record.hpp"

namespace devplug::detail {
namespace {

void check_stream_device(const devplug_stream_t& stream, const devplug_tensor_t& t, const char* what) {
  if (stream.device != &t.device())
    invalid_argument(std::string("stream belongs to another device than ") + what);
}

void check_size(const Layout& l, uint64_t size_bytes, const char* what) {
  const uint64_t expected = dense_bytes(l);
  if (size_bytes != expected)
    invalid_argument("size_bytes is " + std::to_string(size_bytes) + ", but " + what + " has " +
                     std::to_string(expected) + " bytes (numel * element size)");
}

uint64_t byte_offset(const Layout& l) {
  return static_cast<uint64_t>(l.offset) * devplug_dtype_size(l.dtype);
}

// Calls `f(logical_index, storage_element_relative_to_lo)` for every element of `l`.
template <typename F>
void for_each_element(const Layout& l, int64_t lo, F&& f) {
  int64_t k = 0;
  const int64_t base = l.offset - lo;
  sdk::for_each_offset<1>(l.rank, l.shape, std::array<const int64_t*, 1>{l.strides},
                          [&](const std::array<int64_t, 1>& at) { f(k++, base + at[0]); });
}

// Reads the span of storage `l` reaches into host memory. Returns the lowest element index.
int64_t read_span(devplug_stream_t& stream, const Storage& storage, const Layout& l,
                  std::vector<unsigned char>* out) {
  refuse_in_capture(stream, "a copy through the host");
  int64_t lo = 0, hi = 0;
  element_range(l, &lo, &hi);
  const size_t es = devplug_dtype_size(l.dtype);
  out->resize(static_cast<size_t>(hi - lo + 1) * es);
  const devplug_plugin_t& plugin = *storage.device->plugin;
  check_plugin(plugin,
               plugin.api->buffer_copy_to_host(stream.native, storage.buffer, static_cast<uint64_t>(lo) * es,
                                               out->data(), out->size()),
               "buffer_copy_to_host");
  synchronize_stream(stream);
  return lo;
}

// The device's copy_strided kernel for `dtype` when it takes any layout.
const KernelSlot* strided_copy_kernel(const devplug_device_t& device, devplug_dtype_t dtype) {
  const KernelSlot& slot = device.kernel(DEVPLUG_OP_copy_strided, dtype, DEVPLUG_DTYPE_BIT(dtype));
  if (slot.fn == nullptr) return nullptr;
  if (slot.flags & (DEVPLUG_KERNEL_DENSE_INPUTS | DEVPLUG_KERNEL_DENSE_OUTPUTS)) return nullptr;
  return &slot;
}

Layout dense_like(const Layout& l) { return contiguous_layout(l.dtype, l.rank, l.shape); }

}  // namespace

bool copy_with_kernel(devplug_stream_t& stream, const devplug_tensor_t& dst, const devplug_tensor_t& src) {
  const devplug_plugin_t& plugin = dst.plugin();
  const KernelSlot* slot = strided_copy_kernel(dst.device(), dst.layout.dtype);
  if (slot == nullptr) return false;
  const devplug_tensor_t* in[1] = {&src};
  const devplug_tensor_t* out[1] = {&dst};
  devplug_error_t* error =
      call_kernel(stream, slot->fn, OpCall{DEVPLUG_OP_copy_strided, in, 1, out, 1, nullptr});
  if (error == declined_error()) return false;  // the device's claims hook declined it
  if (error != nullptr && error->code == DEVPLUG_CODE_UNIMPLEMENTED) {
    drop_plugin_error(plugin, error);
    return false;
  }
  check_plugin(plugin, error, "copy_strided");
  return true;
}

void copy_from_host(devplug_stream_t& stream, const devplug_tensor_t& dst, const void* src,
                    uint64_t size_bytes, bool blocking) {
  check_stream_device(stream, dst, "dst");
  refuse_in_capture(stream, "a copy from the host");
  check_size(dst.layout, size_bytes, "dst");
  if (size_bytes == 0) return;
  if (src == nullptr) invalid_argument("src is NULL");
  if (overlaps_itself(dst.layout))
    invalid_argument(
        "dst overlaps itself (an expanded or overlapping view): copy into a dense tensor instead");
  const devplug_plugin_t& plugin = dst.plugin();
  if (is_contiguous(dst.layout)) {
    check_plugin(plugin,
                 plugin.api->buffer_copy_from_host(stream.native, src, dst.storage->buffer,
                                                   byte_offset(dst.layout), size_bytes),
                 "buffer_copy_from_host");
    if (blocking) synchronize_stream(stream);
    return;
  }
  if (strided_copy_kernel(dst.device(), dst.layout.dtype) != nullptr) {
    TensorPtr staging(new_tensor(dst.device(), dense_like(dst.layout)));
    check_plugin(
        plugin,
        plugin.api->buffer_copy_from_host(stream.native, src, staging->storage->buffer, 0, size_bytes),
        "buffer_copy_from_host");
    if (copy_with_kernel(stream, dst, *staging)) {
      if (blocking) synchronize_stream(stream);
      return;  // the plugin frees the staging buffer once the kernel has run
    }
    synchronize_stream(stream);
  }
  // Host staging: read the span, scatter the new elements into it, write it back.
  std::vector<unsigned char> span;
  const int64_t lo = read_span(stream, *dst.storage, dst.layout, &span);
  const size_t es = devplug_dtype_size(dst.layout.dtype);
  const auto* bytes = static_cast<const unsigned char*>(src);
  for_each_element(dst.layout, lo,
                   [&](int64_t k, int64_t at) { std::memcpy(span.data() + at * es, bytes + k * es, es); });
  check_plugin(plugin,
               plugin.api->buffer_copy_from_host(stream.native, span.data(), dst.storage->buffer,
                                                 static_cast<uint64_t>(lo) * es, span.size()),
               "buffer_copy_from_host");
  synchronize_stream(stream);  // `span` dies here
}

bool copy_to_host(devplug_stream_t& stream, const devplug_tensor_t& src, void* dst, uint64_t size_bytes,
                  bool wait) {
  check_stream_device(stream, src, "src");
  refuse_in_capture(stream, "a copy to the host");
  check_size(src.layout, size_bytes, "src");
  if (size_bytes == 0) {
    if (wait) synchronize_stream(stream);
    return wait;
  }
  if (dst == nullptr) invalid_argument("dst is NULL");
  const devplug_plugin_t& plugin = src.plugin();
  if (is_contiguous(src.layout)) {
    check_plugin(plugin,
                 plugin.api->buffer_copy_to_host(stream.native, src.storage->buffer, byte_offset(src.layout),
                                                 dst, size_bytes),
                 "buffer_copy_to_host");
    if (wait) synchronize_stream(stream);
    return wait;
  }
  if (strided_copy_kernel(src.device(), src.layout.dtype) != nullptr) {
    TensorPtr staging(new_tensor(src.device(), dense_like(src.layout)));
    if (copy_with_kernel(stream, *staging, src)) {
      check_plugin(
          plugin,
          plugin.api->buffer_copy_to_host(stream.native, staging->storage->buffer, 0, dst, size_bytes),
          "buffer_copy_to_host");
      if (wait) synchronize_stream(stream);
      return wait;  // the plugin frees the staging buffer once the copy has run
    }
  }
  std::vector<unsigned char> span;
  const int64_t lo = read_span(stream, *src.storage, src.layout, &span);
  const size_t es = devplug_dtype_size(src.layout.dtype);
  auto* bytes = static_cast<unsigned char*>(dst);
  for_each_element(src.layout, lo,
                   [&](int64_t k, int64_t at) { std::memcpy(bytes + k * es, span.data() + at * es, es); });
  return true;
}

void copy_tensor(devplug_stream_t& stream, const devplug_tensor_t& dst, const devplug_tensor_t& src) {
  check_stream_device(stream, dst, "dst");
  const Layout& d = dst.layout;
  const Layout& s = src.layout;
  if (d.dtype != s.dtype)
    invalid_argument(std::string("dst dtype ") + devplug_dtype_name(d.dtype) + " does not match src dtype " +
                     devplug_dtype_name(s.dtype) + " (use convert_element_type to cast)");
  bool same_shape = d.rank == s.rank;
  for (int32_t i = 0; same_shape && i < d.rank; ++i) same_shape = d.shape[i] == s.shape[i];
  if (!same_shape) invalid_argument("dst and src have different shapes");
  if (numel(d) == 0) return;
  if (overlaps_itself(d)) invalid_argument("dst overlaps itself (an expanded or overlapping view)");
  const uint64_t bytes = dense_bytes(d);

  if (&src.device() != &dst.device()) {
    refuse_in_capture(stream, "a copy between devices");
    // Different devices (of one plugin or two): meet on the host.
    sdk::allocation_fault_point("host staging");
    std::vector<unsigned char> staging(bytes);
    copy_to_host(*src.device().default_stream(), src, staging.data(), bytes);
    copy_from_host(stream, dst, staging.data(), bytes, /*blocking=*/true);
    return;
  }
  const bool same_storage = src.storage == dst.storage;
  if (same_storage && same_view(d, s)) return;
  if (same_storage && may_overlap(d, s)) {
    // Overlapping views of one storage: go through a dense temporary.
    TensorPtr temp(new_tensor(dst.device(), dense_like(s)));
    copy_tensor(stream, *temp, src);
    copy_tensor(stream, dst, *temp);
    return;
  }
  const devplug_plugin_t& plugin = dst.plugin();
  if (is_contiguous(d) && is_contiguous(s)) {
    if (stream.capture != nullptr) {
      record_copy(stream, src.storage, byte_offset(s), dst.storage, byte_offset(d), bytes);
      return;
    }
    check_plugin(plugin,
                 plugin.api->buffer_copy(stream.native, src.storage->buffer, byte_offset(s),
                                         dst.storage->buffer, byte_offset(d), bytes),
                 "buffer_copy");
    return;
  }
  if (copy_with_kernel(stream, dst, src)) return;
  sdk::allocation_fault_point("host staging");
  std::vector<unsigned char> staging(bytes);
  copy_to_host(stream, src, staging.data(), bytes);
  copy_from_host(stream, dst, staging.data(), bytes, /*blocking=*/true);
}

}  // namespace devplug::detail
