// SPDX-License-Identifier: Apache-2.0
// Chrome trace-event JSON for DEVPLUG_TRACE (see trace.hpp), written with nlohmann-json. The
// format: an object with a "traceEvents" array of complete ("X") events, times in
// microseconds.
#include "trace.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace devplug::detail {
namespace {

// Nanoseconds as the trace format's microseconds.
double microseconds(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

// The span's device time in nanoseconds, or -1 when the plugin cannot say; destroys its
// events either way.
int64_t settle(const Trace::DeviceSpan& span) noexcept {
  if (span.start == nullptr || span.end == nullptr) return -1;
  int64_t ns = -1;
  if (devplug_error_t* e = span.timestamps->event_elapsed_ns(span.start, span.end, &ns)) {
    span.api->error_destroy(e);
    ns = -1;
  }
  if (devplug_error_t* e = span.api->event_destroy(span.start)) span.api->error_destroy(e);
  if (devplug_error_t* e = span.api->event_destroy(span.end)) span.api->error_destroy(e);
  return ns;
}

}  // namespace

uint64_t trace_now_ns() noexcept {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

std::unique_ptr<Trace> Trace::from_environment() {
  const char* path = std::getenv("DEVPLUG_TRACE");
  if (path == nullptr || *path == '\0') return nullptr;
  return std::make_unique<Trace>(path);
}

void Trace::record(devplug_op_t op, devplug_dtype_t dtype, std::string shapes, const std::string& plugin,
                   const char* path, uint64_t start_ns, uint64_t end_ns, DeviceSpan device) {
  const uint64_t thread = std::hash<std::thread::id>()(std::this_thread::get_id()) & 0x7fffffff;
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(Event{op, dtype, std::move(shapes), plugin, path, start_ns, end_ns, thread, device});
}

void Trace::write() noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    using json = nlohmann::ordered_json;  // keys in the order Chrome's viewer shows them
    json events = json::array();
    const long pid = static_cast<long>(getpid());
    for (Event& e : events_) {
      json args = {{"dtype", devplug_dtype_name(e.dtype)},
                   {"shapes", e.shapes},
                   {"plugin", e.plugin},
                   {"fallback", std::strcmp(e.path, "fallback") == 0 ? "yes" : "no"},
                   {"path", e.path}};
      const int64_t device_ns = settle(e.device);
      e.device = {};
      if (device_ns >= 0) args["device_us"] = microseconds(static_cast<uint64_t>(device_ns));
      events.push_back({{"name", devplug_op_name(e.op)},
                        {"cat", "op"},
                        {"ph", "X"},
                        {"ts", microseconds(e.start_ns)},
                        {"dur", microseconds(e.end_ns - e.start_ns)},
                        {"pid", pid},
                        {"tid", e.thread},
                        {"args", std::move(args)}});
    }
    const json root = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
    std::ofstream out(path_, std::ios::trunc);
    if (!out) {
      std::fprintf(stderr, "devplug: warning: cannot write the trace file %s\n", path_.c_str());
      return;
    }
    // Plugin names and shapes are the plugin's text: replace bytes that are not UTF-8.
    out << root.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    if (!out) std::fprintf(stderr, "devplug: warning: error writing the trace file %s\n", path_.c_str());
  } catch (...) {
    std::fprintf(stderr, "devplug: warning: out of memory writing the trace file %s\n", path_.c_str());
  }
}

}  // namespace devplug::detail
