// SPDX-License-Identifier: Apache-2.0
// The emulated GPU's collectives library (emu_ccl.hpp) with its ranks in separate processes,
// as torch.distributed runs them: this executable starts itself once per rank with the
// scenario in its environment, and each child runs its rank and exits (0: everything as
// expected) before GoogleTest starts. Covered: every collective's values across 2 and 4
// processes, with tensors larger than a slot and a mailbox; a rank that exits (the peer fails
// within seconds, naming it, instead of waiting); ranks that never join (UNAVAILABLE-style
// emucclRemoteError naming them after the timeout); a receive of another size than the send
// (both sides fail); ranks that disagree on the world size.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "emu_ccl.hpp"
#include "emu_runtime.hpp"

extern char** environ;

namespace {

// ---- the children -----------------------------------------------------------------------------

struct Child {
  std::string scenario;
  int rank = 0;
  int nranks = 0;
  emucclUniqueId id{};
};

// Exit codes of a child.
constexpr int kOk = 0;
constexpr int kWrong = 1;     // a value or a result other than expected (stderr says which)
constexpr int kTimedOut = 3;  // world_size scenario: this rank waited and timed out

int wrong(const Child& c, const std::string& what) {
  std::fprintf(stderr, "rank %d of %d (%s): %s\n", c.rank, c.nranks, c.scenario.c_str(), what.c_str());
  return kWrong;
}

template <typename T>
T* device_copy(const std::vector<T>& host) {
  void* p = nullptr;
  if (emuMalloc(&p, std::max<size_t>(1, host.size() * sizeof(T))) != emuSuccess) return nullptr;
  if (!host.empty())
    (void)emuMemcpyAsync(p, host.data(), host.size() * sizeof(T), emuMemcpyHostToDevice, nullptr);
  (void)emuStreamSynchronize(nullptr);
  return static_cast<T*>(p);
}

template <typename T>
std::vector<T> host_copy(const T* device, size_t n, emuStream_t stream) {
  std::vector<T> out(n);
  (void)emuMemcpyAsync(out.data(), device, n * sizeof(T), emuMemcpyDeviceToHost, stream);
  (void)emuStreamSynchronize(stream);
  return out;
}

float value(int q, size_t i) { return static_cast<float>((q + 1) * 3 + static_cast<int>(i % 5)); }

// Every collective, checked; tensors span several slots (1 MiB) and mailboxes (256 KiB).
int exchange(const Child& c, emucclComm_t comm, emuStream_t s) {
  const size_t n = 600000;  // 2.4 MB of float32
  std::vector<float> mine(n), sum(n, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    mine[i] = value(c.rank, i);
    for (int q = 0; q < c.nranks; ++q) sum[i] += value(q, i);
  }
  float* t = device_copy(mine);
  if (emucclAllReduce(t, t, n, emucclFloat32, emucclSum, comm, s) != emucclSuccess)
    return wrong(c, "all_reduce");
  if (host_copy(t, n, s) != sum) return wrong(c, "all_reduce SUM values");

  std::vector<int64_t> ints(7), gathered;
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = c.rank * 1000 + static_cast<int64_t>(i);
  for (int q = 0; q < c.nranks; ++q)
    for (size_t i = 0; i < ints.size(); ++i) gathered.push_back(q * 1000 + static_cast<int64_t>(i));
  int64_t* gi = device_copy(ints);
  int64_t* go = device_copy(std::vector<int64_t>(gathered.size()));
  if (emucclAllGather(gi, go, ints.size(), emucclInt64, comm, s) != emucclSuccess)
    return wrong(c, "all_gather");
  if (host_copy(go, gathered.size(), s) != gathered) return wrong(c, "all_gather values");

  const size_t per = 100000;  // reduce_scatter and all_to_all: 4 rounds and more per part
  std::vector<float> parts(per * c.nranks), scattered(per, 0.0f), swapped(per * c.nranks);
  for (size_t i = 0; i < parts.size(); ++i) parts[i] = value(c.rank, i);
  for (size_t i = 0; i < per; ++i)
    for (int q = 0; q < c.nranks; ++q) scattered[i] += value(q, c.rank * per + i);
  for (int q = 0; q < c.nranks; ++q)
    for (size_t i = 0; i < per; ++i) swapped[q * per + i] = value(q, c.rank * per + i);
  float* pi = device_copy(parts);
  float* po = device_copy(std::vector<float>(parts.size()));
  if (emucclReduceScatter(pi, po, per, emucclFloat32, emucclSum, comm, s) != emucclSuccess)
    return wrong(c, "reduce_scatter");
  if (host_copy(po, per, s) != scattered) return wrong(c, "reduce_scatter values");
  if (emucclAlltoAll(pi, po, per, emucclFloat32, comm, s) != emucclSuccess) return wrong(c, "all_to_all");
  if (host_copy(po, parts.size(), s) != swapped) return wrong(c, "all_to_all values");

  const int root = c.nranks - 1;
  std::vector<float> from_root(n);
  for (size_t i = 0; i < n; ++i) from_root[i] = value(root, i);
  float* b = device_copy(c.rank == root ? from_root : std::vector<float>(n));
  if (emucclBroadcast(b, b, n, emucclFloat32, root, comm, s) != emucclSuccess) return wrong(c, "broadcast");
  if (host_copy(b, n, s) != from_root) return wrong(c, "broadcast values");

  // A ring of 2.4 MB messages: even ranks send first, odd ranks receive first.
  const int next = (c.rank + 1) % c.nranks, prev = (c.rank + c.nranks - 1) % c.nranks;
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = value(prev, i);
  float* r = device_copy(std::vector<float>(n));
  float* m = device_copy(mine);
  const bool ok = c.rank % 2 == 0 ? emucclSend(m, n, emucclFloat32, next, comm, s) == emucclSuccess &&
                                        emucclRecv(r, n, emucclFloat32, prev, comm, s) == emucclSuccess
                                  : emucclRecv(r, n, emucclFloat32, prev, comm, s) == emucclSuccess &&
                                        emucclSend(m, n, emucclFloat32, next, comm, s) == emucclSuccess;
  if (!ok) return wrong(c, "send/recv");
  if (host_copy(r, n, s) != want) return wrong(c, "recv values");
  for (void* p :
       {static_cast<void*>(t), static_cast<void*>(gi), static_cast<void*>(go), static_cast<void*>(pi),
        static_cast<void*>(po), static_cast<void*>(b), static_cast<void*>(r), static_cast<void*>(m)})
    (void)emuFree(p);
  return kOk;
}

// A collective whose peer is gone must fail on this rank, within seconds, naming the peer.
int expect_failed_collective(const Child& c, emucclComm_t comm, emuStream_t s, const char* words) {
  const auto start = std::chrono::steady_clock::now();
  const emuError_t synced = emuStreamSynchronize(s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (synced != emuErrorLaunchFailure)
    return wrong(c,
                 std::string("the stream gave ") + emuGetErrorName(synced) + ", not emuErrorLaunchFailure");
  if (seconds > 20.0) return wrong(c, "the failure took " + std::to_string(seconds) + " s");
  emucclResult_t async = emucclSuccess;
  if (emucclCommGetAsyncError(comm, &async) != emucclSuccess || async != emucclRemoteError)
    return wrong(c, "the communicator's async error is not emucclRemoteError");
  const std::string why = emucclGetLastError(comm);
  if (why.find(words) == std::string::npos)
    return wrong(c, "the error \"" + why + "\" does not say \"" + words + "\"");
  // Later collectives on the communicator are refused at once.
  float* x = device_copy(std::vector<float>(4));
  if (emucclAllReduce(x, x, 4, emucclFloat32, emucclSum, comm, s) == emucclSuccess)
    return wrong(c, "a collective on a failed communicator was accepted");
  return kOk;
}

int run_child(const Child& c) {
  emucclComm_t comm = nullptr;
  if (c.scenario == "join_timeout" || c.scenario == "world_size") {
    const int nranks = c.scenario == "world_size" ? c.nranks + c.rank : c.nranks;  // rank 1 says one more
    const emucclResult_t joined = emucclCommInitRank(&comm, nranks, c.id, c.rank);
    const std::string why = emucclGetLastError(nullptr);
    if (c.scenario == "world_size") {
      if (joined == emucclInvalidUsage && why.find("ranks, another rank") != std::string::npos) return kOk;
      if (joined == emucclRemoteError) return kTimedOut;
      return wrong(c, std::string("joining gave ") + emucclGetErrorString(joined) + ": " + why);
    }
    if (joined != emucclRemoteError)
      return wrong(c, std::string("joining gave ") + emucclGetErrorString(joined));
    if (why.find("ranks 1, 2 of 3 did not join within 1 s") == std::string::npos)
      return wrong(c, "the join error \"" + why + "\" does not name ranks 1 and 2");
    return kOk;
  }
  if (emucclCommInitRank(&comm, c.nranks, c.id, c.rank) != emucclSuccess)
    return wrong(c, std::string("joining: ") + emucclGetLastError(nullptr));
  emuStream_t s = nullptr;
  if (emuStreamCreateWithFlags(&s, emuStreamNonBlocking) != emuSuccess) return wrong(c, "stream");
  int result = kOk;
  if (c.scenario == "exchange") {
    result = exchange(c, comm, s);
  } else if (c.scenario == "dead_peer") {
    if (c.rank == 1) _exit(kOk);  // joins, then leaves without a word
    float* x = device_copy(std::vector<float>(1000, 1.0f));
    if (emucclAllReduce(x, x, 1000, emucclFloat32, emucclSum, comm, s) != emucclSuccess)
      return wrong(c, "all_reduce was refused at enqueue");
    result = expect_failed_collective(c, comm, s, "rank 1");
  } else if (c.scenario == "size_mismatch") {
    uint8_t* x = device_copy(std::vector<uint8_t>(2000, 7));
    const emucclResult_t r = c.rank == 0 ? emucclSend(x, 1000, emucclUint8, 1, comm, s)
                                         : emucclRecv(x, 2000, emucclUint8, 0, comm, s);
    if (r != emucclSuccess) return wrong(c, "send/recv refused at enqueue");
    result = expect_failed_collective(c, comm, s, c.rank == 0 ? "receives another size" : "sent 1000 bytes");
  } else {
    return wrong(c, "unknown scenario");
  }
  if (result == kOk && c.scenario == "exchange") {
    (void)emuStreamDestroy(s);
    if (emucclCommDestroy(comm) != emucclSuccess) return wrong(c, "destroy");
  }
  return result;
}

// Child mode: the parent sets EMUCCL_TEST_SCENARIO; the child runs its rank and exits before
// GoogleTest starts.
const int g_child_mode = [] {
  const char* scenario = std::getenv("EMUCCL_TEST_SCENARIO");
  if (scenario == nullptr) return 0;
  Child c;
  c.scenario = scenario;
  c.rank = std::atoi(std::getenv("EMUCCL_TEST_RANK"));
  c.nranks = std::atoi(std::getenv("EMUCCL_TEST_NRANKS"));
  const char* hex = std::getenv("EMUCCL_TEST_ID");
  for (size_t i = 0; i < sizeof c.id.internal && hex[2 * i] != '\0'; ++i) {
    unsigned byte = 0;
    std::sscanf(hex + 2 * i, "%2x", &byte);
    c.id.internal[i] = static_cast<char>(byte);
  }
  std::fflush(stdout);
  _exit(run_child(c));
}();

// ---- the parent -------------------------------------------------------------------------------

// Runs `ranks` (a subset of 0 .. nranks - 1) of `scenario` as child processes, reaping each as
// it exits (a peer must see an exited rank gone, not a zombie); their exit codes by rank.
std::map<int, int> run_ranks(const char* scenario, int nranks, const std::vector<int>& ranks,
                             const char* timeout_s = "60") {
  emucclUniqueId id{};
  EXPECT_EQ(emucclGetUniqueId(&id), emucclSuccess);
  std::string hex;
  for (char byte : id.internal) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", static_cast<unsigned char>(byte));
    hex += two;
  }
  std::map<pid_t, int> rank_of;
  for (int rank : ranks) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e)
      if (std::strncmp(*e, "EMUCCL_TEST_", 12) != 0 && std::strncmp(*e, "DEVPLUG_GPU_EMULATED_CCL", 24) != 0)
        env.emplace_back(*e);
    env.push_back(std::string("EMUCCL_TEST_SCENARIO=") + scenario);
    env.push_back("EMUCCL_TEST_RANK=" + std::to_string(rank));
    env.push_back("EMUCCL_TEST_NRANKS=" + std::to_string(nranks));
    env.push_back("EMUCCL_TEST_ID=" + hex);
    env.push_back(std::string("DEVPLUG_GPU_EMULATED_CCL_TIMEOUT_S=") + timeout_s);
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    char self[] = "/proc/self/exe";
    char* argv[] = {self, nullptr};
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data()), 0);
    rank_of[pid] = rank;
  }
  std::map<int, int> codes;
  while (codes.size() < rank_of.size()) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    if (rank_of.count(pid) == 0) continue;
    codes[rank_of[pid]] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  return codes;
}

