// SPDX-License-Identifier: Apache-2.0
// The host API of the emulated GPU runtime: the subset of the CUDA runtime API that the
// shared GPU code (plugins/gpu_common) calls, spelled emu* instead of cuda*, with CUDA's
// semantics. gpu_port.hpp maps its gpu* names onto these in the DEVPLUG_GPU_EMULATED build.
//
// What it models: devices with their own memory (host memory, but reached only through
// these calls and kernel pointers; allocations are checked on every copy), in-order streams
// that run their work on their own thread, events, asynchronous copies and memsets, a
// per-thread current device and last error, and sticky device faults. Host memory is
// treated as page-locked: every *Async call is truly asynchronous, the strictest behaviour
// CUDA allows, so a caller that frees or reuses host memory before the stream has passed a
// copy is caught (by AddressSanitizer) instead of being saved by pageable-memory staging.
// The null stream (0) is CUDA's legacy default stream: it waits for the blocking streams of
// its device and they wait for it; streams made with emuStreamNonBlocking do not.
//
// Every function is thread-safe. Numbers of the error codes are CUDA's, so messages read the
// same as on a GPU.
#pragma once

#include <cstddef>
#include <cstdint>

enum emuError_t {
  emuSuccess = 0,
  emuErrorInvalidValue = 1,
  emuErrorMemoryAllocation = 2,
  emuErrorInvalidConfiguration = 9,
  emuErrorInvalidDevicePointer = 17,
  emuErrorInvalidMemcpyDirection = 21,
  emuErrorInsufficientDriver = 35,
  emuErrorNoDevice = 100,
  emuErrorInvalidDevice = 101,
  emuErrorInvalidResourceHandle = 400,
  emuErrorNotReady = 600,
  emuErrorLaunchFailure = 719,
};

enum emuMemcpyKind {
  emuMemcpyHostToHost = 0,
  emuMemcpyHostToDevice = 1,
  emuMemcpyDeviceToHost = 2,
  emuMemcpyDeviceToDevice = 3,
  emuMemcpyDefault = 4,
};

namespace devplug::gpu::emu {
class Stream;
class Event;
}  // namespace devplug::gpu::emu

using emuStream_t = devplug::gpu::emu::Stream*;
using emuEvent_t = devplug::gpu::emu::Event*;

constexpr unsigned emuStreamDefault = 0;
constexpr unsigned emuStreamNonBlocking = 1;
constexpr unsigned emuEventDefault = 0;
constexpr unsigned emuEventDisableTiming = 2;

// A launch geometry, as CUDA's dim3.
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

// The device description, with the fields of cudaDeviceProp the plugins read.
struct emuDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int major;
  int minor;
  int multiProcessorCount;
};

// ---- errors ---------------------------------------------------------------------------------
const char* emuGetErrorName(emuError_t error);
const char* emuGetErrorString(emuError_t error);
// Returns and clears this thread's last error (a sticky fault is returned, never cleared).
emuError_t emuGetLastError();
// Returns this thread's last error without clearing it.
emuError_t emuPeekAtLastError();
// What caused `device`'s sticky fault (a failed kernel, a collective whose peer is gone), ""
// while it has none. The emulator's own: CUDA has no such call.
const char* emuGetDeviceFault(int device);

// ---- devices ----------------------------------------------------------------------------
emuError_t emuGetDeviceCount(int* count);
emuError_t emuSetDevice(int device);
emuError_t emuGetDevice(int* device);
emuError_t emuGetDeviceProperties(emuDeviceProp* prop, int device);
emuError_t emuDriverGetVersion(int* version);
emuError_t emuDeviceSynchronize();

// ---- memory -----------------------------------------------------------------------------
emuError_t emuMalloc(void** ptr, size_t size);
emuError_t emuFree(void* ptr);
emuError_t emuHostAlloc(void** ptr, size_t size, unsigned flags);
emuError_t emuFreeHost(void* ptr);
emuError_t emuMemcpyAsync(void* dst, const void* src, size_t count, emuMemcpyKind kind,
                          emuStream_t stream = nullptr);
emuError_t emuMemsetAsync(void* ptr, int value, size_t count, emuStream_t stream = nullptr);

// ---- streams and events -----------------------------------------------------------------
emuError_t emuStreamCreateWithFlags(emuStream_t* stream, unsigned flags);
emuError_t emuStreamDestroy(emuStream_t stream);
emuError_t emuStreamSynchronize(emuStream_t stream);
emuError_t emuStreamQuery(emuStream_t stream);
emuError_t emuStreamWaitEvent(emuStream_t stream, emuEvent_t event, unsigned flags = 0);
emuError_t emuEventCreateWithFlags(emuEvent_t* event, unsigned flags);
emuError_t emuEventDestroy(emuEvent_t event);
emuError_t emuEventRecord(emuEvent_t event, emuStream_t stream = nullptr);
emuError_t emuEventSynchronize(emuEvent_t event);
emuError_t emuEventQuery(emuEvent_t event);
// The time in milliseconds between the completions of `start` and `end` (negative when `end`
// completed first), each taken from the host's steady clock when its stream reached it. As in
// CUDA: emuErrorInvalidResourceHandle for an event never recorded, made with
// emuEventDisableTiming, or on another device than the other; emuErrorNotReady while either
// has not completed.
emuError_t emuEventElapsedTime(float* ms, emuEvent_t start, emuEvent_t end);
