// SPDX-License-Identifier: Apache-2.0
// torch.distributed on devplug devices: the c10d backend `devplug`.
//
// The transport is Gloo (torch's own ProcessGroupGloo, over TCP), made by the Python side
// with the same store, rank and size, and held here as a plain c10d::Backend. A collective
// on devplug tensors is staged through pinned host memory in three steps:
//
//   1. on the calling thread: each input is copied to a pinned host mirror on the caller's
//      current stream (non-blocking) and an event is recorded after the copies; the call
//      returns its Work at once;
//   2. on the backend's issue thread, in call order (every rank issues collectives in the
//      same order, as Gloo requires): wait for that event, then hand the mirrors to Gloo;
//   3. on the backend's completion thread: wait for Gloo, copy the host results back to the
//      devplug tensors on the backend's own stream, wait for those copies, and complete the
//      Work and its future.
//
// So the Work completes when the result is on the device; Work::wait() (and the future's
// callbacks) also make the caller's current stream wait for the copy-back's event. The
// issue thread never waits for Gloo, so a rank's isend and irecv cannot hold each other up
// (a receive's second step, which waits for its header, has a thread of its own).
//
// On a device whose memory is host memory (the reference, Level Zero on a CPU: the
// host_address extension), a dense tensor needs no mirror: Gloo works in place on a CPU
// tensor over the device memory, once the caller's stream has finished with it.
//
// Before a collective, the ranks compare what each is about to run (kind, reduction, dtype,
// element count) through one small Gloo all-gather, so a mismatch raises the same error on
// every rank instead of Gloo aborting the process or reinterpreting bytes.
//
// Device-native collectives: where the device's plugin offers the collectives extension
// (devplug_comm_*: NCCL, RCCL or oneCCL behind a vendor's plugin; the emulated GPU's NCCL
// double), all_reduce, broadcast, all_gather and reduce_scatter into or from one tensor and
// all_to_all with equal splits of one contiguous tensor (reductions: SUM, PRODUCT, MIN, MAX
// and AVG of NCCL's dtypes, MIN and MAX of bool) go to the plugin instead: no host mirror, no
// Gloo. The issue thread makes a stream of the backend wait for the caller's stream and
// enqueues the collective there; the Work completes when that stream has passed it. One
// communicator per device, made at the first collective on it that qualifies: every rank
// says whether its plugin can make one, rank 0's id goes to the others through Gloo, and
// all join. Everything else (lists of tensors, send and recv, bitwise reductions, int16, a
// plugin without the extension) is staged as above. TORCH_DEVPLUG_DIST_NATIVE=0 stages
// everything.
//
// CPU tensors given to this backend (it also serves the `cpu` device in
// init_process_group("devplug")) go to Gloo directly. What Gloo lacks is made up on the
// host: int16 (reduced as int32, moved as 16-bit floats), AVG of integers (a sum, divided
// with truncation, as NCCL does).
#include <ATen/core/ivalue.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/csrc/distributed/c10d/reducer_timer.hpp>
#include <torch/python.h>

#include <cstring>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "dlpack.hpp"
#include "runtime.hpp"
#include "storage.hpp"

namespace devplug::bridge {
namespace {

namespace py = pybind11;
using c10d::OpType;
using c10d::ReduceOp;
using WorkPtr = c10::intrusive_ptr<c10d::Work>;

constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

// One thread that runs jobs in the order they were queued. Jobs do not throw. The
// destructor runs what is still queued, then joins.
class SerialQueue {
 public:
  SerialQueue() : thread_([this] { loop(); }) {}
  SerialQueue(const SerialQueue&) = delete;
  SerialQueue& operator=(const SerialQueue&) = delete;
  ~SerialQueue() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

  void push(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

// The Work of a staged collective: completed by the completion thread once the results are
// on the device.
class StagedWork final : public c10d::Work {
 public:
  StagedWork(int rank, OpType type, std::vector<at::Tensor> outputs, c10::Device device)
      : Work(rank, type),
        outputs_(std::move(outputs)),
        device_(device),
        future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::ofTensors(),
                                                         std::vector<c10::Device>{device})) {}

  // The caller's current stream waits for the copy-back (already finished on the device
  // when the Work completes, so this is cheap). Work::wait() calls it holding mutex_, so
  // it uses its own.
  void synchronize() override {
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (!done_.has_value()) return;
    c10::impl::VirtualGuardImpl impl(kType);
    done_->block(impl.getStream(device_));
  }
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }
  int sourceRank() const override {
    std::lock_guard<std::mutex> lock(state_mutex_);
    TORCH_CHECK(source_rank_ >= 0,
                "devplug: sourceRank() is known only for a completed recv from any source");
    return source_rank_;
  }

  // From the completion thread, with `done` recorded after the copy-back (on success).
  void complete(std::exception_ptr error, std::optional<c10::Event> done, int source_rank) noexcept {
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      done_ = std::move(done);
      source_rank_ = source_rank;
    }
    try {
      if (error) {
        future_->setError(error);
      } else {
        future_->markCompleted(c10::IValue(outputs_));
      }
    } catch (...) {
      if (!error) error = std::current_exception();
    }
    finish(error);
  }

 private:
  std::vector<at::Tensor> outputs_;
  c10::Device device_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  mutable std::mutex state_mutex_;  // guards the two below
  std::optional<c10::Event> done_;  // recorded after the copy-back; unset on failure
  int source_rank_ = -1;
};

bool is_devplug(const at::Tensor& t) { return t.defined() && t.device().type() == kType; }

// The size of the pieces a large staged all_reduce goes in (see allreduce).
constexpr int64_t kPieceBytes = int64_t{4} << 20;

// A collective done in parts (each a Work of its own): complete when all are; its future
// holds the whole outputs.
class JoinedWork final : public c10d::Work {
 public:
  JoinedWork(int rank, OpType type, std::vector<at::Tensor> outputs,
             std::vector<c10::intrusive_ptr<c10d::Work>> parts, c10::Device device)
      : Work(rank, type),
        outputs_(std::move(outputs)),
        parts_(std::move(parts)),
        future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::ofTensors(),
                                                         std::vector<c10::Device>{device})) {
    // The callbacks hold the future and outputs, not this Work, which may go first.
    auto remaining = std::make_shared<std::atomic<size_t>>(parts_.size());
    auto settled = std::make_shared<std::atomic<bool>>(false);
    for (const auto& part : parts_) {
      part->getFuture()->addCallback(
          [future = future_, outputs = outputs_, remaining, settled](c10::ivalue::Future& done) {
            if (done.hasError()) {
              if (!settled->exchange(true)) future->setError(done.exception_ptr());
            } else if (remaining->fetch_sub(1) == 1 && !settled->exchange(true)) {
              future->markCompleted(c10::IValue(outputs));
            }
          });
    }
  }

  bool isCompleted() override {
    for (const auto& part : parts_)
      if (!part->isCompleted()) return false;
    return true;
  }
  bool isSuccess() const override {
    for (const auto& part : parts_)
      if (!part->isSuccess()) return false;
    return true;
  }
  std::exception_ptr exception() const override {
    for (const auto& part : parts_)
      if (auto e = part->exception()) return e;
    return nullptr;
  }
  bool wait(std::chrono::milliseconds timeout) override {
    for (const auto& part : parts_) part->wait(timeout);
    return true;
  }
  void synchronize() override {
    for (const auto& part : parts_) part->synchronize();
  }
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

 private:
  std::vector<at::Tensor> outputs_;
  std::vector<c10::intrusive_ptr<c10d::Work>> parts_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

