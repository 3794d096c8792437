// SPDX-License-Identifier: Apache-2.0
// The objects of the CPU test driver (libze_devplug_cpu.so): a Level Zero driver whose one
// device is the OpenCL CPU device of PoCL. It implements the part of Level Zero a compute
// plugin uses; see README.md beside this file. Test infrastructure: never installed.
//
// Every handle the driver hands out is the address of an object owned by the registry
// (registry.cpp) as a shared_ptr. Each entry point looks its handles up there first, so a
// stale or foreign handle is answered with ZE_RESULT_ERROR_INVALID_ARGUMENT instead of being
// dereferenced, and work in flight keeps the objects it uses alive.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <level_zero/ze_api.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ze_cpu {

// ---- errors ----

// Thrown inside the driver; entry points turn it into their result (api.hpp: guarded).
struct ZeError {
  ze_result_t result;
};
[[noreturn]] inline void fail(ze_result_t result) { throw ZeError{result}; }
inline void check(bool ok, ze_result_t result) {
  if (!ok) fail(result);
}
// The Level Zero result for an OpenCL error of work the driver ran.
ze_result_t result_of_cl(cl_int status);

// ---- objects ----

enum class Kind : uint32_t {
  driver,
  device,
  context,
  queue,
  list,
  fence,
  event_pool,
  event,
  module,
  build_log,
  kernel
};

struct Object {
  explicit Object(Kind k) : kind(k) {}
  virtual ~Object() = default;
  const Kind kind;
};

// The one device: PoCL's CPU device, and what Level Zero says about it.
struct Device : Object {
  Device() : Object(Kind::device) {}
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_context cl_context_handle = nullptr;  // one OpenCL context for the whole driver
  std::string name;                        // says what this device is
  std::string cl_name, cl_version;
  bool fp64 = false;
  ze_device_type_t type = ZE_DEVICE_TYPE_CPU;
  bool integrated = true;  // ZE_DEVICE_PROPERTY_FLAG_INTEGRATED (false only for tests)
  uint32_t compute_units = 1;
  uint64_t global_memory = 0;
  uint64_t max_allocation = 0;
  uint32_t max_group_size = 1;
  std::array<uint32_t, 3> max_group_dims{1, 1, 1};
  uint64_t local_memory = 0;
  ze_device_uuid_t uuid{};
};

struct Driver : Object {
  Driver() : Object(Kind::driver) {}
  ze_driver_uuid_t uuid{};
  uint32_t version = 1;
  std::shared_ptr<Device> device;
};

struct Context : Object {
  Context() : Object(Kind::context) {}
};

// An allocation made by zeMemAlloc*: OpenCL fine-grained SVM, so host and kernels share it.
struct Allocation {
  void* base = nullptr;  // what the application sees
  void* raw = nullptr;   // what clSVMAlloc returned (before aligning past 128 bytes)
  size_t size = 0;
  ze_memory_type_t type = ZE_MEMORY_TYPE_UNKNOWN;
  Context* context = nullptr;
  uint64_t id = 0;
};

struct Event;
struct Fence;
struct Kernel;
struct Queue;

// A kernel launch as captured when it was appended: the kernel's arguments, group size and
// the group count at that moment (Level Zero captures them at append time).
struct KernelArgument {
  enum class Type { value, global, local } type = Type::value;
  std::vector<unsigned char> bytes;  // value bytes, or the pointer for `global`
  size_t local_size = 0;
};

struct Command {
  enum class Type { launch, copy, fill, barrier, signal, wait, reset, timestamp } type = Type::barrier;
  // launch
  std::shared_ptr<Kernel> kernel;
  std::vector<KernelArgument> arguments;
  std::array<uint32_t, 3> group_size{1, 1, 1};
  std::array<uint32_t, 3> group_count{1, 1, 1};
  // copy, fill, timestamp
  void* dst = nullptr;
  const void* src = nullptr;
  size_t size = 0;
  std::vector<unsigned char> pattern;
  // every command: events waited for first, the event signalled (or reset) when done
  std::vector<std::shared_ptr<Event>> wait;
  std::shared_ptr<Event> signal;
};

// Work a queue runs in order on its own thread: the commands of the command lists of one
// zeCommandQueueExecuteCommandLists (or one append to an immediate list), then its fence.
struct Batch {
  std::vector<Command> commands;
  std::shared_ptr<Fence> fence;
  uint64_t sequence = 0;
};

struct Queue : Object {
  Queue() : Object(Kind::queue) {}
  ~Queue() override;
  // Runs what was submitted (waits for events give up), then stops the thread. Called when
  // the application destroys the queue (or the immediate list that owns it).
  void shutdown();
  std::shared_ptr<Context> context;
  ze_command_queue_mode_t mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  cl_command_queue cl_queue = nullptr;
  std::thread worker;
  std::mutex mutex;
  std::condition_variable work_cv;  // new batch or stop
  std::condition_variable done_cv;  // a batch finished
  std::deque<Batch> pending;
  uint64_t submitted = 0;
  uint64_t completed = 0;
  std::atomic<bool> stop{false};
  ze_result_t error = ZE_RESULT_SUCCESS;  // the first failure of asynchronous work
};

struct CommandList : Object {
  CommandList() : Object(Kind::list) {}
  std::shared_ptr<Context> context;
  bool immediate = false;
  bool closed = false;
  std::vector<Command> commands;  // regular lists
  std::shared_ptr<Queue> queue;   // immediate lists: their own queue
};

