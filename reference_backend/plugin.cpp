// SPDX-License-Identifier: Apache-2.0
// The reference backend's plugin table: one CPU device, host-memory buffers, and streams and
// events that are trivial because every call runs synchronously on the calling thread (work
// has finished when the enqueueing call returns). Kernels live in kernels/*.cpp.
//
// Event timestamps (the event_timestamps extension): a stream reaches an event when
// event_record runs, since all earlier work has already finished on the calling thread, so
// the event's time is the host's steady clock read there.
//
// The table comes from sdk::make_plugin_api, whose shims check every argument the ABI's error
// contract names (NULL handles, short struct_size, device indices, ranges, overlap) and run
// each entry inside sdk::guard; the functions here add what only this plugin can tell (a
// stale handle, its memory limit) and do the work.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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
#include "devplug/sdk/plugin.hpp"
#include "fused_programs.hpp"
#include "kernels/kernels.hpp"
#include "kernels/kernel_traits.hpp"

#ifndef DEVPLUG_REFERENCE_VERSION
#define DEVPLUG_REFERENCE_VERSION "0.0.0"
#endif

namespace {

using devplug::sdk::check_not_null;
using devplug::sdk::fail;

// Handles carry a tag so that a stale or foreign pointer is answered with an error where
// it can be detected cheaply (best effort: a freed handle's memory may be reused).
constexpr uint32_t kDeviceTag = 0x44455631;  // "DEV1"
constexpr uint32_t kStreamTag = 0x53545231;  // "STR1"
constexpr uint32_t kEventTag = 0x45564e31;   // "EVN1"
constexpr uint32_t kDeadTag = 0xdeadbeef;
constexpr int64_t kNeverRecorded = INT64_MIN;

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
  // steady_clock nanoseconds when the stream last reached the event; kNeverRecorded before.
  std::atomic<int64_t> time_ns;
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

devplug_buffer_handle_t* check_buffer(devplug_buffer_handle_t* buffer) {
  check_not_null(buffer, "buffer");
  if (buffer->data == nullptr) fail(DEVPLUG_CODE_INVALID_ARGUMENT, "buffer is not a live buffer");
  return buffer;
}

// The host's steady clock in nanoseconds: the reference device's timer.
int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Copies `text` into the fixed-size `field`, cut to fit and NUL-terminated.
template <size_t N>
void copy_string(char (&field)[N], const char* text) {
  std::strncpy(field, text, N - 1);
  field[N - 1] = '\0';
}

// One CPU device; buffers are host memory; work runs when it is enqueued, so waiting for a
// stream or an event has nothing to wait for.
struct ReferencePlugin {
  static const char* name() { return "reference"; }
  static const char* version() { return DEVPLUG_REFERENCE_VERSION; }
  static uint32_t flags() { return 0; }
  static void initialize(const devplug_plugin_init_args_t&) {}
  static void shutdown() noexcept {}

  static int32_t device_count(const char**) { return 1; }

  static void device_properties(int32_t, devplug_device_properties_t& p) {
    copy_string(p.name, kDeviceName);
    copy_string(p.vendor, "devplug");
    copy_string(p.driver_version, DEVPLUG_REFERENCE_VERSION);
    p.memory_bytes = physical_memory_bytes();
    p.compute_units = static_cast<int32_t>(std::thread::hardware_concurrency());
    p.capabilities =
        DEVPLUG_DEVICE_FP64 | DEVPLUG_DEVICE_FP16 | DEVPLUG_DEVICE_BF16 | DEVPLUG_DEVICE_UNIFIED_MEMORY;
    // Every dtype, explicitly: what device_get_claims says and the kernels' prologue checks
    // (KernelTraits::claimed_dtypes).
    p.dtypes = devplug::reference::KernelTraits::claimed_dtypes(nullptr);
  }

  static devplug_device_handle_t* device_open(int32_t index) {
    return new devplug_device_handle_t{kDeviceTag, index};
  }

  static void device_close(devplug_device_handle_t* device) {
    check_handle(device, kDeviceTag, "device");
    device->tag = kDeadTag;
    delete device;
  }

