// SPDX-License-Identifier: Apache-2.0
// A devplug plugin to copy and fill in, one entry point at a time.
//
// As shipped it loads, initializes, reports zero devices with the note "template plugin: no
// device", and answers every other entry point with UNIMPLEMENTED. `devplug-info --check
// ./libdevplug_template.so` diagnoses it; `devplug-conform --plugin ...` tests it once it has
// a device. The reference backend (reference_backend/plugin.cpp in the devplug sources) is a
// complete plugin built the same way: one CPU device, host-memory buffers, every kernel.
//
// The table the dispatcher reads comes from `devplug::sdk::make_plugin_api<TemplatePlugin>()`
// (devplug/sdk/plugin.hpp). Its shims do what the ABI asks of every entry point, once for
// every plugin: the guard that turns C++ exceptions into errors, then the checks the ABI's
// spec (plugin_api.def) declares for the entry, in its order and with its codes: clearing
// out-parameters, NULL and struct_size checks, device index and buffer range checks, the
// overlap and same-device rules. What is left here is
// the device work; a function reports failure by throwing (sdk::fail).
//
// How to bring a device up:
//   1. Rename the plugin (name() below and devplug_add_plugin() in CMakeLists.txt).
//   2. Define the four handle structs below with what your driver needs.
//   3. initialize: open your driver. Without a driver or device, still succeed and let
//      device_count report 0 with a note that says why ("libfoo.so.1 not found").
//   4. device_count / device_properties / device_open / device_close.
//   5. Buffers (device memory is a handle plus byte offsets, never a raw pointer), streams
//      and events.
//   6. Kernels: add rows to the KernelTable in kernels(). What you do not declare runs on the
//      dispatcher's CPU fallback, so you can add ops one by one.
#include <string>

#include "devplug/plugin_api.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/kernels.hpp"
#include "devplug/sdk/plugin.hpp"

// The plugin's handles. The ABI only ever passes pointers to them (they are opaque to the
// dispatcher), so each holds whatever the driver needs. `device` members let device_of()
// answer which device a buffer, stream or event belongs to.
struct devplug_device_handle_t {
  int32_t index;  // e.g. plus the driver's context
};
struct devplug_buffer_handle_t {
  devplug_device_handle_t* device;
  uint64_t size;  // e.g. plus the driver's allocation
};
struct devplug_stream_handle_t {
  devplug_device_handle_t* device;  // e.g. plus the driver's queue
};
struct devplug_event_handle_t {
  devplug_device_handle_t* device;  // e.g. plus the driver's event
};

namespace {

namespace sdk = devplug::sdk;

// Throws the UNIMPLEMENTED error every unwritten entry answers with. UNIMPLEMENTED means
// "not here": the dispatcher may fall back for kernels, and says so for everything else.
[[noreturn]] void not_implemented(const char* entry) {
  sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string("template plugin: ") + entry + " is not implemented");
}

// Every function is called with arguments that passed the shim's checks: handles are not
// NULL, indices are in [0, device_count), ranges lie inside their buffers, and a copy's
// handles share the stream's device.
struct TemplatePlugin {
  static const char* name() { return "template"; }  // short and stable: devplug_<name>.so
  static const char* version() { return "0.1.0"; }
  // DEVPLUG_PLUGIN_CACHING_ALLOCATOR: let the dispatcher cache your buffers.
  static uint32_t flags() { return 0; }

  // ---- lifecycle ----
  // Open the driver here. A missing driver is not an error: remember why and report zero
  // devices from device_count.
  static void initialize(const devplug_plugin_init_args_t&) {}
  // Release what initialize took. Cannot fail and must not throw.
  static void shutdown() noexcept {}

  // ---- devices ----
  // `*note` is a static string (it must outlive the call), read only when 0 is returned.
  static int32_t device_count(const char** note) {
    *note = "template plugin: no device";
    return 0;
  }
  // Fill name, vendor, driver_version, memory_bytes, compute_units, capabilities and, when a
  // device runs fewer dtypes than your kernels declare, dtypes (0: every dtype). The shim
  // copies only the fields inside the caller's struct_size.
  static void device_properties(int32_t, devplug_device_properties_t&) {
    not_implemented("device_properties");
  }
  static devplug_device_handle_t* device_open(int32_t) { not_implemented("device_open"); }
  static void device_close(devplug_device_handle_t*) { not_implemented("device_close"); }

