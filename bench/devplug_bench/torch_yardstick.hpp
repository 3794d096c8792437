// SPDX-License-Identifier: Apache-2.0
// The dispatch yardstick: torch's own per-op cost, at::add_out on 1-element float32 CPU
// tensors, when devplug-bench is built against libtorch (find_package(Torch), for example
// from the checkout's .venv). Without it, has_torch() is false and the row says so.
#pragma once

#include "workloads.hpp"

namespace devplug::bench {

bool has_torch();
// at::add_out(out, a, b) on 1-element float32 CPU tensors (only when has_torch()).
Workload torch_add_out_workload();

}  // namespace devplug::bench
