// SPDX-License-Identifier: Apache-2.0
// Collectives through the host API (devplug_comm_*) on the emulated GPU, whose plugin offers
// the collectives extension. The ranks are threads of this process: the test makes one unique
// id, then each rank's thread makes its own stream on device 0 and joins the communicator with
// its rank. Every collective runs with 2 and with 3 ranks, and its results are compared exactly
// (integers, and float32 values whose sums are exact in any order). The rows of devplug.h's
// "Errors:" lines that need a live communicator are checked on one with their exact codes; the
// others are in api_negative_test.cpp (the reference plugin, which has no collectives).
//
// Every case starts threads (tests/dispatcher/CMakeLists.txt labels them all `threads`). A case
// is skipped only where the emulated GPU plugin was not built.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "api_test_util.hpp"

namespace devplug::test {
namespace {

constexpr devplug_dtype_t F32 = DEVPLUG_DTYPE_FLOAT32;
constexpr devplug_dtype_t I32 = DEVPLUG_DTYPE_INT32;

// One rank of a run: its number, the world size, its device, stream and communicator.
struct Rank {
  uint32_t rank = 0;
  uint32_t world = 0;
  devplug_device_t* device = nullptr;
  devplug_stream_t* stream = nullptr;
  devplug_comm_t* comm = nullptr;

  devplug_tensor_t* make(devplug_dtype_t dtype, std::vector<int64_t> shape) const {
    devplug_tensor_t* t = nullptr;
    EXPECT_TRUE(
        Ok(devplug_tensor_create(device, dtype, static_cast<int32_t>(shape.size()), shape.data(), &t)));
    return t;
  }
  template <typename T>
  devplug_tensor_t* upload(devplug_dtype_t dtype, const std::vector<T>& values) const {
    devplug_tensor_t* t = make(dtype, {static_cast<int64_t>(values.size())});
    EXPECT_TRUE(Ok(devplug_tensor_copy_from_host(stream, t, values.data(), values.size() * sizeof(T),
                                                 DEVPLUG_COPY_BLOCKING)));
    return t;
  }
  // The tensor's elements once the rank's stream has done its work.
  template <typename T>
  std::vector<T> download(const devplug_tensor_t* t) const {
    int64_t n = 0;
    EXPECT_TRUE(Ok(devplug_tensor_numel(t, &n)));
    std::vector<T> values(static_cast<size_t>(n));
    EXPECT_TRUE(Ok(devplug_tensor_copy_to_host(stream, t, values.data(), values.size() * sizeof(T))));
    return values;
  }
};

// Each rank's values of an element: value(rank, index).
template <typename T>
using Values = std::function<T(uint32_t, int64_t)>;

template <typename T>
std::vector<T> values_of(const Values<T>& value, uint32_t rank, int64_t n, int64_t first = 0) {
  std::vector<T> v;
  for (int64_t i = first; i < first + n; ++i) v.push_back(value(rank, i));
  return v;
}

// The reduction by `op` of every rank's value of element `i`; AVG divides the sum by the world
// size (integers: truncating).
template <typename T>
T reduced(const Values<T>& value, uint32_t world, int64_t i, devplug_reduce_op_t op) {
  T acc = value(0, i);
  for (uint32_t r = 1; r < world; ++r) {
    const T v = value(r, i);
    acc = op == DEVPLUG_REDUCE_MAX ? std::max(acc, v) : op == DEVPLUG_REDUCE_MIN ? std::min(acc, v) : acc + v;
  }
  return op == DEVPLUG_REDUCE_AVG ? static_cast<T>(acc / static_cast<T>(world)) : acc;
}

class ApiComm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(DEVPLUG_GPU_EMULATED_PLUGIN_PATH))
      GTEST_SKIP() << "the emulated GPU plugin was not built (" << DEVPLUG_GPU_EMULATED_PLUGIN_PATH << ")";
    ASSERT_TRUE(OpenPlugin(DEVPLUG_GPU_EMULATED_PLUGIN_PATH, &context_, &device_));
  }
  void TearDown() override { devplug_context_destroy(context_); }

  // Runs `body` on `world` threads, one per rank, each with its own stream on `devices[rank]`
  // (device 0 when `devices` is empty) and its communicator; then waits for each rank's stream
  // and destroys its communicator (unless `keep`, which leaves it to the context).
  void run_ranks(uint32_t world, const std::function<void(Rank&)>& body,
                 std::vector<devplug_device_t*> devices = {}, bool keep = false) {
    devplug_comm_unique_id_t id{};
    ASSERT_TRUE(Ok(devplug_comm_unique_id(device_, &id)));
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < world; ++r)
      threads.emplace_back([&, r] {
        Rank rank;
        rank.rank = r;
        rank.world = world;
        rank.device = devices.empty() ? device_ : devices[r];
        ASSERT_TRUE(Ok(devplug_stream_create(rank.device, &rank.stream)));
        ASSERT_TRUE(Ok(devplug_comm_create(rank.device, &id, world, r, &rank.comm)));
        body(rank);
        EXPECT_TRUE(Ok(devplug_stream_synchronize(rank.stream)));
        if (!keep) {
          EXPECT_TRUE(Ok(devplug_comm_destroy(rank.comm)));
        }
      });
    for (std::thread& t : threads) t.join();
  }

  devplug_context_t* context_ = nullptr;
  devplug_device_t* device_ = nullptr;
};

