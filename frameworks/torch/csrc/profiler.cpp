// SPDX-License-Identifier: Apache-2.0
// torch's profilers on devplug devices, timed by devplug events (devplug_event_elapsed_ns).
// torch 2.15 gives a PrivateUse1 backend two ways to report device time, and which one runs
// depends on how the profiler is asked (torch/autograd/profiler.py):
//
// - torch.profiler.profile(activities=[CPU, PrivateUse1]) (and torch.autograd.profiler.profile
//   with use_device="devplug", use_kineto=True) runs Kineto in the state KINETO_PRIVATEUSE1,
//   with the child profiler registered here (REGISTER_PRIVATEUSE1_PROFILER). While it records,
//   each aten op that takes a devplug stream (stream_for, profiler.hpp) gets device activities:
//   the stretches of that stream from the op's first use of it to its end, cut where its child
//   ops run, each timed by two devplug events and placed on the host's clock by an anchor event
//   per device. They are Kineto "kernel" activities linked to the op, so key_averages() gives
//   each op device time, self and total, as CUDA kernels do, and the Chrome trace a row per
//   device stream.
// - torch.autograd.profiler.profile(use_device="devplug") (use_kineto=False: the state
//   KINETO_PRIVATEUSE1_FALLBACK) calls the ProfilerStubs registered here: an event on the
//   current stream before and after every op, and the op's device time is the time between
//   the two, children included (torch calls these "legacy" device times).
//
// Everything registers when torch_devplug._C is imported. A device whose plugin has no
// event_timestamps extension gets no device activities; the session's errors say so.
#include <c10/util/ApproximateClock.h>
#include <c10/util/Exception.h>
#include <torch/csrc/profiler/stubs/base.h>

// The wheel's libtorch is built with Kineto (the registry's symbols are exported), but its
// headers declare the PrivateUse1 profiler registry only under the build's own USE_KINETO,
// which extensions are not given. torch releases without the registry (2.11) get the
// ProfilerStubs path alone.
#if __has_include(<torch/csrc/profiler/standalone/privateuse1_profiler.h>)
#ifndef USE_KINETO
#define USE_KINETO 1
#endif
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>
#define DEVPLUG_KINETO_CHILD_PROFILER 1
#endif

#include <IActivityProfiler.h>
#include <libkineto.h>  // CpuTraceBuffer
#include <output_base.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "profiler.hpp"
#include "runtime.hpp"

namespace devplug::bridge {

std::atomic<bool> g_profiler_recording{false};

namespace {

int64_t unix_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// ---- the Kineto child profiler ------------------------------------------------------------

// One stretch of an op's device work on one stream, between two recorded events.
struct Stretch {
  uint64_t correlation;  // torch's correlation id of the op
  c10::DeviceIndex device;
  c10::StreamId stream;
  devplug::Event start;
  devplug::Event end;
  int64_t host_start_ns;  // host time (Unix ns) just before `start` was recorded
};

// Where a device's clock sits on the host's: `event`, recorded on an idle device, completed
// at completed_ns() (Unix ns) give or take uncertainty_ns(). Each sample (an event recorded on the idle
// device and waited for) bounds that moment by the host times before its record and after
// its wait, less the device time from `event` to it; the anchor is the middle of what all
// samples allow. A loaded host wakes late from a wait, so one sample can be milliseconds
// wide: several at the start and one more when the trace is drained keep it narrow.
struct Anchor {
  bool timed = false;  // whether the plugin has event timestamps
  std::optional<devplug::Event> event;
  std::optional<devplug::Stream> stream;  // where the samples are recorded
  int64_t lo_ns = 0;                      // earliest host time `event` can have completed at
  int64_t hi_ns = 0;                      // latest