  // ---- buffers ----
  // Throw RESOURCE_EXHAUSTED with the sizes when the device cannot hold `size` (> 0) bytes.
  static devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t*, uint64_t) {
    not_implemented("buffer_allocate");
  }
  static void buffer_release(devplug_buffer_handle_t*) { not_implemented("buffer_release"); }
  // Called before anything else touches a buffer: the place to throw INVALID_ARGUMENT for a
  // handle that is stale or not yours, where you can tell.
  static uint64_t buffer_size(devplug_buffer_handle_t* buffer) { return buffer->size; }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) { return buffer->device; }
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) { return stream->device; }
  static devplug_device_handle_t* device_of(devplug_event_handle_t* event) { return event->device; }
  // Asynchronous copies on `stream`; `size` > 0 and the ranges are inside their buffers.
  static void buffer_copy_from_host(devplug_stream_handle_t*, const void*, devplug_buffer_handle_t*, uint64_t,
                                    uint64_t) {
    not_implemented("buffer_copy_from_host");
  }
  static void buffer_copy_to_host(devplug_stream_handle_t*, devplug_buffer_handle_t*, uint64_t, void*,
                                  uint64_t) {
    not_implemented("buffer_copy_to_host");
  }
  static void buffer_copy(devplug_stream_handle_t*, devplug_buffer_handle_t*, uint64_t,
                          devplug_buffer_handle_t*, uint64_t, uint64_t) {
    not_implemented("buffer_copy");
  }

  // ---- streams and events ----
  static devplug_stream_handle_t* stream_create(devplug_device_handle_t*) {
    not_implemented("stream_create");
  }
  static void stream_destroy(devplug_stream_handle_t*) { not_implemented("stream_destroy"); }
  static void stream_synchronize(devplug_stream_handle_t*) { not_implemented("stream_synchronize"); }
  static devplug_event_handle_t* event_create(devplug_device_handle_t*) { not_implemented("event_create"); }
  static void event_destroy(devplug_event_handle_t*) { not_implemented("event_destroy"); }
  static void event_record(devplug_event_handle_t*, devplug_stream_handle_t*) {
    not_implemented("event_record");
  }
  static void stream_wait_event(devplug_stream_handle_t*, devplug_event_handle_t*) {
    not_implemented("stream_wait_event");
  }
  static void event_synchronize(devplug_event_handle_t*) { not_implemented("event_synchronize"); }

  // ---- kernels ----
  // The declared kernels. Empty: every op runs on the dispatcher's CPU fallback. To add one:
  //
  //   struct KernelTraits {                          // what the prologue asks of your handles
  //     static devplug_device_handle_t* device_of(devplug_stream_handle_t* s) { return s->device; }
  //     static devplug_device_handle_t* device_of(devplug_buffer_handle_t* b) { return b->device; }
  //     static devplug_dtype_mask_t claimed_dtypes(devplug_stream_handle_t*) { return DEVPLUG_DTYPES_ALL; }
  //   };
  //   devplug_error_t* exp_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  //     return sdk::run_kernel<KernelTraits>(stream, call, [&] {  // devplug/sdk/kernel.hpp
  //       ... enqueue the work on `stream` (inputs may be strided: devplug/sdk/strided.hpp)
  //     });
  //   }
  //   ...
  //   table.add(DEVPLUG_OP_exp, DEVPLUG_DTYPES_FLOAT, 0, &exp_kernel);
  //
  // KernelTable::add throws on an unknown op, a dtype ops.def does not allow, or a duplicate
  // (op, dtype): such a table is a bug, caught when the plugin is first loaded.
  static const sdk::KernelTable& kernels() {
    static const sdk::KernelTable table;
    return table;
  }
};

}  // namespace

// The one exported symbol (devplug_add_plugin's version script hides every other). Returns
// the table, built on first use; NULL only when the kernel table is malformed.
extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  return sdk::plugin_api_or_null<TemplatePlugin>();
}
