// SPDX-License-Identifier: Apache-2.0
// The device guard of the devplug device type: torch's way to ask for and switch the
// current device, streams and events (torch.Stream, torch.Event, torch.accelerator and
// the autograd engine's device threads use it).
//
// Events: devplug events can be recorded, waited for by streams and synchronized, but not
// queried without blocking, so query() waits and returns true; elapsed_time() reads the
// device's timestamps (devplug_event_elapsed_ns). recordDataPtrOnStream does nothing: as with the dispatcher's
// caching allocator, memory used on a second stream must be ordered by the caller.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include "runtime.hpp"

namespace devplug::bridge {
namespace {

constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
}

class DevplugGuardImpl final : public c10::impl::DeviceGuardImplInterface {
 public:
  c10::DeviceType type() const override { return kType; }

  c10::Device exchangeDevice(c10::Device device) const override {
    c10::Device previous = getDevice();
    if (device.index() != previous.index()) setDevice(device);
    return previous;
  }
  c10::Device getDevice() const override { return c10::Device(kType, current_device()); }
  void setDevice(c10::Device device) const override {
    TORCH_CHECK(device.type() == kType, "devplug: the devplug guard cannot set a ", device.type(), " device");
    if (device.index() >= 0) set_current_device(device.index());
  }
  void uncheckedSetDevice(c10::Device device) const noexcept override {
    try {
      setDevice(device);
    } catch (...) {}
  }

  c10::Stream getStream(c10::Device device) const override { return current_stream(index_of(device)); }
  c10::Stream getDefaultStream(c10::Device device) const override {
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, index_of(device)), 0);
  }
  c10::Stream getStreamFromGlobalPool(c10::Device device, bool /*high_priority*/) const override {
    return getNewStream(device, 0);
  }
  c10::Stream getNewStream(c10::Device device, int /*priority*/) const override {
    const c10::DeviceIndex index = index_of(device);
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, index),
                       guarded([&] { return Runtime::get().new_stream(index); }));
  }
  c10::Stream exchangeStream(c10::Stream stream) const override { return exchange_stream(stream); }

  c10::DeviceIndex deviceCount() const noexcept override {
    try {
      // 0 in a forked child (runtime.hpp): the autograd engine starts a thread per device it
      // counts here, and each would fail to set its device.
      return in_bad_fork() ? 0 : Runtime::get().device_count();
    } catch (...) {
      return 0;  // torch requires this never to throw
    }
  }

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag /*flag*/) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(), "devplug: event device index ",
                static_cast<int>(device_index), " does not match the stream's ",
                static_cast<int>(stream.device_index()));
    guarded([&] {
      devplug::Stream s = Runtime::get().stream(stream.device_index(), stream.id());
      if (*event == nullptr) *event = new devplug::Event(Runtime::get().device(stream.device_index()));
      static_cast<devplug::Event*>(*event)->record(s);
    });
  }
  void block(void* event, const c10::Stream& stream) const override {
    if (event == nullptr) return;  // never recorded: nothing to wait for
    guarded([&] {
      Runtime::get().stream(stream.device_index(), stream.id()).wait(*static_cast<devplug::Event*>(event));
    });
  }
  bool queryEvent(void* event) const override {
    synchronizeEvent(event);
    return true;
  }
  void synchronizeEvent(void* event) const override {
    if (event == nullptr) return;
    guarded([&] { static_cast<devplug::Event*>(event)->synchronize(); });
  }
  void destroyEvent(void* event, const c10::DeviceIndex /*device_index*/) const noexcept override {
    if (in_bad_fork()) return;  // the parent's event, in a forked child: leaked (runtime.hpp)
    delete static_cast<devplug::Event*>(event);
  }
  // Milliseconds between two recorded events, as the device measured them (the
  // event_timestamps extension of the ABI; a plugin without it gets a NotImplementedError).
  double elapsedTime(void* start, void* end, const c10::DeviceIndex /*device_index*/) const override {
    TORCH_CHECK(start != nullptr && end != nullptr,
                "devplug: elapsed_time needs both events recorded first (event.record())");
    return guarded([&] {
      const int64_t ns = static_cast<devplug::Event*>(start)->elapsed_ns(*static_cast<devplug::Event*>(end));
      return static_cast<double>(ns) / 1e6;
    });
  }

  bool queryStream(const c10::Stream& stream) const override {
    synchronizeStream(stream);
    return true;
  }
  void synchronizeStream(const c10::Stream& stream) const override {
    guarded([&] { Runtime::get().stream(stream.device_index(), stream.id()).synchronize(); });
  }
  void synchronizeDevice(const c10::DeviceIndex device_index) const override {
    guarded([&] { Runtime::get().device(device_index < 0 ? current_device() : device_index).synchronize(); });
  }

 private:
  static c10::DeviceIndex index_of(c10::Device device) {
    return device.has_index() ? device.index() : current_device();
  }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, DevplugGuardImpl);

}  // namespace
}  // namespace devplug::bridge
