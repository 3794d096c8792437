// SPDX-License-Identifier: Apache-2.0
// Input values for a case: random values in each op's domain, or special values (NaN,
// +-Inf, -0.0, subnormals, integer limits, domain edges) laid out so that every pair of
// specials meets in a binary op. Also which output elements ops.def leaves unspecified.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/case.hpp"

namespace devplug::conform {

using Bytes = std::vector<uint8_t>;

// How many special values dtype `d` has (special cases use a square of that side).
int64_t special_count(devplug_dtype_t d);

// The storage contents of input `k` of `c`, placed as `p`; deterministic in (case, seed).
Bytes make_input_storage(const Case& c, size_t k, const Placement& p, uint64_t seed);

// The elements of a view in row-major logical order, read from its storage.
Bytes logical_elements(const Bytes& storage, const TensorSpec& spec, const Placement& p);

// Per output element (row-major) of output 0: true where ops.def calls the result
// unspecified (integer division by zero, float to int of NaN or out of range, ...).
std::vector<char> unspecified_mask(const Case& c, const std::vector<Bytes>& logical_inputs);

}  // namespace devplug::conform
