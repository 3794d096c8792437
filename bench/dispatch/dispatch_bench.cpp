// What the dispatcher adds to one op call: a 1-element float32 add with a given output on the
// reference plugin, through devplug_op_call and devplug_elementwise, against the plugin's
// add kernel called directly through its table (the floor). With libtorch, at::add and
// at::add_out on 1-element CPU tensors are timed too, for scale. Prints the differences and
// ratios after the usual Google Benchmark table. Target: the dispatcher adds <= 100 ns.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "devplug/devplug.h"

#ifdef DEVPLUG_HAVE_TORCH
#include <ATen/ATen.h>
#endif

namespace {

[[noreturn]] void die(const char* what, devplug_error_t* e) {
  std::fprintf(stderr, "devplug-bench-dispatch: %s: %s\n", what, e ? e->message : "failed");
  std::exit(1);
}
void check(devplug_error_t* e, const char* what) {
  if (e != nullptr) die(what, e);
}

// One reference device, three 1-element float32 tensors and the pieces of a direct call.
struct Setup {
  devplug_context_t* context = nullptr;
  devplug_plugin_t* plugin = nullptr;
  devplug_device_t* device = nullptr;
  devplug_stream_t* stream = nullptr;
  devplug_tensor_t* a = nullptr;
  devplug_tensor_t* b = nullptr;
  devplug_tensor_t* out = nullptr;
  // Direct: the plugin's own table, device, stream and kernel.
  const devplug_plugin_api_t* api = nullptr;
  devplug_device_handle_t* native_device = nullptr;
  devplug_stream_handle_t* native_stream = nullptr;
  devplug_kernel_fn add_kernel = nullptr;
  devplug_tensor_desc_t descs[3] = {};

