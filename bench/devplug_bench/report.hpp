// SPDX-License-Identifier: Apache-2.0
// The rows of devplug-bench's table made from a run's timings: each figure's rate next to its
// yardstick's and the target their ratio is judged by, the dispatch rows, and the rows that
// time child processes (the OpenCL plugin's own matmul kernel, the start-up to a first result).
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
#include "registration.hpp"
#include "table.hpp"

namespace devplug::bench {

// The rows of every figure of `plan` that `o` asks for, from the timings the Recorder kept;
// `self` is this program's path (the child processes run it, or the start-up child beside it).
// Sorted by plugin.
std::vector<Row> make_rows(const Plan& plan, const Options& o, const std::string& self);

// The machine in one line: CPU model, cores, kernel, and whether PoCL's threads are pinned.
std::string machine_text();

}  // namespace devplug::bench
