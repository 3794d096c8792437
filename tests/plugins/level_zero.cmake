# SPDX-License-Identifier: Apache-2.0
# Tests of the Level Zero plugin and of its CPU test driver (included by
# tests/plugins/CMakeLists.txt when devplug_level_zero exists). Everything goes through
# Debian's real loader (libze_loader.so.1); ZE_ENABLE_ALT_DRIVERS points it at the CPU test
# driver where a test needs a device. Module and PoCL caches live in the test's build folder.
find_library(DEVPLUG_ZE_LOADER NAMES ze_loader)
set(ze_dir ${CMAKE_CURRENT_SOURCE_DIR}/level_zero)
set(ze_cache ${DEVPLUG_LEVEL_ZERO_TEST_CACHE_DIR})
set(ze_driver_env "ZE_ENABLE_ALT_DRIVERS=${DEVPLUG_LEVEL_ZERO_CPU_DRIVER_FILE}")
set(ze_validation_env "ZE_ENABLE_VALIDATION_LAYER=1;ZE_ENABLE_PARAMETER_VALIDATION=1")

# ---- the plugin: no loader, no driver, and on the CPU test driver ----
add_executable(level_zero_plugin_test ${ze_dir}/plugin_test.cpp)
target_include_directories(level_zero_plugin_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${DEVPLUG_LEVEL_ZERO_INCLUDE_DIR})
target_link_libraries(level_zero_plugin_test PRIVATE opencl_family_tests devplug::sdk GTest::gtest_main devplug_warnings
                      ${CMAKE_DL_LIBS})
target_compile_definitions(level_zero_plugin_test PRIVATE
  DEVPLUG_LEVEL_ZERO_PLUGIN="$<TARGET_FILE:devplug_level_zero>" DEVPLUG_INFO_EXE="$<TARGET_FILE:devplug-info>")
add_dependencies(level_zero_plugin_test devplug_level_zero devplug-info)

# Without a driver the loader finds none: zero devices, zeInit's result named, the doctor's fix.
# The suites shared with the OpenCL plugin (../opencl_family_test.hpp) run as LevelZero/<suite>.
add_test(NAME level_zero_plugin.no_driver
         COMMAND level_zero_plugin_test --gtest_filter=LevelZeroNoDriver.*:LevelZeroLoad.*:LevelZero/PluginLoad.*)
set_tests_properties(level_zero_plugin.no_driver PROPERTIES LABELS "level_zero"
  ENVIRONMENT_MODIFICATION "ZE_ENABLE_ALT_DRIVERS=unset:")

