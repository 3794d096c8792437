// SPDX-License-Identifier: Apache-2.0
// The emulated GPU runtime (plugins/gpu_emulated) against CUDA's semantics, with small
// kernels of its own: device memory and its checks, streams that run asynchronously on
// their own thread and in order, events, the legacy default stream, launch errors, the grid
// and block indices, __syncthreads with __shared__ memory, atomics across blocks running at
// once (float atomicAdd flushing subnormals as NVIDIA's does), and sticky faults.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "emu_device.hpp"
#include "emu_launch.hpp"
#include "emu_runtime.hpp"
#include "gpu_port.hpp"  // gpu_load_relaxed, as the GPU source reads a word it then swaps

namespace {

using devplug::gpu::emu::launch;

// ---- kernels --------------------------------------------------------------------------------

// out[linear thread id] = (thread, block) indices packed, and the dims once.
__global__ void record_indices(unsigned* out, unsigned* dims) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  out[block * per_block + thread] = (block << 16) | thread;
  if (block == 0 && thread == 0) {
    const unsigned d[6] = {gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z};
    std::memcpy(dims, d, sizeof d);
  }
}

// A block tree sum in shared memory: needs every barrier (a missing one gives wrong sums).
__global__ void block_sums(const int* in, int* out) {
  __shared__ int sh[1024];
  const unsigned t = threadIdx.x;
  sh[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sh[t] += sh[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sh[0];
}

// Every thread of a block sees the value its block stored in shared memory, while other
// blocks store theirs at the same time on other OS threads.
__global__ void shared_is_per_block(unsigned* mismatches) {
  __shared__ unsigned mine;
  if (threadIdx.x == 0) mine = blockIdx.x;
  __syncthreads();
  for (int spin = 0; spin < 50; ++spin) {
    if (mine != blockIdx.x) atomicAdd(mismatches, 1u);
    __syncthreads();
  }
}

__global__ void count_up(int* counter, unsigned long long* wide, int per_thread) {
  for (int i = 0; i < per_thread; ++i) {
    atomicAdd(counter, 1);
    atomicAdd(wide, 3ull);
  }
}

__global__ void add_float(float* target, float value) { atomicAdd(target, value); }
__global__ void add_double(double* target, double value) { atomicAdd(target, value); }

__global__ void cas_increment(unsigned* word, int times) {
  for (int i = 0; i < times; ++i) {
    unsigned old = gpu_load_relaxed(word), assumed;
    do {
      assumed = old;
      old = atomicCAS(word, assumed, assumed + 1u);
    } while (old != assumed);
  }
}

// Holds its stream until `release` is set: proves work runs on the stream's own thread.
__global__ void wait_for(const std::atomic<bool>* release, int* out, int value) {
  while (!release->load()) std::this_thread::sleep_for(std::chrono::microseconds(50));
  *out = value;
}

__global__ void write_value(int* out, int value) { *out = value; }
__global__ void copy_value(const int* in, int* out) { *out = *in; }

__global__ void throws_in_block_1() {
  if (blockIdx.x == 1 && threadIdx.x == 3) throw std::runtime_error("kernel failure for the test");
}

// ---- helpers --------------------------------------------------------------------------------

template <typename T>
T* device_alloc(size_t count) {
  void* p = nullptr;
  EXPECT_EQ(emuMalloc(&p, count * sizeof(T)), emuSuccess);
  return static_cast<T*>(p);
}

template <typename T>
std::vector<T> download(const T* device, size_t count, emuStream_t stream = nullptr) {
  std::vector<T> host(count);
  EXPECT_EQ(emuMemcpyAsync(host.data(), device, count * sizeof(T), emuMemcpyDeviceToHost, stream),
            emuSuccess);
  EXPECT_EQ(emuStreamSynchronize(stream), emuSuccess);
  return host;
}

class EmulatedRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(emuSetDevice(0), emuSuccess);
    ASSERT_EQ(emuStreamCreateWithFlags(&stream_, emuStreamNonBlocking), emuSuccess);
  }
  void TearDown() override {
    EXPECT_EQ(emuStreamDestroy(stream_), emuSuccess);
    EXPECT_EQ(emuGetLastError(), emuSuccess);
  }
  emuStream_t stream_ = nullptr;
};

