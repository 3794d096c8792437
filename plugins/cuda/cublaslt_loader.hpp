// SPDX-License-Identifier: Apache-2.0
// cuBLASLt opened at run time. The plugin never links libcublasLt (cuBLAS has no static
// library and the plugin must load where it is missing); the symbols it uses are listed once
// below and resolved with dlsym on first use.
//
// Search order: $DEVPLUG_CUBLASLT_PATH (a file, or a folder holding libcublasLt.so.13), the
// loader's own search ("libcublasLt.so.13"), the CUDA toolkit (/usr/local/cuda*), then the
// nvidia-cublas wheels of Python site-packages (where PyTorch installs it).
#pragma once

#include <cublasLt.h>

#include <string>
#include <vector>

namespace devplug::cuda {

#define DEVPLUG_CUBLASLT_SYMBOLS(X)   \
  X(cublasLtCreate)                   \
  X(cublasLtDestroy)                  \
  X(cublasLtGetStatusName)            \
  X(cublasLtMatmulDescCreate)         \
  X(cublasLtMatmulDescDestroy)        \
  X(cublasLtMatmulDescSetAttribute)   \
  X(cublasLtMatrixLayoutCreate)       \
  X(cublasLtMatrixLayoutDestroy)      \
  X(cublasLtMatrixLayoutSetAttribute) \
  X(cublasLtMatmul)

struct CublasLt {
  void* library = nullptr;
  std::string path;
#define DEVPLUG_CUBLASLT_FIELD(name) decltype(&::name) name = nullptr;
  DEVPLUG_CUBLASLT_SYMBOLS(DEVPLUG_CUBLASLT_FIELD)
#undef DEVPLUG_CUBLASLT_FIELD
};

// The loaded library, or NULL with `*why` saying what was tried. Loads once per process;
// thread-safe.
const CublasLt* cublaslt(std::string* why);

// The candidate paths in search order (exposed for tests).
std::vector<std::string> cublaslt_candidates();

}  // namespace devplug::cuda
