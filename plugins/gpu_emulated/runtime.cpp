// SPDX-License-Identifier: Apache-2.0
// The emulated runtime's errors, devices, memory and launches (emu_runtime.hpp).
//
// Device memory is host memory reached only through these calls and kernel pointers: every
// allocation is recorded, every copy and memset must lie inside one (else
// emuErrorInvalidValue, where a GPU might silently corrupt memory), emuFree waits for the
// device as cudaFree does, and new memory reads as 0xFF bytes (NaN, -1) so that a kernel
// reading what nobody wrote shows it. Devices: DEVPLUG_GPU_EMULATED_DEVICES of them (1 to 8,
// default 2, so the multi-device paths run), each with half the host's memory as its limit.
#include <cxxabi.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "emu_launch.hpp"
#include "grid.hpp"
#include "runtime.hpp"

namespace devplug::gpu::emu {
namespace {

thread_local emuError_t t_last_error = emuSuccess;
thread_local int t_current_device = 0;

const std::vector<Device*>& devices() {
  static const auto* list = [] {
    int count = 2;
    if (const char* env = std::getenv("DEVPLUG_GPU_EMULATED_DEVICES")) {
      const int n = std::atoi(env);
      if (n >= 1 && n <= 8) count = n;
    }
    struct sysinfo info {};
    size_t memory = size_t{8} << 30;
    if (sysinfo(&info) == 0) memory = static_cast<size_t>(info.totalram) * info.mem_unit / 2;
    auto* v = new std::vector<Device*>;  // never destroyed: streams may outlive main
    for (int i = 0; i < count; ++i) v->push_back(new Device(i, memory));
    return v;
  }();
  return *list;
}

// The device allocations, by start address.
struct Allocation {
  size_t size;
  Device* device;
};
std::mutex g_memory_mutex;
std::map<uintptr_t, Allocation>& allocations() {
  static auto* map = new std::map<uintptr_t, Allocation>;
  return *map;
}

}  // namespace

bool inside_allocation(const void* p, size_t n) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(g_memory_mutex);
  auto it = allocations().upper_bound(at);
  if (it == allocations().begin()) return false;
  --it;
  const uintptr_t offset = at - it->first;
  return offset <= it->second.size && n <= it->second.size - offset;
}

namespace {

// Whether any byte of [p, p + n) (n > 0) is device memory, or the range wraps around.
bool touches_device_memory(const void* p, size_t n) {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  if (n - 1 > UINTPTR_MAX - begin) return true;
  std::lock_guard<std::mutex> lock(g_memory_mutex);
  auto it = allocations().upper_bound(begin + n - 1);
  if (it == allocations().begin()) return false;
  --it;
  return it->first + it->second.size > begin;
}

constexpr size_t kPoisonLimit = size_t{64} << 20;  // larger allocations stay untouched (lazy)

// Appends one line per launch to $DEVPLUG_GPU_EMULATED_TRACE, when set.
void trace_launch(const KernelCall& call, dim3 grid, dim3 block) {
  static std::FILE* file = [] {
    const char* path = std::getenv("DEVPLUG_GPU_EMULATED_TRACE");
    return path != nullptr && *path != '\0' ? std::fopen(path, "a") : nullptr;
  }();
  if (file == nullptr) return;
  static std::mutex mutex;
  const std::string signature = call.signature();
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(file, "%s\t%u,%u,%u\t%u,%u,%u\n", signature.c_str(), grid.x, grid.y, grid.z, block.x, block.y,
               block.z);
  std::fflush(file);
}

}  // namespace

std::string demangle(const char* name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && text != nullptr ? text : name;
  std::free(text);
  return out;
}

emuError_t record_error(emuError_t e) {
  if (e != emuSuccess) t_last_error = e;
  return e;
}

Device* device_at(int index) { return devices()[static_cast<size_t>(index)]; }
Device* current_device() { return device_at(t_current_device); }

bool Device::reserve(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > memory_bytes_ - used_bytes_) return false;
  used_bytes_ += bytes;
  return true;
}