// How a collective treats values: reductions combine them (int16 goes through Gloo as
// int32), the rest only move them (int16 travels as float16, the same bytes).
enum class Kind { kReduce, kMove };

// One staged collective: the host mirrors of its devplug tensors, and what must happen
// around the Gloo call.
class Staging {
 public:
  Staging(Kind kind, c10::Device device) : kind_(kind), device_(device) {}

  // The pinned host mirror of `t` (one per tensor, made on first use); `copy_in` enqueues
  // its device-to-host copy on the caller's current stream.
  at::Tensor mirror(const at::Tensor& t, bool copy_in, bool may_alias = true) {
    TORCH_CHECK(
        is_devplug(t), "devplug: a collective mixes devplug tensors with a tensor on ", t.device(),
        "; give one device's tensors (CPU tensors go to the CPU backend, e.g. \"cpu:gloo,devplug:devplug\")");
    TORCH_CHECK(t.device() == device_, "devplug: a collective's tensors must be on one device; got ",
                t.device(), " and ", device_);
    TORCH_CHECK(t.layout() == at::kStrided, "devplug: collectives take dense tensors, not ", t.layout());
    auto found = mirrors_.find(t.unsafeGetTensorImpl());
    if (found == mirrors_.end()) {
      // On a host-memory device a dense tensor is its own mirror: a CPU tensor over its
      // memory, which Gloo reads and writes in place (after the caller's stream finished).
      const bool alias = may_alias && t.is_contiguous() && t.numel() > 0 && host_memory(t.device().index());
      at::Tensor host =
          alias ? at::from_blob(bytes_view_of(t).host_address(), t.sizes(), t.options().device(at::kCPU))
                : at::empty(t.sizes(), t.options().device(at::kCPU).pinned_memory(true));
      found = mirrors_.emplace(t.unsafeGetTensorImpl(), Entry{t, host, alias, alias, false}).first;
    }
    if (copy_in && !found->second.copied_in) {
      found->second.host.copy_(t, /*non_blocking=*/true);
      found->second.copied_in = true;
    }
    return found->second.host;
  }
  // Marks `t` (already mirrored) as a result: copied back to the device after Gloo.
  void result(const at::Tensor& t) {
    auto found = mirrors_.find(t.unsafeGetTensorImpl());
    TORCH_INTERNAL_ASSERT(found != mirrors_.end());
    found->second.copy_out = true;
  }
  // A reduction's pure inputs are never aliased: Gloo may use them as scratch space (a
  // reduce's non-root ranks, reduce_scatter), and they must keep their values.
  at::Tensor input(const at::Tensor& t) { return for_gloo(mirror(t, true, kind_ == Kind::kMove)); }
  at::Tensor output(const at::Tensor& t, bool copy_in = false) {
    at::Tensor host = mirror(t, copy_in);
    result(t);
    return for_gloo(host);
  }
  std::vector<at::Tensor> inputs(const std::vector<at::Tensor>& ts) {
    std::vector<at::Tensor> out;
    for (const at::Tensor& t : ts) out.push_back(input(t));
    return out;
  }
  std::vector<at::Tensor> outputs(const std::vector<at::Tensor>& ts, bool copy_in = false) {
    std::vector<at::Tensor> out;
    for (const at::Tensor& t : ts) out.push_back(output(t, copy_in));
    return out;
  }
  std::vector<std::vector<at::Tensor>> outputs(const std::vector<std::vector<at::Tensor>>& lists) {
    std::vector<std::vector<at::Tensor>> out;
    for (const auto& list : lists) out.push_back(outputs(list));
    return out;
  }
  std::vector<std::vector<at::Tensor>> inputs(const std::vector<std::vector<at::Tensor>>& lists) {
    std::vector<std::vector<at::Tensor>> out;
    for (const auto& list : lists) out.push_back(inputs(list));
    return out;
  }

  // On the issue thread, once the copy-in finished: int16 values widened for Gloo.
  void before_gloo() {
    for (auto& [wide, host] : widened_) wide.copy_(host);
  }
  // After Gloo, on the host: results that went through Gloo in another dtype come back, and
  // `divide` (> 1: an integer AVG done as a sum) divides the results with truncation.
  void finish_on_host(int64_t divide) {
    for (auto& [wide, host] : widened_) host.copy_(wide);
    if (divide <= 1) return;
    for (auto& [impl, entry] : mirrors_)
      if (entry.copy_out) entry.host.copy_(at::div(entry.host, divide, "trunc"));
  }
  // Enqueues the copies back to the device on the current stream of this thread.
  void copy_out() {
    for (auto& [impl, entry] : mirrors_)
      if (entry.copy_out && !entry.alias) entry.device.copy_(entry.host, /*non_blocking=*/true);
  }
  std::vector<at::Tensor> results() const {
    std::vector<at::Tensor> out;
    for (const auto& [impl, entry] : mirrors_)
      if (entry.copy_out) out.push_back(entry.device);
    return out;
  }

 private:
  struct Entry {
    at::Tensor device;
    at::Tensor host;
    bool alias;      // host is the device tensor's own memory: nothing to copy
    bool copied_in;  // (or nothing more to copy in)
    bool copy_out;
  };

  at::Tensor for_gloo(const at::Tensor& host) {
    if (host.scalar_type() != at::kShort) return host;
    if (kind_ == Kind::kMove) return host.view(at::kHalf);
    // Made when Gloo is called (after the copy-in finished), not now.
    at::Tensor wide = at::empty(host.sizes(), host.options().dtype(at::kInt).pinned_memory(false));
    widened_.emplace_back(wide, host);
    return wide;
  }

  Kind kind_;
  c10::Device device_;
  std::map<c10::TensorImpl*, Entry> mirrors_;               // ordered: results() in a stable order
  std::vector<std::pair<at::Tensor, at::Tensor>> widened_;  // (int32 for Gloo, int16 mirror)
};

