// SPDX-License-Identifier: Apache-2.0
// Files of the kernel binary cache.
#include "disk_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace devplug::clc {

uint64_t fnv1a(uint64_t hash, const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 1099511628211ull;
  }
  return hash ^ 0xff;  // separator
}

uint64_t fnv1a(uint64_t hash, const std::string& text) { return fnv1a(hash, text.data(), text.size()); }

std::string hex_key(uint64_t hash) {
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(hash));
  return key;
}

DiskCache::DiskCache(const char* name, const char* dir_variable, const char* log_variable,
                     const char* extension)
    : log_variable_(log_variable), extension_(extension) {
  if (const char* dir = std::getenv(dir_variable); dir && *dir) {
    folder_ = dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    folder_ = std::filesystem::path(xdg) / "devplug" / name;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    folder_ = std::filesystem::path(home) / ".cache" / "devplug" / name;
  }
}

std::filesystem::path DiskCache::file(const std::string& key) const {
  if (folder_.empty()) return {};
  return folder_ / (key + extension_);
}

std::vector<unsigned char> DiskCache::read(const std::string& key) const {
  const std::filesystem::path path = file(key);
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void DiskCache::write(const std::string& key, const std::vector<unsigned char>& data) const {
  const std::filesystem::path path = file(key);
  if (path.empty() || data.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return;
  const std::filesystem::path temp = path.string() + ".tmp" + std::to_string(static_cast<long>(getpid()));
  {
    std::ofstream out(temp, std::ios::binary);
    if (!out) return;
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!out) {
      out.close();
      std::filesystem::remove(temp, ec);
      return;
    }
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) std::filesystem::remove(temp, ec);
}

DiskCache::Lock::Lock(const DiskCache& cache, const std::string& key) {
  const std::filesystem::path path = cache.file(key);
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  fd_ = ::open((path.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return;
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
  }
}

DiskCache::Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

void DiskCache::log(const char* what, const std::string& key) const {
  const char* path = std::getenv(log_variable_.c_str());
  if (path == nullptr || *path == '\0') return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s %s\n", what, key.c_str());
    std::fclose(f);
  }
}

}  // namespace devplug::clc