void Device::unreserve(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  used_bytes_ -= bytes;
}

emuError_t Device::fault() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fault_;
}

std::string Device::fault_what() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fault_what_;
}

void Device::set_fault(emuError_t error, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fault_ != emuSuccess) return;
  fault_ = error;
  fault_what_ = what;
  std::fprintf(stderr, "devplug gpu_emulated: device %d: %s; the device is unusable from now on (%s)\n",
               index_, what.c_str(), emuGetErrorName(error));
}

void enqueue_launch(dim3 grid, dim3 block, size_t shared_bytes, emuStream_t stream, const KernelCall* owned) {
  std::shared_ptr<const KernelCall> call(owned);
  if (!stream_is_live(stream)) {
    record_error(emuErrorInvalidResourceHandle);
    return;
  }
  // CUDA's limits: 1024 threads per block (x, y <= 1024, z <= 64), grid x < 2^31, y and z
  // <= 65535, no empty dimension.
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  const bool bad_block = threads == 0 || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64;
  const bool bad_grid =
      grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535;
  if (bad_block || bad_grid || shared_bytes != 0) {
    record_error(emuErrorInvalidConfiguration);
    return;
  }
  Stream* s = resolve_stream(stream);
  Device* device = s->device();
  if (device->fault() != emuSuccess) {
    record_error(device->fault());
    return;
  }
  trace_launch(*call, grid, block);
  submit(s, [device, grid, block, call = std::move(call)] {
    if (device->fault() != emuSuccess) return;  // a faulted device runs nothing
    const std::string failure = run_grid(*call, grid, block);
    if (!failure.empty()) device->set_fault(emuErrorLaunchFailure, failure);
  });
}

}  // namespace devplug::gpu::emu

using namespace devplug::gpu::emu;

// ---- errors ----------------------------------------------------------------------------------

const char* emuGetErrorName(emuError_t error) {
  switch (error) {
    case emuSuccess:
      return "emuSuccess";
    case emuErrorInvalidValue:
      return "emuErrorInvalidValue";
    case emuErrorMemoryAllocation:
      return "emuErrorMemoryAllocation";
    case emuErrorInvalidConfiguration:
      return "emuErrorInvalidConfiguration";
    case emuErrorInvalidDevicePointer:
      return "emuErrorInvalidDevicePointer";
    case emuErrorInvalidMemcpyDirection:
      return "emuErrorInvalidMemcpyDirection";
    case emuErrorInsufficientDriver:
      return "emuErrorInsufficientDriver";
    case emuErrorNoDevice:
      return "emuErrorNoDevice";
    case emuErrorInvalidDevice:
      return "emuErrorInvalidDevice";
    case emuErrorInvalidResourceHandle:
      return "emuErrorInvalidResourceHandle";
    case emuErrorNotReady:
      return "emuErrorNotReady";
    case emuErrorLaunchFailure:
      return "emuErrorLaunchFailure";
  }
  return "emuErrorUnknown";
}

const char* emuGetErrorString(emuError_t error) {
  switch (error) {
    case emuSuccess:
      return "no error";
    case emuErrorInvalidValue:
      return "invalid argument";
    case emuErrorMemoryAllocation:
      return "out of memory";
    case emuErrorInvalidConfiguration:
      return "invalid configuration argument";
    case emuErrorInvalidDevicePointer:
      return "invalid device pointer";
    case emuErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case emuErrorInsufficientDriver:
      return "driver version is insufficient";
    case emuErrorNoDevice:
      return "no device is detected";
    case emuErrorInvalidDevice:
      return "invalid device ordinal";
    case emuErrorInvalidResourceHandle:
      return "invalid resource handle";
    case emuErrorNotReady:
      return "device not ready";
    case emuErrorLaunchFailure:
      return "unspecified launch failure";
  }
  return "unknown error";
}