constexpr int64_t kCount = 6;  // elements per rank: divisible by 2 and by 3

// all_reduce of `value` by `op` into a fresh tensor, or in place when `in_place`.
template <typename T>
void check_all_reduce(const Rank& rank, devplug_dtype_t dtype, devplug_reduce_op_t op, const Values<T>& value,
                      bool in_place = false) {
  devplug_tensor_t* send = rank.upload(dtype, values_of(value, rank.rank, kCount));
  devplug_tensor_t* recv = in_place ? send : rank.make(dtype, {kCount});
  ASSERT_TRUE(Ok(devplug_comm_all_reduce(rank.stream, rank.comm, send, recv, op)));
  const std::vector<T> got = rank.download<T>(recv);
  for (int64_t i = 0; i < kCount; ++i)
    EXPECT_EQ(got[i], reduced(value, rank.world, i, op))
        << "rank " << rank.rank << " of " << rank.world << ", op " << op << ", element " << i;
  devplug_tensor_release(send);
  if (!in_place) devplug_tensor_release(recv);
}

TEST_F(ApiComm, AllReduce) {
  // Small multiples of 1/4: float32 sums of them are exact. The AVG values are multiples of the
  // world size, so that the average is exact however the plugin divides.
  const Values<float> floats = [](uint32_t r, int64_t i) { return 0.25f * i - 1.5f * r; };
  const Values<float> peaks = [](uint32_t r, int64_t i) {
    return static_cast<float>((i * 7 + r * 3) % 5) - r;
  };
  const Values<int32_t> ints = [](uint32_t r, int64_t i) { return static_cast<int32_t>(3 * i - 7 - 5 * r); };
  for (uint32_t world : {2u, 3u}) {
    const Values<float> averaged = [world](uint32_t r, int64_t i) {
      return static_cast<float>(world * (i - 2 * r));
    };
    run_ranks(world, [&](Rank& rank) {
      check_all_reduce(rank, F32, DEVPLUG_REDUCE_SUM, floats);
      check_all_reduce(rank, F32, DEVPLUG_REDUCE_MAX, peaks);
      check_all_reduce(rank, F32, DEVPLUG_REDUCE_AVG, averaged);
      check_all_reduce(rank, I32, DEVPLUG_REDUCE_SUM, ints);
      check_all_reduce(rank, I32, DEVPLUG_REDUCE_MAX, ints);
      check_all_reduce(rank, I32, DEVPLUG_REDUCE_AVG, ints);  // negative sums truncate toward zero
      check_all_reduce(rank, F32, DEVPLUG_REDUCE_SUM, floats, /*in_place=*/true);
      check_all_reduce(rank, I32, DEVPLUG_REDUCE_MAX, ints, /*in_place=*/true);
      // A contiguous view at a storage offset: the second half of a tensor, reduced in place;
      // the first half is left as it was.
      devplug_tensor_t* whole = rank.upload(I32, values_of(ints, rank.rank, 2 * kCount));
      devplug_tensor_t* tail = nullptr;
      ASSERT_TRUE(Ok(devplug_tensor_slice(whole, 0, kCount, 2 * kCount, 1, &tail)));
      ASSERT_TRUE(Ok(devplug_comm_all_reduce(rank.stream, rank.comm, tail, tail, DEVPLUG_REDUCE_SUM)));
      const std::vector<int32_t> got = rank.download<int32_t>(whole);
      for (int64_t i = 0; i < 2 * kCount; ++i)
        EXPECT_EQ(got[i], i < kCount ? ints(rank.rank, i) : reduced(ints, world, i, DEVPLUG_REDUCE_SUM))
            << "rank " << rank.rank << " of " << world << ", element " << i;
    });
  }
}

