// SPDX-License-Identifier: Apache-2.0
// The emulated collectives library (emu_ccl.hpp), over one POSIX shared-memory segment per
// communicator.
//
// The segment: a header (the world size, each rank's pid and two round counters per rank), a
// slot of kSlotBytes per rank, and a mailbox of kMailBytes per ordered pair of ranks. Its size
// is fixed (for EMUCCL_MAX_RANKS ranks) so every rank sizes it alike before it knows the
// others; tmpfs gives pages only to what is touched, so a communicator of W ranks uses about
// W slots and W * W mailboxes.
//
// A collective runs in rounds. In each, a rank waits until every rank has read its slot's
// previous contents (`consumed`), writes its part into its slot, announces it (`arrived`),
// waits for every rank's announcement, reads what it needs from the slots and announces that
// (`consumed`). A large tensor takes as many rounds as its slot needs. send and recv go
// through the pair's mailbox one piece at a time; each piece carries the message's size, so a
// receive of another size fails on both sides instead of mixing messages. Waits sleep on the
// counters with futexes, which work across processes on a shared mapping, and look every
// 20 ms whether the awaited rank's process still exists.
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "devplug/sdk/half.hpp"
#include "emu_ccl.hpp"
#include "runtime.hpp"

namespace devplug::gpu::emu {
namespace {

constexpr size_t kSlotBytes = size_t{1} << 20;
constexpr size_t kMailBytes = size_t{256} << 10;
constexpr char kIdMagic[] = "devplug-emuccl:";

using Counter = std::atomic<uint32_t>;
static_assert(sizeof(Counter) == sizeof(uint32_t) && Counter::is_always_lock_free,
              "the counters are futex words");

struct Header {
  Counter world_size;
  Counter joined;
  std::atomic<int32_t> pid[EMUCCL_MAX_RANKS];
  Counter arrived[EMUCCL_MAX_RANKS];
  Counter consumed[EMUCCL_MAX_RANKS];
};

struct Mailbox {
  Counter sent;     // pieces the sender has put in, written by the sender only
  Counter taken;    // pieces the receiver has taken out, written by the receiver only
  Counter refused;  // set by a receiver that expects another size: the sender fails too
  uint64_t piece_bytes;
  uint64_t message_bytes;
  alignas(64) char data[kMailBytes];
};

constexpr size_t kHeaderBytes = 4096;
static_assert(sizeof(Header) <= kHeaderBytes);
constexpr size_t kMailOffset = kHeaderBytes + EMUCCL_MAX_RANKS * kSlotBytes;
constexpr size_t kSegmentBytes = kMailOffset + size_t{EMUCCL_MAX_RANKS} * EMUCCL_MAX_RANKS * sizeof(Mailbox);

thread_local std::string t_last_error;

// A failed collective; the communicator and the device have recorded why.
struct Failure {};

double timeout_seconds() {
  static const double seconds = [] {
    const char* env = std::getenv("DEVPLUG_GPU_EMULATED_CCL_TIMEOUT_S");
    const double s = env != nullptr ? std::strtod(env, nullptr) : 0.0;
    return s > 0.0 ? s : 300.0;
  }();
  return seconds;
}

// Whether process `pid` still runs: it exists and is not a zombie (an exited rank whose parent
// has not reaped it yet).
bool alive(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return true;  // no /proc: the signal probe is all there is
  char text[512] = {};
  const size_t n = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  const char* end = nullptr;  // the last ')', which closes the command name; the state follows ") "
  for (size_t i = n; i-- > 0;)
    if (text[i] == ')') {
      end = text + i;
      break;
    }
  return end == nullptr || end + 2 >= text + n || (end[2] != 'Z' && end[2] != 'X');
}

void futex_wait(Counter& word, uint32_t seen, long nanoseconds) {
  timespec limit{0, nanoseconds};
  (void)syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, seen, &limit, nullptr, 0);
}

void futex_wake(Counter& word) {
  (void)syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

void publish(Counter& word, uint32_t value) {
  word.store(value, std::memory_order_release);
  futex_wake(word);
}

// Whether `word` has reached `target`, counting modulo 2^32.
bool reached(const Counter& word, uint32_t target) {
  return static_cast<int32_t>(word.load(std::memory_order_acquire) - target) >= 0;
}

size_t dtype_size(emucclDataType_t t) {
  switch (t) {
    case emucclInt8:
    case emucclUint8:
      return 1;
    case emucclFloat16:
    case emucclBfloat16:
      return 2;
    case emucclInt32:
    case emucclUint32:
    case emucclFloat32:
      return 4;
    case emucclInt64:
    case emucclUint64:
    case emucclFloat64:
      return 8;
  }
  return 0;
}

bool valid_op(emucclRedOp_t op) { return op >= emucclSum && op <= emucclAvg; }

// ---- reductions ---------------------------------------------------------------------------------

template <typename A>
A combine(A a, A b, emucclRedOp_t op) {
  if constexpr (std::is_floating_point_v<A>) {
    switch (op) {
      case emucclProd:
        return a * b;
      case emucclMax:
        return std::isnan(a) ? a : std::isnan(b) ? b : (a < b ? b : a);
      case emucclMin:
        return std::isnan(a) ? a : std::isnan(b) ? b : (b < a ? b : a);
      default:
        return a + b;
    }
  } else {
    using U = std::make_unsigned_t<A>;  // sums and products wrap around
    switch (op) {
      case emucclProd:
        return static_cast<A>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
      case emucclMax:
        return a < b ? b : a;
      case emucclMin:
        return b < a ? b : a;
      default:
        return static_cast<A>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    }
  }
}

struct Same {
  template <typename T>
  T operator()(T v) const {
    return v;
  }
};
struct HalfToFloat {
  float operator()(uint16_t v) const { return static_cast<float>(sdk::half_bits_to_double(v)); }
};
struct FloatToHalf {
  uint16_t operator()(float v) const { return sdk::double_to_half_bits(v); }
};
struct BFloat16ToFloat {
  float operator()(uint16_t v) const { return static_cast<float>(sdk::bfloat16_bits_to_double(v)); }
};
struct FloatToBFloat16 {
  uint16_t operator()(float v) const { return sdk::double_to_bfloat16_bits(v); }
};

// out[i] = the reduction of parts[0][i], ..., parts[W-1][i], in rank order.
template <typename T, typename A, typename Widen, typename Narrow>
void reduce_parts(const std::vector<const char*>& parts, char* out, size_t n, emucclRedOp_t op, Widen widen,
                  Narrow narrow) {
  const auto ranks = static_cast<A>(parts.size());
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, parts[0] + i * sizeof(T), sizeof(T));
    A acc = widen(v);
    for (size_t q = 1; q < parts.size(); ++q) {
      std::memcpy(&v, parts[q] + i * sizeof(T), sizeof(T));
      acc = combine<A>(acc, widen(v), op);
    }
    if (op == emucclAvg) acc = static_cast<A>(acc / ranks);
    const T result = narrow(acc);
    std::memcpy(out + i * sizeof(T), &result, sizeof(T));
  }
}

