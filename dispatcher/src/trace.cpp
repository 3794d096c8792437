// SPDX-License-Identifier: Apache-2.0
// Chrome trace-event JSON for DEVPLUG_TRACE (see trace.hpp). The format: an object with a
// "traceEvents" array of complete ("X") events, times in microseconds.
#include "trace.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>
#include <unistd.h>

namespace devplug::detail {
namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string microseconds(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                static_cast<unsigned long long>(ns % 1000));
  return text;
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
                   const char* path, uint64_t start_ns, uint64_t end_ns) {
  const uint64_t thread = std::hash<std::thread::id>()(std::this_thread::get_id()) & 0x7fffffff;
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(Event{op, dtype, std::move(shapes), plugin, path, start_ns, end_ns, thread});
}

void Trace::write() const noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    std::ofstream out(path_, std::ios::trunc);
    if (!out) {
      std::fprintf(stderr, "devplug: warning: cannot write the trace file %s\n", path_.c_str());
      return;
    }
    const long pid = static_cast<long>(getpid());
    out << "{\"traceEvents\":[";
    for (size_t i = 0; i < events_.size(); ++i) {
      const Event& e = events_[i];
      out << (i == 0 ? "\n" : ",\n") << "{\"name\":" << json_string(devplug_op_name(e.op))
          << ",\"cat\":\"op\",\"ph\":\"X\",\"ts\":" << microseconds(e.start_ns)
          << ",\"dur\":" << microseconds(e.end_ns - e.start_ns) << ",\"pid\":" << pid
          << ",\"tid\":" << e.thread << ",\"args\":{\"dtype\":" << json_string(devplug_dtype_name(e.dtype))
          << ",\"shapes\":" << json_string(e.shapes) << ",\"plugin\":" << json_string(e.plugin)
          << ",\"fallback\":\"" << (std::strcmp(e.path, "fallback") == 0 ? "yes" : "no") << "\""
          << ",\"path\":\"" << e.path << "\"}}";
    }
    out << "\n],\"displayTimeUnit\":\"ns\"}\n";
    if (!out) std::fprintf(stderr, "devplug: warning: error writing the trace file %s\n", path_.c_str());
  } catch (...) {
    std::fprintf(stderr, "devplug: warning: out of memory writing the trace file %s\n", path_.c_str());
  }
}

}  // namespace devplug::detail
