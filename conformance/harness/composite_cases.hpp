// SPDX-License-Identifier: Apache-2.0
// Conformance cases of the composite ops: for every composite row of ops.def and dtype, the
// shapes real models use (attention heads, layer widths, conv stems, loss batches), the
// layout classes (transposed, sliced, negative strides, broadcast, offset), optional inputs
// present and absent, 16-bit dtypes, and the edge cases each op's summary defines
// (ignore_index, label smoothing, -Inf rows, fully masked attention rows, ceil_mode windows,
// padding_idx). Output shapes come from the op's shape rule (devplug/sdk/composite.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "harness/case.hpp"

namespace devplug::conform {

// Every case of composite `info` in dispatch dtype `dtype`, named <op>_<dtype>_<layout>_<values>.
// `seed` feeds the attributes drawn at random (dropout seeds) and the fixed input values.
std::vector<Case> composite_cases(const devplug_op_info_t& info, devplug_dtype_t dtype, uint64_t seed);

}  // namespace devplug::conform
