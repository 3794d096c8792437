// SPDX-License-Identifier: Apache-2.0
// The caching allocator's statistics through devplug.h: exact byte counts for the reference
// plugin (no caching: every buffer its own segment, its exact size) and for the fixture
// plugin (caching: size classes, freed buffers stay reserved until reused or emptied), the
// resets, empty_cache, and the exact error codes.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "api_test_util.hpp"
#include "devplug/devplug.hpp"

namespace devplug::test {
namespace {

devplug_memory_stats_t stats_of(devplug_device_t* device) {
  devplug_memory_stats_t stats{};
  stats.struct_size = sizeof(stats);
  EXPECT_TRUE(Ok(devplug_device_memory_stats(device, &stats)));
  return stats;
}

devplug_tensor_t* bytes_on(devplug_device_t* device, int64_t n) {
  devplug_tensor_t* t = nullptr;
  EXPECT_TRUE(Ok(devplug_tensor_create(device, DEVPLUG_DTYPE_UINT8, 1, &n, &t)));
  return t;
}

using ApiMemory = ReferenceContext;

TEST_F(ApiMemory, WithoutCachingEveryBufferIsItsOwnExactSegment) {
  const devplug_memory_stats_t before = stats_of(device_);
  devplug_tensor_t* t = bytes_on(device_, 1000);
  devplug_tensor_t* view = nullptr;  // a view shares the buffer: nothing more is allocated
  const int64_t two = 2;
  ASSERT_TRUE(Ok(devplug_tensor_slice(t, 0, 10, 10 + two, 1, &view)));
  devplug_memory_stats_t now = stats_of(device_);
  EXPECT_EQ(now.allocated_bytes.current - before.allocated_bytes.current, 1000);
  EXPECT_EQ(now.requested_bytes.current - before.requested_bytes.current, 1000);
  EXPECT_EQ(now.reserved_bytes.current - before.reserved_bytes.current, 1000);
  EXPECT_EQ(now.allocations.current - before.allocations.current, 1);
  EXPECT_EQ(now.segments.current - before.segments.current, 1);
  EXPECT_EQ(now.plugin_allocations - before.plugin_allocations, 1);
  devplug_tensor_release(t);
  EXPECT_EQ(stats_of(device_).allocated_bytes.current - before.allocated_bytes.current, 1000);
  devplug_tensor_release(view);  // the last reference frees the buffer
  now = stats_of(device_);
  EXPECT_EQ(now.allocated_bytes.current, before.allocated_bytes.current);
  EXPECT_EQ(now.reserved_bytes.current, before.reserved_bytes.current);
  EXPECT_EQ(now.allocated_bytes.peak - before.allocated_bytes.current, 1000);
  EXPECT_EQ(now.allocated_bytes.freed - before.allocated_bytes.freed, 1000);
  EXPECT_EQ(now.plugin_releases - before.plugin_releases, 1);
}

TEST_F(ApiMemory, ResetsPeaksAndTotals) {
  devplug_tensor_release(bytes_on(device_, 4096));
  devplug_tensor_t* kept = bytes_on(device_, 100);
  devplug_memory_stats_t now = stats_of(device_);
  EXPECT_GE(now.allocated_bytes.peak, now.allocated_bytes.current + 4096 - 100);
  ASSERT_TRUE(Ok(devplug_device_reset_memory_stats(device_, DEVPLUG_MEMORY_RESET_PEAKS)));
  now = stats_of(device_);
  EXPECT_EQ(now.allocated_bytes.peak, now.allocated_bytes.current);
  EXPECT_EQ(now.reserved_bytes.peak, now.reserved_bytes.current);
  EXPECT_GT(now.allocated_bytes.allocated, 0);
  ASSERT_TRUE(Ok(devplug_device_reset_memory_stats(device_, DEVPLUG_MEMORY_RESET_TOTALS)));
  now = stats_of(device_);
  EXPECT_EQ(now.allocated_bytes.allocated, 0);
  EXPECT_EQ(now.allocated_bytes.freed, 0);
  EXPECT_EQ(now.plugin_allocations, 0);
  EXPECT_GE(now.allocated_bytes.current, 100);  // current values are never reset
  devplug_tensor_release(kept);
}

TEST_F(ApiMemory, ErrorsHaveTheirDocumentedCodes) {
  devplug_memory_stats_t stats{};
  stats.struct_size = sizeof(stats);
  EXPECT_TRUE(Invalid(devplug_device_memory_stats(nullptr, &stats), "device"));
  EXPECT_TRUE(Invalid(devplug_device_memory_stats(device_, nullptr), "out_stats"));
  stats.struct_size = sizeof(stats) - 1;
  EXPECT_TRUE(Invalid(devplug_device_memory_stats(device_, &stats), "struct_size"));
  EXPECT_TRUE(Invalid(devplug_device_reset_memory_stats(nullptr, DEVPLUG_MEMORY_RESET_PEAKS), "device"));
  EXPECT_TRUE(Invalid(devplug_device_reset_memory_stats(device_, 4u), "unknown bits"));
  EXPECT_TRUE(Invalid(devplug_device_empty_cache(nullptr), "device"));
}

// The reference plugin offers no pinned_host_memory extension: the dispatcher's own
// page-locked memory serves, and copies with it are ordinary host copies.
TEST_F(ApiMemory, PinnedHostMemoryWithoutThePluginsExtension) {
  void* ptr = nullptr;
  ASSERT_TRUE(Ok(devplug_host_allocate(device_, 4000, &ptr)));
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
  float* values = static_cast<float*>(ptr);
  for (int i = 0; i < 1000; ++i) values[i] = static_cast<float>(i) * 0.5f;
  devplug_device_t* owner = nullptr;
  bool async = true;
  ASSERT_TRUE(Ok(devplug_host_query(values + 999, &owner, &async)));
  EXPECT_EQ(owner, device_);
  EXPECT_FALSE(async);
  ASSERT_TRUE(Ok(devplug_host_query(values + 1000, &owner, nullptr)));  // one past the end
  EXPECT_EQ(owner, nullptr);
  int on_stack = 0;
  ASSERT_TRUE(Ok(devplug_host_query(&on_stack, &owner, &async)));
  EXPECT_EQ(owner, nullptr);
  EXPECT_FALSE(async);

  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {1000});
  ASSERT_TRUE(Ok(devplug_tensor_copy_from_host(stream_, t, ptr, 4000, 0)));
  void* back = nullptr;
  ASSERT_TRUE(Ok(devplug_host_allocate(device_, 4000, &back)));
  bool waited = false;
  ASSERT_TRUE(Ok(devplug_tensor_copy_to_host_async(stream_, t, back, 4000, &waited)));
  EXPECT_FALSE(waited);  // a contiguous tensor: enqueued (the reference runs it at once)
  ASSERT_TRUE(Ok(devplug_stream_synchronize(stream_)));
  EXPECT_EQ(std::memcmp(ptr, back, 4000), 0);
  // A view with a stride: still one devplug call (copy_strided gathers it on the device).
  devplug_tensor_t* every_other = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(t, 0, 0, 1000, 2, &every_other)));
  ASSERT_TRUE(Ok(devplug_tensor_copy_to_host_async(stream_, every_other, back, 2000, &waited)));
  ASSERT_TRUE(Ok(devplug_stream_synchronize(stream_)));
  EXPECT_EQ(static_cast<float*>(back)[3], 3.0f);
  devplug_tensor_release(every_other);
  devplug_tensor_release(t);

  EXPECT_TRUE(Ok(devplug_host_free(back)));
  EXPECT_TRUE(Ok(devplug_host_free(ptr)));
  EXPECT_TRUE(Ok(devplug_host_free(nullptr)));
  EXPECT_TRUE(Invalid(devplug_host_free(ptr), "ptr"));  // freed already
  EXPECT_TRUE(Invalid(devplug_host_free(&on_stack), "ptr"));
}

