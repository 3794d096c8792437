// SPDX-License-Identifier: Apache-2.0
// The plugin table built from a plugin's implementation: `make_plugin_api<Impl>()` fills
// every entry of devplug_plugin_api_t, and of each extension Impl offers, with a shim that
// does, once for every plugin, what the ABI asks of each entry point: the guard that turns
// exceptions into errors, then the entry's checks as plugin_api.def declares them
// (checks.hpp: out-parameters cleared, NULL and struct_size checks, device index and buffer
// range checks, the overlap and same-device rules), and the allocation-failure injection
// points of sdk/fault.hpp. Impl then holds only the device work.
//
// Impl is a struct of static functions named after the table's fields. Each reports failure
// by throwing (sdk::fail, sdk::Error); a std::bad_alloc becomes RESOURCE_EXHAUSTED. When a
// shim calls Impl, its arguments have passed the checks written beside it below.
//
//   struct MyPlugin {
//     static const char* name();                 // "mydevice": short and stable
//     static const char* version();              // the plugin's own version
//     static uint32_t flags();                   // DEVPLUG_PLUGIN_* bits
//     static void initialize(const devplug_plugin_init_args_t& args);
//     static void shutdown() noexcept;
//     static int32_t device_count(const char** note);   // *note: static text when 0
//     static void device_properties(int32_t index, devplug_device_properties_t& p);
//     static devplug_device_handle_t* device_open(int32_t index);
//     static void device_close(devplug_device_handle_t* device);
//     static devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size);
//     static void buffer_release(devplug_buffer_handle_t* buffer);
//     static uint64_t buffer_size(devplug_buffer_handle_t* buffer);
//     static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer);  // also
//     ... device_of(devplug_stream_handle_t*), device_of(devplug_event_handle_t*)
//     static void buffer_copy_from_host(devplug_stream_handle_t*, const void* src,
//                                       devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size);
//     static void buffer_copy_to_host(devplug_stream_handle_t*, devplug_buffer_handle_t* src,
//                                     uint64_t src_offset, void* dst, uint64_t size);
//     static void buffer_copy(devplug_stream_handle_t*, devplug_buffer_handle_t* src, uint64_t src_offset,
//                             devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size);
//     static devplug_stream_handle_t* stream_create(devplug_device_handle_t* device);
//     static void stream_destroy(devplug_stream_handle_t* stream);
//     static void stream_synchronize(devplug_stream_handle_t* stream);
//     static devplug_event_handle_t* event_create(devplug_device_handle_t* device);
//     static void event_destroy(devplug_event_handle_t* event);
//     static void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream);
//     static void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event);
//     static void event_synchronize(devplug_event_handle_t* event);
//     static const devplug::sdk::KernelTable& kernels();
//     // Optional: the device's claims (dtypes, and a `supports` hook); without it they come
//     // from device_properties' `dtypes` (0: every dtype).
//     static void device_claims(int32_t index, devplug_device_claims_t& claims);
//     // Optional, each offering an extension (plugin_api.def) when present:
//     static int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end);
//     static void* host_allocate(devplug_device_handle_t* device, uint64_t size);  // with
//     static void host_release(devplug_device_handle_t* device, void* ptr);        // pinned_host_memory
//     static void* buffer_host_address(devplug_buffer_handle_t* buffer);           // host_address
//     static devplug_fused_program_handle_t* fused_program_create(            // with
//         devplug_device_handle_t* device, const devplug_fused_program_desc_t* desc);
//     static void fused_program_launch(devplug_stream_handle_t*, devplug_fused_program_handle_t*,
//                                      const devplug_tensor_desc_t* const* inputs, size_t n_inputs,
//                                      const devplug_tensor_desc_t* const* outputs, size_t n_outputs);
//     static void fused_program_destroy(devplug_fused_program_handle_t*);      // fused_programs
//     static devplug_comm_unique_id_t comm_unique_id(devplug_device_handle_t*); // with
//     static devplug_comm_handle_t* comm_create(devplug_device_handle_t*, const devplug_comm_unique_id_t&,
//                                               uint32_t world_size, uint32_t rank);
//     static void comm_destroy(devplug_comm_handle_t*);
//     static void all_reduce(devplug_stream_handle_t*, devplug_comm_handle_t*, const devplug_tensor_desc_t& send,
//                            const devplug_tensor_desc_t& recv, devplug_reduce_op_t op);   // and
//     all_gather, reduce_scatter (with op), broadcast (root), all_to_all, send and recv (peer)
//     of the same form                                                          // collectives
//   };
//
//   extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
//     return devplug::sdk::plugin_api_or_null<MyPlugin>();
//   }
//
// `buffer_size` and `device_of` are where a plugin that can tell a live handle from a stale
// one says so (throw INVALID_ARGUMENT): the shims call them before anything else touches a
// buffer, stream or event. Kernels are not wrapped here: each kernel runs inside `guard`
// and starts with `check_call` (entry.hpp).
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "devplug/plugin_api.h"
#include "devplug/sdk/checks.hpp"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/fault.hpp"
#include "devplug/sdk/kernels.hpp"

