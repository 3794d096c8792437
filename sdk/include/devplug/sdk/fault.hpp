// SPDX-License-Identifier: Apache-2.0
// Allocation-failure injection, for tests (docs/reliability.md, "Faults"). With
// DEVPLUG_FAULT_ALLOC=N in the environment, every Nth allocation that passes an injection
// point fails with RESOURCE_EXHAUSTED; DEVPLUG_FAULT_ALLOC=N:K stops after K failures, so
// N:1 fails exactly the Nth allocation and the (N+1)th on succeed, which lets a test sweep
// N over every allocation of a workload and then check that the context still works.
//
// Injection points are calls to `allocation_fault_point("what")` (or `allocation_fails()`
// beside a `new (std::nothrow)`) placed right before memory is taken, so that what was taken
// before it must be given back: the SDK's table shims (buffer_allocate, stream_create, event_create) for every
// plugin built on sdk/plugin.hpp, a plugin's own scratch and staging allocations, and the
// dispatcher's tensors, streams, events, host staging and device allocations.
//
// Each shared library counts its own points (the SDK is header-only and libraries hide
// their symbols): a plugin reads the setting when it is initialized, the dispatcher when a
// context is created. Unset or 0 turns injection off; a point then costs one relaxed load.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "devplug/sdk/error.hpp"

namespace devplug::sdk {

class AllocationFaults {
 public:
  // Reads DEVPLUG_FAULT_ALLOC again and restarts the count. A malformed value turns
  // injection off.
  void arm_from_environment() noexcept {
    uint64_t every = 0, limit = 0;
    if (const char* text = std::getenv("DEVPLUG_FAULT_ALLOC"); text != nullptr && *text != '\0') {
      char* end = nullptr;
      every = std::strtoull(text, &end, 10);
      if (*end == ':') limit = std::strtoull(end + 1, &end, 10);
      if (*end != '\0') every = limit = 0;
    }
    every_.store(0, std::memory_order_relaxed);
    count_.store(0, std::memory_order_relaxed);
    failed_.store(0, std::memory_order_relaxed);
    limit_.store(limit, std::memory_order_relaxed);
    every_.store(every, std::memory_order_release);
  }

  // Counts an allocation; returns its number when it is one that must fail, else 0.
  uint64_t fails() noexcept {
    const uint64_t every = every_.load(std::memory_order_acquire);
    if (every == 0) return 0;
    const uint64_t n = count_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (n % every != 0) return 0;
    const uint64_t limit = limit_.load(std::memory_order_relaxed);
    if (limit != 0 && failed_.fetch_add(1, std::memory_order_relaxed) >= limit) return 0;
    return n;
  }

  // Throws RESOURCE_EXHAUSTED naming `what` when this allocation is one that must fail.
  void point(const char* what) {
    if (const uint64_t n = fails(); n != 0)
      fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, std::string(what) + ": injected allocation failure (allocation " +
                                                std::to_string(n) +
                                                " of this library under DEVPLUG_FAULT_ALLOC)");
  }

 private:
  std::atomic<uint64_t> every_{0};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<uint64_t> limit_{0};
};

// This library's injector.
inline AllocationFaults& allocation_faults() {
  static AllocationFaults faults;
  return faults;
}

// An injection point: throws RESOURCE_EXHAUSTED when DEVPLUG_FAULT_ALLOC says this
// allocation fails.
inline void allocation_fault_point(const char* what) { allocation_faults().point(what); }

// For a `new (std::nothrow)`: true when this allocation must fail (the caller takes its own
// out-of-memory path, as if new had returned null).
inline bool allocation_fails() noexcept { return allocation_faults().fails() != 0; }

}  // namespace devplug::sdk
