// SPDX-License-Identifier: Apache-2.0
// Pinned host memory: mapped CL_MEM_ALLOC_HOST_PTR buffers, registered per device, released
// once the copies enqueued on them have finished (host_memory.hpp).
#include "host_memory.hpp"

#include <algorithm>

#include "opencl_status.hpp"

namespace devplug::opencl {

namespace {

// The ABI's promise: the host's address is aligned to at least this.
constexpr uint64_t kAlignment = 64;

// The block holding `ptr` in `blocks` (keyed by start address), or blocks.end().
template <typename Blocks>
auto holding(Blocks& blocks, const void* ptr) {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  auto it = blocks.upper_bound(address);
  if (it == blocks.begin()) return blocks.end();
  --it;
  return address - it->first < it->second.size ? it : blocks.end();
}

// Whether the command behind `event` has finished (completed, or failed).
bool finished(cl_event event) {
  cl_int status = CL_QUEUED;
  return cl().clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) ==
             CL_SUCCESS &&
         status <= CL_COMPLETE;
}

}  // namespace

PinnedHostMemory::~PinnedHostMemory() {
  const char* failed_call = nullptr;
  for (auto& entry : blocks_) free_block(entry.second, &failed_call);  // the host did not release them
  if (queue_ != nullptr) {
    cl().clFinish(queue_);
    cl().clReleaseCommandQueue(queue_);
  }
}

cl_command_queue PinnedHostMemory::queue_locked() {
  if (queue_ == nullptr) {
    cl_int status = CL_SUCCESS;
    cl_command_queue queue = cl().clCreateCommandQueue(context_, device_, 0, &status);
    DEVPLUG_CL_STATUS(clCreateCommandQueue, status, "creating the queue that maps pinned host memory");
    queue_ = queue;
  }
  return queue_;
}

PinnedHostMemory::Block PinnedHostMemory::map_block(cl_command_queue queue, uint64_t bytes) {
  cl_int status = CL_SUCCESS;
  cl_mem mem = cl().clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                   static_cast<size_t>(bytes), nullptr, &status);
  DEVPLUG_CL_STATUS(clCreateBuffer, status, "allocating pinned host memory");
  void* mapped = cl().clEnqueueMapBuffer(queue, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                         static_cast<size_t>(bytes), 0, nullptr, nullptr, &status);
  if (status != CL_SUCCESS) {
    cl().clReleaseMemObject(mem);
    fail_cl("clEnqueueMapBuffer", status, "mapping pinned host memory", __FILE__, __LINE__);
  }
  Block block;
  block.mem = mem;
  block.mapped = mapped;
  block.size = bytes;
  return block;
}

cl_int PinnedHostMemory::free_block(Block& block, const char** failed_call) noexcept {
  cl_int first = CL_SUCCESS;
  const auto note = [&](const char* call, cl_int status) {
    if (status != CL_SUCCESS && first == CL_SUCCESS) {
      first = status;
      *failed_call = call;
    }
  };
  // One at a time: a copy that failed ends its own wait early and is its stream's to report.
  for (cl_event copy : block.copies) {
    cl().clWaitForEvents(1, &copy);
    cl().clReleaseEvent(copy);
  }
  block.copies.clear();
  note("clEnqueueUnmapMemObject",
       cl().clEnqueueUnmapMemObject(queue_, block.mem, block.mapped, 0, nullptr, nullptr));
  note("clFlush", cl().clFlush(queue_));  // the unmap runs, and the release after it
  note("clReleaseMemObject", cl().clReleaseMemObject(block.mem));
  block.mem = nullptr;
  block.mapped = nullptr;
  return first;
}

void* PinnedHostMemory::allocate(uint64_t size) {
  cl_command_queue queue = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue = queue_locked();
  }
  Block block = map_block(queue, size);
  auto address = reinterpret_cast<uintptr_t>(block.mapped);
  if (address % kAlignment != 0) {
    // The driver maps less aligned than the ABI promises: map a larger buffer, start inside.
    const char* failed_call = nullptr;
    free_block(block, &failed_call);
    block = map_block(queue, size + kAlignment - 1);
    address = (reinterpret_cast<uintptr_t>(block.mapped) + kAlignment - 1) / kAlignment * kAlignment;
  }
  block.size = size;
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.emplace(address, std::move(block));
    count_.store(blocks_.size(), std::memory_order_release);
  } catch (...) {
    const char* failed_call = nullptr;
    free_block(block, &failed_call);
    throw;
  }
  return reinterpret_cast<void*>(address);
}

void PinnedHostMemory::release(void* ptr) {
  Block block;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == blocks_.end())
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
                "host_release: the pointer is not memory that host_allocate gave for this device (or it "
                "was released already)");
    block = std::move(it->second);
    blocks_.erase(it);
    count_.store(blocks_.size(), std::memory_order_release);
  }
  const char* failed_call = nullptr;
  const cl_int status = free_block(block, &failed_call);
  if (status != CL_SUCCESS) fail_cl(failed_call, status, "releasing pinned host memory", __FILE__, __LINE__);
}

bool PinnedHostMemory::contains(const void* ptr) const {
  if (count_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return holding(blocks_, ptr) != blocks_.end();
}

void PinnedHostMemory::track(const void* ptr, cl_event done) noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = holding(blocks_, ptr);
    if (it == blocks_.end()) {  // released meanwhile, against the ABI: nothing to hold
      cl().clReleaseEvent(done);
      return;
    }
    // Forget the copies that have finished, so a block used for many copies holds few events.
    std::vector<cl_event>& copies = it->second.copies;
    const auto forget = [](cl_event e) {
      if (!finished(e)) return false;
      cl().clReleaseEvent(e);
      return true;
    };
    copies.erase(std::remove_if(copies.begin(), copies.end(), forget), copies.end());
    copies.push_back(done);
  } catch (...) {
    // No room to remember the copy: let it finish now instead, so a release cannot overtake it.
    cl().clWaitForEvents(1, &done);
    cl().clReleaseEvent(done);
  }
}

void* host_allocate(devplug_device_handle_t* device, uint64_t size_bytes) {
  return device->pinned->allocate(size_bytes);
}

void host_release(devplug_device_handle_t* device, void* ptr) { device->pinned->release(ptr); }

}  // namespace devplug::opencl
