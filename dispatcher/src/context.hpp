// SPDX-License-Identifier: Apache-2.0
// The context: the registry of plugins, devices and load failures, the CPU-fallback state
// and counters, and the trace. One mutex guards registry changes; dispatch reads only
// immutable records and atomics, so the hot path takes no global lock.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devplug/devplug.h"
#include "plugin_record.hpp"

namespace devplug::detail {
class Trace;

struct LoadFailure {
  std::string path;
  std::string reason;
};
}  // namespace devplug::detail

struct devplug_context_t {
  static constexpr uint32_t kMagic = 0x43545854;  // "CTXT"
  static constexpr const char* kKind = "context";
  uint32_t magic = kMagic;

  bool strict = false;       // DEVPLUG_CONTEXT_STRICT or DEVPLUG_STRICT=1
  bool no_fallback = false;  // DEVPLUG_CONTEXT_NO_FALLBACK
  bool decompose = false;    // DEVPLUG_CONTEXT_DECOMPOSE or DEVPLUG_DECOMPOSE=1: composites never run native

  std::mutex mutex;                                        // plugins, devices, failures, reference loading
  std::vector<std::unique_ptr<devplug_plugin_t>> plugins;  // load order
  std::vector<devplug_device_t*> devices;                  // load order
  std::deque<devplug::detail::LoadFailure> failures;       // deque: strings never move

  // CPU fallback: the reference plugin once found or loaded (published atomically), why it
  // could not be had, the per-op counters and the one-time warnings.
  std::atomic<devplug_plugin_t*> reference{nullptr};
  std::unique_ptr<devplug_plugin_t> fallback_plugin;  // loaded for fallback only, not listed
  std::string reference_problem;
  std::atomic<uint64_t> fallback_counts[DEVPLUG_OP_END_] = {};
  std::atomic<bool> fallback_warned[DEVPLUG_OP_END_] = {};

  // Set when DEVPLUG_TRACE names a file; NULL otherwise (the only cost when unset).
  std::unique_ptr<devplug::detail::Trace> trace;

  devplug_context_t();
  ~devplug_context_t();
};

namespace devplug::detail {

// Loads the plugin at `path` into `context` (once per canonical path) and returns its record.
// On failure records (path, reason) and throws an Error: NOT_FOUND for a missing file,
// FAILED_PRECONDITION otherwise, with the reason as message. `from_discovery` skips a
// plugin whose name is already loaded from another file (returns NULL then).
devplug_plugin_t* load_plugin(devplug_context_t& context, const std::string& path,
                              bool from_discovery = false);

// Loads every plugin DEVPLUG_PLUGIN_PATH and the install's plugin folder name. Failures
// are recorded, never thrown.
void discover_plugins(devplug_context_t& context);

// The plugin files discovery would load, in order (DEVPLUG_PLUGIN_PATH entries first, then
// the install folder); folders expand to their libdevplug_*.so files sorted by name.
std::vector<std::string> discovery_candidates();

// The install's plugin folder: <folder of libdevplug.so>/devplug/plugins.
std::string install_plugin_folder();

}  // namespace devplug::detail
