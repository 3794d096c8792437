// SPDX-License-Identifier: Apache-2.0
// The SPIR-V modules embedded in the plugin at build time (spirv/build_spirv.cpp): every
// module variant the shared host code can ask for, compiled from the OpenCL plugin's kernel
// source and validated by spirv-val.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace devplug::level_zero {

struct SpirvModule {
  const unsigned char* data = nullptr;  // SPIR-V words
  size_t size = 0;                      // bytes
  uint64_t hash = 0;                    // FNV-1a of the bytes
};

// The module of kernels/<family>.cl built with `defines` (clc::module_defines), or nullptr
// when the archive has none. Thread-safe.
const SpirvModule* find_spirv(const std::string& family, const std::string& defines);

// How many module variants the archive holds (0 when it is damaged).
size_t spirv_module_count();

}  // namespace devplug::level_zero
