// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the loader, discovery and devplug-info tests: fixture paths, a context
// that is always destroyed, temporary folders, and running a program to capture its output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "devplug/devplug.h"

namespace devplug_abi_test {

// The fixture plugin built from tests/abi/fixtures for `name` (fixture_ok, ...).
inline std::string fixture(const std::string& name) {
  return std::string(DEVPLUG_FIXTURE_DIR) + "/libdevplug_" + name + ".so";
}

// The message of `error`, which is destroyed; "" for NULL.
inline std::string take_message(devplug_error_t* error) {
  if (error == nullptr) return "";
  std::string text = error->message ? error->message : "(no message)";
  devplug_error_destroy(error);
  return text;
}

// A context destroyed at scope end; discovery off unless asked.
class Context {
 public:
  explicit Context(bool discovery = false) {
    devplug_context_options_t options{};
    options.struct_size = sizeof(options);
    options.flags = DEVPLUG_CONTEXT_NO_FALLBACK | (discovery ? 0u : DEVPLUG_CONTEXT_NO_DISCOVERY);
    const std::string error = take_message(devplug_context_create(&options, &context_));
    EXPECT_EQ(error, "");
  }
  ~Context() { devplug_context_destroy(context_); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  devplug_context_t* get() const { return context_; }

  size_t plugin_count() const {
    size_t n = 0;
    EXPECT_EQ(take_message(devplug_context_plugin_count(context_, &n)), "");
    return n;
  }
  // How many loaded plugins have this name.
  size_t count_named(const std::string& name) const {
    size_t hits = 0;
    for (size_t i = 0; i < plugin_count(); ++i) {
      devplug_plugin_t* plugin = nullptr;
      EXPECT_EQ(take_message(devplug_context_get_plugin(context_, i, &plugin)), "");
      devplug_plugin_info_t info{};
      info.struct_size = sizeof(info);
      EXPECT_EQ(take_message(devplug_plugin_get_info(plugin, &info)), "");
      if (info.name && name == info.name) ++hits;
    }
    return hits;
  }
  // The recorded failure reason for `path` ("" when none); *count gets how many there are.
  std::string failure_for(const std::string& path, size_t* count = nullptr) const {
    size_t n = 0, hits = 0;
    std::string reason;
    EXPECT_EQ(take_message(devplug_context_failure_count(context_, &n)), "");
    for (size_t i = 0; i < n; ++i) {
      const char* p = nullptr;
      const char* r = nullptr;
      EXPECT_EQ(take_message(devplug_context_get_failure(context_, i, &p, &r)), "");
      if (p && (path == p || std::filesystem::path(p).filename() == std::filesystem::path(path).filename())) {
        reason = r ? r : "";
        ++hits;
      }
    }
    if (count) *count = hits;
    return reason;
  }

 private:
  devplug_context_t* context_ = nullptr;
};

// A fresh empty folder under the system's temporary folder, removed at scope end.
class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "devplug_abi_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::string& path() const { return path_; }
  // Copies `file` into the folder (keeping its name) and returns the copy's path.
  std::string add(const std::string& file) const {
    const auto target = std::filesystem::path(path_) / std::filesystem::path(file).filename();
    std::filesystem::copy_file(file, target, std::filesystem::copy_options::overwrite_existing);
    return target.string();
  }

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;  // -1 when the program did not exit normally
  std::string output;  // stdout and stderr together
};

// Runs a shell command line and captures its output and exit code.
inline CommandResult run(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  if (status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

inline std::string quoted(const std::string& text) { return "'" + text + "'"; }

}  // namespace devplug_abi_test