if(TARGET ze_devplug_cpu AND DEVPLUG_ZE_LOADER)
  add_dependencies(level_zero_plugin_test ze_devplug_cpu)
  set(on_driver "--gtest_filter=LevelZeroDevice.*:LevelZeroOps.*:LevelZeroMemory.*:LevelZero/PluginStream.*:LevelZero/PluginMemory.*:LevelZero/PluginCache.*:LevelZero/PluginBuild.*")
  set(common_env "${ze_driver_env};${ze_validation_env};POCL_CACHE_DIR=${ze_cache}/pocl;DEVPLUG_LEVEL_ZERO_CACHE_DIR=${ze_cache}/modules")
  # The driver runs each queue on its own thread: every test on it carries the label threads.
  # Immediate command lists (the default), with the loader's validation layer on.
  devplug_threaded_targets(level_zero_plugin_test)
  add_test(NAME level_zero_plugin.cpu_driver COMMAND level_zero_plugin_test ${on_driver})
  set_tests_properties(level_zero_plugin.cpu_driver PROPERTIES LABELS "level_zero;threads" ENVIRONMENT "${common_env}")
  # Regular command lists on a queue, as on drivers without immediate lists.
  add_test(NAME level_zero_plugin.regular_lists COMMAND level_zero_plugin_test
           --gtest_filter=LevelZeroOps.*:LevelZeroMemory.*:LevelZero/PluginStream.*:LevelZero/PluginMemory.*)
  set_tests_properties(level_zero_plugin.regular_lists PROPERTIES LABELS "level_zero;threads"
    ENVIRONMENT "${common_env};DEVPLUG_LEVEL_ZERO_COMMAND_LISTS=regular")
  # A device that cannot read host memory: copies are staged through driver host memory.
  add_test(NAME level_zero_plugin.host_staging COMMAND level_zero_plugin_test
           --gtest_filter=LevelZeroOps.*:LevelZeroMemory.*:LevelZero/PluginStream.*:LevelZero/PluginMemory.*)
  set_tests_properties(level_zero_plugin.host_staging PROPERTIES LABELS "level_zero;threads"
    ENVIRONMENT "${common_env};ZE_DEVPLUG_CPU_SYSTEM_MEMORY=0")
  # A discrete GPU: not integrated, and no access to system memory. Buffers are device memory
  # the host cannot address (host_address: FAILED_PRECONDITION); pinned host memory is the
  # only host memory copied without staging.
  add_test(NAME level_zero_plugin.discrete_gpu COMMAND level_zero_plugin_test
           --gtest_filter=LevelZeroDevice.*:LevelZeroMemory.*:LevelZero/PluginMemory.*)
  set_tests_properties(level_zero_plugin.discrete_gpu PROPERTIES LABELS "level_zero;threads"
    ENVIRONMENT "${common_env};ZE_DEVPLUG_CPU_SYSTEM_MEMORY=0;ZE_DEVPLUG_CPU_TYPE=discrete_gpu")

  # ---- the CPU test driver's own tests ----
  find_program(DEVPLUG_SPIRV_AS NAMES spirv-as)
  set(kernels_spv ${CMAKE_CURRENT_BINARY_DIR}/level_zero_driver_kernels.spv)
  set(spec_spv ${CMAKE_CURRENT_BINARY_DIR}/level_zero_spec_constant.spv)
  add_custom_command(OUTPUT ${kernels_spv}
    COMMAND ${DEVPLUG_CLANG_14} -cl-std=CL1.2 -target spir64 -O0 -emit-llvm -c ${ze_dir}/driver_kernels.cl
            -o ${kernels_spv}.bc
    COMMAND ${DEVPLUG_LLVM_SPIRV_14} --spirv-max-version=1.0 ${kernels_spv}.bc -o ${kernels_spv}
    COMMAND ${DEVPLUG_SPIRV_VAL} --target-env opencl1.2 ${kernels_spv}
    DEPENDS ${ze_dir}/driver_kernels.cl
    COMMENT "Compiling the CPU test driver's test kernels to SPIR-V"
    VERBATIM)
  add_custom_command(OUTPUT ${spec_spv}
    COMMAND ${DEVPLUG_SPIRV_AS} --target-env spv1.0 ${ze_dir}/spec_constant.spvasm -o ${spec_spv}
    COMMAND ${DEVPLUG_SPIRV_VAL} --target-env opencl1.2 ${spec_spv}
    DEPENDS ${ze_dir}/spec_constant.spvasm
    COMMENT "Assembling the specialization constant test kernel"
    VERBATIM)
  add_custom_target(level_zero_driver_test_kernels DEPENDS ${kernels_spv} ${spec_spv})
  add_executable(level_zero_driver_test ${ze_dir}/driver_test.cpp)
  target_include_directories(level_zero_driver_test PRIVATE ${PROJECT_SOURCE_DIR}/plugins/level_zero
                             ${DEVPLUG_LEVEL_ZERO_INCLUDE_DIR})
  target_link_libraries(level_zero_driver_test PRIVATE GTest::gtest_main devplug_warnings ${DEVPLUG_ZE_LOADER})
  target_compile_definitions(level_zero_driver_test PRIVATE
    DEVPLUG_ZE_TEST_KERNELS="${kernels_spv}" DEVPLUG_ZE_TEST_SPEC_CONSTANT="${spec_spv}")
  add_dependencies(level_zero_driver_test level_zero_driver_test_kernels ze_devplug_cpu)
  # Without the validation layer, so the driver's own argument checks answer.
  gtest_discover_tests(level_zero_driver_test TEST_LIST level_zero_driver_TESTS DISCOVERY_TIMEOUT 60)
  devplug_discovered_property(level_zero_driver_TESTS ENVIRONMENT ${ze_driver_env} POCL_CACHE_DIR=${ze_cache}/pocl)
  devplug_label_discovered(level_zero_driver_TESTS level_zero threads)
  # The knobs conformance_level_zero_no_fp64 runs under: the driver says it is a GPU without doubles.
  add_test(NAME level_zero_driver.gpu_without_doubles
           COMMAND level_zero_driver_test --gtest_filter=Driver.SaysWhatItIsAndWhatItCan)
  set_tests_properties(level_zero_driver.gpu_without_doubles PROPERTIES LABELS "level_zero"
    ENVIRONMENT "${ze_driver_env};POCL_CACHE_DIR=${ze_cache}/pocl;ZE_DEVPLUG_CPU_FP64=0;ZE_DEVPLUG_CPU_TYPE=gpu")
  devplug_threaded_targets(level_zero_driver_test)

  # ---- conformance: the whole suite through the real loader, the validation layer on ----
  if(TARGET devplug-conform AND TARGET devplug_reference)
    set(conform_args "--jobs=2;--reference=$<TARGET_FILE:devplug_reference>")
    add_test(NAME conformance_level_zero_full
      COMMAND ${CMAKE_COMMAND} -DCONFORM=$<TARGET_FILE:devplug-conform> -DPLUGIN=$<TARGET_FILE:devplug_level_zero>
              "-DFILTER=*" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/reports/level_zero_full -DEXPECT_EXIT=0
              -DEXPECT_NO_FAILURES=ON "-DEXPECT_ZERO=unsupported;xfail;fallback" "-DEXTRA_ARGS=${conform_args}"
              -P ${PROJECT_SOURCE_DIR}/tests/conformance/check_report.cmake)
    # It builds every module of the plugin's archive into these caches: the torch tests run on
    # the plugin with them (fixture level_zero_modules, frameworks/torch/tests).
    set_tests_properties(conformance_level_zero_full PROPERTIES LABELS "conformance;level_zero;threads" TIMEOUT 2400
      FIXTURES_SETUP level_zero_modules
      ENVIRONMENT "${ze_driver_env};${ze_validation_env};${DEVPLUG_LEVEL_ZERO_CONFORM_CACHE_ENV}")
    # The SPIR-V built for devices without doubles, on the CPU driver with fp64 hidden (it then
    # refuses any module that declares 64-bit floats, as such a GPU does) and saying it is a
    # GPU (the plugin takes its GPU paths: reductions interleave work-items): every op on
    # float16, which computes in float32 there. The one pair it cannot run is
    # convert_element_type from float16 (its float64 outputs: the device has no float64).
    add_test(NAME conformance_level_zero_no_fp64
      COMMAND ${CMAKE_COMMAND} -DCONFORM=$<TARGET_FILE:devplug-conform> -DPLUGIN=$<TARGET_FILE:devplug_level_zero>
              "-DFILTER=*_float16_*"
              -DOUT=${CMAKE_CURRENT_BINARY_DIR}/reports/level_zero_no_fp64 -DEXPECT_EXIT=0 -DEXPECT_NO_FAILURES=ON
              "-DEXPECT_ZERO=xfail;fallback" "-DEXPECT_UNSUPPORTED=convert_element_type/float16"
              "-DEXTRA_ARGS=${conform_args}" -P ${PROJECT_SOURCE_DIR}/tests/conformance/check_report.cmake)
    set_tests_properties(conformance_level_zero_no_fp64 PROPERTIES LABELS "conformance;level_zero;threads" TIMEOUT 1200
      ENVIRONMENT "${ze_driver_env};${ze_validation_env};ZE_DEVPLUG_CPU_FP64=0;ZE_DEVPLUG_CPU_TYPE=gpu;${DEVPLUG_LEVEL_ZERO_CONFORM_CACHE_ENV}")
  endif()
endif()
