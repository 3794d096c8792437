// SPDX-License-Identifier: Apache-2.0
// Runs one case on one device through the host API: inputs placed as the case says (absent
// optional ones passed as NULL), each output poisoned and surrounded by guard bands inside
// one larger storage, then read back and checked for writes outside the output and (by the
// caller) unwritten elements.
#pragma once

#include <string>
#include <vector>

#include "devplug/devplug.h"
#include "harness/values.hpp"

namespace devplug::conform {

// Elements of poison on each side of an output, inside the same storage.
constexpr int64_t kGuardElements = 16;
// The byte every output element and guard band is poisoned with before a run.
constexpr uint8_t kPoisonByte = 0xA5;

struct Target {
  devplug_device_t* device = nullptr;
  devplug_stream_t* stream = nullptr;
};

struct Execution {
  std::string error;  // non-empty when a host call failed (the op included)
  devplug_code_t code = DEVPLUG_CODE_OK;
  Bytes output;               // output 0 in row-major order
  std::vector<Bytes> more;    // outputs 1, 2, ... of a composite (empty for an absent one)
  std::string guard_problem;  // a write outside the output view
  double seconds = 0;         // op call and synchronize
};

// The message of `error` (NULL: empty), destroying it.
std::string take_error(devplug_error_t* error);

Execution execute(const Target& target, const Case& c, const std::vector<Bytes>& input_storage,
                  const std::vector<Placement>& input_placement);

}  // namespace devplug::conform
