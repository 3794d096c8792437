// SPDX-License-Identifier: Apache-2.0
// The rows of devplug-bench's table (see report.hpp).
#include "report.hpp"

#include <spawn.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace devplug::bench {
namespace {

namespace fs = std::filesystem;

// ---- start-up: a child process from exec to its first result ---------------------------

// A start-up child's time and the pages it had to read from disk (its major page faults:
// libraries the page cache no longer held, which a warm kernel cache does not help with).
struct ChildRun {
  double ms = -1;  // -1: it failed
  long major_faults = 0;
};

// Spawns devplug-bench-first-result (first_result.cpp, beside this program) on `plugin_path`
// with `env` added, and times it to its exit. posix_spawn, not fork: a fork copies the page
// tables of this process, which holds gigabytes of tensors by the time the start-up rows run
// (about 0.9 s of the warm rows, with the reference's as well as OpenCL's).
ChildRun time_first_result(const std::string& self, const std::string& plugin_path,
                           const std::vector<std::pair<std::string, std::string>>& env) {
  const std::string child_program = (fs::path(self).parent_path() / "devplug-bench-first-result").string();
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    bool replaced = false;
    for (const auto& [k, v] : env) replaced |= entry.rfind(k + "=", 0) == 0;
    if (!replaced) env_text.push_back(entry);
  }
  for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string program = child_program, argument = plugin_path;
  char* argv[] = {program.data(), argument.data(), nullptr};
  const auto start = std::chrono::steady_clock::now();
  pid_t child = -1;
  if (posix_spawn(&child, child_program.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return {};
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  return {ms, usage.ru_majflt};
}

// The work a yardstick's timing did, in the row's unit: the same as the row's (matmul: the
// same flops), or its own (the copy's bytes, for the bandwidth rows).
struct Yardstick {
  std::string name, key;
  double amount = 0;  // 0: the row's own amount
};

// Notes on a bandwidth row judged against the host loops its ratio to the device's copy.
void note_against_copy(Row& row, const std::string& copy_key, double copy_bytes) {
  const std::optional<double> copy = seconds_of(copy_key);
  if (!copy || row.seconds <= 0) return;
  char text[64];
  std::snprintf(text, sizeof text, "%.2f of the device copy (%.1f GB/s)",
                row.value / (copy_bytes / *copy / 1e9), copy_bytes / *copy / 1e9);
  row.note = row.note.empty() ? text : row.note + "; " + text;
}

// A row of `t`'s figure `figure` on `dtype` at `size`, to be filled in.
Row row_of(const Target& t, const std::string& figure, const std::string& dtype, int64_t size) {
  Row r;
  r.plugin = t.name;
  r.device = t.device_name;
  r.figure = figure;
  r.dtype = dtype;
  r.size = size;
  return r;
}

// Adds a row from the timing of `key`, judged against the yardstick's rate (ratio = value /
// yardstick value, target: ratio >= `min_ratio`, when min_ratio > 0).
void add_rate_row(std::vector<Row>& rows, const Plan& plan, const Target& t, const std::string& figure,
                  const std::string& key, double amount, double scale, const std::string& unit,
                  const Yardstick& yard, double min_ratio, const std::string& dtype, int64_t size) {
  Row r = row_of(t, figure, dtype, size);
  r.unit = unit;
  const std::optional<double> s = seconds_of(key);
  if (!s) {
    r.note = g_errors.count(key) ? g_errors.at(key) : "not run";
    rows.push_back(r);
    return;
  }
  r.seconds = *s;
  r.value = amount / *s / scale;
  if (!yard.key.empty()) {
    r.yardstick = yard.name;
    if (const std::optional<double> y = seconds_of(yard.key)) {
      r.yardstick_value = (yard.amount > 0 ? yard.amount : amount) / *y / scale;
      r.ratio = r.value / r.yardstick_value;
      if (min_ratio > 0) {
        char text[64];
        std::snprintf(text, sizeof text, "ratio >= %.2f", min_ratio);
        r.target = text;
        r.met = *r.ratio >= min_ratio;
      }
    } else {
      auto why = plan.yardstick_problems.find(yard.key);
      r.note = "yardstick: " + (why != plan.yardstick_problems.end() ? why->second
                                : g_errors.count(yard.key)           ? g_errors.at(yard.key)
                                                                     : "not run");
    }
  }
  rows.push_back(r);
}

// The matmul rows of `t`'s own kernel: devplug-bench again in a child process with
// DEVPLUG_OPENCL_MATMUL=kernel and --only matmul, its JSON rows judged against this run's
// CLBlast (target: at least half of it).
void add_own_kernel_rows(std::vector<Row>& rows, const Plan& plan, const Target& t, const Options& o,
                         const std::string& self) {
  const fs::path json =
      fs::temp_directory_path() / ("devplug-bench-own-" + std::to_string(getpid()) + ".json");
  std::string sizes;
  for (int64_t n : plan.matmul_sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(n);
  const std::string command = "DEVPLUG_OPENCL_MATMUL=kernel '" + self + "' --plugin '" + t.path +
                              "' --only matmul --matmul-sizes " + sizes + " --min-time " +
                              std::to_string(o.min_time) + " --json '" + json.string() + "' > /dev/null 2>&1";
  Row r;
  r.plugin = t.name;
  r.device = t.device_name;
  r.figure = "matmul (own kernel)";
  r.dtype = "float32";
  r.unit = "GFLOP/s";
  if (std::system(command.c_str()) != 0) {
    r.note = "the child run failed: " + command;
    rows.push_back(r);
    return;
  }
  std::ifstream file(json);
  const nlohmann::json j = nlohmann::json::parse(file, nullptr, false);
  std::error_code ignored;
  fs::remove(json, ignored);
  for (const auto& row : j.value("rows", nlohmann::json::array())) {
    if (row.value("figure", "") != "matmul" || row.value("plugin", "") != t.name) continue;
    Row own = r;
    own.size = row.value("size", int64_t{0});
    own.seconds = row.value("seconds", 0.0);
    own.value = row.value("value", 0.0);
    own.yardstick = "CLBlast";
    if (const std::optional<double> y = seconds_of(key_of(t, "clblast", "float32", own.size))) {
      own.yardstick_value = 2.0 * own.size * own.size * static_cast<double>(own.size) / *y / 1e9;
      own.ratio = own.value / own.yardstick_value;
      own.target = "ratio >= 0.50";
      own.met = *own.ratio >= 0.50;
    }
    rows.push_back(own);
  }
}

}  // namespace

std::vector<Row> make_rows(const Plan& plan, const Options& o, const std::string& self) {
  std::vector<Row> rows;
  for (const Target& t : plan.targets) {
    for (const char* dtype : {"float32", "bfloat16"})
      for (int64_t n : o.wants("bandwidth") ? plan.sizes : std::vector<int64_t>{}) {
        const double es = std::string(dtype) == "float32" ? 4 : 2;
        const std::string copy = key_of(t, "copy", dtype, n);
        // Elementwise and reductions: >= 80% of the copy's bandwidth from 16M elements up, on
        // the device plugins. The reference (scalar loops, the correctness yardstick) and the
        // emulated GPU (GPU code run thread by thread on fibers) are measured, not judged.
        const bool judged = t.name != "reference" && t.name != "gpu_emulated";
        const double target = judged && n >= (int64_t{16} << 20) ? 0.80 : 0;
        // Every rate is the bytes an op moves (read and written) per second. On CPU devices
        // add and sum are judged against the same loops on the host's cores (what the memory
        // delivers to plain code), with the device's copy beside them in the note; on GPUs
        // against the device's copy (2 bytes per element byte: its read and its write).
        const double copy_bytes = 2 * es * n;
        const Yardstick copy_rate{"copy", copy, copy_bytes};
        const bool gpu = t.name == "cuda" || t.name == "hip";
        const std::string host_copy = key_of(t, "host copy", dtype, n),
                          host_add = key_of(t, "host add", dtype, n),
                          host_sum = key_of(t, "host sum", dtype, n);
        add_rate_row(rows, plan, t, "copy", copy, copy_bytes, 1e9, "GB/s",
                     gpu ? Yardstick{} : Yardstick{"host copy", host_copy}, 0, dtype, n);
        add_rate_row(rows, plan, t, "add", key_of(t, "add", dtype, n), 3 * es * n, 1e9, "GB/s",
                     gpu ? copy_rate : Yardstick{"host add", host_add}, target, dtype, n);
        if (!gpu) note_against_copy(rows.back(), copy, copy_bytes);
        add_rate_row(rows, plan, t, "sum", key_of(t, "sum", dtype, n), es * n, 1e9, "GB/s",
                     gpu ? copy_rate : Yardstick{"host sum", host_sum}, target, dtype, n);
        if (!gpu) note_against_copy(rows.back(), copy, copy_bytes);
        for (const auto& [figure, key, amount] :
             {std::tuple{"host copy", host_copy, copy_bytes}, std::tuple{"host add", host_add, 3 * es * n},
              std::tuple{"host sum", host_sum, es * n}})
          add_rate_row(rows, plan, t, figure, key, amount, 1e9, "GB/s", Yardstick{}, 0, dtype, n);
      }
    for (int64_t n : o.wants("fusion") ? fusion_sizes(plan) : std::vector<int64_t>{}) {
      // A chain of 8 elementwise ops: op by op and as one fused program, each against the
      // host's add of the same bytes (CPU devices) or the device's copy (GPUs); fused against
      // unfused as a speed-up (target on the OpenCL and Level Zero devices: >= 4 at 16M).
      const double bytes = 3.0 * 4 * static_cast<double>(n);
      const bool gpu = t.name == "cuda" || t.name == "hip";
      const Yardstick yard = gpu ? Yardstick{"copy", key_of(t, "copy", "float32", n), 2.0 * 4 * n}
                                 : Yardstick{"host add", key_of(t, "host add", "float32", n) + " (chain8)"};
      const bool judged = (t.name == "opencl" || t.name == "level_zero") && n >= (int64_t{16} << 20);
      const std::string unfused = key_of(t, "chain8 unfused", "float32", n),
                        fused = key_of(t, "chain8 fused", "float32", n);
      add_rate_row(rows, plan, t, "chain8 unfused", unfused, bytes, 1e9, "GB/s", yard, 0, "float32", n);
      add_rate_row(rows, plan, t, "chain8 fused", fused, bytes, 1e9, "GB/s", yard, judged ? 0.80 : 0,
                   "float32", n);
      if (auto note = plan.notes.find(fused); note != plan.notes.end())
        rows.back().note = rows.back().note.empty() ? note->second : rows.back().note + "; " + note->second;
      const std::optional<double> u = seconds_of(unfused), f = seconds_of(fused);
      if (u && f) {
        Row speed = row_of(t, "chain8 fused speed-up", "float32", n);
        speed.seconds = *f;
        speed.value = *u / *f;
        speed.unit = "x";
        speed.yardstick = "unfused";
        speed.yardstick_value = 1;
        speed.ratio = speed.value;
        if (judged) {
          speed.target = "ratio >= 4.00";
          speed.met = speed.value >= 4;
        }
        rows.push_back(speed);
      }
    }
    for (int64_t bytes : o.wants("transfer") ? transfer_sizes(plan) : std::vector<int64_t>{}) {
      // Host to device: pageable against pinned, each judged against the host's memcpy (what
      // the memory system does with the same bytes in the same moments).
      const Yardstick memcpy_rate{"host memcpy", key_of(t, "host memcpy", "uint8", bytes)};
      for (const char* what : {"h2d pageable", "h2d pinned"})
        add_rate_row(rows, plan, t, what, key_of(t, what, "uint8", bytes), static_cast<double>(bytes), 1e9,
                     "GB/s", memcpy_rate, 0, "uint8", bytes);
    }
    for (int64_t n : o.wants("matmul") ? plan.matmul_sizes : std::vector<int64_t>{}) {
      const double flops = 2.0 * n * n * static_cast<double>(n);
      std::string yard_name, yard_key;
      double target = 0;
      if (t.name == "opencl" && o.only.empty()) {
        yard_name = "CLBlast";
        yard_key = key_of(t, "clblast", "float32", n);
        target = 0.95;  // the plugin's CLBlast path: within 5% of CLBlast called directly
      } else if (plan.reference != nullptr && &t != plan.reference) {
        yard_name = "reference";
        yard_key = key_of(*plan.reference, "matmul", "float32", n);
      }
      add_rate_row(rows, plan, t, "matmul", key_of(t, "matmul", "float32", n), flops, 1e9, "GFLOP/s",
                   Yardstick{yard_name, yard_key}, target, "float32", n);
    }
    if (t.name == "opencl" && o.only.empty() && o.wants("matmul"))
      add_own_kernel_rows(rows, plan, t, o, self);
  }
  if (plan.reference != nullptr && o.wants("dispatch")) {
    const Target& r = *plan.reference;
    const std::optional<double> op_call = seconds_of(key_of(r, "op_call", "float32", 1));
    const std::optional<double> direct = seconds_of(key_of(r, "direct_kernel", "float32", 1));
    if (op_call && direct) {
      Row added = row_of(r, "dispatch added", "float32", 1);
      added.seconds = *op_call;
      added.value = (*op_call - *direct) * 1e9;
      added.unit = "ns";
      added.target = "<= 40 ns";
      added.met = added.value <= 40;
      char note[96];
      std::snprintf(note, sizeof note, "op_call %.1f ns - direct kernel %.1f ns", *op_call * 1e9,
                    *direct * 1e9);
      added.note = note;
      rows.push_back(added);
      if (const std::optional<double> elementwise = seconds_of(key_of(r, "elementwise", "float32", 1))) {
        Row e = added;
        e.figure = "elementwise added";
        e.seconds = *elementwise;
        e.value = (*elementwise - *direct) * 1e9;
        e.target.clear();
        e.met.reset();
        e.note = "devplug_elementwise with a given output, over the direct kernel";
        rows.push_back(e);
      }
      if (const std::optional<double> torch = seconds_of("torch/at::add_out/float32/1")) {
        Row vs = added;
        vs.figure = "dispatch vs torch";
        vs.yardstick = "at::add_out";
        vs.yardstick_value = *torch * 1e9;
        vs.ratio = vs.value / vs.yardstick_value;
        vs.target = "ratio <= 0.15";
        vs.met = *vs.ratio <= 0.15;
        vs.note.clear();
        rows.push_back(vs);
        // The whole call, not only what devplug adds: devplug_op_call of the 1-element add
        // (dispatcher and kernel) over torch's at::add_out of the same add on its CPU.
        Row whole = vs;
        whole.figure = "op_call vs torch";
        whole.value = *op_call * 1e9;
        whole.ratio = whole.value / whole.yardstick_value;
        whole.met = *whole.ratio <= 0.15;
        whole.note = "devplug_op_call's whole time";
        rows.push_back(whole);
      } else {
        Row vs = added;
        vs.figure = "dispatch vs torch";
        vs.target.clear();
        vs.met.reset();
        vs.note = "built without libtorch: run frameworks/torch/setup-venv and reconfigure to compare";
        rows.push_back(vs);
      }
    }
  }
  // Start-up: empty caches (a fresh XDG_CACHE_HOME and POCL_CACHE_DIR), then warm ones.
  for (const Target& t : o.wants("start") ? plan.targets : std::vector<Target>{}) {
    const fs::path caches =
        fs::temp_directory_path() / ("devplug-bench-start-" + std::to_string(getpid()) + "-" + t.name);
    fs::create_directories(caches / "pocl");
    const std::vector<std::pair<std::string, std::string>> env = {
        {"XDG_CACHE_HOME", caches.string()},
        {"POCL_CACHE_DIR", (caches / "pocl").string()},
        {"DEVPLUG_OPENCL_CACHE_DIR", (caches / "devplug-opencl").string()}};
    for (bool warm : {false, true}) {
      Row r;
      r.plugin = t.name;
      r.device = t.device_name;
      r.figure = warm ? "first result (warm)" : "first result (cold)";
      r.unit = "ms";
      const ChildRun child = time_first_result(self, t.path, env);
      r.value = child.ms;
      r.seconds = r.value / 1e3;
      if (r.value < 0) r.note = "the child failed";
      // A warm run that read its libraries from disk (after the page cache was dropped: 0.37 s
      // and 65 major faults, against 0.05 s) times the page cache, not the kernel cache.
      if (child.major_faults > 0)
        r.note = std::to_string(child.major_faults) + " major page faults: pages read from disk";
      if (warm) {
        r.target = "<= 100 ms";
        r.met = r.value >= 0 && r.value <= 100;
      }
      rows.push_back(r);
    }
    std::error_code ignored;
    fs::remove_all(caches, ignored);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.plugin < b.plugin; });
  return rows;
}

std::string machine_text() {
  utsname u{};
  uname(&u);
  std::string cpu;
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  std::string text =
      cpu + ", " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " cores, " + u.sysname + " " + u.release;
  if (const char* pinned = std::getenv("POCL_AFFINITY"); pinned && std::string(pinned) == "1")
    text += ", PoCL threads pinned (POCL_AFFINITY=1)";
  return text;
}

}  // namespace devplug::bench