bool all_on_cpu(std::initializer_list<const std::vector<at::Tensor>*> lists) {
  bool any = false;
  for (const auto* list : lists)
    for (const at::Tensor& t : *list) {
      if (!t.defined()) continue;
      any = true;
      if (t.device().type() != at::kCPU) return false;
    }
  return any;
}

c10::Device device_of(std::initializer_list<const std::vector<at::Tensor>*> lists) {
  for (const auto* list : lists)
    for (const at::Tensor& t : *list)
      if (is_devplug(t)) return t.device();
  TORCH_CHECK(false, "devplug: the collective was given no tensor");
}

std::vector<at::Tensor> flat(const std::vector<std::vector<at::Tensor>>& lists) {
  std::vector<at::Tensor> out;
  for (const auto& list : lists) out.insert(out.end(), list.begin(), list.end());
  return out;
}

const char* op_name(ReduceOp::RedOpType op) {
  switch (op) {
    case ReduceOp::SUM:
      return "SUM";
    case ReduceOp::AVG:
      return "AVG";
    case ReduceOp::PRODUCT:
      return "PRODUCT";
    case ReduceOp::MIN:
      return "MIN";
    case ReduceOp::MAX:
      return "MAX";
    case ReduceOp::BAND:
      return "BAND";
    case ReduceOp::BOR:
      return "BOR";
    case ReduceOp::BXOR:
      return "BXOR";
    case ReduceOp::PREMUL_SUM:
      return "PREMUL_SUM";
    default:
      return "UNUSED";
  }
}

// Checks a reduction against the tensors' dtype, before anything is staged; returns the
// options Gloo runs with (`opts` with Gloo's reduction) and how much the host divides by
// afterwards (an integer AVG).
template <typename Options>
std::pair<Options, int64_t> plan_reduction(const Options& opts, const std::vector<at::Tensor>& tensors,
                                           int size) {
  const ReduceOp::RedOpType type = opts.reduceOp.op_;
  TORCH_CHECK_VALUE(type != ReduceOp::PREMUL_SUM && type != ReduceOp::UNUSED, "devplug: ReduceOp.",
                    op_name(type), " is not supported; use SUM (or AVG) and scale the tensor");
  for (const at::Tensor& t : tensors) {
    if (!t.defined()) continue;
    const bool bitwise = type == ReduceOp::BAND || type == ReduceOp::BOR || type == ReduceOp::BXOR;
    TORCH_CHECK_VALUE(!bitwise || !at::isFloatingType(t.scalar_type()), "devplug: cannot use ReduceOp.",
                      op_name(type), " with the non-integral dtype ", t.scalar_type());
    TORCH_CHECK_VALUE(!(type == ReduceOp::AVG && t.scalar_type() == at::kBool),
                      "devplug: ReduceOp.AVG of bool tensors has no meaning; use MAX (any) or MIN (all)");
  }
  const bool integral = !tensors.empty() && tensors.front().defined() &&
                        at::isIntegralType(tensors.front().scalar_type(), /*includeBool=*/false);
  if (type != ReduceOp::AVG || !integral) return {opts, 1};
  Options gloo_opts = opts;
  gloo_opts.reduceOp = ReduceOp(ReduceOp::SUM);
  return {gloo_opts, size};
}

// Whether the native path takes `t`: one contiguous, non-empty devplug tensor, which the
// plugin's collectives read in place.
bool native_tensor(const at::Tensor& t) {
  return is_devplug(t) && t.layout() == at::kStrided && t.is_contiguous() && t.numel() > 0 && !t.is_conj() &&
         !t.is_neg();
}

// Whether the native path reduces `t` by `op`: the reductions NCCL's API has, of its dtypes;
// bool by MIN and MAX only (all and any).
bool native_reduction(const at::Tensor& t, ReduceOp::RedOpType op) {
  if (!native_tensor(t)) return false;
  switch (t.scalar_type()) {
    case at::kBool:
      return op == ReduceOp::MIN || op == ReduceOp::MAX;
    case at::kByte:
    case at::kChar:
    case at::kInt:
    case at::kLong:
    case at::kHalf:
    case at::kBFloat16:
    case at::kFloat:
    case at::kDouble:
      return op == ReduceOp::SUM || op == ReduceOp::PRODUCT || op == ReduceOp::MIN || op == ReduceOp::MAX ||
             op == ReduceOp::AVG;
    default:
      return false;
  }
}

devplug_reduce_op_t native_op(ReduceOp::RedOpType op) {
  switch (op) {
    case ReduceOp::PRODUCT:
      return DEVPLUG_REDUCE_PRODUCT;
    case ReduceOp::MIN:
      return DEVPLUG_REDUCE_MIN;
    case ReduceOp::MAX:
      return DEVPLUG_REDUCE_MAX;
    case ReduceOp::AVG:
      return DEVPLUG_REDUCE_AVG;
    default:
      return DEVPLUG_REDUCE_SUM;
  }
}

