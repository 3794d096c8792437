// SPDX-License-Identifier: Apache-2.0
// Host tensors: refcounted storage on a device plus a Layout (see tensor.hpp).
#include "tensor.hpp"

#include "api_guard.hpp"
#include "devplug/sdk/fault.hpp"
#include "plugin_record.hpp"

namespace devplug::detail {
namespace {

std::atomic<uint64_t> next_tensor_id{1};
std::atomic<uint64_t> next_serial{1};

// Gives a new tensor (storage and layout set) its id and descriptor.
void finish(devplug_tensor_t* tensor) {
  tensor->id = next_tensor_id.fetch_add(1, std::memory_order_relaxed);
  describe(*tensor->storage, tensor->layout, &tensor->desc);
}

void link(devplug_tensor_t* tensor) {
  devplug_device_t& device = tensor->device();
  std::lock_guard<std::mutex> lock(device.tensors_mutex);
  device.tensors.insert(tensor);
}

}  // namespace

uint64_t next_storage_serial() noexcept { return next_serial.load(std::memory_order_relaxed); }

void release_storage(Storage* storage) noexcept {
  if (storage->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  storage->device->allocator.free(*storage->device, storage->buffer, storage->bytes);
  delete storage;
}

devplug_tensor_t* new_tensor(devplug_device_t& device, const Layout& layout) {
  const uint64_t bytes = dense_bytes(layout);
  sdk::allocation_fault_point("tensor storage");
  auto storage = std::make_unique<Storage>();
  sdk::allocation_fault_point("tensor");
  auto tensor = std::make_unique<devplug_tensor_t>();
  storage->device = &device;
  storage->bytes = bytes;
  storage->buffer = device.allocator.allocate(device, bytes);
  storage->serial = next_serial.fetch_add(1, std::memory_order_relaxed);
  tensor->storage = storage.release();
  tensor->layout = layout;
  finish(tensor.get());
  link(tensor.get());
  return tensor.release();
}

devplug_tensor_t* new_view(const devplug_tensor_t& base, const Layout& layout) {
  sdk::allocation_fault_point("view");
  auto tensor = std::make_unique<devplug_tensor_t>();
  tensor->storage = base.storage;
  tensor->layout = layout;
  finish(tensor.get());
  base.storage->refs.fetch_add(1, std::memory_order_relaxed);
  link(tensor.get());
  return tensor.release();
}

void release_unlinked_tensor(devplug_tensor_t* tensor) noexcept {
  Storage* storage = tensor->storage;
  tensor->magic = 0;
  delete tensor;
  release_storage(storage);
}

void release_tensor(devplug_tensor_t* tensor) noexcept {
  if (tensor == nullptr) return;
  {
    devplug_device_t& device = tensor->device();
    std::lock_guard<std::mutex> lock(device.tensors_mutex);
    device.tensors.remove(tensor);
  }
  release_unlinked_tensor(tensor);
}

}  // namespace devplug::detail
