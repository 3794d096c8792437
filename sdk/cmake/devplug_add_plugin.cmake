# devplug_add_plugin(NAME SOURCES...)
#
# Builds a devplug plugin: a MODULE library named libdevplug_<NAME>.so that links the SDK,
# hides every symbol but devplug_plugin_get_api, and installs into lib/devplug/plugins.
# Used by in-tree plugins and, through find_package(devplug), by vendors.
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
