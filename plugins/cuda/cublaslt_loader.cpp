// SPDX-License-Identifier: Apache-2.0
// Finds and opens libcublasLt.so.13 (see cublaslt_loader.hpp for the search order).
#include "cublaslt_loader.hpp"

#include <cstdlib>
#include <mutex>

#include "dl_library.hpp"

namespace devplug::cuda {
namespace {

using gpu::add_glob;

constexpr const char* kLibrary = "libcublasLt.so.13";

}  // namespace

std::vector<std::string> cublaslt_candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("DEVPLUG_CUBLASLT_PATH"); env != nullptr && *env != '\0') {
    const std::string p = env;
    c.push_back(p);
    c.push_back(p + "/" + kLibrary);
  }
  c.push_back(kLibrary);
  add_glob("/usr/local/cuda/lib64/libcublasLt.so.13", &c);
  add_glob("/usr/local/cuda-13*/lib64/libcublasLt.so.13", &c);
  add_glob("/usr/local/cuda/targets/*/lib/libcublasLt.so.13", &c);
  for (const char* prefix : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* env = std::getenv(prefix); env != nullptr && *env != '\0')
      add_glob(std::string(env) + "/lib/python3*/site-packages/nvidia/cu*/lib/libcublasLt.so.13", &c),
          add_glob(std::string(env) + "/lib/python3*/site-packages/nvidia/cublas/lib/libcublasLt.so.13", &c);
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    add_glob(std::string(home) + "/.local/lib/python3*/site-packages/nvidia/cublas/lib/libcublasLt.so.13",
             &c);
  for (const char* root : {"/usr/local/lib", "/usr/lib", "/opt/conda/lib"}) {
    add_glob(std::string(root) + "/python3*/*-packages/nvidia/cublas/lib/libcublasLt.so.13", &c);
    add_glob(std::string(root) + "/python3*/*-packages/nvidia/cu13/lib/libcublasLt.so.13", &c);
  }
  return c;
}

const CublasLt* cublaslt(std::string* why) {
  static std::once_flag once;
  static CublasLt lt;
  static std::string failure;
  std::call_once(once, [] {
    lt.library = gpu::open_first(
        cublaslt_candidates(),
        [](void* handle) -> std::string {
#define DEVPLUG_CUBLASLT_RESOLVE(name)                                 \
  lt.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (lt.name == nullptr) return #name;
          DEVPLUG_CUBLASLT_SYMBOLS(DEVPLUG_CUBLASLT_RESOLVE)
#undef DEVPLUG_CUBLASLT_RESOLVE
          return "";
        },
        std::string("set DEVPLUG_CUBLASLT_PATH to the file or its folder"), &lt.path, &failure);
    if (lt.library == nullptr) {
      lt = CublasLt{};
      if (failure.rfind("not found", 0) == 0) failure = std::string(kLibrary) + " was " + failure;
    }
  });
  if (lt.library == nullptr && why != nullptr) *why = failure;
  return lt.library != nullptr ? &lt : nullptr;
}

}  // namespace devplug::cuda
