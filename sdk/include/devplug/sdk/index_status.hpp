// SPDX-License-Identifier: Apache-2.0
// Index values checked on the device (ops.def, "indexing"): a kernel that meets an index
// outside [0, size) touches no memory for it and records the first such value in a small
// status block of its stream; the plugin reads the block when the stream is synchronized and
// reports INVALID_ARGUMENT there, as CUDA reports a device-side assert at the next
// synchronize. This header fixes the block's layout, which kernels of every language write
// (OpenCL C: plugins/opencl/kernels/index.cl; CUDA/HIP: plugins/gpu_common/k_index.cu), and
// the error's text, so every plugin says the same.
//
// A kernel claims the block by a 32-bit compare-and-swap of `op` from 0 to the op's id; only
// the winner writes `value` and `size`, so the first bad index found is the one reported.
// The plugin clears the block after reporting it: the stream stays usable.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "devplug/ops.h"
#include "devplug/sdk/error.hpp"

namespace devplug::sdk {

struct IndexStatus {
  int32_t op;         // DEVPLUG_OP_* of the first call that met a bad index; 0 when none did
  int32_t reserved;   // 0
  int64_t value;      // the bad index value
  int64_t size;       // the size of the indexed dim: valid values are [0, size)
  int64_t reserved2;  // 0
};
static_assert(sizeof(IndexStatus) == 32, "kernels address the block as four int64 words");

// Throws INVALID_ARGUMENT describing `status` when a kernel recorded a bad index; returns
// otherwise.
inline void throw_index_status(const IndexStatus& status) {
  if (status.op == 0) return;
  const char* name = devplug_op_name(static_cast<devplug_op_t>(status.op));
  fail(DEVPLUG_CODE_INVALID_ARGUMENT,
       std::string(name != nullptr ? name : "an index op") + ": index value " + std::to_string(status.value) +
           " is outside [0, " + std::to_string(status.size) +
           "); found on the device by work enqueued before this synchronize, whose output is unspecified");
}

// Runs `check` (a plugin's read of the status block) and returns what it threw, or null:
// stream_destroy reports a pending bad index only after it has freed the stream.
template <typename Check>
std::exception_ptr index_error_of(Check&& check) noexcept {
  try {
    check();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

}  // namespace devplug::sdk
