// SPDX-License-Identifier: Apache-2.0
// Streams and events of the emulated runtime: each stream is a queue served by its own
// thread, events are markers placed in a stream, and the legacy default stream orders itself
// against the blocking streams of its device as CUDA's null stream does.
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <unordered_set>

#include "runtime.hpp"

namespace devplug::gpu::emu {
namespace {

std::mutex g_handles_mutex;
// Live handles, so a destroyed or made-up handle is refused instead of dereferenced.
std::unordered_set<const void*>& live_handles() {
  static auto* set = new std::unordered_set<const void*>;  // never destroyed: see Device
  return *set;
}

bool is_live(const void* handle) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  return live_handles().count(handle) != 0;
}
void add_live(const void* handle) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  live_handles().insert(handle);
}
void remove_live(const void* handle) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  live_handles().erase(handle);
}

}  // namespace

// ---- markers ---------------------------------------------------------------------------------

void Marker::complete() {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  std::lock_guard<std::mutex> lock(mutex_);
  time_ns_ = now;
  done_ = true;
  cv_.notify_all();
}

int64_t Marker::time_ns() {
  std::lock_guard<std::mutex> lock(mutex_);
  return time_ns_;
}

void Marker::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return done_; });
}

bool Marker::done() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

// ---- streams ---------------------------------------------------------------------------------

std::shared_ptr<Stream> Stream::create(Device* device, unsigned flags, bool legacy) {
  std::shared_ptr<Stream> s(new Stream(device, flags, legacy));
  // The thread holds the stream until it has drained after destroy.
  s->thread_ = std::thread([self = s] { self->run(); });
  s->thread_.detach();
  device->add_stream(s);
  return s;
}

Stream::~Stream() = default;

void Stream::run() {
  pthread_setname_np(pthread_self(), legacy_ ? "emu-null-stream" : "emu-stream");
  for (;;) {
    Work work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_cv_.wait(lock, [&] { return !queue_.empty() || destroyed_; });
      if (queue_.empty()) break;  // destroyed and drained
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work();
    work = nullptr;  // release what the work held before the host can see it done
    std::lock_guard<std::mutex> lock(mutex_);
    ++completed_;
    done_cv_.notify_all();
  }
  device_->remove_stream(this);
}

void Stream::enqueue(Work work) {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(work));
  ++enqueued_;
  work_cv_.notify_one();
}

std::shared_ptr<Marker> Stream::mark() {
  auto marker = std::make_shared<Marker>();
  enqueue([marker] { marker->complete(); });
  return marker;
}

bool Stream::pending() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ != enqueued_;
}

void Stream::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = enqueued_;
  done_cv_.wait(lock, [&] { return completed_ >= target; });
}

void Stream::destroy() {
  std::lock_guard<std::mutex> lock(mutex_);
  destroyed_ = true;
  work_cv_.notify_one();
}

// ---- events ----------------------------------------------------------------------------------

std::shared_ptr<Marker> Event::latest() {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

void Event::set_latest(std::shared_ptr<Marker> marker) {
  std::lock_guard<std::mutex> lock(mutex_);
  latest_ = std::move(marker);
}

// ---- the device's streams --------------------------------------------------------------------

void Device::add_stream(const std::shared_ptr<Stream>& stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.push_back(stream);
}

void Device::remove_stream(const Stream* stream) {
  std::shared_ptr<Stream> last;  // dropped after the lock: ~Stream must not run under it
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(streams_.begin(), streams_.end(), [&](const auto& s) { return s.get() == stream; });
  if (it == streams_.end()) return;
  last = std::move(*it);
  streams_.erase(it);
}

Stream* Device::legacy_stream() {
  std::call_once(legacy_once_, [&] { legacy_ = Stream::create(this, emuStreamDefault, true); });
  return legacy_.get();
}

std::vector<std::shared_ptr<Stream>> Device::blocking_streams() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<Stream>> out;
  for (const auto& s : streams_)
    if (s->blocking() && !s->legacy()) out.push_back(s);
  return out;
}

void Device::synchronize() {
  std::vector<std::shared_ptr<Stream>> all;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    all = streams_;
  }
  for (const auto& s : all) s->synchronize();
}

// ---- shared helpers --------------------------------------------------------------------------

bool stream_is_live(emuStream_t stream) { return stream == nullptr || is_live(stream); }

Stream* resolve_stream(emuStream_t stream) {
  return stream != nullptr ? stream : current_device()->legacy_stream();
}

void submit(Stream* stream, Stream::Work work) {
  Device* device = stream->device();
  // CUDA's legacy default stream: its work waits for the work already enqueued on every
  // blocking stream of the device, and a blocking stream's work waits for the legacy
  // stream's. Non-blocking streams take no part.
  if (stream->legacy()) {
    for (const auto& other : device->blocking_streams())
      if (other->pending()) stream->enqueue([m = other->mark()] { m->wait(); });
  } else if (stream->blocking()) {
    Stream* legacy = device->legacy_stream();
    if (legacy->pending()) stream->enqueue([m = legacy->mark()] { m->wait(); });
  }
  stream->enqueue(std::move(work));
}

}  // namespace devplug::gpu::emu

