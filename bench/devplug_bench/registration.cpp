// SPDX-License-Identifier: Apache-2.0
// The plan's targets, the registration of every workload as a Google Benchmark and the
// Recorder that keeps their timings (see registration.hpp).
#include "registration.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "clblast_yardstick.hpp"
#include "host_loop.hpp"
#include "torch_yardstick.hpp"
#include "workloads.hpp"

namespace devplug::bench {

std::map<std::string, std::string> g_errors;

namespace {

namespace fs = std::filesystem;

// ---- timing: every workload is one Google Benchmark --------------------------------------

// Seconds per iteration of each benchmark, keyed by its name: one per repetition (the
// figure is their median, seconds_of).
std::map<std::string, std::vector<double>> g_samples;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The workloads being timed: built when their benchmark first runs and kept for the later
// batches of the same benchmark, so only one benchmark's tensors exist at a time.
std::vector<std::unique_ptr<Workload>> g_current;
std::string g_current_key;

// A benchmark that times several workloads in turn (register_group): its members' keys, and
// each member's median seconds per call in the benchmark's latest batch. Google Benchmark runs a
// body several times to find its iteration count and reports only the last, so the Recorder
// takes these when that report comes.
std::map<std::string, std::vector<std::string>> g_group_members;
std::map<std::string, double> g_group_last;

// The workloads of benchmark `key` (`make`'s), built (the previous benchmark's freed first)
// and run once untimed at a switch: kernel builds and first-touch page faults are not timed.
// A workload without `run` (a yardstick not available here) is kept as it is.
const std::vector<std::unique_ptr<Workload>>& current_workloads(
    const std::string& key, const std::function<std::vector<Workload>()>& make) {
  if (g_current_key != key) {
    g_current.clear();
    g_current_key.clear();
    for (Workload& w : make()) {
      if (w.run) w.run();
      g_current.push_back(std::make_unique<Workload>(std::move(w)));
    }
    g_current_key = key;
  }
  return g_current;
}

void register_workload(const std::string& key, std::function<Workload()> make, double min_time) {
  benchmark::RegisterBenchmark(
      key.c_str(),
      [key, make](benchmark::State& state) {
        try {
          Workload* w =
              current_workloads(key, [&make] { return std::vector<Workload>{make()}; }).front().get();
          if (!w->run) throw std::runtime_error("not available");
          for (auto _ : state) w->run();
        } catch (const std::exception& e) {
          g_errors[key] = e.what();
          state.SkipWithError(e.what());
        }
      })
      ->UseRealTime()
      ->MinTime(min_time)
      ->Unit(benchmark::kMicrosecond);
}

// Workloads that are judged against each other (add and sum against the copy, the CLBlast
// path against CLBlast called directly) timed as one benchmark `name`: each iteration runs
// every member once, in turn, and times each call on its own (a member's figure: the median
// call), so a figure and its yardstick are measured over the same moments. Timed as separate
// benchmarks in random order, seconds to minutes apart, two full runs on the idle machine
// read OpenCL's add bfloat16 at 256M as 1.41 and 0.67 of the copy, and the matmul pair at 64
// as 1.04 and 0.83 even as nine interleaved repetitions each: the ratio of two moments, not
// of two kernels. A member without `run` (its yardstick not available) is left out.
void register_group(const std::string& name, const std::vector<std::string>& keys,
                    std::function<std::vector<Workload>()> make, double min_time) {
  g_group_members[name] = keys;
  benchmark::RegisterBenchmark(
      name.c_str(),
      [name, keys, make](benchmark::State& state) {
        try {
          const std::vector<std::unique_ptr<Workload>>& ws = current_workloads(name, make);
          std::vector<std::vector<double>> calls(ws.size());
          for (auto _ : state)
            for (size_t i = 0; i < ws.size(); ++i) {
              if (!ws[i]->run) continue;
              const auto start = std::chrono::steady_clock::now();
              ws[i]->run();
              calls[i].push_back(
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            }
          for (size_t i = 0; i < ws.size() && i < keys.size(); ++i)
            if (!calls[i].empty()) g_group_last[keys[i]] = median(calls[i]);
        } catch (const std::exception& e) {
          for (const std::string& key : keys) g_errors[key] = e.what();
          state.SkipWithError(e.what());
        }
      })
      ->UseRealTime()
      ->MinTime(min_time * static_cast<double>(keys.size()))
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

std::string key_of(const Target& t, const std::string& what, const std::string& dtype, int64_t size) {
  return t.name + "/" + what + "/" + dtype + "/" + std::to_string(size);
}

std::vector<Target> find_targets(devplug_context_t* context, const Options& o) {
  for (const std::string& p : o.plugins)
    if (p.find('/') != std::string::npos)
      check(devplug_context_load_plugin(context, p.c_str(), nullptr), "loading " + p);
  size_t count = 0;
  check(devplug_context_device_count(context, &count), "devplug_context_device_count");
  std::vector<Target> targets;
  for (size_t i = 0; i < count; ++i) {
    Target t;
    check(devplug_context_get_device(context, i, &t.device), "devplug_context_get_device");
    check(devplug_device_get_plugin(t.device, &t.plugin), "devplug_device_get_plugin");
    bool seen = false;
    for (const Target& other : targets) seen |= other.plugin == t.plugin;
    if (seen) continue;  // the first device of each plugin
    devplug_plugin_info_t info{};
    info.struct_size = sizeof info;
    check(devplug_plugin_get_info(t.plugin, &info), "devplug_plugin_get_info");
    t.name = info.name;
    t.path = info.path;
    devplug_device_properties_t p{};
    p.struct_size = sizeof p;
    check(devplug_device_get_properties(t.device, &p), "devplug_device_get_properties");
    t.device_name = p.name;
    bool wanted = o.plugins.empty();
    for (const std::string& w : o.plugins)
      wanted |= w == t.name || fs::path(w).filename() == fs::path(t.path).filename();
    if (wanted) targets.push_back(t);
  }
  return targets;
}

std::vector<int64_t> transfer_sizes(const Plan& plan) {
  std::vector<int64_t> out;
  for (int64_t n : plan.sizes)
    if (n >= (int64_t{64} << 10)) out.push_back(4 * n);
  return out;
}

std::vector<int64_t> fusion_sizes(const Plan& plan) {
  std::vector<int64_t> out;
  for (int64_t n : plan.sizes)
    if (n >= (int64_t{1} << 20) && n <= (int64_t{64} << 20)) out.push_back(n);
  return out;
}

void register_all(Plan& plan, const Options& o) {
  const double min_time = o.min_time;
  for (Target& t : plan.targets) {
    for (devplug_dtype_t dtype : {DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_BFLOAT16})
      for (int64_t n : o.wants("bandwidth") ? plan.sizes : std::vector<int64_t>{}) {
        devplug_device_t* d = t.device;
        const char* dt = devplug_dtype_name(dtype);
        register_group(
            key_of(t, "copy+add+sum", dt, n),
            {key_of(t, "copy", dt, n), key_of(t, "add", dt, n), key_of(t, "sum", dt, n),
             key_of(t, "host copy", dt, n), key_of(t, "host add", dt, n), key_of(t, "host sum", dt, n)},
            [=] {
              std::vector<Workload> all = bandwidth_workloads(d, dtype, n);
              for (Workload& w : host_loop_workloads(dtype, n)) all.push_back(std::move(w));
              return all;
            },
            min_time);
      }
    for (int64_t n : o.wants("fusion") ? fusion_sizes(plan) : std::vector<int64_t>{}) {
      // The chain unfused and fused, and the host's add of the same bytes, timed in turn.
      devplug_device_t* d = t.device;
      const std::string fused = key_of(t, "chain8 fused", "float32", n);
      register_group(
          key_of(t, "chain8", "float32", n),
          {key_of(t, "chain8 unfused", "float32", n), fused,
           key_of(t, "host add", "float32", n) + " (chain8)"},
          [=, &plan] {
            std::vector<Workload> all = fusion_workloads(d, DEVPLUG_DTYPE_FLOAT32, n, &plan.notes[fused]);
            all.push_back(std::move(host_loop_workloads(DEVPLUG_DTYPE_FLOAT32, n)[1]));  // the add
            return all;
          },
          min_time);
    }
    for (int64_t bytes : o.wants("transfer") ? transfer_sizes(plan) : std::vector<int64_t>{}) {
      devplug_device_t* d = t.device;
      register_group(
          key_of(t, "h2d", "uint8", bytes),
          {key_of(t, "h2d pageable", "uint8", bytes), key_of(t, "h2d pinned", "uint8", bytes),
           key_of(t, "host memcpy", "uint8", bytes)},
          [=] { return transfer_workloads(d, bytes); }, min_time);
    }
    for (int64_t n : o.wants("matmul") ? plan.matmul_sizes : std::vector<int64_t>{}) {
      devplug_device_t* d = t.device;
      const std::string key = key_of(t, "matmul", "float32", n);
      auto matmul = [=] { return matmul_workload(d, DEVPLUG_DTYPE_FLOAT32, n); };
      if (t.name != "opencl") {
        register_workload(key, matmul, min_time);
        continue;
      }
      // On OpenCL devices the pair judged within 5%: the plugin's CLBlast path and CLBlast.
      const std::string name = t.device_name, yardstick = key_of(t, "clblast", "float32", n);
      register_group(
          key_of(t, "matmul+clblast", "float32", n), {key, yardstick},
          [=, &plan] {
            std::string why;
            Workload direct = clblast_sgemm_workload(name, n, &why);
            if (!direct.run) plan.yardstick_problems[yardstick] = why;
            return std::vector<Workload>{matmul(), std::move(direct)};
          },
          3 * min_time);  // 100 ms calls at 1K: a few calls each at min_time moved the pair 0.88-1.01
    }
  }
  if (plan.reference != nullptr && o.wants("dispatch")) {
    Target& r = *plan.reference;
    register_workload(
        key_of(r, "op_call", "float32", 1), [d = r.device] { return op_call_workload(d); }, min_time);
    register_workload(
        key_of(r, "elementwise", "float32", 1), [d = r.device] { return elementwise_workload(d); }, min_time);
    register_workload(
        key_of(r, "direct_kernel", "float32", 1),
        [p = r.plugin, d = r.device] { return direct_kernel_workload(p, d); }, min_time);
    if (has_torch())
      register_workload(
          "torch/at::add_out/float32/1", [] { return torch_add_out_workload(); }, min_time);
  }
}

std::optional<double> seconds_of(const std::string& key) {
  auto it = g_samples.find(key);
  if (it == g_samples.end() || it->second.empty()) return std::nullopt;
  return median(it->second);
}

void release_workloads() { g_current.clear(); }

bool Recorder::ReportContext(const Context& context) {
  return verbose_ ? ConsoleReporter::ReportContext(context) : true;
}

void Recorder::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    if (run.run_type != Run::RT_Iteration || run.iterations <= 0 || run.error_occurred) continue;
    const std::string& name = run.run_name.function_name;
    if (auto group = g_group_members.find(name); group != g_group_members.end()) {
      for (const std::string& key : group->second)
        if (auto last = g_group_last.find(key); last != g_group_last.end())
          g_samples[key].push_back(last->second);
    } else {
      g_samples[name].push_back(run.real_accumulated_time / static_cast<double>(run.iterations));
    }
  }
  if (verbose_)
    ConsoleReporter::ReportRuns(runs);
  else if (!runs.empty())
    std::fprintf(stderr, "devplug-bench: %s\n", runs.front().run_name.function_name.c_str());
}

}  // namespace devplug::bench