// A devplug call's error as the matching torch error.
void check_devplug(devplug_error_t* error) {
  try {
    devplug::api_detail::check(error);
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
}

class DevplugBackend final : public c10d::Backend {
 public:
  DevplugBackend(int rank, int size, c10::intrusive_ptr<c10d::Backend> gloo)
      : Backend(rank, size), gloo_(std::move(gloo)) {
    TORCH_CHECK(gloo_, "devplug: the devplug backend needs a Gloo backend to carry its data");
  }
  ~DevplugBackend() override {
    // The queues drain and join, each before the ones it feeds.
    issue_.reset();
    receive_.reset();
    completion_.reset();
    for (auto& [index, comm] : comms_)
      if (comm != nullptr) devplug_error_destroy(devplug_comm_destroy(comm));
  }

  const std::string getBackendName() const override { return "devplug"; }
  c10::intrusive_ptr<c10d::Backend> gloo() const { return gloo_; }
  // The devices whose collectives go to the plugin's communicator (the native path).
  std::vector<int64_t> native_devices() {
    std::lock_guard<std::mutex> lock(comms_mutex_);
    std::vector<int64_t> out;
    for (const auto& [index, comm] : comms_)
      if (comm != nullptr) out.push_back(index);
    return out;
  }

  WorkPtr broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) override {
    if (all_on_cpu({&tensors})) return gloo_->broadcast(tensors, opts);
    if (tensors.size() == 1 && native_tensor(tensors[0])) {
      const auto root = static_cast<uint32_t>(opts.rootRank);
      if (WorkPtr w =
              native(OpType::BROADCAST, tensors, signature(OpType::BROADCAST, tensors, numel(tensors), -1),
                     [t = tensors[0], root](devplug_stream_t* s, devplug_comm_t* c) {
                       check_devplug(devplug_comm_broadcast(s, c, bytes_view_of(t).handle(), root));
                     }))
        return w;
    }
    const bool root = opts.rootRank == getRank();
    return staged(
        OpType::BROADCAST, Kind::kMove, {&tensors},
        [&](Staging& s) {
          std::vector<at::Tensor> host = root ? s.inputs(tensors) : s.outputs(tensors);
          return [this, host, opts]() mutable { return gloo_->broadcast(host, opts); };
        },
        1, signature(OpType::BROADCAST, tensors, numel(tensors), -1));
  }

  WorkPtr allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) override {
    if (all_on_cpu({&tensors})) return gloo_->allreduce(tensors, opts);
    (void)plan_reduction(opts, tensors, getSize());  // refuses what no path does
    const ReduceOp::RedOpType op = opts.reduceOp.op_;
    if (tensors.size() == 1 && native_reduction(tensors[0], op)) {
      if (WorkPtr w =
              native(OpType::ALLREDUCE, tensors, signature(OpType::ALLREDUCE, tensors, numel(tensors), op),
                     [t = tensors[0], op](devplug_stream_t* s, devplug_comm_t* c) {
                       const devplug::Tensor v = view_of(t);
                       check_devplug(devplug_comm_all_reduce(s, c, v.handle(), v.handle(), native_op(op)));
                     }))
        return w;
    }
    // A large staged tensor goes in pieces, so that the copies to the host, Gloo and the
    // copies back overlap (piece k + 1 is copied out while Gloo reduces piece k).
    if (tensors.size() == 1 && is_devplug(tensors[0]) && tensors[0].is_contiguous() &&
        tensors[0].nbytes() > 2 * kPieceBytes && !host_memory(tensors[0].device().index())) {
      const at::Tensor flat = tensors[0].view(-1);
      const int64_t piece = std::max<int64_t>(1, kPieceBytes / static_cast<int64_t>(flat.element_size()));
      std::vector<WorkPtr> parts;
      for (int64_t at = 0; at < flat.numel(); at += piece) {
        std::vector<at::Tensor> one{flat.narrow(0, at, std::min(piece, flat.numel() - at))};
        parts.push_back(allreduce_whole(one, opts));
      }
      return c10::make_intrusive<JoinedWork>(getRank(), OpType::ALLREDUCE, tensors, std::move(parts),
                                             tensors[0].device());
    }
    return allreduce_whole(tensors, opts);
  }

  WorkPtr allreduce_whole(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) {
    auto [gloo_opts, divide] = plan_reduction(opts, tensors, getSize());
    return staged(
        OpType::ALLREDUCE, Kind::kReduce, {&tensors},
        [&](Staging& s) {
          std::vector<at::Tensor> host = s.outputs(tensors, /*copy_in=*/true);
          return [this, host, gloo_opts]() mutable { return gloo_->allreduce(host, gloo_opts); };
        },
        divide, signature(OpType::ALLREDUCE, tensors, numel(tensors), opts.reduceOp.op_));
  }

  WorkPtr allreduce_coalesced(std::vector<at::Tensor>& tensors,
                              const c10d::AllreduceCoalescedOptions& opts) override {
    if (all_on_cpu({&tensors})) return gloo_->allreduce_coalesced(tensors, opts);
    auto [gloo_opts, divide] = plan_reduction(opts, tensors, getSize());
    return staged(
        OpType::ALLREDUCE_COALESCED, Kind::kReduce, {&tensors},
        [&](Staging& s) {
          std::vector<at::Tensor> host = s.outputs(tensors, /*copy_in=*/true);
          return [this, host, gloo_opts]() mutable { return gloo_->allreduce_coalesced(host, gloo_opts); };
        },
        divide, signature(OpType::ALLREDUCE_COALESCED, tensors, numel(tensors), opts.reduceOp.op_));
  }

  WorkPtr reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override {
    if (all_on_cpu({&tensors})) return gloo_->reduce(tensors, opts);
    auto [gloo_opts, divide] = plan_reduction(opts, tensors, getSize());
    const bool root = opts.rootRank == getRank();
    return staged(
        OpType::REDUCE, Kind::kReduce, {&tensors},
        [&](Staging& s) {
          // Only the root's tensors receive the result; the others keep their values.
          std::vector<at::Tensor> host = root ? s.outputs(tensors, /*copy_in=*/true) : s.inputs(tensors);
          return [this, host, gloo_opts]() mutable { return gloo_->reduce(host, gloo_opts); };
        },
        divide, signature(OpType::REDUCE, tensors, numel(tensors), opts.reduceOp.op_));
  }

  WorkPtr allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                    const c10d::AllgatherOptions& opts) override {
    std::vector<at::Tensor> outs = flat(outputs);
    if (all_on_cpu({&outs, &inputs})) return gloo_->allgather(outputs, inputs, opts);
    return staged(
        OpType::ALLGATHER, Kind::kMove, {&outs, &inputs},
        [&](Staging& s) {
          auto in = s.inputs(inputs);
          auto out = s.outputs(outputs);
          return [this, in, out, opts]() mutable { return gloo_->allgather(out, in, opts); };
        },
        1, signature(OpType::ALLGATHER, inputs, numel(inputs)));
  }

  WorkPtr _allgather_base(at::Tensor& output, at::Tensor& input,
                          const c10d::AllgatherOptions& opts) override {
    std::vector<at::Tensor> outs{output}, ins{input};
    if (all_on_cpu({&outs, &ins})) return gloo_->_allgather_base(output, input, opts);
    if (native_tensor(output) && native_tensor(input) && output.scalar_type() == input.scalar_type() &&
        output.numel() == input.numel() * getSize()) {
      if (WorkPtr w =
              native(OpType::_ALLGATHER_BASE, outs, signature(OpType::_ALLGATHER_BASE, ins, numel(ins)),
                     [in = input, out = output](devplug_stream_t* s, devplug_comm_t* c) {
                       check_devplug(devplug_comm_all_gather(s, c, bytes_view_of(in).handle(),
                                                             bytes_view_of(out).handle()));
                     }))
        return w;
    }
    return staged(
        OpType::_ALLGATHER_BASE, Kind::kMove, {&outs, &ins},
        [&](Staging& s) {
          at::Tensor in = s.input(input);
          at::Tensor out = s.output(output);
          return [this, in, out, opts]() mutable { return gloo_->_allgather_base(out, in, opts); };
        },
        1, signature(OpType::_ALLGATHER_BASE, ins, numel(ins)));
  }

  WorkPtr allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                              const c10d::AllgatherOptions& opts) override {
    std::vector<at::Tensor> outs = flat(outputs);
    if (all_on_cpu({&outs, &inputs})) return gloo_->allgather_coalesced(outputs, inputs, opts);
    return staged(
        OpType::ALLGATHER_COALESCED, Kind::kMove, {&outs, &inputs},
        [&](Staging& s) {
          auto in = s.inputs(inputs);
          auto out = s.outputs(outputs);
          return [this, in, out, opts]() mutable { return gloo_->allgather_coalesced(out, in, opts); };
        },
        1, signature(OpType::ALLGATHER_COALESCED, inputs, numel(inputs)));
  }

  WorkPtr allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllgatherOptions& opts) override {
    if (all_on_cpu({&outputs, &inputs})) return gloo_->allgather_into_tensor_coalesced(outputs, inputs, opts);
    return staged(
        OpType::COALESCED, Kind::kMove, {&outputs, &inputs},
        [&](Staging& s) {
          auto in = s.inputs(inputs);
          auto out = s.outputs(outputs);
          return [this, in, out, opts]() mutable {
            return gloo_->allgather_into_tensor_coalesced(out, in, opts);
          };
        },
        1, signature(OpType::COALESCED, inputs, numel(inputs)));
  }

  WorkPtr gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                 const c10d::GatherOptions& opts) override {
    std::vector<at::Tensor> outs = flat(outputs);
    if (all_on_cpu({&outs, &inputs})) return gloo_->gather(outputs, inputs, opts);
    return staged(
        OpType::GATHER, Kind::kMove, {&outs, &inputs},
        [&](Staging& s) {
          auto in = s.inputs(inputs);
          auto out = s.outputs(outputs);
          return [this, in, out, opts]() mutable { return gloo_->gather(out, in, opts); };
        },
        1, signature(OpType::GATHER, inputs, numel(inputs)));
  }

  WorkPtr scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                  const c10d::ScatterOptions& opts) override {
    std::vector<at::Tensor> ins = flat(inputs);
    if (all_on_cpu({&outputs, &ins})) return gloo_->scatter(outputs, inputs, opts);
    return staged(
        OpType::SCATTER, Kind::kMove, {&outputs, &ins},
        [&](Staging& s) {
          auto in = s.inputs(inputs);
          auto out = s.outputs(outputs);
          return [this, in, out, opts]() mutable { return gloo_->scatter(out, in, opts); };
        },
        1, signature(OpType::SCATTER, outputs, numel(outputs)));
  }

  WorkPtr reduce_scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                         const c10d::ReduceScatterOptions& opts) override {
    std::vector<at::Tensor> ins = flat(inputs);
    if (all_on_cpu({&outputs, &ins})) return gloo_->reduce_scatter(outputs, inputs, opts);
    auto [gloo_opts, divide] = plan_reduction(opts, outputs, getSize());
    return staged(
        OpType::REDUCE_SCATTER, Kind::kReduce, {&outputs, &ins},
        [&](Staging& s) {
          auto in = s.inputs(inputs);
          auto out = s.outputs(outputs);
          return [this, in, out, gloo_opts]() mutable { return gloo_->reduce_scatter(out, in, gloo_opts); };
        },
        divide, signature(OpType::REDUCE_SCATTER, outputs, numel(outputs), opts.reduceOp.op_));
  }

  WorkPtr _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                               const c10d::ReduceScatterOptions& opts) override {
    std::vector<at::Tensor> outs{output}, ins{input};
    if (all_on_cpu({&outs, &ins})) return gloo_->_reduce_scatter_base(output, input, opts);
    auto [gloo_opts, divide] = plan_reduction(opts, outs, getSize());
    const ReduceOp::RedOpType op = opts.reduceOp.op_;
    if (native_reduction(output, op) && native_tensor(input) && output.scalar_type() == input.scalar_type() &&
        input.numel() == output.numel() * getSize()) {
      if (WorkPtr w = native(OpType::_REDUCE_SCATTER_BASE, outs,
                             signature(OpType::_REDUCE_SCATTER_BASE, outs, numel(outs), op),
                             [in = input, out = output, op](devplug_stream_t* s, devplug_comm_t* c) {
                               check_devplug(devplug_comm_reduce_scatter(
                                   s, c, view_of(in).handle(), view_of(out).handle(), native_op(op)));
                             }))
        return w;
    }
    return staged(
        OpType::_REDUCE_SCATTER_BASE, Kind::kReduce, {&outs, &ins},
        [&](Staging& s) {
          at::Tensor in = s.input(input);
          at::Tensor out = s.output(output);
          return [this, in, out, gloo_opts]() mutable {
            return gloo_->_reduce_scatter_base(out, in, gloo_opts);
          };
        },
        divide, signature(OpType::_REDUCE_SCATTER_BASE, outs, numel(outs), opts.reduceOp.op_));
  }

  WorkPtr reduce_scatter_tensor_coalesced(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::ReduceScatterOptions& opts) override {
    if (all_on_cpu({&outputs, &inputs})) return gloo_->reduce_scatter_tensor_coalesced(outputs, inputs, opts);
    auto [gloo_opts, divide] = plan_reduction(opts, outputs, getSize());
    return staged(
        OpType::COALESCED, Kind::kReduce, {&outputs, &inputs},
        [&](Staging& s) {
          auto in = s.inputs(inputs);
          auto out = s.outputs(outputs);
          return [this, in, out, gloo_opts]() mutable {
            return gloo_->reduce_scatter_tensor_coalesced(out, in, gloo_opts);
          };
        },
        divide, signature(OpType::COALESCED, outputs, numel(outputs), opts.reduceOp.op_));
  }

  WorkPtr alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_splits,
                        std::vector<int64_t>& input_splits, const c10d::AllToAllOptions& opts) override {
    std::vector<at::Tensor> outs{output}, ins{input};
    if (all_on_cpu({&outs, &ins}))
      return gloo_->alltoall_base(output, input, output_splits, input_splits, opts);
    if (output_splits.empty() && input_splits.empty() && native_tensor(output) && native_tensor(input) &&
        output.scalar_type() == input.scalar_type() && output.numel() == input.numel() &&
        input.numel() % getSize() == 0 && output.data_ptr() != input.data_ptr()) {
      if (WorkPtr w = native(OpType::ALLTOALL_BASE, outs, signature(OpType::ALLTOALL_BASE, ins, numel(ins)),
                             [in = input, out = output](devplug_stream_t* s, devplug_comm_t* c) {
                               check_devplug(devplug_comm_all_to_all(s, c, bytes_view_of(in).handle(),
                                                                     bytes_view_of(out).handle()));
                             }))
        return w;
    }
    return staged(
        OpType::ALLTOALL_BASE, Kind::kMove, {&outs, &ins},
        [&](Staging& s) {
          at::Tensor in = s.input(input);
          at::Tensor out = s.output(output);
          return [this, in, out, output_splits, input_splits, opts]() mutable {
            return gloo_->alltoall_base(out, in, output_splits, input_splits, opts);
          };
        },
        1, signature(OpType::ALLTOALL_BASE, ins, -1));
  }

  WorkPtr alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                   const c10d::AllToAllOptions& opts) override {
    if (all_on_cpu({&outputs, &inputs})) return gloo_->alltoall(outputs, inputs, opts);
    return staged(
        OpType::ALLTOALL, Kind::kMove, {&outputs, &inputs},
        [&](Staging& s) {
          auto in = s.inputs(inputs);
          auto out = s.outputs(outputs);
          return [this, in, out, opts]() mutable { return gloo_->alltoall(out, in, opts); };
        },
        1, signature(OpType::ALLTOALL, inputs, -1));
  }

  // Point to point: a two-number header (dtype, element count) travels ahead of the data on
  // a tag of its own, so a receiver whose tensor does not match what was sent raises (after
  // taking the data off the wire) instead of Gloo aborting the process or filling it partly.
  WorkPtr send(std::vector<at::Tensor>& tensors, int dst, int tag) override {
    if (all_on_cpu({&tensors})) return gloo_->send(tensors, dst, tag);
    TORCH_CHECK_VALUE(tensors.size() == 1, "devplug: send takes one tensor, got ", tensors.size());
    const at::Tensor header = p2p_header(tensors[0]);
    return staged(OpType::SEND, Kind::kMove, {&tensors}, [&](Staging& s) {
      auto host = s.inputs(tensors);
      return [this, host, header, dst, tag]() mutable {
        std::vector<at::Tensor> h{header};
        return std::vector<WorkPtr>{gloo_->send(h, dst, header_tag(tag)), gloo_->send(host, dst, tag)};
      };
    });
  }

  WorkPtr recv(std::vector<at::Tensor>& tensors, int src, int tag) override {
    if (all_on_cpu({&tensors})) return gloo_->recv(tensors, src, tag);
    return staged_recv(OpType::RECV, tensors, src, tag);
  }

  WorkPtr recvAnysource(std::vector<at::Tensor>& tensors, int tag) override {
    if (all_on_cpu({&tensors})) return gloo_->recvAnysource(tensors, tag);
    return staged_recv(OpType::RECVANYSOURCE, tensors, -1, tag);
  }

  // Barriers carry no data: Gloo's, ordered after every collective issued before them.
  WorkPtr barrier(const c10d::BarrierOptions& opts) override {
    drain();
    return gloo_->barrier(opts);
  }
  void monitoredBarrier(const c10d::BarrierOptions& opts, bool wait_all_ranks) override {
    drain();
    gloo_->monitoredBarrier(opts, wait_all_ranks);
  }
  uint64_t getSequenceNumberForGroup() override { return gloo_->getSequenceNumberForGroup(); }
  void setTimeout(std::chrono::milliseconds timeout) override { gloo_->setTimeout(timeout); }

 private:
  using Works = std::vector<WorkPtr>;
  using Issue = std::function<Works()>;
  // Runs on the completion thread once the issued works finished; returns more to wait for.
  using Follow = std::function<Works(const Works& issued)>;

  static Works as_works(WorkPtr work) { return {std::move(work)}; }
  static Works as_works(Works works) { return works; }

  // Stages the tensors of `lists` (all on one devplug device): `prepare` makes the host
  // mirrors through a Staging and returns what issues the Gloo call on them. When
  // `signature` is given, every rank's signature is compared first (see agree()).
  template <typename Prepare>
  WorkPtr staged(OpType type, Kind kind, std::initializer_list<const std::vector<at::Tensor>*> lists,
                 Prepare&& prepare, int64_t divide = 1, std::vector<int64_t> signature = {},
                 Follow follow = nullptr) {
    const c10::Device device = device_of(lists);
    c10::impl::VirtualGuardImpl impl(kType);
    auto staging = std::make_shared<Staging>(kind, device);
    Issue issue = [f = prepare(*staging)]() mutable { return as_works(f()); };
    auto copied_in = std::make_shared<c10::Event>(kType);
    copied_in->record(impl.getStream(device));
    auto work = c10::make_intrusive<StagedWork>(getRank(), type, staging->results(), device);
    const c10::Stream stream = comm_stream(device);
    // Waits for `works` on the completion thread, then copies the results back and completes.
    auto complete = [this, staging, work, stream, divide](Works works, int source) {
      completion_->push([staging, works, work, stream, divide, source]() {
        // The future records its events on this thread's current stream: the copy-back's.
        c10::StreamGuard guard(stream);
        std::optional<c10::Event> done;
        try {
          for (const WorkPtr& w : works) w->wait();
          staging->finish_on_host(divide);
          staging->copy_out();
          done.emplace(kType);
          done->record(stream);
          done->synchronize();
        } catch (...) {
          work->complete(std::current_exception(), std::nullopt, -1);
          return;
        }
        work->complete(nullptr, std::move(done), source);
      });
    };
    issue_->push([this, staging, issue, copied_in, work, signature, follow, complete]() {
      Works issued;
      try {
        copied_in->synchronize();
        if (check_agreement_ && !signature.empty()) agree(signature);
        staging->before_gloo();
        issued = issue();
      } catch (...) {
        work->complete(std::current_exception(), std::nullopt, -1);
        return;
      }
      if (!follow) return complete(std::move(issued), -1);
      // A receive's second step has a thread of its own: it waits only for headers, which
      // peers send from their issue threads unconditionally, while the completion thread
      // also waits for sends, which finish only once the peer posted its receive here.
      receive_->push([issued, follow, work, complete]() {
        Works more;
        int source = -1;
        try {
          for (const WorkPtr& w : issued) w->wait();
          if (work->retrieveOpType() == OpType::RECVANYSOURCE) source = issued.front()->sourceRank();
          more = follow(issued);
        } catch (...) {
          work->complete(std::current_exception(), std::nullopt, -1);
          return;
        }
        complete(std::move(more), source);
      });
    });
    return work;
  }

  // The native path: `enqueue(stream, comm)` puts the collective on a stream of the backend
  // with the device's communicator, after the caller's stream has finished with the tensors
  // (which `enqueue` holds until then); the Work (its results: `outputs`) completes once that
  // stream has passed the collective.
  // Returns null when the device has no communicator (the caller stages instead).
  using Enqueue = std::function<void(devplug_stream_t*, devplug_comm_t*)>;
  WorkPtr native(OpType type, const std::vector<at::Tensor>& outputs, std::vector<int64_t> signature,
                 Enqueue enqueue) {
    const c10::Device device = outputs.front().device();
    devplug_comm_t* comm = native_comm(device);
    if (comm == nullptr) return {};
    c10::impl::VirtualGuardImpl impl(kType);
    auto ready = std::make_shared<c10::Event>(kType);
    ready->record(impl.getStream(device));
    auto work = c10::make_intrusive<StagedWork>(getRank(), type, outputs, device);
    const c10::Stream stream = native_stream(device);
    issue_->push([this, ready, work, stream, comm, signature, enqueue = std::move(enqueue)]() {
      auto done = std::make_shared<c10::Event>(kType);
      try {
        if (check_agreement_) agree(signature);
        ready->block(stream);
        enqueue(Runtime::get().stream(stream.device_index(), stream.id()).handle(), comm);
        done->record(stream);
      } catch (...) {
        work->complete(std::current_exception(), std::nullopt, -1);
        return;
      }
      // `enqueue` holds the tensors: none returns to the allocator before the stream is past it.
      completion_->push([work, done, enqueue]() {
        try {
          done->synchronize();
        } catch (...) {
          work->complete(std::current_exception(), std::nullopt, -1);
          return;
        }
        work->complete(nullptr, std::move(*done), -1);
      });
    });
    return work;
  }

  // The communicator of `device`, made at the first call on every rank (a collective: all
  // ranks make their first native call at the same point of their sequence), or null when
  // some rank's plugin cannot make one or TORCH_DEVPLUG_DIST_NATIVE=0.
  devplug_comm_t* native_comm(c10::Device device) {
    if (!native_enabled_) return nullptr;
    std::lock_guard<std::mutex> lock(comms_mutex_);
    auto found = comms_.find(device.index());
    if (found != comms_.end()) return found->second;
    // Made on the issue thread, in order with the Gloo calls already queued there.
    auto made = std::make_shared<std::promise<devplug_comm_t*>>();
    std::future<devplug_comm_t*> result = made->get_future();
    issue_->push([this, made, device] {
      try {
        made->set_value(join(device));
      } catch (...) {
        made->set_exception(std::current_exception());
      }
    });
    devplug_comm_t* comm = result.get();
    comms_.emplace(device.index(), comm);
    return comm;
  }

  // On the issue thread: every rank says whether its plugin makes communicators (a Gloo
  // MIN); rank 0's id goes to the others (a Gloo broadcast); all join, and keep the
  // communicator only when every rank joined.
  devplug_comm_t* join(c10::Device device) {
    devplug_device_t* d = Runtime::get().device(device.index()).handle();
    devplug_comm_unique_id_t id{};
    devplug_error_t* probe = devplug_comm_unique_id(d, &id);
    const bool can = probe == nullptr;
    devplug_error_destroy(probe);
    if (!all_ranks(can)) return nullptr;
    at::Tensor bytes = at::empty({static_cast<int64_t>(sizeof id.bytes)}, at::kByte);
    std::memcpy(bytes.data_ptr(), id.bytes, sizeof id.bytes);
    std::vector<at::Tensor> b{bytes};
    c10d::BroadcastOptions from_0;
    from_0.rootRank = 0;
    gloo_->broadcast(b, from_0)->wait();
    std::memcpy(id.bytes, bytes.data_ptr(), sizeof id.bytes);
    devplug_comm_t* comm = nullptr;
    devplug_error_t* joined = devplug_comm_create(d, &id, static_cast<uint32_t>(getSize()),
                                                  static_cast<uint32_t>(getRank()), &comm);
    std::string why = joined != nullptr && joined->message != nullptr ? joined->message : "";
    devplug_error_destroy(joined);
    if (all_ranks(comm != nullptr)) return comm;
    if (comm != nullptr) devplug_error_destroy(devplug_comm_destroy(comm));
    if (!why.empty())
      TORCH_WARN("devplug: collectives are staged through Gloo: joining the communicator: ", why);
    return nullptr;
  }

  // Whether `yes` holds on every rank (a Gloo MIN).
  bool all_ranks(bool yes) {
    std::vector<at::Tensor> flag{at::full({1}, yes ? 1 : 0, at::kInt)};
    c10d::AllreduceOptions min;
    min.reduceOp = ReduceOp(ReduceOp::MIN);
    gloo_->allreduce(flag, min)->wait();
    return flag[0].item<int>() == 1;
  }

  // The stream native collectives run on: one per device, made on first use.
  c10::Stream native_stream(c10::Device device) { return stream_in(native_streams_, device); }

  // A receive: the header first (on the issue thread, without waiting), then, on the
  // completion thread once the header arrived, the data into the mirror when it matches, or
  // into scratch memory and an error when it does not.
  WorkPtr staged_recv(OpType type, std::vector<at::Tensor>& tensors, int src, int tag) {
    TORCH_CHECK_VALUE(tensors.size() == 1, "devplug: recv takes one tensor, got ", tensors.size());
    const at::Tensor expected = p2p_header(tensors[0]);
    auto host = std::make_shared<std::vector<at::Tensor>>();
    auto header = std::make_shared<std::vector<at::Tensor>>(1, at::empty({2}, at::kLong));
    Follow follow = [this, host, header, expected, src, tag](const Works& issued) -> Works {
      const int from = src >= 0 ? src : issued.front()->sourceRank();
      const at::Tensor got = (*header)[0];
      if (at::equal(got, expected)) return {gloo_->recv(*host, from, tag)};
      const auto sent_type = static_cast<at::ScalarType>(got[0].item<int64_t>());
      const int64_t sent_numel = got[1].item<int64_t>();
      std::vector<at::Tensor> scratch{
          at::empty({sent_numel * static_cast<int64_t>(c10::elementSize(sent_type))}, at::kByte)};
      gloo_->recv(scratch, from, tag)->wait();
      TORCH_CHECK_VALUE(false, "devplug: recv from rank ", from, " got ", sent_numel, " elements of ",
                        sent_type, " into a tensor of ", tensors_numel(expected), " elements of ",
                        static_cast<at::ScalarType>(expected[0].item<int64_t>()),
                        "; the data was received and dropped, the tensor is unchanged");
    };
    return staged(
        type, Kind::kMove, {&tensors},
        [&](Staging& s) {
          *host = s.outputs(tensors);
          return [this, header, src, tag]() {
            return src >= 0 ? gloo_->recv(*header, src, header_tag(tag))
                            : gloo_->recvAnysource(*header, header_tag(tag));
          };
        },
        1, {}, follow);
  }

  static at::Tensor p2p_header(const at::Tensor& t) {
    return at::tensor({static_cast<int64_t>(t.scalar_type()), t.numel()}, at::kLong);
  }
  static int64_t tensors_numel(const at::Tensor& header) { return header[1].item<int64_t>(); }
  static int header_tag(int tag) { return tag ^ 0x40000000; }

  // Every rank's signature of the collective it is about to run (kind, reduction, dtype,
  // element count), gathered through Gloo and compared: ranks that disagree all raise the
  // same error, naming what each rank called, instead of Gloo aborting the process
  // ("Received data size doesn't match") or reading one dtype's bytes as another's.
  void agree(const std::vector<int64_t>& mine) {
    const int64_t n = static_cast<int64_t>(mine.size());
    at::Tensor in = at::tensor(mine, at::kLong);
    at::Tensor all = at::empty({getSize() * n}, at::kLong);
    gloo_->_allgather_base(all, in)->wait();
    const auto rows = all.view({getSize(), n});
    if (at::equal(rows, rows[0].expand_as(rows))) return;
    std::string table;
    for (int r = 0; r < getSize(); ++r) table += "\n  rank " + std::to_string(r) + ": " + describe(rows[r]);
    TORCH_CHECK_VALUE(false,
                      "devplug: the ranks called different collectives (or the same one with different ",
                      "dtypes or sizes); nothing was exchanged:", table);
  }
  static std::string describe(const at::Tensor& row) {
    const auto type = static_cast<OpType>(row[0].item<int64_t>());
    std::string text = c10d::opTypeToString(type);
    const int64_t op = row[1].item<int64_t>();
    if (op >= 0) text += std::string(" ") + op_name(static_cast<ReduceOp::RedOpType>(op));
    text += std::string(" of ") + c10::toString(static_cast<at::ScalarType>(row[2].item<int64_t>()));
    if (row[3].item<int64_t>() >= 0) text += ", " + std::to_string(row[3].item<int64_t>()) + " elements";
    return text;
  }
  // The signature of a collective over `tensors`: `numel` is the count that must agree across
  // ranks (-1: none must), `op` the reduction (-1: none).
  static std::vector<int64_t> signature(OpType type, const std::vector<at::Tensor>& tensors, int64_t numel,
                                        int64_t op = -1) {
    int64_t dtype = -1;
    for (const at::Tensor& t : tensors) {
      if (!t.defined()) continue;
      if (dtype < 0) dtype = static_cast<int64_t>(t.scalar_type());
      TORCH_CHECK_VALUE(dtype == static_cast<int64_t>(t.scalar_type()),
                        "devplug: a collective's tensors must ", "have one dtype; got ",
                        static_cast<at::ScalarType>(dtype), " and ", t.scalar_type());
    }
    return {static_cast<int64_t>(type), op, dtype, numel};
  }
  static int64_t numel(const std::vector<at::Tensor>& tensors) {
    int64_t n = 0;
    for (const at::Tensor& t : tensors) n += t.defined() ? t.numel() : 0;
    return n;
  }

  // Waits until everything issued so far reached Gloo (so that a barrier follows it).
  void drain() {
    auto promise = std::make_shared<std::promise<void>>();
    std::future<void> issued = promise->get_future();
    issue_->push([promise] { promise->set_value(); });
    issued.wait();
  }

  // The stream the copies back to the device run on: one per device, made on first use.
  c10::Stream comm_stream(c10::Device device) { return stream_in(streams_, device); }

  // `device`'s stream in `streams` (one of the maps below), made on first use.
  c10::Stream stream_in(std::map<c10::DeviceIndex, c10::Stream>& streams, c10::Device device) {
    std::lock_guard<std::mutex> lock(streams_mutex_);
    auto found = streams.find(device.index());
    if (found != streams.end()) return found->second;
    c10::impl::VirtualGuardImpl impl(kType);
    const c10::Stream stream = impl.getNewStream(device);
    streams.emplace(device.index(), stream);
    return stream;
  }

  c10::intrusive_ptr<c10d::Backend> gloo_;
  // TORCH_DEVPLUG_DIST_CHECK=0 skips the ranks' agreement before each collective (agree()):
  // one Gloo round trip less per collective, and Gloo's own behaviour on a mismatch.
  const bool check_agreement_ = [] {
    const char* v = std::getenv("TORCH_DEVPLUG_DIST_CHECK");
    return v == nullptr || std::string(v) != "0";
  }();
  std::mutex streams_mutex_;
  std::map<c10::DeviceIndex, c10::Stream> streams_;
  std::map<c10::DeviceIndex, c10::Stream> native_streams_;
  const bool native_enabled_ = [] {
    const char* v = std::getenv("TORCH_DEVPLUG_DIST_NATIVE");
    return v == nullptr || std::string(v) != "0";
  }();
  std::mutex comms_mutex_;
  std::map<c10::DeviceIndex, devplug_comm_t*> comms_;  // null: that device stages
  std::unique_ptr<SerialQueue> completion_ = std::make_unique<SerialQueue>();
  std::unique_ptr<SerialQueue> receive_ = std::make_unique<SerialQueue>();
  std::unique_ptr<SerialQueue> issue_ = std::make_unique<SerialQueue>();
};

