// SPDX-License-Identifier: Apache-2.0
// devplug-bench's command line: the options (which plugins, sizes and figure families, how long
// each figure is timed, where the JSON goes) and their parsing, Google Benchmark's own
// --benchmark_* flags first, then devplug-bench's through CLI11.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace devplug::bench {

// What to measure and how, as the command line says.
struct Options {
  std::vector<std::string> plugins;  // names or paths; empty: every plugin with a device
  std::vector<std::string> sizes = {"1", "1K", "64K", "1M", "16M", "64M", "256M"};
  std::vector<int64_t> matmul_sizes = {64, 256, 1024};
  bool quick = false;
  double min_time = 0.2;
  std::string json;
  bool verbose = false;
  std::vector<std::string>
      only;  // figure families to run: bandwidth, fusion, transfer, matmul, dispatch, start
  bool wants(const std::string& family) const {
    return only.empty() || std::find(only.begin(), only.end(), family) != only.end();
  }
};

// Reads `text` as an element count with an optional K, M or G suffix (powers of 1024).
// Throws CLI::ValidationError on any other suffix.
int64_t parse_size(const std::string& text);

// Reads the command line into `*out` (--quick replaces the sizes and timings). Returns the exit
// status when the program is to stop here (--help, or a bad option, after saying why), else
// std::nullopt.
std::optional<int> parse_command_line(int argc, char** argv, Options* out);

}  // namespace devplug::bench