// ---- the API -----------------------------------------------------------------------------------

using namespace devplug::gpu::emu;

emuError_t emuStreamCreateWithFlags(emuStream_t* stream, unsigned flags) {
  if (stream == nullptr || (flags & ~emuStreamNonBlocking) != 0) return record_error(emuErrorInvalidValue);
  Device* device = current_device();
  if (device->fault() != emuSuccess) return record_error(device->fault());
  std::shared_ptr<Stream> s = Stream::create(device, flags, false);
  add_live(s.get());
  *stream = s.get();
  return emuSuccess;
}

emuError_t emuStreamDestroy(emuStream_t stream) {
  if (stream == nullptr || !is_live(stream)) return record_error(emuErrorInvalidResourceHandle);
  remove_live(stream);
  stream->destroy();  // returns at once; the queued work still runs, as in CUDA
  return emuSuccess;
}

emuError_t emuStreamSynchronize(emuStream_t stream) {
  if (!stream_is_live(stream)) return record_error(emuErrorInvalidResourceHandle);
  Stream* s = resolve_stream(stream);
  s->synchronize();
  return record_error(s->device()->fault());
}

emuError_t emuStreamQuery(emuStream_t stream) {
  if (!stream_is_live(stream)) return record_error(emuErrorInvalidResourceHandle);
  Stream* s = resolve_stream(stream);
  if (s->device()->fault() != emuSuccess) return record_error(s->device()->fault());
  return s->pending() ? emuErrorNotReady : emuSuccess;
}

emuError_t emuStreamWaitEvent(emuStream_t stream, emuEvent_t event, unsigned flags) {
  if (!stream_is_live(stream) || event == nullptr || !is_live(event))
    return record_error(emuErrorInvalidResourceHandle);
  if (flags != 0) return record_error(emuErrorInvalidValue);
  Stream* s = resolve_stream(stream);
  if (s->device()->fault() != emuSuccess) return record_error(s->device()->fault());
  // The wait is for the event's latest record at the time of this call (none: no wait).
  if (std::shared_ptr<Marker> m = event->latest()) submit(s, [m] { m->wait(); });
  return emuSuccess;
}

emuError_t emuEventCreateWithFlags(emuEvent_t* event, unsigned flags) {
  if (event == nullptr || (flags & ~emuEventDisableTiming) != 0) return record_error(emuErrorInvalidValue);
  Device* device = current_device();
  if (device->fault() != emuSuccess) return record_error(device->fault());
  auto* e = new Event(device, flags);
  add_live(e);
  *event = e;
  return emuSuccess;
}

emuError_t emuEventDestroy(emuEvent_t event) {
  if (event == nullptr || !is_live(event)) return record_error(emuErrorInvalidResourceHandle);
  remove_live(event);
  delete event;  // a pending record keeps its marker alive in the stream's queue
  return emuSuccess;
}

emuError_t emuEventRecord(emuEvent_t event, emuStream_t stream) {
  if (event == nullptr || !is_live(event) || !stream_is_live(stream))
    return record_error(emuErrorInvalidResourceHandle);
  Stream* s = resolve_stream(stream);
  if (s->device() != event->device()) return record_error(emuErrorInvalidResourceHandle);
  if (s->device()->fault() != emuSuccess) return record_error(s->device()->fault());
  auto marker = std::make_shared<Marker>();
  submit(s, [marker] { marker->complete(); });
  event->set_latest(std::move(marker));
  return emuSuccess;
}

emuError_t emuEventSynchronize(emuEvent_t event) {
  if (event == nullptr || !is_live(event)) return record_error(emuErrorInvalidResourceHandle);
  if (std::shared_ptr<Marker> m = event->latest()) m->wait();
  return record_error(event->device()->fault());
}

emuError_t emuEventElapsedTime(float* ms, emuEvent_t start, emuEvent_t end) {
  if (ms == nullptr) return record_error(emuErrorInvalidValue);
  if (start == nullptr || end == nullptr || !is_live(start) || !is_live(end))
    return record_error(emuErrorInvalidResourceHandle);
  if (((start->flags() | end->flags()) & emuEventDisableTiming) != 0 || start->device() != end->device())
    return record_error(emuErrorInvalidResourceHandle);
  const std::shared_ptr<Marker> first = start->latest();
  const std::shared_ptr<Marker> last = end->latest();
  if (!first || !last) return record_error(emuErrorInvalidResourceHandle);  // never recorded
  if (start->device()->fault() != emuSuccess) return record_error(start->device()->fault());
  if (!first->done() || !last->done()) return record_error(emuErrorNotReady);
  *ms = static_cast<float>(static_cast<double>(last->time_ns() - first->time_ns()) / 1e6);
  return emuSuccess;
}

emuError_t emuEventQuery(emuEvent_t event) {
  if (event == nullptr || !is_live(event)) return record_error(emuErrorInvalidResourceHandle);
  if (event->device()->fault() != emuSuccess) return record_error(event->device()->fault());
  std::shared_ptr<Marker> m = event->latest();
  return m && !m->done() ? emuErrorNotReady : emuSuccess;
}
