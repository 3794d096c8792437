// SPDX-License-Identifier: Apache-2.0
// The plugin table built from a plugin's implementation: `make_plugin_api<Impl>()` fills
// every entry of devplug_plugin_api_t with a shim that does, once for every plugin, what
// the ABI asks of each entry point (plugin_api.h): the guard that turns exceptions into
// errors, clearing out-parameters, NULL and struct_size checks, device index and buffer
// range checks, the overlap and same-device rules, and the allocation-failure injection
// points of sdk/fault.hpp. Impl then holds only the device work.
//
// Impl is a struct of static functions named after the table's fields. Each reports failure
// by throwing (sdk::fail, sdk::Error); a std::bad_alloc becomes RESOURCE_EXHAUSTED. When a
// shim calls Impl, its arguments have passed the checks written beside it below.
//
//   struct MyPlugin {
//     static const char* name();                 // "mydevice": short and stable
//     static const char* version();              // the plugin's own version
//     static uint32_t flags();                   // DEVPLUG_PLUGIN_* bits
//     static void initialize(const devplug_plugin_init_args_t& args);
//     static void shutdown() noexcept;
//     static int32_t device_count(const char** note);   // *note: static text when 0
//     static void device_properties(int32_t index, devplug_device_properties_t& p);
//     static devplug_device_handle_t* device_open(int32_t index);
//     static void device_close(devplug_device_handle_t* device);
//     static devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size);
//     static void buffer_release(devplug_buffer_handle_t* buffer);
//     static uint64_t buffer_size(devplug_buffer_handle_t* buffer);
//     static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer);  // also
//     ... device_of(devplug_stream_handle_t*), device_of(devplug_event_handle_t*)
//     static void buffer_copy_from_host(devplug_stream_handle_t*, const void* src,
//                                       devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size);
//     static void buffer_copy_to_host(devplug_stream_handle_t*, devplug_buffer_handle_t* src,
//                                     uint64_t src_offset, void* dst, uint64_t size);
//     static void buffer_copy(devplug_stream_handle_t*, devplug_buffer_handle_t* src, uint64_t src_offset,
//                             devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size);
//     static devplug_stream_handle_t* stream_create(devplug_device_handle_t* device);
//     static void stream_destroy(devplug_stream_handle_t* stream);
//     static void stream_synchronize(devplug_stream_handle_t* stream);
//     static devplug_event_handle_t* event_create(devplug_device_handle_t* device);
//     static void event_destroy(devplug_event_handle_t* event);
//     static void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream);
//     static void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event);
//     static void event_synchronize(devplug_event_handle_t* event);
//     static const devplug::sdk::KernelTable& kernels();
//   };
//
//   extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
//     return devplug::sdk::plugin_api_or_null<MyPlugin>();
//   }
//
// `buffer_size` and `device_of` are where a plugin that can tell a live handle from a stale
// one says so (throw INVALID_ARGUMENT): the shims call them before anything else touches a
// buffer, stream or event. Kernels are not wrapped here: each kernel runs inside `guard`
// and starts with `check_call` (entry.hpp).
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "devplug/plugin_api.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/fault.hpp"
#include "devplug/sdk/kernels.hpp"

namespace devplug::sdk {

namespace detail {

template <typename T>
void clear_out(T* out) noexcept {
  if (out != nullptr) *out = T{};
}

// OUT_OF_RANGE unless [offset, offset + size) lies inside a buffer of `buffer_size` bytes
// (overflow-safe).
inline void check_range(uint64_t buffer_size, uint64_t offset, uint64_t size, const char* what) {
  if (offset > buffer_size || size > buffer_size - offset)
    fail(DEVPLUG_CODE_OUT_OF_RANGE,
         std::string(what) + ": range [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " +
             std::to_string(size) + ") is outside the buffer of " + std::to_string(buffer_size) + " bytes");
}

template <typename Impl>
void check_index(int32_t index) {
  const char* note = nullptr;
  const int32_t count = Impl::device_count(&note);
  if (index < 0 || index >= count)
    fail(DEVPLUG_CODE_OUT_OF_RANGE,
         "device index " + std::to_string(index) + " is outside [0, " + std::to_string(count) + ")");
}

template <typename Impl, typename Handle>
void check_same_device(devplug_stream_handle_t* stream, Handle* handle, const char* what) {
  if (Impl::device_of(handle) != Impl::device_of(stream))
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + " and the stream belong to different devices");
}

// The shims, one per table entry, in table order. Each follows plugin_api.h's contract.
template <typename Impl>
struct Shims {
  static devplug_error_t* plugin_initialize(const devplug_plugin_init_args_t* args) {
    return guard([&] {
      check_struct(args, DEVPLUG_PLUGIN_INIT_ARGS_MIN_SIZE, "args");
      if (args->host_abi_major != DEVPLUG_ABI_MAJOR)
        fail(DEVPLUG_CODE_FAILED_PRECONDITION,
             "host ABI " + std::to_string(args->host_abi_major) + "." + std::to_string(args->host_abi_minor) +
                 " does not match plugin " + Impl::name() + "'s ABI " + std::to_string(DEVPLUG_ABI_MAJOR) +
                 "." + std::to_string(DEVPLUG_ABI_MINOR));
      allocation_faults().arm_from_environment();
      Impl::initialize(*args);
    });
  }

