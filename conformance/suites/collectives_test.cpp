// SPDX-License-Identifier: Apache-2.0
// Device-native collectives on the plugin under test (Abi.collectives), where it offers the
// collectives extension: communicators of 1 up to 3 ranks, each rank a thread of this process
// with its own device (the device under test and the ones after it, as NCCL wants one device
// per rank) and stream. Every collective's values are checked exactly
// (sums and products of small integers are exact in float32; AVG of floats within 1e-6), a
// 3 MiB all_reduce and a 300 KB send/recv take the plugin's large-message paths, a bitwise
// reduction either gives the right values or answers UNIMPLEMENTED, and tensors of another
// dtype or size answer INVALID_ARGUMENT before anything is sent.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "devplug/devplug.h"
#include "harness/execute.hpp"
#include "harness/run_state.hpp"
#include "suites/suites.hpp"

namespace devplug::conform {
namespace {

// One rank: its communicator, stream and buffers, and the problems it found.
class Rank {
 public:
  Rank(const devplug_plugin_api_t* api, const devplug_ext_collectives_t* ext, devplug_device_handle_t* dev,
       uint32_t world, uint32_t rank)
      : api_(api), ext_(ext), dev_(dev), world_(world), rank_(rank) {}
  ~Rank() {
    for (devplug_buffer_handle_t* b : buffers_) ok("buffer_release", api_->buffer_release(b));
    if (stream_ != nullptr) ok("stream_destroy", api_->stream_destroy(stream_));
  }
  Rank(const Rank&) = delete;
  Rank& operator=(const Rank&) = delete;

  void run(const devplug_comm_unique_id_t& id);
  const std::string& problems() const { return problems_; }

 private:
  struct Tensor {
    devplug_tensor_desc_t desc{};
    size_t bytes = 0;
  };

  void problem(const std::string& text) {
    problems_ += "  rank " + std::to_string(rank_) + " of " + std::to_string(world_) + ": " + text + "\n";
  }
  bool ok(const char* what, devplug_error_t* e) {
    if (e == nullptr) return true;
    problem(std::string(what) + ": " + devplug_code_name(e->code) + ": " + (e->message ? e->message : ""));
    api_->error_destroy(e);
    return false;
  }
  // The code of `e` (OK for success), destroying it.
  devplug_code_t code(devplug_error_t* e) {
    if (e == nullptr) return DEVPLUG_CODE_OK;
    const devplug_code_t c = e->code;
    api_->error_destroy(e);
    return c;
  }

  template <typename T>
  Tensor tensor(devplug_dtype_t dtype, const std::vector<T>& values) {
    Tensor t;
    t.bytes = values.size() * sizeof(T);
    devplug_buffer_handle_t* b = nullptr;
    if (!ok("buffer_allocate", api_->buffer_allocate(dev_, t.bytes == 0 ? 1 : t.bytes, &b))) return t;
    buffers_.push_back(b);
    // The copy reads `values` when the stream gets to it: wait, as callers pass temporaries.
    if (t.bytes != 0 &&
        ok("buffer_copy_from_host", api_->buffer_copy_from_host(stream_, values.data(), b, 0, t.bytes)))
      ok("stream_synchronize", api_->stream_synchronize(stream_));
    t.desc.struct_size = sizeof t.desc;
    t.desc.buffer = b;
    t.desc.dtype = dtype;
    t.desc.rank = 1;
    t.desc.shape[0] = static_cast<int64_t>(values.size());
    t.desc.strides[0] = 1;
    return t;
  }
  template <typename T>
  std::vector<T> read(const Tensor& t) {
    std::vector<T> out(t.bytes / sizeof(T));
    if (t.desc.buffer == nullptr) return out;
    if (!out.empty())
      ok("buffer_copy_to_host", api_->buffer_copy_to_host(stream_, t.desc.buffer, 0, out.data(), t.bytes));
    ok("stream_synchronize", api_->stream_synchronize(stream_));
    return out;
  }
  template <typename T>
  void expect(const char* what, const std::vector<T>& got, const std::vector<T>& want,
              double tolerance = 0.0) {
    for (size_t i = 0; i < want.size(); ++i) {
      const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
      if (!(std::fabs(g - w) <= tolerance * std::fabs(w))) {
        problem(std::string(what) + ": element " + std::to_string(i) + " is " + std::to_string(g) +
                ", expected " + std::to_string(w));
        return;
      }
    }
  }

