// SPDX-License-Identifier: Apache-2.0
// Command queues and command lists. A regular list records commands until it is closed and
// executed on a queue (its commands are copied into the batch, so the list may be executed
// again or reset once that batch is done); an immediate list owns a queue and submits each
// command as it is appended. Kernel arguments, group size and group count are captured when
// a launch is appended.
#include <algorithm>
#include <cstring>

#include "api.hpp"

namespace ze_cpu {

void resolve_events(Command& command, ze_event_handle_t signal, uint32_t wait_count,
                    ze_event_handle_t* wait_list) {
  check(wait_count == 0 || wait_list != nullptr, ZE_RESULT_ERROR_INVALID_SIZE);
  for (uint32_t i = 0; i < wait_count; ++i) command.wait.push_back(lookup<Event>(wait_list[i], Kind::event));
  if (signal != nullptr) command.signal = lookup<Event>(signal, Kind::event);
}

namespace {

void check_queue_desc(const ze_command_queue_desc_t* desc) {
  check_pointer(desc);
  check(desc->ordinal == 0, ZE_RESULT_ERROR_INVALID_ARGUMENT);  // one queue group
  check(desc->index < 64, ZE_RESULT_ERROR_INVALID_ARGUMENT);
  check(desc->mode <= ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_RESULT_ERROR_INVALID_ENUMERATION);
  check(desc->priority <= ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH, ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

// Adds `command` to `list`: recorded for a regular list, submitted now for an immediate one
// (and waited for when the list is synchronous).
void append(CommandList& list, Command command) {
  if (!list.immediate) {
    check(!list.closed, ZE_RESULT_ERROR_INVALID_ARGUMENT);  // appending to a closed list
    list.commands.push_back(std::move(command));
    return;
  }
  Batch batch;
  batch.commands.push_back(std::move(command));
  const uint64_t sequence = submit(*list.queue, std::move(batch));
  if (list.queue->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS) wait_for(*list.queue, sequence, UINT64_MAX);
}

std::shared_ptr<CommandList> the_list(ze_command_list_handle_t handle) {
  require_init();
  return lookup<CommandList>(handle, Kind::list);
}

// A copy's or fill's memory must be the device's to use: inside an allocation of this driver
// (the whole range), or host memory when the device reads system memory.
void check_accessible(const void* ptr, size_t size) {
  check_pointer(ptr);
  check(size == 0 || device_accessible(ptr, size), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

}  // namespace

namespace api {

// ---- queues ----

ze_result_t CommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                               const ze_command_queue_desc_t* desc,
                               ze_command_queue_handle_t* phCommandQueue) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Context> context = lookup<Context>(hContext, Kind::context);
    check_device(hDevice);
    check_queue_desc(desc);
    check_pointer(phCommandQueue);
    std::shared_ptr<Queue> queue = make_queue(context, desc->mode);
    register_object(queue);
    *phCommandQueue = reinterpret_cast<ze_command_queue_handle_t>(queue.get());
  });
}

ze_result_t CommandQueueDestroy(ze_command_queue_handle_t hCommandQueue) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Queue> queue = lookup<Queue>(hCommandQueue, Kind::queue);
    unregister_object(hCommandQueue);
    queue->shutdown();
  });
}

ze_result_t CommandQueueExecuteCommandLists(ze_command_queue_handle_t hCommandQueue, uint32_t numCommandLists,
                                            ze_command_list_handle_t* phCommandLists,
                                            ze_fence_handle_t hFence) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Queue> queue = lookup<Queue>(hCommandQueue, Kind::queue);
    check(numCommandLists > 0, ZE_RESULT_ERROR_INVALID_SIZE);
    check_pointer(phCommandLists);
    Batch batch;
    for (uint32_t i = 0; i < numCommandLists; ++i) {
      std::shared_ptr<CommandList> list = lookup<CommandList>(phCommandLists[i], Kind::list);
      check(!list->immediate, ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
      check(list->closed, ZE_RESULT_ERROR_INVALID_ARGUMENT);  // execute only closed lists
      batch.commands.insert(batch.commands.end(), list->commands.begin(), list->commands.end());
    }
    if (hFence != nullptr) {
      batch.fence = lookup<Fence>(hFence, Kind::fence);
      check(batch.fence->queue.lock() == queue, ZE_RESULT_ERROR_INVALID_ARGUMENT);  // another queue's fence
    }
    const uint64_t sequence = submit(*queue, std::move(batch));
    if (queue->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS) wait_for(*queue, sequence, UINT64_MAX);
  });
}

