// SPDX-License-Identifier: Apache-2.0
// Tests of streams and events through the host C API: events recorded on one device's stream
// and waited on by another's, the default stream that cannot be destroyed, and concurrent op
// calls from several threads, each on its own stream.
#include <string>
#include <thread>
#include <vector>

#include "runtime_test_util.hpp"

namespace devplug::runtime_test {
namespace {

TEST_F(Runtime, StreamsAndEvents) {
  devplug_stream_t* s0 = nullptr;
  devplug_stream_t* s1 = nullptr;
  ASSERT_OK(devplug_stream_create(dev0_, &s0));
  ASSERT_OK(devplug_stream_create(dev1_, &s1));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_stream_get_device(s1, &device));
  EXPECT_EQ(device, dev1_);
  devplug_event_t* e = nullptr;
  ASSERT_OK(devplug_event_create(dev0_, &e));
  expect_error(devplug_event_record(e, s1), DEVPLUG_CODE_INVALID_ARGUMENT, "different devices");
  ASSERT_OK(devplug_event_record(e, s0));
  ASSERT_OK(devplug_stream_wait_event(s1, e));
  ASSERT_OK(devplug_event_synchronize(e));
  ASSERT_OK(devplug_stream_synchronize(s1));
  ASSERT_OK(devplug_device_synchronize(dev0_));
  devplug_stream_t* def = nullptr;
  ASSERT_OK(devplug_device_default_stream(dev0_, &def));
  expect_error(devplug_stream_destroy(def), DEVPLUG_CODE_INVALID_ARGUMENT, "default stream");
  ASSERT_OK(devplug_event_destroy(e));
  ASSERT_OK(devplug_stream_destroy(s0));
  EXPECT_OK(devplug_stream_destroy(nullptr));
  // s1 is left for the context to destroy.
}

TEST_F(Runtime, ConcurrentOpCallsOnTheirOwnStreams) {
  std::vector<std::thread> threads;
  std::vector<std::string> problems(4);
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      devplug_device_t* device = k % 2 ? dev1_ : dev0_;
      devplug_stream_t* stream = nullptr;
      problems[k] = take(devplug_stream_create(device, &stream));
      const int64_t shape[1] = {16};
      for (int i = 0; i < 200 && problems[k].empty(); ++i) {
        devplug_tensor_t* t = nullptr;
        problems[k] = take(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 1, shape, &t));
        std::vector<int32_t> v(16, i);
        if (problems[k].empty())
          problems[k] = take(devplug_tensor_copy_from_host(stream, t, v.data(), 64, 0));
        devplug_tensor_t* ins[2] = {t, t};
        if (problems[k].empty())
          problems[k] = take(devplug_op_call(stream, DEVPLUG_OP_add, ins, 2, &t, 1, nullptr));
        if (problems[k].empty()) problems[k] = take(devplug_tensor_copy_to_host(stream, t, v.data(), 64));
        if (problems[k].empty() && v[15] != 2 * i) problems[k] = "wrong value";
        devplug_tensor_release(t);
      }
      if (stream) devplug_stream_destroy(stream);
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& p : problems) EXPECT_EQ(p, "");
}

}  // namespace
}  // namespace devplug::runtime_test
