// SPDX-License-Identifier: Apache-2.0
// The OpenCL library, opened at run time so the plugin loads where no ICD loader exists.
//
// `cl_library()` opens libOpenCL.so.1 (or $DEVPLUG_OPENCL_LIBRARY, which tests point at a
// missing file to simulate a machine without OpenCL) once per process and resolves every
// symbol of cl_symbols.def. Thread-safe; the library stays open until the process ends.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <string>

namespace devplug::opencl {

struct ClLibrary {
  bool loaded = false;
  std::string failure;  // why it did not load, when !loaded
#define CL_SYMBOL(name) decltype(&::name) name = nullptr;
#include "cl_symbols.def"
};

// The process-wide library table. Never null; check `loaded`.
const ClLibrary& cl_library();

// Shorthand for the resolved entry points.
inline const ClLibrary& cl() { return cl_library(); }

}  // namespace devplug::opencl
