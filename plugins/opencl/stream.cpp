// SPDX-License-Identifier: Apache-2.0
// Streams (in-order command queues) and events (markers). The table's shims
// (sdk/plugin.hpp) have checked the handles and devices before these run.
#include "stream.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "devplug/sdk/index_status.hpp"
#include "opencl_status.hpp"

namespace devplug::opencl {

struct HostStamp {
  std::mutex mutex;
  std::condition_variable cv;
  bool set = false;
  int64_t ns = 0;
};

bool want_profiling(const DeviceInfo& info) {
  const char* knob = std::getenv("DEVPLUG_OPENCL_PROFILING");
  return info.profiling && (knob == nullptr || std::strcmp(knob, "0") != 0);
}

devplug_stream_handle_t* stream_create(devplug_device_handle_t* device) {
  cl_int status = CL_SUCCESS;
  bool profiling = device->profiling;
  cl_command_queue queue = cl().clCreateCommandQueue(device->context, device->info.id,
                                                     profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &status);
  if (status == CL_INVALID_QUEUE_PROPERTIES && profiling) {
    // The device said it profiles but refuses: its events are timed by the host instead.
    profiling = false;
    queue = cl().clCreateCommandQueue(device->context, device->info.id, 0, &status);
  }
  DEVPLUG_CL_STATUS(clCreateCommandQueue, status, "creating a stream");
  auto* stream = new devplug_stream_handle_t;
  stream->device = device;
  stream->queue = queue;
  stream->profiling = profiling;
  return stream;
}

namespace {

// Reads the stream's index status block when an index kernel ran since the last look, clears
// it, and throws INVALID_ARGUMENT when a kernel recorded a bad index (sdk/index_status.hpp).
// The queue has finished.
void check_index_status(devplug_stream_handle_t* stream) {
  if (stream->index_status == nullptr || !stream->index_status_armed.exchange(false)) return;
  sdk::IndexStatus found{};
  DEVPLUG_CL_CALL(
      clEnqueueReadBuffer,
      (stream->queue, stream->index_status, CL_TRUE, 0, sizeof found, &found, 0, nullptr, nullptr),
      "reading the index status block");
  if (found.op == 0) return;
  const sdk::IndexStatus zero{};
  DEVPLUG_CL_CALL(clEnqueueWriteBuffer,
                  (stream->queue, stream->index_status, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr),
                  "clearing the index status block");
  sdk::throw_index_status(found);
}

}  // namespace

void stream_destroy(devplug_stream_handle_t* stream) {
  const cl_int finished = cl().clFinish(stream->queue);
  const std::exception_ptr index_error =
      finished == CL_SUCCESS ? sdk::index_error_of([&] { check_index_status(stream); }) : nullptr;
  if (stream->index_status != nullptr) cl().clReleaseMemObject(stream->index_status);
  cl().clReleaseCommandQueue(stream->queue);
  delete stream;
  if (finished != CL_SUCCESS) fail_cl("clFinish", finished, "destroying a stream", __FILE__, __LINE__);
  if (index_error) std::rethrow_exception(index_error);
}

void stream_synchronize(devplug_stream_handle_t* stream) {
  DEVPLUG_CL_CALL(clFinish, (stream->queue), "synchronizing a stream");
  check_index_status(stream);
}

devplug_event_handle_t* event_create(devplug_device_handle_t* device) {
  auto* event = new devplug_event_handle_t;
  event->device = device;
  return event;
}

void event_destroy(devplug_event_handle_t* event) {
  if (event->event != nullptr) cl().clReleaseEvent(event->event);
  delete event;
}

namespace {

int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A marker's completion callback on a queue without profiling: `data` is a heap-held
// reference to the marker's HostStamp, released here.
void CL_CALLBACK stamp_completion(cl_event, cl_int, void* data) {
  const int64_t now = host_now_ns();
  auto* stamp = static_cast<std::shared_ptr<HostStamp>*>(data);
  {
    std::lock_guard<std::mutex> lock((*stamp)->mutex);
    (*stamp)->ns = now;
    (*stamp)->set = true;
  }
  (*stamp)->cv.notify_all();
  delete stamp;
}

}  // namespace

void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
  cl_event marker = nullptr;
  DEVPLUG_CL_CALL(clEnqueueMarkerWithWaitList, (stream->queue, 0, nullptr, &marker), "recording an event");
  std::shared_ptr<HostStamp> stamp;
  if (!stream->profiling) {
    stamp = std::make_shared<HostStamp>();
    auto* reference = new std::shared_ptr<HostStamp>(stamp);
    const cl_int status = cl().clSetEventCallback(marker, CL_COMPLETE, stamp_completion, reference);
    if (status != CL_SUCCESS) {
      delete reference;
      cl().clReleaseEvent(marker);
      fail_cl("clSetEventCallback", status, "timing an event", __FILE__, __LINE__);
    }
  }
  // Markers only start once the queue is flushed; another queue may wait on this one.
  cl().clFlush(stream->queue);
  std::lock_guard<std::mutex> lock(event->mutex);
  if (event->event != nullptr) cl().clReleaseEvent(event->event);
  event->event = marker;
  event->host_stamp = std::move(stamp);
}