struct Fence : Object {
  Fence() : Object(Kind::fence) {}
  std::weak_ptr<Queue> queue;
  std::mutex mutex;
  std::condition_variable cv;
  bool signalled = false;
  ze_result_t error = ZE_RESULT_SUCCESS;
};

struct EventPool : Object {
  EventPool() : Object(Kind::event_pool) {}
  std::shared_ptr<Context> context;
  ze_event_pool_flags_t flags = 0;
  uint32_t count = 0;
  std::mutex mutex;
  std::vector<bool> used;  // by index
};

struct Event : Object {
  Event() : Object(Kind::event) {}
  std::shared_ptr<EventPool> pool;
  uint32_t index = 0;
  std::mutex mutex;
  std::condition_variable cv;
  bool signalled = false;
  ze_result_t error = ZE_RESULT_SUCCESS;  // set when the queue that signalled it had failed
  uint64_t start = 0, end = 0;            // kernel timestamps (ns)
};

// What the driver knows about a kernel of a module (from its LLVM form at build time).
struct KernelInfo {
  std::string name;
  std::vector<KernelArgument::Type> argument_types;
  std::vector<uint32_t> argument_sizes;                  // value bytes; 8 for pointers; 0 for local
  std::array<uint32_t, 3> required_group_size{0, 0, 0};  // 0: none
};

struct Module : Object {
  Module() : Object(Kind::module) {}
  ~Module() override;
  std::shared_ptr<Context> context;
  cl_program program = nullptr;
  std::vector<KernelInfo> kernels;
  std::vector<unsigned char> native;  // zeModuleGetNativeBinary
  std::vector<std::string> names;     // zeModuleGetKernelNames keeps pointers into these
  std::vector<const char*> name_pointers;
};

struct BuildLog : Object {
  BuildLog() : Object(Kind::build_log) {}
  std::string text;
};

struct Kernel : Object {
  Kernel() : Object(Kind::kernel) {}
  ~Kernel() override;
  std::shared_ptr<Module> module;
  const KernelInfo* info = nullptr;
  cl_kernel cl_kernel_handle = nullptr;
  std::mutex cl_mutex;  // clSetKernelArg + clEnqueueNDRangeKernel by queue threads
  std::mutex mutex;     // the state below, set by the application
  std::vector<KernelArgument> arguments;
  std::vector<bool> set;
  std::array<uint32_t, 3> group_size{1, 1, 1};
  ze_kernel_indirect_access_flags_t indirect = 0;
};

// ---- the driver ----

// The driver's state, created by the first successful zeInit.
struct Runtime {
  std::shared_ptr<Driver> driver;
  ze_result_t init_result = ZE_RESULT_ERROR_UNINITIALIZED;
  bool system_memory = true;  // ZE_DEVPLUG_CPU_SYSTEM_MEMORY=0 turns it off (tests)
};
Runtime& runtime();
// Runs zeInit's work once; later calls return the first result.
ze_result_t initialize(ze_init_flags_t flags);
// The device, or throws ZE_RESULT_ERROR_UNINITIALIZED before zeInit.
Device& the_device();

// ---- the registry of live handles ----

void register_object(const std::shared_ptr<Object>& object);
// Removes `handle`; false when it was not live.
bool unregister_object(void* handle);
std::shared_ptr<Object> find_object(void* handle, Kind kind);

// The live object behind `handle`: INVALID_NULL_HANDLE for NULL, INVALID_ARGUMENT for a handle
// that is not a live object of that kind.
template <typename T>
std::shared_ptr<T> lookup(void* handle, Kind kind) {
  check(handle != nullptr, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  std::shared_ptr<Object> object = find_object(handle, kind);
  check(object != nullptr, ZE_RESULT_ERROR_INVALID_ARGUMENT);
  return std::static_pointer_cast<T>(object);
}

template <typename T>
T* handle_of(const std::shared_ptr<T>& object) {
  return object.get();
}

// ---- memory ----

// The allocation containing [ptr, ptr + size), or nullptr.
std::shared_ptr<Allocation> find_allocation(const void* ptr, size_t size = 1);
// Whether the device may use [ptr, ptr + size): inside an allocation of the driver, or any
// host memory when the device reads system memory.
bool device_accessible(const void* ptr, size_t size);
// Frees allocations whose deferred free was asked for once every queue has finished the
// work submitted before the request (memory.cpp). Called by queues as batches finish.
void collect_deferred_frees();

// ---- queues ----

// A queue with its worker thread (queue.cpp).
std::shared_ptr<Queue> make_queue(const std::shared_ptr<Context>& context, ze_command_queue_mode_t mode);
// Submits a batch; returns its sequence number.
uint64_t submit(Queue& queue, Batch batch);
// Waits until the batch `sequence` has finished; false on timeout.
bool wait_for(Queue& queue, uint64_t sequence, uint64_t timeout_ns);
// Every live queue (for deferred frees).
std::vector<std::shared_ptr<Queue>> live_queues();

// ---- events and fences ----

void signal(Event& event, ze_result_t error);
void signal(Fence& fence, ze_result_t error);
// Waits until `event` is signalled; false on timeout. A timeout of UINT64_MAX waits forever;
// `stop` (when given) ends the wait early (returns false).
bool wait_signalled(Event& event, uint64_t timeout_ns, const std::atomic<bool>* stop = nullptr);
uint64_t now_ns();

}  // namespace ze_cpu
