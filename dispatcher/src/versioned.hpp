// SPDX-License-Identifier: Apache-2.0
// Filling versioned structs the host passes in (plugin info, device properties, tensor
// descriptors): the caller's struct_size says how much it holds. Anything smaller than the
// struct of ABI 1.0 (`min_size`; the whole struct for those that have not grown since) is
// refused; an older host's smaller struct gets the fields it holds, a newer host's larger one
// gets ours and keeps the rest untouched, and each keeps its struct_size.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "api_guard.hpp"

namespace devplug::detail {

template <typename T>
void copy_versioned(const T& ours, T* out, const char* what, size_t min_size = sizeof(T)) {
  const size_t theirs = out->struct_size;
  if (theirs < min_size)
    invalid_argument(std::string(what) + "->struct_size is " + std::to_string(theirs) + ", at least " +
                     std::to_string(min_size) + " (the struct's first version) expected");
  const size_t n = std::min(theirs, sizeof(T));
  std::memcpy(reinterpret_cast<char*>(out) + sizeof(size_t),
              reinterpret_cast<const char*>(&ours) + sizeof(size_t), n - sizeof(size_t));
}

}  // namespace devplug::detail
