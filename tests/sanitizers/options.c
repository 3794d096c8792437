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
 * here because load/unload cycles rely on it). */
const char* __asan_default_options(void) {
  return "allocator_may_return_null=1:detect_leaks=1:check_initialization_order=1:strict_string_checks=1";
}

const char* __ubsan_default_options(void) { return "print_stacktrace=1:halt_on_error=1"; }

const char* __lsan_default_suppressions(void) {
  return
      /* PoCL 3.1 (the OpenCL driver on the CPU) keeps its platform, devices, compiled
       * programs and LLVM's state in allocations it never frees, by design: it is never
       * unloaded (TOOLCHAINS.md, Sanitizers). */
      "leak:libpocl.so\n"
      /* LLVM 15, loaded by PoCL and by the Level Zero CPU test driver's SPIR-V translator,
       * keeps global registries (targets, options, passes) for the life of the process. */
      "leak:libLLVM-15.so\n"
      /* The OpenCL ICD loader's platform list is process-lifetime (ocl-icd). */
      "leak:libOpenCL.so\n"
      /* The Level Zero loader keeps its driver and layer tables for the life of the process. */
      "leak:libze_loader.so\n";
}

const char* __tsan_default_options(void) { return "halt_on_error=1:second_deadlock_stack=1:history_size=4"; }
