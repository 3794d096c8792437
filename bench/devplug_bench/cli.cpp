// SPDX-License-Identifier: Apache-2.0
// Parsing of devplug-bench's command line (see cli.hpp).
#include "cli.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <benchmark/benchmark.h>

namespace devplug::bench {

int64_t parse_size(const std::string& text) {
  size_t used = 0;
  int64_t n = std::stoll(text, &used);
  const std::string suffix = text.substr(used);
  if (suffix == "K")
    n <<= 10;
  else if (suffix == "M")
    n <<= 20;
  else if (suffix == "G")
    n <<= 30;
  else if (!suffix.empty())
    throw CLI::ValidationError("--sizes", "bad size " + text);
  return n;
}

std::optional<int> parse_command_line(int argc, char** argv, Options* out) {
  // Google Benchmark takes the --benchmark_* flags; random interleaving is on unless given
  // (the benchmarks run in random order; figures judged against each other do not depend on
  // it, being timed together within one benchmark: register_group).
  std::vector<char*> args(argv, argv + argc);
  std::string interleave = "--benchmark_enable_random_interleaving=true";
  if (std::none_of(args.begin(), args.end(), [](const char* a) {
        return std::string(a).rfind("--benchmark_enable_random_interleaving", 0) == 0;
      }))
    args.insert(args.begin() + 1, interleave.data());
  int arg_count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&arg_count, args.data());
  argc = arg_count;
  argv = args.data();
  Options& o = *out;
  CLI::App app{"devplug-bench: every plugin's figures next to their yardsticks, in one run"};
  app.add_option("--plugin", o.plugins,
                 "plugin name or path (repeatable; default: every plugin with a device)");
  std::string sizes;
  app.add_option("--sizes", sizes,
                 "element counts, comma separated (K, M, G suffixes); default 1,1K,64K,1M,16M,64M,256M");
  app.add_option("--matmul-sizes", o.matmul_sizes, "n of the n x n x n matmuls")->delimiter(',');
  app.add_flag("--quick", o.quick, "tiny sizes and short timings: proves the program runs (CI)");
  app.add_option("--min-time", o.min_time, "seconds each figure is timed for at least");
  app.add_option("--json", o.json, "also write the table as JSON");
  app.add_flag("--verbose", o.verbose, "print Google Benchmark's own table too");
  app.add_option("--only", o.only,
                 "run only these figure families: bandwidth, fusion, transfer, matmul, dispatch, start")
      ->delimiter(',')
      ->check(CLI::IsMember({"bandwidth", "fusion", "transfer", "matmul", "dispatch", "start"}));
  CLI11_PARSE(app, argc, argv);
  if (!sizes.empty()) o.sizes = CLI::detail::split(sizes, ',');
  if (o.quick) {
    o.sizes = {"1", "4K"};
    o.matmul_sizes = {32};
    o.min_time = 0.01;
  }
  return std::nullopt;
}

}  // namespace devplug::bench
