// SPDX-License-Identifier: Apache-2.0
// bench-composite: a composite op run natively against the same op run through the
// dispatcher's decomposition into prims, on the same device: softmax (along the last dim)
// and layer_norm (over the last dim, with weight and bias) of a 4096 x 4096 float32 tensor
// on the OpenCL plugin. The decomposed side is a second context made with
// DEVPLUG_CONTEXT_DECOMPOSE on the same plugin and device. After the Google Benchmark table
// it prints each op's native and decomposed median time and the speed-up (target: >= 2x).
//
// Usage: bench-composite [--size=N] [Google Benchmark flags]. POCL_CACHE_DIR is honoured.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "devplug/devplug.h"

namespace {

int64_t g_size = 4096;

[[noreturn]] void die(const char* what, devplug_error_t* e) {
  std::fprintf(stderr, "bench-composite: %s: %s\n", what, e ? e->message : "failed");
  std::exit(1);
}
void check(devplug_error_t* e, const char* what) {
  if (e != nullptr) die(what, e);
}

// Device 0 of the OpenCL plugin in a context of its own, and the tensors of both ops.
struct Side {
  devplug_context_t* context = nullptr;
  devplug_device_t* device = nullptr;
  devplug_stream_t* stream = nullptr;
  devplug_tensor_t *x = nullptr, *y = nullptr, *w = nullptr, *b = nullptr, *mean = nullptr, *rstd = nullptr;

  explicit Side(bool decompose) {
    devplug_context_options_t o{sizeof o, DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT |
                                              (decompose ? DEVPLUG_CONTEXT_DECOMPOSE : 0u)};
    check(devplug_context_create(&o, &context), "devplug_context_create");
    devplug_plugin_t* plugin = nullptr;
    check(devplug_context_load_plugin(context, DEVPLUG_OPENCL_PLUGIN, &plugin), "loading the OpenCL plugin");
    size_t n = 0;
    check(devplug_context_device_count(context, &n), "device_count");
    if (n == 0) die("the OpenCL plugin has no device here", nullptr);
    check(devplug_context_get_device(context, 0, &device), "get_device");
    check(devplug_stream_create(device, &stream), "stream_create");
    const int64_t shape[2] = {g_size, g_size}, row[1] = {g_size}, stat[2] = {g_size, 1};
    check(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, shape, &x), "x");
    check(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, shape, &y), "y");
    check(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, row, &w), "w");
    check(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, row, &b), "b");
    check(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, stat, &mean), "mean");
    check(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, stat, &rstd), "rstd");
    std::vector<float> values(static_cast<size_t>(g_size * g_size));
    uint32_t state = 12345;
    for (float& v : values) {
      state = state * 1664525u + 1013904223u;
      v = static_cast<float>(state >> 8) * (8.0f / 16777216.0f) - 4.0f;
    }
    check(devplug_tensor_copy_from_host(stream, x, values.data(), values.size() * 4, DEVPLUG_COPY_BLOCKING),
          "x");
    values.resize(static_cast<size_t>(g_size));
    check(devplug_tensor_copy_from_host(stream, w, values.data(), values.size() * 4, DEVPLUG_COPY_BLOCKING),
          "w");
    check(devplug_tensor_copy_from_host(stream, b, values.data(), values.size() * 4, DEVPLUG_COPY_BLOCKING),
          "b");
  }

  void softmax() {
    devplug_tensor_t* in[1] = {x};
    devplug_tensor_t* out[1] = {y};
    const devplug_dim_attrs_t a{sizeof a, 1};
    check(devplug_op_call(stream, DEVPLUG_OP_softmax, in, 1, out, 1, &a), "softmax");
    check(devplug_stream_synchronize(stream), "synchronize");
  }
  void layer_norm() {
    devplug_tensor_t* in[3] = {x, w, b};
    devplug_tensor_t* out[3] = {y, mean, rstd};
    const devplug_norm_attrs_t a{sizeof a, 1, 1e-5};
    check(devplug_op_call(stream, DEVPLUG_OP_layer_norm, in, 3, out, 3, &a), "layer_norm");
    check(devplug_stream_synchronize(stream), "synchronize");
  }
};

Side& side(bool decompose) {
  static Side native(false);
  static Side decomposed(true);
  return decompose ? decomposed : native;
}

std::map<std::string, double>& medians() {
  static std::map<std::string, double> m;
  return m;
}

template <void (Side::*Op)()>
void run(benchmark::State& state, bool decompose, const char* name) {
  Side& s = side(decompose);
  (s.*Op)();  // first use: program builds and the allocator's cache
  std::vector<double> times;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    (s.*Op)();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(t);
    times.push_back(t);
  }
  std::sort(times.begin(), times.end());
  if (!times.empty())
    medians()[std::string(name) + (decompose ? " decomposed" : " native")] = times[times.size() / 2];
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * g_size * g_size * 8);
}

void BM_softmax_native(benchmark::State& s) { run<&Side::softmax>(s, false, "softmax"); }
void BM_softmax_decomposed(benchmark::State& s) { run<&Side::softmax>(s, true, "softmax"); }
void BM_layer_norm_native(benchmark::State& s) { run<&Side::layer_norm>(s, false, "layer_norm"); }
void BM_layer_norm_decomposed(benchmark::State& s) { run<&Side::layer_norm>(s, true, "layer_norm"); }

BENCHMARK(BM_softmax_native)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_softmax_decomposed)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_layer_norm_native)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_layer_norm_decomposed)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--size=", 7) == 0) g_size = std::atoll(argv[i] + 7);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\n%lld x %lld float32 on the OpenCL plugin's device 0, median per call:\n",
              static_cast<long long>(g_size), static_cast<long long>(g_size));
  for (const char* op : {"softmax", "layer_norm"}) {
    const auto n = medians().find(std::string(op) + " native"),
               d = medians().find(std::string(op) + " decomposed");
    if (n == medians().end() || d == medians().end()) continue;
    std::printf("  %-10s native %8.2f ms   decomposed %8.2f ms   native is %.2fx faster (target >= 2x)\n", op,
                n->second * 1e3, d->second * 1e3, d->second / n->second);
  }
  return 0;
}