void reduce(const std::vector<const char*>& parts, char* out, size_t n, emucclDataType_t t,
            emucclRedOp_t op) {
  switch (t) {
    case emucclInt8:
      return reduce_parts<int8_t, int8_t>(parts, out, n, op, Same{}, Same{});
    case emucclUint8:
      return reduce_parts<uint8_t, uint8_t>(parts, out, n, op, Same{}, Same{});
    case emucclInt32:
      return reduce_parts<int32_t, int32_t>(parts, out, n, op, Same{}, Same{});
    case emucclUint32:
      return reduce_parts<uint32_t, uint32_t>(parts, out, n, op, Same{}, Same{});
    case emucclInt64:
      return reduce_parts<int64_t, int64_t>(parts, out, n, op, Same{}, Same{});
    case emucclUint64:
      return reduce_parts<uint64_t, uint64_t>(parts, out, n, op, Same{}, Same{});
    case emucclFloat16:
      return reduce_parts<uint16_t, float>(parts, out, n, op, HalfToFloat{}, FloatToHalf{});
    case emucclFloat32:
      return reduce_parts<float, float>(parts, out, n, op, Same{}, Same{});
    case emucclFloat64:
      return reduce_parts<double, double>(parts, out, n, op, Same{}, Same{});
    case emucclBfloat16:
      return reduce_parts<uint16_t, float>(parts, out, n, op, BFloat16ToFloat{}, FloatToBFloat16{});
  }
}

}  // namespace

// ---- communicators ------------------------------------------------------------------------------

