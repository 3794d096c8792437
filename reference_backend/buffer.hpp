// SPDX-License-Identifier: Apache-2.0
// The reference backend's buffer: plain host memory. Devices, streams and events are trivial
// because the reference backend runs every call synchronously on the calling thread.
#pragma once

#include <cstdint>
#include <type_traits>

#include "devplug/types.h"

// Host memory of `size` bytes, 64-byte aligned. Owned by the plugin (buffer_allocate /
// buffer_release).
struct devplug_buffer_handle_t {
  uint64_t size;
  unsigned char* data;
  devplug_device_handle_t* device;  // the device it was allocated on
  bool owned = true;                // false: host memory the caller lent (buffer_import_host)
};

namespace devplug::reference {

// Pointer to the first element of `t` (its byte_offset applied), typed as T. Element k of a
// walk from sdk::for_each_offset is at tensor_base<T>(t)[offset].
template <typename T>
inline T* tensor_base(const devplug_tensor_desc_t& t) {
  return reinterpret_cast<T*>(t.buffer->data + t.byte_offset);
}

// Bool elements are read as bytes (any non-zero byte is true) and written as 0/1, so that a
// bool buffer holding other byte values (a host's bytes, a bool view of other storage) never
// makes the program read an invalid `bool`. Every kernel that loads elements of a dtype that
// may be bool loads them as Storage<T>.
using BoolByte = uint8_t;

// The storage type the loops use for element type T: bytes for bool, T otherwise.
template <typename T>
using Storage = std::conditional_t<std::is_same_v<T, bool>, BoolByte, T>;

// The value of a stored element of type T: for bool, whether its byte is non-zero.
template <typename T>
inline T stored_value(Storage<T> s) {
  if constexpr (std::is_same_v<T, bool>)
    return s != 0;
  else
    return s;
}

}  // namespace devplug::reference