  static void plugin_shutdown() { Impl::shutdown(); }

  static devplug_error_t* device_count(int32_t* out_count, const char** out_note) {
    clear_out(out_count);
    clear_out(out_note);
    return guard([&] {
      check_not_null(out_count, "out_count");
      const char* note = nullptr;
      *out_count = Impl::device_count(&note);
      if (out_note != nullptr && *out_count == 0) *out_note = note;
    });
  }

  static devplug_error_t* device_get_properties(int32_t index, devplug_device_properties_t* out_properties) {
    return guard([&] {
      check_struct(out_properties, DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE, "out_properties");
      check_index<Impl>(index);
      devplug_device_properties_t p;
      std::memset(&p, 0, sizeof p);
      Impl::device_properties(index, p);
      // Only the fields inside the caller's struct are written.
      const size_t size = out_properties->struct_size;
      p.struct_size = size;
      std::memcpy(out_properties, &p, std::min(size, sizeof p));
    });
  }

  static devplug_error_t* device_open(int32_t index, devplug_device_handle_t** out_device) {
    clear_out(out_device);
    return guard([&] {
      check_not_null(out_device, "out_device");
      check_index<Impl>(index);
      *out_device = Impl::device_open(index);
    });
  }

  static devplug_error_t* device_close(devplug_device_handle_t* device) {
    return guard([&] { Impl::device_close(check_not_null(device, "device")); });
  }

  static devplug_error_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes,
                                          devplug_buffer_handle_t** out_buffer) {
    clear_out(out_buffer);
    return guard([&] {
      check_not_null(device, "device");
      check_not_null(out_buffer, "out_buffer");
      check_argument(size_bytes > 0, "buffer_allocate: size_bytes is 0");
      allocation_fault_point("buffer_allocate");
      *out_buffer = Impl::buffer_allocate(device, size_bytes);
    });
  }

  static devplug_error_t* buffer_release(devplug_buffer_handle_t* buffer) {
    return guard([&] { Impl::buffer_release(check_not_null(buffer, "buffer")); });
  }

  static devplug_error_t* buffer_get_size(devplug_buffer_handle_t* buffer, uint64_t* out_size_bytes) {
    clear_out(out_size_bytes);
    return guard([&] {
      check_not_null(buffer, "buffer");
      check_not_null(out_size_bytes, "out_size_bytes");
      *out_size_bytes = Impl::buffer_size(buffer);
    });
  }

