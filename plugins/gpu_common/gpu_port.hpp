// SPDX-License-Identifier: Apache-2.0
// The portability header between CUDA, HIP and the emulated GPU: one spelling (gpu*) for the
// runtime calls, handles and error codes the shared GPU code uses. Where the build has a
// collectives library (NCCL's API: NCCL itself for CUDA, the emulator's double), GPU_HAS_CCL
// is defined, gpuccl* names it and gpucclAvailable(why) says whether it loaded.
//
// Exactly one of DEVPLUG_GPU_CUDA, DEVPLUG_GPU_HIP or DEVPLUG_GPU_EMULATED is defined by the
// build. For CUDA and HIP, host files compiled by the plain C++ compiler include only the
// runtime API; kernel files compiled by nvcc or hipcc get the device side too
// (GPU_DEVICE_CODE). The emulated build compiles every file with the host compiler against
// plugins/gpu_emulated, whose device side (threadIdx, __syncthreads, atomics, ...) is plain
// C++ and so is visible everywhere.
#pragma once

#if (defined(DEVPLUG_GPU_CUDA) + defined(DEVPLUG_GPU_HIP) + defined(DEVPLUG_GPU_EMULATED)) != 1
#error "define exactly one of DEVPLUG_GPU_CUDA, DEVPLUG_GPU_HIP and DEVPLUG_GPU_EMULATED"
#endif

#if defined(DEVPLUG_GPU_CUDA)
#include <cuda_runtime_api.h>
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define GPU_DEVICE_CODE 1
#endif
#define GPU_BACKEND_NAME "cuda"
#define GPU_RUNTIME_PREFIX "cuda"
using gpuError_t = cudaError_t;
using gpuStream_t = cudaStream_t;
using gpuEvent_t = cudaEvent_t;
#define gpuSuccess cudaSuccess
#define gpuErrorNotReady cudaErrorNotReady
#define gpuErrorMemoryAllocation cudaErrorMemoryAllocation
#define gpuErrorNoDevice cudaErrorNoDevice
#define gpuErrorInsufficientDriver cudaErrorInsufficientDriver
#define gpuGetErrorName cudaGetErrorName
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuGetDevice cudaGetDevice
#define gpuDeviceProp cudaDeviceProp
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuHostAlloc cudaHostAlloc
#define gpuFreeHost cudaFreeHost
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemsetAsync cudaMemsetAsync
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuEventCreateWithFlags cudaEventCreateWithFlags
#define gpuEventDefault cudaEventDefault
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuDeviceSynchronize cudaDeviceSynchronize
// Collectives: NCCL, opened at run time (nccl_loader.hpp) where the toolkit has its header.
#include "nccl_loader.hpp"
#if defined(DEVPLUG_HAS_NCCL)
#define GPU_HAS_CCL 1
#define gpucclAvailable(why) (::devplug::gpu::nccl(why) != nullptr)
using gpucclComm_t = ncclComm_t;
using gpucclUniqueId = ncclUniqueId;
using gpucclResult_t = ncclResult_t;
using gpucclDataType_t = ncclDataType_t;
using gpucclRedOp_t = ncclRedOp_t;
#define gpucclSuccess ncclSuccess
#define gpucclInvalidArgument ncclInvalidArgument
#define gpucclInvalidUsage ncclInvalidUsage
#define gpucclRemoteError ncclRemoteError
#define gpucclInt8 ncclInt8
#define gpucclUint8 ncclUint8
#define gpucclInt32 ncclInt32
#define gpucclUint32 ncclUint32
#define gpucclInt64 ncclInt64
#define gpucclUint64 ncclUint64
#define gpucclFloat16 ncclFloat16
#define gpucclFloat32 ncclFloat32
#define gpucclFloat64 ncclFloat64
#define gpucclBfloat16 ncclBfloat16
#define gpucclSum ncclSum
#define gpucclProd ncclProd
#define gpucclMax ncclMax
#define gpucclMin ncclMin
#define gpucclAvg ncclAvg
#define gpucclGetErrorString ::devplug::gpu::nccl_loaded().ncclGetErrorString
#define gpucclGetLastError ::devplug::gpu::nccl_loaded().ncclGetLastError
#define gpucclGetUniqueId ::devplug::gpu::nccl_loaded().ncclGetUniqueId
#define gpucclCommInitRank ::devplug::gpu::nccl_loaded().ncclCommInitRank
#define gpucclCommDestroy ::devplug::gpu::nccl_loaded().ncclCommDestroy
#define gpucclAllReduce ::devplug::gpu::nccl_loaded().ncclAllReduce
#define gpucclBroadcast ::devplug::gpu::nccl_loaded().ncclBroadcast
#define gpucclReduceScatter ::devplug::gpu::nccl_loaded().ncclReduceScatter
#define gpucclAllGather ::devplug::gpu::nccl_loaded().ncclAllGather
#define gpucclAlltoAll ::devplug::gpu::nccl_loaded().ncclAlltoAll
#define gpucclSend ::devplug::gpu::nccl_loaded().ncclSend
#define gpucclRecv ::devplug::gpu::nccl_loaded().ncclRecv
#endif

#elif defined(DEVPLUG_GPU_HIP)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#if defined(__HIPCC__) || defined(__HIP__)
#include <hip/hip_runtime.h>
#define GPU_DEVICE_CODE 1
#endif
#define GPU_BACKEND_NAME "hip"
#define GPU_RUNTIME_PREFIX "hip"
using gpuError_t = hipError_t;
using gpuStream_t = hipStream_t;
using gpuEvent_t = hipEvent_t;
#define gpuSuccess hipSuccess
#define gpuErrorNotReady hipErrorNotReady
#define gpuErrorMemoryAllocation hipErrorOutOfMemory
#define gpuErrorNoDevice hipErrorNoDevice
#define gpuErrorInsufficientDriver hipErrorInsufficientDriver
#define gpuGetErrorName hipGetErrorName
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuGetDevice hipGetDevice
#define gpuDeviceProp hipDeviceProp_t
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuHostAlloc hipHostMalloc
#define gpuFreeHost hipHostFree
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemsetAsync hipMemsetAsync
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuEventCreateWithFlags hipEventCreateWithFlags
#define gpuEventDefault hipEventDefault
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuDeviceSynchronize hipDeviceSynchronize

#else  // DEVPLUG_GPU_EMULATED
#include "emu_device.hpp"
#include "emu_runtime.hpp"
#define GPU_BACKEND_NAME "gpu_emulated"
#define GPU_RUNTIME_PREFIX "emu"
using gpuError_t = emuError_t;
using gpuStream_t = emuStream_t;
using gpuEvent_t = emuEvent_t;
#define gpuSuccess emuSuccess
#define gpuErrorNotReady emuErrorNotReady
#define gpuErrorMemoryAllocation emuErrorMemoryAllocation
#define gpuErrorNoDevice emuErrorNoDevice
#define gpuErrorInsufficientDriver emuErrorInsufficientDriver
#define gpuGetErrorName emuGetErrorName
#define gpuGetLastError emuGetLastError
#define gpuGetDeviceCount emuGetDeviceCount
#define gpuSetDevice emuSetDevice
#define gpuGetDevice emuGetDevice
#define gpuDeviceProp emuDeviceProp
#define gpuGetDeviceProperties emuGetDeviceProperties
#define gpuDriverGetVersion emuDriverGetVersion
#define gpuMalloc emuMalloc
#define gpuFree emuFree
#define gpuHostAlloc emuHostAlloc
#define gpuFreeHost emuFreeHost
#define gpuMemcpyAsync emuMemcpyAsync
#define gpuMemsetAsync emuMemsetAsync
#define gpuMemcpyHostToDevice emuMemcpyHostToDevice
#define gpuMemcpyDeviceToHost emuMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice emuMemcpyDeviceToDevice
#define gpuStreamCreateWithFlags emuStreamCreateWithFlags
#define gpuStreamNonBlocking emuStreamNonBlocking
#define gpuStreamDestroy emuStreamDestroy
#define gpuStreamSynchronize emuStreamSynchronize
#define gpuStreamWaitEvent emuStreamWaitEvent
#define gpuEventCreateWithFlags emuEventCreateWithFlags
#define gpuEventDefault emuEventDefault
#define gpuEventDestroy emuEventDestroy
#define gpuEventRecord emuEventRecord
#define gpuEventSynchronize emuEventSynchronize
#define gpuEventElapsedTime emuEventElapsedTime
#define gpuDeviceSynchronize emuDeviceSynchronize
// Collectives: the emulated GPU's NCCL double (emu_ccl.hpp), NCCL's API spelled gpuccl*.
#include "emu_ccl.hpp"
#define GPU_HAS_CCL 1
#define gpucclAvailable(why) true
using gpucclComm_t = emucclComm_t;
using gpucclUniqueId = emucclUniqueId;
using gpucclResult_t = emucclResult_t;
using gpucclDataType_t = emucclDataType_t;
using gpucclRedOp_t = emucclRedOp_t;
#define gpucclSuccess emucclSuccess
#define gpucclInvalidArgument emucclInvalidArgument
#define gpucclInvalidUsage emucclInvalidUsage
#define gpucclRemoteError emucclRemoteError
#define gpucclInt8 emucclInt8
#define gpucclUint8 emucclUint8
#define gpucclInt32 emucclInt32
#define gpucclUint32 emucclUint32
#define gpucclInt64 emucclInt64
#define gpucclUint64 emucclUint64
#define gpucclFloat16 emucclFloat16
#define gpucclFloat32 emucclFloat32
#define gpucclFloat64 emucclFloat64
#define gpucclBfloat16 emucclBfloat16
#define gpucclSum emucclSum
#define gpucclProd emucclProd
#define gpucclMax emucclMax
#define gpucclMin emucclMin
#define gpucclAvg emucclAvg
#define gpucclGetErrorString emucclGetErrorString
#define gpucclGetLastError emucclGetLastError
#define gpucclGetUniqueId emucclGetUniqueId
#define gpucclCommInitRank emucclCommInitRank
#define gpucclCommDestroy emucclCommDestroy
#define gpucclAllReduce emucclAllReduce
#define gpucclBroadcast emucclBroadcast
#define gpucclReduceScatter emucclReduceScatter
#define gpucclAllGather emucclAllGather
#define gpucclAlltoAll emucclAlltoAll
#define gpucclSend emucclSend
#define gpucclRecv emucclRecv
#endif

// Qualifiers that vanish for the host compiler, so pure logic can be shared and unit-tested.
#if defined(GPU_DEVICE_CODE)
#define GPU_HD __host__ __device__
#define GPU_D __device__
#else
#define GPU_HD
#define GPU_D
#endif

// The first read of a compare-and-swap loop on a word that other threads update with
// atomics: a relaxed atomic load. CUDA and HIP: a volatile load (ld.volatile, which the PTX
// memory model counts as a relaxed access, so it does not race with the atomics); the
// emulated GPU: an atomic load, as a plain read would be a data race in C++ (ThreadSanitizer
// reported it; a stale value only costs the loop one more turn).
#if defined(GPU_DEVICE_CODE) || !defined(DEVPLUG_GPU_EMULATED)
template <typename T>
GPU_D inline T gpu_load_relaxed(const T* word) {
  return *static_cast<const volatile T*>(word);
}
#else
template <typename T>
inline T gpu_load_relaxed(const T* word) {
  return __atomic_load_n(word, __ATOMIC_RELAXED);
}
#endif
