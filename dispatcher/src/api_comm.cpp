// SPDX-License-Identifier: Apache-2.0
// C entry points: communicators and collectives (comm.hpp).
#include <cstring>

#include "api_guard.hpp"
#include "comm.hpp"
#include "device.hpp"

using namespace devplug::detail;

extern "C" {

DEVPLUG_API devplug_error_t* devplug_comm_unique_id(devplug_device_t* device,
                                                    devplug_comm_unique_id_t* out_id) {
  return guard([&] {
    require_not_null(out_id, "out_id");
    std::memset(out_id, 0, sizeof *out_id);
    require_handle(device, "device");
    comm_unique_id(*device, out_id);
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_create(devplug_device_t* device, const devplug_comm_unique_id_t* id,
                                                 uint32_t world_size, uint32_t rank,
                                                 devplug_comm_t** out_comm) {
  return guard([&] {
    require_not_null(out_comm, "out_comm");
    *out_comm = nullptr;
    require_handle(device, "device");
    require_not_null(id, "id");
    if (world_size == 0) invalid_argument("world_size is 0");
    if (rank >= world_size)
      invalid_argument("rank " + std::to_string(rank) + " is not below world_size " +
                       std::to_string(world_size));
    *out_comm = create_comm(*device, *id, world_size, rank);
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_rank(const devplug_comm_t* comm, uint32_t* out_rank,
                                               uint32_t* out_world_size) {
  return guard([&] {
    if (out_rank != nullptr) *out_rank = 0;
    if (out_world_size != nullptr) *out_world_size = 0;
    const devplug_comm_t& c = *require_comm(comm, "comm");
    require_not_null(out_rank, "out_rank");
    require_not_null(out_world_size, "out_world_size");
    *out_rank = c.rank;
    *out_world_size = c.world_size;
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_destroy(devplug_comm_t* comm) {
  return guard([&] {
    if (comm == nullptr) return;
    destroy_comm(require_comm(comm, "comm"));
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_all_reduce(devplug_stream_t* stream, devplug_comm_t* comm,
                                                     devplug_tensor_t* send, devplug_tensor_t* recv,
                                                     devplug_reduce_op_t op) {
  return guard([&] {
    const devplug_comm_t& c = *require_comm(comm, "comm");
    devplug::detail::all_reduce(comm_stream(stream, c), c, send, recv, op);
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_all_gather(devplug_stream_t* stream, devplug_comm_t* comm,
                                                     devplug_tensor_t* send, devplug_tensor_t* recv) {
  return guard([&] {
    const devplug_comm_t& c = *require_comm(comm, "comm");
    devplug::detail::all_gather(comm_stream(stream, c), c, send, recv);
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_reduce_scatter(devplug_stream_t* stream, devplug_comm_t* comm,
                                                         devplug_tensor_t* send, devplug_tensor_t* recv,
                                                         devplug_reduce_op_t op) {
  return guard([&] {
    const devplug_comm_t& c = *require_comm(comm, "comm");
    devplug::detail::reduce_scatter(comm_stream(stream, c), c, send, recv, op);
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_broadcast(devplug_stream_t* stream, devplug_comm_t* comm,
                                                    devplug_tensor_t* tensor, uint32_t root) {
  return guard([&] {
    const devplug_comm_t& c = *require_comm(comm, "comm");
    devplug::detail::broadcast(comm_stream(stream, c), c, tensor, root);
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_all_to_all(devplug_stream_t* stream, devplug_comm_t* comm,
                                                     devplug_tensor_t* send, devplug_tensor_t* recv) {
  return guard([&] {
    const devplug_comm_t& c = *require_comm(comm, "comm");
    devplug::detail::all_to_all(comm_stream(stream, c), c, send, recv);
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_send(devplug_stream_t* stream, devplug_comm_t* comm,
                                               devplug_tensor_t* tensor, uint32_t peer) {
  return guard([&] {
    const devplug_comm_t& c = *require_comm(comm, "comm");
    devplug::detail::send(comm_stream(stream, c), c, tensor, peer);
  });
}

DEVPLUG_API devplug_error_t* devplug_comm_recv(devplug_stream_t* stream, devplug_comm_t* comm,
                                               devplug_tensor_t* tensor, uint32_t peer) {
  return guard([&] {
    const devplug_comm_t& c = *require_comm(comm, "comm");
    devplug::detail::recv(comm_stream(stream, c), c, tensor, peer);
  });
}

}  // extern "C"