TEST_F(ApiComm, AllGather) {
  const Values<int32_t> value = [](uint32_t r, int64_t i) { return static_cast<int32_t>(100 * r + i); };
  for (uint32_t world : {2u, 3u}) {
    run_ranks(world, [&](Rank& rank) {
      devplug_tensor_t* send = rank.upload(I32, values_of(value, rank.rank, kCount));
      devplug_tensor_t* recv =
          rank.make(I32, {static_cast<int64_t>(world), kCount});  // any shape of the right count
      ASSERT_TRUE(Ok(devplug_comm_all_gather(rank.stream, rank.comm, send, recv)));
      std::vector<int32_t> expected;
      for (uint32_t q = 0; q < world; ++q)
        for (int32_t v : values_of(value, q, kCount)) expected.push_back(v);
      EXPECT_EQ(rank.download<int32_t>(recv), expected) << "rank " << rank.rank << " of " << world;
    });
  }
}

TEST_F(ApiComm, ReduceScatter) {
  const Values<float> floats = [](uint32_t r, int64_t i) { return 0.5f * i + 0.25f * r; };
  const Values<int32_t> ints = [](uint32_t r, int64_t i) {
    return static_cast<int32_t>((i * 5 + r * 7) % 11) - 5;
  };
  for (uint32_t world : {2u, 3u}) {
    run_ranks(world, [&](Rank& rank) {
      // Rank r's recv is the r-th part of the reduction of every rank's send.
      const int64_t n = kCount * world;
      devplug_tensor_t* send = rank.upload(F32, values_of(floats, rank.rank, n));
      devplug_tensor_t* recv = rank.make(F32, {kCount});
      ASSERT_TRUE(Ok(devplug_comm_reduce_scatter(rank.stream, rank.comm, send, recv, DEVPLUG_REDUCE_SUM)));
      std::vector<float> expected;
      for (int64_t i = 0; i < kCount; ++i)
        expected.push_back(reduced(floats, world, rank.rank * kCount + i, DEVPLUG_REDUCE_SUM));
      EXPECT_EQ(rank.download<float>(recv), expected) << "rank " << rank.rank << " of " << world;

      devplug_tensor_t* int_send = rank.upload(I32, values_of(ints, rank.rank, n));
      devplug_tensor_t* int_recv = rank.make(I32, {kCount});
      ASSERT_TRUE(
          Ok(devplug_comm_reduce_scatter(rank.stream, rank.comm, int_send, int_recv, DEVPLUG_REDUCE_MAX)));
      std::vector<int32_t> int_expected;
      for (int64_t i = 0; i < kCount; ++i)
        int_expected.push_back(reduced(ints, world, rank.rank * kCount + i, DEVPLUG_REDUCE_MAX));
      EXPECT_EQ(rank.download<int32_t>(int_recv), int_expected) << "rank " << rank.rank << " of " << world;
    });
  }
}

TEST_F(ApiComm, Broadcast) {
  const Values<float> value = [](uint32_t r, int64_t i) { return 10.0f * r + 0.5f * i; };
  for (uint32_t world : {2u, 3u}) {
    for (uint32_t root : {0u, world - 1}) {
      run_ranks(world, [&](Rank& rank) {
        devplug_tensor_t* t = rank.upload(F32, values_of(value, rank.rank, kCount));
        ASSERT_TRUE(Ok(devplug_comm_broadcast(rank.stream, rank.comm, t, root)));
        EXPECT_EQ(rank.download<float>(t), values_of(value, root, kCount))
            << "rank " << rank.rank << " of " << world << ", root " << root;
      });
    }
  }
}