const char* emuGetDeviceFault(int device) {
  if (device < 0 || static_cast<size_t>(device) >= devices().size()) return "";
  // One string per device, kept: the fault and its text never change once set.
  static std::mutex mutex;
  static auto* texts = new std::map<int, std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  std::string& text = (*texts)[device];
  if (text.empty()) text = devices()[static_cast<size_t>(device)]->fault_what();
  return text.c_str();
}

emuError_t emuGetLastError() {
  const emuError_t sticky = current_device()->fault();
  if (sticky != emuSuccess) return sticky;
  const emuError_t e = t_last_error;
  t_last_error = emuSuccess;
  return e;
}

emuError_t emuPeekAtLastError() {
  const emuError_t sticky = current_device()->fault();
  return sticky != emuSuccess ? sticky : t_last_error;
}

// ---- devices ---------------------------------------------------------------------------------

emuError_t emuGetDeviceCount(int* count) {
  if (count == nullptr) return record_error(emuErrorInvalidValue);
  *count = static_cast<int>(devices().size());
  return emuSuccess;
}

emuError_t emuSetDevice(int device) {
  if (device < 0 || device >= static_cast<int>(devices().size())) return record_error(emuErrorInvalidDevice);
  t_current_device = device;
  return emuSuccess;
}

emuError_t emuGetDevice(int* device) {
  if (device == nullptr) return record_error(emuErrorInvalidValue);
  *device = t_current_device;
  return emuSuccess;
}

emuError_t emuGetDeviceProperties(emuDeviceProp* prop, int device) {
  if (prop == nullptr) return record_error(emuErrorInvalidValue);
  if (device < 0 || device >= static_cast<int>(devices().size())) return record_error(emuErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name,
                "devplug GPU emulator %d: the CUDA/HIP kernels of plugins/gpu_common run on the CPU", device);
  prop->totalGlobalMem = device_at(device)->memory_bytes();
  prop->sharedMemPerBlock = 48 * 1024;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 0x7fffffff;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->major = 9;  // what the kernels may assume: sm_90 (bfloat16, 64-bit atomics)
  prop->minor = 0;
  prop->multiProcessorCount = static_cast<int>(block_workers());
  return emuSuccess;
}

emuError_t emuDriverGetVersion(int* version) {
  if (version == nullptr) return record_error(emuErrorInvalidValue);
  *version = 1;
  return emuSuccess;
}

emuError_t emuDeviceSynchronize() {
  Device* d = current_device();
  d->synchronize();
  return record_error(d->fault());
}

// ---- memory ----------------------------------------------------------------------------------

emuError_t emuMalloc(void** ptr, size_t size) {
  if (ptr == nullptr) return record_error(emuErrorInvalidValue);
  *ptr = nullptr;
  Device* d = current_device();
  if (d->fault() != emuSuccess) return record_error(d->fault());
  if (size == 0) return emuSuccess;  // as cudaMalloc: success, and a null pointer
  if (!d->reserve(size)) return record_error(emuErrorMemoryAllocation);
  void* p = nullptr;
  if (posix_memalign(&p, 256, size) != 0) {  // cudaMalloc's alignment
    d->unreserve(size);
    return record_error(emuErrorMemoryAllocation);
  }
  if (size <= kPoisonLimit) std::memset(p, 0xFF, size);
  {
    std::lock_guard<std::mutex> lock(g_memory_mutex);
    allocations()[reinterpret_cast<uintptr_t>(p)] = Allocation{size, d};
  }
  *ptr = p;
  return emuSuccess;
}

emuError_t emuFree(void* ptr) {
  if (ptr == nullptr) return emuSuccess;
  Device* owner = nullptr;
  size_t size = 0;
  {
    std::lock_guard<std::mutex> lock(g_memory_mutex);
    auto it = allocations().find(reinterpret_cast<uintptr_t>(ptr));
    if (it == allocations().end()) return record_error(emuErrorInvalidValue);
    owner = it->second.device;
    size = it->second.size;
  }
  owner->synchronize();  // cudaFree waits for the device's work
  {
    std::lock_guard<std::mutex> lock(g_memory_mutex);
    if (allocations().erase(reinterpret_cast<uintptr_t>(ptr)) == 0) return record_error(emuErrorInvalidValue);
  }
  std::free(ptr);
  owner->unreserve(size);
  return record_error(owner->fault());
}

