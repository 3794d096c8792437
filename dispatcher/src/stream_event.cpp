// SPDX-License-Identifier: Apache-2.0
// Host streams and events over the plugin's, listed on their device so that a context
// destroys what the host forgot.
#include "stream_event.hpp"

#include "api_guard.hpp"
#include "devplug/sdk/fault.hpp"
#include "graph.hpp"
#include "plugin_record.hpp"

namespace devplug::detail {

devplug_stream_t* create_stream(devplug_device_t& device, bool is_default) {
  devplug_device_handle_t* handle = device.open();
  const devplug_plugin_t& plugin = *device.plugin;
  devplug_stream_handle_t* native = nullptr;
  check_plugin(plugin, plugin.api->stream_create(handle, &native), "stream_create");
  auto* stream = sdk::allocation_fails() ? nullptr : new (std::nothrow) devplug_stream_t();
  if (stream == nullptr) {
    drop_plugin_error(plugin, plugin.api->stream_destroy(native));
    throw std::bad_alloc();
  }
  stream->device = &device;
  stream->native = native;
  stream->is_default = is_default;
  std::lock_guard<std::mutex> lock(device.mutex);
  device.streams.insert(stream);
  return stream;
}

void destroy_stream(devplug_stream_t* stream) {
  devplug_device_t& device = *stream->device;
  abandon_capture(*stream);
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    device.streams.remove(stream);
  }
  devplug_stream_handle_t* native = stream->native;
  stream->magic = 0;
  delete stream;
  check_plugin(*device.plugin, device.plugin->api->stream_destroy(native), "stream_destroy");
}

void synchronize_stream(const devplug_stream_t& stream) {
  refuse_in_capture(stream, "a synchronize");
  const devplug_plugin_t& plugin = *stream.device->plugin;
  check_plugin(plugin, plugin.api->stream_synchronize(stream.native), "stream_synchronize");
}

devplug_event_t* create_event(devplug_device_t& device) {
  devplug_device_handle_t* handle = device.open();
  const devplug_plugin_t& plugin = *device.plugin;
  devplug_event_handle_t* native = nullptr;
  check_plugin(plugin, plugin.api->event_create(handle, &native), "event_create");
  auto* event = sdk::allocation_fails() ? nullptr : new (std::nothrow) devplug_event_t();
  if (event == nullptr) {
    drop_plugin_error(plugin, plugin.api->event_destroy(native));
    throw std::bad_alloc();
  }
  event->device = &device;
  event->native = native;
  std::lock_guard<std::mutex> lock(device.mutex);
  device.events.insert(event);
  return event;
}

void destroy_event(devplug_event_t* event) {
  devplug_device_t& device = *event->device;
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    device.events.remove(event);
  }
  devplug_event_handle_t* native = event->native;
  event->magic = 0;
  delete event;
  check_plugin(*device.plugin, device.plugin->api->event_destroy(native), "event_destroy");
}

void record_event(devplug_event_t& event, devplug_stream_t& stream) {
  if (event.device != stream.device)
    invalid_argument(
        "event and stream belong to different devices (an event records on a stream of its own device)");
  refuse_in_capture(stream, "an event record");
  const devplug_plugin_t& plugin = *stream.device->plugin;
  check_plugin(plugin, plugin.api->event_record(event.native, stream.native), "event_record");
}

void wait_event(devplug_stream_t& stream, devplug_event_t& event) {
  refuse_in_capture(stream, "an event wait");
  const devplug_plugin_t& plugin = *stream.device->plugin;
  if (event.device == stream.device) {
    check_plugin(plugin, plugin.api->stream_wait_event(stream.native, event.native), "stream_wait_event");
    return;
  }
  // Another device's event: plugin_api.h lets a plugin order only streams and events of one
  // device, so the host waits for it.
  synchronize_event(event);
}

void synchronize_event(const devplug_event_t& event) {
  const devplug_plugin_t& plugin = *event.device->plugin;
  check_plugin(plugin, plugin.api->event_synchronize(event.native), "event_synchronize");
}

int64_t elapsed_ns(const devplug_event_t& start, const devplug_event_t& end) {
  if (start.device != end.device)
    invalid_argument("start and end belong to different devices (elapsed time is measured on one device)");
  const devplug_plugin_t& plugin = *start.device->plugin;
  if (plugin.event_timestamps == nullptr)
    throw Error(
        DEVPLUG_CODE_UNIMPLEMENTED,
        "plugin " + plugin.name + " does not measure events (it offers no event_timestamps extension)");
  int64_t ns = 0;
  check_plugin(plugin, plugin.event_timestamps->event_elapsed_ns(start.native, end.native, &ns),
               "event_elapsed_ns");
  return ns;
}

}  // namespace devplug::detail
