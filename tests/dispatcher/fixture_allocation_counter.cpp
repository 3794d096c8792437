// SPDX-License-Identifier: Apache-2.0
// Replaces the global operator new of the runtime test executable to count each thread's
// heap allocations, so that a test can prove the op-call hot path allocates nothing
// (libdevplug's calls to operator new resolve to this one). Kept in its own file so the
// compiler never sees a replaced new and delete inlined against each other. Sanitizer
// builds keep their own allocator (they must see every allocation), and the count is
// then unavailable (-1).
#include <cstdlib>
#include <new>

#include "sanitized_build.hpp"

#if !DEVPLUG_TEST_SANITIZED
namespace {
thread_local long allocations = 0;
}

long fixture_thread_allocations() { return allocations; }

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#else
long fixture_thread_allocations() { return -1; }
#endif