  // A copy of zero bytes is a no-op that succeeds once its handles and range are checked,
  // so hosts need not special-case empty tensors.
  static devplug_error_t* buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src,
                                                devplug_buffer_handle_t* dst, uint64_t dst_offset,
                                                uint64_t size_bytes) {
    return guard([&] {
      check_not_null(stream, "stream");
      check_not_null(dst, "dst");
      check_same_device<Impl>(stream, dst, "buffer_copy_from_host: dst");
      check_range(Impl::buffer_size(dst), dst_offset, size_bytes, "buffer_copy_from_host");
      if (size_bytes == 0) return;
      check_not_null(src, "src");
      Impl::buffer_copy_from_host(stream, src, dst, dst_offset, size_bytes);
    });
  }

  static devplug_error_t* buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                              uint64_t src_offset, void* dst, uint64_t size_bytes) {
    return guard([&] {
      check_not_null(stream, "stream");
      check_not_null(src, "src");
      check_same_device<Impl>(stream, src, "buffer_copy_to_host: src");
      check_range(Impl::buffer_size(src), src_offset, size_bytes, "buffer_copy_to_host");
      if (size_bytes == 0) return;
      check_not_null(dst, "dst");
      Impl::buffer_copy_to_host(stream, src, src_offset, dst, size_bytes);
    });
  }

  static devplug_error_t* buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                      uint64_t src_offset, devplug_buffer_handle_t* dst, uint64_t dst_offset,
                                      uint64_t size_bytes) {
    return guard([&] {
      check_not_null(stream, "stream");
      check_not_null(src, "src");
      check_not_null(dst, "dst");
      check_same_device<Impl>(stream, src, "buffer_copy: src");
      check_same_device<Impl>(stream, dst, "buffer_copy: dst");
      check_range(Impl::buffer_size(src), src_offset, size_bytes, "buffer_copy (source)");
      check_range(Impl::buffer_size(dst), dst_offset, size_bytes, "buffer_copy (destination)");
      if (size_bytes == 0) return;
      if (src == dst && src_offset < dst_offset + size_bytes && dst_offset < src_offset + size_bytes)
        fail(DEVPLUG_CODE_INVALID_ARGUMENT, "buffer_copy: source and destination ranges overlap");
      Impl::buffer_copy(stream, src, src_offset, dst, dst_offset, size_bytes);
    });
  }

  static devplug_error_t* stream_create(devplug_device_handle_t* device,
                                        devplug_stream_handle_t** out_stream) {
    clear_out(out_stream);
    return guard([&] {
      check_not_null(device, "device");
      check_not_null(out_stream, "out_stream");
      allocation_fault_point("stream_create");
      *out_stream = Impl::stream_create(device);
    });
  }

  static devplug_error_t* stream_destroy(devplug_stream_handle_t* stream) {
    return guard([&] { Impl::stream_destroy(check_not_null(stream, "stream")); });
  }

  static devplug_error_t* stream_synchronize(devplug_stream_handle_t* stream) {
    return guard([&] { Impl::stream_synchronize(check_not_null(stream, "stream")); });
  }

  static devplug_error_t* event_create(devplug_device_handle_t* device, devplug_event_handle_t** out_event) {
    clear_out(out_event);
    return guard([&] {
      check_not_null(device, "device");
      check_not_null(out_event, "out_event");
      allocation_fault_point("event_create");
      *out_event = Impl::event_create(device);
    });
  }

  static devplug_error_t* event_destroy(devplug_event_handle_t* event) {
    return guard([&] { Impl::event_destroy(check_not_null(event, "event")); });
  }

  static devplug_error_t* event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
    return guard([&] {
      check_not_null(event, "event");
      check_not_null(stream, "stream");
      check_same_device<Impl>(stream, event, "event_record: the event");
      Impl::event_record(event, stream);
    });
  }

  static devplug_error_t* stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
    return guard([&] {
      check_not_null(stream, "stream");
      check_not_null(event, "event");
      check_same_device<Impl>(stream, event, "stream_wait_event: the event");
      Impl::stream_wait_event(stream, event);
    });
  }

  static devplug_error_t* event_synchronize(devplug_event_handle_t* event) {
    return guard([&] { Impl::event_synchronize(check_not_null(event, "event")); });
  }
};

}  // namespace detail

// Builds the table of `Impl` (see the top of this file). Throws std::logic_error when
// Impl's kernel table is malformed (KernelTable::add), a plugin bug found at load.
template <typename Impl>
devplug_plugin_api_t make_plugin_api() {
  using S = detail::Shims<Impl>;
  devplug_plugin_api_t api;
  std::memset(&api, 0, sizeof api);
  api.struct_size = sizeof api;
  api.abi_major = DEVPLUG_ABI_MAJOR;
  api.abi_minor = DEVPLUG_ABI_MINOR;
  api.plugin_name = Impl::name();
  api.plugin_version = Impl::version();
  api.opset_version = DEVPLUG_OPSET_VERSION;
  api.flags = Impl::flags();
  api.error_create = &error_create;
  api.error_destroy = &error_destroy;
  api.plugin_initialize = &S::plugin_initialize;
  api.plugin_shutdown = &S::plugin_shutdown;
  api.device_count = &S::device_count;
  api.device_get_properties = &S::device_get_properties;
  api.device_open = &S::device_open;
  api.device_close = &S::device_close;
  api.buffer_allocate = &S::buffer_allocate;
  api.buffer_release = &S::buffer_release;
  api.buffer_get_size = &S::buffer_get_size;
  api.buffer_copy_from_host = &S::buffer_copy_from_host;
  api.buffer_copy_to_host = &S::buffer_copy_to_host;
  api.buffer_copy = &S::buffer_copy;
  api.stream_create = &S::stream_create;
  api.stream_destroy = &S::stream_destroy;
  api.stream_synchronize = &S::stream_synchronize;
  api.event_create = &S::event_create;
  api.event_destroy = &S::event_destroy;
  api.event_record = &S::event_record;
  api.stream_wait_event = &S::stream_wait_event;
  api.event_synchronize = &S::event_synchronize;
  const KernelTable& kernels = Impl::kernels();
  api.kernels = kernels.data();
  api.kernel_count = kernels.size();
  return api;
}

// The table of `Impl`, built on first use, or NULL when it cannot be built: what the one
// exported `devplug_plugin_get_api` returns. Nothing escapes it.
template <typename Impl>
const devplug_plugin_api_t* plugin_api_or_null() noexcept {
  try {
    static const devplug_plugin_api_t api = make_plugin_api<Impl>();
    return &api;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace devplug::sdk