// ---- devices and memory ---------------------------------------------------------------------

TEST_F(EmulatedRuntime, DevicesDescribeThemselves) {
  int count = 0;
  ASSERT_EQ(emuGetDeviceCount(&count), emuSuccess);
  EXPECT_GE(count, 1);
  emuDeviceProp prop{};
  ASSERT_EQ(emuGetDeviceProperties(&prop, 0), emuSuccess);
  EXPECT_NE(std::string(prop.name).find("emulator"), std::string::npos) << prop.name;
  EXPECT_EQ(prop.maxThreadsPerBlock, 1024);
  EXPECT_GT(prop.totalGlobalMem, 0u);
  EXPECT_EQ(emuGetDeviceProperties(&prop, count), emuErrorInvalidDevice);
  EXPECT_EQ(emuSetDevice(count), emuErrorInvalidDevice);
  EXPECT_EQ(emuGetLastError(), emuErrorInvalidDevice);
  EXPECT_EQ(emuGetLastError(), emuSuccess) << "emuGetLastError clears the error";
}

TEST_F(EmulatedRuntime, MemoryIsCheckedOnEveryCopy) {
  char* d = device_alloc<char>(100);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 256, 0u) << "cudaMalloc's alignment";
  std::vector<char> host(200, 7);
  EXPECT_EQ(emuMemcpyAsync(d, host.data(), 100, emuMemcpyHostToDevice, stream_), emuSuccess);
  EXPECT_EQ(emuMemcpyAsync(d + 1, host.data(), 100, emuMemcpyHostToDevice, stream_), emuErrorInvalidValue)
      << "one byte past the allocation";
  EXPECT_EQ(emuMemcpyAsync(host.data(), d, 101, emuMemcpyDeviceToHost, stream_), emuErrorInvalidValue);
  EXPECT_EQ(emuMemcpyAsync(host.data(), host.data() + 100, 10, emuMemcpyDeviceToHost, stream_),
            emuErrorInvalidValue)
      << "host memory given as device memory";
  EXPECT_EQ(emuMemcpyAsync(d, d + 50, 10, emuMemcpyHostToDevice, stream_), emuErrorInvalidValue)
      << "device memory given as host memory";
  EXPECT_EQ(emuMemsetAsync(d + 90, 0, 11, stream_), emuErrorInvalidValue);
  EXPECT_EQ(emuMemsetAsync(d + 10, 0x3c, 5, stream_), emuSuccess);
  EXPECT_EQ(emuMemcpyAsync(d + 50, d, 20, emuMemcpyDeviceToDevice, stream_), emuSuccess);
  const std::vector<char> back = download(d, 100, stream_);
  EXPECT_EQ(back[9], 7);
  EXPECT_EQ(back[10], 0x3c);
  EXPECT_EQ(back[60], 0x3c);
  EXPECT_EQ(emuFree(d + 1), emuErrorInvalidValue) << "not the start of an allocation";
  EXPECT_EQ(emuFree(d), emuSuccess);
  EXPECT_EQ(emuFree(d), emuErrorInvalidValue) << "freed twice";
  EXPECT_EQ(emuFree(nullptr), emuSuccess);
  (void)emuGetLastError();
}

TEST_F(EmulatedRuntime, AllocationsBeyondTheDeviceFail) {
  void* p = reinterpret_cast<void*>(1);
  EXPECT_EQ(emuMalloc(&p, size_t{1} << 62), emuErrorMemoryAllocation);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(emuGetLastError(), emuErrorMemoryAllocation);
  EXPECT_EQ(emuMalloc(&p, 0), emuSuccess);
  EXPECT_EQ(p, nullptr) << "a 0-byte allocation is a null pointer, as cudaMalloc's";
}

