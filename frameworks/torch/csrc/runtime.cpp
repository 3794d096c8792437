// SPDX-License-Identifier: Apache-2.0
// The process's devplug context and devices, current device and stream per thread, and
// error conversion (see runtime.hpp).
#include "runtime.hpp"

#include <c10/util/Exception.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <sstream>

#include "profiler.hpp"

namespace devplug::bridge {
namespace {

Runtime* g_runtime = nullptr;
std::once_flag g_runtime_once;

// Set in the child of a fork after the runtime was made (pthread_atfork's child handler,
// which runs before fork() returns there). Lock-free, so the handler may set it.
std::atomic<bool> g_in_bad_fork{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void mark_forked_child() { g_in_bad_fork.store(true, std::memory_order_relaxed); }

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' && std::string(value) != "0";
}

// TORCH_DEVPLUG_PLUGINS=opencl,reference keeps those plugins' devices, in that order.
std::vector<std::string> wanted_plugins() {
  std::vector<std::string> names;
  const char* value = std::getenv("TORCH_DEVPLUG_PLUGINS");
  if (value == nullptr) return names;
  std::stringstream list(value);
  for (std::string name; std::getline(list, name, ',');)
    if (!name.empty()) names.push_back(name);
  return names;
}

thread_local c10::DeviceIndex t_current_device = 0;
// Current stream id per device for this thread; devices past the end use the default.
thread_local std::vector<c10::StreamId> t_current_streams;

}  // namespace

Runtime& Runtime::get() {
  check_not_forked();
  std::call_once(g_runtime_once, [] {
    try {
      g_runtime = new Runtime();  // never deleted: storages freed at exit still need it
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
    // Registered once, and only now: a child forked before this point has no devplug state
    // to inherit and makes its own runtime.
    if (const int rc = pthread_atfork(nullptr, nullptr, &mark_forked_child); rc != 0)
      TORCH_WARN("devplug: pthread_atfork failed (", rc, "): a forked child that uses devplug may hang");
  });
  TORCH_CHECK(g_runtime != nullptr, "devplug: the runtime failed to start earlier in this process");
  return *g_runtime;
}

bool Runtime::exists() noexcept { return g_runtime != nullptr; }

bool in_bad_fork() noexcept { return g_in_bad_fork.load(std::memory_order_relaxed); }

void check_not_forked() {
  TORCH_CHECK(!in_bad_fork(),
              "devplug: cannot use devplug devices in a forked subprocess: the parent process had "
              "initialized them, and their drivers do not survive fork(). To use devplug devices in "
              "subprocesses, start them with the 'spawn' method: "
              "torch.multiprocessing.set_start_method('spawn') (or multiprocessing_context='spawn' for a "
              "DataLoader), or fork before the first devplug use");
}

c10::DeviceIndex device_count() {
  if (in_bad_fork()) return g_runtime != nullptr ? g_runtime->device_count() : 0;
  return Runtime::get().device_count();
}

Runtime::Runtime()
    : context_(env_flag("TORCH_DEVPLUG_STRICT") ? DEVPLUG_CONTEXT_STRICT : 0u),
      context_strict_(env_flag("TORCH_DEVPLUG_STRICT")) {
  std::vector<devplug::Device> devices = context_.devices();
  const std::vector<std::string> wanted = wanted_plugins();
  auto plugin_of = [](const devplug::Device& d) { return d.plugin().info().name; };
  if (wanted.empty()) {
    // Devices in the context's order, the reference backend's last: it is the oracle, exact
    // and slow, so devplug:0 is a real device whenever there is one.
    std::stable_partition(devices.begin(), devices.end(),
                          [&](const devplug::Device& d) { return plugin_of(d) != "reference"; });
  } else {
    std::vector<devplug::Device> kept;
    for (const std::string& name : wanted)
      for (const devplug::Device& d : devices)
        if (plugin_of(d) == name) kept.push_back(d);
    devices = kept;
  }
  for (const devplug::Device& d : devices) {
    DeviceSlot slot{d, plugin_of(d), d.name(), {}};
    slot.streams.push_back(d.default_stream());
    slots_.push_back(std::move(slot));
  }
  if (slots_.empty()) {
    std::string why;
    for (const devplug::Plugin& p : context_.plugins()) {
      devplug::Plugin::Info info = p.info();
      why += "\n  plugin " + info.name + " (" + info.path + "): " +
             (info.device_note.empty() ? std::to_string(info.device_count) + " devices" : info.device_note);
    }
    for (const devplug::LoadFailure& f : context_.failures())
      why += "\n  " + f.path + " failed to load: " + f.reason;
    if (!wanted.empty())
      why += "\n  TORCH_DEVPLUG_PLUGINS keeps only: " + std::string(std::getenv("TORCH_DEVPLUG_PLUGINS"));
    if (why.empty()) why = "\n  no plugin was found (set DEVPLUG_PLUGIN_PATH, or check with devplug-info)";
    no_device_reason_ = why;
  }
}

const DeviceSlot& Runtime::slot(c10::DeviceIndex index) const {
  if (index < 0 || index >= device_count()) {
    if (slots_.empty())
      TORCH_CHECK_INDEX(false, "devplug: there is no devplug device (devplug:", static_cast<int>(index),
                        " was asked for):", no_device_reason_);
    TORCH_CHECK_INDEX(false, "devplug: device index ", static_cast<int>(index),
                      " is out of range; there are ", static_cast<int>(device_count()), " devplug devices");
  }
  return slots_[static_cast<size_t>(index)];
}

devplug::Stream Runtime::stream(c10::DeviceIndex device, c10::StreamId id) {
  const DeviceSlot& s = slot(device);
  std::lock_guard<std::mutex> lock(streams_mutex_);
  TORCH_CHECK(id >= 0 && static_cast<size_t>(id) < s.streams.size(), "devplug: stream ", id,
              " does not exist on devplug:", static_cast<int>(device));
  return s.streams[static_cast<size_t>(id)];
}

c10::StreamId Runtime::new_stream(c10::DeviceIndex device) {
  slot(device);  // checks the range
  DeviceSlot& s = slots_[static_cast<size_t>(device)];
  devplug::Stream made(s.device);
  std::lock_guard<std::mutex> lock(streams_mutex_);
  s.streams.push_back(made);
  return static_cast<c10::StreamId>(s.streams.size() - 1);
}

c10::DeviceIndex current_device() noexcept { return t_current_device; }

void set_current_device(c10::DeviceIndex index) {
  Runtime::get().slot(index);  // checks the range
  t_current_device = index;
}

c10::Stream current_stream(c10::DeviceIndex device) {
  c10::StreamId id = 0;
  if (device >= 0 && static_cast<size_t>(device) < t_current_streams.size()) id = t_current_streams[device];
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, device), id);
}