// One rank's view of a communicator: its mapping of the segment. Shared by the caller's handle
// and the work enqueued with it, so the mapping outlives a destroy until that work has run.
class CommState {
 public:
  CommState(Device* device, char* base, int rank, int nranks)
      : device_(device), base_(base), rank_(rank), nranks_(nranks) {}
  ~CommState() { (void)munmap(base_, kSegmentBytes); }
  CommState(const CommState&) = delete;
  CommState& operator=(const CommState&) = delete;

  Device* device() const { return device_; }
  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  std::string error() {
    std::lock_guard<std::mutex> lock(error_mutex_);
    return error_;
  }

  // Runs one collective's work on its stream's thread, one at a time per communicator.
  template <typename Work>
  void run(const Work& work) {
    if (device_->fault() != emuSuccess || failed()) return;  // a faulted device runs nothing
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      work(*this);
    } catch (const Failure&) {
    } catch (const std::exception& e) {
      fail(std::string("a collective failed: ") + e.what());
    }
  }

  // One round (the file's comment): `write(slot)` fills this rank's slot, then `read()` reads
  // the ranks' slots.
  template <typename Write, typename Read>
  void round(const char* what, const Write& write, const Read& read) {
    const uint32_t r = ++round_;
    for (int q = 0; q < nranks_; ++q) wait_for(header().consumed[q], r - 1, q, what);
    write(slot(rank_));
    publish(header().arrived[rank_], r);
    for (int q = 0; q < nranks_; ++q) wait_for(header().arrived[q], r, q, what);
    read();
    publish(header().consumed[rank_], r);
  }

  char* slot(int q) const { return base_ + kHeaderBytes + static_cast<size_t>(q) * kSlotBytes; }
  Mailbox& mailbox(int from, int to) const {
    return reinterpret_cast<Mailbox*>(base_ + kMailOffset)[static_cast<size_t>(from) * nranks_ + to];
  }

  // Waits until `word` reaches `target`; `q` is the rank that moves it.
  void wait_for(Counter& word, uint32_t target, int q, const char* what) {
    for (int spin = 0; spin < 64; ++spin) {
      if (reached(word, target)) return;
      std::this_thread::yield();
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds());
    for (;;) {
      const uint32_t seen = word.load(std::memory_order_acquire);
      if (static_cast<int32_t>(seen - target) >= 0) return;
      futex_wait(word, seen, 20'000'000);
      if (reached(word, target)) return;
      const pid_t pid = header().pid[q].load(std::memory_order_acquire);
      if (pid != getpid() && !alive(pid))
        fail(std::string(what) + ": rank " + std::to_string(q) + " (pid " + std::to_string(pid) +
             ") exited before taking part");
      if (std::chrono::steady_clock::now() > deadline)
        fail(std::string(what) + ": rank " + std::to_string(q) + " did not take part within " +
             std::to_string(static_cast<int>(timeout_seconds())) + " s (DEVPLUG_GPU_EMULATED_CCL_TIMEOUT_S)");
    }
  }

  [[noreturn]] void fail(const std::string& what) {
    const std::string message =
        "emuccl rank " + std::to_string(rank_) + " of " + std::to_string(nranks_) + ": " + what;
    {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (error_.empty()) error_ = message;
    }
    failed_.store(true, std::memory_order_release);
    device_->set_fault(emuErrorLaunchFailure, message);
    throw Failure{};
  }

 private:
  Header& header() const { return *reinterpret_cast<Header*>(base_); }

  Device* const device_;
  char* const base_;
  const int rank_;
  const int nranks_;
  std::mutex mutex_;
  uint32_t round_ = 0;  // rounds run, guarded by mutex_
  std::atomic<bool> failed_{false};
  std::mutex error_mutex_;
  std::string error_;
};

class CommHandle {
 public:
  explicit CommHandle(std::shared_ptr<CommState> s) : state(std::move(s)) {}
  std::shared_ptr<CommState> state;
};

