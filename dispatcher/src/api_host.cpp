// SPDX-License-Identifier: Apache-2.0
// C entry points: pinned host memory.
#include "api_guard.hpp"
#include "device.hpp"
#include "host_memory.hpp"

using namespace devplug::detail;

extern "C" {

DEVPLUG_API devplug_error_t* devplug_host_allocate(devplug_device_t* device, uint64_t size_bytes,
                                                   void** out_ptr) {
  return guard([&] {
    require_not_null(out_ptr, "out_ptr");
    *out_ptr = nullptr;
    require_handle(device, "device");
    *out_ptr = host_allocate(*device, size_bytes);
  });
}

DEVPLUG_API devplug_error_t* devplug_host_free(void* ptr) {
  return guard([&] {
    if (ptr != nullptr) host_free(ptr);
  });
}

DEVPLUG_API devplug_error_t* devplug_host_query(const void* ptr, devplug_device_t** out_device,
                                                bool* out_async) {
  return guard([&] {
    require_not_null(out_device, "out_device");
    bool async = false;
    *out_device = host_query(ptr, &async);
    if (out_async != nullptr) *out_async = *out_device != nullptr && async;
  });
}

}  // extern "C"
