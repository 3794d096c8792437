// SPDX-License-Identifier: Apache-2.0
// A worker's view of the world: one context holding the plugin under test and the
// reference plugin, a device and stream of each. Made only inside forked children, so the
// coordinating process never loads a plugin (PoCL and other driver threads do not survive
// fork).
#pragma once

#include <cstdint>
#include <string>

#include "devplug/devplug.h"
#include "harness/execute.hpp"

namespace devplug::conform {

struct Options {
  std::string plugin_path;
  std::string reference_path;
  int device = 0;
  uint64_t seed = 1;
  bool bitwise = false;
  bool allow_fallback = false;
  double timeout_s = 60;
  int jobs = 1;
  bool fail_fast = false;  // stop handing out cases after the first unexpected failure
};

class Session {
 public:
  // Loads both plugins; on failure `error()` says why.
  explicit Session(const Options& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& error() const { return error_; }
  devplug_context_t* context() const { return context_; }
  devplug_plugin_t* plugin() const { return plugin_; }
  devplug_plugin_t* reference() const { return reference_; }
  const Target& target() const { return target_; }
  const Target& reference_target() const { return reference_target_; }

 private:
  std::string error_;
  devplug_context_t* context_ = nullptr;
  devplug_plugin_t* plugin_ = nullptr;
  devplug_plugin_t* reference_ = nullptr;
  Target target_, reference_target_;
};

// Runs one case in this (worker) process: reference and plugin, then the judgement.
Result run_case(Session& session, const Case& c, const Options& options);

}  // namespace devplug::conform