ze_result_t CommandQueueSynchronize(ze_command_queue_handle_t hCommandQueue, uint64_t timeout) {
  ze_result_t result = ZE_RESULT_SUCCESS;
  const ze_result_t status = guarded([&] {
    require_init();
    std::shared_ptr<Queue> queue = lookup<Queue>(hCommandQueue, Kind::queue);
    uint64_t last;
    {
      std::lock_guard<std::mutex> lock(queue->mutex);
      last = queue->submitted;
    }
    if (!wait_for(*queue, last, timeout)) {
      result = ZE_RESULT_NOT_READY;
      return;
    }
    std::lock_guard<std::mutex> lock(queue->mutex);
    result = queue->error;
  });
  return status != ZE_RESULT_SUCCESS ? status : result;
}

// ---- lists ----

ze_result_t CommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                              const ze_command_list_desc_t* desc, ze_command_list_handle_t* phCommandList) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Context> context = lookup<Context>(hContext, Kind::context);
    check_device(hDevice);
    check_pointer(desc);
    check_pointer(phCommandList);
    check(desc->commandQueueGroupOrdinal == 0, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    const ze_command_list_flags_t known = ZE_COMMAND_LIST_FLAG_RELAXED_ORDERING |
                                          ZE_COMMAND_LIST_FLAG_MAXIMIZE_THROUGHPUT |
                                          ZE_COMMAND_LIST_FLAG_EXPLICIT_ONLY;
    check((desc->flags & ~known) == 0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    auto list = std::make_shared<CommandList>();
    list->context = context;
    register_object(list);
    *phCommandList = reinterpret_cast<ze_command_list_handle_t>(list.get());
  });
}

ze_result_t CommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                       const ze_command_queue_desc_t* altdesc,
                                       ze_command_list_handle_t* phCommandList) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Context> context = lookup<Context>(hContext, Kind::context);
    check_device(hDevice);
    check_queue_desc(altdesc);
    check_pointer(phCommandList);
    auto list = std::make_shared<CommandList>();
    list->context = context;
    list->immediate = true;
    list->queue = make_queue(context, altdesc->mode);
    register_object(list);
    *phCommandList = reinterpret_cast<ze_command_list_handle_t>(list.get());
  });
}

ze_result_t CommandListDestroy(ze_command_list_handle_t hCommandList) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    unregister_object(hCommandList);
    if (list->queue) list->queue->shutdown();
  });
}

ze_result_t CommandListClose(ze_command_list_handle_t hCommandList) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    check(!list->immediate, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    list->closed = true;
  });
}

ze_result_t CommandListReset(ze_command_list_handle_t hCommandList) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    if (list->immediate) return;  // nothing recorded
    list->commands.clear();
    list->closed = false;
  });
}

ze_result_t CommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hCommandList, uint64_t* dstptr,
                                                  ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                  ze_event_handle_t* phWaitEvents) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    check_accessible(dstptr, sizeof(uint64_t));
    Command c;
    c.type = Command::Type::timestamp;
    c.dst = dstptr;
    resolve_events(c, hSignalEvent, numWaitEvents, phWaitEvents);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendBarrier(ze_command_list_handle_t hCommandList, ze_event_handle_t hSignalEvent,
                                     uint32_t numWaitEvents, ze_event_handle_t* phWaitEvents) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    Command c;
    c.type = Command::Type::barrier;
    resolve_events(c, hSignalEvent, numWaitEvents, phWaitEvents);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendMemoryRangesBarrier(ze_command_list_handle_t hCommandList, uint32_t numRanges,
                                                 const size_t* pRangeSizes, const void** pRanges,
                                                 ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                 ze_event_handle_t* phWaitEvents) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    check(numRanges == 0 || (pRangeSizes != nullptr && pRanges != nullptr),
          ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    Command c;
    c.type = Command::Type::barrier;
    resolve_events(c, hSignalEvent, numWaitEvents, phWaitEvents);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList, void* dstptr,
                                        const void* srcptr, size_t size, ze_event_handle_t hSignalEvent,
                                        uint32_t numWaitEvents, ze_event_handle_t* phWaitEvents) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    check_accessible(dstptr, size);
    check_accessible(srcptr, size);
    const auto d = reinterpret_cast<uintptr_t>(dstptr), s = reinterpret_cast<uintptr_t>(srcptr);
    check(size == 0 || d + size <= s || s + size <= d, ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
    Command c;
    c.type = Command::Type::copy;
    c.dst = dstptr;
    c.src = srcptr;
    c.size = size;
    resolve_events(c, hSignalEvent, numWaitEvents, phWaitEvents);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void* ptr, const void* pattern,
                                        size_t pattern_size, size_t size, ze_event_handle_t hSignalEvent,
                                        uint32_t numWaitEvents, ze_event_handle_t* phWaitEvents) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    check_pointer(pattern);
    check_accessible(ptr, size);
    check(pattern_size > 0 && pattern_size <= 128 && (pattern_size & (pattern_size - 1)) == 0,
          ZE_RESULT_ERROR_INVALID_SIZE);
    check(size % pattern_size == 0, ZE_RESULT_ERROR_INVALID_SIZE);
    Command c;
    c.type = Command::Type::fill;
    c.dst = ptr;
    c.size = size;
    const auto* p = static_cast<const unsigned char*>(pattern);
    c.pattern.assign(p, p + pattern_size);
    resolve_events(c, hSignalEvent, numWaitEvents, phWaitEvents);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendMemoryPrefetch(ze_command_list_handle_t hCommandList, const void* ptr, size_t) {
  return guarded([&] {
    the_list(hCommandList);
    check_pointer(ptr);  // all memory is resident: nothing to do
  });
}

