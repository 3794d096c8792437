// SPDX-License-Identifier: Apache-2.0
// Device memory exhaustion (docs/reliability.md, "Faults"): asking for more than the device
// has answers RESOURCE_EXHAUSTED whose message gives the request and the device's memory,
// and the context goes on working (DeviceMemory, once per plugin that runs here, through
// DEVPLUG_TEST_PLUGIN). The dispatcher's caching allocator, when the plugin runs out, gives
// its cache back and tries once more (CachingAllocator, on the dispatcher tests' fixture
// plugin that holds at most 1 MiB of live buffers and counts them).
#include <dlfcn.h>

#include <string>
#include <vector>

#include "test_plugin.hpp"

namespace {

using devplug::Context;
using devplug::Device;
using devplug::Error;
using devplug::Tensor;

// The error of `f()`; fails the test when there is none.
template <typename F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error";
  return Error(DEVPLUG_CODE_OK, "");
}

// A small add on `device`, checked: the context still works.
void expect_working(const Device& device) {
  const Tensor a = Tensor::from_host(device, std::vector<float>{1, 2, 3}, {3});
  const Tensor out = Tensor::empty(device, DEVPLUG_DTYPE_FLOAT32, {3});
  devplug::call(DEVPLUG_OP_add, {a, a}, {out});
  EXPECT_EQ(out.to_host<float>(), (std::vector<float>{2, 4, 6}));
}

TEST(DeviceMemory, MoreThanTheDeviceHasIsResourceExhaustedWithTheSizes) {
  DEVPLUG_REQUIRE_TEST_DEVICE(plugin);
  const Device& device = *plugin.device;
  const uint64_t memory = device.properties().memory_bytes;
  ASSERT_GT(memory, 0u) << plugin.name << " reports no memory size";
  for (const uint64_t asked : {memory + 4096, 2 * memory, uint64_t{1} << 62}) {
    const Error e =
        error_of([&] { Tensor::empty(device, DEVPLUG_DTYPE_INT8, {static_cast<int64_t>(asked)}); });
    EXPECT_EQ(e.code(), DEVPLUG_CODE_RESOURCE_EXHAUSTED) << e.message();
    EXPECT_NE(e.message().find(std::to_string(asked)), std::string::npos)
        << "the request is not named: " << e.message();
    EXPECT_NE(e.message().find(std::to_string(memory)), std::string::npos)
        << "the device's memory is not named: " << e.message();
  }
  expect_working(device);
}

#ifdef DEVPLUG_SMALL_MEMORY_FIXTURE
int64_t fixture_counter(const char* symbol) {
  void* handle = dlopen(DEVPLUG_SMALL_MEMORY_FIXTURE, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto fn = reinterpret_cast<int64_t (*)()>(dlsym(handle, symbol));
  const int64_t value = fn ? fn() : -1;
  dlclose(handle);
  return value;
}

TEST(CachingAllocator, GivesItsCacheBackAndRetriesOnceWhenTheDeviceIsFull) {
  Context context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  context.load(DEVPLUG_SMALL_MEMORY_FIXTURE);  // 1 MiB of device memory, opts in to caching
  const Device device = context.devices().at(0);
  // Three 300 KiB tensors, released: their buffers stay in the allocator's cache.
  for (int i = 0; i < 3; ++i) Tensor::empty(device, DEVPLUG_DTYPE_INT8, {300 << 10});
  EXPECT_EQ(fixture_counter("fixture_live_buffers"), 1);  // a size class is reused: one buffer
  std::vector<Tensor> held;
  for (int i = 0; i < 3; ++i) held.push_back(Tensor::empty(device, DEVPLUG_DTYPE_INT8, {300 << 10}));
  held.clear();  // three cached buffers, 900 KiB: a 600 KiB request no longer fits beside them
  EXPECT_EQ(fixture_counter("fixture_live_buffers"), 3);
  const int64_t refused = fixture_counter("fixture_refused_allocations");
  const Tensor big = Tensor::empty(device, DEVPLUG_DTYPE_INT8, {600 << 10});  // the cache goes, then it fits
  EXPECT_EQ(fixture_counter("fixture_live_buffers"), 1);
  EXPECT_EQ(fixture_counter("fixture_refused_allocations"), refused + 1);
  // Nothing left to give back: the one retry fails too, and the error names the sizes.
  const Error e = error_of([&] { Tensor::empty(device, DEVPLUG_DTYPE_INT8, {600 << 10}); });
  EXPECT_EQ(fixture_counter("fixture_refused_allocations"), refused + 3);
  EXPECT_EQ(e.code(), DEVPLUG_CODE_RESOURCE_EXHAUSTED) << e.message();
  EXPECT_NE(e.message().find(std::to_string(600 << 10)), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("1048576"), std::string::npos) << e.message();
  EXPECT_EQ(fixture_counter("fixture_live_buffers"), 1);
}
#endif

}  // namespace
