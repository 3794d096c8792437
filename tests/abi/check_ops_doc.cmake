# SPDX-License-Identifier: Apache-2.0
# ctest script: fails when the committed docs/ops.md differs from the one generated from
# ops.def in this build. Arguments: -DGENERATED=<build>/docs/ops.md -DCOMMITTED=<src>/docs/ops.md
# -DBUILD_DIR=<build>
if(NOT EXISTS "${GENERATED}")
  message(FATAL_ERROR "${GENERATED} is missing: build the devplug_ops_doc target first")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${GENERATED}" "${COMMITTED}"
                RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR
    "docs/ops.md is out of date with sdk/include/devplug/ops.def (it is generated; never edit "
    "it by hand). Regenerate it with:\n"
    "  ninja -C ${BUILD_DIR} devplug_update_ops_doc\n"
    "(or: ${BUILD_DIR}/bin/gen_ops_doc ${COMMITTED}) and commit the result.")
endif()
message(STATUS "docs/ops.md matches ops.def")