  Setup() {
    check(devplug_context_create(nullptr, &context), "devplug_context_create");
    if (devplug_error_t* e = devplug_context_find_plugin(context, "reference", &plugin)) {
      devplug_error_destroy(e);
#ifdef DEVPLUG_REFERENCE_PLUGIN
      check(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, &plugin), "loading the reference plugin");
#else
      die("the reference plugin is not found", nullptr);
#endif
    }
    size_t n = 0;
    check(devplug_context_device_count(context, &n), "device_count");
    for (size_t i = 0; i < n && device == nullptr; ++i) {
      devplug_device_t* d = nullptr;
      devplug_plugin_t* p = nullptr;
      check(devplug_context_get_device(context, i, &d), "get_device");
      check(devplug_device_get_plugin(d, &p), "get_plugin");
      if (p == plugin) device = d;
    }
    if (device == nullptr) die("the reference plugin has no device", nullptr);
    check(devplug_device_default_stream(device, &stream), "default_stream");
    const int64_t shape[1] = {1};
    const float one = 1.0f;
    for (devplug_tensor_t** t : {&a, &b, &out}) {
      check(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, shape, t), "tensor_create");
      check(devplug_tensor_copy_from_host(stream, *t, &one, sizeof(one), DEVPLUG_COPY_BLOCKING), "copy_from_host");
    }
    check(devplug_plugin_get_table(plugin, &api), "plugin_get_api");
    for (size_t i = 0; i < api->kernel_count; ++i) {
      const devplug_kernel_t* row = api->kernels[i];
      if (row->op == DEVPLUG_OP_add && (row->dtypes & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32))) add_kernel = row->fn;
    }
    if (add_kernel == nullptr) die("the reference plugin has no float32 add", nullptr);
    check(api->device_open(0, &native_device), "device_open");
    check(api->stream_create(native_device, &native_stream), "stream_create");
    for (devplug_tensor_desc_t& d : descs) d.struct_size = sizeof(d);
    check(devplug_tensor_describe(a, &descs[0]), "describe");
    check(devplug_tensor_describe(b, &descs[1]), "describe");
    check(devplug_tensor_describe(out, &descs[2]), "describe");
  }
  ~Setup() {
    api->error_destroy(api->stream_destroy(native_stream));
    api->error_destroy(api->device_close(native_device));
    devplug_context_destroy(context);
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

void BM_DirectKernel(benchmark::State& state) {
  Setup& s = setup();
  const devplug_tensor_desc_t* ins[2] = {&s.descs[0], &s.descs[1]};
  const devplug_tensor_desc_t* outs[1] = {&s.descs[2]};
  for (auto _ : state) {
    devplug_op_call_t call{sizeof(call), DEVPLUG_OP_add, ins, 2, outs, 1, nullptr};
    devplug_error_t* e = s.add_kernel(s.native_stream, &call);
    if (e != nullptr) die("direct add", e);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_DirectKernel);

void BM_OpCall(benchmark::State& state) {
  Setup& s = setup();
  devplug_tensor_t* ins[2] = {s.a, s.b};
  for (auto _ : state) {
    devplug_error_t* e = devplug_op_call(s.stream, DEVPLUG_OP_add, ins, 2, &s.out, 1, nullptr);
    if (e != nullptr) die("devplug_op_call", e);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_OpCall);

void BM_Elementwise(benchmark::State& state) {
  Setup& s = setup();
  devplug_tensor_t* ins[2] = {s.a, s.b};
  for (auto _ : state) {
    devplug_error_t* e = devplug_elementwise(s.stream, DEVPLUG_OP_add, ins, 2, &s.out);
    if (e != nullptr) die("devplug_elementwise", e);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_Elementwise);

#ifdef DEVPLUG_HAVE_TORCH
void BM_AtAdd(benchmark::State& state) {
  at::Tensor a = at::ones({1}, at::kFloat), b = at::ones({1}, at::kFloat);
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
}
BENCHMARK(BM_AtAdd);

void BM_AtAddOut(benchmark::State& state) {
  at::Tensor a = at::ones({1}, at::kFloat), b = at::ones({1}, at::kFloat), out = at::empty({1}, at::kFloat);
  for (auto _ : state) benchmark::DoNotOptimize(at::add_out(out, a, b));
}
BENCHMARK(BM_AtAddOut);
#endif

// Keeps each benchmark's time per iteration (ns) for the summary.
class Recorder : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs)
      if (run.run_type == Run::RT_Iteration && run.iterations > 0) {
        ns[run.benchmark_name()] = run.real_accumulated_time * 1e9 / static_cast<double>(run.iterations);
        cpu_ns[run.benchmark_name()] = run.cpu_accumulated_time * 1e9 / static_cast<double>(run.iterations);
      }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> ns;      // wall time
  std::map<std::string, double> cpu_ns;  // CPU time: steadier on a loaded machine
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  setup();  // load before timing, and say so early when it fails
  Recorder recorder;
  benchmark::RunSpecifiedBenchmarks(&recorder);
  auto& ns = recorder.ns;
  auto& cpu = recorder.cpu_ns;
  if (ns.count("BM_DirectKernel") && ns.count("BM_OpCall") && ns.count("BM_Elementwise")) {
    std::printf("\n%-34s %10s %10s\n", "per call", "wall ns", "CPU ns");
    auto line = [&](const char* label, const std::string& name) {
      std::printf("%-34s %10.1f %10.1f\n", label, ns[name], cpu[name]);
    };
    line("direct kernel call", "BM_DirectKernel");
    line("devplug_op_call", "BM_OpCall");
    line("devplug_elementwise (given output)", "BM_Elementwise");
    std::printf("dispatcher adds (op_call - direct):     %7.1f ns wall, %7.1f ns CPU (target <= 100 ns)\n",
                ns["BM_OpCall"] - ns["BM_DirectKernel"], cpu["BM_OpCall"] - cpu["BM_DirectKernel"]);
    std::printf("dispatcher adds (elementwise - direct): %7.1f ns wall, %7.1f ns CPU\n",
                ns["BM_Elementwise"] - ns["BM_DirectKernel"], cpu["BM_Elementwise"] - cpu["BM_DirectKernel"]);
  }
#ifdef DEVPLUG_HAVE_TORCH
  if (ns.count("BM_AtAdd") && ns.count("BM_AtAddOut") && ns.count("BM_OpCall")) {
    std::printf("at::add:                         %8.1f ns\n", ns["BM_AtAdd"]);
    std::printf("at::add_out:                     %8.1f ns\n", ns["BM_AtAddOut"]);
    std::printf("devplug_op_call / at::add_out:   %8.2f\n", ns["BM_OpCall"] / ns["BM_AtAddOut"]);
    std::printf("devplug_elementwise / at::add:   %8.2f\n", ns["BM_Elementwise"] / ns["BM_AtAdd"]);
  }
#else
  std::printf("libtorch not found: at::add comparison skipped\n");
#endif
  return 0;
}
