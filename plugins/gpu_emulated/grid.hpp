// SPDX-License-Identifier: Apache-2.0
// Running one grid on the CPU: its blocks spread over the calling thread and a small pool of
// worker threads, the threads of each block as fibers (grid.cpp).
#pragma once

#include <string>

#include "emu_launch.hpp"

namespace devplug::gpu::emu {

// Runs every thread of every block of the grid and returns when all have finished: "" on
// success, else what went wrong (a kernel thread that threw). Thread-safe; grids of
// different streams run at once.
std::string run_grid(const KernelCall& call, dim3 grid, dim3 block);

// How many OS threads run the blocks of one grid: DEVPLUG_GPU_EMULATED_WORKERS (1 to 64),
// else the number of cores.
unsigned block_workers();

}  // namespace devplug::gpu::emu