TEST_F(ApiMemory, PinnedHostMemoryErrors) {
  void* ptr = reinterpret_cast<void*>(0x1);
  EXPECT_TRUE(Invalid(devplug_host_allocate(device_, 16, nullptr), "out_ptr"));
  EXPECT_TRUE(Invalid(devplug_host_allocate(nullptr, 16, &ptr), "device"));
  EXPECT_EQ(ptr, nullptr);
  EXPECT_TRUE(Invalid(devplug_host_allocate(device_, 0, &ptr), "size_bytes"));
  EXPECT_TRUE(Fails(devplug_host_allocate(device_, uint64_t{1} << 63, &ptr), DEVPLUG_CODE_RESOURCE_EXHAUSTED,
                    "address space"));
  EXPECT_TRUE(Invalid(devplug_host_query(&ptr, nullptr, nullptr), "out_device"));
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {4});
  float out[4];
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host_async(stream_, nullptr, out, 16, nullptr), "src"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host_async(stream_, t, out, 12, nullptr), "size_bytes"));
  EXPECT_TRUE(Invalid(devplug_tensor_copy_to_host_async(stream_, t, nullptr, 16, nullptr), "dst"));
  devplug_tensor_release(t);
}

// The context frees pinned memory still allocated when it is destroyed (ASan would report a
// leak otherwise), and forgets its addresses.
TEST(ApiMemoryContext, DestroyingTheContextFreesItsPinnedMemory) {
  devplug_context_t* context = nullptr;
  devplug_device_t* device = nullptr;
  ASSERT_TRUE(OpenPlugin(DEVPLUG_REFERENCE_PLUGIN_PATH, &context, &device));
  void* ptr = nullptr;
  ASSERT_TRUE(Ok(devplug_host_allocate(device, 1 << 20, &ptr)));
  devplug_context_destroy(context);
  devplug_device_t* owner = device;
  ASSERT_TRUE(Ok(devplug_host_query(ptr, &owner, nullptr)));
  EXPECT_EQ(owner, nullptr);
}