TEST_F(EmulatedRuntime, NewMemoryReadsAsAllOnes) {
  unsigned* d = device_alloc<unsigned>(4);
  EXPECT_EQ(download(d, 4, stream_), std::vector<unsigned>(4, 0xffffffffu));
  EXPECT_EQ(emuFree(d), emuSuccess);
}

// ---- launches -------------------------------------------------------------------------------

TEST_F(EmulatedRuntime, EveryThreadSeesItsIndices) {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  const unsigned total = 12 * 24;
  unsigned* out = device_alloc<unsigned>(total);
  unsigned* dims = device_alloc<unsigned>(6);
  launch(record_indices, grid, block, 0, stream_, out, dims);
  ASSERT_EQ(emuGetLastError(), emuSuccess);
  const std::vector<unsigned> got = download(out, total, stream_);
  for (unsigned b = 0; b < 12; ++b)
    for (unsigned t = 0; t < 24; ++t) EXPECT_EQ(got[b * 24 + t], (b << 16) | t) << b << " " << t;
  EXPECT_EQ(download(dims, 6, stream_), (std::vector<unsigned>{3, 2, 2, 4, 3, 2}));
  emuFree(out);
  emuFree(dims);
}

TEST_F(EmulatedRuntime, BadGeometriesAreLaunchErrors) {
  int* out = device_alloc<int>(1);
  const dim3 bad_blocks[] = {dim3(1025), dim3(32, 33), dim3(1, 1, 65), dim3(0)};
  for (const dim3& block : bad_blocks) {
    launch(write_value, dim3(1), block, 0, stream_, out, 1);
    EXPECT_EQ(emuGetLastError(), emuErrorInvalidConfiguration) << block.x << "x" << block.y << "x" << block.z;
  }
  const dim3 bad_grids[] = {dim3(0), dim3(1, 65536), dim3(1, 1, 65536), dim3(1, 0)};
  for (const dim3& grid : bad_grids) {
    launch(write_value, grid, dim3(1), 0, stream_, out, 1);
    EXPECT_EQ(emuGetLastError(), emuErrorInvalidConfiguration) << grid.x << "x" << grid.y << "x" << grid.z;
  }
  launch(write_value, dim3(1), dim3(1), 0, reinterpret_cast<emuStream_t>(out), out, 1);
  EXPECT_EQ(emuGetLastError(), emuErrorInvalidResourceHandle) << "not a stream";
  launch(write_value, dim3(1), dim3(1024), 0, stream_, out, 5);
  EXPECT_EQ(emuGetLastError(), emuSuccess);
  EXPECT_EQ(download(out, 1, stream_)[0], 5);
  emuFree(out);
}

TEST_F(EmulatedRuntime, SyncthreadsOrdersSharedMemoryWithinABlock) {
  const unsigned blocks = 6, threads = 1024;
  std::vector<int> host(blocks * threads);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>(i % 97) - 40;
  int* in = device_alloc<int>(host.size());
  int* out = device_alloc<int>(blocks);
  ASSERT_EQ(emuMemcpyAsync(in, host.data(), host.size() * sizeof(int), emuMemcpyHostToDevice, stream_),
            emuSuccess);
  launch(block_sums, dim3(blocks), dim3(threads), 0, stream_, static_cast<const int*>(in), out);
  const std::vector<int> got = download(out, blocks, stream_);
  for (unsigned b = 0; b < blocks; ++b) {
    int expected = 0;
    for (unsigned t = 0; t < threads; ++t) expected += host[b * threads + t];
    EXPECT_EQ(got[b], expected) << "block " << b;
  }
  emuFree(in);
  emuFree(out);
}

