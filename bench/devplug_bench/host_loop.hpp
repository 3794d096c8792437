// SPDX-License-Identifier: Apache-2.0
// The physical yardstick of the bandwidth figures on CPU devices: the same copy, add and sum
// as plain host loops on every core (one thread per core, kept between iterations), over
// host arrays of the same dtype and size. What the machine's memory delivers to ordinary
// code, measured in the same run as the device's figures, so that a ratio carries from one
// machine to another where the device's own copy (a driver's memcpy) need not.
#pragma once

#include <cstdint>
#include <vector>

#include "devplug/devplug.h"
#include "workloads.hpp"

namespace devplug::bench {

// "host copy" (memcpy per thread), "host add" (c = a + b; bfloat16 through float32 with
// round-to-nearest-even, as the device does) and "host sum" (float32 accumulators per thread)
// of `numel` elements of float32 or bfloat16, with the amounts of bandwidth_workloads.
std::vector<Workload> host_loop_workloads(devplug_dtype_t dtype, int64_t numel);

// Threads the host loops run on: the machine's cores.
unsigned host_loop_threads();

}  // namespace devplug::bench
