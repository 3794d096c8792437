# SPDX-License-Identifier: Apache-2.0
# Conformance under ASan, LSan and UBSan (the asan tree; included by CMakeLists.txt here): a
# deterministic subset of each plugin's cases, label sanitizer_conformance. The subset
# (DEVPLUG_SANITIZER_CONFORMANCE_FILTER) is every op on the dtypes whose code paths differ
# (float32; float16, stored as 16 bits and computed in float32; int64, the index dtype; bool,
# one byte) in every layout class, plus the ABI suite; the other dtypes take the same code
# paths with another element type and element size. The full runs (conformance_*_full, label
# conformance) are in this tree too, for a run by hand: under ASan they take several times
# the 2-core CI budget (docs/reliability.md gives the figures).
set(DEVPLUG_SANITIZER_CONFORMANCE_FILTER "*_float32_*:*_float16_*:*_int64_*:*_bool_*:abi_*" CACHE STRING
    "--filter of the conformance runs under ASan (sanitizer_conformance.*)")
if(NOT TARGET devplug-conform OR NOT TARGET devplug_reference)
  return()
endif()

# Kernel caches: the tree's own unless DEVPLUG_SANITIZER_KERNEL_CACHES_FROM names a default
# tree, whose full conformance runs fill theirs (scripts/run-tests sets it, and the default
# tree's ctest runs those before the sanitizer stage). The kernels are the same sources with the
# same options whatever the host code's build, so compiling them all again here would time
# PoCL's compiler, not check devplug's code; the caches are safe to share between processes.
set(DEVPLUG_SANITIZER_KERNEL_CACHES_FROM "" CACHE PATH
    "A default build folder whose conformance kernel caches the runs under ASan reuse (empty: their own)")
if(DEVPLUG_SANITIZER_KERNEL_CACHES_FROM)
  set(cache ${DEVPLUG_SANITIZER_KERNEL_CACHES_FROM}/tests/conform_cache)  # that tree's DEVPLUG_CONFORM_CACHE_DIR
else()
  set(cache ${DEVPLUG_CONFORM_CACHE_DIR})
endif()
set(args_opencl "--xfail=${PROJECT_SOURCE_DIR}/plugins/opencl/conformance.xfail")
set(env_opencl "POCL_CACHE_DIR=${cache}/pocl;DEVPLUG_OPENCL_CACHE_DIR=${cache}/opencl_programs")
set(env_level_zero "ZE_ENABLE_ALT_DRIVERS=${DEVPLUG_LEVEL_ZERO_CPU_DRIVER_FILE};ZE_ENABLE_VALIDATION_LAYER=1"
    "ZE_ENABLE_PARAMETER_VALIDATION=1;POCL_CACHE_DIR=${cache}/pocl"
    "DEVPLUG_LEVEL_ZERO_CACHE_DIR=${cache}/level_zero_modules")
foreach(plugin reference opencl level_zero gpu_emulated)
  if(NOT TARGET devplug_${plugin} OR (plugin STREQUAL "level_zero" AND NOT DEVPLUG_LEVEL_ZERO_CPU_DRIVER_FILE))
    continue()
  endif()
  add_test(NAME sanitizer_conformance.${plugin}
    COMMAND ${CMAKE_COMMAND} -DCONFORM=$<TARGET_FILE:devplug-conform> -DPLUGIN=$<TARGET_FILE:devplug_${plugin}>
            "-DFILTER=${DEVPLUG_SANITIZER_CONFORMANCE_FILTER}" -DOUT=${CMAKE_CURRENT_BINARY_DIR}/reports/${plugin}
            -DEXPECT_EXIT=0 -DEXPECT_NO_FAILURES=ON
            "-DEXTRA_ARGS=--jobs=2;--reference=$<TARGET_FILE:devplug_reference>;${args_${plugin}}"
            -P ${PROJECT_SOURCE_DIR}/tests/conformance/check_report.cmake)
  set_tests_properties(sanitizer_conformance.${plugin} PROPERTIES LABELS "sanitizer_conformance;${plugin}"
                       TIMEOUT 1800 ENVIRONMENT "${env_${plugin}}")
endforeach()
