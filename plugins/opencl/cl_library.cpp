// SPDX-License-Identifier: Apache-2.0
// Opens the OpenCL ICD loader with dlopen and resolves the symbols of cl_symbols.def.
#include "cl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace devplug::opencl {

namespace {

ClLibrary open_library() {
  ClLibrary lib;
  const char* override_name = std::getenv("DEVPLUG_OPENCL_LIBRARY");
  const char* name = (override_name && *override_name) ? override_name : "libOpenCL.so.1";
  void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    lib.failure = std::string(name) + " not found: " + (why ? why : "unknown dlopen error");
    return lib;
  }
#define CL_SYMBOL(sym)                                                           \
  lib.sym = reinterpret_cast<decltype(lib.sym)>(dlsym(handle, #sym));            \
  if (lib.sym == nullptr) {                                                      \
    lib.failure = std::string(name) + " lacks the OpenCL 1.2 entry point " #sym; \
    return lib;                                                                  \
  }
#include "cl_symbols.def"
  lib.loaded = true;
  return lib;
}

}  // namespace

const ClLibrary& cl_library() {
  static const ClLibrary lib = open_library();
  return lib;
}

}  // namespace devplug::opencl