namespace devplug::sdk {

namespace detail {

// Whether Impl states its devices' claims (device_claims); without it, the claims come from
// device_properties' `dtypes` (0: every dtype).
template <typename Impl, typename = void>
struct HasDeviceClaims : std::false_type {};
template <typename Impl>
struct HasDeviceClaims<Impl, std::void_t<decltype(&Impl::device_claims)>> : std::true_type {};

// Device `index`'s claims as Impl states them, with an explicit dtype mask.
template <typename Impl>
devplug_device_claims_t claims_of(int32_t index) {
  devplug_device_claims_t c;
  std::memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  if constexpr (HasDeviceClaims<Impl>::value) {
    Impl::device_claims(index, c);
  } else {
    devplug_device_properties_t p;
    std::memset(&p, 0, sizeof p);
    Impl::device_properties(index, p);
    c.dtypes = p.dtypes == 0 ? DEVPLUG_DTYPES_ALL : p.dtypes;
  }
  c.struct_size = sizeof c;
  return c;
}

// The shims, one per table entry, in table order. Each runs its entry's checks from
// plugin_api.def (EntryChecks, plugin_checks.inc: out-parameters cleared, then every row the
// SDK answers, in order), then Impl's body, inside `guard`.
template <typename Impl>
struct Shims {
  using Check = EntryChecks<Impl>;

  static devplug_error_t* plugin_initialize(const devplug_plugin_init_args_t* args) {
    return guard([&] {
      Check::plugin_initialize(args);
      allocation_faults().arm_from_environment();
      Impl::initialize(*args);
    });
  }

  static void plugin_shutdown() { Impl::shutdown(); }

  static devplug_error_t* device_count(int32_t* out_count, const char** out_note) {
    return guard([&] {
      Check::device_count(out_count, out_note);
      const char* note = nullptr;
      *out_count = Impl::device_count(&note);
      if (out_note != nullptr && *out_count == 0) *out_note = note;
    });
  }

  static devplug_error_t* device_get_properties(int32_t index, devplug_device_properties_t* out_properties) {
    return guard([&] {
      Check::device_get_properties(index, out_properties);
      devplug_device_properties_t p;
      std::memset(&p, 0, sizeof p);
      Impl::device_properties(index, p);
      // The 1.1 field says what the claims say, explicitly (a 1.1 host reads it).
      if constexpr (HasDeviceClaims<Impl>::value)
        p.dtypes = claims_of<Impl>(index).dtypes;
      else if (p.dtypes == 0)
        p.dtypes = DEVPLUG_DTYPES_ALL;
      // Only the fields inside the caller's struct are written.
      const size_t size = out_properties->struct_size;
      p.struct_size = size;
      std::memcpy(out_properties, &p, std::min(size, sizeof p));
    });
  }

  static devplug_error_t* device_open(int32_t index, devplug_device_handle_t** out_device) {
    return guard([&] {
      Check::device_open(index, out_device);
      *out_device = Impl::device_open(index);
    });
  }

  static devplug_error_t* device_close(devplug_device_handle_t* device) {
    return guard([&] {
      Check::device_close(device);
      Impl::device_close(device);
    });
  }

  static devplug_error_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size_bytes,
                                          devplug_buffer_handle_t** out_buffer) {
    return guard([&] {
      Check::buffer_allocate(device, size_bytes, out_buffer);
      allocation_fault_point("buffer_allocate");
      *out_buffer = Impl::buffer_allocate(device, size_bytes);
    });
  }

  static devplug_error_t* buffer_release(devplug_buffer_handle_t* buffer) {
    return guard([&] {
      Check::buffer_release(buffer);
      Impl::buffer_release(buffer);
    });
  }