TEST_F(EmulatedRuntime, SharedMemoryBelongsToOneBlock) {
  unsigned* mismatches = device_alloc<unsigned>(1);
  ASSERT_EQ(emuMemsetAsync(mismatches, 0, sizeof(unsigned), stream_), emuSuccess);
  launch(shared_is_per_block, dim3(64), dim3(128), 0, stream_, mismatches);
  EXPECT_EQ(download(mismatches, 1, stream_)[0], 0u);
  emuFree(mismatches);
}

TEST_F(EmulatedRuntime, AtomicsHoldAcrossBlocksRunningAtOnce) {
  int* counter = device_alloc<int>(1);
  auto* wide = device_alloc<unsigned long long>(1);
  unsigned* word = device_alloc<unsigned>(1);
  ASSERT_EQ(emuMemsetAsync(counter, 0, sizeof(int), stream_), emuSuccess);
  ASSERT_EQ(emuMemsetAsync(wide, 0, sizeof(unsigned long long), stream_), emuSuccess);
  ASSERT_EQ(emuMemsetAsync(word, 0, sizeof(unsigned), stream_), emuSuccess);
  launch(count_up, dim3(200), dim3(64), 0, stream_, counter, wide, 10);
  launch(cas_increment, dim3(100), dim3(32), 0, stream_, word, 5);
  EXPECT_EQ(download(counter, 1, stream_)[0], 200 * 64 * 10);
  EXPECT_EQ(download(wide, 1, stream_)[0], 3ull * 200 * 64 * 10);
  EXPECT_EQ(download(word, 1, stream_)[0], 100u * 32 * 5);
  emuFree(counter);
  emuFree(wide);
  emuFree(word);
}

TEST_F(EmulatedRuntime, FloatAtomicAddFlushesSubnormalsAsNvidiasDoes) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  float* f = device_alloc<float>(2);
  double* d = device_alloc<double>(1);
  const float start[2] = {0.0f, 1.0f};
  const double zero = 0.0;
  ASSERT_EQ(emuMemcpyAsync(f, start, sizeof start, emuMemcpyHostToDevice, stream_), emuSuccess);
  ASSERT_EQ(emuMemcpyAsync(d, &zero, sizeof zero, emuMemcpyHostToDevice, stream_), emuSuccess);
  launch(add_float, dim3(1), dim3(1), 0, stream_, f, tiny * 8);
  launch(add_float, dim3(1), dim3(1), 0, stream_, f + 1, 0.5f);
  launch(add_double, dim3(1), dim3(1), 0, stream_, d, std::numeric_limits<double>::denorm_min());
  const std::vector<float> got = download(f, 2, stream_);
  EXPECT_EQ(got[0], 0.0f) << "PTX atom.add.f32 flushes a subnormal addend";
  EXPECT_FALSE(std::signbit(got[0]));
  EXPECT_EQ(got[1], 1.5f);
  EXPECT_EQ(download(d, 1, stream_)[0], std::numeric_limits<double>::denorm_min())
      << "double keeps subnormals";
  emuFree(f);
  emuFree(d);
}

// ---- streams and events -------------------------------------------------------------------

TEST_F(EmulatedRuntime, StreamsRunAsynchronouslyAndInOrder) {
  std::atomic<bool> release{false};
  int* a = device_alloc<int>(1);
  int* b = device_alloc<int>(1);
  launch(wait_for, dim3(1), dim3(1), 0, stream_, static_cast<const std::atomic<bool>*>(&release), a, 11);
  launch(copy_value, dim3(1), dim3(1), 0, stream_, static_cast<const int*>(a), b);
  EXPECT_EQ(emuStreamQuery(stream_), emuErrorNotReady) << "the launch returned while its kernel waits";
  release = true;
  EXPECT_EQ(download(b, 1, stream_)[0], 11) << "the copy ran after the kernel before it";
  EXPECT_EQ(emuStreamQuery(stream_), emuSuccess);
  emuFree(a);
  emuFree(b);
}

