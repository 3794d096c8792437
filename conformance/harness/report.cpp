// SPDX-License-Identifier: Apache-2.0
// Report writers (see report.hpp).
#include "harness/report.hpp"

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "devplug/sdk/kernels.hpp"

namespace devplug::conform {
namespace {

nlohmann::json stamp_json(const Stamp& s) {
  return {{"plugin", s.plugin_name},
          {"plugin_version", s.plugin_version},
          {"plugin_path", s.plugin_path},
          {"abi", s.abi},
          {"opset", s.opset},
          {"device", s.device_name},
          {"vendor", s.device_vendor},
          {"driver", s.driver_version},
          {"devplug_version", s.devplug_version},
          {"reference", s.reference_path},
          {"date", s.date}};
}

// The matrix cell of (op, dtype): the worst status among its cases.
std::map<std::pair<devplug_op_t, devplug_dtype_t>, Status> matrix(const RunState& run) {
  std::map<std::pair<devplug_op_t, devplug_dtype_t>, Status> cells;
  auto rank = [](Status s) {
    switch (s) {
      case Status::Fail:
      case Status::Crash:
      case Status::Timeout:
      case Status::Xpass:
        return 5;
      case Status::Xfail:
        return 4;
      case Status::Fallback:
        return 3;
      case Status::Pass:
        return 2;
      default:
        return 1;
    }
  };
  for (const auto& u : run.unsupported) cells[u] = Status::Unsupported;
  for (size_t i = 0; i < run.cases.size(); ++i) {
    if (!run.ran[i]) continue;
    const auto key = std::make_pair(run.cases[i].op, run.cases[i].dtype);
    Status s = run.results[i].status;
    if (is_failure(s)) s = Status::Fail;
    auto it = cells.find(key);
    if (it == cells.end() || rank(s) > rank(it->second)) cells[key] = s;
  }
  return cells;
}

// The composite ops a device runs through their decomposition (no native kernel), as
// (op, dtype) pairs: the matrix marks their cells "decomposed", the others "native".
std::map<std::pair<devplug_op_t, devplug_dtype_t>, bool> composite_paths(const RunState& run) {
  std::map<std::pair<devplug_op_t, devplug_dtype_t>, bool> decomposed;
  for (const Case& c : run.cases)
    if (devplug_op_info(c.op)->category == DEVPLUG_CATEGORY_composite)
      decomposed[{c.op, c.dtype}] = c.decomposed;
  return decomposed;
}

// A cell's text: the status, and for a composite how it ran.
std::string cell_text(const char* mark, const std::map<std::pair<devplug_op_t, devplug_dtype_t>, bool>& paths,
                      devplug_op_t op, devplug_dtype_t d) {
  auto it = paths.find({op, d});
  if (it == paths.end()) return mark;
  return std::string(mark) + (it->second ? " (decomposed)" : " (native)");
}

std::string write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) return "cannot write " + path;
  out << text;
  return out ? "" : "error writing " + path;
}

const char* cell_mark(Status s) {
  switch (s) {
    case Status::Pass:
      return "pass";
    case Status::Unsupported:
      return "unsupported";
    case Status::Xfail:
      return "xfail";
    case Status::Fallback:
      return "fallback";
    default:
      return "FAIL";
  }
}

}  // namespace

Summary summarize(const RunState& run) {
  Summary s;
  for (size_t i = 0; i < run.cases.size(); ++i) {
    if (!run.ran[i]) continue;
    const Status st = run.results[i].status;
    if (is_failure(st))
      ++s.failed;
    else if (st == Status::Xfail)
      ++s.xfail;
    else if (st == Status::Fallback)
      ++s.fallback;
    else if (st == Status::Unsupported)
      ++s.unsupported;
    else
      ++s.passed;
    if (devplug_op_info(run.cases[i].op)->category == DEVPLUG_CATEGORY_composite)
      ++(run.cases[i].decomposed ? s.composite_decomposed : s.composite_native);
  }
  for (const AbiRecord& a : run.abi) {
    if (is_failure(a.result.status))
      ++s.failed;
    else if (a.result.status == Status::Pass)
      ++s.passed;
    else if (a.result.status == Status::Xfail)
      ++s.xfail;
    else
      ++s.skipped;
  }
  s.unsupported += static_cast<int>(run.unsupported.size());
  return s;
}

