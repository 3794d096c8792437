// SPDX-License-Identifier: Apache-2.0
// devplug-conform: proves a plugin right against the reference backend, needing nothing but
// the plugin file. See docs/conformance.md.
//
// The coordinating process never loads a plugin: a forked probe reads the plugin's claims
// and stamp, cases are generated here, and forked workers run them (harness/pool.hpp).
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <set>
#include <thread>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "devplug/devplug.h"
#include "devplug/sdk/kernels.hpp"
#include "harness/generate.hpp"
#include "harness/name_filter.hpp"
#include "harness/pool.hpp"
#include "harness/report.hpp"
#include "harness/run_state.hpp"
#include "harness/xfail.hpp"
#include "suites/suites.hpp"

namespace devplug::conform {

RunState& run_state() {
  static RunState state;
  return state;
}

std::string repro_command(const std::string& name) {
  const RunState& run = run_state();
  std::string cmd = "devplug-conform --plugin " + run.plugin_argument;
  if (!run.reference_argument.empty()) cmd += " --reference " + run.reference_argument;
  if (run.options.device != 0) cmd += " --device " + std::to_string(run.options.device);
  cmd += " --filter " + name + " --seed " + std::to_string(run.options.seed);
  if (run.options.bitwise) cmd += " --bitwise";
  if (run.options.allow_fallback) cmd += " --allow-fallback";
  return cmd;
}

namespace {

bool file_exists(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

// The plugin folder beside libdevplug (lib/devplug/plugins), found the way the dispatcher
// finds it: from where libdevplug itself was loaded.
std::string plugin_folder() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&devplug_version_string), &info) != 0 && info.dli_fname) {
    std::string lib = info.dli_fname;
    const size_t slash = lib.rfind('/');
    if (slash != std::string::npos) return lib.substr(0, slash) + "/devplug/plugins";
  }
  return "lib/devplug/plugins";
}

// PATH stays a path; NAME becomes <plugin folder>/libdevplug_NAME.so.
std::string resolve_plugin(const std::string& arg) {
  if (arg.find('/') != std::string::npos || file_exists(arg)) return arg;
  return plugin_folder() + "/libdevplug_" + arg + ".so";
}

// Runs in a forked child: loads the plugin and reports its claims and stamp as JSON.
std::string probe_json(const Options& o) {
  nlohmann::json j;
  devplug_context_t* ctx = nullptr;
  devplug_context_options_t opts{sizeof opts, DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
  std::string e = take_error(devplug_context_create(&opts, &ctx));
  devplug_plugin_t* plugin = nullptr;
  devplug_plugin_t* reference = nullptr;
  if (e.empty()) {
    e = take_error(devplug_context_load_plugin(ctx, o.reference_path.c_str(), &reference));
    if (!e.empty()) e = "loading the reference " + o.reference_path + ": " + e;
  }
  if (e.empty()) {
    e = take_error(devplug_context_load_plugin(ctx, o.plugin_path.c_str(), &plugin));
    if (!e.empty()) e = "loading " + o.plugin_path + ": " + e;
  }
  if (!e.empty()) {
    devplug_context_destroy(ctx);
    return nlohmann::json{{"error", e}}.dump();
  }
  devplug_plugin_info_t info{};
  info.struct_size = sizeof info;
  take_error(devplug_plugin_get_info(plugin, &info));
  j["name"] = info.name ? info.name : "";
  j["version"] = info.version ? info.version : "";
  j["abi"] = std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor);
  j["opset"] = std::to_string(info.opset_version);
  j["device_note"] = info.device_note ? info.device_note : "";
  size_t count = 0;
  take_error(devplug_context_device_count(ctx, &count));
  int seen = 0;
  devplug_device_t* chosen = nullptr;  // device --device of this plugin
  for (size_t i = 0; i < count; ++i) {
    devplug_device_t* dev = nullptr;
    devplug_plugin_t* owner = nullptr;
    take_error(devplug_context_get_device(ctx, i, &dev));
    take_error(devplug_device_get_plugin(dev, &owner));
    if (owner != plugin || seen++ != o.device) continue;
    chosen = dev;
    devplug_device_properties_t p{};
    p.struct_size = sizeof p;
    take_error(devplug_device_get_properties(dev, &p));
    j["device"] = p.name;
    j["vendor"] = p.vendor;
    j["driver"] = p.driver_version;
    j["device_dtypes"] = p.dtypes;
  }
  // Claims are the device's (ABI 1.1: a device may run fewer dtypes than its plugin's
  // kernels declare); without a device, the plugin's declared kernels.
  nlohmann::json claims = nlohmann::json::array();
  for (devplug_op_t op : sdk::all_ops())
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      bool yes = false;
      if (chosen != nullptr)
        take_error(devplug_device_supports(chosen, op, d, &yes, nullptr));
      else
        take_error(devplug_plugin_supports(plugin, op, d, &yes, nullptr));
      if (yes) claims.push_back({op, d});
    }
  j["claims"] = claims;
  devplug_context_destroy(ctx);
  return j.dump();
}

