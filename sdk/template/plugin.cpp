// A devplug plugin to copy and fill in, one entry point at a time.
//
// As shipped it loads, initializes, reports zero devices with the note "template plugin: no
// device", and answers every other entry point with UNIMPLEMENTED. `devplug-info --check
// ./libdevplug_template.so` diagnoses it; `devplug-conform --plugin ...` tests it once it has
// a device.
//
// How to bring a device up:
//   1. Rename the plugin (kName below and devplug_add_plugin() in CMakeLists.txt).
//   2. plugin_initialize: open your driver. Without a driver or device, still succeed and
//      let device_count report 0 with a note that says why ("libfoo.so.1 not found").
//   3. device_count / device_get_properties / device_open / device_close.
//   4. Buffers (device memory is a handle plus byte offsets, never a raw pointer), streams
//      and events.
//   5. Kernels: add rows to the KernelTable in kernel_table(). What you do not declare runs on
//      the dispatcher's CPU fallback, so you can add ops one by one.
//
// Rules of the ABI (docs/abi.md): every entry runs its body inside devplug::sdk::guard so no
// C++ exception crosses the boundary; out-parameters are cleared first; errors are made with
// this plugin's error_create and destroyed by the caller through error_destroy; nothing may
// abort the process.
#include <string>

#include "devplug/plugin_api.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/kernels.hpp"

namespace {

namespace sdk = devplug::sdk;

constexpr const char* kName = "template";
constexpr const char* kVersion = "0.1.0";

// Throws the UNIMPLEMENTED error every unwritten entry answers with. UNIMPLEMENTED means
// "not here": the dispatcher may fall back for kernels, and says so for everything else.
[[noreturn]] void not_implemented(const char* entry) {
  sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string("template plugin: ") + entry + " is not implemented");
}

// Clears an out-parameter, after checking the caller passed one.
template <typename T>
void clear_out(T** out, const char* what) {
  sdk::check_not_null(out, what);
  *out = nullptr;
}

// ---- lifecycle -------------------------------------------------------------------------

devplug_error_t* plugin_initialize(const devplug_plugin_init_args_t* args) {
  return sdk::guard([&] {
    sdk::check_struct(args, DEVPLUG_SIZE_THROUGH(devplug_plugin_init_args_t, host_abi_minor), "args");
    // Open the driver here. A missing driver is not an error: remember why and report zero
    // devices from device_count.
  });
}

void plugin_shutdown() {
  // Release what plugin_initialize took. Cannot fail and must not throw.
}

// ---- devices -------------------------------------------------------------------------------

devplug_error_t* device_count(int32_t* out_count, const char** out_note) {
  return sdk::guard([&] {
    sdk::check_not_null(out_count, "out_count");
    *out_count = 0;
    // The note is a static string: it must outlive the call.
    if (out_note != nullptr) *out_note = "template plugin: no device";
  });
}

devplug_error_t* device_get_properties(int32_t, devplug_device_properties_t* out_properties) {
  return sdk::guard([&] {
    sdk::check_not_null(out_properties, "out_properties");
    // Fill name, vendor, driver_version, memory_bytes, compute_units and capabilities,
    // writing only the fields inside out_properties->struct_size.
    not_implemented("device_get_properties");
  });
}

devplug_error_t* device_open(int32_t, devplug_device_handle_t** out_device) {
  return sdk::guard([&] {
    clear_out(out_device, "out_device");
    not_implemented("device_open");
  });
}

devplug_error_t* device_close(devplug_device_handle_t*) {
  return sdk::guard([&] { not_implemented("device_close"); });
}

// ---- buffers -------------------------------------------------------------------------------

devplug_error_t* buffer_allocate(devplug_device_handle_t*, uint64_t, devplug_buffer_handle_t** out_buffer) {
  return sdk::guard([&] {
    clear_out(out_buffer, "out_buffer");
    not_implemented("buffer_allocate");
  });
}

devplug_error_t* buffer_release(devplug_buffer_handle_t*) {
  return sdk::guard([&] { not_implemented("buffer_release"); });
}

devplug_error_t* buffer_get_size(devplug_buffer_handle_t*, uint64_t* out_size_bytes) {
  return sdk::guard([&] {
    sdk::check_not_null(out_size_bytes, "out_size_bytes");
    *out_size_bytes = 0;
    not_implemented("buffer_get_size");
  });
}

devplug_error_t* buffer_copy_from_host(devplug_stream_handle_t*, const void*, devplug_buffer_handle_t*, uint64_t,
                                       uint64_t) {
  return sdk::guard([&] { not_implemented("buffer_copy_from_host"); });
}

devplug_error_t* buffer_copy_to_host(devplug_stream_handle_t*, devplug_buffer_handle_t*, uint64_t, void*, uint64_t) {
  return sdk::guard([&] { not_implemented("buffer_copy_to_host"); });
}

