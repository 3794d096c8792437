// SPDX-License-Identifier: Apache-2.0
// The collectives extension on the build's collectives library (gpu_ccl.hpp).
#include "gpu_ccl.hpp"

#if defined(GPU_HAS_CCL)
#include <climits>
#include <cstring>
#include <new>
#include <string>

#include "devplug/ops.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/strided.hpp"
#include "gpu_runtime.hpp"

namespace devplug::gpu::ccl {
namespace {

static_assert(sizeof(gpucclUniqueId) <= DEVPLUG_COMM_UNIQUE_ID_BYTES, "the library's id fits the ABI's");

// Throws the devplug error for a failed library call: a missing or failed peer is
// UNAVAILABLE, a refused argument INVALID_ARGUMENT, the rest INTERNAL.
void check(gpucclResult_t result, const devplug_comm_handle_t* comm, const char* what) {
  if (result == gpucclSuccess) return;
  const devplug_code_t code = result == gpucclRemoteError ? DEVPLUG_CODE_UNAVAILABLE
                              : result == gpucclInvalidArgument || result == gpucclInvalidUsage
                                  ? DEVPLUG_CODE_INVALID_ARGUMENT
                                  : DEVPLUG_CODE_INTERNAL;
  const char* detail = gpucclGetLastError(comm != nullptr ? comm->comm : nullptr);
  sdk::fail(code,
            std::string(what) + ": " + gpucclGetErrorString(result) +
                (detail != nullptr && *detail != '\0' ? std::string(" (") + detail + ")" : std::string()),
            static_cast<int64_t>(result));
}

// The device address of a contiguous tensor of `comm`'s device, checked against its buffer.
char* address(const devplug_comm_handle_t* comm, devplug_stream_handle_t* stream,
              const devplug_tensor_desc_t& t, const char* entry, const char* name) {
  if (stream->device != comm->device)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
              std::string(entry) + ": the stream is of another device than the communicator");
  if (t.buffer->device != comm->device)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
              std::string(entry) + ": " + name + " is on another device than the communicator");
  if (!sdk::fits_buffer(t, t.buffer->size))
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
              std::string(entry) + ": " + name + " reaches past the end of its buffer");
  return static_cast<char*>(t.buffer->ptr) + t.byte_offset;
}

size_t count_of(const devplug_tensor_desc_t& t) { return static_cast<size_t>(sdk::numel(t)); }
size_t bytes_of(const devplug_tensor_desc_t& t) { return count_of(t) * devplug_dtype_size(t.dtype); }

void same_dtype(const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b, const char* entry) {
  if (a.dtype != b.dtype)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(entry) + ": send has dtype " +
                                                 devplug_dtype_name(a.dtype) + ", recv " +
                                                 devplug_dtype_name(b.dtype));
}

void counts(size_t send, size_t recv, const char* entry, const char* rule) {
  if (send != recv)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(entry) + ": " + rule + " (send " +
                                                 std::to_string(send) + " elements, recv " +
                                                 std::to_string(recv) + ")");
}

const char* op_name(devplug_reduce_op_t op) {
  switch (op) {
    case DEVPLUG_REDUCE_SUM:
      return "SUM";
    case DEVPLUG_REDUCE_PRODUCT:
      return "PRODUCT";
    case DEVPLUG_REDUCE_MIN:
      return "MIN";
    case DEVPLUG_REDUCE_MAX:
      return "MAX";
    case DEVPLUG_REDUCE_AVG:
      return "AVG";
    case DEVPLUG_REDUCE_BAND:
      return "BAND";
    case DEVPLUG_REDUCE_BOR:
      return "BOR";
    case DEVPLUG_REDUCE_BXOR:
      return "BXOR";
  }
  return "?";
}

struct Reduction {
  gpucclDataType_t dtype;
  gpucclRedOp_t op;
};

