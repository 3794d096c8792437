# SPDX-License-Identifier: Apache-2.0
# devplug_add_plugin(NAME [NO_INSTALL] SOURCES...)
#
# Builds a devplug plugin: a MODULE library named libdevplug_<NAME>.so that links the SDK,
# exports exactly one symbol, devplug_plugin_get_api (a version script makes every other
# symbol local, also those of static libraries and template instantiations that visibility
# flags miss), and installs into lib/devplug/plugins, unless NO_INSTALL (a plugin built for
# tests only, such as the emulated GPU). Used by in-tree plugins and, through
# find_package(devplug), by vendors.
function(devplug_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_INSTALL" "" "")
  set(target devplug_${name})
  add_library(${target} MODULE ${arg_UNPARSED_ARGUMENTS})
  if(TARGET devplug::sdk)
    target_link_libraries(${target} PRIVATE devplug::sdk)
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME "devplug_${name}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  # Refuse undefined symbols at link time: a plugin that would fail to load fails to build.
  # Not in devplug's sanitizer builds (DEVPLUG_SANITIZE), where clang's sanitizer runtime is
  # in the executable and the plugin takes its symbols from there when loaded.
  if(NOT DEVPLUG_SANITIZE)
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
  # docs/abi.md, "One symbol": one exported symbol. Written here rather than shipped as a file, so the
  # function works the same in-tree and from an installed package.
  set(map "${CMAKE_CURRENT_BINARY_DIR}/${target}.map")
  file(WRITE "${map}" "{\n  global: devplug_plugin_get_api;\n  local: *;\n};\n")
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${map}")
  if(DEFINED DEVPLUG_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${DEVPLUG_PLUGIN_OUTPUT_DIRECTORY}")
  endif()
  if(arg_NO_INSTALL)
    return()
  endif()
  if(DEFINED DEVPLUG_PLUGIN_SUBDIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${DEVPLUG_PLUGIN_SUBDIR})
  else()
    include(GNUInstallDirs)
    install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/devplug/plugins)
  endif()
endfunction()