  void reductions();
  void moves();
  void point_to_point();
  void refusals();

  const devplug_plugin_api_t* api_;
  const devplug_ext_collectives_t* ext_;
  devplug_device_handle_t* dev_;
  const uint32_t world_;
  const uint32_t rank_;
  devplug_comm_handle_t* comm_ = nullptr;
  devplug_stream_handle_t* stream_ = nullptr;
  std::vector<devplug_buffer_handle_t*> buffers_;
  std::string problems_;
};

// Rank q's value at element i: small integers, so sums and products are exact.
int32_t value(uint32_t q, size_t i) { return static_cast<int32_t>((q + 1) * 10 + i % 7); }

void Rank::run(const devplug_comm_unique_id_t& id) {
  if (!ok("stream_create", api_->stream_create(dev_, &stream_))) return;
  if (!ok("comm_create", ext_->comm_create(dev_, &id, world_, rank_, &comm_))) return;
  reductions();
  moves();
  point_to_point();
  refusals();
  ok("stream_synchronize", api_->stream_synchronize(stream_));
  ok("comm_destroy", ext_->comm_destroy(comm_));
}

void Rank::reductions() {
  const size_t n = 1000;
  std::vector<float> mine(n), sum(n, 0.0f), product(n, 1.0f), avg(n);
  std::vector<int32_t> ints(n), max(n), min(n), int_avg(n);
  for (size_t i = 0; i < n; ++i) {
    mine[i] = static_cast<float>(value(rank_, i));
    ints[i] = value(rank_, i) * (rank_ % 2 == 0 ? 1 : -1);
    max[i] = INT32_MIN;
    min[i] = INT32_MAX;
    int64_t total = 0;
    for (uint32_t q = 0; q < world_; ++q) {
      sum[i] += static_cast<float>(value(q, i));
      product[i] *= static_cast<float>(value(q, i));
      const int32_t v = value(q, i) * (q % 2 == 0 ? 1 : -1);
      max[i] = std::max(max[i], v);
      min[i] = std::min(min[i], v);
      total += v;
    }
    avg[i] = sum[i] / static_cast<float>(world_);
    int_avg[i] = static_cast<int32_t>(total / static_cast<int64_t>(world_));
  }
  Tensor t = tensor(DEVPLUG_DTYPE_FLOAT32, mine);  // in place: recv is send
  if (ok("all_reduce SUM float32", ext_->all_reduce(stream_, comm_, &t.desc, &t.desc, DEVPLUG_REDUCE_SUM)))
    expect("all_reduce SUM float32 in place", read<float>(t), sum);
  Tensor in = tensor(DEVPLUG_DTYPE_FLOAT32, mine), out = tensor(DEVPLUG_DTYPE_FLOAT32, std::vector<float>(n));
  if (ok("all_reduce PRODUCT", ext_->all_reduce(stream_, comm_, &in.desc, &out.desc, DEVPLUG_REDUCE_PRODUCT)))
    expect("all_reduce PRODUCT float32", read<float>(out), product);
  if (ok("all_reduce AVG", ext_->all_reduce(stream_, comm_, &in.desc, &out.desc, DEVPLUG_REDUCE_AVG)))
    expect("all_reduce AVG float32", read<float>(out), avg, 1e-6);
  expect("all_reduce's send after the reductions", read<float>(in), mine);
  Tensor ti = tensor(DEVPLUG_DTYPE_INT32, ints), to = tensor(DEVPLUG_DTYPE_INT32, std::vector<int32_t>(n));
  if (ok("all_reduce MAX", ext_->all_reduce(stream_, comm_, &ti.desc, &to.desc, DEVPLUG_REDUCE_MAX)))
    expect("all_reduce MAX int32", read<int32_t>(to), max);
  if (ok("all_reduce MIN", ext_->all_reduce(stream_, comm_, &ti.desc, &to.desc, DEVPLUG_REDUCE_MIN)))
    expect("all_reduce MIN int32", read<int32_t>(to), min);
  if (ok("all_reduce AVG int32", ext_->all_reduce(stream_, comm_, &ti.desc, &to.desc, DEVPLUG_REDUCE_AVG)))
    expect("all_reduce AVG int32 (truncating)", read<int32_t>(to), int_avg);

  // 3 MiB: more than one piece of any staging the plugin does.
  const size_t large = size_t{3} << 18;
  std::vector<float> big(large), big_sum(large);
  for (size_t i = 0; i < large; ++i) {
    big[i] = static_cast<float>(value(rank_, i));
    big_sum[i] = 0.0f;
    for (uint32_t q = 0; q < world_; ++q) big_sum[i] += static_cast<float>(value(q, i));
  }
  Tensor tb = tensor(DEVPLUG_DTYPE_FLOAT32, big);
  if (ok("all_reduce SUM 3 MiB", ext_->all_reduce(stream_, comm_, &tb.desc, &tb.desc, DEVPLUG_REDUCE_SUM)))
    expect("all_reduce SUM of 3 MiB", read<float>(tb), big_sum);

  // reduce_scatter: rank r gets part r of the sums.
  const size_t part = 4;
  std::vector<float> rs(part * world_), rs_want(part);
  for (size_t i = 0; i < rs.size(); ++i) rs[i] = static_cast<float>(value(rank_, i));
  for (size_t i = 0; i < part; ++i)
    for (uint32_t q = 0; q < world_; ++q) rs_want[i] += static_cast<float>(value(q, rank_ * part + i));
  Tensor rsi = tensor(DEVPLUG_DTYPE_FLOAT32, rs),
         rso = tensor(DEVPLUG_DTYPE_FLOAT32, std::vector<float>(part));
  if (ok("reduce_scatter", ext_->reduce_scatter(stream_, comm_, &rsi.desc, &rso.desc, DEVPLUG_REDUCE_SUM)))
    expect("reduce_scatter SUM float32", read<float>(rso), rs_want);

  // A bitwise reduction: the right values, or UNIMPLEMENTED before anything is sent.
  std::vector<int32_t> bits(n), xor_want(n, 0);
  for (size_t i = 0; i < n; ++i) {
    bits[i] = value(rank_, i) * 37;
    for (uint32_t q = 0; q < world_; ++q) xor_want[i] ^= value(q, i) * 37;
  }
  Tensor tx = tensor(DEVPLUG_DTYPE_INT32, bits);
  const devplug_code_t c = code(ext_->all_reduce(stream_, comm_, &tx.desc, &tx.desc, DEVPLUG_REDUCE_BXOR));
  if (c == DEVPLUG_CODE_OK)
    expect("all_reduce BXOR int32", read<int32_t>(tx), xor_want);
  else if (c != DEVPLUG_CODE_UNIMPLEMENTED)
    problem(std::string("all_reduce BXOR int32: ") + devplug_code_name(c) + ", expected OK or UNIMPLEMENTED");
}

void Rank::moves() {
  // all_gather (int64): every rank's part, in rank order.
  const size_t n = 5;
  std::vector<int64_t> mine(n), gathered(n * world_);
  for (size_t i = 0; i < n; ++i) mine[i] = value(rank_, i);
  for (uint32_t q = 0; q < world_; ++q)
    for (size_t i = 0; i < n; ++i) gathered[q * n + i] = value(q, i);
  Tensor gi = tensor(DEVPLUG_DTYPE_INT64, mine),
         go = tensor(DEVPLUG_DTYPE_INT64, std::vector<int64_t>(n * world_));
  if (ok("all_gather", ext_->all_gather(stream_, comm_, &gi.desc, &go.desc)))
    expect("all_gather int64", read<int64_t>(go), gathered);

  // broadcast (int8) from the last rank.
  const uint32_t root = world_ - 1;
  std::vector<int8_t> b(33), b_want(33);
  for (size_t i = 0; i < b.size(); ++i) {
    b_want[i] = static_cast<int8_t>(value(root, i) % 100);
    b[i] = rank_ == root ? b_want[i] : int8_t{0};
  }
  Tensor tb = tensor(DEVPLUG_DTYPE_INT8, b);
  if (ok("broadcast", ext_->broadcast(stream_, comm_, &tb.desc, root)))
    expect("broadcast int8 from the last rank", read<int8_t>(tb), b_want);

  // all_to_all (float64): rank r's part q goes to rank q's part r.
  const size_t per = 3;
  std::vector<double> a(per * world_), a_want(per * world_);
  for (uint32_t q = 0; q < world_; ++q)
    for (size_t i = 0; i < per; ++i) {
      a[q * per + i] = rank_ * 100.0 + q * 10.0 + static_cast<double>(i);
      a_want[q * per + i] = q * 100.0 + rank_ * 10.0 + static_cast<double>(i);
    }
  Tensor ai = tensor(DEVPLUG_DTYPE_FLOAT64, a),
         ao = tensor(DEVPLUG_DTYPE_FLOAT64, std::vector<double>(a.size()));
  if (ok("all_to_all", ext_->all_to_all(stream_, comm_, &ai.desc, &ao.desc)))
    expect("all_to_all float64", read<double>(ao), a_want);
}

void Rank::point_to_point() {
  if (world_ < 2) return;
  // A ring: each rank sends 300 KB to the next and receives from the previous. Even ranks
  // send first, odd ranks receive first, so no rank waits on a send that waits on it.
  const size_t n = 300000;
  const uint32_t next = (rank_ + 1) % world_, prev = (rank_ + world_ - 1) % world_;
  std::vector<uint8_t> out(n), want(n);
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<uint8_t>((rank_ * 7 + i) % 251);
    want[i] = static_cast<uint8_t>((prev * 7 + i) % 251);
  }
  Tensor s = tensor(DEVPLUG_DTYPE_UINT8, out), r = tensor(DEVPLUG_DTYPE_UINT8, std::vector<uint8_t>(n));
  bool sent = true, received = true;
  if (rank_ % 2 == 0) {
    sent = ok("send", ext_->send(stream_, comm_, &s.desc, next));
    received = ok("recv", ext_->recv(stream_, comm_, &r.desc, prev));
  } else {
    received = ok("recv", ext_->recv(stream_, comm_, &r.desc, prev));
    sent = ok("send", ext_->send(stream_, comm_, &s.desc, next));
  }
  if (sent && received) expect("recv of the previous rank's send (300 KB)", read<uint8_t>(r), want);
}

void Rank::refusals() {
  Tensor f = tensor(DEVPLUG_DTYPE_FLOAT32, std::vector<float>(8)),
         i = tensor(DEVPLUG_DTYPE_INT32, std::vector<int32_t>(8));
  Tensor small = tensor(DEVPLUG_DTYPE_FLOAT32, std::vector<float>(4));
  auto refused = [&](const char* what, devplug_error_t* e) {
    const devplug_code_t c = code(e);
    if (c != DEVPLUG_CODE_INVALID_ARGUMENT)
      problem(std::string(what) + ": " + devplug_code_name(c) + ", expected INVALID_ARGUMENT");
  };
  refused("all_reduce of float32 into int32",
          ext_->all_reduce(stream_, comm_, &f.desc, &i.desc, DEVPLUG_REDUCE_SUM));
  refused("all_reduce of 8 elements into 4",
          ext_->all_reduce(stream_, comm_, &f.desc, &small.desc, DEVPLUG_REDUCE_SUM));
  refused("all_gather into a recv of the wrong size", ext_->all_gather(stream_, comm_, &f.desc, &small.desc));
  refused("broadcast from a root past the last rank", ext_->broadcast(stream_, comm_, &f.desc, world_));
  refused("send to this rank", ext_->send(stream_, comm_, &f.desc, rank_));
  refused("recv from a rank past the last", ext_->recv(stream_, comm_, &f.desc, world_));
}

}  // namespace