namespace {

emucclResult_t fail_now(emucclResult_t result, std::string what) {
  t_last_error = std::move(what);
  return result;
}

// The checks every enqueue makes, then the work on the stream.
template <typename Work>
emucclResult_t enqueue(emucclComm_t comm, emuStream_t stream,
                       std::initializer_list<std::pair<const void*, size_t>> ranges, const char* what,
                       Work work) {
  if (comm == nullptr) return fail_now(emucclInvalidArgument, std::string(what) + ": comm is NULL");
  const std::shared_ptr<CommState>& state = comm->state;
  if (!stream_is_live(stream))
    return fail_now(emucclInvalidArgument, std::string(what) + ": not a live stream");
  Stream* s = resolve_stream(stream);
  if (s->device() != state->device())
    return fail_now(emucclInvalidArgument,
                    std::string(what) + ": the stream is of device " + std::to_string(s->device()->index()) +
                        ", the communicator of device " + std::to_string(state->device()->index()));
  if (state->failed()) return fail_now(emucclRemoteError, state->error());
  if (s->device()->fault() != emuSuccess)
    return fail_now(emucclUnhandledCudaError, std::string(what) + ": the device has faulted");
  for (const auto& [ptr, bytes] : ranges)
    if (bytes != 0 && !inside_allocation(ptr, bytes))
      return fail_now(emucclInvalidArgument, std::string(what) + ": a buffer of " + std::to_string(bytes) +
                                                 " bytes outside device memory");
  submit(s, [state, work = std::move(work)] { state->run(work); });
  return emucclSuccess;
}

}  // namespace
}  // namespace devplug::gpu::emu

using namespace devplug::gpu::emu;

const char* emucclGetErrorString(emucclResult_t result) {
  switch (result) {
    case emucclSuccess:
      return "no error";
    case emucclUnhandledCudaError:
      return "unhandled device error";
    case emucclSystemError:
      return "unhandled system error";
    case emucclInternalError:
      return "internal error";
    case emucclInvalidArgument:
      return "invalid argument";
    case emucclInvalidUsage:
      return "invalid usage";
    case emucclRemoteError:
      return "remote process exited or there was a network error";
  }
  return "unknown result code";
}

const char* emucclGetLastError(emucclComm_t comm) {
  if (comm != nullptr && comm->state->failed()) t_last_error = comm->state->error();
  return t_last_error.c_str();
}

emucclResult_t emucclGetUniqueId(emucclUniqueId* id) {
  if (id == nullptr) return fail_now(emucclInvalidArgument, "emucclGetUniqueId: id is NULL");
  static std::atomic<uint64_t> counter{0};
  std::memset(id->internal, 0, sizeof id->internal);
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  std::snprintf(id->internal, sizeof id->internal, "%s/devplug-emuccl-%d-%llx-%llu", kIdMagic,
                static_cast<int>(getpid()), static_cast<unsigned long long>(now),
                static_cast<unsigned long long>(counter.fetch_add(1)));
  return emucclSuccess;
}

emucclResult_t emucclCommInitRank(emucclComm_t* comm, int nranks, emucclUniqueId id, int rank) {
  if (comm == nullptr) return fail_now(emucclInvalidArgument, "emucclCommInitRank: comm is NULL");
  *comm = nullptr;
  if (nranks < 1 || nranks > EMUCCL_MAX_RANKS || rank < 0 || rank >= nranks)
    return fail_now(emucclInvalidArgument, "emucclCommInitRank: rank " + std::to_string(rank) + " of " +
                                               std::to_string(nranks) + " (at most " +
                                               std::to_string(EMUCCL_MAX_RANKS) + " ranks)");
  const size_t magic = sizeof kIdMagic - 1;
  if (std::memcmp(id.internal, kIdMagic, magic) != 0 ||
      std::memchr(id.internal, '\0', sizeof id.internal) == nullptr || id.internal[magic] != '/')
    return fail_now(emucclInvalidArgument, "emucclCommInitRank: the id was not made by emucclGetUniqueId");
  const char* name = id.internal + magic;
  Device* device = current_device();
  if (device->fault() != emuSuccess)
    return fail_now(emucclUnhandledCudaError, "emucclCommInitRank: the device has faulted");

  const int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
  if (fd < 0)
    return fail_now(emucclSystemError, std::string("shm_open ") + name + ": " + std::strerror(errno));
  void* mapped = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(kSegmentBytes)) == 0)
    mapped = mmap(nullptr, kSegmentBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int map_errno = errno;
  (void)close(fd);
  if (mapped == MAP_FAILED)
    return fail_now(emucclSystemError, std::string("mapping ") + name + ": " + std::strerror(map_errno));
  auto state = std::make_shared<CommState>(device, static_cast<char*>(mapped), rank, nranks);
  auto& header = *static_cast<Header*>(mapped);

  uint32_t size = 0;
  if (!header.world_size.compare_exchange_strong(size, static_cast<uint32_t>(nranks)) &&
      size != static_cast<uint32_t>(nranks))
    return fail_now(emucclInvalidUsage, "emucclCommInitRank: rank " + std::to_string(rank) + " gave " +
                                            std::to_string(nranks) + " ranks, another rank " +
                                            std::to_string(size));
  int32_t none = 0;
  if (!header.pid[rank].compare_exchange_strong(none, static_cast<int32_t>(getpid())))
    return fail_now(emucclInvalidUsage, "emucclCommInitRank: rank " + std::to_string(rank) +
                                            " has joined this communicator already");
  header.joined.fetch_add(1, std::memory_order_acq_rel);
  futex_wake(header.joined);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds());
  while (!reached(header.joined, static_cast<uint32_t>(nranks))) {
    const uint32_t seen = header.joined.load(std::memory_order_acquire);
    futex_wait(header.joined, seen, 20'000'000);
    if (std::chrono::steady_clock::now() > deadline &&
        !reached(header.joined, static_cast<uint32_t>(nranks))) {
      std::string missing;
      for (int q = 0; q < nranks; ++q)
        if (header.pid[q].load() == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(q);
      (void)shm_unlink(name);
      return fail_now(emucclRemoteError, "emucclCommInitRank: ranks " + missing + " of " +
                                             std::to_string(nranks) + " did not join within " +
                                             std::to_string(static_cast<int>(timeout_seconds())) +
                                             " s (DEVPLUG_GPU_EMULATED_CCL_TIMEOUT_S)");
    }
  }
  // Every rank has the segment mapped: the name can go, so nothing is left behind.
  if (rank == 0) (void)shm_unlink(name);
  *comm = new CommHandle(std::move(state));
  return emucclSuccess;
}

