// The reference backend's plugin table: one CPU device, host-memory buffers, and streams and
// events that are trivial because every call runs synchronously on the calling thread (work
// has finished when the enqueueing call returns). Kernels live in kernels/*.cpp.
//
// Every entry point checks its arguments (NULL handles, short struct_size, zero or huge
// sizes, ranges outside a buffer) and runs inside sdk::guard, so nothing crosses the ABI as
// an exception and no bad input aborts the process.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>

#include "buffer.hpp"
#include "devplug/plugin_api.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/kernels.hpp"
#include "kernels/kernels.hpp"

#ifndef DEVPLUG_REFERENCE_VERSION
#define DEVPLUG_REFERENCE_VERSION "0.0.0"
#endif

namespace {

using devplug::sdk::check_argument;
using devplug::sdk::check_not_null;
using devplug::sdk::fail;
using devplug::sdk::guard;

// Handles carry a tag so that a stale or foreign pointer is answered with an error where
// it can be detected cheaply (best effort: a freed handle's memory may be reused).
constexpr uint32_t kDeviceTag = 0x44455631;  // "DEV1"
constexpr uint32_t kStreamTag = 0x53545231;  // "STR1"
constexpr uint32_t kEventTag = 0x45564e31;   // "EVN1"
constexpr uint32_t kDeadTag = 0xdeadbeef;

constexpr uint64_t kBufferAlignment = 64;
constexpr const char* kDeviceName = "devplug reference CPU";

}  // namespace

struct devplug_device_handle_t {
  uint32_t tag;
  int32_t index;
};
struct devplug_stream_handle_t {
  uint32_t tag;
  devplug_device_handle_t* device;
};
struct devplug_event_handle_t {
  uint32_t tag;
  devplug_device_handle_t* device;
};

namespace {

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

template <typename Handle>
Handle* check_handle(Handle* handle, uint32_t tag, const char* what) {
  check_not_null(handle, what);
  if (handle->tag != tag)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + " is not a live reference-backend handle");
  return handle;
}

devplug_buffer_handle_t* check_buffer(devplug_buffer_handle_t* buffer, const char* what) {
  check_not_null(buffer, what);
  if (buffer->data == nullptr)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + " is not a live buffer");
  return buffer;
}

// Throws OUT_OF_RANGE unless [offset, offset + size) lies inside `buffer` (overflow-safe).
void check_range(const devplug_buffer_handle_t* buffer, uint64_t offset, uint64_t size, const char* what) {
  if (offset > buffer->size || size > buffer->size - offset)
    fail(DEVPLUG_CODE_OUT_OF_RANGE, std::string(what) + ": range [" + std::to_string(offset) +
                                        ", " + std::to_string(offset) + " + " + std::to_string(size) +
                                        ") is outside the buffer of " +
                                        std::to_string(buffer->size) + " bytes");
}

int32_t device_count_value() { return 1; }

void check_device_index(int32_t index) {
  if (index < 0 || index >= device_count_value())
    fail(DEVPLUG_CODE_OUT_OF_RANGE, "device index " + std::to_string(index) +
                                        " is outside [0, 1): the reference backend has one device");
}

// Copies `text` into the fixed-size `field`, cut to fit and NUL-terminated.
template <size_t N>
void copy_string(char (&field)[N], const char* text) {
  std::strncpy(field, text, N - 1);
  field[N - 1] = '\0';
}

// ---- errors and lifecycle -------------------------------------------------------------------

devplug_error_t* plugin_initialize(const devplug_plugin_init_args_t* args) {
  return guard([&] {
    devplug::sdk::check_struct(args, DEVPLUG_SIZE_THROUGH(devplug_plugin_init_args_t, host_abi_minor),
                               "args");
    if (args->host_abi_major != DEVPLUG_ABI_MAJOR)
      fail(DEVPLUG_CODE_FAILED_PRECONDITION,
           "host ABI " + std::to_string(args->host_abi_major) + "." +
               std::to_string(args->host_abi_minor) + " does not match the reference plugin's ABI " +
               std::to_string(DEVPLUG_ABI_MAJOR) + "." + std::to_string(DEVPLUG_ABI_MINOR));
  });
}

void plugin_shutdown() {}

// ---- devices --------------------------------------------------------------------------------

devplug_error_t* device_count(int32_t* out_count, const char** out_note) {
  if (out_note != nullptr) *out_note = nullptr;
  return guard([&] {
    check_not_null(out_count, "out_count");
    *out_count = device_count_value();
  });
}

