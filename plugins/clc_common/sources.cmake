# SPDX-License-Identifier: Apache-2.0
# The host side of the OpenCL C kernels, shared by plugins/opencl and plugins/level_zero:
# each plugin compiles these files into itself and implements the hooks of backend.hpp.
# The kernel source itself stays in plugins/opencl/kernels (one source for both plugins).
set(DEVPLUG_CLC_COMMON_DIR ${CMAKE_CURRENT_LIST_DIR})
set(DEVPLUG_CLC_KERNEL_DIR ${CMAKE_CURRENT_LIST_DIR}/../opencl/kernels)
set(DEVPLUG_CLC_HOST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/launch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/variants.cpp
  ${CMAKE_CURRENT_LIST_DIR}/disk_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_elementwise.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_index.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_linalg.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ops_random.cpp)
# The header every program starts with, ahead of common.cl: lgamma and digamma in double,
# one source with the CUDA/HIP kernels (plugins/device_common/special_double.h).
set(DEVPLUG_CLC_PRELUDE ${CMAKE_CURRENT_LIST_DIR}/../device_common/special_double.h)
# Every kernel source file, in the order the plugins join them (common.cl first).
set(DEVPLUG_CLC_KERNEL_FAMILIES elementwise fill reduce scan index matmul philox)
set(DEVPLUG_CLC_KERNEL_SOURCES ${DEVPLUG_CLC_KERNEL_DIR}/common.cl)
foreach(family IN LISTS DEVPLUG_CLC_KERNEL_FAMILIES)
  list(APPEND DEVPLUG_CLC_KERNEL_SOURCES ${DEVPLUG_CLC_KERNEL_DIR}/${family}.cl)
endforeach()
