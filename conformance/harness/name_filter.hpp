// SPDX-License-Identifier: Apache-2.0
// --filter: globs on case and check names, separated by ':' as in --gtest_filter
// ("exp_float32_*:add_int64_*"); a name is selected when any glob matches it.
#pragma once

#include <fnmatch.h>

#include <string>

namespace devplug::conform {

// Whether `name` is selected by `filter`; an empty filter selects everything.
inline bool filter_selects(const std::string& filter, const std::string& name) {
  if (filter.empty()) return true;
  size_t start = 0;
  while (start <= filter.size()) {
    size_t end = filter.find(':', start);
    if (end == std::string::npos) end = filter.size();
    if (end > start && ::fnmatch(filter.substr(start, end - start).c_str(), name.c_str(), 0) == 0)
      return true;
    start = end + 1;
  }
  return false;
}

}  // namespace devplug::conform
