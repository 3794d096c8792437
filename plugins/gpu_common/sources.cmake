# SPDX-License-Identifier: Apache-2.0
# The shared GPU sources, included by plugins/cuda and plugins/hip. Kernel files are
# compiled by nvcc or hipcc; host files by the C++ compiler with DEVPLUG_GPU_CUDA or
# DEVPLUG_GPU_HIP defined. Few, large kernel files keep the CUDA build reasonable on 2 cores.
set(DEVPLUG_GPU_COMMON_DIR ${CMAKE_CURRENT_LIST_DIR})
set(DEVPLUG_GPU_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/k_unary.cu
  ${CMAKE_CURRENT_LIST_DIR}/k_binary.cu
  ${CMAKE_CURRENT_LIST_DIR}/k_data.cu
  ${CMAKE_CURRENT_LIST_DIR}/k_reduce.cu
  ${CMAKE_CURRENT_LIST_DIR}/k_index.cu
  ${CMAKE_CURRENT_LIST_DIR}/k_matmul.cu)
# Kernel files compiled with every product and sum rounded on its own (nvcc -fmad=false,
# hipcc -ffp-contract=off): the double-double lgamma and digamma of special_double.cuh need
# it, and the emulated GPU, built by the host compiler, computes them that way too.
set(DEVPLUG_GPU_UNFUSED_SOURCES ${CMAKE_CURRENT_LIST_DIR}/k_unary.cu)
set(DEVPLUG_GPU_HOST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/gpu_runtime.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_ccl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nccl_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_table.cpp)
file(GLOB DEVPLUG_GPU_HEADERS CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_LIST_DIR}/*.hpp ${CMAKE_CURRENT_LIST_DIR}/*.cuh)