// DDP's timer for devplug devices (its runtime statistics: forward, backward compute and
// communication times): each point recorded at host time and as a devplug event on the
// current stream; differences are the device's own (the event_timestamps extension), or
// host-time differences where the plugin has no timestamps.
class DevplugTimer final : public c10d::Timer {
 public:
  explicit DevplugTimer(c10::Device device) : device_(device) {}

  void record(Event event) override {
    Timer::record(event);
    auto& slot = events_[static_cast<size_t>(event)];
    slot.emplace(kType);
    c10::impl::VirtualGuardImpl impl(kType);
    slot->record(impl.getStream(device_));
  }

  std::optional<int64_t> measureDifference(Event start, Event end) override {
    const auto& a = events_[static_cast<size_t>(start)];
    const auto& b = events_[static_cast<size_t>(end)];
    if (a && b) {
      try {
        const double ms = a->elapsedTime(*b);
        if (ms >= 0) return static_cast<int64_t>(ms * 1e6);
        return std::nullopt;
      } catch (const c10::Error&) {
        // no device timestamps: the host's times below
      }
    }
    const int64_t t0 = getTimeRef(start), t1 = getTimeRef(end);
    if (t0 == c10d::kUnsetTime || t1 == c10d::kUnsetTime || t1 < t0) return std::nullopt;
    return t1 - t0;
  }

 private:
  c10::Device device_;
  std::optional<c10::Event> events_[5];  // one per Timer::Event
};

}  // namespace

void register_distributed(py::module& m) {
  py::module::import("torch.distributed");  // c10d's Python types, which the class below extends
  py::class_<DevplugBackend, c10d::Backend, c10::intrusive_ptr<DevplugBackend>>(m, "_DistributedBackend")
      .def(py::init([](int rank, int size, const c10::intrusive_ptr<c10d::Backend>& gloo) {
             return c10::make_intrusive<DevplugBackend>(rank, size, gloo);
           }),
           py::arg("rank"), py::arg("size"), py::arg("gloo"))
      .def_property_readonly("gloo", &DevplugBackend::gloo)
      .def_property_readonly("native_devices", &DevplugBackend::native_devices);
}

}  // namespace devplug::bridge

namespace c10d {
C10_REGISTER_TYPED_CLASS(TimerRegistry, c10::kPrivateUse1, devplug::bridge::DevplugTimer);
}  // namespace c10d
