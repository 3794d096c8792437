// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: DEVPLUG_PLUGIN_PATH parsing (dispatcher/src/plugin_path.cpp) on fuzzed
// values.
//
// Input: the value, where each '@' stands for a scratch folder made at start-up that holds
// plugin files, files that only look like plugins, and a folder named like a plugin.
// Properties: never crashes; an empty entry adds nothing (never the current directory); a
// folder entry adds exactly its libdevplug_*.so entries, sorted; any other entry is taken
// as a file, once, as written.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "fuzz_input.hpp"
#include "plugin_path.hpp"

namespace fs = std::filesystem;
using devplug::fuzz::fail;
using devplug::fuzz::FuzzInput;

namespace {

std::string scratch;  // the folder '@' names

void make_scratch() {
  char pattern[] = "/tmp/devplug-fuzz-path.XXXXXX";
  if (!::mkdtemp(pattern)) fail("cannot make a scratch folder");
  scratch = pattern;
  const fs::path root(scratch);
  fs::create_directories(root / "plugins" / "libdevplug_folder.so");
  fs::create_directories(root / "empty");
  for (const char* name : {"plugins/libdevplug_a.so", "plugins/libdevplug_b.so", "plugins/libdevplug_.so",
                           "plugins/devplug_c.so", "plugins/libdevplug_d.so.1", "libdevplug_top.so"})
    std::ofstream(root / name) << "not ELF";
}

// What the value should give, worked out independently of plugin_path.cpp.
std::vector<std::string> expected(const std::string& value) {
  std::vector<std::string> out;
  std::string entry;
  auto flush = [&] {
    if (entry.empty()) return;
    std::error_code ec;
    if (fs::is_directory(entry, ec)) {
      std::vector<std::string> files;
      for (fs::directory_iterator it(entry, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() > 14 && name.rfind("libdevplug_", 0) == 0 && name.substr(name.size() - 3) == ".so")
          files.push_back(it->path().string());
      }
      std::sort(files.begin(), files.end());
      out.insert(out.end(), files.begin(), files.end());
    } else {
      out.push_back(entry);
    }
    entry.clear();
  };
  for (char c : value) {
    if (c == ':')
      flush();
    else
      entry.push_back(c);
  }
  flush();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_scratch();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  std::string value;
  for (char c : input.rest()) {
    if (c == '@')
      value += scratch;
    else
      value.push_back(c);
  }
  const std::vector<std::string> got = devplug::detail::plugin_path_candidates(value);
  const std::vector<std::string> want = expected(value);
  if (got != want)
    fail("'" + value + "' gave " + std::to_string(got.size()) + " candidates, expected " +
         std::to_string(want.size()));
  for (const std::string& c : got)
    if (c.empty()) fail("an empty candidate from '" + value + "'");
  return 0;
}