void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
  std::lock_guard<std::mutex> lock(event->mutex);
  if (event->event == nullptr) return;  // never recorded: complete
  DEVPLUG_CL_CALL(clEnqueueBarrierWithWaitList, (stream->queue, 1, &event->event, nullptr),
                  "making a stream wait for an event");
}

void event_synchronize(devplug_event_handle_t* event) {
  std::lock_guard<std::mutex> lock(event->mutex);
  if (event->event == nullptr) return;
  DEVPLUG_CL_CALL(clWaitForEvents, (1, &event->event), "waiting for an event");
}

namespace {

// An event's last marker, held (retained) so that a concurrent record cannot release it.
class Recorded {
 public:
  Recorded(devplug_event_handle_t* event, const char* which) {
    std::lock_guard<std::mutex> lock(event->mutex);
    if (event->event == nullptr)
      sdk::fail(DEVPLUG_CODE_FAILED_PRECONDITION,
                std::string("event_elapsed_ns: `") + which + "` was never recorded");
    DEVPLUG_CL_CALL(clRetainEvent, (event->event), "holding an event's marker");
    marker_ = event->event;
    stamp_ = event->host_stamp;
  }
  ~Recorded() { cl().clReleaseEvent(marker_); }
  Recorded(const Recorded&) = delete;
  Recorded& operator=(const Recorded&) = delete;

  cl_event marker() const { return marker_; }
  bool device_timed() const { return stamp_ == nullptr; }

  // The marker's time (it has completed): the device's end time, or the host's stamp.
  int64_t time_ns() const {
    if (stamp_ == nullptr) {
      cl_ulong end = 0;
      DEVPLUG_CL_CALL(clGetEventProfilingInfo, (marker_, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
                      "reading an event's time");
      return static_cast<int64_t>(end);
    }
    // The callback may run a little after the wait for the marker returned.
    std::unique_lock<std::mutex> lock(stamp_->mutex);
    stamp_->cv.wait(lock, [&] { return stamp_->set; });
    return stamp_->ns;
  }

 private:
  cl_event marker_ = nullptr;
  std::shared_ptr<HostStamp> stamp_;
};

}  // namespace

int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end) {
  const Recorded first(start, "start");
  const Recorded last(end, "end");
  if (first.device_timed() != last.device_timed())
    sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED,
              "event_elapsed_ns: one event was timed by the device (a queue with profiling) and the other by "
              "the host (a queue without): their times cannot be compared");
  const cl_event both[2] = {first.marker(), last.marker()};
  DEVPLUG_CL_CALL(clWaitForEvents, (2, both), "waiting for the events to time");
  // Device times are unsigned nanoseconds of one clock: the difference wraps to the signed
  // result, negative when `end` was reached first.
  return static_cast<int64_t>(static_cast<uint64_t>(last.time_ns()) - static_cast<uint64_t>(first.time_ns()));
}

}  // namespace devplug::opencl
