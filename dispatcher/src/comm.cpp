// SPDX-License-Identifier: Apache-2.0
// Communicators and collectives (see comm.hpp).
#include "comm.hpp"

#include <memory>
#include <mutex>
#include <string>

#include "api_guard.hpp"
#include "device.hpp"
#include "graph.hpp"
#include "layout.hpp"
#include "live_list.hpp"
#include "plugin_record.hpp"
#include "stream_event.hpp"
#include "tensor.hpp"

namespace devplug::detail {
namespace {

// Every communicator create_comm handed out and nobody destroyed yet.
LiveSet<devplug_comm_t> live_comms;

// The plugin's communicator destroyed, then the host object.
devplug_error_t* delete_comm(devplug_comm_t* comm) noexcept {
  devplug_error_t* error = comm->device->plugin->collectives->comm_destroy(comm->native);
  comm->magic = 0;
  delete comm;
  return error;
}

// The collectives extension of `device`'s plugin; UNIMPLEMENTED when it offers none.
const devplug_ext_collectives_t& collectives_of(const devplug_device_t& device) {
  const devplug_plugin_t& plugin = *device.plugin;
  if (plugin.collectives == nullptr)
    throw Error(
        DEVPLUG_CODE_UNIMPLEMENTED,
        "plugin " + plugin.name + " has no device-native collectives (it offers no collectives extension)");
  return *plugin.collectives;
}

const char* reduce_op_name(uint32_t op) {
  static const char* const names[DEVPLUG_REDUCE_OP_END] = {"",    "SUM",  "PRODUCT", "MIN", "MAX",
                                                           "AVG", "BAND", "BOR",     "BXOR"};
  return names[op];
}

// A tensor a collective of `comm` reads or writes: live, on the communicator's device and
// contiguous (the plugin's library sees a base address and an element count).
const devplug_tensor_t& comm_tensor(const devplug_comm_t& comm, devplug_tensor_t* tensor, const char* what) {
  const devplug_tensor_t& t = *require_handle(tensor, what);
  if (&t.device() != comm.device)
    invalid_argument(std::string(what) + " is on device " + std::to_string(t.device().index) + " of plugin " +
                     t.plugin().name + ", not on comm's device " + std::to_string(comm.device->index) +
                     " of plugin " + comm.device->plugin->name);
  if (!is_contiguous(t.layout)) invalid_argument(std::string(what) + " is not contiguous");
  return t;
}

void same_dtype(const devplug_tensor_t& send, const devplug_tensor_t& recv) {
  if (recv.layout.dtype != send.layout.dtype)
    invalid_argument(std::string("recv has dtype ") + dtype_name_or(recv.layout.dtype) + ", send has " +
                     dtype_name_or(send.layout.dtype));
}

// Checks that `large` has `world_size` times the elements of `small` (without overflow).
void world_times(const devplug_comm_t& comm, const devplug_tensor_t& large, const char* large_name,
                 const devplug_tensor_t& small, const char* small_name) {
  const int64_t n_large = numel(large.layout), n_small = numel(small.layout);
  if (n_large % comm.world_size != 0 || n_large / comm.world_size != n_small)
    invalid_argument(std::string(large_name) + " has " + std::to_string(n_large) +
                     " elements, the world size " + std::to_string(comm.world_size) + " times " + small_name +
                     "'s " + std::to_string(n_small) + " expected");
}

void same_numel(const devplug_tensor_t& send, const devplug_tensor_t& recv) {
  const int64_t n_send = numel(send.layout), n_recv = numel(recv.layout);
  if (n_recv != n_send)
    invalid_argument("recv has " + std::to_string(n_recv) + " elements, send has " + std::to_string(n_send));
}

// A reduction of devplug_reduce_op_t that `dtype` admits: bitwise ones for integral and
// bool dtypes only, AVG not for bool.
void check_reduce_op(devplug_reduce_op_t op, devplug_dtype_t dtype) {
  const auto value = static_cast<uint32_t>(op);
  if (value < DEVPLUG_REDUCE_SUM || value >= DEVPLUG_REDUCE_OP_END)
    invalid_argument("op " + std::to_string(static_cast<int64_t>(op)) + " is not a devplug_reduce_op_t");
  const bool bitwise = op == DEVPLUG_REDUCE_BAND || op == DEVPLUG_REDUCE_BOR || op == DEVPLUG_REDUCE_BXOR;
  if (bitwise && (DEVPLUG_DTYPE_BIT(dtype) & DEVPLUG_DTYPES_INTEGRAL) == 0)
    invalid_argument(std::string("op ") + reduce_op_name(value) +
                     " is bitwise, for integral and bool dtypes only, not for " + dtype_name_or(dtype));
  if (op == DEVPLUG_REDUCE_AVG && dtype == DEVPLUG_DTYPE_BOOL) invalid_argument("op AVG is not for bool");
}

void check_rank(const devplug_comm_t& comm, uint32_t rank, const char* what) {
  if (rank >= comm.world_size)
    invalid_argument(std::string(what) + " " + std::to_string(rank) + " is not below the world size " +
                     std::to_string(comm.world_size));
}

// The peer of a send or recv: another rank of the communicator.
void check_peer(const devplug_comm_t& comm, uint32_t peer) {
  check_rank(comm, peer, "peer");
  if (peer == comm.rank) invalid_argument("peer " + std::to_string(peer) + " is the communicator's own rank");
}

// Refuses a capturing stream, then has the plugin enqueue the collective `entry` through
// `body(extension)`, throwing its error.
template <typename Body>
void enqueue(devplug_stream_t& stream, const devplug_comm_t& comm, const char* entry, const char* call,
             Body&& body) {
  refuse_in_capture(stream, entry, "it is a collective among ranks");
  const devplug_plugin_t& plugin = *comm.device->plugin;
  check_plugin(plugin, body(*plugin.collectives), call);
}

}  // namespace

void comm_unique_id(devplug_device_t& device, devplug_comm_unique_id_t* out_id) {
  const devplug_ext_collectives_t& ext = collectives_of(device);
  check_plugin(*device.plugin, ext.comm_unique_id(device.open(), out_id), "comm_unique_id");
}

devplug_comm_t* create_comm(devplug_device_t& device, const devplug_comm_unique_id_t& id, uint32_t world_size,
                            uint32_t rank) {
  const devplug_ext_collectives_t& ext = collectives_of(device);
  devplug_plugin_t& plugin = *device.plugin;
  auto comm = std::make_unique<devplug_comm_t>();
  comm->device = &device;
  comm->world_size = world_size;
  comm->rank = rank;
  check_plugin(plugin, ext.comm_create(device.open(), &id, world_size, rank, &comm->native), "comm_create");
  if (comm->native == nullptr)
    throw Error(DEVPLUG_CODE_INTERNAL, "plugin " + plugin.name + ": comm_create returned no communicator");
  try {
    live_comms.add(comm.get());
  } catch (...) {  // out of host memory: the plugin's communicator must not leak
    drop_plugin_error(plugin, ext.comm_destroy(comm->native));
    throw;
  }
  std::lock_guard<std::mutex> lock(device.mutex);
  device.comms.insert(comm.get());
  return comm.release();
}

devplug_comm_t* require_comm(const devplug_comm_t* comm, const char* what) {
  if (forked_after_init()) refuse_forked();
  require_not_null(comm, what);
  if (!live_comms.contains(comm)) invalid_argument(std::string(what) + " is not a live communicator handle");
  // The registry lists the dispatcher's own, non-const objects.
  return const_cast<devplug_comm_t*>(comm);
}

void destroy_comm(devplug_comm_t* comm) {
  live_comms.remove(comm);
  devplug_device_t& device = *comm->device;
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    device.comms.remove(comm);
  }
  check_plugin(*device.plugin, delete_comm(comm), "comm_destroy");
}

