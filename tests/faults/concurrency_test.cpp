// SPDX-License-Identifier: Apache-2.0
// Threads under load (docs/reliability.md, "Threads"): 8 threads share one device and a few
// read-only tensors; each runs 10,000 mixed ops on streams of its own (fill, add, mul,
// index_select on one stream; an event; sum and neg on a second stream that waits for it;
// copies to the host), and checks every result. Run once per plugin that runs here
// (DEVPLUG_TEST_PLUGIN), and under ThreadSanitizer in the sanitizer build (label
// `threads`). DEVPLUG_TEST_OPS_PER_THREAD changes the count (for a quick local run).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "test_plugin.hpp"

namespace {

using devplug::Device;
using devplug::Error;
using devplug::Event;
using devplug::Stream;
using devplug::Tensor;

constexpr int kThreads = 8;
constexpr int64_t kLength = 32;

int64_t ops_per_thread() {
  const char* text = std::getenv("DEVPLUG_TEST_OPS_PER_THREAD");
  return text != nullptr && std::atoll(text) > 0 ? std::atoll(text) : 10000;
}

// Tensors every thread reads and none writes.
struct Shared {
  std::vector<float> a, b, m;
  std::vector<int64_t> rows;
  Tensor ta, tb, tm, trows;
  explicit Shared(const Device& device)
      : a(values(kLength, 5)),
        b(values(kLength, 3)),
        m(values(4 * kLength, 11)),
        rows{3, 0, 2, 2, 1},
        ta(Tensor::from_host(device, a, {kLength})),
        tb(Tensor::from_host(device, b, {kLength})),
        tm(Tensor::from_host(device, m, {4, kLength})),
        trows(Tensor::from_host(device, rows, {5})) {}
  static std::vector<float> values(int64_t n, int modulus) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i % modulus);
    return v;
  }
};

// One thread's run; returns "" or the first problem.
std::string run_thread(const Device& device, const Shared& shared, int t, int64_t ops) {
  try {
    const Stream first(device), second(device);
    const Event produced(device);
    const Tensor filled = Tensor::empty(device, DEVPLUG_DTYPE_FLOAT32, {kLength});
    const Tensor x = Tensor::empty(device, DEVPLUG_DTYPE_FLOAT32, {kLength});
    const Tensor y = Tensor::empty(device, DEVPLUG_DTYPE_FLOAT32, {kLength});
    const Tensor picked = Tensor::empty(device, DEVPLUG_DTYPE_FLOAT32, {5, kLength});
    const Tensor total = Tensor::empty(device, DEVPLUG_DTYPE_FLOAT32, {1});
    const Tensor negated = Tensor::empty(device, DEVPLUG_DTYPE_FLOAT32, {5, kLength});
    const devplug_reduce_attrs_t all{sizeof(devplug_reduce_attrs_t), 1u, 0.0};
    const devplug_dim_attrs_t dim0{sizeof(devplug_dim_attrs_t), 0};
    for (int64_t i = 0, done = 0; done < ops; ++i) {
      const float k = static_cast<float>(t * 1000 + i % 1000);
      const devplug_fill_attrs_t fill{sizeof(devplug_fill_attrs_t), {k, static_cast<int64_t>(k)}};
      devplug::call(DEVPLUG_OP_fill, {}, {filled}, &fill, &first);                                 // 1
      devplug::call(DEVPLUG_OP_add, {shared.ta, filled}, {x}, nullptr, &first);                    // 2
      devplug::call(DEVPLUG_OP_mul, {x, shared.tb}, {y}, nullptr, &first);                         // 3
      devplug::call(DEVPLUG_OP_index_select, {shared.tm, shared.trows}, {picked}, &dim0, &first);  // 4
      produced.record(first);                                                                      // 5
      second.wait(produced);                                                                       // 6
      devplug::call(DEVPLUG_OP_sum, {y}, {total}, &all, &second);                                  // 7
      devplug::call(DEVPLUG_OP_neg, {picked}, {negated}, nullptr, &second);                        // 8
      float got = 0;
      total.copy_to_host(&got, sizeof got, &second);  // 9: waits for both streams
      done += 9;
      float want = 0;
      for (int64_t j = 0; j < kLength; ++j) want += (shared.a[j] + k) * shared.b[j];
      if (got != want)
        return "thread " + std::to_string(t) + " iteration " + std::to_string(i) + ": sum is " +
               std::to_string(got) + ", expected " + std::to_string(want);
      if (i % 16 == 0) {
        const std::vector<float> rows = negated.to_host<float>(&second);
        done += 1;
        for (size_t r = 0; r < shared.rows.size(); ++r)
          for (int64_t j = 0; j < kLength; ++j)
            if (rows[r * kLength + j] != -shared.m[static_cast<size_t>(shared.rows[r] * kLength + j)])
              return "thread " + std::to_string(t) + " iteration " + std::to_string(i) +
                     ": index_select/neg is wrong";
      }
      // Both streams have passed this iteration (the copy waited for `second`, which waited
      // for `first`), so the next iteration may overwrite the tensors.
    }
    first.synchronize();
  } catch (const Error& e) {
    return "thread " + std::to_string(t) + ": " + devplug_code_name(e.code()) + ": " + e.message();
  }
  return "";
}

TEST(Concurrency, EightThreadsOfMixedOpsOnTheirOwnStreams) {
  DEVPLUG_REQUIRE_TEST_DEVICE(plugin);
  const Device& device = *plugin.device;
  const Shared shared(device);
  const int64_t ops = ops_per_thread();
  std::vector<std::string> problems(kThreads);
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { problems[static_cast<size_t>(t)] = run_thread(device, shared, t, ops); });
  for (std::thread& thread : threads) thread.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const std::string& problem : problems) EXPECT_EQ(problem, "");
  std::printf("[ threads  ] %s: %d threads x %lld ops in %.2f s\n", plugin.name.c_str(), kThreads,
              static_cast<long long>(ops), seconds);
  // The shared inputs are untouched.
  EXPECT_EQ(shared.ta.to_host<float>(), shared.a);
  EXPECT_EQ(shared.tm.to_host<float>(), shared.m);
}

}  // namespace