ze_result_t CommandListAppendMemAdvise(ze_command_list_handle_t hCommandList, ze_device_handle_t hDevice,
                                       const void* ptr, size_t, ze_memory_advice_t advice) {
  return guarded([&] {
    the_list(hCommandList);
    check_device(hDevice);
    check_pointer(ptr);
    check(advice <= ZE_MEMORY_ADVICE_BIAS_UNCACHED, ZE_RESULT_ERROR_INVALID_ENUMERATION);
  });
}

ze_result_t CommandListAppendSignalEvent(ze_command_list_handle_t hCommandList, ze_event_handle_t hEvent) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    Command c;
    c.type = Command::Type::signal;
    c.signal = lookup<Event>(hEvent, Kind::event);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList, uint32_t numEvents,
                                          ze_event_handle_t* phEvents) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    check(numEvents > 0, ZE_RESULT_ERROR_INVALID_SIZE);
    check_pointer(phEvents);
    Command c;
    c.type = Command::Type::wait;
    resolve_events(c, nullptr, numEvents, phEvents);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendEventReset(ze_command_list_handle_t hCommandList, ze_event_handle_t hEvent) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    Command c;
    c.type = Command::Type::reset;
    c.signal = lookup<Event>(hEvent, Kind::event);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
                                          const ze_group_count_t* pLaunchFuncArgs,
                                          ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                          ze_event_handle_t* phWaitEvents) {
  return guarded([&] {
    std::shared_ptr<CommandList> list = the_list(hCommandList);
    std::shared_ptr<Kernel> kernel = lookup<Kernel>(hKernel, Kind::kernel);
    check_pointer(pLaunchFuncArgs);
    Command c;
    c.type = Command::Type::launch;
    {
      // Captured now: later zeKernelSetArgumentValue or zeKernelSetGroupSize calls do not
      // change this launch.
      std::lock_guard<std::mutex> lock(kernel->mutex);
      for (bool set : kernel->set) check(set, ZE_RESULT_ERROR_INVALID_ARGUMENT);  // an argument was never set
      c.arguments = kernel->arguments;
      c.group_size = kernel->group_size;
    }
    c.kernel = kernel;
    c.group_count = {pLaunchFuncArgs->groupCountX, pLaunchFuncArgs->groupCountY,
                     pLaunchFuncArgs->groupCountZ};
    resolve_events(c, hSignalEvent, numWaitEvents, phWaitEvents);
    append(*list, std::move(c));
  });
}

ze_result_t CommandListAppendLaunchCooperativeKernel(ze_command_list_handle_t hCommandList,
                                                     ze_kernel_handle_t hKernel,
                                                     const ze_group_count_t* pLaunchFuncArgs,
                                                     ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                     ze_event_handle_t* phWaitEvents) {
  return CommandListAppendLaunchKernel(hCommandList, hKernel, pLaunchFuncArgs, hSignalEvent, numWaitEvents,
                                       phWaitEvents);
}

}  // namespace api

}  // namespace ze_cpu
