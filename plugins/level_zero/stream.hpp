// SPDX-License-Identifier: Apache-2.0
// Streams and events (stream.cpp), and the appends every other file goes through.
//
// A stream is an immediate command list on the device's compute engine (or, where the
// driver has no immediate lists or DEVPLUG_LEVEL_ZERO_COMMAND_LISTS=regular, regular command
// lists executed on a queue with a fence each). Level Zero does not promise that commands of
// one list run one after another, so the stream puts a barrier between consecutive commands:
// a devplug stream is in order. A devplug event is a Level Zero event from the device's pool
// signalled by a barrier at the current end of the stream.
//
// Event timestamps (the event_timestamps extension): a devplug event's Level Zero event comes
// from a pool with ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, so its barrier leaves kernel
// timestamps; the time of the event is the barrier's global end timestamp, the moment the
// device had finished the work before it. event_elapsed_ns reads both with
// zeEventQueryKernelTimestamp and converts ticks with the device's timerResolution, modulo
// its kernelTimestampValidBits (so an interval must be shorter than half the timer's
// wrap-around: minutes on GPUs whose kernel timestamps have 32 bits). Where the driver has no
// timestamp pools, events still work and event_elapsed_ns answers UNIMPLEMENTED.
#pragma once

#include <functional>

#include "objects.hpp"

namespace devplug::level_zero {

// ---- the entry points (called by the table's shims after the ABI's checks) ----
devplug_stream_handle_t* stream_create(devplug_device_handle_t* device);
void stream_destroy(devplug_stream_handle_t* stream);
void stream_synchronize(devplug_stream_handle_t* stream);
devplug_event_handle_t* event_create(devplug_device_handle_t* device);
void event_destroy(devplug_event_handle_t* event);
void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream);
void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event);
void event_synchronize(devplug_event_handle_t* event);
int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end);

// ---- appends ----

// Appends one command to `stream`: `append(list)` runs under the stream's lock after the
// barrier that orders it behind the stream's earlier work.
void append_command(devplug_stream_handle_t* stream, const char* what,
                    const std::function<void(ze_command_list_handle_t)>& append);

// Copies. Host memory goes straight to the driver when the device reads and writes system
// memory, or when it is pinned host memory of the device's (host_allocate); otherwise it is
// staged through host memory of the driver's (a copy to the host then waits for the stream
// before it returns).
void append_copy_from_host(devplug_stream_handle_t* stream, void* dst, const void* src, size_t size);
void append_copy_to_host(devplug_stream_handle_t* stream, void* dst, const void* src, size_t size);
void append_device_copy(devplug_stream_handle_t* stream, void* dst, const void* src, size_t size);

// Releases device memory that work enqueued on `stream` may still use, once the stream has
// passed that work.
void stream_release_memory(devplug_stream_handle_t* stream, void* memory) noexcept;

// Waits for every live stream of `device`.
void synchronize_device_streams(devplug_device_handle_t* device);

// Submits what the device's streams have recorded in regular command lists, so that the
// driver sees every use of memory about to be freed (a deferred free only waits for work
// the driver has been given).
void submit_device_streams(devplug_device_handle_t* device);

// ---- the device's event pool ----

// Level Zero events, host-visible, handed out one at a time and reset when returned; with
// kernel timestamps when `timestamps` is set and the driver makes such pools (else without:
// EventSlot::timestamps says which). Thread-safe. Lives as long as any event it handed out.
class EventPool : public std::enable_shared_from_this<EventPool> {
 public:
  EventPool(ze_context_handle_t context, ze_device_handle_t device, bool timestamps)
      : context_(context), device_(device), timestamps_(timestamps) {}
  ~EventPool();
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // An unsignalled event.
  EventRef acquire();

 private:
  static constexpr uint32_t kPoolSize = 64;
  void give_back(EventSlot* slot) noexcept;

  ze_context_handle_t context_;
  ze_device_handle_t device_;
  bool timestamps_;  // under mutex_: cleared when the driver refuses a timestamp pool
  std::mutex mutex_;
  std::vector<ze_event_pool_handle_t> pools_;
  std::vector<EventSlot*> free_;
  std::vector<std::unique_ptr<EventSlot>> slots_;
};

}  // namespace devplug::level_zero
