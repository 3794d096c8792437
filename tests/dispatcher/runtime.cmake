# SPDX-License-Identifier: Apache-2.0
# dispatcher-runtime's tests (included by CMakeLists.txt in this folder): fixture plugins in
# several variants, built into this folder's fixtures/ (never into lib/devplug/plugins, so no
# other test discovers them), and dispatcher_runtime_test (runtime_*_test.cpp), which drives
# libdevplug through devplug.h.
set(devplug_fixture_dir ${CMAKE_CURRENT_BINARY_DIR}/fixtures)

# A dependency kept out of every rpath, so that the plugin linking it cannot load.
add_library(devplug_fixture_dependency SHARED fixture_dependency.cpp)
set_target_properties(devplug_fixture_dependency PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixture_dependency)

set(devplug_fixture_targets)
function(devplug_add_fixture variant name)
  set(target devplug_fixture_${name})
  add_library(${target} MODULE fixture_plugin.cpp)
  target_link_libraries(${target} PRIVATE devplug::sdk devplug_warnings)
  target_compile_definitions(${target} PRIVATE FIXTURE_VARIANT=${variant} FIXTURE_NAME="fixture_${name}")
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME devplug_fixture_${name}
    LIBRARY_OUTPUT_DIRECTORY ${devplug_fixture_dir}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  set(devplug_fixture_targets ${devplug_fixture_targets} ${target} PARENT_SCOPE)
endfunction()
devplug_add_fixture(0 good)
devplug_add_fixture(1 newer)
devplug_add_fixture(2 abi2)
devplug_add_fixture(3 small)
devplug_add_fixture(4 null_api)
devplug_add_fixture(5 init_fails)
devplug_add_fixture(6 no_symbol)
devplug_add_fixture(7 missing_dep)
devplug_add_fixture(8 no_device)
devplug_add_fixture(9 no_copy)
devplug_add_fixture(10 claims)
devplug_add_fixture(11 small_memory)  # tests/faults: the caching allocator's retry
target_link_libraries(devplug_fixture_missing_dep PRIVATE devplug_fixture_dependency)
set_target_properties(devplug_fixture_missing_dep PROPERTIES SKIP_BUILD_RPATH ON)

# One file per topic (runtime_*_test.cpp), their shared helpers in runtime_test_util.hpp.
add_executable(dispatcher_runtime_test
  runtime_loading_test.cpp
  runtime_memory_test.cpp
  runtime_op_call_test.cpp
  runtime_fallback_test.cpp
  runtime_elementwise_test.cpp
  runtime_stream_test.cpp
  runtime_trace_test.cpp
  runtime_arguments_test.cpp
  fixture_allocation_counter.cpp)
target_link_libraries(dispatcher_runtime_test PRIVATE devplug::devplug devplug_warnings GTest::gtest_main ${CMAKE_DL_LIBS})
add_dependencies(dispatcher_runtime_test ${devplug_fixture_targets})
target_compile_definitions(dispatcher_runtime_test PRIVATE DEVPLUG_FIXTURE_DIR="${devplug_fixture_dir}")
if(TARGET devplug_reference)
  add_dependencies(dispatcher_runtime_test devplug_reference)
  target_compile_definitions(dispatcher_runtime_test PRIVATE
    DEVPLUG_REFERENCE_PLUGIN="$<TARGET_FILE:devplug_reference>")
endif()
# The caller's DEVPLUG_* variables must not change the results.
devplug_discover_tests(dispatcher_runtime_test DISCOVERY_TIMEOUT 60
  ENVIRONMENT DEVPLUG_STRICT= DEVPLUG_PLUGIN_PATH= DEVPLUG_TRACE=)