TEST_F(EmulatedRuntime, EventsOrderStreams) {
  emuStream_t other = nullptr;
  emuEvent_t event = nullptr;
  ASSERT_EQ(emuStreamCreateWithFlags(&other, emuStreamNonBlocking), emuSuccess);
  ASSERT_EQ(emuEventCreateWithFlags(&event, emuEventDisableTiming), emuSuccess);
  EXPECT_EQ(emuEventQuery(event), emuSuccess) << "never recorded";
  EXPECT_EQ(emuEventSynchronize(event), emuSuccess);
  std::atomic<bool> release{false};
  int* a = device_alloc<int>(1);
  int* b = device_alloc<int>(1);
  launch(wait_for, dim3(1), dim3(1), 0, stream_, static_cast<const std::atomic<bool>*>(&release), a, 21);
  ASSERT_EQ(emuEventRecord(event, stream_), emuSuccess);
  ASSERT_EQ(emuStreamWaitEvent(other, event, 0), emuSuccess);
  launch(copy_value, dim3(1), dim3(1), 0, other, static_cast<const int*>(a), b);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(emuEventQuery(event), emuErrorNotReady);
  EXPECT_EQ(emuStreamQuery(other), emuErrorNotReady) << "the other stream waits for the event";
  release = true;
  EXPECT_EQ(download(b, 1, other)[0], 21);
  EXPECT_EQ(emuEventSynchronize(event), emuSuccess);
  EXPECT_EQ(emuEventDestroy(event), emuSuccess);
  EXPECT_EQ(emuEventDestroy(event), emuErrorInvalidResourceHandle);
  EXPECT_EQ(emuStreamDestroy(other), emuSuccess);
  EXPECT_EQ(emuStreamSynchronize(other), emuErrorInvalidResourceHandle) << "a destroyed stream";
  (void)emuGetLastError();
  emuFree(a);
  emuFree(b);
}

// Event timing as CUDA's cudaEventElapsedTime: milliseconds between the moments the stream
// reached the two events (the host's steady clock), and its refusals.
TEST_F(EmulatedRuntime, ElapsedTimeIsBetweenTheCompletionsOfTwoEvents) {
  emuEvent_t start = nullptr, end = nullptr, untimed = nullptr, never = nullptr;
  ASSERT_EQ(emuEventCreateWithFlags(&start, emuEventDefault), emuSuccess);
  ASSERT_EQ(emuEventCreateWithFlags(&end, emuEventDefault), emuSuccess);
  ASSERT_EQ(emuEventCreateWithFlags(&untimed, emuEventDisableTiming), emuSuccess);
  ASSERT_EQ(emuEventCreateWithFlags(&never, emuEventDefault), emuSuccess);
  float ms = -1.0f;
  EXPECT_EQ(emuEventElapsedTime(&ms, start, end), emuErrorInvalidResourceHandle) << "never recorded";
  std::atomic<bool> release{false};
  int* a = device_alloc<int>(1);
  const auto before = std::chrono::steady_clock::now();
  ASSERT_EQ(emuEventRecord(start, stream_), emuSuccess);
  launch(wait_for, dim3(1), dim3(1), 0, stream_, static_cast<const std::atomic<bool>*>(&release), a, 5);
  ASSERT_EQ(emuEventRecord(end, stream_), emuSuccess);
  ASSERT_EQ(emuEventRecord(untimed, stream_), emuSuccess);
  EXPECT_EQ(emuEventElapsedTime(&ms, start, end), emuErrorNotReady) << "the end waits for the kernel";
  // The 30 ms are counted from when the stream has certainly passed `start` (its stamp is
  // no later than this), so the kernel, released after them, ends at least 30 ms later.
  ASSERT_EQ(emuEventSynchronize(start), emuSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  release = true;
  ASSERT_EQ(emuEventSynchronize(end), emuSuccess);
  const double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before).count();
  ASSERT_EQ(emuEventElapsedTime(&ms, start, end), emuSuccess);
  EXPECT_GE(ms, 30.0f) << "the kernel between the events ran at least 30 ms";
  EXPECT_LE(ms, host_ms);
  float back = 0.0f;
  ASSERT_EQ(emuEventElapsedTime(&back, end, start), emuSuccess);
  EXPECT_EQ(back, -ms);
  ASSERT_EQ(emuEventSynchronize(untimed), emuSuccess);
  EXPECT_EQ(emuEventElapsedTime(&ms, start, untimed), emuErrorInvalidResourceHandle) << "made without timing";
  EXPECT_EQ(emuEventElapsedTime(&ms, never, end), emuErrorInvalidResourceHandle);
  EXPECT_EQ(emuEventElapsedTime(nullptr, start, end), emuErrorInvalidValue);
  (void)emuGetLastError();
  for (emuEvent_t e : {start, end, untimed, never}) EXPECT_EQ(emuEventDestroy(e), emuSuccess);
  emuFree(a);
}