TEST_F(ApiComm, AllToAll) {
  // Element j of part q of rank r's send: 1000 r + 10 q + j.
  for (uint32_t world : {2u, 3u}) {
    const int64_t part = kCount / world;
    run_ranks(world, [&](Rank& rank) {
      std::vector<int32_t> mine, expected;
      for (uint32_t q = 0; q < world; ++q)
        for (int64_t j = 0; j < part; ++j) {
          mine.push_back(static_cast<int32_t>(1000 * rank.rank + 10 * q + j));
          expected.push_back(static_cast<int32_t>(1000 * q + 10 * rank.rank + j));  // rank q's part r
        }
      devplug_tensor_t* send = rank.upload(I32, mine);
      devplug_tensor_t* recv = rank.make(I32, {kCount});
      ASSERT_TRUE(Ok(devplug_comm_all_to_all(rank.stream, rank.comm, send, recv)));
      EXPECT_EQ(rank.download<int32_t>(recv), expected) << "rank " << rank.rank << " of " << world;
      EXPECT_EQ(rank.download<int32_t>(send), mine) << "send is left as it was";
    });
  }
}

TEST_F(ApiComm, SendRecv) {
  // A chain: each rank but the last sends to the next, each but the first receives from the
  // one before; then back along the chain with other values.
  const Values<float> forward = [](uint32_t r, int64_t i) { return 100.0f * r + i; };
  const Values<float> back = [](uint32_t r, int64_t i) { return -100.0f * r - i; };
  for (uint32_t world : {2u, 3u}) {
    run_ranks(world, [&](Rank& rank) {
      const uint32_t r = rank.rank;
      devplug_tensor_t* box = rank.make(F32, {kCount});
      if (r > 0) {
        ASSERT_TRUE(Ok(devplug_comm_recv(rank.stream, rank.comm, box, r - 1)));
        EXPECT_EQ(rank.download<float>(box), values_of(forward, r - 1, kCount))
            << "rank " << r << " of " << world;
      }
      if (r + 1 < world) {
        devplug_tensor_t* out = rank.upload(F32, values_of(forward, r, kCount));
        ASSERT_TRUE(Ok(devplug_comm_send(rank.stream, rank.comm, out, r + 1)));
        devplug_tensor_t* in = rank.make(F32, {kCount});
        ASSERT_TRUE(Ok(devplug_comm_recv(rank.stream, rank.comm, in, r + 1)));
        EXPECT_EQ(rank.download<float>(in), values_of(back, r + 1, kCount))
            << "rank " << r << " of " << world;
      }
      if (r > 0) {
        devplug_tensor_t* out = rank.upload(F32, values_of(back, r, kCount));
        ASSERT_TRUE(Ok(devplug_comm_send(rank.stream, rank.comm, out, r - 1)));
      }
    });
  }
}

// A NULL stream is the default stream of the communicator's device: here each rank has a
// device of its own, since two ranks' collectives on one stream would wait for each other.
TEST_F(ApiComm, NullStreamIsTheDefaultStream) {
  size_t count = 0;
  ASSERT_TRUE(Ok(devplug_context_device_count(context_, &count)));
  if (count < 2) GTEST_SKIP() << "needs two emulated devices (DEVPLUG_GPU_EMULATED_DEVICES)";
  std::vector<devplug_device_t*> devices(2);
  for (size_t d = 0; d < 2; ++d) ASSERT_TRUE(Ok(devplug_context_get_device(context_, d, &devices[d])));
  run_ranks(
      2,
      [&](Rank& rank) {
        devplug_tensor_t* t = rank.upload(I32, std::vector<int32_t>{static_cast<int32_t>(rank.rank + 1), 10});
        ASSERT_TRUE(Ok(devplug_comm_all_reduce(nullptr, rank.comm, t, t, DEVPLUG_REDUCE_SUM)));
        devplug_stream_t* default_stream = nullptr;
        ASSERT_TRUE(Ok(devplug_device_default_stream(rank.device, &default_stream)));
        std::vector<int32_t> got(2);
        ASSERT_TRUE(Ok(devplug_tensor_copy_to_host(default_stream, t, got.data(), sizeof(int32_t) * 2)));
        EXPECT_EQ(got, (std::vector<int32_t>{3, 20})) << "rank " << rank.rank;
      },
      devices);
}

