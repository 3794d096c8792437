// SPDX-License-Identifier: Apache-2.0
// The objects behind the emulated runtime's handles: devices, streams (an in-order queue with
// its own worker thread), events and the markers that complete when a stream reaches them.
// Internal to the gpu_emulated plugin; the API over them is emu_runtime.hpp.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu_runtime.hpp"

namespace devplug::gpu::emu {

class Stream;

// A point in a stream: done once the stream has run everything enqueued before it, at the
// host steady-clock time it records then (the emulated device's timer, for event timing).
// Thread-safe.
class Marker {
 public:
  void complete();
  void wait();
  bool done();
  // Nanoseconds of std::chrono::steady_clock when it completed; valid once done().
  int64_t time_ns();

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  int64_t time_ns_ = 0;
};

// One emulated GPU. Lives as long as the process (the runtime's objects are never destroyed,
// so streams that outlive the host's last call cannot touch freed state at exit).
class Device {
 public:
  Device(int index, size_t memory_bytes) : index_(index), memory_bytes_(memory_bytes) {}

  int index() const { return index_; }
  size_t memory_bytes() const { return memory_bytes_; }

  // Reserves `bytes` of the device's memory; false when it would exceed the total.
  bool reserve(size_t bytes);
  void unreserve(size_t bytes);

  // The sticky fault of this device (emuSuccess while healthy): once a kernel fails, every
  // later call touching the device returns it, as CUDA's sticky errors.
  emuError_t fault() const;
  void set_fault(emuError_t error, const std::string& what);
  // What caused the sticky fault ("" while healthy); fixed once set.
  std::string fault_what() const;

  void add_stream(const std::shared_ptr<Stream>& stream);
  void remove_stream(const Stream* stream);
  // The legacy default stream (the null stream), made on first use.
  Stream* legacy_stream();
  // The blocking streams (made without emuStreamNonBlocking) other than the legacy one.
  std::vector<std::shared_ptr<Stream>> blocking_streams();
  // Waits for every stream of the device.
  void synchronize();

 private:
  const int index_;
  const size_t memory_bytes_;
  mutable std::mutex mutex_;
  size_t used_bytes_ = 0;
  emuError_t fault_ = emuSuccess;
  std::string fault_what_;
  std::vector<std::shared_ptr<Stream>> streams_;
  std::once_flag legacy_once_;
  std::shared_ptr<Stream> legacy_;
};

// An in-order queue of work run by its own thread. enqueue may be called from any thread;
// work runs in enqueue order, each piece after the previous one has finished.
class Stream : public std::enable_shared_from_this<Stream> {
 public:
  using Work = std::function<void()>;

  // Makes a stream and starts its thread; the device keeps it until it is destroyed and
  // drained.
  static std::shared_ptr<Stream> create(Device* device, unsigned flags, bool legacy);
  ~Stream();

  Device* device() const { return device_; }
  bool blocking() const { return (flags_ & emuStreamNonBlocking) == 0; }
  bool legacy() const { return legacy_; }

  void enqueue(Work work);
  // A marker that completes when the stream reaches this point.
  std::shared_ptr<Marker> mark();
  // Whether work enqueued before this call is still pending.
  bool pending();
  void synchronize();
  // Lets the queued work finish, then the thread ends and the device drops the stream.
  void destroy();

 private:
  Stream(Device* device, unsigned flags, bool legacy) : device_(device), flags_(flags), legacy_(legacy) {}
  void run();

  Device* const device_;
  const unsigned flags_;
  const bool legacy_;
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<Work> queue_;
  uint64_t enqueued_ = 0;
  uint64_t completed_ = 0;
  bool destroyed_ = false;
  std::thread thread_;
};

class Event {
 public:
  Event(Device* device, unsigned flags) : device_(device), flags_(flags) {}
  Device* device() const { return device_; }
  unsigned flags() const { return flags_; }
  // The marker of the latest record; null before the first.
  std::shared_ptr<Marker> latest();
  void set_latest(std::shared_ptr<Marker> marker);

 private:
  Device* const device_;
  const unsigned flags_;
  std::mutex mutex_;
  std::shared_ptr<Marker> latest_;
};

// ---- shared by the API files ------------------------------------------------------------------

// Records `e` as this thread's last error and returns it.
emuError_t record_error(emuError_t e);
// The current device of this thread (never null: the index was checked when set).
Device* current_device();
Device* device_at(int index);
// Whether `stream` / `event` is a live handle (null is the legacy stream, live).
bool stream_is_live(emuStream_t stream);
// Resolves null to the current device's legacy stream.
Stream* resolve_stream(emuStream_t stream);
// Enqueues `work` on `stream` after the implicit waits of the legacy default stream.
void submit(Stream* stream, Stream::Work work);
// Whether one device allocation holds all of [p, p + n).
bool inside_allocation(const void* p, size_t n);

}  // namespace devplug::gpu::emu