void free_comm(devplug_comm_t* comm) noexcept {
  live_comms.remove(comm);
  const devplug_plugin_t& plugin = *comm->device->plugin;
  drop_plugin_error(plugin, delete_comm(comm));
}

devplug_stream_t& comm_stream(devplug_stream_t* stream, const devplug_comm_t& comm) {
  if (stream == nullptr) return *comm.device->default_stream();
  require_handle(stream, "stream");
  if (stream->device != comm.device)
    invalid_argument("stream belongs to device " + std::to_string(stream->device->index) + " of plugin " +
                     stream->device->plugin->name + ", not to comm's device " +
                     std::to_string(comm.device->index) + " of plugin " + comm.device->plugin->name);
  return *stream;
}

void all_reduce(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* send,
                devplug_tensor_t* recv, devplug_reduce_op_t op) {
  const devplug_tensor_t& s = comm_tensor(comm, send, "send");
  const devplug_tensor_t& r = comm_tensor(comm, recv, "recv");
  same_dtype(s, r);
  same_numel(s, r);
  check_reduce_op(op, s.layout.dtype);
  enqueue(stream, comm, "devplug_comm_all_reduce", "all_reduce", [&](const devplug_ext_collectives_t& ext) {
    return ext.all_reduce(stream.native, comm.native, &s.desc, &r.desc, static_cast<uint32_t>(op));
  });
}