// Communicators the host leaves are destroyed with the context, after their collectives.
TEST_F(ApiComm, ContextDestroysLiveCommunicators) {
  run_ranks(
      2,
      [&](Rank& rank) {
        devplug_tensor_t* t = rank.upload(F32, std::vector<float>{1.0f, 2.0f});
        EXPECT_TRUE(Ok(devplug_comm_all_reduce(rank.stream, rank.comm, t, t, DEVPLUG_REDUCE_SUM)));
      },
      {}, /*keep=*/true);
  devplug_context_destroy(context_);
  context_ = nullptr;
}

// ---- the rows that need a live communicator ------------------------------------------------

TEST_F(ApiComm, RankAndDestroy) {
  devplug_comm_t* destroyed = nullptr;
  run_ranks(3, [&](Rank& rank) {
    uint32_t r = 99, w = 99;
    ASSERT_TRUE(Ok(devplug_comm_rank(rank.comm, &r, &w)));
    EXPECT_EQ(r, rank.rank);
    EXPECT_EQ(w, 3u);
    EXPECT_TRUE(Invalid(devplug_comm_rank(rank.comm, nullptr, &w), "out_rank is NULL"));
    EXPECT_EQ(w, 0u) << "out_world_size is cleared on entry";
    EXPECT_TRUE(Invalid(devplug_comm_rank(rank.comm, &r, nullptr), "out_world_size is NULL"));
    if (rank.rank == 0) destroyed = rank.comm;
  });
  // A destroyed communicator is refused (the registry is asked, not its freed memory).
  uint32_t r = 0, w = 0;
  EXPECT_TRUE(Invalid(devplug_comm_rank(destroyed, &r, &w), "comm is not a live communicator"));
  EXPECT_TRUE(Invalid(devplug_comm_destroy(destroyed), "comm is not a live communicator"));
}