TEST_F(EmulatedRuntime, TheNullStreamWaitsForBlockingStreamsOnly) {
  emuStream_t blocking = nullptr;
  ASSERT_EQ(emuStreamCreateWithFlags(&blocking, emuStreamDefault), emuSuccess);
  std::atomic<bool> release{false};
  int* a = device_alloc<int>(1);
  int* b = device_alloc<int>(1);
  int* c = device_alloc<int>(1);
  launch(wait_for, dim3(1), dim3(1), 0, blocking, static_cast<const std::atomic<bool>*>(&release), a, 31);
  launch(copy_value, dim3(1), dim3(1), 0, static_cast<emuStream_t>(nullptr), static_cast<const int*>(a), b);
  launch(write_value, dim3(1), dim3(1), 0, stream_, c, 32);  // non-blocking: not held
  EXPECT_EQ(download(c, 1, stream_)[0], 32);
  EXPECT_EQ(emuStreamQuery(nullptr), emuErrorNotReady) << "the null stream waits for the blocking stream";
  release = true;
  EXPECT_EQ(download(b, 1, nullptr)[0], 31);
  EXPECT_EQ(emuStreamDestroy(blocking), emuSuccess);
  emuFree(a);
  emuFree(b);
  emuFree(c);
}

TEST_F(EmulatedRuntime, FreeWaitsForTheDevice) {
  std::atomic<bool> release{false};
  int* a = device_alloc<int>(1);
  launch(wait_for, dim3(1), dim3(1), 0, stream_, static_cast<const std::atomic<bool>*>(&release), a, 41);
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    release = true;
  });
  EXPECT_EQ(emuFree(a), emuSuccess);  // returns only after the kernel wrote `a`
  EXPECT_TRUE(release.load());
  releaser.join();
}

// Runs last on device 1: the fault is sticky for the rest of the process.
TEST(EmulatedRuntimeFault, AThrowingKernelIsAStickyLaunchFailure) {
  int count = 0;
  ASSERT_EQ(emuGetDeviceCount(&count), emuSuccess);
  if (count < 2) GTEST_SKIP() << "needs a second emulated device";
  ASSERT_EQ(emuSetDevice(1), emuSuccess);
  emuStream_t s = nullptr;
  ASSERT_EQ(emuStreamCreateWithFlags(&s, emuStreamNonBlocking), emuSuccess);
  launch(throws_in_block_1, dim3(4), dim3(8), 0, s);
  EXPECT_EQ(emuGetLastError(), emuSuccess) << "the launch itself was fine";
  EXPECT_EQ(emuStreamSynchronize(s), emuErrorLaunchFailure);
  void* p = nullptr;
  EXPECT_EQ(emuMalloc(&p, 16), emuErrorLaunchFailure) << "sticky";
  EXPECT_EQ(emuGetLastError(), emuErrorLaunchFailure) << "never cleared";
  ASSERT_EQ(emuSetDevice(0), emuSuccess);
  EXPECT_EQ(emuMalloc(&p, 16), emuSuccess) << "device 0 is unaffected";
  EXPECT_EQ(emuFree(p), emuSuccess);
}

}  // namespace
