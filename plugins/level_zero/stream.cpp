// SPDX-License-Identifier: Apache-2.0
// Streams (command lists), events (Level Zero events from the device's pool) and appends.
// The table's shims (sdk/plugin.hpp) have checked the handles and devices before the entry
// points run.
#include "stream.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "devplug/sdk/index_status.hpp"
#include "memory.hpp"
#include "ze_status.hpp"

namespace devplug::level_zero {

namespace {

// A regular command list holds at most this many commands before it is submitted, so long
// runs of work start before the host synchronizes.
constexpr size_t kCommandsPerList = 256;

bool want_immediate_lists() {
  const char* mode = std::getenv("DEVPLUG_LEVEL_ZERO_COMMAND_LISTS");
  return mode == nullptr || std::strcmp(mode, "regular") != 0;
}

ze_command_queue_desc_t queue_desc(uint32_t ordinal) {
  ze_command_queue_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  desc.ordinal = ordinal;
  desc.index = 0;
  desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  desc.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  return desc;
}

ze_command_list_handle_t create_list(devplug_device_handle_t* device) {
  ze_command_list_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC;
  desc.commandQueueGroupOrdinal = device->info.compute_ordinal;
  ze_command_list_handle_t list = nullptr;
  DEVPLUG_ZE_CALL(zeCommandListCreate, (device->context, device->info.device, &desc, &list),
                  "creating a command list");
  return list;
}

// Regular lists (the stream's lock held): a list to record into, reusing one that finished.
devplug_stream_handle_t::Submitted take_list(devplug_stream_handle_t* stream) {
  if (stream->idle.empty() && !stream->submitted.empty() &&
      ze().zeFenceQueryStatus(stream->submitted.front().fence) == ZE_RESULT_SUCCESS) {
    devplug_stream_handle_t::Submitted done = stream->submitted.front();
    stream->submitted.pop_front();
    DEVPLUG_ZE_CALL(zeCommandListReset, (done.list), "reusing a command list");
    DEVPLUG_ZE_CALL(zeFenceReset, (done.fence), "reusing a fence");
    stream->idle.push_back(done);
  }
  if (!stream->idle.empty()) {
    devplug_stream_handle_t::Submitted s = stream->idle.back();
    stream->idle.pop_back();
    return s;
  }
  devplug_stream_handle_t::Submitted s{create_list(stream->device), nullptr};
  ze_fence_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_FENCE_DESC;
  const ze_result_t result = ze().zeFenceCreate(stream->queue, &desc, &s.fence);
  if (result != ZE_RESULT_SUCCESS) {
    ze().zeCommandListDestroy(s.list);
    fail_ze("zeFenceCreate", result, "creating a fence", __FILE__, __LINE__);
  }
  return s;
}

// Regular lists (the stream's lock held): submits what was recorded and opens a new list.
// The queue runs lists in the order they are submitted.
void flush(devplug_stream_handle_t* stream) {
  if (stream->immediate || stream->recorded == 0) return;
  devplug_stream_handle_t::Submitted current{stream->list, stream->open_fence};
  DEVPLUG_ZE_CALL(zeCommandListClose, (current.list), "closing a command list");
  DEVPLUG_ZE_CALL(zeCommandQueueExecuteCommandLists, (stream->queue, 1, &current.list, current.fence),
                  "submitting a command list");
  stream->submitted.push_back(current);
  devplug_stream_handle_t::Submitted next = take_list(stream);
  stream->list = next.list;
  stream->open_fence = next.fence;
  stream->recorded = 0;
  stream->needs_barrier = false;
}

// Frees what a synchronized stream kept alive.
void release(KeepAlive& keep, ze_context_handle_t context) noexcept {
  keep.events.clear();
  for (void* memory : keep.memory) ze().zeMemFree(context, memory);
  keep.memory.clear();
}

// Waits for everything enqueued on the stream (its lock held) and hands back what it kept.
KeepAlive drain(devplug_stream_handle_t* stream) {
  devplug_device_handle_t* device = stream->device;
  if (stream->immediate) {
    EventRef done = device->events->acquire();
    DEVPLUG_ZE_CALL(zeCommandListAppendBarrier, (stream->list, done->event, 0, nullptr),
                    "synchronizing a stream");
    stream->needs_barrier = false;
    DEVPLUG_ZE_CALL(zeEventHostSynchronize, (done->event, UINT64_MAX), "synchronizing a stream");
  } else {
    flush(stream);
    DEVPLUG_ZE_CALL(zeCommandQueueSynchronize, (stream->queue, UINT64_MAX), "synchronizing a stream");
    for (const auto& s : stream->submitted) {
      DEVPLUG_ZE_CALL(zeCommandListReset, (s.list), "reusing a command list");
      DEVPLUG_ZE_CALL(zeFenceReset, (s.fence), "reusing a fence");
      stream->idle.push_back(s);
    }
    stream->submitted.clear();
  }
  return std::move(stream->keep);
}

}  // namespace

// ---- streams ----

devplug_stream_handle_t* stream_create(devplug_device_handle_t* device) {
  auto stream = std::make_unique<devplug_stream_handle_t>();
  stream->device = device;
  const ze_command_queue_desc_t desc = queue_desc(device->info.compute_ordinal);
  ze_result_t result = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  if (want_immediate_lists())
    result = ze().zeCommandListCreateImmediate(device->context, device->info.device, &desc, &stream->list);
  if (result == ZE_RESULT_SUCCESS) {
    stream->immediate = true;
  } else if (result == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) {
    stream->immediate = false;
    DEVPLUG_ZE_CALL(zeCommandQueueCreate, (device->context, device->info.device, &desc, &stream->queue),
                    "creating a stream's command queue");
    try {
      devplug_stream_handle_t::Submitted first = take_list(stream.get());
      stream->list = first.list;
      stream->open_fence = first.fence;
    } catch (...) {
      ze().zeCommandQueueDestroy(stream->queue);
      throw;
    }
  } else {
    fail_ze("zeCommandListCreateImmediate", result, "creating a stream", __FILE__, __LINE__);
  }
  std::lock_guard<std::mutex> lock(device->streams_mutex);
  device->streams.insert(stream.get());
  return stream.release();
}

void stream_destroy(devplug_stream_handle_t* stream) {
  devplug_device_handle_t* device = stream->device;
  // A bad index found by work still on the stream is this call's error.
  const std::exception_ptr index_error =
      stream->index_status_armed ? sdk::index_error_of([&] { stream_synchronize(stream); }) : nullptr;
  {
    std::lock_guard<std::mutex> lock(device->streams_mutex);
    device->streams.erase(stream);
  }
  std::string failure;
  KeepAlive keep;
  try {
    std::lock_guard<std::mutex> lock(stream->mutex);
    keep = drain(stream);
  } catch (const sdk::Error& e) {
    failure = e.what();
  }
  release(keep, device->context);
  const ZeLibrary& lib = ze();
  if (stream->index_status != nullptr) lib.zeMemFree(device->context, stream->index_status);
  if (stream->list != nullptr) lib.zeCommandListDestroy(stream->list);
  if (stream->open_fence != nullptr) lib.zeFenceDestroy(stream->open_fence);
  for (const auto& s : stream->submitted) {
    lib.zeCommandListDestroy(s.list);
    lib.zeFenceDestroy(s.fence);
  }
  for (const auto& s : stream->idle) {
    lib.zeCommandListDestroy(s.list);
    lib.zeFenceDestroy(s.fence);
  }
  if (stream->queue != nullptr) lib.zeCommandQueueDestroy(stream->queue);
  delete stream;
  if (!failure.empty()) sdk::fail(DEVPLUG_CODE_INTERNAL, failure + " (destroying a stream)");
  if (index_error) std::rethrow_exception(index_error);
}

namespace {

void drain_and_release(devplug_stream_handle_t* stream) {
  KeepAlive keep;
  {
    std::lock_guard<std::mutex> lock(stream->mutex);
    keep = drain(stream);
  }
  release(keep, stream->device->context);
}

// Reads the stream's index status block when an index kernel ran since the last look, clears
// it, and throws INVALID_ARGUMENT when a kernel recorded a bad index (sdk/index_status.hpp).
// The stream has drained.
void check_index_status(devplug_stream_handle_t* stream) {
  if (stream->index_status == nullptr || !stream->index_status_armed.exchange(false)) return;
  sdk::IndexStatus found{};
  append_copy_to_host(stream, &found, stream->index_status, sizeof found);
  drain_and_release(stream);
  if (found.op == 0) return;
  static const sdk::IndexStatus kZero{};
  append_copy_from_host(stream, stream->index_status, &kZero, sizeof kZero);
  drain_and_release(stream);
  sdk::throw_index_status(found);
}

}  // namespace

void stream_synchronize(devplug_stream_handle_t* stream) {
  drain_and_release(stream);
  check_index_status(stream);
}

void synchronize_device_streams(devplug_device_handle_t* device) {
  std::lock_guard<std::mutex> lock(device->streams_mutex);
  // Drains only: an index error stays for the stream's own next synchronize.
  for (devplug_stream_handle_t* stream : device->streams) drain_and_release(stream);
}

void submit_device_streams(devplug_device_handle_t* device) {
  std::lock_guard<std::mutex> lock(device->streams_mutex);
  for (devplug_stream_handle_t* stream : device->streams) {
    if (stream->immediate) continue;
    std::lock_guard<std::mutex> stream_lock(stream->mutex);
    flush(stream);
  }
}

// ---- appends ----

void append_command(devplug_stream_handle_t* stream, const char* what,
                    const std::function<void(ze_command_list_handle_t)>& append) {
  std::lock_guard<std::mutex> lock(stream->mutex);
  if (stream->needs_barrier)
    DEVPLUG_ZE_CALL(zeCommandListAppendBarrier, (stream->list, nullptr, 0, nullptr), what);
  append(stream->list);
  stream->needs_barrier = true;
  if (!stream->immediate && ++stream->recorded >= kCommandsPerList) flush(stream);
}

void append_device_copy(devplug_stream_handle_t* stream, void* dst, const void* src, size_t size) {
  append_command(stream, "copying between buffers", [&](ze_command_list_handle_t list) {
    DEVPLUG_ZE_CALL(zeCommandListAppendMemoryCopy, (list, dst, src, size, nullptr, 0, nullptr),
                    "copying between buffers");
  });
}

namespace {

void* allocate_host_staging(devplug_device_handle_t* device, size_t size) {
  ze_host_mem_alloc_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  void* staging = nullptr;
  DEVPLUG_ZE_CALL(zeMemAllocHost, (device->context, &desc, size, 64, &staging),
                  "allocating host staging memory");
  return staging;
}

}  // namespace

void append_copy_from_host(devplug_stream_handle_t* stream, void* dst, const void* src, size_t size) {
  devplug_device_handle_t* device = stream->device;
  if (device->info.system_memory || is_pinned(device, src, size)) {
    append_command(stream, "copying from the host", [&](ze_command_list_handle_t list) {
      DEVPLUG_ZE_CALL(zeCommandListAppendMemoryCopy, (list, dst, src, size, nullptr, 0, nullptr),
                      "copying from the host");
    });
    return;
  }
  // The host's data is final now; the staging copy lives until the stream has passed it.
  void* staging = allocate_host_staging(device, size);
  std::memcpy(staging, src, size);
  try {
    append_command(stream, "copying from the host", [&](ze_command_list_handle_t list) {
      DEVPLUG_ZE_CALL(zeCommandListAppendMemoryCopy, (list, dst, staging, size, nullptr, 0, nullptr),
                      "copying from the host");
      stream->keep.memory.push_back(staging);
    });
  } catch (...) {
    ze().zeMemFree(device->context, staging);
    throw;
  }
}

void append_copy_to_host(devplug_stream_handle_t* stream, void* dst, const void* src, size_t size) {
  devplug_device_handle_t* device = stream->device;
  if (device->info.system_memory || is_pinned(device, dst, size)) {
    append_command(stream, "copying to the host", [&](ze_command_list_handle_t list) {
      DEVPLUG_ZE_CALL(zeCommandListAppendMemoryCopy, (list, dst, src, size, nullptr, 0, nullptr),
                      "copying to the host");
    });
    return;
  }
  void* staging = allocate_host_staging(device, size);
  try {
    append_command(stream, "copying to the host", [&](ze_command_list_handle_t list) {
      DEVPLUG_ZE_CALL(zeCommandListAppendMemoryCopy, (list, staging, src, size, nullptr, 0, nullptr),
                      "copying to the host");
    });
    stream_synchronize(stream);
    std::memcpy(dst, staging, size);
  } catch (...) {
    ze().zeMemFree(device->context, staging);
    throw;
  }
  ze().zeMemFree(device->context, staging);
}

void stream_release_memory(devplug_stream_handle_t* stream, void* memory) noexcept {
  try {
    std::lock_guard<std::mutex> lock(stream->mutex);
    if (!stream->immediate &&
        (stream->device->info.free_policies & ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE))
      flush(stream);  // the driver defers the free only behind work it has been given
    if (defer_free(stream->device, memory)) return;
    stream->keep.memory.push_back(memory);
  } catch (...) {
    // Keeping the memory is the safe failure: freeing it early could corrupt later work.
  }
}

// ---- events ----

devplug_event_handle_t* event_create(devplug_device_handle_t* device) {
  auto* event = new devplug_event_handle_t;
  event->device = device;
  return event;
}

void event_destroy(devplug_event_handle_t* event) { delete event; }

void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
  EventRef slot = stream->device->timed_events->acquire();
  {
    std::lock_guard<std::mutex> lock(stream->mutex);
    // A barrier that signals the event once every earlier command of the stream is done.
    DEVPLUG_ZE_CALL(zeCommandListAppendBarrier, (stream->list, slot->event, 0, nullptr),
                    "recording an event");
    stream->needs_barrier = false;
    stream->keep.events.push_back(slot);
    // Another stream or the host may wait for the event: submit what the stream recorded.
    if (!stream->immediate) {
      ++stream->recorded;
      flush(stream);
    }
  }
  std::lock_guard<std::mutex> lock(event->mutex);
  event->slot = std::move(slot);
}

