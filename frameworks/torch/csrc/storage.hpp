// SPDX-License-Identifier: Apache-2.0
// Torch storages on devplug devices, and torch tensors seen as devplug tensors.
//
// devplug memory is a buffer handle plus an offset, never a pointer, while torch wants a
// data pointer per storage. So each storage is a `Block`: a devplug uint8 tensor of the
// storage's bytes (its own buffer, from the dispatcher's caching allocator) and a fake
// address that torch uses only for arithmetic and identity (data_ptr(), overlap checks).
// The fake addresses come from a range no real allocation uses, each block its own
// stretch, so two live storages never share one; nothing ever dereferences them. A torch
// tensor (storage, dtype, sizes, strides, offset) becomes a devplug view of the block's
// bytes read as its dtype (devplug_tensor_as_strided_dtype), so views alias for real.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Allocator.h>
#include <c10/core/Storage.h>

#include <optional>

#include "devplug/devplug.hpp"

namespace devplug::bridge {

struct Block {
  devplug::Tensor bytes;  // uint8 [nbytes]
  uintptr_t address;      // what torch sees as the storage's data()
  size_t nbytes;
  c10::DeviceIndex device;
  // The CPU storage whose memory `bytes` is (shared memory, for torch.multiprocessing), or
  // undefined when `bytes` is the device's own memory.
  c10::Storage host = {};
};

// The allocator registered for the devplug device type: allocates on the current device.
c10::Allocator* allocator();
// devplug's allocator statistics of `device` (-1: the current device), and their resets
// (DEVPLUG_MEMORY_RESET_* bits).
devplug_memory_stats_t memory_stats(c10::DeviceIndex device);
void reset_memory_stats(c10::DeviceIndex device, uint32_t what);
// Allocates `nbytes` on `device` (a DataPtr whose context is a Block).
c10::DataPtr allocate_on(c10::DeviceIndex device, size_t nbytes);
// The block behind a devplug storage; throws for a storage this bridge did not make.
Block& block_of(const c10::Storage& storage);
// The block that holds fake address `address`, or nullptr.
Block* find_block(const void* address);
// Sharing between processes, on a device whose memory is host memory and whose plugin lends it
// to the device (devplug_tensor_from_host_memory): the CPU storage a devplug storage's memory
// is, or an undefined storage;
c10::Storage host_memory_of(const c10::Storage& storage);
// moves `storage`'s bytes into the CPU storage `host` (its size; shared memory) and makes that
// memory the storage's from now on, as torch's share_memory_() does for CPU storages (throws a
// torch error naming why where the device cannot);
void move_to_host_memory(const c10::Storage& storage, const c10::Storage& host);
// and a new devplug storage on `device` whose memory is the CPU storage `host`'s.
c10::Storage storage_over_host_memory(const c10::Storage& host, c10::DeviceIndex device);
// Grows (or shrinks) `storage` to `nbytes` on its device, keeping the leading bytes.
void resize_storage(const c10::Storage& storage, size_t nbytes);

// Element types: torch's and devplug's. nullopt when devplug has no such dtype.
std::optional<devplug_dtype_t> devplug_dtype(c10::ScalarType type);
c10::ScalarType torch_dtype(devplug_dtype_t dtype);
// As devplug_dtype, for a dtype an op computes in: throws OnCpu (fallback.hpp) for a dtype
// devplug tensors only hold (held_as), so the op runs on torch's CPU, and a torch error
// naming `what` for one they cannot hold.
devplug_dtype_t require_dtype(c10::ScalarType type, const char* what);
// As require_dtype, but a torch TypeError for every dtype devplug lacks (outside kernels).
devplug_dtype_t require_devplug_dtype(c10::ScalarType type, const char* what);

// Dtypes devplug tensors hold without devplug having them (bytes are bytes): their storage is
// on the device, and their ops run on torch's CPU through the fallback. Complex as pairs of
// its real dtype (a trailing dim of 2), uint16/32/64 as int16/32/64, the float8 types as
// uint8. nullopt for devplug's own dtypes and for dtypes no devplug tensor holds.
struct HeldAs {
  devplug_dtype_t dtype;
  int64_t lanes;  // 2 for complex, else 1
};
std::optional<HeldAs> held_as(c10::ScalarType type);

// `t` (a strided tensor on a devplug device, of a dtype devplug has, rank <= 8) as a
// devplug view of the same memory. Throws OnCpu for a held dtype, a torch error otherwise.
devplug::Tensor view_of(const at::Tensor& t);
// `t` as a devplug view of its bytes, for copies: view_of for devplug's dtypes, and for a
// held dtype its elements as held_as says (complex: shape and strides with a trailing dim of
// 2). Ignores the conj and neg bits. Throws a torch error for a dtype no devplug tensor holds.
devplug::Tensor bytes_view_of(const at::Tensor& t);

}  // namespace devplug::bridge
