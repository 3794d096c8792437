// SPDX-License-Identifier: Apache-2.0
// Chrome trace-event output: with DEVPLUG_TRACE=file.json every op call becomes an "X"
// (complete) event named after the op with its dtype, shapes, plugin and how it ran
// ("kernel", "fallback", or for a composite "native" or "decomposed", whose prims are
// events nested inside it), and, where the plugin offers the event_timestamps extension,
// the time the device spent on it ("device_us", between two events recorded around the
// kernel on its stream). The file is written when the context is destroyed, before any
// plugin unloads, and whenever the host asks (devplug_context_write_trace), each time with
// every event so far; the device times are read then, so tracing never waits for the device
// in between.
// When DEVPLUG_TRACE is unset the context holds no Trace and dispatch pays a single null
// check. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devplug/devplug.h"

namespace devplug::detail {

// Monotonic time in nanoseconds.
uint64_t trace_now_ns() noexcept;

// Two events of one device recorded around an op's work on its stream, through the plugin's
// event_timestamps extension; the trace destroys them once it has read them.
struct TraceDeviceSpan {
  const devplug_plugin_api_t* api = nullptr;
  const devplug_ext_event_timestamps_t* timestamps = nullptr;
  devplug_event_handle_t* start = nullptr;
  devplug_event_handle_t* end = nullptr;
};

class Trace {
 public:
  // A Trace writing to $DEVPLUG_TRACE, or NULL when it is unset or empty.
  static std::unique_ptr<Trace> from_environment();

  explicit Trace(std::string path) : path_(std::move(path)) {}

  using DeviceSpan = TraceDeviceSpan;

  // Records one op call that ran from `start_ns` to `end_ns` (host time of the enqueue);
  // `path` is a static string: "kernel", "fallback", "native" or "decomposed". `device`,
  // when its events are set, is the op's span on the device, now the trace's to destroy.
  void record(devplug_op_t op, devplug_dtype_t dtype, std::string shapes, const std::string& plugin,
              const char* path, uint64_t start_ns, uint64_t end_ns, DeviceSpan device = {});
  // Reads the device spans, destroys their events, and writes the JSON file; reports a
  // failure on stderr (nothing may throw at destruction).
  void write() noexcept;

 private:
  struct Event {
    devplug_op_t op;
    devplug_dtype_t dtype;
    std::string shapes;
    std::string plugin;
    const char* path;
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t thread;
    DeviceSpan device;
  };
  std::string path_;
  mutable std::mutex mutex_;
  std::vector<Event> events_;
};

}  // namespace devplug::detail