  int64_t completed_ns() const { return lo_ns + (hi_ns - lo_ns) / 2; }
  int64_t uncertainty_ns() const { return (hi_ns - lo_ns + 1) / 2; }
};

// Records `event` on `stream` of the idle device and waits for it: the host times before
// and after.
std::pair<int64_t, int64_t> sample_clock(const devplug::Event& event, const devplug::Stream& stream) {
  const int64_t before = unix_ns();
  event.record(stream);
  event.synchronize();
  return {before, unix_ns()};
}

// Narrows `anchor` by one more sample taken on its stream (the device idle).
void refine_anchor(Anchor& anchor, const devplug::Device& device) {
  devplug::Event event(device);
  const auto [before, after] = sample_clock(event, *anchor.stream);
  const int64_t device_ns = anchor.event->elapsed_ns(event);
  const int64_t lo = before - device_ns;
  const int64_t hi = after - device_ns;
  if (std::max(lo, anchor.lo_ns) <= std::min(hi, anchor.hi_ns)) {
    anchor.lo_ns = std::max(lo, anchor.lo_ns);
    anchor.hi_ns = std::min(hi, anchor.hi_ns);
  } else if (hi - lo < anchor.hi_ns - anchor.lo_ns) {
    // The clocks drifted apart since the earlier samples: keep the narrower bound.
    anchor.lo_ns = lo;
    anchor.hi_ns = hi;
  }
}

// The process's recording state, shared by the session that records and the threads that
// run ops. One session records at a time (Kineto runs one). Thread-safe: `mutex_` guards
// everything but the generation and the recording flag, which are atomics. Leaked, as the
// runtime is (runtime.hpp): events may be released after static destructors ran.
class Recorder {
 public:
  static Recorder& get() {
    static auto* recorder = new Recorder();
    return *recorder;
  }

  // Starts a new recording: forgets the last one's stretches, anchors and errors.
  uint64_t start(bool timing) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Stretch& s : stretches_) release_locked(s);
    stretches_.clear();
    anchors_.clear();
    errors_.clear();
    const uint64_t generation = generation_.fetch_add(1) + 1;
    g_profiler_recording.store(timing);
    return generation;
  }
  void stop() { g_profiler_recording.store(false); }

  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // Whether `device` has timestamps; anchors it first (synchronizing it) when this
  // recording has not seen it yet.
  bool ensure_anchor(c10::DeviceIndex device, const devplug::Stream& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = anchors_.find(device);
    if (found != anchors_.end()) return found->second.timed;
    Anchor& anchor = anchors_[device];
    const devplug::Device& d = Runtime::get().device(device);
    devplug::Event event(d);
    d.synchronize();
    std::tie(anchor.lo_ns, anchor.hi_ns) = sample_clock(event, stream);
    try {
      (void)event.elapsed_ns(event);
      anchor.timed = true;
    } catch (const devplug::Error& e) {
      errors_.push_back("devplug:" + std::to_string(device) + " (" + Runtime::get().slot(device).plugin +
                        ") gives no device time: " + e.what());
    }
    anchor.event = std::move(event);
    anchor.stream = stream;
    if (anchor.timed)
      for (int i = 0; i < kAnchorSamples; ++i) refine_anchor(anchor, d);
    return anchor.timed;
  }