emucclResult_t emucclCommDestroy(emucclComm_t comm) {
  if (comm == nullptr) return fail_now(emucclInvalidArgument, "emucclCommDestroy: comm is NULL");
  delete comm;
  return emucclSuccess;
}

emucclResult_t emucclCommGetAsyncError(emucclComm_t comm, emucclResult_t* async_error) {
  if (comm == nullptr || async_error == nullptr)
    return fail_now(emucclInvalidArgument, "emucclCommGetAsyncError: NULL argument");
  *async_error = comm->state->failed() ? emucclRemoteError : emucclSuccess;
  return emucclSuccess;
}

emucclResult_t emucclCommCount(emucclComm_t comm, int* count) {
  if (comm == nullptr || count == nullptr)
    return fail_now(emucclInvalidArgument, "emucclCommCount: NULL argument");
  *count = comm->state->nranks();
  return emucclSuccess;
}

emucclResult_t emucclCommUserRank(emucclComm_t comm, int* rank) {
  if (comm == nullptr || rank == nullptr)
    return fail_now(emucclInvalidArgument, "emucclCommUserRank: NULL argument");
  *rank = comm->state->rank();
  return emucclSuccess;
}

emucclResult_t emucclAllReduce(const void* sendbuff, void* recvbuff, size_t count, emucclDataType_t datatype,
                               emucclRedOp_t op, emucclComm_t comm, emuStream_t stream) {
  const size_t elem = dtype_size(datatype);
  if (elem == 0 || !valid_op(op)) return fail_now(emucclInvalidArgument, "emucclAllReduce: dtype or op");
  const size_t bytes = count * elem;
  const auto* send = static_cast<const char*>(sendbuff);
  auto* recv = static_cast<char*>(recvbuff);
  return enqueue(comm, stream, {{send, bytes}, {recv, bytes}}, "all_reduce", [=](CommState& c) {
    const size_t per = kSlotBytes / elem;
    std::vector<const char*> parts(static_cast<size_t>(c.nranks()));
    for (size_t at = 0; at < count; at += per) {
      const size_t n = std::min(per, count - at);
      c.round(
          "all_reduce", [&](char* mine) { std::memcpy(mine, send + at * elem, n * elem); },
          [&] {
            for (int q = 0; q < c.nranks(); ++q) parts[static_cast<size_t>(q)] = c.slot(q);
            reduce(parts, recv + at * elem, n, datatype, op);
          });
    }
  });
}

