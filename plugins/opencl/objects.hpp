// SPDX-License-Identifier: Apache-2.0
// The plugin's handle types and the device list.
//
// Devices are enumerated once per process (every platform, every device). A devplug device
// owns one cl_context, the programs built for it and its pinned host memory; buffers, streams
// and events belong to one device and must be destroyed before it is closed.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cl_library.hpp"
#include "devplug/plugin_api.h"

namespace devplug::opencl {

// What enumeration learns about one OpenCL device.
struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  devplug_device_properties_t properties{};
  bool fp64 = false;
  bool fp16 = false;
  bool is_cpu = false;
  bool profiling = false;  // CL_DEVICE_QUEUE_PROPERTIES has CL_QUEUE_PROFILING_ENABLE
  size_t max_work_group = 1;
  uint64_t max_allocation = 0;    // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  uint64_t local_memory = 0;      // CL_DEVICE_LOCAL_MEM_SIZE
  size_t max_parameter_size = 0;  // CL_DEVICE_MAX_PARAMETER_SIZE: a kernel's argument bytes
  std::string name;               // device name
  std::string driver_version;     // driver version
  // The driver keeps compiled programs on disk itself (PoCL with its kernel cache on): the
  // plugin then leaves binaries to it (program_cache.hpp).
  bool driver_caches_programs = false;
  clc::DeviceCaps caps;  // what the shared host code (plugins/clc_common) needs
};

// Every device of every platform; `note` says why the list is empty.
struct DeviceList {
  std::vector<DeviceInfo> devices;
  std::string note;
};

// Enumerates once per process; thread-safe.
const DeviceList& device_list();

class ProgramCache;
class PinnedHostMemory;

// The host time at which a marker completed, for events recorded on a queue without
// profiling (stream.cpp); set once by the marker's completion callback.
struct HostStamp;

}  // namespace devplug::opencl

struct devplug_device_handle_t {
  devplug::opencl::DeviceInfo info;
  cl_context context = nullptr;
  std::unique_ptr<devplug::opencl::ProgramCache> programs;
  // The pinned host memory given to the host (host_memory.hpp).
  std::unique_ptr<devplug::opencl::PinnedHostMemory> pinned;
  // Streams are made with CL_QUEUE_PROFILING_ENABLE (events are timed by the device): the
  // device supports it and DEVPLUG_OPENCL_PROFILING is not 0 (stream.hpp). Set at open.
  bool profiling = false;
  // Held while a kernel's arguments are set and it is enqueued: cl_kernel objects are shared
  // by every stream of the device and clSetKernelArg is not thread-safe on one kernel.
  std::mutex launch_mutex;
  // Set when CLBlast cannot serve this device (clblast_matmul.cpp): matmul then takes the
  // plugin's own kernel for the rest of the process.
  std::atomic<bool> clblast_failed{false};
};

struct devplug_buffer_handle_t {
  devplug_device_handle_t* device = nullptr;
  cl_mem mem = nullptr;
  uint64_t size = 0;
};

struct devplug_stream_handle_t {
  devplug_device_handle_t* device = nullptr;
  cl_command_queue queue = nullptr;
  bool profiling = false;  // made with CL_QUEUE_PROFILING_ENABLE
  // The index status block (clc::index_status), made by the first index kernel; `armed` is
  // set whenever an index kernel is enqueued, so a synchronize reads the block only then.
  cl_mem index_status = nullptr;
  std::atomic<bool> index_status_armed{false};
};

struct devplug_event_handle_t {
  devplug_device_handle_t* device = nullptr;
  std::mutex mutex;
  cl_event event = nullptr;  // the last marker recorded; null when never recorded
  // When that marker's queue has no profiling: the host time of its completion (its
  // callback fills it); null when the device timed the marker.
  std::shared_ptr<devplug::opencl::HostStamp> host_stamp;
};
