// SPDX-License-Identifier: Apache-2.0
// A plugin that implements only prims: it opens a private copy of the reference backend,
// forwards every entry point to it, and declares every kernel row of the reference except
// the composite ones. So every composite runs through the dispatcher's decomposition on
// this plugin's own prims, which proves that a prims-only plugin runs every composite with
// no CPU fallback. It opts into the dispatcher's caching allocator and counts its
// buffer_allocate calls (test_counter.hpp), which proves that a decomposition's temporaries
// come from the cache, not from the plugin, once the cache is warm.
#include <dlfcn.h>

#include <cstring>
#include <vector>

#include "devplug/plugin_api.h"
#include "test_counter.hpp"

namespace {

const devplug_plugin_api_t* real = nullptr;
devplug_plugin_api_t table;
std::vector<const devplug_kernel_t*> rows;

devplug_error_t* counted_allocate(devplug_device_handle_t* device, uint64_t size,
                                  devplug_buffer_handle_t** out) {
  ++devplug_test_buffer_allocations;
  return real->buffer_allocate(device, size, out);
}

const devplug_plugin_api_t* build_table() {
  void* handle = dlopen(DEVPLUG_REFERENCE_COPY, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  auto get = reinterpret_cast<devplug_plugin_get_api_fn>(dlsym(handle, DEVPLUG_PLUGIN_ENTRY_SYMBOL));
  real = get ? get() : nullptr;
  if (real == nullptr) return nullptr;
  std::memcpy(&table, real, sizeof table);
  table.struct_size = sizeof table;
  table.plugin_name = "prims_only";
  table.plugin_version = "test";
  table.flags |= DEVPLUG_PLUGIN_CACHING_ALLOCATOR;
  table.buffer_allocate = counted_allocate;
  for (size_t k = 0; k < real->kernel_count; ++k) {
    const devplug_op_info_t* info = devplug_op_info(real->kernels[k]->op);
    if (info != nullptr && info->category == DEVPLUG_CATEGORY_composite) continue;
    rows.push_back(real->kernels[k]);
  }
  table.kernels = rows.data();
  table.kernel_count = rows.size();
  return &table;
}

}  // namespace

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  static const devplug_plugin_api_t* api = build_table();
  return api;
}