devplug_error_t* buffer_copy(devplug_stream_handle_t*, devplug_buffer_handle_t*, uint64_t, devplug_buffer_handle_t*,
                             uint64_t, uint64_t) {
  return sdk::guard([&] { not_implemented("buffer_copy"); });
}

// ---- streams and events ------------------------------------------------------------------

devplug_error_t* stream_create(devplug_device_handle_t*, devplug_stream_handle_t** out_stream) {
  return sdk::guard([&] {
    clear_out(out_stream, "out_stream");
    not_implemented("stream_create");
  });
}

devplug_error_t* stream_destroy(devplug_stream_handle_t*) {
  return sdk::guard([&] { not_implemented("stream_destroy"); });
}

devplug_error_t* stream_synchronize(devplug_stream_handle_t*) {
  return sdk::guard([&] { not_implemented("stream_synchronize"); });
}

devplug_error_t* event_create(devplug_device_handle_t*, devplug_event_handle_t** out_event) {
  return sdk::guard([&] {
    clear_out(out_event, "out_event");
    not_implemented("event_create");
  });
}

devplug_error_t* event_destroy(devplug_event_handle_t*) {
  return sdk::guard([&] { not_implemented("event_destroy"); });
}

devplug_error_t* event_record(devplug_event_handle_t*, devplug_stream_handle_t*) {
  return sdk::guard([&] { not_implemented("event_record"); });
}

devplug_error_t* stream_wait_event(devplug_stream_handle_t*, devplug_event_handle_t*) {
  return sdk::guard([&] { not_implemented("stream_wait_event"); });
}

devplug_error_t* event_synchronize(devplug_event_handle_t*) {
  return sdk::guard([&] { not_implemented("event_synchronize"); });
}

// ---- kernels -------------------------------------------------------------------------------

// The declared kernels. Empty: every op runs on the dispatcher's CPU fallback. To add one:
//
//   devplug_error_t* exp_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
//     return sdk::guard([&] {
//       sdk::check_call(call);                      // devplug/sdk/entry.hpp
//       ... enqueue the work on `stream` (inputs may be strided: devplug/sdk/strided.hpp)
//     });
//   }
//   ...
//   table.add(DEVPLUG_OP_exp, DEVPLUG_DTYPES_FLOAT, 0, &exp_kernel);
//
// KernelTable::add throws on an unknown op, a dtype ops.def does not allow, or a duplicate
// (op, dtype): such a table is a bug, caught when the plugin is first loaded.
const sdk::KernelTable& kernel_table() {
  static const sdk::KernelTable table;
  return table;
}

// ---- the table -----------------------------------------------------------------------------

devplug_plugin_api_t make_api() {
  devplug_plugin_api_t api{};
  api.struct_size = sizeof(devplug_plugin_api_t);
  api.abi_major = DEVPLUG_ABI_MAJOR;
  api.abi_minor = DEVPLUG_ABI_MINOR;
  api.plugin_name = kName;
  api.plugin_version = kVersion;
  api.opset_version = DEVPLUG_OPSET_VERSION;
  api.flags = 0;  // DEVPLUG_PLUGIN_CACHING_ALLOCATOR: let the dispatcher cache your buffers
  api.error_create = &sdk::error_create;
  api.error_destroy = &sdk::error_destroy;
  api.plugin_initialize = &plugin_initialize;
  api.plugin_shutdown = &plugin_shutdown;
  api.device_count = &device_count;
  api.device_get_properties = &device_get_properties;
  api.device_open = &device_open;
  api.device_close = &device_close;
  api.buffer_allocate = &buffer_allocate;
  api.buffer_release = &buffer_release;
  api.buffer_get_size = &buffer_get_size;
  api.buffer_copy_from_host = &buffer_copy_from_host;
  api.buffer_copy_to_host = &buffer_copy_to_host;
  api.buffer_copy = &buffer_copy;
  api.stream_create = &stream_create;
  api.stream_destroy = &stream_destroy;
  api.stream_synchronize = &stream_synchronize;
  api.event_create = &event_create;
  api.event_destroy = &event_destroy;
  api.event_record = &event_record;
  api.stream_wait_event = &stream_wait_event;
  api.event_synchronize = &event_synchronize;
  api.kernels = kernel_table().data();
  api.kernel_count = kernel_table().size();
  return api;
}

}  // namespace

// The one exported symbol. Returns the table; never NULL just because there is no device.
extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  // Built on first use; a KernelTable mistake (std::logic_error) must not escape either.
  try {
    static const devplug_plugin_api_t api = make_api();
    return &api;
  } catch (...) {
    return nullptr;
  }
}
