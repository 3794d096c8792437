// SPDX-License-Identifier: Apache-2.0
// devplug-bench's one table: each figure next to its yardstick measured in the same run on the
// same device, their ratio, and the target the ratio is judged by. Printed as text and
// written as JSON (--json) for CI and docs/performance.md.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace devplug::bench {

struct Row {
  std::string plugin;     // "opencl"
  std::string device;     // the device's name
  std::string figure;     // "add", "sum", "matmul", "dispatch added", "first result (warm)"
  std::string dtype;      // "float32", or "" where it does not apply
  int64_t size = 0;       // elements (matmul: n of n x n x n); 0 where it does not apply
  double seconds = 0;     // per iteration
  double value = 0;       // in `unit`
  std::string unit;       // "GB/s", "GFLOP/s", "ns", "ms"
  std::string yardstick;  // "copy", "CLBlast", "at::add_out", "" when none
  double yardstick_value = 0;
  std::optional<double> ratio;  // value / yardstick_value (or as the target defines it)
  std::string target;           // "ratio >= 0.80", "" when none applies
  std::optional<bool> met;      // whether the target is met
  std::string note;             // why a yardstick is missing, ...
};

void print_table(std::ostream& out, const std::vector<Row>& rows);
void write_json(const std::string& path, const std::vector<Row>& rows, const std::string& machine);

}  // namespace devplug::bench
