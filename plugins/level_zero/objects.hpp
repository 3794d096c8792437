// SPDX-License-Identifier: Apache-2.0
// The plugin's handle types and the device list.
//
// Devices are enumerated once per process: every device of every Level Zero driver that has
// a compute engine (GPUs, CPUs, accelerators alike). A devplug device owns one ze_context,
// the modules built for it, a pool of events and the pinned host memory it gave; buffers,
// streams and events belong to one device and must be destroyed before it is closed.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "backend.hpp"
#include "devplug/plugin_api.h"
#include "ze_library.hpp"

namespace devplug::level_zero {

// What enumeration learns about one Level Zero device.
struct DeviceInfo {
  ze_driver_handle_t driver = nullptr;
  ze_device_handle_t device = nullptr;
  devplug_device_properties_t properties{};
  uint32_t compute_ordinal = 0;  // a command queue group with a compute engine
  bool fp64 = false;             // ZE_DEVICE_MODULE_FLAG_FP64
  bool fp16 = false;             // ZE_DEVICE_MODULE_FLAG_FP16
  bool system_memory = false;    // host memory from malloc may be passed to copies
  bool unified_memory = false;   // a CPU or integrated GPU: buffers are shared (memory.hpp)
  uint32_t free_policies = 0;    // ze_driver_memory_free_policy_ext_flags_t of the driver
  uint64_t max_allocation = 0;   // maxMemAllocSize
  // The device's timestamps (ze_device_properties_t): nanoseconds per tick of the timer that
  // kernel timestamps count, and how many low bits of a kernel timestamp are valid.
  double ns_per_tick = 1.0;
  uint32_t kernel_timestamp_bits = 64;
  std::string name;      // device name
  std::string identity;  // driver and device uuids and versions: the disk cache key
  clc::DeviceCaps caps;  // what the shared host code (plugins/clc_common) needs
};

// Every device with a compute engine; `note` says why the list is empty.
struct DeviceList {
  std::vector<DeviceInfo> devices;
  std::string note;
};

// Enumerates once per process; thread-safe.
const DeviceList& device_list();

class ModuleCache;
class EventPool;

// One Level Zero event from the device's pool, returned to it when the last reference goes.
struct EventSlot {
  ze_event_handle_t event = nullptr;
  EventPool* pool = nullptr;
  uint32_t index = 0;
  bool timestamps = false;  // made in a pool with ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP
};
using EventRef = std::shared_ptr<EventSlot>;

// Work a stream has enqueued that must stay alive (events it signals or waits for, memory
// released while commands may still use it) until the stream has passed it.
struct KeepAlive {
  std::vector<EventRef> events;
  std::vector<void*> memory;  // freed with zeMemFree once the stream is synchronized
};

}  // namespace devplug::level_zero

struct devplug_device_handle_t {
  devplug::level_zero::DeviceInfo info;
  ze_context_handle_t context = nullptr;
  std::unique_ptr<devplug::level_zero::ModuleCache> modules;
  std::shared_ptr<devplug::level_zero::EventPool> events;
  // Events with kernel timestamps, for devplug events (event_record): the time a stream
  // reached one is the end timestamp of the barrier that signalled it.
  std::shared_ptr<devplug::level_zero::EventPool> timed_events;
  // Held while a kernel's group size and arguments are set and its launch appended: kernel
  // handles are shared by every stream of the device and Level Zero captures the arguments
  // at append time.
  std::mutex launch_mutex;
  // Live streams, for releasing memory without the driver's deferred free (memory.cpp).
  std::mutex streams_mutex;
  std::set<devplug_stream_handle_t*> streams;
  // Pinned host memory given to the host (host_allocate, memory.cpp): start address -> size,
  // and how many blocks there are, read without the lock.
  std::mutex pinned_mutex;
  std::map<uintptr_t, uint64_t> pinned;
  std::atomic<size_t> pinned_count{0};
};

struct devplug_buffer_handle_t {
  devplug_device_handle_t* device = nullptr;
  void* memory = nullptr;  // zeMemAllocShared on a unified-memory device, else zeMemAllocDevice
  uint64_t size = 0;
  bool host_addressable = false;  // a shared allocation: the host may read and write `memory`
  bool lent = false;              // host memory the caller lent (buffer_import_host): not freed here
};

struct devplug_stream_handle_t {
  devplug_device_handle_t* device = nullptr;
  // Serializes appends: Level Zero forbids concurrent appends to one command list.
  std::mutex mutex;
  bool immediate = true;
  ze_command_list_handle_t list = nullptr;  // the immediate list, or the regular list being recorded
  ze_fence_handle_t open_fence = nullptr;   // regular: the fence `list` will be submitted with
  // Regular command lists: the queue they run on, lists submitted and not yet known
  // finished (each with its fence), lists ready for reuse.
  ze_command_queue_handle_t queue = nullptr;
  struct Submitted {
    ze_command_list_handle_t list;
    ze_fence_handle_t fence;
  };
  std::deque<Submitted> submitted;
  std::vector<Submitted> idle;
  size_t recorded = 0;         // commands in `list` since it was opened
  bool needs_barrier = false;  // a command was appended since the last barrier
  devplug::level_zero::KeepAlive keep;
  // The index status block (clc::index_status: device memory), made by the first index
  // kernel; `armed` is set whenever an index kernel is enqueued, so a synchronize reads the
  // block only then.
  void* index_status = nullptr;
  std::atomic<bool> index_status_armed{false};
};

struct devplug_event_handle_t {
  devplug_device_handle_t* device = nullptr;
  std::mutex mutex;
  devplug::level_zero::EventRef slot;  // the last recording; null when never recorded
};
