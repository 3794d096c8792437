// SPDX-License-Identifier: Apache-2.0
// The plan of a devplug-bench run and its timing: the plugins under test (each one's first
// device), every workload registered as a Google Benchmark (figures judged against each other
// timed in turn within one benchmark), and the Recorder that keeps each benchmark's seconds per
// iteration for the rows (report.hpp). One run, one plan: the timings live in this file's
// globals, touched from the benchmark thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "cli.hpp"
#include "devplug/devplug.h"

namespace devplug::bench {

// A plugin under test and its first device.
struct Target {
  std::string name;
  std::string path;
  devplug_plugin_t* plugin = nullptr;
  devplug_device_t* device = nullptr;
  std::string device_name;
};

// What one run measures: the targets (and the reference among them, if any), the sizes, and
// why a yardstick could not run (filled in as the benchmarks run).
struct Plan {
  std::vector<Target> targets;
  Target* reference = nullptr;
  std::vector<int64_t> sizes;
  std::vector<int64_t> matmul_sizes;
  std::map<std::string, std::string> yardstick_problems;  // key -> why the yardstick is missing
  std::map<std::string, std::string> notes;               // key -> what the row's note adds
};

// The benchmarks' errors, keyed by the benchmark's (or a group member's) name: why a figure
// did not run.
extern std::map<std::string, std::string> g_errors;

// The name of `t`'s benchmark of `what` on `dtype` at `size`: "plugin/what/dtype/size".
std::string key_of(const Target& t, const std::string& what, const std::string& dtype, int64_t size);

// The first device of each plugin in `context` that `o` asks for (every plugin with a device
// when it names none), loading the plugins it names by path first.
std::vector<Target> find_targets(devplug_context_t* context, const Options& o);

// The fusion sizes: the bandwidth sizes from 1M to 64M elements.
std::vector<int64_t> fusion_sizes(const Plan& plan);

// The transfer sizes in bytes: the bandwidth sizes from 64K elements up, as bytes of float32.
std::vector<int64_t> transfer_sizes(const Plan& plan);

// Registers a Google Benchmark for every figure of `plan` that `o` asks for.
void register_all(Plan& plan, const Options& o);

// The median seconds per iteration over the repetitions of `key`, if it ran.
std::optional<double> seconds_of(const std::string& key);

// Frees the workloads (and their tensors) of the benchmark that ran last.
void release_workloads();

// Keeps each run's seconds per iteration (a group's: each member's median call) for
// seconds_of, and prints Google Benchmark's table with --verbose, else one line per benchmark.
class Recorder : public benchmark::ConsoleReporter {
 public:
  explicit Recorder(bool verbose) : verbose_(verbose) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;

 private:
  bool verbose_;
};

}  // namespace devplug::bench
