// SPDX-License-Identifier: Apache-2.0
// Finds and opens libnccl.so.2 (see nccl_loader.hpp for the search order).
#include "nccl_loader.hpp"

#if defined(DEVPLUG_HAS_NCCL)
#include <cstdlib>
#include <mutex>

#include "dl_library.hpp"

namespace devplug::gpu {
namespace {

constexpr const char* kLibrary = "libnccl.so.2";

}  // namespace

std::vector<std::string> nccl_candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("DEVPLUG_NCCL_PATH"); env != nullptr && *env != '\0') {
    const std::string p = env;
    c.push_back(p);
    c.push_back(p + "/" + kLibrary);
  }
  c.push_back(kLibrary);
  add_glob("/usr/local/cuda/lib64/libnccl.so.2", &c);
  add_glob("/usr/local/cuda-13*/lib64/libnccl.so.2", &c);
  add_glob("/usr/local/cuda/targets/*/lib/libnccl.so.2", &c);
  for (const char* prefix : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* env = std::getenv(prefix); env != nullptr && *env != '\0')
      add_glob(std::string(env) + "/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2", &c);
  for (const char* root : {"/usr/local/lib", "/usr/lib", "/opt/conda/lib"})
    add_glob(std::string(root) + "/python3*/*-packages/nvidia/nccl/lib/libnccl.so.2", &c);
  return c;
}

const Nccl* nccl(std::string* why) {
  static std::once_flag once;
  static Nccl lib;
  static std::string failure;
  std::call_once(once, [] {
    lib.library = open_first(
        nccl_candidates(),
        [](void* handle) -> std::string {
#define DEVPLUG_NCCL_RESOLVE(name)                                      \
  lib.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (lib.name == nullptr) return #name " (NCCL 2.28 or later has it)";
          DEVPLUG_NCCL_SYMBOLS(DEVPLUG_NCCL_RESOLVE)
#undef DEVPLUG_NCCL_RESOLVE
          return "";
        },
        std::string("set DEVPLUG_NCCL_PATH to ") + kLibrary + " or its folder", &lib.path, &failure);
    if (lib.library == nullptr) lib = Nccl{};
  });
  if (lib.library == nullptr && why != nullptr) *why = std::string(kLibrary) + ": " + failure;
  return lib.library != nullptr ? &lib : nullptr;
}

}  // namespace devplug::gpu
#endif
