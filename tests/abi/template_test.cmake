# SPDX-License-Identifier: Apache-2.0
# ctest script: builds sdk/template as a vendor would, against the installed package
# (find_package(devplug) through devplug_DIR), then diagnoses the result with the installed
# devplug-info --check: it must load and report zero devices with the template's note.
# Arguments: -DPREFIX=<install prefix made by the install test> -DSOURCE=<sdk/template>
# -DWORK=<scratch folder> -DGENERATOR=... -DCXX=... -DC=...
file(REMOVE_RECURSE "${WORK}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${WORK}" -G "${GENERATOR}"
          -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${C}
          "-Ddevplug_DIR=${PREFIX}/lib/cmake/devplug"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring sdk/template against the installed package failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building sdk/template failed:\n${out}\n${err}")
endif()
set(plugin "${WORK}/libdevplug_template.so")
if(NOT EXISTS "${plugin}")
  message(FATAL_ERROR "the template build made no ${plugin}")
endif()
execute_process(COMMAND env -i "${PREFIX}/bin/devplug-info" --no-discovery --check "${plugin}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "devplug-info --check said:\n${out}${err}")
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit status 2 (loads, zero devices), got ${rc}")
endif()
foreach(expected "libdevplug .* loads it as 'template' with 0 device" "zero devices: template plugin: no device"
                 "exports only devplug_plugin_get_api")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "expected /${expected}/ in the output")
  endif()
endforeach()
