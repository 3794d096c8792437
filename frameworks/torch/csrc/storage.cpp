// SPDX-License-Identifier: Apache-2.0
// Blocks, fake addresses, the allocator and tensor views (see storage.hpp).
#include "storage.hpp"

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "fallback.hpp"
#include "runtime.hpp"

namespace devplug::bridge {
namespace {

// Fake addresses start at 2^44 (16 TiB), far from the heap and from mmap's region at the
// top of the 47-bit user space; each block gets its size rounded up to 256 bytes plus a
// 256-byte gap, so one-past-the-end pointers of two blocks differ. The range wraps after
// 2^46 bytes of allocations, long after the blocks of the first lap are gone.
constexpr uintptr_t kAddressBase = uintptr_t{1} << 44;
constexpr uintptr_t kAddressSpan = uintptr_t{1} << 46;
std::atomic<uintptr_t> g_next_address{0};

uintptr_t take_address(size_t nbytes) {
  const uintptr_t stride = ((static_cast<uintptr_t>(nbytes) + 255) & ~uintptr_t{255}) + 256;
  const uintptr_t offset = g_next_address.fetch_add(stride) % kAddressSpan;
  return kAddressBase + offset;
}

// Live blocks by address, for copy_data and getDeviceFromPtr.
std::mutex g_blocks_mutex;
std::map<uintptr_t, Block*>& blocks() {
  static auto* map = new std::map<uintptr_t, Block*>();  // leaked: blocks die after statics
  return *map;
}

void delete_block(void* context) {
  // In a forked child (runtime.hpp) the block is the parent's: leak it, as freeing would
  // call into a plugin that the fork left unusable (and the lock may be a dead thread's).
  if (in_bad_fork()) return;
  Block* block = static_cast<Block*>(context);
  {
    std::lock_guard<std::mutex> lock(g_blocks_mutex);
    blocks().erase(block->address);
  }
  delete block;  // drops the devplug tensor; the buffer returns to the caching allocator
}

// torch's allocator for devplug devices. Its memory statistics (torch.accelerator.memory_*,
// torch.devplug.memory_*) are those of devplug's caching allocator on the device, which
// every storage's buffer comes from.
class DevplugAllocator final : public c10::DeviceAllocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override { return allocate_on(current_device(), nbytes); }

  bool initialized() override { return Runtime::exists(); }
  void emptyCache(c10::MempoolId_t /*mempool_id*/) override {
    if (!Runtime::exists()) return;  // nothing allocated yet: nothing cached
    Runtime& runtime = Runtime::get();
    try {
      for (c10::DeviceIndex i = 0; i < runtime.device_count(); ++i) runtime.device(i).empty_cache();
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
  }
  // Memory used on a second stream is ordered by the caller (see guard.cpp).
  void recordStream(const c10::DataPtr& /*ptr*/, c10::Stream /*stream*/) override {}
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) override {
    const devplug_memory_stats_t d = memory_stats(device);
    c10::CachingDeviceAllocator::DeviceStats out;
    auto put = [](c10::CachingDeviceAllocator::StatArray& to, const devplug_memory_stat_t& from) {
      // devplug has one pool: "all" (aggregate) and "large_pool" hold it; "small_pool" stays 0.
      for (size_t type : {static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE),
                          static_cast<size_t>(c10::CachingAllocator::StatType::LARGE_POOL)}) {
        to[type].current = from.current;
        to[type].peak = from.peak;
        to[type].allocated = from.allocated;
        to[type].freed = from.freed;
      }
    };
    put(out.allocated_bytes, d.allocated_bytes);
    put(out.active_bytes, d.allocated_bytes);
    put(out.requested_bytes, d.requested_bytes);
    put(out.reserved_bytes, d.reserved_bytes);
    put(out.allocation, d.allocations);
    put(out.active, d.allocations);
    put(out.segment, d.segments);
    out.num_alloc_retries = d.out_of_memory_retries;
    out.num_ooms = d.out_of_memory_errors;
    out.num_device_alloc = d.plugin_allocations;
    out.num_device_free = d.plugin_releases;
    return out;
  }
  void resetAccumulatedStats(c10::DeviceIndex device) override {
    reset_memory_stats(device, DEVPLUG_MEMORY_RESET_TOTALS);
  }
  void resetPeakStats(c10::DeviceIndex device) override {
    reset_memory_stats(device, DEVPLUG_MEMORY_RESET_PEAKS);
  }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    if (count == 0) return;
    Block* d = find_block(dest);
    Block* s = find_block(src);
    TORCH_CHECK(d != nullptr && s != nullptr,
                "devplug: copy_data between addresses no devplug storage holds");
    const int64_t n = static_cast<int64_t>(count);
    const int64_t d_off = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dest) - d->address);
    const int64_t s_off = static_cast<int64_t>(reinterpret_cast<uintptr_t>(src) - s->address);
    try {
      devplug::Tensor to = d->bytes.as_strided({n}, {1}, d_off);
      devplug::Stream stream = stream_for(d->device);
      to.copy_from(s->bytes.as_strided({n}, {1}, s_off), &stream);
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
  }
};