// Page-locked host memory, as cudaHostAlloc: page-aligned; locked when the process may lock
// that much (RLIMIT_MEMLOCK), ordinary host memory otherwise (the emulator copies both alike).
std::mutex g_host_mutex;
std::map<uintptr_t, size_t>& host_allocations() {
  static auto* map = new std::map<uintptr_t, size_t>();  // leaked: outlives static destruction
  return *map;
}

emuError_t emuHostAlloc(void** ptr, size_t size, unsigned /*flags*/) {
  if (ptr == nullptr) return record_error(emuErrorInvalidValue);
  *ptr = nullptr;
  if (size == 0) return emuSuccess;
  void* p = nullptr;
  if (posix_memalign(&p, 4096, size) != 0) return record_error(emuErrorMemoryAllocation);
  (void)mlock(p, size);
  {
    std::lock_guard<std::mutex> lock(g_host_mutex);
    host_allocations()[reinterpret_cast<uintptr_t>(p)] = size;
  }
  *ptr = p;
  return emuSuccess;
}

emuError_t emuFreeHost(void* ptr) {
  if (ptr == nullptr) return emuSuccess;
  size_t size = 0;
  {
    std::lock_guard<std::mutex> lock(g_host_mutex);
    auto it = host_allocations().find(reinterpret_cast<uintptr_t>(ptr));
    if (it == host_allocations().end()) return record_error(emuErrorInvalidValue);
    size = it->second;
    host_allocations().erase(it);
  }
  current_device()->synchronize();  // cudaFreeHost waits for the copies that use it
  (void)munlock(ptr, size);
  std::free(ptr);
  return emuSuccess;
}

emuError_t emuMemcpyAsync(void* dst, const void* src, size_t count, emuMemcpyKind kind, emuStream_t stream) {
  if (!stream_is_live(stream)) return record_error(emuErrorInvalidResourceHandle);
  if (kind < emuMemcpyHostToHost || kind > emuMemcpyDefault)
    return record_error(emuErrorInvalidMemcpyDirection);
  if (count == 0) return emuSuccess;
  if (dst == nullptr || src == nullptr) return record_error(emuErrorInvalidValue);
  const bool dst_device = inside_allocation(dst, count);
  const bool src_device = inside_allocation(src, count);
  // A device range must lie inside one allocation; host memory must not touch device memory.
  const bool dst_ok = kind == emuMemcpyDefault ? dst_device || !touches_device_memory(dst, count)
                      : (kind == emuMemcpyHostToDevice || kind == emuMemcpyDeviceToDevice)
                          ? dst_device
                          : !touches_device_memory(dst, count);
  const bool src_ok = kind == emuMemcpyDefault ? src_device || !touches_device_memory(src, count)
                      : (kind == emuMemcpyDeviceToHost || kind == emuMemcpyDeviceToDevice)
                          ? src_device
                          : !touches_device_memory(src, count);
  if (!dst_ok || !src_ok) return record_error(emuErrorInvalidValue);
  Stream* s = resolve_stream(stream);
  if (s->device()->fault() != emuSuccess) return record_error(s->device()->fault());
  submit(s, [dst, src, count] { std::memcpy(dst, src, count); });
  return emuSuccess;
}

emuError_t emuMemsetAsync(void* ptr, int value, size_t count, emuStream_t stream) {
  if (!stream_is_live(stream)) return record_error(emuErrorInvalidResourceHandle);
  if (count == 0) return emuSuccess;
  if (!inside_allocation(ptr, count)) return record_error(emuErrorInvalidValue);
  Stream* s = resolve_stream(stream);
  if (s->device()->fault() != emuSuccess) return record_error(s->device()->fault());
  submit(s, [ptr, value, count] { std::memset(ptr, value, count); });
  return emuSuccess;
}
