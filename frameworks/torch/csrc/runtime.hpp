// SPDX-License-Identifier: Apache-2.0
// The bridge's view of devplug: one devplug context per process, the devices torch numbers
// devplug:0..N-1, each thread's current device and stream, and devplug errors turned into
// torch errors.
//
// The context is made on first use (loading plugins takes a moment, and `import torch`
// must stay cheap) and lives until the process ends: torch frees storages during
// interpreter shutdown, so everything they need stays alive. Thread-safety: the device
// list is fixed once made; current device and stream are per thread (as in CUDA).
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "devplug/devplug.hpp"

namespace devplug::bridge {

// One device torch sees: its plugin, and its streams (index 0 is the default stream; the
// others were made by torch and live as long as the process, as CUDA's pool does).
struct DeviceSlot {
  devplug::Device device;
  std::string plugin;
  std::string name;
  std::vector<devplug::Stream> streams;
};

class Runtime {
 public:
  // The process's runtime, made on first call. Throws a torch error when libdevplug cannot
  // make a context.
  static Runtime& get();
  // Whether get() already made it (no side effects). True in a child forked after the
  // parent made it, where get() throws.
  static bool exists() noexcept;

  c10::DeviceIndex device_count() const noexcept { return static_cast<c10::DeviceIndex>(slots_.size()); }
  // Throws a torch IndexError for an index out of range, naming what is available.
  const DeviceSlot& slot(c10::DeviceIndex index) const;
  const devplug::Device& device(c10::DeviceIndex index) const { return slot(index).device; }
  devplug::Context& context() { return context_; }
  // Why there are no devices: the plugins' own notes and load failures (for messages).
  const std::string& no_device_reason() const { return no_device_reason_; }
  // Whether the context was made strict (TORCH_DEVPLUG_STRICT=1): then devplug's own
  // per-prim CPU fallback is refused too.
  bool context_strict() const noexcept { return context_strict_; }

  // Streams: torch's stream id 0 is the device's default stream; other ids index the
  // streams made by new_stream.
  devplug::Stream stream(c10::DeviceIndex device, c10::StreamId id);
  c10::StreamId new_stream(c10::DeviceIndex device);

 private:
  Runtime();
  devplug::Context context_;
  std::vector<DeviceSlot> slots_;
  std::string no_device_reason_;
  bool context_strict_ = false;
  std::mutex streams_mutex_;  // guards DeviceSlot::streams
};

// Fork safety. The plugins' drivers keep threads, locks and device state that a forked
// child does not get in working order (an OpenCL, Level Zero or emulated GPU call in such a
// child waits forever), so a child forked after the runtime was made must not call a
// plugin: the runtime registers a pthread_atfork handler that marks such a child, get()
// then throws the error that says to use the 'spawn' start method, and what the child
// inherited (storages, events) is leaked instead of freed. A child forked before the
// runtime was made makes its own and works normally.
//
// Whether this process is a child forked after the runtime was made (in this process or an
// ancestor). Async-signal-safe.
bool in_bad_fork() noexcept;
// Throws the forked-subprocess RuntimeError when in_bad_fork().
void check_not_forked();
// The number of devplug devices, making the runtime if needed; in a forked child, the
// parent's count, with no plugin call (the devices exist; the child only cannot use them,
// as torch.cuda.device_count() answers in such a child).
c10::DeviceIndex device_count();

// The calling thread's current devplug device (0 unless set).
c10::DeviceIndex current_device() noexcept;
void set_current_device(c10::DeviceIndex index);
// The calling thread's current stream on `device` (the default stream unless set).
c10::Stream current_stream(c10::DeviceIndex device);
// Makes `stream` current for its device on this thread; returns the previous one.
c10::Stream exchange_stream(c10::Stream stream);
// The devplug stream ops on `device` go to: the current one.
devplug::Stream stream_for(c10::DeviceIndex device);

// Throws `error` as the matching torch error ("devplug INVALID_ARGUMENT: ..."):
// RESOURCE_EXHAUSTED is torch.OutOfMemoryError, UNIMPLEMENTED NotImplementedError,
// INVALID_ARGUMENT and OUT_OF_RANGE ValueError, anything else RuntimeError.
[[noreturn]] void throw_torch_error(const devplug::Error& error);

}  // namespace devplug::bridge
