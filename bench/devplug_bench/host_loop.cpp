// SPDX-License-Identifier: Apache-2.0
#include "host_loop.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace devplug::bench {
namespace {

// One thread per core, kept for the whole run: a body runs on every thread (the caller is
// thread 0) over its share of [0, n), and run() returns when all are done.
class Pool {
 public:
  static Pool& get() {
    static Pool pool(host_loop_threads());
    return pool;
  }

  void run(int64_t n, const std::function<void(int64_t, int64_t)>& body) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = &body;
      n_ = n;
      pending_ = static_cast<int>(workers_.size());
      ++generation_;
    }
    start_.notify_all();
    body(0, share(0).second);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    body_ = nullptr;
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

 private:
  explicit Pool(unsigned threads) {
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { loop(i); });
  }

  // Thread i's range of [0, n_), in whole cache lines of float32 (16 elements).
  std::pair<int64_t, int64_t> share(unsigned i) const {
    const auto threads = static_cast<int64_t>(workers_.size() + 1);
    const int64_t per = (n_ / threads + 15) / 16 * 16;
    const int64_t begin = std::min(n_, per * static_cast<int64_t>(i));
    const int64_t end = i + 1 == threads ? n_ : std::min(n_, begin + per);
    return {begin, end};
  }

  void loop(unsigned i) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int64_t, int64_t)>* body;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        body = body_;
      }
      const auto [begin, end] = share(i);
      if (begin < end) (*body)(begin, end);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int64_t, int64_t)>* body_ = nullptr;
  int64_t n_ = 0;
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

inline float from_bf16(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round to nearest even, NaN kept quiet: the conversion the devices' kernels do. Without
// branches, so that the loops vectorize.
inline uint16_t to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const uint32_t rounded = (bits + 0x7fffU + ((bits >> 16) & 1U)) >> 16;
  const uint32_t quiet = (bits >> 16) | 0x40U;
  return static_cast<uint16_t>((bits & 0x7fffffffU) > 0x7f800000U ? quiet : rounded);
}

// Host arrays, first touched by the threads that use them.
template <typename T>
std::shared_ptr<T[]> host_array(int64_t n, T value) {
  std::shared_ptr<T[]> a(new T[static_cast<size_t>(n)]);
  Pool::get().run(n, [&](int64_t begin, int64_t end) { std::fill(a.get() + begin, a.get() + end, value); });
  return a;
}

// The loops themselves, built for AVX2 where the CPU has it and for x86-64's baseline
// otherwise (GCC's target_clones picks one when the program loads).
#define DEVPLUG_HOST_LOOP __attribute__((target_clones("avx2", "default")))

DEVPLUG_HOST_LOOP void add_f32(const float* __restrict x, const float* __restrict y, float* __restrict z,
                               int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
}

DEVPLUG_HOST_LOOP void add_bf16(const uint16_t* __restrict x, const uint16_t* __restrict y,
                                uint16_t* __restrict z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = to_bf16(from_bf16(x[i]) + from_bf16(y[i]));
}

// 16 independent accumulators, so the loop is bound by memory, not by the adds' latency.
DEVPLUG_HOST_LOOP float sum_f32(const float* __restrict a, int64_t n) {
  float acc[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < 16; ++k) acc[k] += a[i + k];
  for (; i < n; ++i) acc[0] += a[i];
  float total = 0;
  for (float x : acc) total += x;
  return total;
}

DEVPLUG_HOST_LOOP float sum_bf16(const uint16_t* __restrict a, int64_t n) {
  float acc[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < 16; ++k) acc[k] += from_bf16(a[i + k]);
  for (; i < n; ++i) acc[0] += from_bf16(a[i]);
  float total = 0;
  for (float x : acc) total += x;
  return total;
}

void add_range(const float* x, const float* y, float* z, int64_t n) { add_f32(x, y, z, n); }
void add_range(const uint16_t* x, const uint16_t* y, uint16_t* z, int64_t n) { add_bf16(x, y, z, n); }
float sum_range(const float* a, int64_t n) { return sum_f32(a, n); }
float sum_range(const uint16_t* a, int64_t n) { return sum_bf16(a, n); }

template <typename T>
std::vector<Workload> loops(const char* dtype, int64_t n, T one, T two) {
  auto a = host_array<T>(n, one), b = host_array<T>(n, two), c = host_array<T>(n, one);
  auto sink = std::make_shared<std::vector<float>>(host_loop_threads() + 1);
  const double bytes = static_cast<double>(n) * sizeof(T);
  Workload copy{"host copy", dtype, n, Measure::kBandwidth, 2.0 * bytes, {}, {}};
  copy.run = [a, c, n] {
    Pool::get().run(n, [&](int64_t begin, int64_t end) {
      std::memcpy(c.get() + begin, a.get() + begin, static_cast<size_t>(end - begin) * sizeof(T));
    });
  };
  Workload add{"host add", dtype, n, Measure::kBandwidth, 3.0 * bytes, {}, {}};
  add.run = [a, b, c, n] {
    Pool::get().run(n, [&](int64_t begin, int64_t end) {
      add_range(a.get() + begin, b.get() + begin, c.get() + begin, end - begin);
    });
  };
  Workload sum{"host sum", dtype, n, Measure::kBandwidth, bytes, {}, {}};
  sum.run = [a, n, sink] {
    Pool::get().run(n, [&](int64_t begin, int64_t end) {
      // Each range its own slot (ranges start at multiples of 16 elements; slot by start).
      const size_t slot =
          static_cast<size_t>(begin * static_cast<int64_t>(sink->size() - 1) / std::max<int64_t>(n, 1));
      (*sink)[slot] = sum_range(a.get() + begin, end - begin);
    });
  };
  return {copy, add, sum};
}

}  // namespace

unsigned host_loop_threads() { return std::max(1U, std::thread::hardware_concurrency()); }

std::vector<Workload> host_loop_workloads(devplug_dtype_t dtype, int64_t numel) {
  if (dtype == DEVPLUG_DTYPE_BFLOAT16)
    return loops<uint16_t>("bfloat16", numel, to_bf16(1.0F), to_bf16(2.0F));
  return loops<float>("float32", numel, 1.0F, 2.0F);
}

}  // namespace devplug::bench