void all_gather(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* send,
                devplug_tensor_t* recv) {
  const devplug_tensor_t& s = comm_tensor(comm, send, "send");
  const devplug_tensor_t& r = comm_tensor(comm, recv, "recv");
  same_dtype(s, r);
  world_times(comm, r, "recv", s, "send");
  enqueue(stream, comm, "devplug_comm_all_gather", "all_gather", [&](const devplug_ext_collectives_t& ext) {
    return ext.all_gather(stream.native, comm.native, &s.desc, &r.desc);
  });
}

void reduce_scatter(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* send,
                    devplug_tensor_t* recv, devplug_reduce_op_t op) {
  const devplug_tensor_t& s = comm_tensor(comm, send, "send");
  const devplug_tensor_t& r = comm_tensor(comm, recv, "recv");
  same_dtype(s, r);
  world_times(comm, s, "send", r, "recv");
  check_reduce_op(op, s.layout.dtype);
  enqueue(stream, comm, "devplug_comm_reduce_scatter", "reduce_scatter",
          [&](const devplug_ext_collectives_t& ext) {
            return ext.reduce_scatter(stream.native, comm.native, &s.desc, &r.desc,
                                      static_cast<uint32_t>(op));
          });
}

void broadcast(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* tensor,
               uint32_t root) {
  const devplug_tensor_t& t = comm_tensor(comm, tensor, "tensor");
  check_rank(comm, root, "root");
  enqueue(stream, comm, "devplug_comm_broadcast", "broadcast", [&](const devplug_ext_collectives_t& ext) {
    return ext.broadcast(stream.native, comm.native, &t.desc, root);
  });
}

void all_to_all(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* send,
                devplug_tensor_t* recv) {
  const devplug_tensor_t& s = comm_tensor(comm, send, "send");
  const devplug_tensor_t& r = comm_tensor(comm, recv, "recv");
  same_dtype(s, r);
  same_numel(s, r);
  const int64_t n = numel(s.layout);
  if (n % comm.world_size != 0)
    invalid_argument("send's " + std::to_string(n) + " elements do not split into " +
                     std::to_string(comm.world_size) + " equal parts (the world size)");
  // A rank reads its send parts while the others' arrive in its recv parts.
  if (s.storage == r.storage && may_overlap(s.layout, r.layout))
    invalid_argument("recv shares memory with send");
  enqueue(stream, comm, "devplug_comm_all_to_all", "all_to_all", [&](const devplug_ext_collectives_t& ext) {
    return ext.all_to_all(stream.native, comm.native, &s.desc, &r.desc);
  });
}

void send(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* tensor, uint32_t peer) {
  const devplug_tensor_t& t = comm_tensor(comm, tensor, "tensor");
  check_peer(comm, peer);
  enqueue(stream, comm, "devplug_comm_send", "send", [&](const devplug_ext_collectives_t& ext) {
    return ext.send(stream.native, comm.native, &t.desc, peer);
  });
}

void recv(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* tensor, uint32_t peer) {
  const devplug_tensor_t& t = comm_tensor(comm, tensor, "tensor");
  check_peer(comm, peer);
  enqueue(stream, comm, "devplug_comm_recv", "recv", [&](const devplug_ext_collectives_t& ext) {
    return ext.recv(stream.native, comm.native, &t.desc, peer);
  });
}

}  // namespace devplug::detail
