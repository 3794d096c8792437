// SPDX-License-Identifier: Apache-2.0
// The on-disk cache of compiled kernel binaries, shared by the opencl plugin (program
// binaries) and the level_zero plugin (native module binaries): one file per key, written to
// a temporary name and renamed, so concurrent processes never see half a file. A cache that
// cannot be used is skipped silently; a binary the driver refuses is simply rebuilt.
//
// Folder: $<dir_variable>, else $XDG_CACHE_HOME/devplug/<name>, else ~/.cache/devplug/<name>.
// When $<log_variable> names a file, one line per lookup is appended to it: "compile <key>"
// or "disk <key>" (tests read it).
//
// Thread-safe: every member is const and touches only the file system.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace devplug::clc {

// FNV-1a of `text` continued from `hash`, with a separator folded in after it so that
// ("ab", "c") and ("a", "bc") differ. Start from kFnvStart.
constexpr uint64_t kFnvStart = 14695981039346656037ull;
uint64_t fnv1a(uint64_t hash, const void* data, size_t size);
uint64_t fnv1a(uint64_t hash, const std::string& text);

// 16 hex digits.
std::string hex_key(uint64_t hash);

class DiskCache {
 public:
  DiskCache(const char* name, const char* dir_variable, const char* log_variable, const char* extension);

  // The binary stored under `key`, or empty when there is none (or no cache).
  std::vector<unsigned char> read(const std::string& key) const;
  // Stores `data` under `key`; failures are ignored.
  void write(const std::string& key, const std::vector<unsigned char>& data) const;
  // Appends "<what> <key>" to the log file, when one is set.
  void log(const char* what, const std::string& key) const;
  // The file of `key` (empty when there is no cache folder).
  std::filesystem::path file(const std::string& key) const;

  // An exclusive lock on `key` across processes (flock on <key>.lock), held while it lives:
  // processes that need the same binary at once build it once, the others wait and read it.
  // Without a usable cache folder it locks nothing.
  class Lock {
   public:
    Lock(const DiskCache& cache, const std::string& key);
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    int fd_ = -1;
  };

 private:
  std::filesystem::path folder_;
  std::string log_variable_;
  std::string extension_;
};

}  // namespace devplug::clc