void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
  EventRef slot;
  {
    std::lock_guard<std::mutex> lock(event->mutex);
    slot = event->slot;
  }
  if (!slot) return;  // never recorded: complete
  std::lock_guard<std::mutex> lock(stream->mutex);
  DEVPLUG_ZE_CALL(zeCommandListAppendBarrier, (stream->list, nullptr, 1, &slot->event),
                  "making a stream wait for an event");
  stream->needs_barrier = false;
  stream->keep.events.push_back(std::move(slot));
  if (!stream->immediate) ++stream->recorded;
}

void event_synchronize(devplug_event_handle_t* event) {
  EventRef slot;
  {
    std::lock_guard<std::mutex> lock(event->mutex);
    slot = event->slot;
  }
  if (!slot) return;
  DEVPLUG_ZE_CALL(zeEventHostSynchronize, (slot->event, UINT64_MAX), "waiting for an event");
}

namespace {

// The Level Zero event of `event`'s last recording, held so that a concurrent record cannot
// hand it back to the pool while it is read.
EventRef recorded_slot(devplug_event_handle_t* event, const char* which) {
  std::lock_guard<std::mutex> lock(event->mutex);
  if (!event->slot)
    sdk::fail(DEVPLUG_CODE_FAILED_PRECONDITION,
              std::string("event_elapsed_ns: `") + which + "` was never recorded");
  return event->slot;
}

// The global end timestamp of a completed timestamp event, in ticks.
uint64_t end_ticks(const EventRef& slot) {
  ze_kernel_timestamp_result_t ts{};
  DEVPLUG_ZE_CALL(zeEventQueryKernelTimestamp, (slot->event, &ts), "reading an event's timestamp");
  return ts.global.kernelEnd;
}

}  // namespace

