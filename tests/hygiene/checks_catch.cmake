# SPDX-License-Identifier: Apache-2.0
# Plants, in a scratch git repository with the tree's .clang-format, a file that is badly
# formatted and one without an SPDX line, and requires scripts/check-format and
# scripts/check-spdx to fail on each and to pass once the file is fixed.
# cmake -DSOURCE_DIR=... -DWORK_DIR=... -P checks_catch.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
configure_file(${SOURCE_DIR}/.clang-format ${WORK_DIR}/.clang-format COPYONLY)
execute_process(COMMAND git init -q WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "git init failed in ${WORK_DIR}")
endif()

function(expect script want)
  execute_process(COMMAND ${SOURCE_DIR}/scripts/${script} ${WORK_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(want STREQUAL "fail" AND rc EQUAL 0)
    message(FATAL_ERROR "${script} passed a tree it should refuse:\n${out}")
  elseif(want STREQUAL "pass" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "${script} refused a clean tree:\n${out}")
  endif()
endfunction()

# Formatted and licensed: both pass.
file(WRITE ${WORK_DIR}/good.cpp "// SPDX-License-Identifier: Apache-2.0\nint f(int x) { return x + 1; }\n")
expect(check-format pass)
expect(check-spdx pass)

# Badly formatted (and untracked: new files count before they are added).
file(WRITE ${WORK_DIR}/bad.cpp "// SPDX-License-Identifier: Apache-2.0\nint   g( int x ){return x;}\n")
expect(check-format fail)
file(WRITE ${WORK_DIR}/bad.cpp "// SPDX-License-Identifier: Apache-2.0\nint g(int x) { return x; }\n")
expect(check-format pass)

# No licence line, in a C++ file, a Python file and a shell script.
foreach(name new.cpp tool.py)
  file(WRITE ${WORK_DIR}/${name} "int_or_print = 1\n")
  expect(check-spdx fail)
  file(REMOVE ${WORK_DIR}/${name})
endforeach()
file(WRITE ${WORK_DIR}/run "#!/bin/sh\necho hi\n")
expect(check-spdx fail)
file(WRITE ${WORK_DIR}/run "#!/bin/sh\n# SPDX-License-Identifier: Apache-2.0\necho hi\n")
expect(check-spdx pass)