devplug_error_t* device_get_properties(int32_t index, devplug_device_properties_t* out_properties) {
  return guard([&] {
    check_not_null(out_properties, "out_properties");
    const size_t size = out_properties->struct_size;
    check_argument(size >= DEVPLUG_SIZE_THROUGH(devplug_device_properties_t, capabilities),
                   "out_properties->struct_size is smaller than devplug_device_properties_t of ABI 1.0");
    check_device_index(index);
    // Write only the fields of ABI 1.0 (all of them exist in the caller's struct).
    devplug_device_properties_t p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = size;
    copy_string(p.name, kDeviceName);
    copy_string(p.vendor, "devplug");
    copy_string(p.driver_version, DEVPLUG_REFERENCE_VERSION);
    p.memory_bytes = physical_memory_bytes();
    p.compute_units = static_cast<int32_t>(std::thread::hardware_concurrency());
    p.capabilities = DEVPLUG_DEVICE_FP64 | DEVPLUG_DEVICE_FP16 | DEVPLUG_DEVICE_BF16 |
                     DEVPLUG_DEVICE_UNIFIED_MEMORY;
    std::memcpy(out_properties, &p, std::min(size, sizeof p));
  });
}

devplug_error_t* device_open(int32_t index, devplug_device_handle_t** out_device) {
  if (out_device != nullptr) *out_device = nullptr;
  return guard([&] {
    check_not_null(out_device, "out_device");
    check_device_index(index);
    *out_device = new devplug_device_handle_t{kDeviceTag, index};
  });
}

devplug_error_t* device_close(devplug_device_handle_t* device) {
  return guard([&] {
    check_handle(device, kDeviceTag, "device");
    device->tag = kDeadTag;
    delete device;
  });
}

// ---- buffers --------------------------------------------------------------------------------

devplug_error_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes,
                                 devplug_buffer_handle_t** out_buffer) {
  if (out_buffer != nullptr) *out_buffer = nullptr;
  return guard([&] {
    check_handle(device, kDeviceTag, "device");
    check_not_null(out_buffer, "out_buffer");
    check_argument(size_bytes > 0, "buffer_allocate: size_bytes is 0");
    const uint64_t limit = physical_memory_bytes();
    if (size_bytes > std::numeric_limits<size_t>::max() - kBufferAlignment ||
        (limit != 0 && size_bytes > limit))
      fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED,
           "buffer_allocate: " + std::to_string(size_bytes) + " bytes is more than the " +
               std::to_string(limit) + " bytes of host memory");
    // aligned_alloc wants a multiple of the alignment.
    const size_t rounded = static_cast<size_t>((size_bytes + kBufferAlignment - 1) / kBufferAlignment *
                                               kBufferAlignment);
    void* data = std::aligned_alloc(kBufferAlignment, rounded);
    if (data == nullptr)
      fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED,
           "buffer_allocate: out of host memory for " + std::to_string(size_bytes) + " bytes");
    *out_buffer = new devplug_buffer_handle_t{size_bytes, static_cast<unsigned char*>(data)};
  });
}

devplug_error_t* buffer_release(devplug_buffer_handle_t* buffer) {
  return guard([&] {
    check_buffer(buffer, "buffer");
    std::free(buffer->data);
    buffer->data = nullptr;
    buffer->size = 0;
    delete buffer;
  });
}

devplug_error_t* buffer_get_size(devplug_buffer_handle_t* buffer, uint64_t* out_size_bytes) {
  if (out_size_bytes != nullptr) *out_size_bytes = 0;
  return guard([&] {
    check_buffer(buffer, "buffer");
    check_not_null(out_size_bytes, "out_size_bytes");
    *out_size_bytes = buffer->size;
  });
}

// A copy of zero bytes is a valid no-op (the handles and the offset are still checked), so
// that hosts need not special-case empty tensors.
devplug_error_t* buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src,
                                       devplug_buffer_handle_t* dst, uint64_t dst_offset,
                                       uint64_t size_bytes) {
  return guard([&] {
    check_handle(stream, kStreamTag, "stream");
    check_buffer(dst, "dst");
    check_range(dst, dst_offset, size_bytes, "buffer_copy_from_host");
    if (size_bytes == 0) return;
    check_not_null(src, "src");
    std::memcpy(dst->data + dst_offset, src, static_cast<size_t>(size_bytes));
  });
}

devplug_error_t* buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                     uint64_t src_offset, void* dst, uint64_t size_bytes) {
  return guard([&] {
    check_handle(stream, kStreamTag, "stream");
    check_buffer(src, "src");
    check_range(src, src_offset, size_bytes, "buffer_copy_to_host");
    if (size_bytes == 0) return;
    check_not_null(dst, "dst");
    std::memcpy(dst, src->data + src_offset, static_cast<size_t>(size_bytes));
  });
}

devplug_error_t* buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                             devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size_bytes) {
  return guard([&] {
    check_handle(stream, kStreamTag, "stream");
    check_buffer(src, "src");
    check_buffer(dst, "dst");
    check_range(src, src_offset, size_bytes, "buffer_copy (source)");
    check_range(dst, dst_offset, size_bytes, "buffer_copy (destination)");
    if (size_bytes == 0) return;
    if (src == dst && src_offset < dst_offset + size_bytes && dst_offset < src_offset + size_bytes)
      fail(DEVPLUG_CODE_INVALID_ARGUMENT, "buffer_copy: source and destination ranges overlap");
    std::memcpy(dst->data + dst_offset, src->data + src_offset, static_cast<size_t>(size_bytes));
  });
}

