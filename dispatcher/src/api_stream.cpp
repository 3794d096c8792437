// SPDX-License-Identifier: Apache-2.0
// C entry points: streams and events.
#include "api_guard.hpp"
#include "stream_event.hpp"

using namespace devplug::detail;

extern "C" {

DEVPLUG_API devplug_error_t* devplug_stream_create(devplug_device_t* device, devplug_stream_t** out_stream) {
  return guard([&] {
    require_not_null(out_stream, "out_stream");
    *out_stream = nullptr;
    require_handle(device, "device");
    *out_stream = create_stream(*device, /*is_default=*/false);
  });
}

DEVPLUG_API devplug_error_t* devplug_stream_destroy(devplug_stream_t* stream) {
  return guard([&] {
    if (stream == nullptr) return;
    require_handle(stream, "stream");
    if (stream->is_default) invalid_argument("stream is a device's default stream, which the device owns");
    destroy_stream(stream);
  });
}

DEVPLUG_API devplug_error_t* devplug_stream_synchronize(devplug_stream_t* stream) {
  return guard([&] {
    require_handle(stream, "stream");
    synchronize_stream(*stream);
  });
}

DEVPLUG_API devplug_error_t* devplug_stream_get_device(devplug_stream_t* stream,
                                                       devplug_device_t** out_device) {
  return guard([&] {
    require_not_null(out_device, "out_device");
    *out_device = nullptr;
    require_handle(stream, "stream");
    *out_device = stream->device;
  });
}

DEVPLUG_API devplug_error_t* devplug_event_create(devplug_device_t* device, devplug_event_t** out_event) {
  return guard([&] {
    require_not_null(out_event, "out_event");
    *out_event = nullptr;
    require_handle(device, "device");
    *out_event = create_event(*device);
  });
}

DEVPLUG_API devplug_error_t* devplug_event_destroy(devplug_event_t* event) {
  return guard([&] {
    if (event == nullptr) return;
    require_handle(event, "event");
    destroy_event(event);
  });
}

DEVPLUG_API devplug_error_t* devplug_event_record(devplug_event_t* event, devplug_stream_t* stream) {
  return guard([&] {
    require_handle(event, "event");
    require_handle(stream, "stream");
    record_event(*event, *stream);
  });
}

DEVPLUG_API devplug_error_t* devplug_stream_wait_event(devplug_stream_t* stream, devplug_event_t* event) {
  return guard([&] {
    require_handle(stream, "stream");
    require_handle(event, "event");
    wait_event(*stream, *event);
  });
}

DEVPLUG_API devplug_error_t* devplug_event_synchronize(devplug_event_t* event) {
  return guard([&] {
    require_handle(event, "event");
    synchronize_event(*event);
  });
}

DEVPLUG_API devplug_error_t* devplug_event_elapsed_ns(devplug_event_t* start, devplug_event_t* end,
                                                      int64_t* out_ns) {
  if (out_ns != nullptr) *out_ns = 0;
  return guard([&] {
    require_handle(start, "start");
    require_handle(end, "end");
    require_not_null(out_ns, "out_ns");
    *out_ns = elapsed_ns(*start, *end);
  });
}

}  // extern "C"
