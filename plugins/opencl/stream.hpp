// Stream and event entry points of the plugin table (stream.cpp). A stream is an in-order
// cl_command_queue; an event holds the cl_event of the last marker recorded on it.
#pragma once

#include "objects.hpp"

namespace devplug::opencl {

devplug_error_t* stream_create(devplug_device_handle_t* device, devplug_stream_handle_t** out_stream);
devplug_error_t* stream_destroy(devplug_stream_handle_t* stream);
devplug_error_t* stream_synchronize(devplug_stream_handle_t* stream);
devplug_error_t* event_create(devplug_device_handle_t* device, devplug_event_handle_t** out_event);
devplug_error_t* event_destroy(devplug_event_handle_t* event);
devplug_error_t* event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream);
devplug_error_t* stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event);
devplug_error_t* event_synchronize(devplug_event_handle_t* event);

}  // namespace devplug::opencl
