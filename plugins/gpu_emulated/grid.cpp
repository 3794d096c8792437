// SPDX-License-Identifier: Apache-2.0
// The grid executor of the emulated GPU. A grid's blocks are handed out one at a time, in
// blockIdx order, to the thread that runs the stream and to the idle workers of a small
// pool, so several blocks run at once (atomics and the per-block __shared__ storage are
// exercised as on a GPU). Within a block, each GPU thread is a fiber (Boost.Context's
// fcontext) with its own stack: the block's OS thread runs them in threadIdx order, each
// until it finishes or calls __syncthreads; when every thread that has not finished is
// waiting, the next round starts. A fiber outlives its GPU thread: once that has finished it
// waits for the next one (of this block or a later one), so a kernel without barriers runs
// each thread to the end on one fiber and one stack, and fibers are made once per OS thread.
//
// Stacks are mapped once per OS thread with a guard page below each, so an overflow faults
// instead of corrupting a neighbour. Under AddressSanitizer every switch is announced
// (__sanitizer_start/finish_switch_fiber), so ASan knows which stack it is on; under
// ThreadSanitizer each GPU thread is a TSan fiber and every switch synchronizes, as one OS
// thread runs the fibers of a block one at a time (__tsan_switch_to_fiber).
#include "grid.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include <boost/context/detail/fcontext.hpp>

#include "emu_device.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define DEVPLUG_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEVPLUG_EMU_ASAN 1
#endif
#endif
#if defined(DEVPLUG_EMU_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#define DEVPLUG_EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DEVPLUG_EMU_TSAN 1
#endif
#endif
#if defined(DEVPLUG_EMU_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread uint3 blockDim;
__thread uint3 gridDim;

