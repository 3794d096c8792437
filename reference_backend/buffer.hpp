// The reference backend's buffer: plain host memory. Devices, streams and events are trivial
// because the reference backend runs every call synchronously on the calling thread.
#pragma once

#include <cstdint>

#include "devplug/types.h"

// Host memory of `size` bytes, 64-byte aligned. Owned by the plugin (buffer_allocate /
// buffer_release).
struct devplug_buffer_handle_t {
  uint64_t size;
  unsigned char* data;
  devplug_device_handle_t* device;  // the device it was allocated on
};

namespace devplug::reference {

// Pointer to the first element of `t` (its byte_offset applied), typed as T. Element k of a
// walk from sdk::for_each_offset is at tensor_base<T>(t)[offset].
template <typename T>
inline T* tensor_base(const devplug_tensor_desc_t& t) {
  return reinterpret_cast<T*>(t.buffer->data + t.byte_offset);
}

}  // namespace devplug::reference