// The library's dtype and reduction for `dtype` and `op`, or UNIMPLEMENTED.
Reduction reduction(devplug_dtype_t dtype, devplug_reduce_op_t op, const char* entry) {
  Reduction r{gpucclUint8, gpucclSum};
  bool dtype_ok = true;
  switch (dtype) {
    case DEVPLUG_DTYPE_BOOL:
    case DEVPLUG_DTYPE_UINT8:
      r.dtype = gpucclUint8;
      break;
    case DEVPLUG_DTYPE_INT8:
      r.dtype = gpucclInt8;
      break;
    case DEVPLUG_DTYPE_INT32:
      r.dtype = gpucclInt32;
      break;
    case DEVPLUG_DTYPE_INT64:
      r.dtype = gpucclInt64;
      break;
    case DEVPLUG_DTYPE_FLOAT16:
      r.dtype = gpucclFloat16;
      break;
    case DEVPLUG_DTYPE_BFLOAT16:
      r.dtype = gpucclBfloat16;
      break;
    case DEVPLUG_DTYPE_FLOAT32:
      r.dtype = gpucclFloat32;
      break;
    case DEVPLUG_DTYPE_FLOAT64:
      r.dtype = gpucclFloat64;
      break;
    default:  // int16: NCCL's API has no 16-bit integers
      dtype_ok = false;
  }
  bool op_ok = true;
  switch (op) {
    case DEVPLUG_REDUCE_SUM:
      r.op = gpucclSum;
      break;
    case DEVPLUG_REDUCE_PRODUCT:
      r.op = gpucclProd;
      break;
    case DEVPLUG_REDUCE_MIN:
      r.op = gpucclMin;
      break;
    case DEVPLUG_REDUCE_MAX:
      r.op = gpucclMax;
      break;
    case DEVPLUG_REDUCE_AVG:
      r.op = gpucclAvg;
      break;
    default:  // the bitwise reductions: NCCL's API has none
      op_ok = false;
  }
  // bool as uint8: MIN and MAX keep 0 and 1 (all and any); a sum or product would not.
  if (dtype == DEVPLUG_DTYPE_BOOL && op != DEVPLUG_REDUCE_MIN && op != DEVPLUG_REDUCE_MAX) op_ok = false;
  if (!dtype_ok || !op_ok)
    sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(entry) +
                                              ": the " GPU_BACKEND_NAME " collectives carry no " +
                                              op_name(op) + " of " + devplug_dtype_name(dtype));
  return r;
}

// UNIMPLEMENTED when the collectives library did not load (NCCL missing on this machine).
void require_library() {
  std::string why;
  if (!gpucclAvailable(&why))
    sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED,
              "the " GPU_BACKEND_NAME " plugin's collectives library is missing: " + why);
}

}  // namespace

devplug_comm_unique_id_t unique_id(devplug_device_handle_t* device) {
  require_library();
  use_device(device);
  gpucclUniqueId id;
  check(gpucclGetUniqueId(&id), nullptr, "making a communicator id");
  devplug_comm_unique_id_t out;
  std::memset(&out, 0, sizeof out);
  std::memcpy(out.bytes, &id, sizeof id);
  return out;
}

devplug_comm_handle_t* create(devplug_device_handle_t* device, const devplug_comm_unique_id_t& id,
                              uint32_t world_size, uint32_t rank) {
  require_library();
  if (world_size > INT_MAX)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
              "comm_create: world_size " + std::to_string(world_size) + " is too large");
  use_device(device);
  gpucclUniqueId native;
  std::memcpy(&native, id.bytes, sizeof native);
  gpucclComm_t comm = nullptr;
  check(gpucclCommInitRank(&comm, static_cast<int>(world_size), native, static_cast<int>(rank)), nullptr,
        "joining a communicator");
  auto* handle = new (std::nothrow) devplug_comm_handle_t{device, comm, rank, world_size};
  if (handle == nullptr) {
    (void)gpucclCommDestroy(comm);
    throw std::bad_alloc();
  }
  return handle;
}

void destroy(devplug_comm_handle_t* comm) {
  const gpucclResult_t result = gpucclCommDestroy(comm->comm);
  delete comm;
  check(result, nullptr, "destroying a communicator");
}