TEST_F(ApiMemory, HostAddressOfAReferenceTensor) {
  devplug_tensor_t* t = floats({2, 3}, {0, 1, 2, 3, 4, 5});
  void* address = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_host_address(t, &address)));
  ASSERT_NE(address, nullptr);
  EXPECT_EQ(static_cast<float*>(address)[4], 4.0f);
  static_cast<float*>(address)[5] = 50.0f;  // writes through it are the tensor's
  devplug_tensor_t* row = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(t, 0, 1, 2, 1, &row)));
  void* row_address = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_host_address(row, &row_address)));
  EXPECT_EQ(row_address, static_cast<float*>(address) + 3);
  float last = 0;
  devplug_tensor_t* item = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(t, 1, 2, 3, 1, &item)));
  devplug_tensor_t* scalar = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(item, 0, 1, 2, 1, &scalar)));
  ASSERT_TRUE(Ok(devplug_tensor_copy_to_host(stream_, scalar, &last, 4)));
  EXPECT_EQ(last, 50.0f);
  EXPECT_TRUE(Invalid(devplug_tensor_host_address(t, nullptr), "out_address"));
  EXPECT_TRUE(Invalid(devplug_tensor_host_address(nullptr, &address), "tensor"));
  for (devplug_tensor_t* x : {scalar, item, row, t}) devplug_tensor_release(x);
}