// ---- streams and events: work runs when enqueued, so waiting is a no-op -------------------

devplug_error_t* stream_create(devplug_device_handle_t* device, devplug_stream_handle_t** out_stream) {
  if (out_stream != nullptr) *out_stream = nullptr;
  return guard([&] {
    check_handle(device, kDeviceTag, "device");
    check_not_null(out_stream, "out_stream");
    *out_stream = new devplug_stream_handle_t{kStreamTag, device};
  });
}

devplug_error_t* stream_destroy(devplug_stream_handle_t* stream) {
  return guard([&] {
    check_handle(stream, kStreamTag, "stream");
    stream->tag = kDeadTag;
    delete stream;
  });
}

devplug_error_t* stream_synchronize(devplug_stream_handle_t* stream) {
  return guard([&] { check_handle(stream, kStreamTag, "stream"); });
}

devplug_error_t* event_create(devplug_device_handle_t* device, devplug_event_handle_t** out_event) {
  if (out_event != nullptr) *out_event = nullptr;
  return guard([&] {
    check_handle(device, kDeviceTag, "device");
    check_not_null(out_event, "out_event");
    *out_event = new devplug_event_handle_t{kEventTag, device};
  });
}

devplug_error_t* event_destroy(devplug_event_handle_t* event) {
  return guard([&] {
    check_handle(event, kEventTag, "event");
    event->tag = kDeadTag;
    delete event;
  });
}

devplug_error_t* event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
  return guard([&] {
    check_handle(event, kEventTag, "event");
    check_handle(stream, kStreamTag, "stream");
    if (event->device->index != stream->device->index)
      fail(DEVPLUG_CODE_INVALID_ARGUMENT, "event_record: event and stream belong to different devices");
  });
}

devplug_error_t* stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
  return guard([&] {
    check_handle(stream, kStreamTag, "stream");
    check_handle(event, kEventTag, "event");
  });
}

devplug_error_t* event_synchronize(devplug_event_handle_t* event) {
  return guard([&] { check_handle(event, kEventTag, "event"); });
}

// ---- kernels --------------------------------------------------------------------------------

const devplug::sdk::KernelTable& kernel_table() {
  static const devplug::sdk::KernelTable table = [] {
    namespace ref = devplug::reference;
    devplug::sdk::KernelTable t;
    ref::register_unary_kernels(t);
    ref::register_binary_kernels(t);
    ref::register_data_kernels(t);
    ref::register_reduce_kernels(t);
    ref::register_index_kernels(t);
    ref::register_linalg_kernels(t);
    ref::register_random_kernels(t);
    return t;
  }();
  return table;
}

devplug_plugin_api_t make_api() {
  devplug_plugin_api_t api;
  std::memset(&api, 0, sizeof api);
  api.struct_size = sizeof(devplug_plugin_api_t);
  api.abi_major = DEVPLUG_ABI_MAJOR;
  api.abi_minor = DEVPLUG_ABI_MINOR;
  api.plugin_name = "reference";
  api.plugin_version = DEVPLUG_REFERENCE_VERSION;
  api.opset_version = DEVPLUG_OPSET_VERSION;
  api.flags = 0;
  api.error_create = &devplug::sdk::error_create;
  api.error_destroy = &devplug::sdk::error_destroy;
  api.plugin_initialize = &plugin_initialize;
  api.plugin_shutdown = &plugin_shutdown;
  api.device_count = &device_count;
  api.device_get_properties = &device_get_properties;
  api.device_open = &device_open;
  api.device_close = &device_close;
  api.buffer_allocate = &buffer_allocate;
  api.buffer_release = &buffer_release;
  api.buffer_get_size = &buffer_get_size;
  api.buffer_copy_from_host = &buffer_copy_from_host;
  api.buffer_copy_to_host = &buffer_copy_to_host;
  api.buffer_copy = &buffer_copy;
  api.stream_create = &stream_create;
  api.stream_destroy = &stream_destroy;
  api.stream_synchronize = &stream_synchronize;
  api.event_create = &event_create;
  api.event_destroy = &event_destroy;
  api.event_record = &event_record;
  api.stream_wait_event = &stream_wait_event;
  api.event_synchronize = &event_synchronize;
  const devplug::sdk::KernelTable& table = kernel_table();
  api.kernels = table.data();
  api.kernel_count = table.size();
  return api;
}

}  // namespace

// The one export. Returns NULL only if the kernel table cannot be built (a plugin bug that
// KernelTable reports as an exception; it must not cross the ABI).
extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  try {
    static const devplug_plugin_api_t api = make_api();
    return &api;
  } catch (...) {
    return nullptr;
  }
}