// Every INVALID_ARGUMENT row of the collectives, on each rank of a live communicator of 2;
// nothing reaches the plugin, so the ranks need not agree. Then a collective still works.
TEST_F(ApiComm, CollectivesCheckTheirArguments) {
  size_t count = 0;
  ASSERT_TRUE(Ok(devplug_context_device_count(context_, &count)));
  devplug_device_t* other = nullptr;  // another device of the plugin, when there is one
  if (count > 1) {
    ASSERT_TRUE(Ok(devplug_context_get_device(context_, 1, &other)));
  }
  run_ranks(2, [&](Rank& rank) {
    devplug_stream_t* s = rank.stream;
    devplug_comm_t* c = rank.comm;
    devplug_tensor_t* a = rank.make(F32, {4});
    devplug_tensor_t* b = rank.make(F32, {4});
    const auto sum = DEVPLUG_REDUCE_SUM;

    // The stream: live, of the communicator's device.
    auto* not_a_stream = reinterpret_cast<devplug_stream_t*>(a);
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(not_a_stream, c, a, b, sum), "stream is not a live stream"));
    EXPECT_TRUE(Invalid(devplug_comm_all_gather(not_a_stream, c, a, b), "stream is not a live stream"));
    EXPECT_TRUE(
        Invalid(devplug_comm_reduce_scatter(not_a_stream, c, a, b, sum), "stream is not a live stream"));
    EXPECT_TRUE(Invalid(devplug_comm_broadcast(not_a_stream, c, a, 0), "stream is not a live stream"));
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(not_a_stream, c, a, b), "stream is not a live stream"));
    EXPECT_TRUE(Invalid(devplug_comm_send(not_a_stream, c, a, 1 - rank.rank), "stream is not a live stream"));
    EXPECT_TRUE(Invalid(devplug_comm_recv(not_a_stream, c, a, 1 - rank.rank), "stream is not a live stream"));
    devplug_tensor_t* elsewhere = nullptr;
    if (other != nullptr) {
      devplug_stream_t* other_stream = nullptr;
      ASSERT_TRUE(Ok(devplug_stream_create(other, &other_stream)));
      EXPECT_TRUE(Invalid(devplug_comm_all_reduce(other_stream, c, a, b, sum), "not to comm's device"));
      EXPECT_TRUE(Invalid(devplug_comm_broadcast(other_stream, c, a, 0), "not to comm's device"));
      EXPECT_TRUE(Ok(devplug_stream_destroy(other_stream)));
      const int64_t four = 4;
      ASSERT_TRUE(Ok(devplug_tensor_create(other, F32, 1, &four, &elsewhere)));
    }

    // The tensors: live, on the communicator's device, contiguous.
    auto* not_a_tensor = reinterpret_cast<devplug_tensor_t*>(s);
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, nullptr, b, sum), "send is NULL"));
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, a, not_a_tensor, sum), "recv is not a live tensor"));
    EXPECT_TRUE(Invalid(devplug_comm_all_gather(s, c, not_a_tensor, b), "send is not a live tensor"));
    EXPECT_TRUE(Invalid(devplug_comm_reduce_scatter(s, c, a, nullptr, sum), "recv is NULL"));
    EXPECT_TRUE(Invalid(devplug_comm_broadcast(s, c, not_a_tensor, 0), "tensor is not a live tensor"));
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(s, c, a, nullptr), "recv is NULL"));
    EXPECT_TRUE(Invalid(devplug_comm_send(s, c, nullptr, 1 - rank.rank), "tensor is NULL"));
    EXPECT_TRUE(Invalid(devplug_comm_recv(s, c, not_a_tensor, 1 - rank.rank), "tensor is not a live tensor"));
    if (elsewhere != nullptr) {
      EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, elsewhere, b, sum), "send is on device 1"));
      EXPECT_TRUE(Invalid(devplug_comm_all_gather(s, c, a, elsewhere), "recv is on device 1"));
      EXPECT_TRUE(Invalid(devplug_comm_send(s, c, elsewhere, 1 - rank.rank), "not on comm's device 0"));
      devplug_tensor_release(elsewhere);
    }
    devplug_tensor_t* matrix = rank.make(F32, {2, 3});
    devplug_tensor_t* transposed = nullptr;  // 3 x 2, strides {1, 3}
    ASSERT_TRUE(Ok(devplug_tensor_transpose(matrix, 0, 1, &transposed)));
    devplug_tensor_t* six = rank.make(F32, {6});
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, transposed, six, sum), "send is not contiguous"));
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, six, transposed, sum), "recv is not contiguous"));
    EXPECT_TRUE(Invalid(devplug_comm_broadcast(s, c, transposed, 0), "tensor is not contiguous"));
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(s, c, transposed, six), "send is not contiguous"));
    EXPECT_TRUE(Invalid(devplug_comm_recv(s, c, transposed, 1 - rank.rank), "tensor is not contiguous"));
    devplug_tensor_t* row = nullptr;  // a contiguous view at a non-zero offset is fine for the checks
    ASSERT_TRUE(Ok(devplug_tensor_slice(matrix, 0, 1, 2, 1, &row)));

    // dtypes and element counts.
    devplug_tensor_t* ints = rank.make(I32, {4});
    devplug_tensor_t* three = rank.make(F32, {3});
    devplug_tensor_t* eight = rank.make(F32, {2, 4});
    EXPECT_TRUE(
        Invalid(devplug_comm_all_reduce(s, c, a, ints, sum), "recv has dtype int32, send has float32"));
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, a, three, sum), "recv has 3 elements, send has 4"));
    EXPECT_TRUE(Invalid(devplug_comm_all_gather(s, c, a, ints), "recv has dtype int32"));
    EXPECT_TRUE(Invalid(devplug_comm_all_gather(s, c, a, b),
                        "recv has 4 elements, the world size 2 times send's 4 expected"));
    EXPECT_TRUE(Invalid(devplug_comm_all_gather(s, c, row, b),
                        "recv has 4 elements, the world size 2 times send's 3 expected"));
    EXPECT_TRUE(Invalid(devplug_comm_reduce_scatter(s, c, eight, ints, sum), "recv has dtype int32"));
    EXPECT_TRUE(Invalid(devplug_comm_reduce_scatter(s, c, a, b, sum),
                        "send has 4 elements, the world size 2 times recv's 4 expected"));
    EXPECT_TRUE(Invalid(devplug_comm_reduce_scatter(s, c, three, b, sum),
                        "send has 3 elements, the world size 2 times recv's 4 expected"));
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(s, c, a, ints), "recv has dtype int32"));
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(s, c, a, eight), "recv has 8 elements, send has 4"));
    devplug_tensor_t* three_too = rank.make(F32, {3});
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(s, c, three, three_too), "do not split into 2 equal parts"));
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(s, c, a, a), "recv shares memory with send"));
    // Views of one storage that share elements 4 and 5: `eight`'s second row and elements 2..5.
    devplug_tensor_t* half = nullptr;
    ASSERT_TRUE(Ok(devplug_tensor_slice(eight, 0, 1, 2, 1, &half)));
    devplug_tensor_t* flat = nullptr;
    const int64_t eight_elements = 8;
    ASSERT_TRUE(Ok(devplug_tensor_reshape(eight, 1, &eight_elements, &flat)));
    devplug_tensor_t* middle = nullptr;
    ASSERT_TRUE(Ok(devplug_tensor_slice(flat, 0, 2, 6, 1, &middle)));
    EXPECT_TRUE(Invalid(devplug_comm_all_to_all(s, c, half, middle), "recv shares memory with send"));

    // Reductions.
    for (int op : {0, 9, 15}) {
      const auto bad = static_cast<devplug_reduce_op_t>(op);
      const std::string part = "op " + std::to_string(op) + " is not a devplug_reduce_op_t";
      EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, a, b, bad), part));
      EXPECT_TRUE(Invalid(devplug_comm_reduce_scatter(s, c, eight, a, bad), part));
    }
    for (devplug_dtype_t dtype :
         {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64}) {
      devplug_tensor_t* x = rank.make(dtype, {4});
      devplug_tensor_t* y = rank.make(dtype, {2});
      for (devplug_reduce_op_t op : {DEVPLUG_REDUCE_BAND, DEVPLUG_REDUCE_BOR, DEVPLUG_REDUCE_BXOR}) {
        EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, x, x, op), "is bitwise"));
        EXPECT_TRUE(Invalid(devplug_comm_reduce_scatter(s, c, x, y, op), "is bitwise"));
      }
    }
    devplug_tensor_t* flags = rank.make(DEVPLUG_DTYPE_BOOL, {4});
    devplug_tensor_t* two_flags = rank.make(DEVPLUG_DTYPE_BOOL, {2});
    EXPECT_TRUE(
        Invalid(devplug_comm_all_reduce(s, c, flags, flags, DEVPLUG_REDUCE_AVG), "op AVG is not for bool"));
    EXPECT_TRUE(Invalid(devplug_comm_reduce_scatter(s, c, flags, two_flags, DEVPLUG_REDUCE_AVG),
                        "op AVG is not for bool"));

    // Ranks.
    EXPECT_TRUE(Invalid(devplug_comm_broadcast(s, c, a, 2), "root 2 is not below the world size 2"));
    EXPECT_TRUE(Invalid(devplug_comm_send(s, c, a, 2), "peer 2 is not below the world size 2"));
    EXPECT_TRUE(Invalid(devplug_comm_recv(s, c, a, 7), "peer 7 is not below the world size 2"));
    const std::string own = "peer " + std::to_string(rank.rank) + " is the communicator's own rank";
    EXPECT_TRUE(Invalid(devplug_comm_send(s, c, a, rank.rank), own));
    EXPECT_TRUE(Invalid(devplug_comm_recv(s, c, a, rank.rank), own));

    // After all that, the communicator works (every rank refused the same calls).
    devplug_tensor_t* one = rank.upload(I32, std::vector<int32_t>{1, 2, 3, 4});
    ASSERT_TRUE(Ok(devplug_comm_all_reduce(s, c, one, one, sum)));
    EXPECT_EQ(rank.download<int32_t>(one), (std::vector<int32_t>{2, 4, 6, 8}));
  });
}