  static devplug_error_t* buffer_get_size(devplug_buffer_handle_t* buffer, uint64_t* out_size_bytes) {
    return guard([&] {
      Check::buffer_get_size(buffer, out_size_bytes);
      *out_size_bytes = Impl::buffer_size(buffer);
    });
  }

  // A copy of zero bytes is a no-op that succeeds once its handles and range are checked,
  // so hosts need not special-case empty tensors (the OK rows of plugin_api.def).
  static devplug_error_t* buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src,
                                                devplug_buffer_handle_t* dst, uint64_t dst_offset,
                                                uint64_t size_bytes) {
    return guard([&] {
      if (Check::buffer_copy_from_host(stream, src, dst, dst_offset, size_bytes)) return;
      Impl::buffer_copy_from_host(stream, src, dst, dst_offset, size_bytes);
    });
  }

  static devplug_error_t* buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                              uint64_t src_offset, void* dst, uint64_t size_bytes) {
    return guard([&] {
      if (Check::buffer_copy_to_host(stream, src, src_offset, dst, size_bytes)) return;
      Impl::buffer_copy_to_host(stream, src, src_offset, dst, size_bytes);
    });
  }

  static devplug_error_t* buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                      uint64_t src_offset, devplug_buffer_handle_t* dst, uint64_t dst_offset,
                                      uint64_t size_bytes) {
    return guard([&] {
      if (Check::buffer_copy(stream, src, src_offset, dst, dst_offset, size_bytes)) return;
      Impl::buffer_copy(stream, src, src_offset, dst, dst_offset, size_bytes);
    });
  }

  static devplug_error_t* stream_create(devplug_device_handle_t* device,
                                        devplug_stream_handle_t** out_stream) {
    return guard([&] {
      Check::stream_create(device, out_stream);
      allocation_fault_point("stream_create");
      *out_stream = Impl::stream_create(device);
    });
  }

  static devplug_error_t* stream_destroy(devplug_stream_handle_t* stream) {
    return guard([&] {
      Check::stream_destroy(stream);
      Impl::stream_destroy(stream);
    });
  }

  static devplug_error_t* stream_synchronize(devplug_stream_handle_t* stream) {
    return guard([&] {
      Check::stream_synchronize(stream);
      Impl::stream_synchronize(stream);
    });
  }

  static devplug_error_t* event_create(devplug_device_handle_t* device, devplug_event_handle_t** out_event) {
    return guard([&] {
      Check::event_create(device, out_event);
      allocation_fault_point("event_create");
      *out_event = Impl::event_create(device);
    });
  }

  static devplug_error_t* event_destroy(devplug_event_handle_t* event) {
    return guard([&] {
      Check::event_destroy(event);
      Impl::event_destroy(event);
    });
  }

  static devplug_error_t* event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
    return guard([&] {
      Check::event_record(event, stream);
      Impl::event_record(event, stream);
    });
  }

  static devplug_error_t* stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
    return guard([&] {
      Check::stream_wait_event(stream, event);
      Impl::stream_wait_event(stream, event);
    });
  }

  static devplug_error_t* event_synchronize(devplug_event_handle_t* event) {
    return guard([&] {
      Check::event_synchronize(event);
      Impl::event_synchronize(event);
    });
  }

  static devplug_error_t* device_get_claims(int32_t index, devplug_device_claims_t* out_claims) {
    return guard([&] {
      Check::device_get_claims(index, out_claims);
      devplug_device_claims_t c = claims_of<Impl>(index);
      // Only the fields inside the caller's struct are written.
      const size_t size = out_claims->struct_size;
      c.struct_size = size;
      std::memcpy(out_claims, &c, std::min(size, sizeof c));
    });
  }

  // ---- extension event_timestamps ----
  static devplug_error_t* event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end,
                                           int64_t* out_ns) {
    return guard([&] {
      Check::event_elapsed_ns(start, end, out_ns);
      *out_ns = Impl::event_elapsed_ns(start, end);
    });
  }

  // ---- extension pinned_host_memory ----
  static devplug_error_t* host_allocate(devplug_device_handle_t* device, uint64_t size_bytes,
                                        void** out_ptr) {
    return guard([&] {
      Check::host_allocate(device, size_bytes, out_ptr);
      allocation_fault_point("host_allocate");
      *out_ptr = Impl::host_allocate(device, size_bytes);
    });
  }

  static devplug_error_t* host_release(devplug_device_handle_t* device, void* ptr) {
    return guard([&] {
      Check::host_release(device, ptr);
      Impl::host_release(device, ptr);
    });
  }

  // ---- extension host_address ----
  static devplug_error_t* buffer_host_address(devplug_buffer_handle_t* buffer, void** out_address) {
    return guard([&] {
      Check::buffer_host_address(buffer, out_address);
      (void)Impl::device_of(buffer);  // a plugin that can tell a stale buffer says so here
      *out_address = Impl::buffer_host_address(buffer);
    });
  }

  // ---- extension host_memory_import ----
  static devplug_error_t* buffer_import_host(devplug_device_handle_t* device, void* host, uint64_t size_bytes,
                                             devplug_buffer_handle_t** out_buffer) {
    return guard([&] {
      Check::buffer_import_host(device, host, size_bytes, out_buffer);
      allocation_fault_point("buffer_import_host");
      *out_buffer = Impl::buffer_import_host(device, host, size_bytes);
    });
  }

  // ---- extension fused_programs ----
  static devplug_error_t* fused_program_create(devplug_device_handle_t* device,
                                               const devplug_fused_program_desc_t* desc,
                                               devplug_fused_program_handle_t** out_program) {
    return guard([&] {
      Check::fused_program_create(device, desc, out_program);
      *out_program = Impl::fused_program_create(device, desc);
    });
  }

  static devplug_error_t* fused_program_launch(devplug_stream_handle_t* stream,
                                               devplug_fused_program_handle_t* program,
                                               const devplug_tensor_desc_t* const* inputs, size_t n_inputs,
                                               const devplug_tensor_desc_t* const* outputs,
                                               size_t n_outputs) {
    return guard([&] {
      Check::fused_program_launch(stream, program, inputs, n_inputs, outputs, n_outputs);
      (void)Impl::device_of(stream);
      Impl::fused_program_launch(stream, program, inputs, n_inputs, outputs, n_outputs);
    });
  }

  static devplug_error_t* fused_program_destroy(devplug_fused_program_handle_t* program) {
    return guard([&] {
      Check::fused_program_destroy(program);
      Impl::fused_program_destroy(program);
    });
  }

  // ---- extension collectives ----
  static devplug_error_t* comm_unique_id(devplug_device_handle_t* device, devplug_comm_unique_id_t* out_id) {
    return guard([&] {
      Check::comm_unique_id(device, out_id);
      *out_id = Impl::comm_unique_id(device);
    });
  }

  static devplug_error_t* comm_create(devplug_device_handle_t* device, const devplug_comm_unique_id_t* id,
                                      uint32_t world_size, uint32_t rank, devplug_comm_handle_t** out_comm) {
    return guard([&] {
      Check::comm_create(device, id, world_size, rank, out_comm);
      *out_comm = Impl::comm_create(device, *id, world_size, rank);
    });
  }

  static devplug_error_t* comm_destroy(devplug_comm_handle_t* comm) {
    return guard([&] {
      Check::comm_destroy(comm);
      Impl::comm_destroy(comm);
    });
  }

  static devplug_error_t* all_reduce(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                     const devplug_tensor_desc_t* send, const devplug_tensor_desc_t* recv,
                                     uint32_t op) {
    return guard([&] {
      Check::all_reduce(stream, comm, send, recv, op);
      Impl::all_reduce(stream, comm, *send, *recv, static_cast<devplug_reduce_op_t>(op));
    });
  }

  static devplug_error_t* all_gather(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                     const devplug_tensor_desc_t* send, const devplug_tensor_desc_t* recv) {
    return guard([&] {
      Check::all_gather(stream, comm, send, recv);
      Impl::all_gather(stream, comm, *send, *recv);
    });
  }

  static devplug_error_t* reduce_scatter(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                         const devplug_tensor_desc_t* send, const devplug_tensor_desc_t* recv,
                                         uint32_t op) {
    return guard([&] {
      Check::reduce_scatter(stream, comm, send, recv, op);
      Impl::reduce_scatter(stream, comm, *send, *recv, static_cast<devplug_reduce_op_t>(op));
    });
  }

  static devplug_error_t* broadcast(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                    const devplug_tensor_desc_t* tensor, uint32_t root) {
    return guard([&] {
      Check::broadcast(stream, comm, tensor, root);
      Impl::broadcast(stream, comm, *tensor, root);
    });
  }

  static devplug_error_t* all_to_all(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                     const devplug_tensor_desc_t* send, const devplug_tensor_desc_t* recv) {
    return guard([&] {
      Check::all_to_all(stream, comm, send, recv);
      Impl::all_to_all(stream, comm, *send, *recv);
    });
  }

  static devplug_error_t* send(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                               const devplug_tensor_desc_t* tensor, uint32_t peer) {
    return guard([&] {
      Check::send(stream, comm, tensor, peer);
      Impl::send(stream, comm, *tensor, peer);
    });
  }

  static devplug_error_t* recv(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                               const devplug_tensor_desc_t* tensor, uint32_t peer) {
    return guard([&] {
      Check::recv(stream, comm, tensor, peer);
      Impl::recv(stream, comm, *tensor, peer);
    });
  }
};

