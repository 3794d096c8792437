// SPDX-License-Identifier: Apache-2.0
// Printing and JSON of devplug-bench's table (see table.hpp).
#include "table.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace devplug::bench {
namespace {

// 1, 1K, 64K, 16M: sizes as people say them.
std::string size_text(int64_t n) {
  if (n == 0) return "";
  const char* suffix[] = {"", "K", "M", "G"};
  int k = 0;
  while (k < 3 && n % 1024 == 0 && n >= 1024) {
    n /= 1024;
    ++k;
  }
  return std::to_string(n) + suffix[k];
}

std::string number(double v) {
  char text[32];
  if (v >= 100)
    std::snprintf(text, sizeof text, "%.0f", v);
  else if (v >= 10)
    std::snprintf(text, sizeof text, "%.1f", v);
  else
    std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace

void print_table(std::ostream& out, const std::vector<Row>& rows) {
  char line[512];
  std::string plugin;
  for (const Row& r : rows) {
    if (r.plugin != plugin) {
      plugin = r.plugin;
      out << "\n== " << r.plugin << " (" << r.device << ")\n";
      std::snprintf(line, sizeof line, "%-22s %-9s %6s %12s %14s  %-13s %14s %7s  %s\n", "figure", "dtype",
                    "size", "time/iter", "value", "yardstick", "its value", "ratio", "target");
      out << line;
    }
    const std::string time =
        r.seconds >= 1e-3 ? number(r.seconds * 1e3) + " ms" : number(r.seconds * 1e6) + " us";
    const std::string value = number(r.value) + " " + r.unit;
    const std::string yard = r.yardstick.empty() ? "" : number(r.yardstick_value) + " " + r.unit;
    const std::string ratio = r.ratio ? number(*r.ratio) : "";
    std::string target = r.target;
    if (r.met) target += *r.met ? "  met" : "  NOT MET";
    if (!r.note.empty()) target += (target.empty() ? "" : "  ") + std::string("(") + r.note + ")";
    std::snprintf(line, sizeof line, "%-22s %-9s %6s %12s %14s  %-13s %14s %7s  %s\n", r.figure.c_str(),
                  r.dtype.c_str(), size_text(r.size).c_str(), r.seconds > 0 ? time.c_str() : "",
                  value.c_str(), r.yardstick.c_str(), yard.c_str(), ratio.c_str(), target.c_str());
    out << line;
  }
}

void write_json(const std::string& path, const std::vector<Row>& rows, const std::string& machine) {
  nlohmann::json j;
  j["machine"] = machine;
  nlohmann::json list = nlohmann::json::array();
  for (const Row& r : rows) {
    nlohmann::json row = {{"plugin", r.plugin},       {"device", r.device},
                          {"figure", r.figure},       {"dtype", r.dtype},
                          {"size", r.size},           {"seconds", r.seconds},
                          {"value", r.value},         {"unit", r.unit},
                          {"yardstick", r.yardstick}, {"yardstick_value", r.yardstick_value},
                          {"target", r.target},       {"note", r.note}};
    row["ratio"] = r.ratio ? nlohmann::json(*r.ratio) : nlohmann::json(nullptr);
    row["met"] = r.met ? nlohmann::json(*r.met) : nlohmann::json(nullptr);
    list.push_back(row);
  }
  j["rows"] = list;
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write " + path);
  file << j.dump(1) << "\n";
}

}  // namespace devplug::bench
