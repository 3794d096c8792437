// SPDX-License-Identifier: Apache-2.0
// Expected failures: a file of lines `pattern  reason` (a glob on case names, whitespace,
// then free text); `#` starts a comment. A case matching a pattern that fails is "xfail";
// one that passes is "xpass" and fails the run, so the list cannot go stale.
#pragma once

#include <istream>
#include <string>
#include <vector>

namespace devplug::conform {

struct XfailEntry {
  std::string pattern;
  std::string reason;
};

// Reads `path`; on failure `*error` says why.
std::vector<XfailEntry> read_xfail_file(const std::string& path, std::string* error);

// Parses the text of an xfail file; `source` names it in messages ("file.xfail:3: ...").
// On a bad line returns nothing and `*error` says why.
std::vector<XfailEntry> parse_xfail(std::istream& in, const std::string& source, std::string* error);

// The reason of the first entry matching `name`, or empty.
std::string xfail_reason(const std::vector<XfailEntry>& entries, const std::string& name);

}  // namespace devplug::conform
