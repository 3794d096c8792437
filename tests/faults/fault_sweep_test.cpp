// SPDX-License-Identifier: Apache-2.0
// The allocation-failure sweep (docs/reliability.md, "Faults"): for every N from 1 to a
// bound, DEVPLUG_FAULT_ALLOC=N:1 makes the Nth allocation of the dispatcher and of the
// plugin fail (sdk/fault.hpp), once; a mixed workload (streams, events, tensors, views,
// prims, a composite, a fallback where the plugin lacks a kernel, host copies) then runs
// through the host API. Every call must succeed or answer RESOURCE_EXHAUSTED; after the
// failure the same context must run the whole workload again with the right results; and
// nothing may leak (the fixture plugin counts its live buffers; the sanitizer build's
// LeakSanitizer checks every target). The sweep proves it reached past the workload's last
// allocation: the final stretch of N sees no failure at all.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "devplug/devplug.hpp"

namespace {

using devplug::Context;
using devplug::Device;
using devplug::Error;
using devplug::Event;
using devplug::Stream;
using devplug::Tensor;

constexpr devplug_dtype_t kF32 = DEVPLUG_DTYPE_FLOAT32;

// A wrong result: fails the test, unlike RESOURCE_EXHAUSTED.
struct WrongResult {
  std::string what;
};

void expect_near(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  if (got.size() != want.size()) throw WrongResult{std::string(what) + ": wrong size"};
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-4f * (1.0f + std::fabs(want[i])))
      throw WrongResult{std::string(what) + ": element " + std::to_string(i) + " is " +
                        std::to_string(got[i]) + ", expected " + std::to_string(want[i])};
}

// The workload: two streams ordered by an event, prims (add, matmul on a transposed view,
// sum, index_select, cat), a composite (softmax), a strided copy and host copies, each
// result checked. Throws devplug::Error for a failed call and WrongResult for a wrong value.
void workload(const Device& device) {
  constexpr int64_t n = 8;
  std::vector<float> av(n * n), bv(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    av[i] = static_cast<float>(i % 7) - 3.0f;
    bv[i] = static_cast<float>(i % 5) * 0.5f;
  }
  const Stream first(device);
  const Stream second(device);
  const Event done(device);
  const Tensor a = Tensor::from_host(device, av, {n, n});
  const Tensor b = Tensor::from_host(device, bv, {n, n});
  const Tensor c = Tensor::empty(device, kF32, {n, n});
  devplug::call(DEVPLUG_OP_add, {a, b}, {c}, nullptr, &first);
  done.record(first);
  second.wait(done);
  // m = c x a^T (a transposed view: the dispatcher or the plugin handles its strides).
  const Tensor m = Tensor::empty(device, kF32, {n, n});
  const devplug_matmul_attrs_t mm{sizeof(devplug_matmul_attrs_t), 0};
  devplug::call(DEVPLUG_OP_matmul, {c, a.transpose(0, 1)}, {m}, &mm, &second);
  const Tensor row_sums = Tensor::empty(device, kF32, {n, 1});
  const devplug_reduce_attrs_t over_cols{sizeof(devplug_reduce_attrs_t), 2u, 0.0};
  devplug::call(DEVPLUG_OP_sum, {m}, {row_sums}, &over_cols, &second);
  const Tensor rows = Tensor::from_host(device, std::vector<int64_t>{7, 0, 3}, {3});
  const Tensor picked = Tensor::empty(device, kF32, {3, n});
  const devplug_dim_attrs_t dim0{sizeof(devplug_dim_attrs_t), 0}, dim1{sizeof(devplug_dim_attrs_t), 1};
  devplug::call(DEVPLUG_OP_index_select, {m, rows}, {picked}, &dim0, &second);
  const Tensor probabilities = Tensor::empty(device, kF32, {3, n});
  devplug::call(DEVPLUG_OP_softmax, {picked}, {probabilities}, &dim1, &second);
  const Tensor stacked = Tensor::empty(device, kF32, {n + 3, n});
  devplug::call(DEVPLUG_OP_cat, {m, picked}, {stacked}, &dim0, &second);
  Tensor transposed = Tensor::empty(device, kF32, {n, n});
  transposed.copy_from(m.transpose(0, 1), &second);

  std::vector<float> cv(n * n), mv(n * n, 0.0f), sums(n, 0.0f);
  for (int64_t i = 0; i < n * n; ++i) cv[i] = av[i] + bv[i];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t k = 0; k < n; ++k) mv[i * n + j] += cv[i * n + k] * av[j * n + k];
      sums[i] += mv[i * n + j];
    }
  expect_near(m.to_host<float>(&second), mv, "matmul");
  expect_near(row_sums.to_host<float>(&second), sums, "sum");
  std::vector<float> picked_v, stacked_v = mv, transposed_v(n * n);
  for (int64_t r : {7, 0, 3})
    for (int64_t j = 0; j < n; ++j) picked_v.push_back(mv[r * n + j]);
  stacked_v.insert(stacked_v.end(), picked_v.begin(), picked_v.end());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) transposed_v[i * n + j] = mv[j * n + i];
  expect_near(stacked.to_host<float>(&second), stacked_v, "cat");
  expect_near(transposed.to_host<float>(&second), transposed_v, "strided copy");
  const std::vector<float> p = probabilities.to_host<float>(&second);
  for (int64_t r = 0; r < 3; ++r) {
    float total = 0;
    for (int64_t j = 0; j < n; ++j) total += p[static_cast<size_t>(r * n + j)];
    if (std::fabs(total - 1.0f) > 1e-4f)
      throw WrongResult{"softmax: row " + std::to_string(r) + " sums to " + std::to_string(total)};
  }
}

