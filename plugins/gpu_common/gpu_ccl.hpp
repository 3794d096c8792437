// SPDX-License-Identifier: Apache-2.0
// The collectives extension of the GPU plugins, on the build's collectives library (gpuccl*
// of gpu_port.hpp: NCCL's API). Built where GPU_HAS_CCL is defined: CUDA over NCCL (opened at
// run time; without it the entries answer UNIMPLEMENTED) and the emulated GPU over its NCCL
// test double; the table offers the extension only there.
#pragma once

#include "gpu_handles.hpp"

#if defined(GPU_HAS_CCL)
#include "devplug/plugin_api.h"

namespace devplug::gpu::ccl {

// The entries of the collectives extension, after the SDK's argument checks. Moves
// (all_gather, broadcast, all_to_all, send, recv) carry any dtype as bytes; reductions take the
// library's dtypes and SUM, PRODUCT, MIN, MAX and AVG (bool: MIN and MAX), and answer
// UNIMPLEMENTED for the rest before anything is sent.
devplug_comm_unique_id_t unique_id(devplug_device_handle_t* device);
devplug_comm_handle_t* create(devplug_device_handle_t* device, const devplug_comm_unique_id_t& id,
                              uint32_t world_size, uint32_t rank);
void destroy(devplug_comm_handle_t* comm);
void all_reduce(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv, devplug_reduce_op_t op);
void all_gather(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv);
void reduce_scatter(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                    const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv,
                    devplug_reduce_op_t op);
void broadcast(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
               const devplug_tensor_desc_t& tensor, uint32_t root);
void all_to_all(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv);
void send(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm, const devplug_tensor_desc_t& tensor,
          uint32_t peer);
void recv(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm, const devplug_tensor_desc_t& tensor,
          uint32_t peer);

}  // namespace devplug::gpu::ccl
#endif
