# SPDX-License-Identifier: Apache-2.0
# The sanitizer stage as tests of the default tree (included by CMakeLists.txt here). Each
# test builds a sanitizer tree (a no-op right after scripts/run-tests has built it; it keeps
# a tree made by hand from being stale), then runs one part of that tree's own ctest, two
# jobs at a time (PROCESSORS 2, so nothing else of this ctest runs beside it). A tree that
# was never configured is reported as skipped, with the commands that make it.
#
#   sanitizers.asan_unit         every test of the asan tree but the conformance runs and
#                                the fuzzers: unit tests, runner self-tests, load/unload cycles
#   sanitizers.asan_conformance  each plugin's conformance subset under ASan (conformance.cmake)
#   sanitizers.fuzz              each libFuzzer harness: its corpus, then DEVPLUG_FUZZ_SECONDS
#   sanitizers.tsan              every test labelled threads, but the whole conformance runs
#                                (the tsan tree builds only what they run: devplug_threaded_tests)
set(DEVPLUG_ASAN_TREE ${PROJECT_SOURCE_DIR}/build-asan CACHE PATH "The asan preset's build folder, for sanitizers.*")
set(DEVPLUG_TSAN_TREE ${PROJECT_SOURCE_DIR}/build-tsan CACHE PATH "The tsan preset's build folder, for sanitizers.tsan")

function(devplug_sanitizer_stage name tree preset ctest_args)
  set(target ${ARGN})
  add_test(NAME sanitizers.${name}
           COMMAND ${CMAKE_COMMAND} -DTREE=${tree} -DPRESET=${preset} -DCTEST=${CMAKE_CTEST_COMMAND}
                   "-DCTEST_ARGS=${ctest_args}" "-DTARGET=${target}" -P ${CMAKE_CURRENT_SOURCE_DIR}/run_tree.cmake)
  set_tests_properties(sanitizers.${name} PROPERTIES LABELS sanitizers PROCESSORS 2 TIMEOUT 3000
                       SKIP_REGULAR_EXPRESSION "sanitizer stage skipped")
endfunction()

devplug_sanitizer_stage(asan_unit ${DEVPLUG_ASAN_TREE} asan "-LE;^(conformance|sanitizer_conformance|fuzz)$;-j2")
devplug_sanitizer_stage(asan_conformance ${DEVPLUG_ASAN_TREE} asan "-L;^sanitizer_conformance$")
devplug_sanitizer_stage(fuzz ${DEVPLUG_ASAN_TREE} asan "-L;^fuzz$;-j2")
devplug_sanitizer_stage(tsan ${DEVPLUG_TSAN_TREE} tsan "-L;^threads$;-LE;^conformance$;-j2" devplug_threaded_tests)