emucclResult_t emucclBroadcast(const void* sendbuff, void* recvbuff, size_t count, emucclDataType_t datatype,
                               int root, emucclComm_t comm, emuStream_t stream) {
  const size_t elem = dtype_size(datatype);
  if (elem == 0) return fail_now(emucclInvalidArgument, "emucclBroadcast: dtype");
  if (comm != nullptr && (root < 0 || root >= comm->state->nranks()))
    return fail_now(emucclInvalidArgument, "emucclBroadcast: root " + std::to_string(root));
  const size_t bytes = count * elem;
  const bool is_root = comm != nullptr && comm->state->rank() == root;
  const auto* send = static_cast<const char*>(sendbuff);
  auto* recv = static_cast<char*>(recvbuff);
  return enqueue(comm, stream, {{is_root ? send : nullptr, is_root ? bytes : 0}, {recv, bytes}}, "broadcast",
                 [=](CommState& c) {
                   for (size_t at = 0; at < bytes; at += kSlotBytes) {
                     const size_t n = std::min(kSlotBytes, bytes - at);
                     c.round(
                         "broadcast",
                         [&](char* mine) {
                           if (is_root) std::memcpy(mine, send + at, n);
                         },
                         [&] {
                           if (!is_root)
                             std::memcpy(recv + at, c.slot(root), n);
                           else if (recv != send)
                             std::memmove(recv + at, send + at, n);
                         });
                   }
                 });
}

emucclResult_t emucclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                               emucclDataType_t datatype, emucclComm_t comm, emuStream_t stream) {
  const size_t elem = dtype_size(datatype);
  if (elem == 0) return fail_now(emucclInvalidArgument, "emucclAllGather: dtype");
  const size_t part = sendcount * elem;
  const size_t ranks = comm != nullptr ? static_cast<size_t>(comm->state->nranks()) : 0;
  const auto* send = static_cast<const char*>(sendbuff);
  auto* recv = static_cast<char*>(recvbuff);
  return enqueue(comm, stream, {{send, part}, {recv, part * ranks}}, "all_gather", [=](CommState& c) {
    for (size_t at = 0; at < part; at += kSlotBytes) {
      const size_t n = std::min(kSlotBytes, part - at);
      c.round(
          "all_gather", [&](char* mine) { std::memcpy(mine, send + at, n); },
          [&] {
            for (int q = 0; q < c.nranks(); ++q)
              std::memmove(recv + static_cast<size_t>(q) * part + at, c.slot(q), n);
          });
    }
  });
}

namespace {

// reduce_scatter and all_to_all: `count` elements to each rank, in rounds of up to `per` of
// each; rank q's piece for this rank sits at rank * per elements into q's slot.
template <typename Read>
void exchange_parts(CommState& c, const char* send, size_t count, size_t elem, const char* what,
                    const Read& read) {
  const size_t ranks = static_cast<size_t>(c.nranks());
  const size_t per = kSlotBytes / (ranks * elem);
  for (size_t at = 0; at < count; at += per) {
    const size_t n = std::min(per, count - at);
    c.round(
        what,
        [&](char* mine) {
          for (size_t q = 0; q < ranks; ++q)
            std::memcpy(mine + q * per * elem, send + (q * count + at) * elem, n * elem);
        },
        [&] { read(at, n, per * elem * static_cast<size_t>(c.rank())); });
  }
}

// Fails a send whose receiver expects another size.
void refused(CommState& c, const Mailbox& box, int peer, size_t bytes) {
  if (box.refused.load(std::memory_order_acquire) != 0)
    c.fail("send: rank " + std::to_string(peer) + " receives another size than the " + std::to_string(bytes) +
           " bytes this rank sends");
}

}  // namespace

emucclResult_t emucclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                   emucclDataType_t datatype, emucclRedOp_t op, emucclComm_t comm,
                                   emuStream_t stream) {
  const size_t elem = dtype_size(datatype);
  if (elem == 0 || !valid_op(op)) return fail_now(emucclInvalidArgument, "emucclReduceScatter: dtype or op");
  const size_t ranks = comm != nullptr ? static_cast<size_t>(comm->state->nranks()) : 0;
  const auto* send = static_cast<const char*>(sendbuff);
  auto* recv = static_cast<char*>(recvbuff);
  return enqueue(comm, stream, {{send, recvcount * elem * ranks}, {recv, recvcount * elem}}, "reduce_scatter",
                 [=](CommState& c) {
                   std::vector<const char*> parts(static_cast<size_t>(c.nranks()));
                   exchange_parts(c, send, recvcount, elem, "reduce_scatter",
                                  [&](size_t at, size_t n, size_t mine) {
                                    for (int q = 0; q < c.nranks(); ++q)
                                      parts[static_cast<size_t>(q)] = c.slot(q) + mine;
                                    reduce(parts, recv + at * elem, n, datatype, op);
                                  });
                 });
}

