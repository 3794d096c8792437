// SPDX-License-Identifier: Apache-2.0
// Filling versioned structs the host passes in (plugin info, device properties, tensor
// descriptors): the caller's struct_size says how much it holds. Anything smaller than the
// ABI 1.0 struct is refused (1.0 is the first minor, so no smaller struct exists); a larger
// one (a newer host) gets our fields and keeps the rest untouched, and its struct_size.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "api_guard.hpp"

namespace devplug::detail {

template <typename T>
void copy_versioned(const T& ours, T* out, const char* what) {
  const size_t theirs = out->struct_size;
  if (theirs < sizeof(T))
    invalid_argument(std::string(what) + "->struct_size is " + std::to_string(theirs) + ", at least " +
                     std::to_string(sizeof(T)) + " (ABI 1.0) expected");
  const size_t n = std::min(theirs, sizeof(T));
  std::memcpy(reinterpret_cast<char*>(out) + sizeof(size_t),
              reinterpret_cast<const char*>(&ours) + sizeof(size_t), n - sizeof(size_t));
}

}  // namespace devplug::detail
