// SPDX-License-Identifier: Apache-2.0
// NCCL opened at run time, for the CUDA build's collectives (gpu_ccl.cpp through gpu_port.hpp's
// gpuccl* names). The plugin never links libnccl: it must load on machines without it, where
// the collectives extension answers UNIMPLEMENTED naming what was tried. The symbols used are
// listed once below and resolved with dlsym on first use.
//
// Search order: $DEVPLUG_NCCL_PATH (a file, or a folder holding libnccl.so.2), the loader's own
// search ("libnccl.so.2"), the CUDA toolkit (/usr/local/cuda*), then the nvidia-nccl wheels of
// Python site-packages (where PyTorch installs it).
#pragma once

#if defined(DEVPLUG_GPU_CUDA) && __has_include(<nccl.h>)
#include <nccl.h>

#include <string>
#include <vector>

#define DEVPLUG_HAS_NCCL 1

namespace devplug::gpu {

#define DEVPLUG_NCCL_SYMBOLS(X) \
  X(ncclGetErrorString)         \
  X(ncclGetLastError)           \
  X(ncclGetUniqueId)            \
  X(ncclCommInitRank)           \
  X(ncclCommDestroy)            \
  X(ncclAllReduce)              \
  X(ncclBroadcast)              \
  X(ncclReduceScatter)          \
  X(ncclAllGather)              \
  X(ncclAlltoAll)               \
  X(ncclSend)                   \
  X(ncclRecv)

struct Nccl {
  void* library = nullptr;
  std::string path;
#define DEVPLUG_NCCL_FIELD(name) decltype(&::name) name = nullptr;
  DEVPLUG_NCCL_SYMBOLS(DEVPLUG_NCCL_FIELD)
#undef DEVPLUG_NCCL_FIELD
};

// The loaded library, or NULL with `*why` (may be NULL) saying what was tried. Loads once per
// process; thread-safe.
const Nccl* nccl(std::string* why);
// The loaded library; only after nccl() gave it.
inline const Nccl& nccl_loaded() { return *nccl(nullptr); }

// The candidate paths in search order.
std::vector<std::string> nccl_candidates();

}  // namespace devplug::gpu
#endif
