// SPDX-License-Identifier: Apache-2.0
// Streams (in-order command queues) and events (markers). The table's shims
// (sdk/plugin.hpp) have checked the handles and devices before these run.
#include "stream.hpp"

#include <exception>

#include "devplug/sdk/index_status.hpp"
#include "opencl_status.hpp"

namespace devplug::opencl {

devplug_stream_handle_t* stream_create(devplug_device_handle_t* device) {
  cl_int status = CL_SUCCESS;
  cl_command_queue queue = cl().clCreateCommandQueue(device->context, device->info.id, 0, &status);
  DEVPLUG_CL_STATUS(clCreateCommandQueue, status, "creating a stream");
  auto* stream = new devplug_stream_handle_t;
  stream->device = device;
  stream->queue = queue;
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

void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
  cl_event marker = nullptr;
  DEVPLUG_CL_CALL(clEnqueueMarkerWithWaitList, (stream->queue, 0, nullptr, &marker), "recording an event");
  // Markers only start once the queue is flushed; another queue may wait on this one.
  cl().clFlush(stream->queue);
  std::lock_guard<std::mutex> lock(event->mutex);
  if (event->event != nullptr) cl().clReleaseEvent(event->event);
  event->event = marker;
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

}  // namespace devplug::opencl