  devplug::Event take_event(c10::DeviceIndex device) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (static_cast<size_t>(device) < pool_.size() && !pool_[device].empty()) {
        devplug::Event event = std::move(pool_[device].back());
        pool_[device].pop_back();
        return event;
      }
    }
    return devplug::Event(Runtime::get().device(device));
  }

  void add(uint64_t generation, Stretch stretch) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation == generation_.load()) {
      stretches_.push_back(std::move(stretch));
    } else {
      release_locked(stretch);
    }
  }

  void error(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (errors_.size() < 16) errors_.push_back(what);
  }

  std::vector<std::string> errors() {
    std::lock_guard<std::mutex> lock(mutex_);
    return errors_;
  }

  // Hands the stretches of recording `generation` to `emit(stretch, start_ns, end_ns,
  // uncertainty_ns)` in Unix ns, then takes their events back. Waits for the device work they
  // time.
  template <typename Emit>
  void drain(uint64_t generation, Emit&& emit) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation != generation_.load()) return;
    // One more sample per device, now that the work it timed is done.
    for (auto& [device, anchor] : anchors_) {
      if (!anchor.timed) continue;
      try {
        const devplug::Device& d = Runtime::get().device(device);
        d.synchronize();
        refine_anchor(anchor, d);
      } catch (const std::exception& e) {
        if (errors_.size() < 16) errors_.push_back(std::string("devplug: device clock: ") + e.what());
      }
    }
    for (Stretch& s : stretches_) {
      try {
        const Anchor& anchor = anchors_.at(s.device);
        int64_t start = anchor.completed_ns() + anchor.event->elapsed_ns(s.start);
        int64_t end = anchor.completed_ns() + anchor.event->elapsed_ns(s.end);
        // Device work cannot start before the host asked for it: an anchor read late
        // shows as work that starts early, so move the stretch, keeping its length.
        if (start < s.host_start_ns) {
          end += s.host_start_ns - start;
          start = s.host_start_ns;
        }
        emit(s, start, std::max(start, end), anchor.uncertainty_ns());
      } catch (const std::exception& e) {
        if (errors_.size() < 16) errors_.push_back(std::string("devplug: device time of an op: ") + e.what());
      }
      release_locked(s);
    }
    stretches_.clear();
  }

 private:
  Recorder() = default;
  // Keeps the stretch's events for the next ones, up to kPoolMax per device (a long profile
  // may have recorded far more than the next needs).
  void release_locked(Stretch& s) {
    if (pool_.size() <= static_cast<size_t>(s.device)) pool_.resize(s.device + 1);
    std::vector<devplug::Event>& pool = pool_[s.device];
    if (pool.size() + 2 > kPoolMax) return;
    pool.push_back(std::move(s.start));
    pool.push_back(std::move(s.end));
  }

  static constexpr size_t kPoolMax = 4096;
  static constexpr int kAnchorSamples = 4;  // besides the first

  std::atomic<uint64_t> generation_{0};
  std::mutex mutex_;
  std::vector<Stretch> stretches_;
  std::map<c10::DeviceIndex, Anchor> anchors_;
  std::vector<std::vector<devplug::Event>> pool_;  // recorded-before events, by device
  std::vector<std::string> errors_;
};

// One stream an op uses, with the start of its open stretch.
struct Use {
  c10::DeviceIndex device;
  c10::StreamId id;
  devplug::Stream stream;
  std::optional<devplug::Event> start;
  int64_t host_start_ns = 0;
};

// An op running on this thread: its correlation id and the streams it used so far.
struct Frame {
  uint64_t correlation;
  std::vector<Use> uses;
};

// This thread's ops, innermost last, for one recording. The vector is leaked in a forked
// child, whose events belong to the parent's drivers (runtime.hpp).
struct ThreadFrames {
  uint64_t generation = 0;
  std::vector<Frame>* frames = nullptr;
  ~ThreadFrames() {
    if (!in_bad_fork()) delete frames;
  }
};
thread_local ThreadFrames t_frames;

// This thread's frames of the current recording and its generation.
std::pair<std::vector<Frame>&, uint64_t> frames_now() {
  const uint64_t generation = Recorder::get().generation();
  if (t_frames.frames == nullptr) t_frames.frames = new std::vector<Frame>();
  if (t_frames.generation != generation) {
    t_frames.frames->clear();
    t_frames.generation = generation;
  }
  return {*t_frames.frames, generation};
}

void open_stretch(Use& use) {
  devplug::Event event = Recorder::get().take_event(use.device);
  use.host_start_ns = unix_ns();
  event.record(use.stream);
  use.start = std::move(event);
}

