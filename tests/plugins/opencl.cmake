# SPDX-License-Identifier: Apache-2.0
# Tests of the OpenCL plugin (included by tests/plugins/CMakeLists.txt when devplug_opencl
# exists). They load the plugin with dlopen, as a host would; comparisons against the
# reference backend run when its plugin is built too. PoCL's own cache and the plugin's disk
# cache point into the test's temporary folder, so runs are hermetic.
add_executable(opencl_plugin_test
  ${CMAKE_CURRENT_SOURCE_DIR}/opencl_plugin_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/opencl_ops_test.cpp)
target_link_libraries(opencl_plugin_test PRIVATE opencl_family_tests devplug::sdk GTest::gtest_main devplug_warnings
                      ${CMAKE_DL_LIBS})
target_compile_definitions(opencl_plugin_test PRIVATE
  DEVPLUG_OPENCL_PLUGIN="$<TARGET_FILE:devplug_opencl>")
add_dependencies(opencl_plugin_test devplug_opencl)
if(TARGET devplug_reference)
  target_compile_definitions(opencl_plugin_test PRIVATE
    DEVPLUG_REFERENCE_PLUGIN="$<TARGET_FILE:devplug_reference>")
  add_dependencies(opencl_plugin_test devplug_reference)
endif()
gtest_discover_tests(opencl_plugin_test TEST_LIST opencl_plugin_TESTS DISCOVERY_TIMEOUT 60)
devplug_discovered_property(opencl_plugin_TESTS ENVIRONMENT POCL_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/opencl_test_cache/pocl
  DEVPLUG_OPENCL_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/opencl_test_cache/programs)

# The proof that matters: the whole conformance suite on this machine's OpenCL device (PoCL
# in CI), with the plugin's own xfail list. The first run compiles every program (minutes);
# the caches are the build's conformance caches (DEVPLUG_OPENCL_CONFORM_CACHE_ENV), which the
# torch tests then reuse (fixture opencl_programs, frameworks/torch/tests).
if(TARGET devplug-conform AND TARGET devplug_reference)
  add_test(NAME conformance_opencl_full
    COMMAND ${CMAKE_COMMAND} -DCONFORM=$<TARGET_FILE:devplug-conform> -DPLUGIN=$<TARGET_FILE:devplug_opencl>
            "-DFILTER=*" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/reports/opencl_full -DEXPECT_EXIT=0
            -DEXPECT_NO_FAILURES=ON
            "-DEXTRA_ARGS=--jobs=2;--reference=$<TARGET_FILE:devplug_reference>;--xfail=${PROJECT_SOURCE_DIR}/plugins/opencl/conformance.xfail"
            -P ${PROJECT_SOURCE_DIR}/tests/conformance/check_report.cmake)
  set_tests_properties(conformance_opencl_full PROPERTIES LABELS "conformance;opencl" TIMEOUT 2400
    FIXTURES_SETUP opencl_programs ENVIRONMENT "${DEVPLUG_OPENCL_CONFORM_CACHE_ENV}")
endif()

# matmul's CLBlast path (plugins/opencl/clblast_matmul.hpp): the full run above takes it only
# from 256^3 multiply-adds up, so the float32 matmul cases run here with DEVPLUG_OPENCL_MATMUL=
# clblast, which forces it for every call it can express and fails where CLBlast is missing.
# float32 only: CLBlast compiles its kernels per precision on first use (about 40 s each on
# PoCL with a cold cache), and float64 differs only in which CLBlast function is called. The
# plugin's own kernel keeps its coverage in the full run. A case whose first call builds one
# of CLBlast's kernels (the batched routine is another kernel) may wait for PoCL's compile:
# in a fresh-debian run beside the emulated GPU's full conformance,
# matmul_float32_batches_65537x1x2x1_random ran past the default 60 s case timeout (idle
# and warm it takes 0.1 s), so cases here may take 300 s before they count as hangs.
if(TARGET devplug-conform AND TARGET devplug_reference)
  add_test(NAME conformance_opencl_matmul_clblast
    COMMAND ${CMAKE_COMMAND} -DCONFORM=$<TARGET_FILE:devplug-conform> -DPLUGIN=$<TARGET_FILE:devplug_opencl>
            "-DFILTER=matmul_float32_*" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/reports/opencl_matmul_clblast -DEXPECT_EXIT=0
            -DEXPECT_NO_FAILURES=ON "-DEXTRA_ARGS=--jobs=2;--timeout=300;--reference=$<TARGET_FILE:devplug_reference>"
            -P ${PROJECT_SOURCE_DIR}/tests/conformance/check_report.cmake)
  set_tests_properties(conformance_opencl_matmul_clblast PROPERTIES LABELS "conformance;opencl" TIMEOUT 900
    ENVIRONMENT "DEVPLUG_OPENCL_MATMUL=clblast;POCL_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/opencl_clblast_cache/pocl;DEVPLUG_OPENCL_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/opencl_clblast_cache/programs")
endif()
