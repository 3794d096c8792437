// SPDX-License-Identifier: Apache-2.0
// A device as the host sees it: the plugin and index it comes from, its properties, its
// plugin-side handle (opened on first use), its default stream (made on first use), its
// caching allocator and the live objects made on it.
//
// Thread-safe: opening and the default stream are guarded by `mutex` and published through
// atomics, so the hot path reads them without a lock; the live lists have their own mutex.
#pragma once

#include <atomic>
#include <mutex>

#include "allocator.hpp"
#include "devplug/devplug.h"
#include "live_list.hpp"
#include "plugin_record.hpp"

struct devplug_stream_t;
struct devplug_event_t;
struct devplug_graph_t;
struct devplug_tensor_t;
struct devplug_comm_t;

struct devplug_device_t {
  static constexpr uint32_t kMagic = 0x44455643;  // "DEVC"
  static constexpr const char* kKind = "device";
  uint32_t magic = kMagic;

  devplug_plugin_t* plugin = nullptr;
  int32_t index = 0;
  devplug_device_properties_t properties{};
  // The dtypes this device runs (its claims: device_get_claims, or properties.dtypes for a
  // plugin older than ABI 1.2): a call with a tensor of another dtype falls back as if the
  // plugin declared no kernel for it.
  devplug_dtype_mask_t dtypes = DEVPLUG_DTYPES_ALL;
  // The claims' hook that may decline single calls (NULL: none); a declined call falls back.
  devplug_supports_fn supports = nullptr;

  // The kernel this device runs for a call of `op` dispatched on `dtype` whose tensors'
  // dtypes are the bits of `call_dtypes`, or an empty slot.
  const devplug::detail::KernelSlot& kernel(devplug_op_t op, devplug_dtype_t dtype,
                                            devplug_dtype_mask_t call_dtypes) const noexcept;

  // Opens the device on first use; returns the plugin's handle. Throws on failure.
  devplug_device_handle_t* open();
  // The default stream, made on first use. Throws on failure.
  devplug_stream_t* default_stream();
  // Waits for every stream of the device.
  void synchronize();
  // Frees what is still alive (graphs, fused programs, communicators, tensors, streams, events),
  // the allocator's cache, and closes the device. Never throws; errors are dropped.
  void shut_down() noexcept;

  std::mutex mutex;  // opening, default stream, streams, events, graphs, programs and comms lists
  std::atomic<devplug_device_handle_t*> native{nullptr};
  std::atomic<devplug_stream_t*> default_stream_{nullptr};
  devplug::detail::LiveList<devplug_stream_t> streams;
  devplug::detail::LiveList<devplug_event_t> events;
  devplug::detail::LiveList<devplug_graph_t> graphs;
  devplug::detail::LiveList<devplug_fused_program_t> programs;
  devplug::detail::LiveList<devplug_comm_t> comms;

  std::mutex tensors_mutex;
  devplug::detail::LiveList<devplug_tensor_t> tensors;

  devplug::detail::CachingAllocator allocator;
};