// Whether Impl offers an extension: it defines the extension's body functions.
template <typename Impl, typename = void>
struct HasEventTimestamps : std::false_type {};
template <typename Impl>
struct HasEventTimestamps<Impl, std::void_t<decltype(&Impl::event_elapsed_ns)>> : std::true_type {};

template <typename Impl, typename = void>
struct HasPinnedHostMemory : std::false_type {};
template <typename Impl>
struct HasPinnedHostMemory<Impl, std::void_t<decltype(&Impl::host_allocate), decltype(&Impl::host_release)>>
    : std::true_type {};
template <typename Impl, typename = void>
struct HasHostAddress : std::false_type {};
template <typename Impl>
struct HasHostAddress<Impl, std::void_t<decltype(&Impl::buffer_host_address)>> : std::true_type {};

template <typename Impl, typename = void>
struct HasHostMemoryImport : std::false_type {};
template <typename Impl>
struct HasHostMemoryImport<Impl, std::void_t<decltype(&Impl::buffer_import_host)>> : std::true_type {};

template <typename Impl, typename = void>
struct HasFusedPrograms : std::false_type {};
template <typename Impl>
struct HasFusedPrograms<
    Impl, std::void_t<decltype(&Impl::fused_program_create), decltype(&Impl::fused_program_launch),
                      decltype(&Impl::fused_program_destroy)>> : std::true_type {};