nlohmann::json probe(const Options& o) {
  Result r;
  std::string text;
  // The probe's answer travels back as the isolated body's message.
  r = run_isolated([&] { return "\x01" + probe_json(o); }, std::max(o.timeout_s, 120.0));
  if (r.status == Status::Fail && !r.message.empty() && r.message[0] == '\x01')
    return nlohmann::json::parse(r.message.substr(1), nullptr, false);
  return nlohmann::json{
      {"error", "the probe that loads the plugin " + std::string(status_name(r.status)) + ": " + r.message}};
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

}  // namespace
}  // namespace devplug::conform

int main(int argc, char** argv) {
  using namespace devplug::conform;
  // GoogleTest installs its XML writer while it initializes, so --junit is read first.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--junit" && i + 1 < argc) GTEST_FLAG_SET(output, std::string("xml:") + argv[i + 1]);
    if (arg.rfind("--junit=", 0) == 0) GTEST_FLAG_SET(output, "xml:" + arg.substr(8));
  }
  testing::InitGoogleTest(&argc, argv);  // takes the --gtest_* flags
  RunState& run = run_state();
  Options& o = run.options;
  CLI::App app{"devplug-conform: check a devplug plugin against the reference backend"};
  std::string filter, xfail_path, json_path, html_path, md_path, junit_path;
  bool list = false;
  app.add_option("--plugin", run.plugin_argument,
                 "plugin under test: a path, or NAME for lib/devplug/plugins/libdevplug_NAME.so")
      ->required();
  app.add_option("--reference", run.reference_argument,
                 "the reference plugin (default: the installed reference)");
  app.add_option("--device", o.device, "device index within the plugin");
  app.add_option("--filter", filter,
                 "globs on case names, ':' between them, e.g. 'exp_float32_*:add_int64_*'");
  app.add_option("--seed", o.seed, "seed of the random input values");
  app.add_option("--xfail", xfail_path, "file of expected failures: lines 'pattern  reason'");
  app.add_flag("--bitwise", o.bitwise, "demand bit-exact results everywhere");
  app.add_flag("--allow-fallback", o.allow_fallback,
               "also run unclaimed (op, dtype) pairs through the dispatcher's CPU fallback");
  app.add_option("--timeout", o.timeout_s, "seconds a case may take before it fails as a hang");
  app.add_option("--report-json", json_path, "write the JSON report");
  app.add_option("--report-html", html_path, "write the HTML op x dtype matrix");
  app.add_option("--report-md", md_path, "write the Markdown op x dtype matrix");
  app.add_option("--junit", junit_path, "write JUnit XML");
  app.add_flag("--list", list, "print the case names and exit");
  // One worker per core by default, as ctest -j and make -j users expect.
  o.jobs = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  app.add_option("--jobs", o.jobs, "worker processes (default: one per core)");
  app.add_flag("--fail-fast", o.fail_fast,
               "stop at the first case that fails unexpectedly; the cases not yet run are skipped");
  CLI11_PARSE(app, argc, argv);

  o.plugin_path = resolve_plugin(run.plugin_argument);
  o.reference_path = run.reference_argument.empty() ? plugin_folder() + "/libdevplug_reference.so"
                                                    : resolve_plugin(run.reference_argument);
  const nlohmann::json info = probe(o);
  if (info.is_discarded() || info.contains("error")) {
    std::fprintf(
        stderr, "devplug-conform: %s\n",
        info.is_discarded() ? "the probe's answer was unreadable" : info["error"].get<std::string>().c_str());
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  Stamp& st = run.stamp;
  st.plugin_name = info.value("name", "");
  st.plugin_version = info.value("version", "");
  st.plugin_path = o.plugin_path;
  st.abi = info.value("abi", "");
  st.opset = info.value("opset", "");
  st.device_name = info.value("device", "(no device: " + info.value("device_note", "") + ")");
  st.device_vendor = info.value("vendor", "");
  st.driver_version = info.value("driver", "");
  st.devplug_version = devplug_version_string();
  st.reference_path = o.reference_path;
  st.date = utc_now();

  std::vector<std::vector<bool>> claimed(DEVPLUG_OP_END_, std::vector<bool>(DEVPLUG_DTYPE_COUNT, false));
  for (const auto& c : info["claims"]) claimed[c[0].get<int>()][c[1].get<int>()] = true;
  auto claims = [&](devplug_op_t op, devplug_dtype_t d) {
    return claimed[static_cast<size_t>(op)][static_cast<size_t>(d)];
  };
  // A case whose tensors include a dtype the device does not claim is not the device's to
  // run even when its dispatch dtype is claimed (a float32 -> float64 cast on a device
  // without float64): it runs through the fallback with --allow-fallback, or is unsupported.
  devplug_dtype_mask_t device_dtypes = info.value("device_dtypes", devplug_dtype_mask_t{0});
  if (device_dtypes == 0) device_dtypes = DEVPLUG_DTYPES_ALL;  // 0: every dtype
  auto device_runs = [&](const Case& c) {
    for (const auto* specs : {&c.inputs, &c.outputs})
      for (const TensorSpec& t : *specs)
        if (!t.absent && !(device_dtypes & DEVPLUG_DTYPE_BIT(t.dtype))) return false;
    return true;
  };
  std::set<std::pair<devplug_op_t, devplug_dtype_t>> unclaimed_by_device;
  for (Case& c : generate_cases(claims, o.allow_fallback, o.seed)) {
    if (!filter_selects(filter, c.name)) continue;
    if (!c.through_fallback && !device_runs(c)) {
      if (!o.allow_fallback) {
        unclaimed_by_device.insert({c.op, c.dtype});
        continue;
      }
      c.through_fallback = true;
    }
    run.cases.push_back(std::move(c));
  }
  for (const auto& pair : unclaimed_by_device) run.unsupported.push_back(pair);
  if (!o.allow_fallback)
    for (devplug_op_t op : devplug::sdk::all_ops())
      for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
        if (!(devplug_op_info(op)->dtypes & DEVPLUG_DTYPE_BIT(d)) || claims(op, d)) continue;
        if (devplug_op_info(op)->category == DEVPLUG_CATEGORY_composite)
          continue;  // decomposed, not unsupported
        const std::string probe_name =
            std::string(devplug_op_name(op)) + "_" + devplug_dtype_name(d) + "_contiguous_7x13_random";
        if (filter_selects(filter, probe_name)) run.unsupported.push_back({op, d});
      }
  if (!info.contains("device")) {
    // Without a device no op can run: say so once, and run only the ABI suite.
    std::fprintf(stderr, "devplug-conform: the plugin has no device %d (%s); only the ABI suite runs\n",
                 o.device, info.value("device_note", "no reason given").c_str());
    if (!list) {
      run.cases.clear();
      run.unsupported.clear();
    }
  }
  if (list) {
    for (const Case& c : run.cases) std::printf("%s\n", c.name.c_str());
    return 0;
  }
  run.results.assign(run.cases.size(), Result{});
  run.ran.assign(run.cases.size(), 0);
  run.xfail_reason.assign(run.cases.size(), "");
  if (!xfail_path.empty()) {
    std::string error;
    const auto entries = read_xfail_file(xfail_path, &error);
    if (!error.empty()) {
      std::fprintf(stderr, "devplug-conform: %s\n", error.c_str());
      return 2;
    }
    for (size_t i = 0; i < run.cases.size(); ++i)
      run.xfail_reason[i] = xfail_reason(entries, run.cases[i].name);
    run.xfail = entries;
  }
  std::printf(
      "devplug-conform: plugin %s %s (ABI %s) on %s, devplug %s, reference %s, seed %llu, %zu cases\n",
      st.plugin_name.c_str(), st.plugin_version.c_str(), st.abi.c_str(), st.device_name.c_str(),
      st.devplug_version.c_str(), o.reference_path.c_str(), static_cast<unsigned long long>(o.seed),
      run.cases.size());
  register_op_tests(filter);
  register_abi_tests(filter);
  testing::Test::RecordProperty("plugin", st.plugin_name + " " + st.plugin_version);
  testing::Test::RecordProperty("abi", st.abi);
  testing::Test::RecordProperty("device", st.device_name + " (driver " + st.driver_version + ")");
  testing::Test::RecordProperty("devplug_version", st.devplug_version);
  testing::Test::RecordProperty("date", st.date);
  const auto start = std::chrono::steady_clock::now();
  const int gtest_rc = RUN_ALL_TESTS();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::string error;
  if (!json_path.empty() && (error = write_json_report(run, json_path)).size())
    std::fprintf(stderr, "%s\n", error.c_str());
  if (!html_path.empty() && (error = write_html_report(run, html_path)).size())
    std::fprintf(stderr, "%s\n", error.c_str());
  if (!md_path.empty() && (error = write_markdown_report(run, md_path)).size())
    std::fprintf(stderr, "%s\n", error.c_str());
  const testing::UnitTest* unit = testing::UnitTest::GetInstance();
  std::printf("devplug-conform: %.1f s\n", run.seconds);
  std::printf("%d passed, %d failed", unit->successful_test_count(), unit->failed_test_count());
  if (unit->skipped_test_count() > 0) std::printf(", %d skipped", unit->skipped_test_count());
  std::printf("\n");
  std::fflush(stdout);
  return gtest_rc == 0 && unit->failed_test_count() == 0 ? 0 : 1;
}
