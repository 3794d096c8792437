// SPDX-License-Identifier: Apache-2.0
// fork() after devplug initialized a plugin (see api_guard.hpp): the child inherits the
// driver's memory but not its threads, and OpenCL, Level Zero and GPU runtimes hang or fail
// in it. The child handler only sets a flag (async-signal-safe); every entry point that takes
// a handle, and context creation, then refuse with FAILED_PRECONDITION, and destroy and
// release leave the parent's objects alone.
#include <pthread.h>

#include <atomic>
#include <mutex>

#include "api_guard.hpp"

namespace devplug::detail {
namespace {

std::atomic<bool> g_initialized{false};
std::atomic<bool> g_forked{false};
std::once_flag g_atfork_once;

void on_fork_child() {
  if (g_initialized.load(std::memory_order_relaxed)) g_forked.store(true, std::memory_order_relaxed);
}

}  // namespace

void note_plugin_initialized() noexcept {
  std::call_once(g_atfork_once, [] { (void)pthread_atfork(nullptr, nullptr, &on_fork_child); });
  g_initialized.store(true, std::memory_order_relaxed);
}

bool forked_after_init() noexcept { return g_forked.load(std::memory_order_relaxed); }

void refuse_forked() {
  throw Error(DEVPLUG_CODE_FAILED_PRECONDITION,
              "devplug: this process was forked from one that had initialized devplug plugins, and device "
              "drivers do not survive fork(); use devplug in the parent only, or start the child with exec "
              "(Python multiprocessing: the 'spawn' start method)");
}

}  // namespace devplug::detail
