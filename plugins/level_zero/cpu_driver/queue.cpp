// SPDX-License-Identifier: Apache-2.0
// Command queues: each runs its batches in order on its own thread, enqueuing kernels and
// copies on an in-order OpenCL queue and finishing it whenever an event, fence or the host
// must see the work done. Waiting for an event blocks only the queue's thread.
//
// A failure of asynchronous work (an OpenCL error) is sticky: later commands of the queue are
// skipped, every event and fence they would signal is signalled with the error (so nothing
// waits forever), and zeCommandQueueSynchronize reports it.
#include <algorithm>
#include <cstring>

#include "api.hpp"

namespace ze_cpu {

namespace {

struct QueueList {
  std::mutex mutex;
  std::vector<std::weak_ptr<Queue>> queues;
};

QueueList& queue_list() {
  static QueueList* list = new QueueList;  // never destroyed: queue threads may outlive statics
  return *list;
}

// Runs one launch: the captured arguments go to the kernel's cl_kernel (shared by every
// queue, so under its lock) and the NDRange is enqueued.
cl_int enqueue_launch(Queue& queue, const Command& c) {
  Kernel& kernel = *c.kernel;
  std::lock_guard<std::mutex> lock(kernel.cl_mutex);
  for (size_t i = 0; i < c.arguments.size(); ++i) {
    const KernelArgument& a = c.arguments[i];
    const cl_uint index = static_cast<cl_uint>(i);
    cl_int status = CL_SUCCESS;
    switch (a.type) {
      case KernelArgument::Type::local:
        status = clSetKernelArg(kernel.cl_kernel_handle, index, a.local_size, nullptr);
        break;
      case KernelArgument::Type::global: {
        void* pointer = nullptr;
        std::memcpy(&pointer, a.bytes.data(), sizeof pointer);
        status = clSetKernelArgSVMPointer(kernel.cl_kernel_handle, index, pointer);
        break;
      }
      case KernelArgument::Type::value:
        status = clSetKernelArg(kernel.cl_kernel_handle, index, a.bytes.size(), a.bytes.data());
        break;
    }
    if (status != CL_SUCCESS) return status;
  }
  size_t global[3], local[3];
  for (int d = 0; d < 3; ++d) {
    local[d] = c.group_size[d];
    global[d] = static_cast<size_t>(c.group_count[d]) * c.group_size[d];
  }
  if (global[0] == 0 || global[1] == 0 || global[2] == 0) return CL_SUCCESS;  // no groups: nothing to run
  return clEnqueueNDRangeKernel(queue.cl_queue, kernel.cl_kernel_handle, 3, nullptr, global, local, 0,
                                nullptr, nullptr);
}

// Runs `c` (its events already waited for); the result of the OpenCL work it enqueued.
cl_int run_command(Queue& queue, const Command& c) {
  switch (c.type) {
    case Command::Type::launch:
      return enqueue_launch(queue, c);
    case Command::Type::copy:
      if (c.size == 0) return CL_SUCCESS;
      return clEnqueueSVMMemcpy(queue.cl_queue, CL_FALSE, c.dst, c.src, c.size, 0, nullptr, nullptr);
    case Command::Type::fill:
      if (c.size == 0) return CL_SUCCESS;
      return clEnqueueSVMMemFill(queue.cl_queue, c.dst, c.pattern.data(), c.pattern.size(), c.size, 0,
                                 nullptr, nullptr);
    case Command::Type::timestamp: {
      const cl_int status = clFinish(queue.cl_queue);
      const uint64_t now = now_ns();
      std::memcpy(c.dst, &now, sizeof now);
      return status;
    }
    case Command::Type::reset: {
      const cl_int status = clFinish(queue.cl_queue);
      if (c.signal) {
        std::lock_guard<std::mutex> lock(c.signal->mutex);
        c.signal->signalled = false;
        c.signal->error = ZE_RESULT_SUCCESS;
      }
      return status;
    }
    case Command::Type::barrier:
    case Command::Type::signal:
    case Command::Type::wait:
      return CL_SUCCESS;  // the queue is in order; events are handled around the command
  }
  return CL_SUCCESS;
}

void run_batch(Queue& queue, const Batch& batch) {
  for (const Command& c : batch.commands) {
    ze_result_t error;
    {
      std::lock_guard<std::mutex> lock(queue.mutex);
      error = queue.error;
    }
    uint64_t start = now_ns();
    if (error == ZE_RESULT_SUCCESS) {
      for (const std::shared_ptr<Event>& e : c.wait) {
        if (!wait_signalled(*e, UINT64_MAX, &queue.stop)) return;  // the queue is being destroyed
      }
      // A kernel timestamp starts when the command starts, after what it waited for.
      if (!c.wait.empty()) start = now_ns();
      cl_int status = run_command(queue, c);
      if (status == CL_SUCCESS && c.signal && c.type != Command::Type::reset)
        status = clFinish(queue.cl_queue);
      if (status != CL_SUCCESS) {
        std::lock_guard<std::mutex> lock(queue.mutex);
        if (queue.error == ZE_RESULT_SUCCESS) queue.error = result_of_cl(status);
        error = queue.error;
      }
    }
    if (c.signal && c.type != Command::Type::reset) {
      {
        std::lock_guard<std::mutex> lock(c.signal->mutex);
        c.signal->start = start;
        c.signal->end = now_ns();
      }
      signal(*c.signal, error);
    }
  }
  const cl_int finished = clFinish(queue.cl_queue);
  ze_result_t error;
  {
    std::lock_guard<std::mutex> lock(queue.mutex);
    if (finished != CL_SUCCESS && queue.error == ZE_RESULT_SUCCESS) queue.error = result_of_cl(finished);
    error = queue.error;
  }
  if (batch.fence) signal(*batch.fence, error);
}

// The queue's thread. It owns a reference to its queue, so the queue lives until the thread
// has stopped (Queue::shutdown) and no teardown races with it.
void worker(std::shared_ptr<Queue> self) {
  Queue* queue = self.get();
  for (;;) {
    Batch batch;
    {
      std::unique_lock<std::mutex> lock(queue->mutex);
      queue->work_cv.wait(lock, [&] { return queue->stop.load() || !queue->pending.empty(); });
      if (queue->pending.empty()) return;  // stopped with nothing left
      batch = std::move(queue->pending.front());
      queue->pending.pop_front();
    }
    run_batch(*queue, batch);  // after shutdown, waits for events give up at once
    {
      std::lock_guard<std::mutex> lock(queue->mutex);
      queue->completed = batch.sequence;
    }
    queue->done_cv.notify_all();
    batch = Batch{};  // drop the objects it kept alive before collecting frees
    collect_deferred_frees();
  }
}

}  // namespace

void Queue::shutdown() {
  stop = true;
  work_cv.notify_all();
  if (worker.joinable() && worker.get_id() != std::this_thread::get_id()) worker.join();
}

Queue::~Queue() {
  // The last reference goes with the queue's own thread, as it ends.
  if (worker.joinable()) worker.detach();
  if (cl_queue != nullptr) clReleaseCommandQueue(cl_queue);
}

std::shared_ptr<Queue> make_queue(const std::shared_ptr<Context>& context, ze_command_queue_mode_t mode) {
  const Device& d = the_device();
  auto queue = std::make_shared<Queue>();
  queue->context = context;
  queue->mode = mode;
  cl_int status = CL_SUCCESS;
  queue->cl_queue = clCreateCommandQueueWithProperties(d.cl_context_handle, d.id, nullptr, &status);
  check(status == CL_SUCCESS, result_of_cl(status));
  queue->worker = std::thread(worker, queue);
  QueueList& list = queue_list();
  std::lock_guard<std::mutex> lock(list.mutex);
  list.queues.erase(std::remove_if(list.queues.begin(), list.queues.end(),
                                   [](const std::weak_ptr<Queue>& q) { return q.expired(); }),
                    list.queues.end());
  list.queues.push_back(queue);
  return queue;
}

std::vector<std::shared_ptr<Queue>> live_queues() {
  std::vector<std::shared_ptr<Queue>> out;
  QueueList& list = queue_list();
  std::lock_guard<std::mutex> lock(list.mutex);
  for (const auto& weak : list.queues)
    if (std::shared_ptr<Queue> q = weak.lock()) out.push_back(std::move(q));
  return out;
}

uint64_t submit(Queue& queue, Batch batch) {
  uint64_t sequence;
  {
    std::lock_guard<std::mutex> lock(queue.mutex);
    sequence = batch.sequence = ++queue.submitted;
    queue.pending.push_back(std::move(batch));
  }
  queue.work_cv.notify_one();
  return sequence;
}

bool wait_for(Queue& queue, uint64_t sequence, uint64_t timeout_ns) {
  std::unique_lock<std::mutex> lock(queue.mutex);
  auto ready = [&] { return queue.completed >= sequence; };
  if (ready()) return true;
  if (timeout_ns == 0) return false;
  if (timeout_ns == UINT64_MAX) {
    queue.done_cv.wait(lock, ready);
    return true;
  }
  return queue.done_cv.wait_for(lock, std::chrono::nanoseconds(timeout_ns), ready);
}

}  // namespace ze_cpu
