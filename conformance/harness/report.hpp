// SPDX-License-Identifier: Apache-2.0
// Reports of a run: JSON (summary and every case), an op x dtype matrix as HTML and as
// Markdown. JUnit XML comes from GoogleTest's own xml output. Every report is stamped
// with the plugin, its version and ABI, the device and driver, devplug's version and the
// date.
#pragma once

#include <string>

#include "harness/run_state.hpp"

namespace devplug::conform {

struct Summary {
  int passed = 0, failed = 0, unsupported = 0, xfail = 0, fallback = 0, skipped = 0;
  int composite_native = 0, composite_decomposed = 0;  // composite cases run, by path
};
Summary summarize(const RunState& run);

// Each writes its file; on failure returns why (empty on success).
std::string write_json_report(const RunState& run, const std::string& path);
std::string write_html_report(const RunState& run, const std::string& path);
std::string write_markdown_report(const RunState& run, const std::string& path);

}  // namespace devplug::conform