namespace devplug::gpu::emu {
namespace {

namespace fc = boost::context::detail;

constexpr unsigned kMaxThreads = 1024;
#if defined(DEVPLUG_EMU_ASAN) || defined(DEVPLUG_EMU_TSAN)
constexpr size_t kStackBytes = size_t{256} << 10;  // instrumented frames are larger
#else
constexpr size_t kStackBytes = size_t{64} << 10;
#endif

// Announce a stack switch to AddressSanitizer (no-ops otherwise). `fake` is where ASan keeps
// the fake stack of the context being left; null means that context ends.
inline void start_switch(void** fake, const void* bottom, size_t size) {
#if defined(DEVPLUG_EMU_ASAN)
  __sanitizer_start_switch_fiber(fake, bottom, size);
#else
  (void)fake, (void)bottom, (void)size;
#endif
}
inline void finish_switch(void* fake, const void** old_bottom, size_t* old_size) {
#if defined(DEVPLUG_EMU_ASAN)
  __sanitizer_finish_switch_fiber(fake, old_bottom, old_size);
#else
  (void)fake, (void)old_bottom, (void)old_size;
#endif
}

// ThreadSanitizer's fibers (no-ops otherwise): one per fiber of an OS thread, switched to
// before each jump into or out of it, destroyed with the thread's runner. (One per GPU
// thread of every block kept TSan's records of each: 8 GB in two tests.) tsan_switch must be
// inlined: TSan keeps a stack of calls per fiber, and a function of its own would push its
// entry on the fiber it leaves and pop its exit from the one it enters, one frame lost per
// switch (the scheduler's stack ran out after a few fibers: a SEGV in __tsan_create_fiber).
#if defined(DEVPLUG_EMU_TSAN)
inline void* tsan_create() { return __tsan_create_fiber(0); }
inline void* tsan_current() { return __tsan_get_current_fiber(); }
[[gnu::always_inline]] inline void tsan_switch(void* fiber) { __tsan_switch_to_fiber(fiber, 0); }
inline void tsan_destroy(void* fiber) { __tsan_destroy_fiber(fiber); }
#else
inline void* tsan_create() { return nullptr; }
inline void* tsan_current() { return nullptr; }
inline void tsan_switch(void*) {}
inline void tsan_destroy(void*) {}
#endif

// The fiber stacks of one OS thread: up to kMaxThreads, each above a guard page, reserved
// as one mapping and made accessible on first use. Not thread-safe (one per OS thread).
class StackPool {
 public:
  StackPool() : page_(static_cast<size_t>(sysconf(_SC_PAGESIZE))), stride_(kStackBytes + page_) {
    region_ = static_cast<char*>(
        mmap(nullptr, stride_ * kMaxThreads, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (region_ == MAP_FAILED) throw std::bad_alloc();
    free_.reserve(kMaxThreads);
  }
  ~StackPool() { munmap(region_, stride_ * kMaxThreads); }
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  unsigned acquire() {
    if (!free_.empty()) {
      const unsigned i = free_.back();  // the most recently used: its pages are warm
      free_.pop_back();
      return i;
    }
    const unsigned i = made_++;
    if (mprotect(bottom(i), kStackBytes, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
    return i;
  }
  void release(unsigned i) { free_.push_back(i); }
  unsigned made() const { return made_; }
  char* bottom(unsigned i) const { return region_ + size_t{i} * stride_ + page_; }
  char* top(unsigned i) const { return bottom(i) + kStackBytes; }

 private:
  const size_t page_;
  const size_t stride_;
  char* region_ = nullptr;
  unsigned made_ = 0;
  std::vector<unsigned> free_;
};

// The fiber on stack i of the pool: it runs GPU threads one after another.
struct Fiber {
  fc::fcontext_t context = nullptr;  // where it continues: its start, __syncthreads, or idle
  void* fake_stack = nullptr;        // AddressSanitizer's fake stack while switched out
  void* tsan = nullptr;              // its ThreadSanitizer fiber
};

struct GpuThread {
  unsigned fiber;  // the stack and fiber it runs on, once started
  bool started;
  bool finished;
};

// Runs blocks on the OS thread that owns it (one per thread, made on first use).
class BlockRunner {
 public:
  BlockRunner() = default;
  ~BlockRunner() {
    for (unsigned i = 0; i < stacks_.made(); ++i) tsan_destroy(fibers_[i].tsan);
  }
  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;

  // Runs every thread of block `block` to the end; returns "" or the first failure.
  std::string run_block(const KernelCall& call, uint3 block, dim3 grid, dim3 dims);
  // __syncthreads of the running fiber: back to the scheduler until the next round.
  void barrier();
  bool in_fiber() const { return in_fiber_; }

 private:
  [[noreturn]] static void fiber_main(fc::transfer_t from);
  void resume(unsigned fiber);
  // Back to the scheduler from the running fiber, until it is resumed.
  void park();

  StackPool stacks_;
  Fiber fibers_[kMaxThreads];  // fibers_[i] runs on stack i
  GpuThread threads_[kMaxThreads];
  const KernelCall* call_ = nullptr;
  unsigned current_ = 0;
  bool in_fiber_ = false;
  fc::fcontext_t scheduler_ = nullptr;  // where the running fiber returns to
  const void* scheduler_bottom_ = nullptr;
  size_t scheduler_size_ = 0;
  void* scheduler_tsan_ = nullptr;  // the OS thread's ThreadSanitizer context
  std::string failure_;
};

thread_local BlockRunner* t_runner = nullptr;

BlockRunner& runner() {
  thread_local std::unique_ptr<BlockRunner> owned;
  if (!owned) {
    owned = std::make_unique<BlockRunner>();
    t_runner = owned.get();
  }
  return *owned;
}

std::string BlockRunner::run_block(const KernelCall& call, uint3 block, dim3 grid, dim3 dims) {
  const unsigned n = dims.x * dims.y * dims.z;
  blockIdx = block;
  blockDim = uint3{dims.x, dims.y, dims.z};
  gridDim = uint3{grid.x, grid.y, grid.z};
  call_ = &call;
  failure_.clear();
  for (unsigned t = 0; t < n; ++t) threads_[t] = GpuThread{0, false, false};
  // Rounds: each runs every unfinished thread up to its next barrier or its end.
  for (unsigned left = n; left > 0;) {
    for (unsigned t = 0; t < n; ++t) {
      GpuThread& g = threads_[t];
      if (g.finished) continue;
      if (!g.started) {
        g.fiber = stacks_.acquire();
        Fiber& f = fibers_[g.fiber];
        if (f.context == nullptr) {  // a stack used for the first time
          f.context = fc::make_fcontext(stacks_.top(g.fiber), kStackBytes, &BlockRunner::fiber_main);
          f.tsan = tsan_create();
        }
        g.started = true;
      }
      current_ = t;
      threadIdx = uint3{t % dims.x, (t / dims.x) % dims.y, t / (dims.x * dims.y)};
      resume(g.fiber);
      if (g.finished) {
        stacks_.release(g.fiber);
        --left;
      }
    }
  }
  call_ = nullptr;
  return failure_;
}

void BlockRunner::resume(unsigned fiber) {
  Fiber& f = fibers_[fiber];
  void* fake = nullptr;
  start_switch(&fake, stacks_.bottom(fiber), kStackBytes);
  scheduler_tsan_ = tsan_current();
  tsan_switch(f.tsan);
  in_fiber_ = true;
  const fc::transfer_t back = fc::jump_fcontext(f.context, this);
  in_fiber_ = false;
  finish_switch(fake, nullptr, nullptr);
  f.context = back.fctx;  // parked at a barrier, or idle after its thread ended
}

void BlockRunner::fiber_main(fc::transfer_t from) {
  auto* self = static_cast<BlockRunner*>(from.data);
  self->scheduler_ = from.fctx;
  finish_switch(nullptr, &self->scheduler_bottom_, &self->scheduler_size_);
  for (;;) {  // one GPU thread per turn: the scheduler sets current_ before it resumes us
    try {
      self->call_->run_thread();
    } catch (const std::exception& e) {
      if (self->failure_.empty()) self->failure_ = std::string("a kernel thread threw: ") + e.what();
    } catch (...) {
      if (self->failure_.empty()) self->failure_ = "a kernel thread threw";
    }
    self->threads_[self->current_].finished = true;
    self->park();  // idle until the scheduler hands this fiber another thread
  }
}

void BlockRunner::barrier() { park(); }

void BlockRunner::park() {
  Fiber& f = fibers_[threads_[current_].fiber];
  start_switch(&f.fake_stack, scheduler_bottom_, scheduler_size_);
  tsan_switch(scheduler_tsan_);
  const fc::transfer_t back = fc::jump_fcontext(scheduler_, nullptr);
  scheduler_ = back.fctx;
  finish_switch(f.fake_stack, &scheduler_bottom_, &scheduler_size_);
}

// ---- the grid: blocks shared between the stream's thread and the pool ----------------------

struct GridJob {
  const KernelCall* call;
  dim3 grid;
  dim3 block;
  uint64_t total;
  std::atomic<uint64_t> next{0};
  unsigned helpers = 0;  // pool threads inside run_blocks (guarded by the pool's mutex)
  std::mutex failure_mutex;
  std::string failure;
};

void run_blocks(GridJob& job) {
  BlockRunner& r = runner();
  const uint64_t gx = job.grid.x, gy = job.grid.y;
  for (;;) {
    const uint64_t b = job.next.fetch_add(1, std::memory_order_relaxed);
    if (b >= job.total) return;
    const uint3 index{static_cast<unsigned>(b % gx), static_cast<unsigned>((b / gx) % gy),
                      static_cast<unsigned>(b / (gx * gy))};
    const std::string failure = r.run_block(*job.call, index, job.grid, job.block);
    if (!failure.empty()) {
      std::lock_guard<std::mutex> lock(job.failure_mutex);
      if (job.failure.empty()) job.failure = failure;
    }
  }
}

// block_workers() - 1 threads, started on the first grid of more than one block. Never
// destroyed (its threads wait for work until the process ends).
class WorkerPool {
 public:
  static WorkerPool& instance() {
    static WorkerPool* pool = new WorkerPool(block_workers() - 1);
    return *pool;
  }

  void run(GridJob& job) {
    const unsigned extra = static_cast<unsigned>(std::min<uint64_t>(job.total - 1, helpers_));
    if (extra > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      while (threads_started_ < helpers_) {
        std::thread([this] { work(); }).detach();
        ++threads_started_;
      }
      jobs_.push_back(&job);
      for (unsigned i = 0; i < extra; ++i) work_cv_.notify_one();
    }
    run_blocks(job);
    if (extra > 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      drop(&job);
      done_cv_.wait(lock, [&] { return job.helpers == 0; });
    }
  }

 private:
  explicit WorkerPool(unsigned helpers) : helpers_(helpers) {}

  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_cv_.wait(lock, [&] { return !jobs_.empty(); });
      GridJob* job = jobs_.front();
      ++job->helpers;
      lock.unlock();
      run_blocks(*job);
      lock.lock();
      --job->helpers;
      drop(job);  // its blocks are all taken
      done_cv_.notify_all();
    }
  }

  void drop(GridJob* job) {
    auto it = std::find(jobs_.begin(), jobs_.end(), job);
    if (it != jobs_.end()) jobs_.erase(it);
  }

  const unsigned helpers_;
  unsigned threads_started_ = 0;
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<GridJob*> jobs_;
};

}  // namespace

unsigned block_workers() {
  static const unsigned n = [] {
    if (const char* env = std::getenv("DEVPLUG_GPU_EMULATED_WORKERS")) {
      const int v = std::atoi(env);
      if (v >= 1 && v <= 64) return static_cast<unsigned>(v);
    }
    const unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 ? 1u : std::min(cores, 64u);
  }();
  return n;
}

std::string run_grid(const KernelCall& call, dim3 grid, dim3 block) {
  GridJob job;
  job.call = &call;
  job.grid = grid;
  job.block = block;
  job.total = uint64_t{grid.x} * grid.y * grid.z;
  WorkerPool::instance().run(job);
  return job.failure;
}

}  // namespace devplug::gpu::emu

void __syncthreads() {
  devplug::gpu::emu::BlockRunner* r = devplug::gpu::emu::t_runner;
  if (r != nullptr && r->in_fiber()) r->barrier();  // outside a kernel there is nobody to wait for
}