// The live buffers of the loaded fixture plugin (tests/dispatcher/fixture_plugin.cpp), or -1.
int64_t fixture_live_buffers() {
#ifdef DEVPLUG_FIXTURE_PLUGIN
  void* handle = dlopen(DEVPLUG_FIXTURE_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto fn = reinterpret_cast<int64_t (*)()>(dlsym(handle, "fixture_live_buffers"));
  const int64_t live = fn ? fn() : -1;
  dlclose(handle);
  return live;
#else
  return -1;
#endif
}

struct Target {
  std::vector<std::string> plugins;  // loaded in order; the workload runs on device 0
  int bound;                         // the last N of the sweep
};

// Sweeps N over [1, target.bound]. Returns the last N that made a call fail.
int sweep(const Target& target, bool count_fixture_buffers) {
  int last_failure = 0;
  for (int every = 1; every <= target.bound; ++every) {
    SCOPED_TRACE("DEVPLUG_FAULT_ALLOC=" + std::to_string(every) + ":1");
    ::setenv("DEVPLUG_FAULT_ALLOC", (std::to_string(every) + ":1").c_str(), 1);
    // Each library (the dispatcher, each plugin) fails its Nth allocation once, so the
    // workload fails at most once per library; then the same context must run it through.
    const int most_failures = static_cast<int>(target.plugins.size()) + 1;
    int failures = 0;
    bool done = false;
    try {
      Context context(DEVPLUG_CONTEXT_NO_DISCOVERY);
      for (const std::string& plugin : target.plugins) context.load(plugin);
      const Device device = context.devices().at(0);
      for (int attempt = 0; attempt <= most_failures && !done; ++attempt) {
        try {
          workload(device);
          done = true;
        } catch (const Error& e) {
          if (e.code() != DEVPLUG_CODE_RESOURCE_EXHAUSTED) throw;
          ++failures;
        }
      }
    } catch (const Error& e) {
      ADD_FAILURE() << (failures > 0 ? "after an injected failure, the context " : "the workload ")
                    << "answered " << devplug_code_name(e.code()) << ": " << e.message();
      break;
    } catch (const WrongResult& wrong) {
      ADD_FAILURE() << "wrong result" << (failures > 0 ? " after an injected failure" : "") << ": "
                    << wrong.what;
      break;
    }
    if (!done) {
      ADD_FAILURE() << "the context did not recover: " << failures << " failed runs of the workload";
      break;
    }
    if (failures > 0) last_failure = every;
    if (count_fixture_buffers && fixture_live_buffers() != 0) {
      ADD_FAILURE() << fixture_live_buffers() << " buffers of the fixture plugin outlived the context";
      break;
    }
  }
  ::unsetenv("DEVPLUG_FAULT_ALLOC");
  std::printf("[ sweep    ] N = 1..%d, the last failure at N = %d\n", target.bound, last_failure);
  return last_failure;
}

// The sweep went past the workload's last allocation when its final stretch saw no failure.
void expect_complete(const Target& target, int last_failure) {
  EXPECT_GT(last_failure, 0) << "no injected failure surfaced: is sdk/fault.hpp wired in?";
  EXPECT_LE(last_failure, target.bound - 20)
      << "allocations may remain past the bound: raise it (the workload allocates more than before)";
}

TEST(FaultSweep, Reference) {
  const Target target{{DEVPLUG_REFERENCE_PLUGIN}, 70};
  expect_complete(target, sweep(target, false));
}

// The fixture plugin has few kernels (add, copy_strided, convert, neg), so most of the
// workload falls back to the reference backend through host staging; it counts its live
// buffers, which must all be released with each context.
#ifdef DEVPLUG_FIXTURE_PLUGIN
TEST(FaultSweep, FallbackFromTheFixturePlugin) {
  ::unsetenv("DEVPLUG_FAULT_ALLOC");
  Context keeper(DEVPLUG_CONTEXT_NO_DISCOVERY);  // keeps the fixture loaded, so its counters live on
  keeper.load(DEVPLUG_FIXTURE_PLUGIN);
  const Target target{{DEVPLUG_FIXTURE_PLUGIN, DEVPLUG_REFERENCE_PLUGIN}, 180};
  expect_complete(target, sweep(target, true));
}

// Every Nth allocation fails for good (DEVPLUG_FAULT_ALLOC=N): the workload cannot run
// through, but every call still succeeds or answers RESOURCE_EXHAUSTED, cleanup paths
// included, and no buffer outlives its context.
TEST(FaultSweep, EveryNthAllocationForGood) {
  ::unsetenv("DEVPLUG_FAULT_ALLOC");
  Context keeper(DEVPLUG_CONTEXT_NO_DISCOVERY);
  keeper.load(DEVPLUG_FIXTURE_PLUGIN);
  for (int every = 1; every <= 12; ++every) {
    SCOPED_TRACE("DEVPLUG_FAULT_ALLOC=" + std::to_string(every));
    ::setenv("DEVPLUG_FAULT_ALLOC", std::to_string(every).c_str(), 1);
    try {
      Context context(DEVPLUG_CONTEXT_NO_DISCOVERY);
      context.load(DEVPLUG_FIXTURE_PLUGIN);
      context.load(DEVPLUG_REFERENCE_PLUGIN);
      const Device device = context.devices().at(0);
      for (int attempt = 0; attempt < 3; ++attempt) {
        try {
          workload(device);
        } catch (const Error& e) {
          if (e.code() != DEVPLUG_CODE_RESOURCE_EXHAUSTED) throw;
        }
      }
    } catch (const Error& e) {
      ADD_FAILURE() << "answered " << devplug_code_name(e.code()) << ": " << e.message();
    } catch (const WrongResult& wrong) {
      ADD_FAILURE() << "wrong result: " << wrong.what;
    }
    EXPECT_EQ(fixture_live_buffers(), 0) << "buffers of the fixture plugin outlived the context";
  }
  ::unsetenv("DEVPLUG_FAULT_ALLOC");
}
#endif

#ifdef DEVPLUG_OPENCL_PLUGIN
// The OpenCL plugin's own points too (buffers, streams, events, scratch memory, the index
// status block); each N costs a context and the plugin's start (about 0.1 s).
TEST(FaultSweep, OpenCl) {
  {
    ::unsetenv("DEVPLUG_FAULT_ALLOC");
    Context probe(DEVPLUG_CONTEXT_NO_DISCOVERY);
    probe.load(DEVPLUG_OPENCL_PLUGIN);
    if (probe.devices().empty()) GTEST_SKIP() << "no OpenCL device here";
  }
  const Target target{{DEVPLUG_OPENCL_PLUGIN}, 70};
  expect_complete(target, sweep(target, false));
}
#endif

}  // namespace
