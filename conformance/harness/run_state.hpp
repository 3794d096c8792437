// SPDX-License-Identifier: Apache-2.0
// What one run of devplug-conform knows: options, the stamp of the plugin under test, the
// cases and their results. Shared by main.cpp, the suites and the reports; filled in the
// coordinating process only.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/case.hpp"
#include "harness/session.hpp"
#include "harness/xfail.hpp"

namespace devplug::conform {

// Who was tested, on what, when: printed on every report.
struct Stamp {
  std::string plugin_name, plugin_version, plugin_path, abi, opset;
  std::string device_name, device_vendor, driver_version;
  std::string devplug_version, reference_path, date;
};

struct AbiRecord {
  std::string name;  // abi_load_unload
  Result result;
};

struct RunState {
  Options options;
  std::string plugin_argument;  // --plugin as given, for repro lines
  std::string reference_argument;
  Stamp stamp;
  std::vector<Case> cases;
  std::vector<Result> results;            // per case
  std::vector<char> ran;                  // per case: selected and run
  std::vector<std::string> xfail_reason;  // per case: why it is expected to fail, or empty
  std::vector<std::pair<devplug_op_t, devplug_dtype_t>> unsupported;  // ops.def allows, not claimed
  std::vector<XfailEntry> xfail;                                      // the --xfail file
  std::vector<AbiRecord> abi;
  double seconds = 0;
};

RunState& run_state();

// The one-line command that reruns case `name` alone.
std::string repro_command(const std::string& name);

}  // namespace devplug::conform
