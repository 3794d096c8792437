# SPDX-License-Identifier: Apache-2.0
# Tests of the GPU plugins built from plugins/gpu_common (included by
# tests/plugins/CMakeLists.txt when devplug_cuda, devplug_hip or devplug_gpu_emulated exists).
# They run without a GPU: each plugin loads, reports its devices (none for cuda and hip here,
# with the runtime's reason), declares every (op, dtype) of ops.def and answers bad input with
# errors; the pure host logic of the shared GPU code (layouts, launch plans, Philox, 16-bit
# encoders, cuBLASLt layout choice) is unit-tested directly. The kernels run on the emulated
# GPU in every build (gpu_emulated.cmake) and on a GPU machine (bench/cuda/run_on_gpu.sh).
add_executable(gpu_plugin_test
  ${CMAKE_CURRENT_SOURCE_DIR}/gpu_plugin_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/gpu_logic_test.cpp)
target_link_libraries(gpu_plugin_test PRIVATE devplug::sdk GTest::gtest_main devplug_warnings ${CMAKE_DL_LIBS})
target_include_directories(gpu_plugin_test PRIVATE ${PROJECT_SOURCE_DIR}/plugins/gpu_common)
# The logic tests compile the shared headers against one runtime's names.
if(TARGET devplug_cuda)
  find_package(CUDAToolkit REQUIRED)
  target_include_directories(gpu_plugin_test PRIVATE ${PROJECT_SOURCE_DIR}/plugins/cuda ${CUDAToolkit_INCLUDE_DIRS})
  target_compile_definitions(gpu_plugin_test PRIVATE DEVPLUG_GPU_CUDA
    DEVPLUG_CUDA_PLUGIN="$<TARGET_FILE:devplug_cuda>")
  add_dependencies(gpu_plugin_test devplug_cuda)
elseif(TARGET devplug_gpu_emulated)
  target_include_directories(gpu_plugin_test PRIVATE ${PROJECT_SOURCE_DIR}/plugins/gpu_emulated)
  target_compile_definitions(gpu_plugin_test PRIVATE DEVPLUG_GPU_EMULATED)
else()
  target_compile_definitions(gpu_plugin_test PRIVATE DEVPLUG_GPU_HIP __HIP_PLATFORM_AMD__)
endif()
if(TARGET devplug_hip)
  target_compile_definitions(gpu_plugin_test PRIVATE DEVPLUG_HIP_PLUGIN="$<TARGET_FILE:devplug_hip>")
  add_dependencies(gpu_plugin_test devplug_hip)
endif()
if(TARGET devplug_gpu_emulated)
  target_compile_definitions(gpu_plugin_test PRIVATE DEVPLUG_GPU_EMULATED_PLUGIN="$<TARGET_FILE:devplug_gpu_emulated>")
  add_dependencies(gpu_plugin_test devplug_gpu_emulated)
endif()
gtest_discover_tests(gpu_plugin_test DISCOVERY_TIMEOUT 60)
