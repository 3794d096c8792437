// SPDX-License-Identifier: Apache-2.0
// The profiler's one hook in the rest of the bridge (profiler.cpp has the profiler): every
// kernel and storage copy takes its stream from stream_for (runtime.cpp), which tells the
// profiler which op uses which devplug stream, so that only ops that use a device get
// device time, and each gets its own.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include <atomic>

#include "devplug/devplug.hpp"

namespace devplug::bridge {

// Whether a Kineto session with devplug device activities is recording. Set by
// profiler.cpp; read with one relaxed load on every stream_for.
extern std::atomic<bool> g_profiler_recording;

// Tells the recording session that the op running on this thread (the innermost one torch
// gave a correlation id) uses `stream` (torch stream id `id`) of `device`: the op's device
// time on that stream is measured from here to the op's end. Never throws (a failure is
// reported among the session's errors). Thread-safe.
void profiler_note_stream_use_slow(c10::DeviceIndex device, c10::StreamId id,
                                   const devplug::Stream& stream) noexcept;

inline void profiler_note_stream_use(c10::DeviceIndex device, c10::StreamId id,
                                     const devplug::Stream& stream) noexcept {
  if (g_profiler_recording.load(std::memory_order_relaxed)) profiler_note_stream_use_slow(device, id, stream);
}

// Writes devplug's DEVPLUG_TRACE file now, with every op call so far
// (devplug_context_write_trace); false when DEVPLUG_TRACE was unset or nothing ran yet.
bool write_trace();

}  // namespace devplug::bridge
