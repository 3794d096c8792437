// SPDX-License-Identifier: Apache-2.0
// Opens the Level Zero loader with dlopen and resolves the symbols of ze_symbols.def.
#include "ze_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace devplug::level_zero {

namespace {

ZeLibrary open_library() {
  ZeLibrary lib;
  const char* override_name = std::getenv("DEVPLUG_LEVEL_ZERO_LIBRARY");
  const char* name = (override_name && *override_name) ? override_name : "libze_loader.so.1";
  void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    lib.failure = std::string(name) + " not found: " + (why ? why : "unknown dlopen error");
    return lib;
  }
#define ZE_SYMBOL(sym)                                                               \
  lib.sym = reinterpret_cast<decltype(lib.sym)>(dlsym(handle, #sym));                \
  if (lib.sym == nullptr) {                                                          \
    lib.failure = std::string(name) + " lacks the Level Zero 1.0 entry point " #sym; \
    return lib;                                                                      \
  }
#define ZE_OPTIONAL_SYMBOL(sym) lib.sym = reinterpret_cast<decltype(lib.sym)>(dlsym(handle, #sym));
#include "ze_symbols.def"
  lib.loaded = true;
  return lib;
}

}  // namespace

const ZeLibrary& ze_library() {
  static const ZeLibrary lib = open_library();
  return lib;
}

}  // namespace devplug::level_zero