TEST(EmulatedCcl, EveryCollectiveAcrossTwoAndFourProcesses) {
  for (int nranks : {2, 4}) {
    std::vector<int> all(static_cast<size_t>(nranks));
    for (int r = 0; r < nranks; ++r) all[static_cast<size_t>(r)] = r;
    for (const auto& [rank, code] : run_ranks("exchange", nranks, all))
      EXPECT_EQ(code, kOk) << "rank " << rank << " of " << nranks << " (its stderr says why)";
  }
}

TEST(EmulatedCcl, ARankThatExitsFailsItsPeerNamingIt) {
  const auto start = std::chrono::steady_clock::now();
  const std::map<int, int> codes = run_ranks("dead_peer", 2, {0, 1});
  EXPECT_EQ(codes.at(0), kOk);
  EXPECT_EQ(codes.at(1), kOk);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

TEST(EmulatedCcl, RanksThatNeverJoinAreNamedAfterTheTimeout) {
  const std::map<int, int> codes = run_ranks("join_timeout", 3, {0}, "1");
  EXPECT_EQ(codes.at(0), kOk);
}

TEST(EmulatedCcl, AReceiveOfAnotherSizeFailsBothSides) {
  const std::map<int, int> codes = run_ranks("size_mismatch", 2, {0, 1});
  EXPECT_EQ(codes.at(0), kOk);
  EXPECT_EQ(codes.at(1), kOk);
}

TEST(EmulatedCcl, RanksThatDisagreeOnTheWorldSizeAreRefused) {
  // The second rank to join is refused; the first waits for a rank that never comes.
  const std::map<int, int> codes = run_ranks("world_size", 2, {0, 1}, "2");
  std::vector<int> sorted{codes.at(0), codes.at(1)};
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{kOk, kTimedOut}));
}