int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end) {
  const EventRef first = recorded_slot(start, "start");
  const EventRef last = recorded_slot(end, "end");
  if (!first->timestamps || !last->timestamps)
    sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED,
              "event_elapsed_ns: the Level Zero driver made no event pool with kernel timestamps "
              "(zeEventPoolCreate with ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP failed)");
  DEVPLUG_ZE_CALL(zeEventHostSynchronize, (first->event, UINT64_MAX), "waiting for an event to time");
  DEVPLUG_ZE_CALL(zeEventHostSynchronize, (last->event, UINT64_MAX), "waiting for an event to time");
  const DeviceInfo& info = start->device->info;
  // Ticks modulo 2^bits, read as a signed difference: negative when `end` came first.
  const uint32_t bits =
      info.kernel_timestamp_bits == 0 || info.kernel_timestamp_bits > 64 ? 64 : info.kernel_timestamp_bits;
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t ticks = (end_ticks(last) - end_ticks(first)) & mask;
  int64_t signed_ticks = static_cast<int64_t>(ticks);  // 64 bits: two's complement
  if (bits < 64 && ticks >= (uint64_t{1} << (bits - 1)))
    signed_ticks -= static_cast<int64_t>(uint64_t{1} << bits);
  if (info.ns_per_tick == 1.0) return signed_ticks;
  return static_cast<int64_t>(std::llround(static_cast<double>(signed_ticks) * info.ns_per_tick));
}