std::string write_json_report(const RunState& run, const std::string& path) {
  const Summary s = summarize(run);
  nlohmann::json j;
  j["stamp"] = stamp_json(run.stamp);
  j["summary"] = {{"passed", s.passed},
                  {"failed", s.failed},
                  {"unsupported", s.unsupported},
                  {"xfail", s.xfail},
                  {"fallback", s.fallback},
                  {"seconds", run.seconds},
                  {"composite_native", s.composite_native},
                  {"composite_decomposed", s.composite_decomposed}};
  nlohmann::json cases = nlohmann::json::array();
  for (size_t i = 0; i < run.cases.size(); ++i) {
    if (!run.ran[i]) continue;
    const Case& c = run.cases[i];
    const Result& r = run.results[i];
    nlohmann::json e = {{"name", c.name},         {"op", devplug_op_name(c.op)},
                        {"dtype", c.dtype_label}, {"layout", c.layout},
                        {"values", c.values},     {"status", status_name(r.status)},
                        {"max_ulp", r.max_ulp},   {"max_abs", r.max_abs},
                        {"max_rel", r.max_rel},   {"seconds", r.seconds}};
    if (!r.message.empty()) e["message"] = r.message;
    if (!run.xfail_reason[i].empty()) e["xfail_reason"] = run.xfail_reason[i];
    if (devplug_op_info(c.op)->category == DEVPLUG_CATEGORY_composite)
      e["path"] = c.decomposed ? "decomposed" : "native";
    cases.push_back(e);
  }
  j["cases"] = cases;
  nlohmann::json unsupported = nlohmann::json::array();
  for (const auto& u : run.unsupported)
    unsupported.push_back({{"op", devplug_op_name(u.first)}, {"dtype", devplug_dtype_name(u.second)}});
  j["unsupported"] = unsupported;
  nlohmann::json abi = nlohmann::json::array();
  for (const AbiRecord& a : run.abi)
    abi.push_back({{"name", a.name},
                   {"status", status_name(a.result.status)},
                   {"message", a.result.message},
                   {"seconds", a.result.seconds}});
  j["abi"] = abi;
  return write_text(path, j.dump(2) + "\n");
}

std::string write_markdown_report(const RunState& run, const std::string& path) {
  const Summary s = summarize(run);
  const Stamp& st = run.stamp;
  std::ostringstream md;
  md << "# devplug conformance: " << st.plugin_name << "\n\n"
     << "plugin " << st.plugin_name << " " << st.plugin_version << " (ABI " << st.abi << ", op set "
     << st.opset << "), device " << st.device_name << " (" << st.device_vendor << ", driver "
     << st.driver_version << "), devplug " << st.devplug_version << ", " << st.date << "\n\n"
     << s.passed << " passed, " << s.failed << " failed, " << s.unsupported << " unsupported, " << s.xfail
     << " xfail, " << s.fallback << " fallback in " << run.seconds
     << " s; composite cases: " << s.composite_native << " native, " << s.composite_decomposed
     << " decomposed into prims\n\n| op |";
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) md << " " << devplug_dtype_name(d) << " |";
  md << "\n| --- |";
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) md << " --- |";
  md << "\n";
  const auto cells = matrix(run);
  const auto paths = composite_paths(run);
  for (devplug_op_t op : sdk::all_ops()) {
    md << "| " << devplug_op_name(op) << " |";
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      auto it = cells.find({op, d});
      md << " " << (it == cells.end() ? "" : cell_text(cell_mark(it->second), paths, op, d)) << " |";
    }
    md << "\n";
  }
  return write_text(path, md.str());
}

std::string write_html_report(const RunState& run, const std::string& path) {
  const Summary s = summarize(run);
  const Stamp& st = run.stamp;
  std::ostringstream h;
  h << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>devplug conformance: " << st.plugin_name
    << "</title>\n<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:2px 6px}"
       ".pass{background:#cfc}.FAIL{background:#f99}.unsupported{background:#eee}.xfail{background:#ffc}"
       ".fallback{background:#cdf}</style></head><body>\n"
    << "<h1>devplug conformance: " << st.plugin_name << "</h1>\n<p>plugin " << st.plugin_name << " "
    << st.plugin_version << " (ABI " << st.abi << ", op set " << st.opset << "), device " << st.device_name
    << " (" << st.device_vendor << ", driver " << st.driver_version << "), devplug " << st.devplug_version
    << ", " << st.date << "</p>\n<p>" << s.passed << " passed, " << s.failed << " failed, " << s.unsupported
    << " unsupported, " << s.xfail << " xfail, " << s.fallback << " fallback in " << run.seconds
    << " s; composite cases: " << s.composite_native << " native, " << s.composite_decomposed
    << " decomposed into prims</p>\n<table><tr><th>op</th>";
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) h << "<th>" << devplug_dtype_name(d) << "</th>";
  h << "</tr>\n";
  const auto cells = matrix(run);
  const auto paths = composite_paths(run);
  for (devplug_op_t op : sdk::all_ops()) {
    h << "<tr><td>" << devplug_op_name(op) << "</td>";
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      auto it = cells.find({op, d});
      if (it == cells.end())
        h << "<td></td>";
      else
        h << "<td class=\"" << cell_mark(it->second) << "\">"
          << cell_text(cell_mark(it->second), paths, op, d) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n</body></html>\n";
  return write_text(path, h.str());
}

}  // namespace devplug::conform