DevplugAllocator g_allocator;
// torch finds it by device type: UntypedStorage(n, device=...), torch.load's storages and
// the memory statistics of torch.accelerator.
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

}  // namespace

c10::Allocator* allocator() { return &g_allocator; }

devplug_memory_stats_t memory_stats(c10::DeviceIndex device) {
  const c10::DeviceIndex index = device < 0 ? current_device() : device;
  try {
    return Runtime::get().device(index).memory_stats();
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
}

void reset_memory_stats(c10::DeviceIndex device, uint32_t what) {
  const c10::DeviceIndex index = device < 0 ? current_device() : device;
  try {
    Runtime::get().device(index).reset_memory_stats(what);
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
}

namespace {

// Registers `block` and makes the DataPtr that owns it.
c10::DataPtr adopt(Block* block) {
  {
    std::lock_guard<std::mutex> lock(g_blocks_mutex);
    blocks()[block->address] = block;
  }
  return c10::DataPtr(reinterpret_cast<void*>(block->address), block, &delete_block,
                      c10::Device(c10::DeviceType::PrivateUse1, block->device));
}

// The dispatcher calls this once the last devplug tensor over the memory is gone.
void drop_host_storage(void* context) { delete static_cast<c10::Storage*>(context); }

// A block on `device` whose bytes are the memory of the CPU storage `host`, which the
// dispatcher keeps alive (a reference of its own) while any devplug tensor uses it.
Block* block_over_host(const c10::Storage& host, c10::DeviceIndex device) {
  TORCH_CHECK(host.device_type() == c10::DeviceType::CPU, "devplug: expected a CPU storage, got one on ",
              host.device());
  const size_t nbytes = host.nbytes();
  TORCH_CHECK(nbytes > 0, "devplug: a device storage over host memory needs at least one byte");
  const devplug::Device& d = Runtime::get().device(device);
  auto keep = std::make_unique<c10::Storage>(host);
  try {
    devplug::Tensor bytes = devplug::Tensor::over_host_memory(d, c10::Storage(host).mutable_data(), nbytes,
                                                              &drop_host_storage, keep.get());
    keep.release();  // the dispatcher's now
    return new Block{std::move(bytes), take_address(nbytes), nbytes, device, host};
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
}

}  // namespace

c10::DataPtr allocate_on(c10::DeviceIndex device, size_t nbytes) {
  Runtime& runtime = Runtime::get();
  const devplug::Device& d = runtime.device(device);
  Block* block = nullptr;
  try {
    block = new Block{devplug::Tensor::empty(d, DEVPLUG_DTYPE_UINT8, {static_cast<int64_t>(nbytes)}),
                      take_address(nbytes), nbytes, device};
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
  return adopt(block);
}

c10::Storage host_memory_of(const c10::Storage& storage) { return block_of(storage).host; }

void move_to_host_memory(const c10::Storage& storage, const c10::Storage& host) {
  check_not_forked();
  Block& old = block_of(storage);
  const size_t nbytes = storage.nbytes();
  TORCH_CHECK(host.nbytes() == nbytes, "devplug: the host storage has ", host.nbytes(),
              " bytes, the device storage ", nbytes);
  std::unique_ptr<Block> fresh(block_over_host(host, old.device));
  try {
    const int64_t n = static_cast<int64_t>(nbytes);
    devplug::Stream stream = stream_for(old.device);
    fresh->bytes.as_strided({n}, {1}, 0).copy_from(old.bytes.as_strided({n}, {1}, 0), &stream);
    stream.synchronize();  // the memory is another process's to read from now on
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
  c10::Storage(storage).set_data_ptr_noswap(adopt(fresh.release()));
}

c10::Storage storage_over_host_memory(const c10::Storage& host, c10::DeviceIndex device) {
  check_not_forked();
  const size_t nbytes = host.nbytes();
  return c10::Storage(c10::Storage::use_byte_size_t(), nbytes, adopt(block_over_host(host, device)),
                      allocator(),
                      /*resizable=*/false);
}

Block& block_of(const c10::Storage& storage) {
  const c10::DataPtr& data = storage.data_ptr();
  TORCH_CHECK(data.get_deleter() == &delete_block && data.get_context() != nullptr,
              "devplug: this storage was not allocated by torch_devplug (a devplug tensor's storage must "
              "come from the devplug allocator)");
  return *static_cast<Block*>(data.get_context());
}

Block* find_block(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  std::lock_guard<std::mutex> lock(g_blocks_mutex);
  auto it = blocks().upper_bound(a);
  if (it == blocks().begin()) return nullptr;
  --it;
  Block* b = it->second;
  return a <= b->address + b->nbytes ? b : nullptr;
}

void resize_storage(const c10::Storage& storage, size_t nbytes) {
  TORCH_CHECK(storage.resizable(), "devplug: trying to resize a storage that is not resizable");
  Block& old = block_of(storage);
  c10::DataPtr fresh = allocate_on(old.device, nbytes);
  const size_t keep = std::min(nbytes, storage.nbytes());
  if (keep > 0) {
    Block* b = static_cast<Block*>(fresh.get_context());
    try {
      const int64_t n = static_cast<int64_t>(keep);
      devplug::Tensor to = b->bytes.as_strided({n}, {1}, 0);
      devplug::Stream stream = stream_for(old.device);
      to.copy_from(old.bytes.as_strided({n}, {1}, 0), &stream);
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
  }
  c10::Storage(storage).set_data_ptr_noswap(std::move(fresh));
  c10::Storage(storage).set_nbytes(nbytes);
}

std::optional<devplug_dtype_t> devplug_dtype(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Bool:
      return DEVPLUG_DTYPE_BOOL;
    case c10::ScalarType::Byte:
      return DEVPLUG_DTYPE_UINT8;
    case c10::ScalarType::Char:
      return DEVPLUG_DTYPE_INT8;
    case c10::ScalarType::Short:
      return DEVPLUG_DTYPE_INT16;
    case c10::ScalarType::Int:
      return DEVPLUG_DTYPE_INT32;
    case c10::ScalarType::Long:
      return DEVPLUG_DTYPE_INT64;
    case c10::ScalarType::Half:
      return DEVPLUG_DTYPE_FLOAT16;
    case c10::ScalarType::BFloat16:
      return DEVPLUG_DTYPE_BFLOAT16;
    case c10::ScalarType::Float:
      return DEVPLUG_DTYPE_FLOAT32;
    case c10::ScalarType::Double:
      return DEVPLUG_DTYPE_FLOAT64;
    default:
      return std::nullopt;
  }
}

c10::ScalarType torch_dtype(devplug_dtype_t dtype) {
  static constexpr c10::ScalarType types[DEVPLUG_DTYPE_COUNT] = {
      c10::ScalarType::Bool,  c10::ScalarType::Byte,  c10::ScalarType::Char, c10::ScalarType::Short,
      c10::ScalarType::Int,   c10::ScalarType::Long,  c10::ScalarType::Half, c10::ScalarType::BFloat16,
      c10::ScalarType::Float, c10::ScalarType::Double};
  TORCH_CHECK(dtype >= 0 && dtype < DEVPLUG_DTYPE_COUNT, "devplug: unknown dtype ", dtype);
  return types[dtype];
}

std::optional<HeldAs> held_as(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::ComplexHalf:
      return HeldAs{DEVPLUG_DTYPE_FLOAT16, 2};
    case c10::ScalarType::ComplexFloat:
      return HeldAs{DEVPLUG_DTYPE_FLOAT32, 2};
    case c10::ScalarType::ComplexDouble:
      return HeldAs{DEVPLUG_DTYPE_FLOAT64, 2};
    case c10::ScalarType::UInt16:
      return HeldAs{DEVPLUG_DTYPE_INT16, 1};
    case c10::ScalarType::UInt32:
      return HeldAs{DEVPLUG_DTYPE_INT32, 1};
    case c10::ScalarType::UInt64:
      return HeldAs{DEVPLUG_DTYPE_INT64, 1};
    case c10::ScalarType::Float8_e5m2:
    case c10::ScalarType::Float8_e4m3fn:
    case c10::ScalarType::Float8_e5m2fnuz:
    case c10::ScalarType::Float8_e4m3fnuz:
    case c10::ScalarType::Float8_e8m0fnu:
      return HeldAs{DEVPLUG_DTYPE_UINT8, 1};
    default:
      return std::nullopt;
  }
}

devplug_dtype_t require_dtype(c10::ScalarType type, const char* what) {
  if (held_as(type).has_value()) throw OnCpu{};
  return require_devplug_dtype(type, what);
}

devplug_dtype_t require_devplug_dtype(c10::ScalarType type, const char* what) {
  std::optional<devplug_dtype_t> d = devplug_dtype(type);
  TORCH_CHECK_TYPE(d.has_value(), "devplug: ", what, " has dtype ", c10::toString(type),
                   ", which devplug does not have (it has bool, uint8, int8, int16, int32, int64, float16, "
                   "bfloat16, float32 and float64)");
  return *d;
}

namespace {

// What every devplug view of a torch tensor needs: a strided tensor on a devplug device.
void check_viewable(const at::Tensor& t) {
  TORCH_CHECK(t.defined(), "devplug: expected a tensor, got an undefined one");
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1,
              "devplug: expected a devplug tensor, got one on ", t.device());
  TORCH_CHECK(t.layout() == c10::kStrided, "devplug: only strided tensors live on devplug devices, got ",
              t.layout());
}

}  // namespace

devplug::Tensor view_of(const at::Tensor& t) {
  check_viewable(t);
  TORCH_CHECK(t.dim() <= DEVPLUG_MAX_RANK, "devplug: tensors have at most ", DEVPLUG_MAX_RANK, " dims, got ",
              t.dim());
  const devplug_dtype_t dtype = require_dtype(t.scalar_type(), "a tensor");
  check_not_forked();
  Block& block = block_of(t.storage());
  try {
    return block.bytes.as_strided(dtype, t.sizes().vec(), t.strides().vec(), t.storage_offset());
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
}

devplug::Tensor bytes_view_of(const at::Tensor& t) {
  const std::optional<HeldAs> held = held_as(t.scalar_type());
  if (!held.has_value()) return view_of(t);  // a TypeError for a dtype no devplug tensor holds
  check_viewable(t);
  const int64_t extra = held->lanes > 1 ? 1 : 0;
  check_not_forked();
  std::vector<int64_t> shape = t.sizes().vec(), strides = t.strides().vec();
  if (static_cast<int64_t>(shape.size()) + extra > DEVPLUG_MAX_RANK) {
    // A complex tensor of devplug's largest rank: dims that walk memory as one are merged
    // (row-major order, what copies follow, stays), as many as the lanes' dim needs.
    for (size_t d = shape.size() - 1; d > 0 && static_cast<int64_t>(shape.size()) + extra > DEVPLUG_MAX_RANK;
         --d) {
      if (shape[d - 1] == 1 || shape[d] == 1 || strides[d - 1] == shape[d] * strides[d]) {
        const int64_t stride = shape[d] == 1 ? strides[d - 1] : strides[d];
        shape[d - 1] *= shape[d];
        strides[d - 1] = stride;
        shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(d));
        strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(d));
      }
    }
    TORCH_CHECK(static_cast<int64_t>(shape.size()) + extra <= DEVPLUG_MAX_RANK, "devplug: a ",
                c10::toString(t.scalar_type()), " tensor of ", t.dim(),
                " dims whose layout merges no two of them cannot be copied (devplug tensors have at most ",
                DEVPLUG_MAX_RANK, " dims, and complex takes one for its parts)");
  }
  for (int64_t& s : strides) s *= held->lanes;
  if (extra) {
    shape.push_back(held->lanes);
    strides.push_back(1);
  }
  Block& block = block_of(t.storage());
  try {
    return block.bytes.as_strided(held->dtype, shape, strides, t.storage_offset() * held->lanes);
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
}

}  // namespace devplug::bridge