emucclResult_t emucclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, emucclDataType_t datatype,
                              emucclComm_t comm, emuStream_t stream) {
  const size_t elem = dtype_size(datatype);
  if (elem == 0) return fail_now(emucclInvalidArgument, "emucclAlltoAll: dtype");
  const size_t ranks = comm != nullptr ? static_cast<size_t>(comm->state->nranks()) : 0;
  const auto* send = static_cast<const char*>(sendbuff);
  auto* recv = static_cast<char*>(recvbuff);
  return enqueue(comm, stream, {{send, count * elem * ranks}, {recv, count * elem * ranks}}, "all_to_all",
                 [=](CommState& c) {
                   exchange_parts(c, send, count, elem, "all_to_all", [&](size_t at, size_t n, size_t mine) {
                     for (int q = 0; q < c.nranks(); ++q)
                       std::memcpy(recv + (static_cast<size_t>(q) * count + at) * elem, c.slot(q) + mine,
                                   n * elem);
                   });
                 });
}

emucclResult_t emucclSend(const void* sendbuff, size_t count, emucclDataType_t datatype, int peer,
                          emucclComm_t comm, emuStream_t stream) {
  const size_t elem = dtype_size(datatype);
  if (elem == 0) return fail_now(emucclInvalidArgument, "emucclSend: dtype");
  if (comm != nullptr && (peer < 0 || peer >= comm->state->nranks() || peer == comm->state->rank()))
    return fail_now(emucclInvalidArgument, "emucclSend: peer " + std::to_string(peer));
  const size_t bytes = count * elem;
  const auto* send = static_cast<const char*>(sendbuff);
  return enqueue(comm, stream, {{send, bytes}}, "send", [=](CommState& c) {
    Mailbox& box = c.mailbox(c.rank(), peer);
    size_t at = 0;
    do {  // an empty message is one empty piece
      const uint32_t sent = box.sent.load(std::memory_order_relaxed);
      c.wait_for(box.taken, sent, peer, "send");
      refused(c, box, peer, bytes);
      const size_t n = std::min(kMailBytes, bytes - at);
      std::memcpy(box.data, send + at, n);
      box.piece_bytes = n;
      box.message_bytes = bytes;
      publish(box.sent, sent + 1);
      at += n;
    } while (at < bytes);
    // The pair completes together: the last piece has been taken.
    c.wait_for(box.taken, box.sent.load(std::memory_order_relaxed), peer, "send");
    refused(c, box, peer, bytes);
  });
}

emucclResult_t emucclRecv(void* recvbuff, size_t count, emucclDataType_t datatype, int peer,
                          emucclComm_t comm, emuStream_t stream) {
  const size_t elem = dtype_size(datatype);
  if (elem == 0) return fail_now(emucclInvalidArgument, "emucclRecv: dtype");
  if (comm != nullptr && (peer < 0 || peer >= comm->state->nranks() || peer == comm->state->rank()))
    return fail_now(emucclInvalidArgument, "emucclRecv: peer " + std::to_string(peer));
  const size_t bytes = count * elem;
  auto* recv = static_cast<char*>(recvbuff);
  return enqueue(comm, stream, {{recv, bytes}}, "recv", [=](CommState& c) {
    Mailbox& box = c.mailbox(peer, c.rank());
    size_t at = 0;
    do {
      const uint32_t taken = box.taken.load(std::memory_order_relaxed);
      c.wait_for(box.sent, taken + 1, peer, "recv");
      const size_t n = std::min(kMailBytes, bytes - at);
      if (box.message_bytes != bytes || box.piece_bytes != n) {
        const std::string what = "recv: rank " + std::to_string(peer) + " sent " +
                                 std::to_string(box.message_bytes) + " bytes, this rank receives " +
                                 std::to_string(bytes);
        box.refused.store(1, std::memory_order_relaxed);
        publish(box.taken, taken + 1);  // wakes the sender, which sees the refusal
        c.fail(what);
      }
      std::memcpy(recv + at, box.data, n);
      publish(box.taken, taken + 1);
      at += n;
    } while (at < bytes);
  });
}