// A capturing stream refuses every collective with FAILED_PRECONDITION, which ends the capture
// (a graph does not record collectives); the stream stays usable. The INVALID_ARGUMENT rows
// come first and leave the capture alone.
TEST_F(ApiComm, CollectivesRefuseACapturingStream) {
  // Destroyed once the ranks are done: destroying a graph waits for its whole device, which
  // here is also the other rank's, whose collective waits for this rank.
  std::vector<devplug_graph_t*> graphs(2, nullptr);
  run_ranks(2, [&](Rank& rank) {
    devplug_stream_t* s = rank.stream;
    devplug_comm_t* c = rank.comm;
    devplug_tensor_t* a = rank.make(F32, {4});
    devplug_tensor_t* b = rank.make(F32, {4});
    devplug_tensor_t* wide = rank.make(F32, {8});
    devplug_tensor_t* narrow = rank.make(F32, {2});
    const uint32_t peer = 1 - rank.rank;
    const std::vector<std::function<devplug_error_t*()>> calls = {
        [&] { return devplug_comm_all_reduce(s, c, a, a, DEVPLUG_REDUCE_SUM); },
        [&] { return devplug_comm_all_gather(s, c, a, wide); },
        [&] { return devplug_comm_reduce_scatter(s, c, a, narrow, DEVPLUG_REDUCE_SUM); },
        [&] { return devplug_comm_broadcast(s, c, a, 0); },
        [&] { return devplug_comm_all_to_all(s, c, a, b); },
        [&] { return devplug_comm_send(s, c, a, peer); },
        [&] { return devplug_comm_recv(s, c, a, peer); },
    };
    for (size_t k = 0; k < calls.size(); ++k) {
      ASSERT_TRUE(Ok(devplug_stream_begin_capture(s)));
      EXPECT_TRUE(
          Fails(calls[k](), DEVPLUG_CODE_FAILED_PRECONDITION, "on a stream that is capturing a graph"))
          << "call " << k;
      bool capturing = true;
      ASSERT_TRUE(Ok(devplug_stream_is_capturing(s, &capturing)));
      EXPECT_FALSE(capturing) << "call " << k << " ended the capture";
    }
    ASSERT_TRUE(Ok(devplug_stream_begin_capture(s)));
    EXPECT_TRUE(Invalid(devplug_comm_all_reduce(s, c, a, wide, DEVPLUG_REDUCE_SUM), "recv has 8 elements"));
    ASSERT_TRUE(Ok(devplug_stream_end_capture(s, &graphs[rank.rank])));
    // The stream and the communicator still work.
    devplug_tensor_t* one = rank.upload(F32, std::vector<float>{1.5f, -2.0f});
    ASSERT_TRUE(Ok(devplug_comm_all_reduce(s, c, one, one, DEVPLUG_REDUCE_SUM)));
    EXPECT_EQ(rank.download<float>(one), (std::vector<float>{3.0f, -4.0f}));
  });
  for (devplug_graph_t* graph : graphs) EXPECT_TRUE(Ok(devplug_graph_destroy(graph)));
}

// The plugin's error comes back as it is: the emulated GPU's library, like NCCL's, carries no
// 16-bit integers and no bitwise reductions, and declines them (UNIMPLEMENTED) before anything
// is sent, so that each rank gets the error without waiting for the others.
TEST_F(ApiComm, ThePluginsRefusalComesBack) {
  run_ranks(2, [&](Rank& rank) {
    devplug_tensor_t* shorts = rank.make(DEVPLUG_DTYPE_INT16, {4});
    EXPECT_TRUE(Fails(devplug_comm_all_reduce(rank.stream, rank.comm, shorts, shorts, DEVPLUG_REDUCE_SUM),
                      DEVPLUG_CODE_UNIMPLEMENTED, "plugin gpu_emulated: all_reduce"));
    devplug_tensor_t* ints = rank.make(I32, {4});
    devplug_tensor_t* half = rank.make(I32, {2});
    EXPECT_TRUE(Fails(devplug_comm_reduce_scatter(rank.stream, rank.comm, ints, half, DEVPLUG_REDUCE_BXOR),
                      DEVPLUG_CODE_UNIMPLEMENTED, "BXOR of int32"));
  });
}

}  // namespace
}  // namespace devplug::test
