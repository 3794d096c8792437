// SPDX-License-Identifier: Apache-2.0
// The context's record of one loaded plugin: its library share, its table, its devices and
// the dense kernel table [op][dtype] that dispatch reads without a lock or a string compare.
//
// Made once when the plugin loads and immutable afterwards (except the devices' own state),
// so any thread may read it while the context lives.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "devplug/devplug.h"
#include "loader.hpp"

struct devplug_device_t;

namespace devplug::detail {

// A kernel as dispatch sees it: the function and its DEVPLUG_KERNEL_* flags.
struct KernelSlot {
  devplug_kernel_fn fn = nullptr;
  uint32_t flags = 0;
};

}  // namespace devplug::detail

struct devplug_plugin_t {
  static constexpr uint32_t kMagic = 0x504c5547;  // "PLUG"
  static constexpr const char* kKind = "plugin";
  uint32_t magic = kMagic;

  devplug_context_t* context = nullptr;
  devplug::detail::LibraryRef library;
  const devplug_plugin_api_t* api = nullptr;  // == &library.api(), fields past its size zero
  std::string name;
  std::string version;
  std::string path;
  bool caching_allocator = false;  // DEVPLUG_PLUGIN_CACHING_ALLOCATOR
  // The extensions the plugin offers that this dispatcher uses (plugin_api.def), each NULL
  // when absent or too short to hold its entries; the plugin's static data.
  const devplug_ext_event_timestamps_t* event_timestamps = nullptr;
  const devplug_ext_pinned_host_memory_t* pinned_host_memory = nullptr;
  const devplug_ext_host_address_t* host_address = nullptr;
  const devplug_ext_fused_programs_t* fused_programs = nullptr;
  const devplug_ext_collectives_t* collectives = nullptr;
  const devplug_ext_host_memory_import_t* host_memory_import = nullptr;
  int32_t device_count = 0;
  std::string device_note;
  bool has_device_note = false;
  std::vector<std::unique_ptr<devplug_device_t>> devices;
  devplug::detail::KernelSlot kernels[DEVPLUG_OP_END_][DEVPLUG_DTYPE_COUNT] = {};

  // The kernel for (op, dtype), or an empty slot; any values are safe to pass.
  const devplug::detail::KernelSlot& kernel(devplug_op_t op, devplug_dtype_t dtype) const noexcept {
    static const devplug::detail::KernelSlot none;
    if (op <= 0 || op >= DEVPLUG_OP_END_ || dtype < 0 || dtype >= DEVPLUG_DTYPE_COUNT) return none;
    return kernels[op][dtype];
  }

  devplug_plugin_t();
  ~devplug_plugin_t();  // closes the devices (and everything made on them) first
};

namespace devplug::detail {

// Builds the record of a loaded library: reads the kernel rows (each within its own
// struct_size), counts and describes the devices. Throws LoadError when device_count fails.
std::unique_ptr<devplug_plugin_t> make_plugin_record(devplug_context_t* context, LibraryRef library);

// Copies the plugin's `error` into an Error (code, native code, "plugin NAME: CALL: message"),
// destroys it through the plugin, and throws. `error` must not be NULL.
[[noreturn]] void throw_plugin_error(const devplug_plugin_t& plugin, devplug_error_t* error,
                                     const char* call);

// Throws (as throw_plugin_error) when `error` is not NULL.
inline void check_plugin(const devplug_plugin_t& plugin, devplug_error_t* error, const char* call) {
  if (error != nullptr) throw_plugin_error(plugin, error, call);
}

// Destroys a plugin error, ignoring NULL; for paths that must not throw.
inline void drop_plugin_error(const devplug_plugin_t& plugin, devplug_error_t* error) noexcept {
  if (error != nullptr) plugin.api->error_destroy(error);
}

}  // namespace devplug::detail
