// Registration of the reference backend's kernels, one function per kernel file.
// plugin.cpp calls each of them once to build the declared kernel table.
#pragma once

#include "devplug/sdk/kernels.hpp"

namespace devplug::reference {

void register_unary_kernels(sdk::KernelTable& table);     // kernels/unary.cpp
void register_binary_kernels(sdk::KernelTable& table);    // kernels/binary.cpp (binary, compare, ternary)
void register_data_kernels(sdk::KernelTable& table);      // kernels/data.cpp
void register_reduce_kernels(sdk::KernelTable& table);    // kernels/reduce.cpp (reductions, scans)
void register_index_kernels(sdk::KernelTable& table);     // kernels/index.cpp (indexing, shape)
void register_linalg_kernels(sdk::KernelTable& table);    // kernels/linalg.cpp
void register_random_kernels(sdk::KernelTable& table);    // kernels/random.cpp

}  // namespace devplug::reference
