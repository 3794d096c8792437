// SPDX-License-Identifier: Apache-2.0
// The search the run-time loaders of vendor libraries share (cuBLASLt, NCCL): candidate paths
// from globs, and the first candidate that opens with every symbol the loader needs.
#pragma once

#include <dlfcn.h>
#include <glob.h>

#include <string>
#include <vector>

namespace devplug::gpu {

// Appends the paths `pattern` matches, sorted.
inline void add_glob(const std::string& pattern, std::vector<std::string>* out) {
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out->push_back(g.gl_pathv[i]);
  globfree(&g);
}

// Opens the first of `candidates` that dlopen accepts and whose symbols `resolve(handle)`
// finds (it returns "" or the name of one it lacks). Returns the handle, with `*path` set, or
// NULL with `*failure` saying why: the last library that lacked a symbol, or every path tried
// and `hint`.
template <typename Resolve>
void* open_first(const std::vector<std::string>& candidates, const Resolve& resolve, const std::string& hint,
                 std::string* path, std::string* failure) {
  std::string tried;
  failure->clear();
  for (const std::string& candidate : candidates) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      tried += (tried.empty() ? "" : ", ") + candidate;
      continue;
    }
    const std::string missing = resolve(handle);
    if (missing.empty()) {
      *path = candidate;
      return handle;
    }
    *failure = candidate + " lacks the symbol " + missing;
    dlclose(handle);
  }
  if (failure->empty()) *failure = "not found (tried " + tried + "); " + hint;
  return nullptr;
}

}  // namespace devplug::gpu