  static devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes) {
    check_handle(device, kDeviceTag, "device");
    const uint64_t limit = physical_memory_bytes();
    if (size_bytes > std::numeric_limits<size_t>::max() - kBufferAlignment ||
        (limit != 0 && size_bytes > limit))
      fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, "buffer_allocate: " + std::to_string(size_bytes) +
                                                " bytes is more than the " + std::to_string(limit) +
                                                " bytes of host memory");
    // aligned_alloc wants a multiple of the alignment.
    const size_t rounded =
        static_cast<size_t>((size_bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment);
    void* data = std::aligned_alloc(kBufferAlignment, rounded);
    if (data == nullptr)
      fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED,
           "buffer_allocate: out of host memory for " + std::to_string(size_bytes) + " bytes");
    return new devplug_buffer_handle_t{size_bytes, static_cast<unsigned char*>(data), device};
  }

  static void buffer_release(devplug_buffer_handle_t* buffer) {
    check_buffer(buffer);
    if (buffer->owned) std::free(buffer->data);
    buffer->data = nullptr;
    buffer->size = 0;
    delete buffer;
  }

  static uint64_t buffer_size(devplug_buffer_handle_t* buffer) { return check_buffer(buffer)->size; }

  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) {
    return check_buffer(buffer)->device;
  }
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) {
    return check_handle(stream, kStreamTag, "stream")->device;
  }
  static devplug_device_handle_t* device_of(devplug_event_handle_t* event) {
    return check_handle(event, kEventTag, "event")->device;
  }

  static void buffer_copy_from_host(devplug_stream_handle_t*, const void* src, devplug_buffer_handle_t* dst,
                                    uint64_t dst_offset, uint64_t size_bytes) {
    std::memcpy(dst->data + dst_offset, src, static_cast<size_t>(size_bytes));
  }

  static void buffer_copy_to_host(devplug_stream_handle_t*, devplug_buffer_handle_t* src, uint64_t src_offset,
                                  void* dst, uint64_t size_bytes) {
    std::memcpy(dst, src->data + src_offset, static_cast<size_t>(size_bytes));
  }

  static void buffer_copy(devplug_stream_handle_t*, devplug_buffer_handle_t* src, uint64_t src_offset,
                          devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size_bytes) {
    std::memcpy(dst->data + dst_offset, src->data + src_offset, static_cast<size_t>(size_bytes));
  }

  static devplug_stream_handle_t* stream_create(devplug_device_handle_t* device) {
    check_handle(device, kDeviceTag, "device");
    return new devplug_stream_handle_t{kStreamTag, device};
  }

  static void stream_destroy(devplug_stream_handle_t* stream) {
    check_handle(stream, kStreamTag, "stream");
    stream->tag = kDeadTag;
    delete stream;
  }

  static void stream_synchronize(devplug_stream_handle_t* stream) {
    check_handle(stream, kStreamTag, "stream");
  }

  static devplug_event_handle_t* event_create(devplug_device_handle_t* device) {
    check_handle(device, kDeviceTag, "device");
    return new devplug_event_handle_t{kEventTag, device, {kNeverRecorded}};
  }

  static void event_destroy(devplug_event_handle_t* event) {
    check_handle(event, kEventTag, "event");
    event->tag = kDeadTag;
    delete event;
  }

  // Work before the event has already run, so the stream reaches it now.
  static void event_record(devplug_event_handle_t* event, devplug_stream_handle_t*) {
    check_handle(event, kEventTag, "event")->time_ns.store(now_ns(), std::memory_order_release);
  }
  static void stream_wait_event(devplug_stream_handle_t*, devplug_event_handle_t*) {}
  static void event_synchronize(devplug_event_handle_t* event) { check_handle(event, kEventTag, "event"); }

  // Both events are complete once recorded (work is synchronous): nothing to wait for.
  static int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end) {
    const int64_t t0 = start->time_ns.load(std::memory_order_acquire);
    if (t0 == kNeverRecorded)
      fail(DEVPLUG_CODE_FAILED_PRECONDITION, "event_elapsed_ns: `start` was never recorded");
    const int64_t t1 = end->time_ns.load(std::memory_order_acquire);
    if (t1 == kNeverRecorded)
      fail(DEVPLUG_CODE_FAILED_PRECONDITION, "event_elapsed_ns: `end` was never recorded");
    return t1 - t0;
  }

  // The host_address extension: buffers are host memory (work is synchronous, so the host
  // may read them once the calls that wrote them returned). No pinned_host_memory extension:
  // copies are plain memcpy, and the dispatcher's own page-locked memory serves hosts.
  static void* buffer_host_address(devplug_buffer_handle_t* buffer) { return check_buffer(buffer)->data; }

  // The host_memory_import extension: a buffer over the caller's memory, which buffer_release
  // leaves alone (the SDK has checked its alignment against kBufferAlignment's 64).
  static devplug_buffer_handle_t* buffer_import_host(devplug_device_handle_t* device, void* host,
                                                     uint64_t size_bytes) {
    check_handle(device, kDeviceTag, "device");
    return new devplug_buffer_handle_t{size_bytes, static_cast<unsigned char*>(host), device, false};
  }

  // The fused_programs extension: node by node through the kernels below (fused_programs.hpp).
  static devplug_fused_program_handle_t* fused_program_create(devplug_device_handle_t* device,
                                                              const devplug_fused_program_desc_t* desc) {
    check_handle(device, kDeviceTag, "device");
    return devplug::reference::fused_program_create(device, *desc, kernels());
  }
  static void fused_program_launch(devplug_stream_handle_t* stream, devplug_fused_program_handle_t* program,
                                   const devplug_tensor_desc_t* const* inputs, size_t n_inputs,
                                   const devplug_tensor_desc_t* const* outputs, size_t n_outputs) {
    devplug::reference::fused_program_launch(stream, device_of(stream), program, inputs, n_inputs, outputs,
                                             n_outputs);
  }
  static void fused_program_destroy(devplug_fused_program_handle_t* program) {
    devplug::reference::fused_program_destroy(program);
  }

  static const devplug::sdk::KernelTable& kernels() {
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
      ref::register_composite_pointwise_kernels(t);
      ref::register_composite_norm_kernels(t);
      ref::register_composite_linear_kernels(t);
      ref::register_composite_conv_kernels(t);
      ref::register_composite_loss_kernels(t);
      return t;
    }();
    return table;
  }
};

}  // namespace

// What the kernels' prologue (sdk::run_kernel) asks of this plugin's handles.
devplug_device_handle_t* devplug::reference::KernelTraits::device_of(devplug_stream_handle_t* stream) {
  return ReferencePlugin::device_of(stream);
}
devplug_device_handle_t* devplug::reference::KernelTraits::device_of(devplug_buffer_handle_t* buffer) {
  return ReferencePlugin::device_of(buffer);
}

// The one export. Returns NULL only if the kernel table cannot be built (a plugin bug that
// KernelTable reports as an exception; it must not cross the ABI).
extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  return devplug::sdk::plugin_api_or_null<ReferencePlugin>();
}