c10::Stream exchange_stream(c10::Stream stream) {
  const c10::DeviceIndex device = stream.device_index();
  Runtime::get().stream(device, stream.id());  // checks that it exists
  c10::Stream previous = current_stream(device);
  if (t_current_streams.size() <= static_cast<size_t>(device)) t_current_streams.resize(device + 1, 0);
  t_current_streams[device] = stream.id();
  return previous;
}

devplug::Stream stream_for(c10::DeviceIndex device) {
  const c10::StreamId id = current_stream(device).id();
  devplug::Stream stream = Runtime::get().stream(device, id);
  profiler_note_stream_use(device, id, stream);  // the op being profiled uses this stream
  return stream;
}

void throw_torch_error(const devplug::Error& error) {
  const std::string text = std::string("devplug ") + devplug_code_name(error.code()) + ": " + error.message();
  switch (error.code()) {
    case DEVPLUG_CODE_RESOURCE_EXHAUSTED:
      TORCH_CHECK_WITH(OutOfMemoryError, false, text);
    case DEVPLUG_CODE_UNIMPLEMENTED:
      TORCH_CHECK_NOT_IMPLEMENTED(false, text);
    case DEVPLUG_CODE_INVALID_ARGUMENT:
    case DEVPLUG_CODE_OUT_OF_RANGE:
      TORCH_CHECK_VALUE(false, text);
    default:
      TORCH_CHECK(false, text);
  }
}

}  // namespace devplug::bridge
