// SPDX-License-Identifier: Apache-2.0
// Communicators and collectives (devplug.h, "collectives"): the host's record of one rank's
// communicator, made and destroyed by the collectives extension of its device's plugin, and
// the collectives, whose arguments are checked here (liveness, device, contiguity, dtypes,
// element counts, reductions, ranks) before the plugin enqueues them on the stream. Nothing
// runs without the extension: there is no host fallback.
//
// A communicator is listed on its device, so that context destruction frees one the host
// forgot (free_comm), and in a registry that tells a live handle from a destroyed one.
// Thread-safety: the lists and the registry have their mutexes; a communicator is used by one
// thread at a time (devplug.h), and its record is immutable after creation.
#pragma once

#include <cstdint>

#include "devplug/devplug.h"

struct devplug_comm_t {
  static constexpr uint32_t kMagic = 0x434f4d4d;  // "COMM"
  static constexpr const char* kKind = "communicator";
  uint32_t magic = kMagic;
  devplug_device_t* device = nullptr;
  devplug_comm_handle_t* native = nullptr;  // the plugin's, destroyed with the host object
  uint32_t rank = 0;
  uint32_t world_size = 0;
  devplug_comm_t* live_prev = nullptr;
  devplug_comm_t* live_next = nullptr;
};

namespace devplug::detail {

// Fills `*out_id` with the plugin's id of a new communicator among devices of `device`'s
// plugin. Throws UNIMPLEMENTED without the collectives extension, or the plugin's error.
void comm_unique_id(devplug_device_t& device, devplug_comm_unique_id_t* out_id);

// Joins `device` to the communicator `id` names as `rank` of `world_size` (both checked by the
// caller) and lists it. Throws UNIMPLEMENTED without the collectives extension, or the
// plugin's error (UNAVAILABLE when the other ranks did not join in time).
devplug_comm_t* create_comm(devplug_device_t& device, const devplug_comm_unique_id_t& id, uint32_t world_size,
                            uint32_t rank);

// Checks that `comm` is a communicator create_comm made and nobody destroyed (a registry, not
// the object's memory, is asked); names it `what` in the error.
devplug_comm_t* require_comm(const devplug_comm_t* comm, const char* what);

// Unlists and frees `comm`, destroying the plugin's communicator. Throws the plugin's error,
// after freeing.
void destroy_comm(devplug_comm_t* comm);

// Frees a communicator at context destruction (unlisted by the caller). Never throws.
void free_comm(devplug_comm_t* comm) noexcept;

// The stream a collective of `comm` runs on: `stream`, checked to be a live stream of the
// communicator's device, or that device's default stream for NULL.
devplug_stream_t& comm_stream(devplug_stream_t* stream, const devplug_comm_t& comm);

// The collectives on a stream of the communicator's device (comm_stream): each checks its
// tensors and arguments (INVALID_ARGUMENT), refuses a capturing stream (FAILED_PRECONDITION,
// ending the capture), then has the plugin enqueue it and throws the plugin's error.
void all_reduce(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* send,
                devplug_tensor_t* recv, devplug_reduce_op_t op);
void all_gather(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* send,
                devplug_tensor_t* recv);
void reduce_scatter(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* send,
                    devplug_tensor_t* recv, devplug_reduce_op_t op);
void broadcast(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* tensor, uint32_t root);
void all_to_all(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* send,
                devplug_tensor_t* recv);
void send(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* tensor, uint32_t peer);
void recv(devplug_stream_t& stream, const devplug_comm_t& comm, devplug_tensor_t* tensor, uint32_t peer);

}  // namespace devplug::detail