void all_reduce(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv,
                devplug_reduce_op_t op) {
  const char* s = address(comm, stream, send, "all_reduce", "send");
  char* r = address(comm, stream, recv, "all_reduce", "recv");
  same_dtype(send, recv, "all_reduce");
  counts(count_of(send), count_of(recv), "all_reduce", "send and recv differ in size");
  const Reduction red = reduction(send.dtype, op, "all_reduce");
  use_device(comm->device);
  check(gpucclAllReduce(s, r, count_of(send), red.dtype, red.op, comm->comm, stream->stream), comm,
        "all_reduce");
}

void all_gather(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv) {
  const char* s = address(comm, stream, send, "all_gather", "send");
  char* r = address(comm, stream, recv, "all_gather", "recv");
  same_dtype(send, recv, "all_gather");
  counts(count_of(send) * comm->world_size, count_of(recv), "all_gather",
         "recv must hold world_size times send's elements");
  use_device(comm->device);
  check(gpucclAllGather(s, r, bytes_of(send), gpucclUint8, comm->comm, stream->stream), comm, "all_gather");
}

void reduce_scatter(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                    const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv,
                    devplug_reduce_op_t op) {
  const char* s = address(comm, stream, send, "reduce_scatter", "send");
  char* r = address(comm, stream, recv, "reduce_scatter", "recv");
  same_dtype(send, recv, "reduce_scatter");
  counts(count_of(send), count_of(recv) * comm->world_size, "reduce_scatter",
         "send must hold world_size times recv's elements");
  const Reduction red = reduction(send.dtype, op, "reduce_scatter");
  use_device(comm->device);
  check(gpucclReduceScatter(s, r, count_of(recv), red.dtype, red.op, comm->comm, stream->stream), comm,
        "reduce_scatter");
}

void broadcast(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
               const devplug_tensor_desc_t& tensor, uint32_t root) {
  char* t = address(comm, stream, tensor, "broadcast", "tensor");
  if (root >= comm->world_size)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "broadcast: root " + std::to_string(root) +
                                                 " is not below world_size " +
                                                 std::to_string(comm->world_size));
  use_device(comm->device);
  check(gpucclBroadcast(t, t, bytes_of(tensor), gpucclUint8, static_cast<int>(root), comm->comm,
                        stream->stream),
        comm, "broadcast");
}

void all_to_all(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv) {
  const char* s = address(comm, stream, send, "all_to_all", "send");
  char* r = address(comm, stream, recv, "all_to_all", "recv");
  same_dtype(send, recv, "all_to_all");
  counts(count_of(send), count_of(recv), "all_to_all", "send and recv differ in size");
  if (count_of(send) % comm->world_size != 0)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "all_to_all: " + std::to_string(count_of(send)) +
                                                 " elements do not split into " +
                                                 std::to_string(comm->world_size) + " equal parts");
  if (s == r && count_of(send) != 0)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "all_to_all: recv is send's memory");
  use_device(comm->device);
  check(gpucclAlltoAll(s, r, bytes_of(send) / comm->world_size, gpucclUint8, comm->comm, stream->stream),
        comm, "all_to_all");
}

namespace {

void check_peer(const devplug_comm_handle_t* comm, uint32_t peer, const char* entry) {
  if (peer >= comm->world_size || peer == comm->rank)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(entry) + ": peer " + std::to_string(peer) +
                                                 " is not another rank of " +
                                                 std::to_string(comm->world_size));
}

}  // namespace

void send(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm, const devplug_tensor_desc_t& tensor,
          uint32_t peer) {
  const char* t = address(comm, stream, tensor, "send", "tensor");
  check_peer(comm, peer, "send");
  use_device(comm->device);
  check(gpucclSend(t, bytes_of(tensor), gpucclUint8, static_cast<int>(peer), comm->comm, stream->stream),
        comm, "send");
}

void recv(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm, const devplug_tensor_desc_t& tensor,
          uint32_t peer) {
  char* t = address(comm, stream, tensor, "recv", "tensor");
  check_peer(comm, peer, "recv");
  use_device(comm->device);
  check(gpucclRecv(t, bytes_of(tensor), gpucclUint8, static_cast<int>(peer), comm->comm, stream->stream),
        comm, "recv");
}

}  // namespace devplug::gpu::ccl
#endif
