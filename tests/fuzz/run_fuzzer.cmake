# SPDX-License-Identifier: Apache-2.0
# Runs one libFuzzer harness as a ctest test: replays its committed corpus (CORPUS, never
# written), then fuzzes for SECONDS more, keeping new inputs in WORK/new (emptied first). A
# crash, leak, timeout or broken property fails the test; the input that did it is written
# to WORK and named in the output, with the command that replays it.
#   cmake -DFUZZER=... -DCORPUS=... -DWORK=... -DSECONDS=... -P run_fuzzer.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/new)
# Leaks are checked (LeakSanitizer); an allocation the host would see fail is answered
# with NULL, as it is outside ASan, instead of aborting the run.
set(ENV{ASAN_OPTIONS} "allocator_may_return_null=1:detect_leaks=1:$ENV{ASAN_OPTIONS}")
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=20 -rss_limit_mb=3072 -print_final_stats=1
          -artifact_prefix=${WORK}/ ${WORK}/new ${CORPUS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" runs "${out}")
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second" done "${out}")
if(NOT rc EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "${FUZZER} failed (exit ${rc}); replay the input it names above with: ${FUZZER} <input>")
endif()
message(STATUS "${FUZZER}: ${done}s (${runs})")
