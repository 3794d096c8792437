// SPDX-License-Identifier: Apache-2.0
// Stream and event entry points of the plugin (stream.cpp), called by the table's shims
// after the ABI's checks (sdk/plugin.hpp). A stream is an in-order cl_command_queue; an
// event holds the cl_event of the last marker recorded on it.
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

}  // namespace devplug::opencl
