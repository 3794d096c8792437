// SPDX-License-Identifier: Apache-2.0
// Finds and opens libcublasLt.so.13 (see cublaslt_loader.hpp for the search order).
#include "cublaslt_loader.hpp"

#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>
#include <mutex>

namespace devplug::cuda {
namespace {

constexpr const char* kLibrary = "libcublasLt.so.13";

void add_glob(const std::string& pattern, std::vector<std::string>* out) {
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out->push_back(g.gl_pathv[i]);
  globfree(&g);
}

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
  static bool loaded = false;
  static std::string failure;
  std::call_once(once, [] {
    std::string tried;
    for (const std::string& path : cublaslt_candidates()) {
      void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib == nullptr) {
        tried += (tried.empty() ? "" : ", ") + path;
        continue;
      }
      lt.library = lib;
      lt.path = path;
      bool complete = true;
#define DEVPLUG_CUBLASLT_RESOLVE(name)                              \
  lt.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name)); \
  if (lt.name == nullptr) {                                         \
    complete = false;                                               \
    failure = path + " lacks the symbol " #name;                    \
  }
      DEVPLUG_CUBLASLT_SYMBOLS(DEVPLUG_CUBLASLT_RESOLVE)
#undef DEVPLUG_CUBLASLT_RESOLVE
      if (complete) {
        loaded = true;
        return;
      }
      dlclose(lib);
      lt = CublasLt{};
    }
    if (failure.empty())
      failure = std::string(kLibrary) + " was not found (tried " + tried +
                "); set DEVPLUG_CUBLASLT_PATH to the file or its folder";
  });
  if (!loaded && why != nullptr) *why = failure;
  return loaded ? &lt : nullptr;
}

}  // namespace devplug::cuda