TEST(EmulatedCcl, BadArgumentsAreRefusedAtOnce) {
  emucclComm_t comm = nullptr;
  emucclUniqueId id{};
  EXPECT_EQ(emucclGetUniqueId(nullptr), emucclInvalidArgument);
  EXPECT_EQ(emucclCommInitRank(&comm, 2, id, 0), emucclInvalidArgument);  // not an id
  ASSERT_EQ(emucclGetUniqueId(&id), emucclSuccess);
  EXPECT_EQ(emucclCommInitRank(nullptr, 1, id, 0), emucclInvalidArgument);
  EXPECT_EQ(emucclCommInitRank(&comm, 0, id, 0), emucclInvalidArgument);
  EXPECT_EQ(emucclCommInitRank(&comm, 2, id, 2), emucclInvalidArgument);
  EXPECT_EQ(emucclCommInitRank(&comm, EMUCCL_MAX_RANKS + 1, id, 0), emucclInvalidArgument);
  ASSERT_EQ(emucclCommInitRank(&comm, 1, id, 0), emucclSuccess);
  float host[4] = {};
  void* device = nullptr;
  ASSERT_EQ(emuMalloc(&device, sizeof host), emuSuccess);
  EXPECT_EQ(emucclAllReduce(host, host, 4, emucclFloat32, emucclSum, comm, nullptr), emucclInvalidArgument)
      << "host memory is not device memory";
  EXPECT_EQ(emucclAllReduce(device, device, 5, emucclFloat32, emucclSum, comm, nullptr),
            emucclInvalidArgument)
      << "past the allocation";
  EXPECT_EQ(emucclAllReduce(device, device, 4, static_cast<emucclDataType_t>(42), emucclSum, comm, nullptr),
            emucclInvalidArgument);
  EXPECT_EQ(emucclAllReduce(device, device, 4, emucclFloat32, static_cast<emucclRedOp_t>(9), comm, nullptr),
            emucclInvalidArgument);
  EXPECT_EQ(emucclBroadcast(device, device, 4, emucclFloat32, 1, comm, nullptr), emucclInvalidArgument);
  EXPECT_EQ(emucclSend(device, 4, emucclFloat32, 0, comm, nullptr), emucclInvalidArgument) << "to itself";
  EXPECT_EQ(emucclAllReduce(device, device, 4, emucclFloat32, emucclSum, nullptr, nullptr),
            emucclInvalidArgument);
  // One rank: every collective is a copy.
  const float values[4] = {1.5f, -2.0f, 3.0f, 4.25f};
  ASSERT_EQ(emuMemcpyAsync(device, values, sizeof values, emuMemcpyHostToDevice, nullptr), emuSuccess);
  EXPECT_EQ(emucclAllReduce(device, device, 4, emucclFloat32, emucclAvg, comm, nullptr), emucclSuccess);
  ASSERT_EQ(emuMemcpyAsync(host, device, sizeof host, emuMemcpyDeviceToHost, nullptr), emuSuccess);
  ASSERT_EQ(emuStreamSynchronize(nullptr), emuSuccess);
  EXPECT_EQ(std::memcmp(host, values, sizeof values), 0);
  EXPECT_EQ(emucclCommDestroy(comm), emucclSuccess);
  EXPECT_EQ(emuFree(device), emuSuccess);
}

}  // namespace
