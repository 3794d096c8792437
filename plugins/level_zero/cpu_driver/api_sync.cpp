// SPDX-License-Identifier: Apache-2.0
// Event pools, events and fences. An event is signalled by the host (zeEventHostSignal) or by
// a queue when the command that names it finishes; whoever waits is woken through its
// condition variable. Timeouts are in nanoseconds: 0 only queries, UINT64_MAX waits forever.
#include <chrono>

#include "api.hpp"

namespace ze_cpu {

void signal(Event& event, ze_result_t error) {
  {
    std::lock_guard<std::mutex> lock(event.mutex);
    event.signalled = true;
    if (error != ZE_RESULT_SUCCESS) event.error = error;
  }
  event.cv.notify_all();
}

void signal(Fence& fence, ze_result_t error) {
  {
    std::lock_guard<std::mutex> lock(fence.mutex);
    fence.signalled = true;
    if (error != ZE_RESULT_SUCCESS) fence.error = error;
  }
  fence.cv.notify_all();
}

namespace {

// Waits on `cv` until `ready()` (the lock held), within `timeout_ns`; `stop` ends it early.
template <typename Ready>
bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, uint64_t timeout_ns,
                Ready ready, const std::atomic<bool>* stop) {
  if (ready()) return true;
  if (timeout_ns == 0) return false;
  using clock = std::chrono::steady_clock;
  const bool forever = timeout_ns == UINT64_MAX;
  const auto deadline =
      forever ? clock::time_point::max() : clock::now() + std::chrono::nanoseconds(timeout_ns);
  while (!ready()) {
    if (stop != nullptr && stop->load()) return false;
    // Wake up now and then to notice `stop`.
    const auto slice = clock::now() + std::chrono::milliseconds(20);
    cv.wait_until(lock, forever ? slice : std::min(slice, deadline));
    if (!forever && clock::now() >= deadline) return ready();
  }
  return true;
}

}  // namespace

bool wait_signalled(Event& event, uint64_t timeout_ns, const std::atomic<bool>* stop) {
  std::unique_lock<std::mutex> lock(event.mutex);
  return wait_until(
      lock, event.cv, timeout_ns, [&] { return event.signalled; }, stop);
}

namespace api {

// ---- event pools ----

ze_result_t EventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t* desc,
                            uint32_t numDevices, ze_device_handle_t* phDevices,
                            ze_event_pool_handle_t* phEventPool) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Context> context = lookup<Context>(hContext, Kind::context);
    check_pointer(desc);
    check_pointer(phEventPool);
    check(desc->count > 0, ZE_RESULT_ERROR_INVALID_SIZE);
    check(numDevices == 0 || phDevices != nullptr, ZE_RESULT_ERROR_INVALID_SIZE);
    for (uint32_t i = 0; i < numDevices; ++i) check_device(phDevices[i]);
    const ze_event_pool_flags_t known =
        ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_IPC | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
    check((desc->flags & ~known) == 0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    check((desc->flags & ZE_EVENT_POOL_FLAG_IPC) == 0, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    auto pool = std::make_shared<EventPool>();
    pool->context = context;
    pool->flags = desc->flags;
    pool->count = desc->count;
    pool->used.assign(desc->count, false);
    register_object(pool);
    *phEventPool = reinterpret_cast<ze_event_pool_handle_t>(pool.get());
  });
}

ze_result_t EventPoolDestroy(ze_event_pool_handle_t hEventPool) {
  return guarded([&] {
    require_init();
    std::shared_ptr<EventPool> pool = lookup<EventPool>(hEventPool, Kind::event_pool);
    {
      std::lock_guard<std::mutex> lock(pool->mutex);
      for (bool used : pool->used) check(!used, ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    }
    unregister_object(hEventPool);
  });
}

// ---- events ----

ze_result_t EventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t* desc,
                        ze_event_handle_t* phEvent) {
  return guarded([&] {
    require_init();
    std::shared_ptr<EventPool> pool = lookup<EventPool>(hEventPool, Kind::event_pool);
    check_pointer(desc);
    check_pointer(phEvent);
    check(desc->index < pool->count, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    const ze_event_scope_flags_t scopes =
        ZE_EVENT_SCOPE_FLAG_SUBDEVICE | ZE_EVENT_SCOPE_FLAG_DEVICE | ZE_EVENT_SCOPE_FLAG_HOST;
    check((desc->signal & ~scopes) == 0 && (desc->wait & ~scopes) == 0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    {
      std::lock_guard<std::mutex> lock(pool->mutex);
      check(!pool->used[desc->index], ZE_RESULT_ERROR_INVALID_ARGUMENT);  // that slot is taken
      pool->used[desc->index] = true;
    }
    auto event = std::make_shared<Event>();
    event->pool = pool;
    event->index = desc->index;
    register_object(event);
    *phEvent = reinterpret_cast<ze_event_handle_t>(event.get());
  });
}

ze_result_t EventDestroy(ze_event_handle_t hEvent) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Event> event = lookup<Event>(hEvent, Kind::event);
    {
      std::lock_guard<std::mutex> lock(event->pool->mutex);
      event->pool->used[event->index] = false;
    }
    unregister_object(hEvent);
  });
}

