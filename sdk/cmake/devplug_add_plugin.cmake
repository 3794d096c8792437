# devplug_add_plugin(NAME SOURCES...)
#
# Builds a devplug plugin: a MODULE library named libdevplug_<NAME>.so that links the SDK,
# exports exactly one symbol, devplug_plugin_get_api (a version script makes every other
# symbol local, also those of static libraries and template instantiations that visibility
# flags miss), and installs into lib/devplug/plugins. Used by in-tree plugins and, through
# find_package(devplug), by vendors.
function(devplug_add_plugin name)
  set(target devplug_${name})
  add_library(${target} MODULE ${ARGN})
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
  target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  # The ABI's rule 2: one exported symbol. Written here rather than shipped as a file, so the
  # function works the same in-tree and from an installed package.
  set(map "${CMAKE_CURRENT_BINARY_DIR}/${target}.map")
  file(WRITE "${map}" "{\n  global: devplug_plugin_get_api;\n  local: *;\n};\n")
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${map}")
  if(DEFINED DEVPLUG_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${DEVPLUG_PLUGIN_OUTPUT_DIRECTORY}")
  endif()
  if(DEFINED DEVPLUG_PLUGIN_SUBDIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${DEVPLUG_PLUGIN_SUBDIR})
  else()
    include(GNUInstallDirs)
    install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/devplug/plugins)
  endif()
endfunction()
