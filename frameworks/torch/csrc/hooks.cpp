// SPDX-License-Identifier: Apache-2.0
// torch's PrivateUse1 hooks for devplug: generators, devices and storage resizing, which
// generic torch code (autograd, torch.Generator, UntypedStorage.resize_) reaches through
// at::detail::getPrivateUse1Hooks().
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/util/Exception.h>

#include "generator.hpp"
#include "pinned.hpp"
#include "runtime.hpp"
#include "storage.hpp"

namespace devplug::bridge {
namespace {

class DevplugHooks final : public at::PrivateUse1HooksInterface {
 public:
  bool isBuilt() const override { return true; }
  bool isAvailable() const override {
    try {
      return device_count() > 0;
    } catch (...) {
      return false;  // must never throw
    }
  }
  bool hasPrimaryContext(c10::DeviceIndex /*device_index*/) const override {
    return Runtime::exists() && !in_bad_fork();
  }
  void init() const override { Runtime::get(); }

  c10::DeviceIndex deviceCount() const override { return device_count(); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
  void setCurrentDevice(c10::DeviceIndex device) const override { set_current_device(device); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    const c10::DeviceIndex previous = current_device();
    if (device >= 0) set_current_device(device);
    return previous;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override {
    return exchangeDevice(device);
  }

  const at::Generator& getDefaultGenerator(c10::DeviceIndex device_index) const override {
    return default_generator(device_index);
  }
  at::Generator getNewGenerator(c10::DeviceIndex device_index) const override {
    return new_generator(device_index);
  }

  at::Device getDeviceFromPtr(void* data) const override {
    Block* block = find_block(data);
    TORCH_CHECK(block != nullptr, "devplug: ", data, " is not an address of a devplug storage");
    return at::Device(c10::DeviceType::PrivateUse1, block->device);
  }

  // Pinned host memory (pinned.hpp): tensor.pin_memory(), is_pinned(), DataLoader.
  bool isPinnedPtr(const void* data) const override { return is_pinned(data); }
  at::Allocator* getPinnedMemoryAllocator() const override { return pinned_allocator(); }

  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    resize_storage(storage, newsize);
  }
};

const bool g_registered = [] {
  at::RegisterPrivateUse1HooksInterface(new DevplugHooks());  // torch keeps it for the process
  return true;
}();

}  // namespace
}  // namespace devplug::bridge