// Host memory lent to the reference device is its memory: an op's result is in it, writes to
// it are the tensor's, and the lender hears once, when the last view has gone.
TEST_F(ApiMemory, ATensorOverHostMemoryWorksInThatMemory) {
  alignas(64) float host[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int released = 0;
  auto count = [](void* n) { ++*static_cast<int*>(n); };
  const devplug_memory_stats_t before = stats_of(device_);
  devplug_tensor_t* bytes = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_from_host_memory(device_, host, sizeof host, count, &released, &bytes)));
  uint64_t storage_bytes = 0;
  ASSERT_TRUE(Ok(devplug_tensor_storage_bytes(bytes, &storage_bytes)));
  EXPECT_EQ(storage_bytes, sizeof host);
  const int64_t shape[1] = {8}, strides[1] = {1};
  devplug_tensor_t* x = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_as_strided_dtype(bytes, DEVPLUG_DTYPE_FLOAT32, 1, shape, strides, 0, &x)));
  devplug_tensor_release(bytes);
  EXPECT_EQ(released, 0);  // x still holds the storage
  void* address = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_host_address(x, &address)));
  EXPECT_EQ(address, static_cast<void*>(host));
  devplug_tensor_t* ins[2] = {x, x};
  devplug_tensor_t* outs[1] = {x};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr)));
  ASSERT_TRUE(Ok(devplug_stream_synchronize(stream_)));
  EXPECT_EQ(host[3], 6.0f);
  host[7] = -1.0f;
  float back[8] = {};
  ASSERT_TRUE(Ok(devplug_tensor_copy_to_host(stream_, x, back, sizeof back)));
  EXPECT_EQ(back[7], -1.0f);
  EXPECT_EQ(back[1], 2.0f);
  // Not the caching allocator's memory.
  EXPECT_EQ(stats_of(device_).allocated_bytes.current, before.allocated_bytes.current);
  devplug_tensor_release(x);
  EXPECT_EQ(released, 1);
  // Without a release function the lender keeps track itself.
  ASSERT_TRUE(Ok(devplug_tensor_from_host_memory(device_, host, 4, nullptr, nullptr, &bytes)));
  devplug_tensor_release(bytes);
}