template <typename Impl, typename = void>
struct HasCollectives : std::false_type {};
template <typename Impl>
struct HasCollectives<
    Impl, std::void_t<decltype(&Impl::comm_unique_id), decltype(&Impl::comm_create),
                      decltype(&Impl::comm_destroy), decltype(&Impl::all_reduce), decltype(&Impl::all_gather),
                      decltype(&Impl::reduce_scatter), decltype(&Impl::broadcast),
                      decltype(&Impl::all_to_all), decltype(&Impl::send), decltype(&Impl::recv)>>
    : std::true_type {};

// The extension records of `Impl`, chained in type order; static, built once per Impl.
template <typename Impl>
struct Extensions {
  devplug_ext_event_timestamps_t event_timestamps;
  devplug_ext_pinned_host_memory_t pinned_host_memory;
  devplug_ext_host_address_t host_address;
  devplug_ext_fused_programs_t fused_programs;
  devplug_ext_collectives_t collectives;
  devplug_ext_host_memory_import_t host_memory_import;
  const devplug_extension_t* first = nullptr;

  Extensions() {
    std::memset(&event_timestamps, 0, sizeof event_timestamps);
    std::memset(&pinned_host_memory, 0, sizeof pinned_host_memory);
    std::memset(&host_address, 0, sizeof host_address);
    std::memset(&fused_programs, 0, sizeof fused_programs);
    std::memset(&collectives, 0, sizeof collectives);
    std::memset(&host_memory_import, 0, sizeof host_memory_import);
    const devplug_extension_t** link = &first;
    auto chain = [&link](devplug_extension_t& base, size_t size, uint32_t type) {
      base.struct_size = size;
      base.type = type;
      *link = &base;
      link = &base.next;
    };
    if constexpr (HasEventTimestamps<Impl>::value) {
      event_timestamps.event_elapsed_ns = &Shims<Impl>::event_elapsed_ns;
      chain(event_timestamps.base, sizeof event_timestamps, DEVPLUG_EXTENSION_EVENT_TIMESTAMPS);
    }
    if constexpr (HasPinnedHostMemory<Impl>::value) {
      pinned_host_memory.host_allocate = &Shims<Impl>::host_allocate;
      pinned_host_memory.host_release = &Shims<Impl>::host_release;
      chain(pinned_host_memory.base, sizeof pinned_host_memory, DEVPLUG_EXTENSION_PINNED_HOST_MEMORY);
    }
    if constexpr (HasHostAddress<Impl>::value) {
      host_address.buffer_host_address = &Shims<Impl>::buffer_host_address;
      chain(host_address.base, sizeof host_address, DEVPLUG_EXTENSION_HOST_ADDRESS);
    }
    if constexpr (HasFusedPrograms<Impl>::value) {
      fused_programs.fused_program_create = &Shims<Impl>::fused_program_create;
      fused_programs.fused_program_launch = &Shims<Impl>::fused_program_launch;
      fused_programs.fused_program_destroy = &Shims<Impl>::fused_program_destroy;
      chain(fused_programs.base, sizeof fused_programs, DEVPLUG_EXTENSION_FUSED_PROGRAMS);
    }
    if constexpr (HasCollectives<Impl>::value) {
      using S = Shims<Impl>;
      collectives.comm_unique_id = &S::comm_unique_id;
      collectives.comm_create = &S::comm_create;
      collectives.comm_destroy = &S::comm_destroy;
      collectives.all_reduce = &S::all_reduce;
      collectives.all_gather = &S::all_gather;
      collectives.reduce_scatter = &S::reduce_scatter;
      collectives.broadcast = &S::broadcast;
      collectives.all_to_all = &S::all_to_all;
      collectives.send = &S::send;
      collectives.recv = &S::recv;
      chain(collectives.base, sizeof collectives, DEVPLUG_EXTENSION_COLLECTIVES);
    }
    if constexpr (HasHostMemoryImport<Impl>::value) {
      host_memory_import.buffer_import_host = &Shims<Impl>::buffer_import_host;
      chain(host_memory_import.base, sizeof host_memory_import, DEVPLUG_EXTENSION_HOST_MEMORY_IMPORT);
    }
  }
};

}  // namespace detail