void close_stretch(uint64_t generation, uint64_t correlation, Use& use) {
  if (!use.start) return;
  devplug::Event end = Recorder::get().take_event(use.device);
  end.record(use.stream);
  Recorder::get().add(generation, Stretch{correlation, use.device, use.id, std::move(*use.start),
                                          std::move(end), use.host_start_ns});
  use.start.reset();
}

template <typename F>
void reporting(const char* what, F&& f) noexcept {
  try {
    f();
  } catch (const std::exception& e) {
    Recorder::get().error(std::string("devplug: ") + what + ": " + e.what());
  } catch (...) {
    Recorder::get().error(std::string("devplug: ") + what + ": unknown error");
  }
}

// An op starts: the op around it (if any) stops its stretches, so that work the new op
// enqueues is not counted twice.
void push_op(uint64_t correlation) noexcept {
  if (!g_profiler_recording.load(std::memory_order_relaxed)) return;
  reporting("profiling an op", [&] {
    auto [frames, generation] = frames_now();
    if (!frames.empty())
      for (Use& use : frames.back().uses)
        reporting("ending a device stretch",
                  [&] { close_stretch(generation, frames.back().correlation, use); });
    frames.push_back(Frame{correlation, {}});
  });
}

// An op ends: its stretches end, and the op around it resumes its own.
void pop_op() noexcept {
  if (!g_profiler_recording.load(std::memory_order_relaxed)) return;
  reporting("profiling an op", [&] {
    auto [frames, generation] = frames_now();
    if (frames.empty()) return;  // began before the recording did
    Frame frame = std::move(frames.back());
    frames.pop_back();
    for (Use& use : frame.uses)
      reporting("ending a device stretch", [&] { close_stretch(generation, frame.correlation, use); });
    if (!frames.empty())
      for (Use& use : frames.back().uses) reporting("starting a device stretch", [&] { open_stretch(use); });
  });
}

#ifdef DEVPLUG_KINETO_CHILD_PROFILER
class Session final : public libkineto::IActivityProfilerSession {
 public:
  explicit Session(bool timing) : timing_(timing) {}

  void start() override {
    // Both clocks at one moment (steady read twice around the system clock), for
    // merge_trace: devplug's own trace (DEVPLUG_TRACE) is on the steady clock.
    const int64_t steady_before = steady_ns();
    clock_unix_ns_ = unix_ns();
    clock_steady_ns_ = steady_before + (steady_ns() - steady_before) / 2;
    generation_ = Recorder::get().start(timing_);
    status_ = libkineto::TraceStatus::RECORDING;
  }
  void stop() override {
    Recorder::get().stop();
    status_ = libkineto::TraceStatus::PROCESSING;
  }
  std::vector<std::string> errors() override { return Recorder::get().errors(); }

  void pushCorrelationId(uint64_t id) override { push_op(id); }
  void popCorrelationId() override { pop_op(); }

