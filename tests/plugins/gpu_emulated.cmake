# SPDX-License-Identifier: Apache-2.0
# Tests of the emulated GPU (included by tests/plugins/CMakeLists.txt when
# devplug_gpu_emulated exists): its runtime against CUDA's semantics, its device math against
# 50-digit results, every kernel path of plugins/gpu_common forced and compared with the
# reference backend, and the whole conformance suite on it. All carry the label
# gpu_emulated. In a build configured with the asan preset they run everything under
# AddressSanitizer and UndefinedBehaviorSanitizer (`ctest --test-dir build-asan -L
# gpu_emulated`); UBSan stops at its first report there, so a report fails the test.
set(devplug_emu_test_env "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
add_executable(gpu_emulated_test
  ${CMAKE_CURRENT_SOURCE_DIR}/gpu_emulated_runtime_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/gpu_emulated_math_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/gpu_emulated_ccl_test.cpp)
target_link_libraries(gpu_emulated_test PRIVATE devplug_gpu_emulated_runtime devplug::sdk GTest::gtest_main devplug_warnings)
# The math test includes device_math.cuh as the emulated build compiles it.
target_include_directories(gpu_emulated_test PRIVATE ${PROJECT_SOURCE_DIR}/plugins/gpu_common)
target_compile_definitions(gpu_emulated_test PRIVATE DEVPLUG_GPU_EMULATED)
# The runtime's cases run kernels on its stream and pool threads (label threads); the device
# math cases call the math functions directly; the collectives cases (EmulatedCcl) run their
# ranks as child processes of the test.
gtest_discover_tests(gpu_emulated_test DISCOVERY_TIMEOUT 60 TEST_FILTER "EmulatedRuntime*"
  TEST_LIST gpu_emulated_runtime_TESTS PROPERTIES ENVIRONMENT "${devplug_emu_test_env}")
devplug_label_discovered(gpu_emulated_runtime_TESTS gpu_emulated threads)
devplug_threaded_targets(gpu_emulated_test)
gtest_discover_tests(gpu_emulated_test DISCOVERY_TIMEOUT 60 TEST_FILTER "-EmulatedRuntime*"
  PROPERTIES LABELS "gpu_emulated" ENVIRONMENT "${devplug_emu_test_env}")

if(TARGET devplug_reference)
  add_executable(gpu_emulated_paths_test ${CMAKE_CURRENT_SOURCE_DIR}/gpu_emulated_paths_test.cpp)
  target_link_libraries(gpu_emulated_paths_test PRIVATE devplug::sdk GTest::gtest_main devplug_warnings ${CMAKE_DL_LIBS})
  target_compile_definitions(gpu_emulated_paths_test PRIVATE
    DEVPLUG_GPU_EMULATED_PLUGIN="$<TARGET_FILE:devplug_gpu_emulated>"
    DEVPLUG_REFERENCE_PLUGIN="$<TARGET_FILE:devplug_reference>")
  add_dependencies(gpu_emulated_paths_test devplug_gpu_emulated devplug_reference)
  gtest_discover_tests(gpu_emulated_paths_test DISCOVERY_TIMEOUT 60 TEST_LIST gpu_emulated_paths_TESTS
    PROPERTIES TIMEOUT 900 ENVIRONMENT "${devplug_emu_test_env}")
  devplug_label_discovered(gpu_emulated_paths_TESTS gpu_emulated threads)
  devplug_threaded_targets(gpu_emulated_paths_test)
endif()

# The proof that matters: the whole conformance suite on the GPU kernel source, run on the
# CPU. No expected failures and nothing unsupported: every (op, dtype) of ops.def passes.
# Run from a build configured with the asan preset, the same test runs the plugin, the
# runner and the reference under AddressSanitizer and UndefinedBehaviorSanitizer.
if(TARGET devplug-conform AND TARGET devplug_reference)
  add_test(NAME conformance_gpu_emulated_full
    COMMAND ${CMAKE_COMMAND} -DCONFORM=$<TARGET_FILE:devplug-conform> -DPLUGIN=$<TARGET_FILE:devplug_gpu_emulated>
            "-DFILTER=*" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/reports/gpu_emulated_full -DEXPECT_EXIT=0
            -DEXPECT_NO_FAILURES=ON "-DEXPECT_ZERO=unsupported;xfail;fallback"
            "-DEXTRA_ARGS=--jobs=2;--reference=$<TARGET_FILE:devplug_reference>"
            -P ${PROJECT_SOURCE_DIR}/tests/conformance/check_report.cmake)
  set_tests_properties(conformance_gpu_emulated_full PROPERTIES LABELS "conformance;gpu_emulated;threads" TIMEOUT 2400
    ENVIRONMENT "${devplug_emu_test_env}")
endif()
