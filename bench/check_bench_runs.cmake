# SPDX-License-Identifier: Apache-2.0
# ctest script: devplug-bench --quick runs to the end on every plugin with a device here and
# writes a table with rows for each, with no workload left unrun. Judges no figure: tests
# never assert times. Arguments: -DBENCH=<devplug-bench> -DOUT=<json file>
execute_process(COMMAND "${BENCH}" --quick --min-time 0.001 --json "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "devplug-bench said:\n${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "devplug-bench --quick failed (exit ${rc}):\n${err}")
endif()
file(READ "${OUT}" json)
string(JSON n LENGTH "${json}" rows)
if(n EQUAL 0)
  message(FATAL_ERROR "the table has no rows")
endif()
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON note GET "${json}" rows ${i} note)
  string(JSON figure GET "${json}" rows ${i} figure)
  string(JSON plugin GET "${json}" rows ${i} plugin)
  if(note MATCHES "not run|failed|INVALID|INTERNAL")
    message(FATAL_ERROR "${plugin} ${figure}: ${note}")
  endif()
endforeach()