  void processTrace(libkineto::ActivityLogger& logger) override { process(logger, nullptr); }
  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked,
                    int64_t /*start_time*/, int64_t /*end_time*/) override {
    process(logger, linked);
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    if (streams_.empty()) return nullptr;
    const c10::DeviceIndex device = streams_.begin()->first;
    return std::make_unique<libkineto::DeviceInfo>(
        libkineto::DeviceInfo{device, device + libkineto::kExceedMaxPid, "devplug", device_label(device)});
  }
  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    std::vector<libkineto::ResourceInfo> out;
    for (const auto& [device, stream] : streams_)
      out.push_back(libkineto::ResourceInfo{
          stream, stream, device,
          device_label(device) + " stream " + std::to_string(stream) + (stream == 0 ? " (default)" : "")});
    return out;
  }
  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return nullptr; }

  // Top-level keys of the exported trace (values are JSON): the clock pair merge_trace
  // aligns devplug's own trace with.
  std::unordered_map<std::string, std::string> getMetadata() override {
    if (clock_unix_ns_ == 0) return {};
    return {{"devplugClock", "{\"unix_ns\": " + std::to_string(clock_unix_ns_) +
                                 ", \"steady_ns\": " + std::to_string(clock_steady_ns_) + "}"}};
  }

 private:
  static std::string device_label(c10::DeviceIndex device) {
    std::string label = "devplug:" + std::to_string(device);
    try {
      label += " (" + Runtime::get().slot(device).plugin + ")";
    } catch (...) {}
    return label;
  }

  void process(libkineto::ActivityLogger& logger, const libkineto::getLinkedActivityCallback& linked) {
    // Activities keep a pointer to their span; Kineto's trace outlives this session.
    static const auto* span = new libkineto::TraceSpan(0, 0, "devplug");
    Recorder::get().drain(generation_, [&](const Stretch& s, int64_t start, int64_t end,
                                           int64_t uncertainty) {
      const libkineto::ITraceActivity* op = linked ? linked(static_cast<int32_t>(s.correlation)) : nullptr;
      std::string plugin = "devplug";
      try {
        plugin = Runtime::get().slot(s.device).plugin;
      } catch (...) {}
      // Named after the op and the plugin: the op's own name is taken by its CPU row.
      libkineto::GenericTraceActivity activity(
          *span, libkineto::ActivityType::CONCURRENT_KERNEL,
          (op ? op->name() : std::string("devplug work")) + " (" + plugin + ")");
      activity.startTime = start;
      activity.endTime = end;
      activity.id = static_cast<int32_t>(s.correlation);
      activity.device = s.device;
      activity.resource = s.stream;
      activity.linked = op;
      // (addTypedMetadata, not addMetadata: the latter is fmt, which libtorch does not export.)
      activity.addMetadataQuoted("device", "devplug:" + std::to_string(s.device));
      activity.addTypedMetadata("stream", libkineto::TypedValue{static_cast<int64_t>(s.stream)});
      // How far the device's clock may sit from where the row puts it (Anchor).
      activity.addTypedMetadata("clock uncertainty ns", libkineto::TypedValue{uncertainty});
      activity.log(logger);
      streams_.insert({s.device, s.stream});
    });
  }

  const bool timing_;
  uint64_t generation_ = 0;
  int64_t clock_unix_ns_ = 0;
  int64_t clock_steady_ns_ = 0;
  std::set<std::pair<c10::DeviceIndex, c10::StreamId>> streams_;
};

// Whether torch asks for device activities: ProfilerActivity.PrivateUse1 adds "kernel"
// (CONCURRENT_KERNEL) to the Kineto types; a CPU-only profile has the PrivateUse1 runtime
// and driver types but no kernels.
bool wants_device_activities(const std::set<libkineto::ActivityType>& types) {
  return types.count(libkineto::ActivityType::CONCURRENT_KERNEL) > 0;
}

class DevplugActivityProfiler final : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }
  const std::set<libkineto::ActivityType>& availableActivities() const override { return activities_; }

  // A session for every trace: one that only records the clock pair when torch did not ask
  // for PrivateUse1 activities (CPU-only profiles cost nothing per op).
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(
      const std::set<libkineto::ActivityType>& types, const libkineto::Config& /*config*/) override {
    return std::make_unique<Session>(wants_device_activities(types));
  }
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(
      int64_t /*ts_ms*/, int64_t /*duration_ms*/, const std::set<libkineto::ActivityType>& types,
      const libkineto::Config& config) override {
    return configure(types, config);
  }

 private:
  std::string name_ = "devplug";
  std::set<libkineto::ActivityType> activities_ = {libkineto::ActivityType::CONCURRENT_KERNEL,
                                                   libkineto::ActivityType::PRIVATEUSE1_RUNTIME};
};

REGISTER_PRIVATEUSE1_PROFILER(DevplugActivityProfiler);
#endif  // DEVPLUG_KINETO_CHILD_PROFILER

// ---- ProfilerStubs (KINETO_PRIVATEUSE1_FALLBACK) ------------------------------------------

