// SPDX-License-Identifier: Apache-2.0
// Makes the conformance cases at run time from ops.def: every op x every dtype the plugin
// claims x layout classes x value classes, plus op-specific attribute variants.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "harness/case.hpp"

namespace devplug::conform {

// Whether the plugin under test declares a kernel for (op, dispatch dtype).
using ClaimFn = std::function<bool(devplug_op_t, devplug_dtype_t)>;

// Every case for every (op, dtype) ops.def allows. Pairs the plugin does not claim get
// cases only when `allow_fallback` (marked through_fallback). `seed` feeds the attributes
// drawn at random (fill values, philox seeds).
std::vector<Case> generate_cases(const ClaimFn& claimed, bool allow_fallback, uint64_t seed);

// 64-bit FNV-1a of a string: case names seed their own random streams.
uint64_t hash_name(const std::string& text);

}  // namespace devplug::conform
