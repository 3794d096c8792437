// SPDX-License-Identifier: Apache-2.0
// devplug-bench: one benchmark for every plugin that runs here, each figure next to its
// yardstick measured in the same run on the same device, and their ratio:
//
//   copy      the device's own buffer-to-buffer copy (the plugin's buffer_copy), GB/s
//   add, sum  float32 and bfloat16, GB/s moved (read and written). On CPU devices judged
//             against the physical yardstick, the same add and sum as host loops on every
//             core (host_loop.hpp) in the same run, and shown against the device's copy in
//             the note; on GPUs (cuda, hip) judged against the device's copy
//   matmul    float32 n x n x n, GFLOP/s, next to CLBlast called directly on the same OpenCL
//             device, or the reference backend on other devices. On OpenCL devices both of
//             the plugin's paths: CLBlast (DEVPLUG_OPENCL_MATMUL=clblast in this process) and
//             its own kernel (a child process with DEVPLUG_OPENCL_MATMUL=kernel)
//   dispatch  on the reference: what devplug_op_call (and devplug_elementwise) add to the
//             plugin's kernel called directly, and devplug_op_call's whole time, each next
//             to torch's at::add_out (when built against libtorch)
//   start     process start to the first result, with empty and with warm kernel caches
//             (a small child program, devplug-bench-first-result)
//   transfer  host to device, GB/s, from pageable and from pinned host memory
//             (devplug_host_allocate: the plugin's own where it offers pinned memory), each
//             next to the host's memcpy of the same bytes measured in turn with them
//
// Sizes run from 1 element to 256M so the crossover from launch-bound to bandwidth-bound
// shows; scripts/plot-bench.py draws them. Google Benchmark times every workload (one
// iteration = enqueue + synchronize, after one untimed warm-up run); figures judged against
// each other (the copy, add and sum of one dtype and size; the matmul pair) run call by call
// in turn within one benchmark (register_group). Usage:
//   devplug-bench [--plugin NAME|PATH]... [--sizes 1,1K,16M] [--quick] [--json FILE]
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "cli.hpp"
#include "registration.hpp"
#include "report.hpp"
#include "table.hpp"
#include "workloads.hpp"

namespace devplug::bench {
namespace {

namespace fs = std::filesystem;

int run(int argc, char** argv) {
  Options o;
  if (const std::optional<int> status = parse_command_line(argc, argv, &o)) return *status;

  // The OpenCL plugin's matmul row is its CLBlast path (the own kernel runs in a child).
  if (o.only.empty()) setenv("DEVPLUG_OPENCL_MATMUL", "clblast", 1);
  // PoCL's worker threads (OpenCL and the Level Zero CPU driver) pinned one per core, unless
  // the caller says otherwise: unpinned, about half of all processes ran with both workers
  // woken onto one core most of the time (perf sched: the other core 44% idle) and every
  // kernel of that process 1.5x slower, the matmul at 256 10.4 GFLOP/s instead of 15.8.
  setenv("POCL_AFFINITY", "1", 0);
  devplug_context_t* context = nullptr;
  check(devplug_context_create(nullptr, &context), "devplug_context_create");
  Plan plan;
  plan.targets = find_targets(context, o);
  if (plan.targets.empty()) {
    std::fprintf(stderr, "devplug-bench: no plugin with a device (see devplug-info)\n");
    return 1;
  }
  for (Target& t : plan.targets)
    if (t.name == "reference") plan.reference = &t;
  for (const std::string& s : o.sizes) plan.sizes.push_back(parse_size(s));
  plan.matmul_sizes = o.matmul_sizes;
  register_all(plan, o);

  Recorder recorder(o.verbose);
  benchmark::RunSpecifiedBenchmarks(&recorder);
  release_workloads();
  const std::vector<Row> rows = make_rows(plan, o, fs::canonical("/proc/self/exe").string());
  const std::string machine = machine_text();
  std::cout << "devplug-bench on " << machine << "\n";
  print_table(std::cout, rows);
  if (!o.json.empty()) write_json(o.json, rows, machine);
  devplug_context_destroy(context);
  return 0;
}

}  // namespace
}  // namespace devplug::bench

int main(int argc, char** argv) {
  try {
    return devplug::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "devplug-bench: %s\n", e.what());
    return 1;
  }
}