std::string collectives() {
  devplug_context_t* context = nullptr;
  devplug_plugin_t* plugin = nullptr;
  const devplug_plugin_api_t* api = nullptr;
  devplug_context_options_t o{sizeof o, DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
  std::string error = take_error(devplug_context_create(&o, &context));
  if (error.empty())
    error =
        take_error(devplug_context_load_plugin(context, run_state().options.plugin_path.c_str(), &plugin));
  if (error.empty()) error = take_error(devplug_plugin_get_table(plugin, &api));
  const devplug_extension_t* e =
      error.empty() ? devplug_extension_find(api, DEVPLUG_EXTENSION_COLLECTIVES) : nullptr;
  if (error.empty() && e == nullptr) {
    std::printf("abi_collectives: plugin offers no collectives extension\n");
    std::fflush(stdout);
  }
  if (e != nullptr && e->struct_size < sizeof(devplug_ext_collectives_t))
    error = "collectives record is shorter than its ABI 1.2 struct";
  if (!error.empty() || e == nullptr) {
    devplug_context_destroy(context);
    return error;
  }
  const auto* ext = reinterpret_cast<const devplug_ext_collectives_t*>(e);
  std::string problems;
  int32_t count = 0;
  error = take_error(api->device_count(&count, nullptr));
  const int32_t first = run_state().options.device;
  // One device per rank, as NCCL requires of the ranks of one process: up to 3 ranks, on the
  // device under test and the ones after it.
  const uint32_t most = error.empty() && count > first ? static_cast<uint32_t>(std::min(3, count)) : 0;
  devplug_device_handle_t* dev = nullptr;
  if (most > 0) error = take_error(api->device_open(first, &dev));
  for (uint32_t world = 1; dev != nullptr && error.empty() && world <= most; ++world) {
    devplug_comm_unique_id_t id{};
    error = take_error(ext->comm_unique_id(dev, &id));
    if (!error.empty()) break;
    std::vector<std::string> found(world);
    std::vector<std::thread> ranks;
    for (uint32_t r = 0; r < world; ++r)
      ranks.emplace_back([&, r] {
        devplug_device_handle_t* mine = nullptr;
        const auto index =
            static_cast<int32_t>((static_cast<uint32_t>(first) + r) % static_cast<uint32_t>(count));
        const std::string opened = take_error(api->device_open(index, &mine));
        if (!opened.empty()) {
          found[r] = "  rank " + std::to_string(r) + ": device_open(" + std::to_string(index) +
                     "): " + opened + "\n";
          return;
        }
        {
          Rank rank(api, ext, mine, world, r);
          rank.run(id);
          found[r] = rank.problems();
        }
        const std::string closed = take_error(api->device_close(mine));
        if (!closed.empty()) found[r] += "  rank " + std::to_string(r) + ": device_close: " + closed + "\n";
      });
    for (std::thread& t : ranks) t.join();
    for (const std::string& f : found) problems += f;
  }
  if (dev != nullptr) {
    const std::string closed = take_error(api->device_close(dev));
    if (!closed.empty()) problems += "  device_close: " + closed + "\n";
  }
  devplug_context_destroy(context);
  if (!error.empty()) return "  " + error + "\n" + problems;
  std::printf(
      "abi_collectives: 1 to %u ranks, a device each: all_reduce (SUM in place, PRODUCT, AVG, MAX, MIN, 3 "
      "MiB, "
      "BXOR), reduce_scatter, all_gather, broadcast, all_to_all, a 300 KB send/recv ring, refusals\n",
      most);
  std::fflush(stdout);
  return problems;
}

}  // namespace devplug::conform
