// SPDX-License-Identifier: Apache-2.0
// Checks of the host-memory extensions (pinned_host_memory, host_address) on a plugin's device
// 0, shared by the OpenCL and Level Zero plugin tests: what the ABI promises (plugin_api.def),
// through the plugin's table, with exact codes. Built on the plain host of opencl_harness.hpp.
#pragma once

#include <atomic>
#include <thread>

#include "opencl_harness.hpp"

namespace devplug::opencl_test {

// The plugin's pinned_host_memory extension, or null when it offers none.
inline const devplug_ext_pinned_host_memory_t* pinned_host_memory(const devplug_plugin_api_t* api) {
  return reinterpret_cast<const devplug_ext_pinned_host_memory_t*>(
      devplug_extension_find(api, DEVPLUG_EXTENSION_PINNED_HOST_MEMORY));
}

// The plugin's host_address extension, or null when it offers none.
inline const devplug_ext_host_address_t* host_address(const devplug_plugin_api_t* api) {
  return reinterpret_cast<const devplug_ext_host_address_t*>(
      devplug_extension_find(api, DEVPLUG_EXTENSION_HOST_ADDRESS));
}

// `n` bytes of a pattern that differs from `seed` to `seed`.
inline std::vector<unsigned char> pattern_bytes(size_t n, unsigned seed) {
  std::vector<unsigned char> bytes(n);
  for (size_t i = 0; i < n; ++i)
    bytes[i] = static_cast<unsigned char>((i * 131 + seed * 7 + (i >> 9)) & 0xff);
  return bytes;
}

// The plugin's fill kernel for int32.
inline const devplug_kernel_t* int32_fill_kernel(const devplug_plugin_api_t* api) {
  for (size_t i = 0; i < api->kernel_count; ++i)
    if (api->kernels[i]->op == DEVPLUG_OP_fill &&
        (api->kernels[i]->dtypes & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32)))
      return api->kernels[i];
  return nullptr;
}

