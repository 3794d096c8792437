// SPDX-License-Identifier: Apache-2.0
// The Level Zero loader, opened at run time so the plugin loads where no loader exists.
//
// `ze_library()` opens libze_loader.so.1 (or $DEVPLUG_LEVEL_ZERO_LIBRARY, which tests point
// at a missing file to simulate a machine without Level Zero) once per process and resolves
// every symbol of ze_symbols.def. Thread-safe; the library stays open until the process ends.
#pragma once

#include <level_zero/ze_api.h>

#include <string>

namespace devplug::level_zero {

struct ZeLibrary {
  bool loaded = false;
  std::string failure;  // why it did not load, when !loaded
#define ZE_SYMBOL(name) decltype(&::name) name = nullptr;
#define ZE_OPTIONAL_SYMBOL(name) decltype(&::name) name = nullptr;
#include "ze_symbols.def"
};

// The process-wide library table. Never null; check `loaded`.
const ZeLibrary& ze_library();

// Shorthand for the resolved entry points.
inline const ZeLibrary& ze() { return ze_library(); }

}  // namespace devplug::level_zero
