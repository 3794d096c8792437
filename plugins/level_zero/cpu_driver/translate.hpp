// SPDX-License-Identifier: Apache-2.0
// SPIR-V to SPIR 1.2 bitcode, in process: PoCL 3.1 does not take SPIR-V
// (clCreateProgramWithIL fails), but it builds SPIR 1.2 bitcode ("-x spir -spir-std=1.2").
// The module is validated first (SPIRV-Tools), so malformed input becomes a build log rather
// than a crash inside the translator; then the SPIRV-LLVM-Translator library (version 15,
// the LLVM PoCL is built on) reads it with specialization constants applied, and what the
// driver needs to know about each kernel is read from the LLVM module.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "driver.hpp"

namespace ze_cpu {

struct Translation {
  bool ok = false;
  std::string log;                     // why it failed
  std::vector<unsigned char> bitcode;  // SPIR 1.2 (spir64) bitcode
  std::vector<KernelInfo> kernels;
};

// `spec_constants` maps a SpecId to its value (as many bytes as the constant's type has).
// Without `fp64`, a module that declares 64-bit floats is refused, as a GPU without them does.
Translation translate_spirv(const unsigned char* spirv, size_t size,
                            const std::map<uint32_t, const void*>& spec_constants, bool fp64);

}  // namespace ze_cpu
