// SPDX-License-Identifier: Apache-2.0
// Host tensors: refcounted storage on a device plus a Layout (see tensor.hpp).
#include "tensor.hpp"

#include <limits>
#include <memory>

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

// The last release of a storage over lent host memory: once the device's work is done (the
// memory may be unmapped right after), the plugin's buffer goes, then the lender is told.
void release_lent(Storage* storage) noexcept {
  devplug_device_t& device = *storage->device;
  try {
    device.synchronize();
  } catch (...) {  // an error of earlier work, already reported to whoever waited for it
  }
  const devplug_plugin_t& plugin = *device.plugin;
  if (devplug_error_t* e = plugin.api->buffer_release(storage->buffer)) plugin.api->error_destroy(e);
  if (storage->lent_release != nullptr) storage->lent_release(storage->lent_context);
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
  if (storage->lent)
    release_lent(storage);
  else
    storage->device->allocator.free(*storage->device, storage->buffer, storage->bytes);
  delete storage;
}

devplug_tensor_t* new_tensor_over_host(devplug_device_t& device, void* host, uint64_t size_bytes,
                                       void (*release)(void*), void* release_context) {
  const devplug_plugin_t& plugin = *device.plugin;
  if (plugin.host_memory_import == nullptr)
    throw Error(DEVPLUG_CODE_UNIMPLEMENTED, "plugin " + plugin.name +
                                                " cannot use host memory as device memory (it offers no "
                                                "host_memory_import extension)");
  if ((device.properties.capabilities & DEVPLUG_DEVICE_UNIFIED_MEMORY) == 0)
    throw Error(DEVPLUG_CODE_FAILED_PRECONDITION,
                std::string("device '") + device.properties.name +
                    "' cannot use host memory as device memory (its memory is not host memory)");
  if (size_bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    invalid_argument("size_bytes " + std::to_string(size_bytes) + " is more than a tensor can hold");
  devplug_device_handle_t* native = device.open();
  sdk::allocation_fault_point("tensor storage");
  auto storage = std::make_unique<Storage>();
  sdk::allocation_fault_point("tensor");
  auto tensor = std::make_unique<devplug_tensor_t>();
  devplug_buffer_handle_t* buffer = nullptr;
  check_plugin(plugin, plugin.host_memory_import->buffer_import_host(native, host, size_bytes, &buffer),
               "buffer_import_host");
  storage->device = &device;
  storage->bytes = size_bytes;
  storage->buffer = buffer;
  storage->lent = true;
  storage->lent_release = release;
  storage->lent_context = release_context;
  storage->serial = next_serial.fetch_add(1, std::memory_order_relaxed);
  const int64_t shape[1] = {static_cast<int64_t>(size_bytes)};
  tensor->storage = storage.release();
  tensor->layout = contiguous_layout(DEVPLUG_DTYPE_UINT8, 1, shape);
  finish(tensor.get());
  link(tensor.get());
  return tensor.release();
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
