// SPDX-License-Identifier: Apache-2.0
// Replaces the global operator new so tests can count heap allocations (validate_call
// must not allocate on a valid call). Kept in its own file so the compiler never sees a
// replaced new and its free() in one unit. Not in sanitizer builds (sanitized_build.hpp).
#include "allocation_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#include "sanitized_build.hpp"

#if DEVPLUG_TEST_SANITIZED
long allocation_count() { return -1; }
#else
namespace {
std::atomic<long> g_allocations{0};
}  // namespace

long allocation_count() { return g_allocations.load(); }

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif
