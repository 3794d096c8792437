// SPDX-License-Identifier: Apache-2.0
// The emulated GPU's collectives library: the subset of NCCL's host API that the shared GPU
// code calls, spelled emuccl* instead of nccl*, with NCCL's semantics and its numbers for
// results, dtypes and reductions, so that gpu_port.hpp maps one spelling (gpuccl*) onto
// either. It is the test double of a device-native collectives library: the ranks are
// processes (or threads) of this machine, and the bytes move through one POSIX shared-memory
// segment per communicator, named by the unique id.
//
// What it models: a communicator joins one device of each rank (the calling thread's current
// device) and returns once every rank has joined; collectives and send/recv are enqueued on a
// stream and run there in order, each rank's part completing when its data has arrived; every
// rank enqueues the same collectives in the same order. Where a peer never arrives (it exited,
// or it is later than DEVPLUG_GPU_EMULATED_CCL_TIMEOUT_S, default 300 seconds) the waiting
// rank gives up instead of hanging: its communicator keeps the error (emucclCommGetAsyncError,
// emucclGetLastError) and its device takes a sticky fault, as a failed kernel leaves it.
//
// Sums and products of integers wrap around; AVG of integers truncates the sum; float16 and
// bfloat16 are reduced in float32 and rounded once. Every rank reduces the ranks' values in
// rank order, so all ranks get the same bits. Every function is thread-safe.
#pragma once

#include <cstddef>

#include "emu_runtime.hpp"

// The enums are int, as NCCL's C enums are: any int a caller passes is a value of the type
// (not undefined behaviour), and the library refuses the ones it does not know.
enum emucclResult_t : int {
  emucclSuccess = 0,
  emucclUnhandledCudaError = 1,
  emucclSystemError = 2,
  emucclInternalError = 3,
  emucclInvalidArgument = 4,
  emucclInvalidUsage = 5,
  emucclRemoteError = 6,
};

enum emucclDataType_t : int {
  emucclInt8 = 0,
  emucclUint8 = 1,
  emucclInt32 = 2,
  emucclUint32 = 3,
  emucclInt64 = 4,
  emucclUint64 = 5,
  emucclFloat16 = 6,
  emucclFloat32 = 7,
  emucclFloat64 = 8,
  emucclBfloat16 = 9,
};

enum emucclRedOp_t : int {
  emucclSum = 0,
  emucclProd = 1,
  emucclMax = 2,
  emucclMin = 3,
  emucclAvg = 4,
};

constexpr size_t EMUCCL_UNIQUE_ID_BYTES = 128;
struct emucclUniqueId {
  char internal[EMUCCL_UNIQUE_ID_BYTES];
};

namespace devplug::gpu::emu {
class CommHandle;
}
using emucclComm_t = devplug::gpu::emu::CommHandle*;

// The largest communicator.
constexpr int EMUCCL_MAX_RANKS = 32;

const char* emucclGetErrorString(emucclResult_t result);
// The last error of `comm` in words (what a peer did, which rank is missing); "" when none.
const char* emucclGetLastError(emucclComm_t comm);

// A new id: the name of a shared-memory segment not made yet.
emucclResult_t emucclGetUniqueId(emucclUniqueId* id);
// Joins the current device to the communicator `id` names as `rank` of `nranks`; returns when
// all have joined. emucclRemoteError when some have not joined within the timeout
// (emucclGetLastError(nullptr) on this thread names them), emucclInvalidUsage when `rank` has
// joined already or another rank gave another `nranks`.
emucclResult_t emucclCommInitRank(emucclComm_t* comm, int nranks, emucclUniqueId id, int rank);
// Releases the caller's communicator; the collectives enqueued on it still complete.
emucclResult_t emucclCommDestroy(emucclComm_t comm);
emucclResult_t emucclCommGetAsyncError(emucclComm_t comm, emucclResult_t* async_error);
emucclResult_t emucclCommCount(emucclComm_t comm, int* count);
emucclResult_t emucclCommUserRank(emucclComm_t comm, int* rank);

// NCCL's collectives. Buffers are device memory of the communicator's device (each range
// inside one allocation), `stream` one of that device's streams.
emucclResult_t emucclAllReduce(const void* sendbuff, void* recvbuff, size_t count, emucclDataType_t datatype,
                               emucclRedOp_t op, emucclComm_t comm, emuStream_t stream);
emucclResult_t emucclBroadcast(const void* sendbuff, void* recvbuff, size_t count, emucclDataType_t datatype,
                               int root, emucclComm_t comm, emuStream_t stream);
emucclResult_t emucclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                   emucclDataType_t datatype, emucclRedOp_t op, emucclComm_t comm,
                                   emuStream_t stream);
emucclResult_t emucclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                               emucclDataType_t datatype, emucclComm_t comm, emuStream_t stream);
// `count` elements to and from each rank (NCCL 2.28's ncclAlltoAll).
emucclResult_t emucclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, emucclDataType_t datatype,
                              emucclComm_t comm, emuStream_t stream);
emucclResult_t emucclSend(const void* sendbuff, size_t count, emucclDataType_t datatype, int peer,
                          emucclComm_t comm, emuStream_t stream);
emucclResult_t emucclRecv(void* recvbuff, size_t count, emucclDataType_t datatype, int peer,
                          emucclComm_t comm, emuStream_t stream);