ze_result_t EventHostSignal(ze_event_handle_t hEvent) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Event> event = lookup<Event>(hEvent, Kind::event);
    {
      std::lock_guard<std::mutex> lock(event->mutex);
      event->start = event->end = now_ns();
    }
    signal(*event, ZE_RESULT_SUCCESS);
  });
}

ze_result_t EventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
  ze_result_t result = ZE_RESULT_SUCCESS;
  const ze_result_t status = guarded([&] {
    require_init();
    std::shared_ptr<Event> event = lookup<Event>(hEvent, Kind::event);
    if (!wait_signalled(*event, timeout)) {
      result = ZE_RESULT_NOT_READY;
      return;
    }
    std::lock_guard<std::mutex> lock(event->mutex);
    result = event->error;
  });
  return status != ZE_RESULT_SUCCESS ? status : result;
}

ze_result_t EventQueryStatus(ze_event_handle_t hEvent) { return EventHostSynchronize(hEvent, 0); }

ze_result_t EventHostReset(ze_event_handle_t hEvent) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Event> event = lookup<Event>(hEvent, Kind::event);
    std::lock_guard<std::mutex> lock(event->mutex);
    event->signalled = false;
    event->error = ZE_RESULT_SUCCESS;
    event->start = event->end = 0;
  });
}

ze_result_t EventQueryKernelTimestamp(ze_event_handle_t hEvent, ze_kernel_timestamp_result_t* dst) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Event> event = lookup<Event>(hEvent, Kind::event);
    check_pointer(dst);
    check((event->pool->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP) != 0, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    std::lock_guard<std::mutex> lock(event->mutex);
    check(event->signalled, ZE_RESULT_NOT_READY);
    dst->global.kernelStart = dst->context.kernelStart = event->start;
    dst->global.kernelEnd = dst->context.kernelEnd = event->end;
  });
}

// ---- fences ----

ze_result_t FenceCreate(ze_command_queue_handle_t hCommandQueue, const ze_fence_desc_t* desc,
                        ze_fence_handle_t* phFence) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Queue> queue = lookup<Queue>(hCommandQueue, Kind::queue);
    check_pointer(desc);
    check_pointer(phFence);
    check((desc->flags & ~ZE_FENCE_FLAG_SIGNALED) == 0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    auto fence = std::make_shared<Fence>();
    fence->queue = queue;
    fence->signalled = (desc->flags & ZE_FENCE_FLAG_SIGNALED) != 0;
    register_object(fence);
    *phFence = reinterpret_cast<ze_fence_handle_t>(fence.get());
  });
}

ze_result_t FenceDestroy(ze_fence_handle_t hFence) {
  return guarded([&] {
    require_init();
    lookup<Fence>(hFence, Kind::fence);
    unregister_object(hFence);
  });
}

ze_result_t FenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout) {
  ze_result_t result = ZE_RESULT_SUCCESS;
  const ze_result_t status = guarded([&] {
    require_init();
    std::shared_ptr<Fence> fence = lookup<Fence>(hFence, Kind::fence);
    std::unique_lock<std::mutex> lock(fence->mutex);
    if (!wait_until(
            lock, fence->cv, timeout, [&] { return fence->signalled; }, nullptr)) {
      result = ZE_RESULT_NOT_READY;
      return;
    }
    result = fence->error;
  });
  return status != ZE_RESULT_SUCCESS ? status : result;
}

ze_result_t FenceQueryStatus(ze_fence_handle_t hFence) { return FenceHostSynchronize(hFence, 0); }

ze_result_t FenceReset(ze_fence_handle_t hFence) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Fence> fence = lookup<Fence>(hFence, Kind::fence);
    std::lock_guard<std::mutex> lock(fence->mutex);
    fence->signalled = false;
    fence->error = ZE_RESULT_SUCCESS;
  });
}

}  // namespace api

}  // namespace ze_cpu
