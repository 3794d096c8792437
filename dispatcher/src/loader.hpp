// SPDX-License-Identifier: Apache-2.0
// Loading plugin libraries with Boost.DLL and checking their table before anyone uses it.
//
// A library is loaded and initialized once per process however many contexts use it: the
// process-wide registry here counts its users, calls plugin_initialize on the first and
// plugin_shutdown (then unloads) after the last. Thread-safe.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "devplug/plugin_api.h"

namespace devplug::detail {

// Why a plugin could not be loaded; what() is the full reason shown to the user.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LibraryEntry;

// A counted share of a loaded, initialized plugin library. Moving keeps the share; the
// destructor gives it back (the last share shuts the plugin down and unloads it).
class LibraryRef {
 public:
  LibraryRef() = default;
  explicit LibraryRef(LibraryEntry* entry) : entry_(entry) {}
  LibraryRef(LibraryRef&& other) noexcept : entry_(other.entry_) { other.entry_ = nullptr; }
  LibraryRef& operator=(LibraryRef&& other) noexcept;
  LibraryRef(const LibraryRef&) = delete;
  LibraryRef& operator=(const LibraryRef&) = delete;
  ~LibraryRef() { reset(); }

  void reset() noexcept;
  // The plugin's table as this dispatcher knows it: fields past the plugin's struct_size
  // are zero, and struct_size is the number of bytes read (min of both sizes).
  const devplug_plugin_api_t& api() const;
  // The plugin's own table, untouched.
  const devplug_plugin_api_t* raw_api() const;
  const std::string& path() const;

 private:
  LibraryEntry* entry_ = nullptr;
};

// The canonical form of `path` (symlinks resolved), or `path` made absolute when it does
// not exist. Used to load each file once.
std::string canonical_plugin_path(const std::string& path);

// Loads the plugin at `canonical_path` (or shares the copy already loaded), checks its table
// (entry symbol, ABI major, struct_size, required functions) and initializes it. Throws
// LoadError with the real reason: the loader's own message, the missing symbol, both ABI
// versions, both struct sizes, or plugin_initialize's error.
//
// A plugin must not let a C++ exception out of any entry point (the boundary is C). When
// one escapes get_api or plugin_initialize and can still unwind into the dispatcher, it is
// reported as a load failure; when it cannot (a plugin built without unwind tables, or an
// entry point marked noexcept), the process terminates, and nothing on this side can
// prevent that. Later calls are guarded the same way by the C entry points' guard.
LibraryRef load_library(const std::string& canonical_path);

}  // namespace devplug::detail
