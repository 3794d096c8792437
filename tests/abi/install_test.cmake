# SPDX-License-Identifier: Apache-2.0
# ctest script: installs the build into a fresh prefix, then runs the installed
# `bin/devplug-info --json` with an empty environment (env -i: no LD_LIBRARY_PATH, no
# DEVPLUG_PLUGIN_PATH) and checks that it finds the reference plugin in lib/devplug/plugins
# on its own, with its devices and kernels.
# Arguments: -DBUILD_DIR=<build> -DPREFIX=<empty folder to install into>
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()

set(tool "${PREFIX}/bin/devplug-info")
if(NOT EXISTS "${tool}")
  message(FATAL_ERROR "the install has no bin/devplug-info")
endif()
execute_process(COMMAND env -i "${tool}" --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "env -i ${tool} --json failed (${rc}):\n${json}\n${err}")
endif()

file(REAL_PATH "${PREFIX}/lib/devplug/plugins" plugin_folder)
string(JSON plugin_count ERROR_VARIABLE json_error LENGTH "${json}" plugins)
if(json_error)
  message(FATAL_ERROR "devplug-info --json printed no plugin list (${json_error}):\n${json}")
endif()
set(found FALSE)
if(plugin_count GREATER 0)
  math(EXPR last "${plugin_count} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" plugins ${i} name)
    string(JSON path GET "${json}" plugins ${i} path)
    if(NOT path MATCHES "^${plugin_folder}/")
      message(FATAL_ERROR "plugin '${name}' was loaded from ${path}, outside the install (${plugin_folder})")
    endif()
    if(name STREQUAL "reference")
      set(found TRUE)
      string(JSON devices LENGTH "${json}" plugins ${i} devices)
      string(JSON kernels LENGTH "${json}" plugins ${i} kernels)
      if(devices LESS 1 OR kernels LESS 1)
        message(FATAL_ERROR "the installed reference plugin has ${devices} devices and ${kernels} kernels:\n${json}")
      endif()
      message(STATUS "installed reference plugin: ${path}, ${devices} device(s), ${kernels} op(s) with kernels")
    endif()
  endforeach()
endif()
if(NOT found)
  message(FATAL_ERROR "the installed devplug-info does not list the reference plugin from ${plugin_folder}:\n${json}\n${err}")
endif()