TEST_F(ApiMemory, TensorFromHostMemoryErrors) {
  alignas(64) unsigned char host[128] = {};
  int released = 0;
  auto count = [](void* n) { ++*static_cast<int*>(n); };
  devplug_tensor_t* t = reinterpret_cast<devplug_tensor_t*>(0x1);
  EXPECT_TRUE(
      Invalid(devplug_tensor_from_host_memory(device_, host, 8, count, &released, nullptr), "out_tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_from_host_memory(nullptr, host, 8, count, &released, &t), "device"));
  EXPECT_EQ(t, nullptr);
  EXPECT_TRUE(Invalid(devplug_tensor_from_host_memory(device_, nullptr, 8, count, &released, &t), "host"));
  EXPECT_TRUE(Invalid(devplug_tensor_from_host_memory(device_, host, 0, count, &released, &t), "size_bytes"));
  EXPECT_TRUE(
      Invalid(devplug_tensor_from_host_memory(device_, host + 1, 8, count, &released, &t), "aligned to 64"));
  EXPECT_TRUE(Invalid(devplug_tensor_from_host_memory(device_, host, uint64_t{1} << 63, count, &released, &t),
                      "more than a tensor"));
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(released, 0);  // not called on error
}

TEST(ApiMemoryCpp, TheWrapperReadsResetsAndEmpties) {
  Context context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  context.load(DEVPLUG_REFERENCE_PLUGIN_PATH);
  const Device device = context.devices().at(0);
  const int64_t before = device.memory_stats().allocated_bytes.current;
  {
    const Tensor t = Tensor::empty(device, DEVPLUG_DTYPE_FLOAT32, {10, 10});
    EXPECT_EQ(device.memory_stats().allocated_bytes.current - before, 400);
  }
  EXPECT_EQ(device.memory_stats().allocated_bytes.current, before);
  device.reset_memory_stats(DEVPLUG_MEMORY_RESET_PEAKS | DEVPLUG_MEMORY_RESET_TOTALS);
  EXPECT_EQ(device.memory_stats().allocated_bytes.peak, before);
  device.empty_cache();
  EXPECT_THROW(device.reset_memory_stats(8u), Error);
}

#ifdef DEVPLUG_FIXTURE_PLUGIN_PATH

// The fixture plugin opts in to the caching allocator.
struct CachingContext : ::testing::Test {
  void SetUp() override { ASSERT_TRUE(OpenPlugin(DEVPLUG_FIXTURE_PLUGIN_PATH, &context, &device)); }
  void TearDown() override { devplug_context_destroy(context); }
  devplug_context_t* context = nullptr;
  devplug_device_t* device = nullptr;
};

TEST_F(CachingContext, SizeClassesCachingAndEmptyCache) {
  const devplug_memory_stats_t before = stats_of(device);
  devplug_tensor_t* t = bytes_on(device, 1000);  // size class 1024
  devplug_memory_stats_t now = stats_of(device);
  EXPECT_EQ(now.allocated_bytes.current - before.allocated_bytes.current, 1024);
  EXPECT_EQ(now.requested_bytes.current - before.requested_bytes.current, 1000);
  EXPECT_EQ(now.reserved_bytes.current - before.reserved_bytes.current, 1024);
  devplug_tensor_release(t);
  now = stats_of(device);
  EXPECT_EQ(now.allocated_bytes.current, before.allocated_bytes.current);
  EXPECT_EQ(now.reserved_bytes.current - before.reserved_bytes.current, 1024);  // cached
  EXPECT_EQ(now.plugin_releases, before.plugin_releases);
  // The next request of that class reuses the cached buffer: no plugin call.
  t = bytes_on(device, 600);
  now = stats_of(device);
  EXPECT_EQ(now.plugin_allocations - before.plugin_allocations, 1);
  EXPECT_EQ(now.allocated_bytes.current - before.allocated_bytes.current, 1024);
  EXPECT_EQ(now.requested_bytes.current - before.requested_bytes.current, 600);
  EXPECT_EQ(now.allocations.allocated - before.allocations.allocated, 2);
  // 3 MiB rounds to 4 MiB.
  devplug_tensor_t* big = bytes_on(device, 3 << 20);
  EXPECT_EQ(stats_of(device).allocated_bytes.current - before.allocated_bytes.current, 1024 + (4 << 20));
  devplug_tensor_release(big);
  devplug_tensor_release(t);
  now = stats_of(device);
  EXPECT_EQ(now.reserved_bytes.current - before.reserved_bytes.current, 1024 + (4 << 20));
  EXPECT_EQ(now.segments.current - before.segments.current, 2);
  ASSERT_TRUE(Ok(devplug_device_empty_cache(device)));
  now = stats_of(device);
  EXPECT_EQ(now.reserved_bytes.current, before.reserved_bytes.current);
  EXPECT_EQ(now.segments.current, before.segments.current);
  EXPECT_EQ(now.plugin_releases - before.plugin_releases, 2);
  EXPECT_EQ(now.reserved_bytes.peak - before.reserved_bytes.current, 1024 + (4 << 20));
}

TEST_F(CachingContext, HostAddressIsUnimplementedWithoutTheExtension) {
  devplug_tensor_t* t = bytes_on(device, 16);
  void* address = reinterpret_cast<void*>(0x1);
  EXPECT_TRUE(Fails(devplug_tensor_host_address(t, &address), DEVPLUG_CODE_UNIMPLEMENTED, "host_address"));
  EXPECT_EQ(address, nullptr);
  devplug_tensor_release(t);
}

TEST_F(CachingContext, TensorFromHostMemoryIsUnimplementedWithoutTheExtension) {
  alignas(64) unsigned char host[64] = {};
  devplug_tensor_t* t = nullptr;
  EXPECT_TRUE(Fails(devplug_tensor_from_host_memory(device, host, 64, nullptr, nullptr, &t),
                    DEVPLUG_CODE_UNIMPLEMENTED, "host_memory_import"));
  EXPECT_EQ(t, nullptr);
}

#endif  // DEVPLUG_FIXTURE_PLUGIN_PATH

}  // namespace
}  // namespace devplug::test
