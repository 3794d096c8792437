# SPDX-License-Identifier: Apache-2.0
# Builds a sanitizer tree and runs part of its ctest (stage.cmake). Variables: TREE, PRESET,
# CTEST (the ctest program), CTEST_ARGS (a list: label selections, -j), TARGET (what to
# build; empty for all).
if(NOT EXISTS ${TREE}/CMakeCache.txt)
  message("sanitizer stage skipped: ${TREE} is not configured (scripts/run-tests makes it; "
          "by hand: cmake --preset ${PRESET} && cmake --build --preset ${PRESET})")
  return()
endif()
set(target_args)
if(TARGET)
  set(target_args --target ${TARGET})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${TREE} ${target_args} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${TREE} failed")
endif()
string(TIMESTAMP start "%s")
execute_process(COMMAND ${CTEST} --test-dir ${TREE} --output-on-failure --no-tests=error --timeout 1200 ${CTEST_ARGS}
                RESULT_VARIABLE rc)
string(TIMESTAMP stop "%s")
math(EXPR seconds "${stop} - ${start}")
message(STATUS "ctest ${CTEST_ARGS} in ${TREE}: ${seconds} s")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tests failed in ${TREE} (the list above; rerun one with ctest --test-dir ${TREE} -R NAME)")
endif()
