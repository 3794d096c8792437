// SPDX-License-Identifier: Apache-2.0
// Streams and events as the host sees them: thin wrappers over the plugin's handles that
// remember their device. A stream is used by one thread at a time (devplug.h).
#pragma once

#include <atomic>
#include <thread>

#include "call_cache.hpp"
#include "device.hpp"

namespace devplug::detail {
struct Capture;
}

struct devplug_stream_t {
  static constexpr uint32_t kMagic = 0x5354524d;  // "STRM"
  static constexpr const char* kKind = "stream";
  uint32_t magic = kMagic;
  devplug_device_t* device = nullptr;
  devplug_stream_handle_t* native = nullptr;
  bool is_default = false;                   // owned by the device, never destroyed by the host
  devplug::detail::ValidatedCall last_call;  // the last prim call validated on this stream
  // The graph capture in progress (graph.hpp), or NULL. Mutable: any use of the stream that
  // a graph cannot record ends it, the const paths included.
  mutable devplug::detail::Capture* capture = nullptr;
  // The thread that began it (none when not capturing), readable from any thread.
  mutable std::atomic<std::thread::id> capture_thread{};
  devplug_stream_t* live_prev = nullptr;
  devplug_stream_t* live_next = nullptr;
};

struct devplug_event_t {
  static constexpr uint32_t kMagic = 0x45564e54;  // "EVNT"
  static constexpr const char* kKind = "event";
  uint32_t magic = kMagic;
  devplug_device_t* device = nullptr;
  devplug_event_handle_t* native = nullptr;
  devplug_event_t* live_prev = nullptr;
  devplug_event_t* live_next = nullptr;
};

namespace devplug::detail {

// Makes a stream on `device` (opening it) and records it on the device. Throws.
devplug_stream_t* create_stream(devplug_device_t& device, bool is_default);
// Destroys a stream made by create_stream (waits for its work). Throws the plugin's error,
// after freeing the host object.
void destroy_stream(devplug_stream_t* stream);
void synchronize_stream(const devplug_stream_t& stream);

devplug_event_t* create_event(devplug_device_t& device);
void destroy_event(devplug_event_t* event);
void record_event(devplug_event_t& event, devplug_stream_t& stream);
// Makes `stream` wait for `event`: on the plugin when both belong to it, else the host waits.
void wait_event(devplug_stream_t& stream, devplug_event_t& event);
void synchronize_event(const devplug_event_t& event);
// The device time from `start` to `end` in nanoseconds, through the plugin's event_timestamps
// extension (UNIMPLEMENTED without it); both events of one device.
int64_t elapsed_ns(const devplug_event_t& start, const devplug_event_t& end);

}  // namespace devplug::detail
