// Streams (in-order command queues) and events (markers).
#include "stream.hpp"

#include "opencl_status.hpp"

namespace devplug::opencl {

devplug_error_t* stream_create(devplug_device_handle_t* device, devplug_stream_handle_t** out_stream) {
  if (out_stream != nullptr) *out_stream = nullptr;
  return sdk::guard([&] {
    sdk::check_not_null(device, "device");
    sdk::check_not_null(out_stream, "out_stream");
    cl_int status = CL_SUCCESS;
    cl_command_queue queue = cl().clCreateCommandQueue(device->context, device->info.id, 0, &status);
    DEVPLUG_CL_STATUS(clCreateCommandQueue, status, "creating a stream");
    auto* stream = new devplug_stream_handle_t;
    stream->device = device;
    stream->queue = queue;
    *out_stream = stream;
  });
}

devplug_error_t* stream_destroy(devplug_stream_handle_t* stream) {
  return sdk::guard([&] {
    sdk::check_not_null(stream, "stream");
    const cl_int finished = cl().clFinish(stream->queue);
    cl().clReleaseCommandQueue(stream->queue);
    delete stream;
    if (finished != CL_SUCCESS) fail_cl("clFinish", finished, "destroying a stream", __FILE__, __LINE__);
  });
}

devplug_error_t* stream_synchronize(devplug_stream_handle_t* stream) {
  return sdk::guard([&] {
    sdk::check_not_null(stream, "stream");
    DEVPLUG_CL_CALL(clFinish, (stream->queue), "synchronizing a stream");
  });
}

devplug_error_t* event_create(devplug_device_handle_t* device, devplug_event_handle_t** out_event) {
  if (out_event != nullptr) *out_event = nullptr;
  return sdk::guard([&] {
    sdk::check_not_null(device, "device");
    sdk::check_not_null(out_event, "out_event");
    auto* event = new devplug_event_handle_t;
    event->device = device;
    *out_event = event;
  });
}

devplug_error_t* event_destroy(devplug_event_handle_t* event) {
  return sdk::guard([&] {
    sdk::check_not_null(event, "event");
    if (event->event != nullptr) cl().clReleaseEvent(event->event);
    delete event;
  });
}

devplug_error_t* event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
  return sdk::guard([&] {
    sdk::check_not_null(event, "event");
    sdk::check_not_null(stream, "stream");
    sdk::check_argument(event->device == stream->device, "event_record: event and stream belong to different devices");
    cl_event marker = nullptr;
    DEVPLUG_CL_CALL(clEnqueueMarkerWithWaitList, (stream->queue, 0, nullptr, &marker), "recording an event");
    // Markers only start once the queue is flushed; another queue may wait on this one.
    cl().clFlush(stream->queue);
    std::lock_guard<std::mutex> lock(event->mutex);
    if (event->event != nullptr) cl().clReleaseEvent(event->event);
    event->event = marker;
  });
}

devplug_error_t* stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
  return sdk::guard([&] {
    sdk::check_not_null(stream, "stream");
    sdk::check_not_null(event, "event");
    sdk::check_argument(event->device == stream->device, "stream_wait_event: event and stream belong to different devices");
    std::lock_guard<std::mutex> lock(event->mutex);
    if (event->event == nullptr) return;  // never recorded: complete
    DEVPLUG_CL_CALL(clEnqueueBarrierWithWaitList, (stream->queue, 1, &event->event, nullptr),
                    "making a stream wait for an event");
  });
}

devplug_error_t* event_synchronize(devplug_event_handle_t* event) {
  return sdk::guard([&] {
    sdk::check_not_null(event, "event");
    cl_event marker = nullptr;
    {
      std::lock_guard<std::mutex> lock(event->mutex);
      marker = event->event;
      if (marker == nullptr) return;
      DEVPLUG_CL_CALL(clWaitForEvents, (1, &marker), "waiting for an event");
    }
  });
}

}  // namespace devplug::opencl