// ---- the event pool ----

EventPool::~EventPool() {
  for (auto& slot : slots_) ze().zeEventDestroy(slot->event);
  for (ze_event_pool_handle_t pool : pools_) ze().zeEventPoolDestroy(pool);
}

EventRef EventPool::acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_.empty()) {
    ze_event_pool_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
    desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    if (timestamps_) desc.flags |= ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
    desc.count = kPoolSize;
    ze_event_pool_handle_t pool = nullptr;
    ze_device_handle_t device = device_;
    if (timestamps_ && ze().zeEventPoolCreate(context_, &desc, 1, &device, &pool) != ZE_RESULT_SUCCESS) {
      // A driver without timestamp pools: events without timestamps (event_elapsed_ns says so).
      timestamps_ = false;
      desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
      pool = nullptr;
    }
    if (pool == nullptr)
      DEVPLUG_ZE_CALL(zeEventPoolCreate, (context_, &desc, 1, &device, &pool), "creating an event pool");
    pools_.push_back(pool);
    for (uint32_t i = 0; i < kPoolSize; ++i) {
      ze_event_desc_t event_desc{};
      event_desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
      event_desc.index = i;
      event_desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
      event_desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
      auto slot = std::make_unique<EventSlot>();
      slot->pool = this;
      slot->index = i;
      slot->timestamps = timestamps_;
      DEVPLUG_ZE_CALL(zeEventCreate, (pool, &event_desc, &slot->event), "creating an event");
      free_.push_back(slot.get());
      slots_.push_back(std::move(slot));
    }
  }
  EventSlot* slot = free_.back();
  free_.pop_back();
  std::shared_ptr<EventPool> self = shared_from_this();
  return EventRef(slot, [self](EventSlot* s) { self->give_back(s); });
}

void EventPool::give_back(EventSlot* slot) noexcept {
  ze().zeEventHostReset(slot->event);
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(slot);
}

}  // namespace devplug::level_zero
