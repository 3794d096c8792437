// SPDX-License-Identifier: Apache-2.0
// `devplug-info --check PLUGIN`: says why a plugin will not load or has no devices, and
// what to do about it. Exit status: 0 the plugin loads and has devices, 1 it will not
// load, 2 it loads but reports zero devices.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace devplug::tools {

enum DoctorStatus { kDoctorOk = 0, kDoctorWillNotLoad = 1, kDoctorNoDevices = 2 };

// One line per check: "ok", "note", "warn" or "FAIL", with a "fix:" line for problems.
class Findings {
 public:
  explicit Findings(std::ostream& out) : out_(out) {}
  void ok(const std::string& what) { line("ok  ", what); }
  void note(const std::string& what) { line("note", what); }
  void warn(const std::string& what, const std::string& fix) {
    line("warn", what);
    fix_line(fix);
  }
  void fail(const std::string& what, const std::string& fix) {
    line("FAIL", what);
    fix_line(fix);
    failed_ = true;
  }
  bool failed() const { return failed_; }

 private:
  void line(const char* level, const std::string& what) {
    out_ << "  " << level << "  " << what << "\n" << std::flush;
  }
  void fix_line(const std::string& fix) {
    if (!fix.empty()) out_ << "        fix: " << fix << "\n" << std::flush;
  }
  std::ostream& out_;
  bool failed_ = false;
};

// Checks the plugin `target` (a path, or the name of a plugin found by discovery and
// `extra_plugins`) and prints the findings. Returns a DoctorStatus.
int run_doctor(const std::string& target, const std::vector<std::string>& extra_plugins, bool discovery,
               std::ostream& out);

// The checks that load the plugin (dlopen, entry point, table, initialize, devices, then
// the dispatcher's own verdict). Run in a child process by run_doctor, so a plugin that
// crashes cannot take the doctor down. Returns a DoctorStatus.
int check_loaded_plugin(const std::string& path, Findings& findings);

}  // namespace devplug::tools