// Builds the table of `Impl` (see the top of this file). Throws std::logic_error when
// Impl's kernel table is malformed (KernelTable::add), a plugin bug found at load.
template <typename Impl>
devplug_plugin_api_t make_plugin_api() {
  using S = detail::Shims<Impl>;
  devplug_plugin_api_t api;
  std::memset(&api, 0, sizeof api);
  api.struct_size = sizeof api;
  api.abi_major = DEVPLUG_ABI_MAJOR;
  api.abi_minor = DEVPLUG_ABI_MINOR;
  api.plugin_name = Impl::name();
  api.plugin_version = Impl::version();
  api.opset_version = DEVPLUG_OPSET_VERSION;
  api.flags = Impl::flags();
  api.error_create = &error_create;
  api.error_destroy = &error_destroy;
  api.plugin_initialize = &S::plugin_initialize;
  api.plugin_shutdown = &S::plugin_shutdown;
  api.device_count = &S::device_count;
  api.device_get_properties = &S::device_get_properties;
  api.device_open = &S::device_open;
  api.device_close = &S::device_close;
  api.buffer_allocate = &S::buffer_allocate;
  api.buffer_release = &S::buffer_release;
  api.buffer_get_size = &S::buffer_get_size;
  api.buffer_copy_from_host = &S::buffer_copy_from_host;
  api.buffer_copy_to_host = &S::buffer_copy_to_host;
  api.buffer_copy = &S::buffer_copy;
  api.stream_create = &S::stream_create;
  api.stream_destroy = &S::stream_destroy;
  api.stream_synchronize = &S::stream_synchronize;
  api.event_create = &S::event_create;
  api.event_destroy = &S::event_destroy;
  api.event_record = &S::event_record;
  api.stream_wait_event = &S::stream_wait_event;
  api.event_synchronize = &S::event_synchronize;
  const KernelTable& kernels = Impl::kernels();
  api.kernels = kernels.data();
  api.kernel_count = kernels.size();
  static const detail::Extensions<Impl> extensions;
  api.extensions = extensions.first;
  api.device_get_claims = &S::device_get_claims;
  return api;
}

// The table of `Impl`, built on first use, or NULL when it cannot be built: what the one
// exported `devplug_plugin_get_api` returns. Nothing escapes it.
template <typename Impl>
const devplug_plugin_api_t* plugin_api_or_null() noexcept {
  try {
    static const devplug_plugin_api_t api = make_plugin_api<Impl>();
    return &api;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace devplug::sdk