// Checks pinned_host_memory on `s`'s device: blocks of several sizes are 64-byte aligned and
// ordinary memory to the host; bytes written into one block, copied to a buffer and back
// into another block (whole, and from and to addresses inside the blocks) come back equal;
// a block released while copies from and to it are still enqueued stays valid for them;
// a pointer host_allocate did not give (foreign, inside a block, released already) is
// INVALID_ARGUMENT; threads allocate and release at once.
inline void check_pinned_host_memory(Session& s) {
  const devplug_plugin_api_t* api = s.api();
  const devplug_ext_pinned_host_memory_t* ext = pinned_host_memory(api);
  ASSERT_NE(ext, nullptr) << "the plugin offers no pinned_host_memory extension";
  ASSERT_GE(ext->base.struct_size, sizeof(devplug_ext_pinned_host_memory_t));
  ASSERT_NE(ext->host_allocate, nullptr);
  ASSERT_NE(ext->host_release, nullptr);
  devplug_device_handle_t* device = s.device();
  const auto allocate = [&](uint64_t size) {
    void* p = reinterpret_cast<void*>(uintptr_t{1});
    const ErrorText e = take(api, ext->host_allocate(device, size, &p));
    EXPECT_EQ(e.code, DEVPLUG_CODE_OK) << "host_allocate(" << size << "): " << e.message;
    return static_cast<unsigned char*>(p);
  };

  // Alignment, and ordinary memory: every byte written and read by the host.
  for (uint64_t size : {uint64_t{1}, uint64_t{3}, uint64_t{100}, uint64_t{4097}, uint64_t{1} << 20}) {
    unsigned char* p = allocate(size);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << size << " bytes at " << static_cast<void*>(p);
    const std::vector<unsigned char> bytes = pattern_bytes(size, static_cast<unsigned>(size));
    std::memcpy(p, bytes.data(), size);
    EXPECT_EQ(std::memcmp(p, bytes.data(), size), 0);
    DEVPLUG_EXPECT_OK(api, ext->host_release(device, p));
  }

  // Pinned block -> buffer -> another pinned block, all copies enqueued before one synchronize.
  constexpr uint64_t n = (uint64_t{1} << 20) + 13;
  unsigned char* a = allocate(n);
  unsigned char* b = allocate(n);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const std::vector<unsigned char> bytes = pattern_bytes(n, 1);
  std::memcpy(a, bytes.data(), n);
  std::memset(b, 0, n);
  devplug_buffer_handle_t* buffer = s.upload(std::vector<unsigned char>(n));
  ASSERT_NE(buffer, nullptr);
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_from_host(s.stream(), a, buffer, 0, n));
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_to_host(s.stream(), buffer, 0, b, n));
  DEVPLUG_EXPECT_OK(api, api->stream_synchronize(s.stream()));
  EXPECT_EQ(std::memcmp(b, bytes.data(), n), 0) << "the bytes copied through the device differ";
  // From and to addresses inside the blocks: a[7..], into the buffer at 5, back to b[64..].
  constexpr uint64_t part = 4099;
  std::memset(b, 0, n);
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_from_host(s.stream(), a + 7, buffer, 5, part));
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_to_host(s.stream(), buffer, 5, b + 64, part));
  DEVPLUG_EXPECT_OK(api, api->stream_synchronize(s.stream()));
  EXPECT_EQ(std::memcmp(b + 64, bytes.data() + 7, part), 0);
  EXPECT_EQ(b[63], 0);
  EXPECT_EQ(b[64 + part], 0);
  // The host goes on writing a block once the stream has passed the copies from it.
  std::memset(a, 0x5a, n);
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_from_host(s.stream(), a, buffer, 0, n));
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_to_host(s.stream(), buffer, 0, b, n));
  DEVPLUG_EXPECT_OK(api, api->stream_synchronize(s.stream()));
  EXPECT_EQ(b[0], 0x5a);
  EXPECT_EQ(b[n - 1], 0x5a);

  // Released while copies from it and into it are enqueued: they still see valid memory.
  constexpr uint64_t big = uint64_t{16} << 20;
  unsigned char* from = allocate(big);
  unsigned char* into = allocate(big);
  ASSERT_NE(from, nullptr);
  ASSERT_NE(into, nullptr);
  const std::vector<unsigned char> big_bytes = pattern_bytes(big, 2);
  std::memcpy(from, big_bytes.data(), big);
  devplug_buffer_handle_t* big_buffer = nullptr;
  DEVPLUG_EXPECT_OK(api, api->buffer_allocate(device, big, &big_buffer));
  ASSERT_NE(big_buffer, nullptr);
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_from_host(s.stream(), from, big_buffer, 0, big));
  DEVPLUG_EXPECT_OK(api, ext->host_release(device, from));
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_to_host(s.stream(), big_buffer, 0, into, big));
  DEVPLUG_EXPECT_OK(api, ext->host_release(device, into));
  std::vector<unsigned char> back(big);
  DEVPLUG_EXPECT_OK(api, api->buffer_copy_to_host(s.stream(), big_buffer, 0, back.data(), big));
  DEVPLUG_EXPECT_OK(api, api->stream_synchronize(s.stream()));
  EXPECT_TRUE(back == big_bytes) << "a copy from a block released while it was enqueued read other bytes";
  DEVPLUG_EXPECT_OK(api, api->buffer_release(big_buffer));

  // Pointers host_allocate did not give.
  int on_stack = 0;
  std::vector<unsigned char> on_heap(256);
  EXPECT_EQ(take(api, ext->host_release(device, &on_stack)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, ext->host_release(device, on_heap.data())).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(take(api, ext->host_release(device, a + 64)).code, DEVPLUG_CODE_INVALID_ARGUMENT)
      << "a pointer inside a block is not one host_allocate gave";
  DEVPLUG_EXPECT_OK(api, ext->host_release(device, a));
  EXPECT_EQ(take(api, ext->host_release(device, a)).code, DEVPLUG_CODE_INVALID_ARGUMENT) << "released twice";
  DEVPLUG_EXPECT_OK(api, ext->host_release(device, b));
  void* out = reinterpret_cast<void*>(uintptr_t{1});
  EXPECT_EQ(take(api, ext->host_allocate(device, 0, &out)).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr) << "the out-parameter is cleared on failure";

  // Thread-safe: four threads allocate, write, copy in and release at once, each on its own
  // stream.
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      devplug_stream_handle_t* stream = nullptr;
      devplug_buffer_handle_t* own = nullptr;
      if (take(api, api->stream_create(device, &stream)).code != DEVPLUG_CODE_OK ||
          take(api, api->buffer_allocate(device, 4096, &own)).code != DEVPLUG_CODE_OK) {
        ++failures;
        return;
      }
      for (int round = 0; round < 25; ++round) {
        void* p = nullptr;
        if (take(api, ext->host_allocate(device, 4096, &p)).code != DEVPLUG_CODE_OK || p == nullptr) {
          ++failures;
          continue;
        }
        std::memset(p, static_cast<int>(t * 25 + static_cast<unsigned>(round)), 4096);
        if (take(api, api->buffer_copy_from_host(stream, p, own, 0, 4096)).code != DEVPLUG_CODE_OK)
          ++failures;
        if (take(api, ext->host_release(device, p)).code != DEVPLUG_CODE_OK) ++failures;
      }
      unsigned char last = 0;
      if (take(api, api->buffer_copy_to_host(stream, own, 4095, &last, 1)).code != DEVPLUG_CODE_OK ||
          take(api, api->stream_synchronize(stream)).code != DEVPLUG_CODE_OK || last != t * 25 + 24)
        ++failures;
      take(api, api->buffer_release(own));
      take(api, api->stream_destroy(stream));
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

// Checks host_address on `s`'s device. A device with DEVPLUG_DEVICE_UNIFIED_MEMORY gives each
// buffer's address: it reads what was copied in and what a kernel wrote, and the host's writes
// through it are what buffer_copy_to_host reads. Any other device answers FAILED_PRECONDITION
// and clears the out-parameter.
inline void check_host_address(Session& s) {
  const devplug_plugin_api_t* api = s.api();
  const devplug_ext_host_address_t* ext = host_address(api);
  ASSERT_NE(ext, nullptr) << "the plugin offers no host_address extension";
  ASSERT_GE(ext->base.struct_size, sizeof(devplug_ext_host_address_t));
  ASSERT_NE(ext->buffer_host_address, nullptr);
  devplug_device_properties_t p{};
  p.struct_size = sizeof p;
  DEVPLUG_EXPECT_OK(api, api->device_get_properties(0, &p));
  constexpr size_t n = 4096 + 24;
  const std::vector<unsigned char> bytes = pattern_bytes(n, 3);
  devplug_buffer_handle_t* buffer = s.upload(bytes);
  ASSERT_NE(buffer, nullptr);
  void* address = reinterpret_cast<void*>(uintptr_t{1});
  const ErrorText e = take(api, ext->buffer_host_address(buffer, &address));
  if ((p.capabilities & DEVPLUG_DEVICE_UNIFIED_MEMORY) == 0) {
    EXPECT_EQ(e.code, DEVPLUG_CODE_FAILED_PRECONDITION) << e.message;
    EXPECT_EQ(address, nullptr) << "the out-parameter is cleared on failure";
    return;
  }
  ASSERT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
  ASSERT_NE(address, nullptr);
  auto* host = static_cast<unsigned char*>(address);
  EXPECT_EQ(std::memcmp(host, bytes.data(), n), 0) << "the address does not hold what was copied in";
  void* again = nullptr;
  DEVPLUG_EXPECT_OK(api, ext->buffer_host_address(buffer, &again));
  EXPECT_EQ(again, address) << "a buffer has one address while it lives";

  // The host writes through it; the device's copy reads the writes.
  for (size_t i = 0; i < n; i += 7) host[i] = static_cast<unsigned char>(~bytes[i]);
  std::vector<unsigned char> expected = bytes;
  for (size_t i = 0; i < n; i += 7) expected[i] = static_cast<unsigned char>(~bytes[i]);
  EXPECT_TRUE(s.download(buffer, n) == expected) << "buffer_copy_to_host missed writes through the address";

  // A kernel writes; the host reads the result through the address once the stream passed it.
  const devplug_kernel_t* fill = int32_fill_kernel(api);
  ASSERT_NE(fill, nullptr);
  const devplug_tensor_desc_t t = tensor(buffer, DEVPLUG_DTYPE_INT32, {static_cast<int64_t>(n / 4)});
  const devplug_tensor_desc_t* outs[1] = {&t};
  const devplug_fill_attrs_t attrs{sizeof attrs, {-9.0, -9}};
  const devplug_op_call_t call{sizeof call, DEVPLUG_OP_fill, nullptr, 0, outs, 1, &attrs};
  DEVPLUG_EXPECT_OK(api, fill->fn(s.stream(), &call));
  DEVPLUG_EXPECT_OK(api, api->stream_synchronize(s.stream()));
  int32_t first = 0;
  int32_t last = 0;
  std::memcpy(&first, host, 4);
  std::memcpy(&last, host + n - 4, 4);
  EXPECT_EQ(first, -9);
  EXPECT_EQ(last, -9);
}

}  // namespace devplug::opencl_test
