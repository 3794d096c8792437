// SPDX-License-Identifier: Apache-2.0
// Registration of the GoogleTest suites: op cases by category (Unary/OpTest.Matches/<case>)
// and the ABI suite (Abi.<check>). Registration happens at run time, after the cases are
// generated; the op cases selected by the filters are run all at once in workers (so
// --jobs can spread them) by an Environment before the test bodies report them.
#pragma once

#include <string>

namespace devplug::conform {

// Registers every case of run_state(); `filter` is --filter (globs; empty: everything).
void register_op_tests(const std::string& filter);
// Registers the ABI checks whose name (abi_<check>) `filter` selects.
void register_abi_tests(const std::string& filter);

// The graph checks (graph_test.cpp), run as Abi.graph_replay and Abi.graph_misuse: problems,
// "" when none.
std::string graph_replay();
std::string graph_misuse();

// The fused-program check (fused_test.cpp), run as Abi.fused_programs: problems, "" when none.
std::string fused_programs();

// The device-native collectives check (collectives_test.cpp), run as Abi.collectives: problems,
// "" when none or when the plugin offers no collectives extension.
std::string collectives();

// The ABI check of ops.def's index contract (abi_index_values.cpp): problems, "" when kept.
std::string index_values();

}  // namespace devplug::conform
