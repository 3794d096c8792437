// SPDX-License-Identifier: Apache-2.0
// Registration of the reference backend's kernels, one function per kernel file.
// plugin.cpp calls each of them once to build the declared kernel table.
#pragma once

#include "devplug/sdk/kernels.hpp"

namespace devplug::reference {

void register_unary_kernels(sdk::KernelTable& table);   // kernels/unary.cpp
void register_binary_kernels(sdk::KernelTable& table);  // kernels/binary.cpp (binary, compare, ternary)
void register_data_kernels(sdk::KernelTable& table);    // kernels/data.cpp
void register_reduce_kernels(sdk::KernelTable& table);  // kernels/reduce.cpp (reductions, scans)
void register_index_kernels(sdk::KernelTable& table);   // kernels/index.cpp (indexing, shape)
void register_linalg_kernels(sdk::KernelTable& table);  // kernels/linalg.cpp
void register_random_kernels(sdk::KernelTable& table);  // kernels/random.cpp

// The composite ops, computed directly (the oracle for decompositions and native kernels).
void register_composite_pointwise_kernels(sdk::KernelTable& table);  // kernels/composite_pointwise.cpp
void register_composite_norm_kernels(sdk::KernelTable& table);       // kernels/composite_norm.cpp
void register_composite_linear_kernels(sdk::KernelTable& table);     // kernels/composite_linear.cpp
void register_composite_conv_kernels(sdk::KernelTable& table);       // kernels/composite_conv.cpp
void register_composite_loss_kernels(sdk::KernelTable& table);       // kernels/composite_loss.cpp

// Words w = 0 .. count - 1 of the Philox stream of (seed, offset) (docs/random.md), for
// dropout's mask. kernels/random.cpp.
void philox_words(uint64_t seed, uint64_t offset, uint64_t count, uint32_t* out);

}  // namespace devplug::reference
