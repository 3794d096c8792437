// SPDX-License-Identifier: Apache-2.0
// Expected-failure files (see xfail.hpp).
#include "harness/xfail.hpp"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace devplug::conform {

std::vector<XfailEntry> read_xfail_file(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read xfail file " + path;
    return {};
  }
  return parse_xfail(in, path, error);
}

std::vector<XfailEntry> parse_xfail(std::istream& in, const std::string& path, std::string* error) {
  std::vector<XfailEntry> entries;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    XfailEntry e;
    if (!(words >> e.pattern)) continue;
    std::getline(words, e.reason);
    // Blanks around the reason go, a CR of a CRLF file included: a reason of blanks only is
    // no reason.
    const char* blanks = " \t\r\n\v\f";
    const size_t first = e.reason.find_first_not_of(blanks);
    const size_t last = e.reason.find_last_not_of(blanks);
    e.reason = first == std::string::npos ? "" : e.reason.substr(first, last - first + 1);
    if (e.reason.empty()) {
      *error = path + ":" + std::to_string(number) + ": a pattern needs a reason";
      return {};
    }
    entries.push_back(e);
  }
  return entries;
}

std::string xfail_reason(const std::vector<XfailEntry>& entries, const std::string& name) {
  for (const XfailEntry& e : entries)
    if (::fnmatch(e.pattern.c_str(), name.c_str(), 0) == 0) return e.reason;
  return {};
}

}  // namespace devplug::conform