using torch::profiler::impl::ProfilerVoidEventStub;

class DevplugProfilerStubs final : public torch::profiler::impl::ProfilerStubs {
 public:
  // Records an event on the current stream of the current device. torch calls this around
  // every op and must not see it throw: a failure (no device, a forked child) leaves `event`
  // empty, which elapsed() reads as no device time.
  void record(c10::DeviceIndex* device, ProfilerVoidEventStub* event, int64_t* cpu_ns) const override {
    const c10::DeviceIndex index = current_device();
    if (device != nullptr) *device = index;
    if (cpu_ns != nullptr) *cpu_ns = c10::getTime();
    if (event == nullptr) return;
    event->reset();
    if (in_bad_fork()) return;
    try {
      Runtime& runtime = Runtime::get();
      if (index >= runtime.device_count()) return;
      auto* e = new devplug::Event(runtime.device(index));
      *event = ProfilerVoidEventStub(e, [](void* p) {
        if (!in_bad_fork()) delete static_cast<devplug::Event*>(p);  // a forked child leaks it
      });
      e->record(stream_for(index));
    } catch (...) {
      event->reset();
    }
  }

  // Microseconds of device time between two recorded events (torch's unit here: the CUDA
  // stubs return cudaEventElapsedTime's milliseconds times 1000). 0 when either is missing
  // or the plugin has no timestamps.
  float elapsed(const ProfilerVoidEventStub* start, const ProfilerVoidEventStub* end) const override {
    if (start == nullptr || end == nullptr || !*start || !*end) return 0.0f;
    try {
      const auto* s = static_cast<const devplug::Event*>(start->get());
      const auto* e = static_cast<const devplug::Event*>(end->get());
      return static_cast<float>(static_cast<double>(s->elapsed_ns(*e)) / 1e3);
    } catch (...) {
      return 0.0f;
    }
  }

  // devplug has no annotation API (NVTX's ranges and marks): nothing to emit.
  void mark(const char* /*name*/) const override {}
  void rangePush(const char* /*name*/) const override {}
  void rangePop() const override {}

  bool enabled() const override { return true; }

  void onEachDevice(std::function<void(int)> op) const override {
    const c10::DeviceIndex previous = current_device();
    for (c10::DeviceIndex i = 0; i < device_count(); ++i) {
      set_current_device(i);
      op(i);
    }
    set_current_device(previous);
  }

  void synchronize() const override {
    if (!Runtime::exists() || in_bad_fork()) return;
    Runtime& runtime = Runtime::get();
    for (c10::DeviceIndex i = 0; i < runtime.device_count(); ++i) {
      try {
        runtime.device(i).synchronize();
      } catch (const devplug::Error& e) {
        throw_torch_error(e);
      }
    }
  }
};

const bool g_stubs_registered = [] {
  static DevplugProfilerStubs stubs;
  torch::profiler::impl::registerPrivateUse1Methods(&stubs);
  return true;
}();

}  // namespace

void profiler_note_stream_use_slow(c10::DeviceIndex device, c10::StreamId id,
                                   const devplug::Stream& stream) noexcept {
  reporting("timing a device stream", [&] {
    auto [frames, generation] = frames_now();
    (void)generation;
    if (frames.empty()) return;  // no op around it (work outside torch's dispatcher)
    Frame& frame = frames.back();
    for (const Use& use : frame.uses)
      if (use.device == device && use.id == id) return;  // already timed
    if (!Recorder::get().ensure_anchor(device, stream)) return;
    Use use{device, id, stream, std::nullopt, 0};
    open_stretch(use);
    frame.uses.push_back(std::move(use));
  });
}

bool write_trace() {
  if (!Runtime::exists()) return false;  // no devplug call yet: nothing traced
  bool written = false;
  try {
    devplug::api_detail::check(devplug_context_write_trace(Runtime::get().context().handle(), &written));
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
  return written;
}

}  // namespace devplug::bridge
