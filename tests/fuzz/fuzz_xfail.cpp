// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the conformance runner's xfail parser and matcher
// (conformance/harness/xfail.cpp) on fuzzed files and case names.
//
// Input: the text of an xfail file, a NUL byte, then a case name.
// Properties: parsing never crashes; a file it accepts gives entries whose patterns are
// single words without '#' and whose reasons are trimmed and not empty; a pattern with no
// glob characters matches the name it spells; the parse is the same with CRLF line ends.
#include <sstream>

#include "fuzz_input.hpp"
#include "harness/xfail.hpp"

using devplug::fuzz::fail;
using devplug::fuzz::FuzzInput;

namespace {

std::vector<devplug::conform::XfailEntry> parse(const std::string& text, std::string* error) {
  std::istringstream in(text);
  return devplug::conform::parse_xfail(in, "fuzz.xfail", error);
}

std::string with_crlf(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out.push_back('\r');
    out.push_back(c);
  }
  return out;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const std::string text = input.until('\0');
  const std::string name = input.rest();

  std::string error;
  const auto entries = parse(text, &error);
  if (!error.empty() && !entries.empty()) fail("an error and entries: " + error);
  for (const auto& e : entries) {
    if (e.pattern.empty() || e.pattern.find('#') != std::string::npos) fail("pattern '" + e.pattern + "'");
    for (char c : e.pattern)
      if (is_blank(c)) fail("a blank inside pattern '" + e.pattern + "'");
    if (e.reason.empty() || is_blank(e.reason.front()) || is_blank(e.reason.back()))
      fail("reason '" + e.reason + "' of pattern '" + e.pattern + "'");
    if (e.pattern.find_first_of("*?[\\") == std::string::npos &&
        devplug::conform::xfail_reason(entries, e.pattern).empty())
      fail("literal pattern '" + e.pattern + "' does not match itself");
  }
  devplug::conform::xfail_reason(entries, name);

  // A file saved with Windows line ends means the same (a CR inside a line already ends it
  // for neither).
  if (text.find('\r') == std::string::npos) {
    std::string crlf_error;
    const auto crlf = parse(with_crlf(text), &crlf_error);
    if (crlf.size() != entries.size() || crlf_error.empty() != error.empty())
      fail("CRLF changes the parse: " + std::to_string(entries.size()) + " vs " +
           std::to_string(crlf.size()) + " entries");
    for (size_t i = 0; i < crlf.size(); ++i)
      if (crlf[i].pattern != entries[i].pattern || crlf[i].reason != entries[i].reason)
        fail("CRLF changes entry " + std::to_string(i));
  }
  return 0;
}
