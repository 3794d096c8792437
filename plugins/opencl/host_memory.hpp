// SPDX-License-Identifier: Apache-2.0
// Pinned host memory (the pinned_host_memory extension; host_memory.cpp).
//
// A block is a buffer created with CL_MEM_ALLOC_HOST_PTR and mapped (blocking, read and
// write) for its whole life; the host gets the mapped pointer. Drivers back such a buffer
// with page-locked memory and copy to and from its mapping directly (the pinned-transfer
// recipe of NVIDIA's and AMD's OpenCL guides; on a CPU device a copy is one memcpy either
// way), so buffer_copy_from_host and buffer_copy_to_host take the pointer as it is.
//
// Host copies are non-blocking (buffer.cpp), so a copy may still read or write a block when
// the host releases it. A copy that touches a block hands its cl_event to the block (track),
// and release waits for those events before it unmaps the buffer and releases it.
//
// The host_address extension is not offered: the plugin's buffers are plain
// CL_MEM_READ_WRITE objects, and OpenCL 1.2 gives the host no address of such a buffer that
// stays valid while kernels use it. A mapping is one (PoCL's CPU device maps in place), but
// enqueuing a kernel on a buffer mapped for writing is undefined, and a pointer kept past
// the unmap is undefined too. Sound ways need a different allocation for every buffer
// (CL_MEM_USE_HOST_PTR with map/unmap around each host access, or OpenCL 2.0 fine-grained
// SVM), which would change the whole buffer path for one extension.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "objects.hpp"

namespace devplug::opencl {

// The pinned blocks of one device, registered by address. Thread-safe. Destroyed before the
// device's context; blocks the host did not release are released then.
class PinnedHostMemory {
 public:
  PinnedHostMemory(cl_context context, cl_device_id device) : context_(context), device_(device) {}
  ~PinnedHostMemory();
  PinnedHostMemory(const PinnedHostMemory&) = delete;
  PinnedHostMemory& operator=(const PinnedHostMemory&) = delete;

  // `size` bytes of mapped CL_MEM_ALLOC_HOST_PTR memory, aligned to 64 bytes. Throws
  // RESOURCE_EXHAUSTED when the device cannot allocate it.
  void* allocate(uint64_t size);

  // Waits for the copies tracked on the block at `ptr`, then unmaps and releases it. Throws
  // INVALID_ARGUMENT when `ptr` is not the start of a live block of this device.
  void release(void* ptr);

  // Whether `ptr` lies inside a live block. Takes no lock while there is no block.
  bool contains(const void* ptr) const;

  // Gives the block holding `ptr` the event of a copy that reads or writes it; takes
  // ownership of `done` (released at once when no block holds `ptr`).
  void track(const void* ptr, cl_event done) noexcept;

 private:
  struct Block {
    cl_mem mem = nullptr;
    void* mapped = nullptr;        // what clEnqueueMapBuffer gave; the host's address is inside it
    uint64_t size = 0;             // bytes the host asked for, from its address
    std::vector<cl_event> copies;  // copies enqueued on the block that may not have finished
  };

  // The queue that maps and unmaps blocks, made at the first allocation (mutex_ held).
  cl_command_queue queue_locked();
  // A CL_MEM_ALLOC_HOST_PTR buffer of `bytes`, mapped on `queue`.
  Block map_block(cl_command_queue queue, uint64_t bytes);
  // Waits for `block`'s copies, then unmaps and releases it. Returns the first failure and
  // names its call in `*failed_call`.
  cl_int free_block(Block& block, const char** failed_call) noexcept;

  cl_context context_;
  cl_device_id device_;
  mutable std::mutex mutex_;
  cl_command_queue queue_ = nullptr;
  std::map<uintptr_t, Block> blocks_;  // by the address the host was given
  std::atomic<size_t> count_{0};       // blocks_.size(), read without the lock
};

// The extension's entry points, called by the table's shims after the ABI's checks.
void* host_allocate(devplug_device_handle_t* device, uint64_t size_bytes);
void host_release(devplug_device_handle_t* device, void* ptr);

}  // namespace devplug::opencl
