// SPDX-License-Identifier: Apache-2.0
// Crash isolation: cases run in forked worker processes, so a plugin that crashes or hangs
// fails that case and the run goes on. Workers are forked before any plugin is loaded
// (the coordinator never loads one); each loads both plugins once and serves cases over a
// pipe until it dies, when it is replaced.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/session.hpp"

namespace devplug::conform {

// Runs `cases[i]` for each i in `which` on `options.jobs` workers and returns one result
// per entry of `which`. A worker runs the cases of one op and dtype together (CaseQueue),
// so kernels compiled at first use are compiled by one worker, not by all of them at once.
// `progress(done, total)` is called as results arrive. With `stop` given, once it returns
// true for a finished case (its result and its entry in `which`) no further case is handed
// out and the cases still running are ended: their entries and the rest come back empty.
std::vector<std::optional<Result>> run_in_workers(
    const Options& options, const std::vector<Case>& cases, const std::vector<size_t>& which,
    const std::function<void(size_t, size_t)>& progress,
    const std::function<bool(const Result&, size_t)>& stop = nullptr);

// Runs `body` in a forked child within `timeout_s`. The child's return value is the
// message (empty: passed). A crash or timeout becomes a Crash or Timeout result.
Result run_isolated(const std::function<std::string()>& body, double timeout_s);

// The text of a signal: "SIGSEGV (11)".
std::string signal_text(int sig);

}  // namespace devplug::conform
