// SPDX-License-Identifier: Apache-2.0
/* Default options of the sanitizer runtimes, linked into every executable of a sanitizer
 * build (cmake/sanitizers.cmake), so that a test run by hand, by ctest or by CI behaves the
 * same. The runtimes ask for these through weak hooks; ASAN_OPTIONS, LSAN_OPTIONS,
 * UBSAN_OPTIONS and TSAN_OPTIONS from the environment still override them flag by flag.
 *
 * Suppressions name third-party driver libraries only, each with its reason; devplug's own
 * code is never suppressed. */

/* allocator_may_return_null: an allocation too large for the machine returns NULL, as it
 * does outside ASan, so RESOURCE_EXHAUSTED paths run instead of ASan stopping the program.
 * detect_leaks: LeakSanitizer at exit of every program (on by default on x86-64 Linux; said
 * here because load/unload cycles rely on it).
 * intercept_tls_get_addr=0: clang-14's __tls_get_addr interceptor takes a dynamic TLS block
 * whose address is 16 bytes past a page boundary for one with glibc 2.19's header and reads
 * the two words before it as the block's bounds; on glibc 2.25 and later (Debian 12: 2.36)
 * that is whatever malloc put there, and LeakSanitizer's tracer then dies scanning it
 * ("Tracer caught signal 11"), or not, by where blocks happen to land (fixed in LLVM 17,
 * https://reviews.llvm.org/D147459). Without the interceptor the dynamic TLS blocks of
 * dlopen'ed libraries (plugins, drivers) are still roots: ld.so allocates them with malloc,
 * and LeakSanitizer counts the dynamic linker's allocations as reachable
 * (use_ld_allocations, on by default). */
const char* __asan_default_options(void) {
  return "allocator_may_return_null=1:detect_leaks=1:check_initialization_order=1:strict_string_checks=1:"
         "intercept_tls_get_addr=0";
}

const char* __ubsan_default_options(void) { return "print_stacktrace=1:halt_on_error=1"; }

const char* __lsan_default_suppressions(void) {
  return
      /* PoCL 3.1 (the OpenCL driver on the CPU) never frees some of what it allocates while
       * it builds a program from SPIR (seen: 160 bytes in 3 objects from libpocl, with cold
       * caches, in 6 tests of the Level Zero CPU driver; TOOLCHAINS.md, Sanitizers). */
      "leak:libpocl.so\n"
      /* LLVM 15's objects that PoCL's compile leaves behind (seen: 750 KB in 43 objects from
       * libLLVM-15, reachable only from PoCL's leaked ones). PoCL is not built with frame
       * pointers, so these stacks end in LLVM and the line above does not reach them. */
      "leak:libLLVM-15.so\n";
}

const char* __tsan_default_options(void) { return "halt_on_error=1:second_deadlock_stack=1:history_size=4"; }
