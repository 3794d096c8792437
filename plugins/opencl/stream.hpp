// SPDX-License-Identifier: Apache-2.0
// Stream and event entry points of the plugin (stream.cpp), called by the table's shims
// after the ABI's checks (sdk/plugin.hpp). A stream is an in-order cl_command_queue; an
// event holds the cl_event of the last marker recorded on it.
//
// Event timestamps (the event_timestamps extension): queues are made with
// CL_QUEUE_PROFILING_ENABLE where the device supports it, and the time of an event is
// CL_PROFILING_COMMAND_END of its marker, in the device's clock. On a queue without profiling
// (a device without it, or DEVPLUG_OPENCL_PROFILING=0, read when a device is opened: for
// tests and measurements) the time is the host's steady clock read by the marker's
// completion callback instead, which is later than the device's end by the runtime's
// notification latency. Two events whose markers were timed by different clocks cannot be
// compared (UNIMPLEMENTED); a device's queues all use the same one.
#pragma once

#include "objects.hpp"

namespace devplug::opencl {

devplug_stream_handle_t* stream_create(devplug_device_handle_t* device);
void stream_destroy(devplug_stream_handle_t* stream);
void stream_synchronize(devplug_stream_handle_t* stream);
devplug_event_handle_t* event_create(devplug_device_handle_t* device);
void event_destroy(devplug_event_handle_t* event);
void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream);
void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event);
void event_synchronize(devplug_event_handle_t* event);
int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end);

// Whether streams of a device described by `info` are made with profiling.
bool want_profiling(const DeviceInfo& info);

}  // namespace devplug::opencl
