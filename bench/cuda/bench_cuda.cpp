// SPDX-License-Identifier: Apache-2.0
// bench-cuda: figures for the CUDA plugin on a GPU machine, printed as one JSON object.
//
//   - device-to-device copy bandwidth (the yardstick),
//   - add and exp over 256M float32 and bfloat16 elements, as a share of that bandwidth,
//   - sum over 256M float32 elements, as a share of that bandwidth,
//   - matmul 8192^3 in bfloat16 and float32 (TF32 off, and on) in TFLOP/s,
//   - launch overhead of a 1-element add through the host API (libdevplug) and straight
//     through the plugin table.
// bench/cuda/torch_ref.py measures the same things with PyTorch for comparison. Times are
// host wall clock around stream_synchronize, best of several repetitions.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "devplug/plugin_api.h"
#include "devplug/sdk/strided.hpp"
#ifdef DEVPLUG_BENCH_HOST_API
#include "devplug/devplug.h"
#endif

namespace {

const devplug_plugin_api_t* g_api = nullptr;

void check(devplug_error_t* e, const char* what) {
  if (e == nullptr) return;
  std::fprintf(stderr, "bench-cuda: %s: %s (%s)\n", what, e->message, devplug_code_name(e->code));
  std::exit(1);
}

double seconds_best(int reps, devplug_stream_handle_t* stream, const std::function<void()>& body) {
  body();  // warm-up (first launch, cuBLASLt heuristics)
  check(g_api->stream_synchronize(stream), "synchronize");
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    check(g_api->stream_synchronize(stream), "synchronize");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
  }
  return best;
}

devplug_tensor_desc_t tensor(devplug_buffer_handle_t* buffer, devplug_dtype_t dtype,
                             std::vector<int64_t> shape) {
  devplug_tensor_desc_t t{};
  t.struct_size = sizeof t;
  t.buffer = buffer;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) t.shape[d] = shape[d];
  devplug::sdk::contiguous_strides(t.rank, t.shape, t.strides);
  return t;
}

devplug_kernel_fn kernel_for(devplug_op_t op, devplug_dtype_t dtype) {
  for (size_t i = 0; i < g_api->kernel_count; ++i)
    if (g_api->kernels[i]->op == op && (g_api->kernels[i]->dtypes & DEVPLUG_DTYPE_BIT(dtype)))
      return g_api->kernels[i]->fn;
  std::fprintf(stderr, "bench-cuda: no kernel for %s\n", devplug_op_name(op));
  std::exit(1);
}

void run_op(devplug_stream_handle_t* s, devplug_op_t op, std::vector<const devplug_tensor_desc_t*> in,
            const devplug_tensor_desc_t* out, const void* attrs) {
  devplug_op_call_t call{};
  call.struct_size = sizeof call;
  call.op = op;
  call.inputs = in.data();
  call.n_inputs = in.size();
  call.outputs = &out;
  call.n_outputs = 1;
  call.attrs = attrs;
  check(kernel_for(op, in.empty() ? out->dtype : in[0]->dtype)(s, &call), devplug_op_name(op));
}

void fill_random(devplug_stream_handle_t* s, const devplug_tensor_desc_t& t) {
  devplug_philox_attrs_t a{sizeof a, 1234, 0};
  run_op(s, DEVPLUG_OP_philox_uniform, {}, &t, &a);
}

#ifdef DEVPLUG_BENCH_HOST_API
// Per-call time of a 1-element add through libdevplug (validation, dispatch, plugin).
double host_api_add_overhead_us(const char* plugin_path) {
  devplug_context_options_t options{sizeof options,
                                    DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
  devplug_context_t* context = nullptr;
  if (devplug_context_create(&options, &context) != nullptr) return -1;
  devplug_plugin_t* plugin = nullptr;
  if (devplug_context_load_plugin(context, plugin_path, &plugin) != nullptr) return -1;
  size_t count = 0;
  devplug_context_device_count(context, &count);
  if (count == 0) return -1;
  devplug_device_t* device = nullptr;
  devplug_context_get_device(context, 0, &device);
  devplug_stream_t* stream = nullptr;
  devplug_device_default_stream(device, &stream);
  const int64_t one = 1;
  devplug_tensor_t *a = nullptr, *b = nullptr, *c = nullptr;
  devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &one, &a);
  devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &one, &b);
  devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &one, &c);
  devplug_tensor_t* ins[2] = {a, b};
  const int calls = 20000;
  for (int i = 0; i < 1000; ++i) devplug_op_call(stream, DEVPLUG_OP_add, ins, 2, &c, 1, nullptr);
  devplug_stream_synchronize(stream);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) devplug_op_call(stream, DEVPLUG_OP_add, ins, 2, &c, 1, nullptr);
  devplug_stream_synchronize(stream);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  devplug_tensor_release(a);
  devplug_tensor_release(b);
  devplug_tensor_release(c);
  devplug_context_destroy(context);
  return s / calls * 1e6;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : DEVPLUG_CUDA_PLUGIN;
  const int64_t n = argc > 2 ? std::atoll(argv[2]) : (int64_t{1} << 28);  // 256M elements
  const int64_t mm = argc > 3 ? std::atoll(argv[3]) : 8192;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "bench-cuda: %s\n", dlerror());
    return 1;
  }
  auto get = reinterpret_cast<devplug_plugin_get_api_fn>(dlsym(lib, DEVPLUG_PLUGIN_ENTRY_SYMBOL));
  g_api = get ? get() : nullptr;
  if (g_api == nullptr) return 1;
  devplug_plugin_init_args_t init{sizeof init, DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR};
  check(g_api->plugin_initialize(&init), "plugin_initialize");
  int32_t count = 0;
  const char* note = nullptr;
  check(g_api->device_count(&count, &note), "device_count");
  if (count == 0) {
    std::printf("{\"error\": \"no device\", \"note\": \"%s\"}\n", note ? note : "");
    return 2;
  }
  devplug_device_properties_t props{};
  props.struct_size = sizeof props;
  check(g_api->device_get_properties(0, &props), "device_get_properties");
  devplug_device_handle_t* device = nullptr;
  check(g_api->device_open(0, &device), "device_open");
  devplug_stream_handle_t* s = nullptr;
  check(g_api->stream_create(device, &s), "stream_create");

  std::printf("{\n  \"device\": \"%s\",\n  \"elements\": %lld,\n", props.name, static_cast<long long>(n));
  const uint64_t bytes32 = static_cast<uint64_t>(n) * 4;
  devplug_buffer_handle_t *ba, *bb, *bc;
  check(g_api->buffer_allocate(device, bytes32, &ba), "allocate");
  check(g_api->buffer_allocate(device, bytes32, &bb), "allocate");
  check(g_api->buffer_allocate(device, bytes32, &bc), "allocate");

  // Copy bandwidth: read + write of bytes32.
  const double t_copy =
      seconds_best(10, s, [&] { check(g_api->buffer_copy(s, ba, 0, bc, 0, bytes32), "copy"); });
  const double copy_bw = 2.0 * bytes32 / t_copy / 1e9;
  std::printf("  \"copy_gbps\": %.1f,\n", copy_bw);

  for (devplug_dtype_t dt : {DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_BFLOAT16}) {
    const double elem = static_cast<double>(devplug_dtype_size(dt));
    const devplug_tensor_desc_t a = tensor(ba, dt, {n}), b = tensor(bb, dt, {n}), c = tensor(bc, dt, {n});
    fill_random(s, a);
    fill_random(s, b);
    const char* name = devplug_dtype_name(dt);
    const double t_add = seconds_best(10, s, [&] { run_op(s, DEVPLUG_OP_add, {&a, &b}, &c, nullptr); });
    const double add_bw = 3.0 * n * elem / t_add / 1e9;
    std::printf("  \"add_%s_gbps\": %.1f, \"add_%s_share_of_copy\": %.3f,\n", name, add_bw, name,
                add_bw / copy_bw);
    const double t_exp = seconds_best(10, s, [&] { run_op(s, DEVPLUG_OP_exp, {&a}, &c, nullptr); });
    const double exp_bw = 2.0 * n * elem / t_exp / 1e9;
    std::printf("  \"exp_%s_gbps\": %.1f, \"exp_%s_share_of_copy\": %.3f,\n", name, exp_bw, name,
                exp_bw / copy_bw);
  }
  {
    const devplug_tensor_desc_t a = tensor(ba, DEVPLUG_DTYPE_FLOAT32, {n});
    const devplug_tensor_desc_t out = tensor(bc, DEVPLUG_DTYPE_FLOAT32, {1});
    fill_random(s, a);
    devplug_reduce_attrs_t r{sizeof r, 1u, 0.0};
    const double t_sum = seconds_best(10, s, [&] { run_op(s, DEVPLUG_OP_sum, {&a}, &out, &r); });
    const double sum_bw = 1.0 * n * 4 / t_sum / 1e9;
    std::printf("  \"sum_float32_gbps\": %.1f, \"sum_float32_share_of_copy\": %.3f,\n", sum_bw,
                sum_bw / copy_bw);
  }
  check(g_api->buffer_release(ba), "release");
  check(g_api->buffer_release(bb), "release");
  check(g_api->buffer_release(bc), "release");

  // matmul mm^3.
  const uint64_t mat_bytes = static_cast<uint64_t>(mm) * mm * 4;
  check(g_api->buffer_allocate(device, mat_bytes, &ba), "allocate");
  check(g_api->buffer_allocate(device, mat_bytes, &bb), "allocate");
  check(g_api->buffer_allocate(device, mat_bytes, &bc), "allocate");
  struct MatmulCase {
    const char* name;
    devplug_dtype_t dtype;
    uint32_t flags;
  };
  for (const MatmulCase& mc :
       {MatmulCase{"bfloat16", DEVPLUG_DTYPE_BFLOAT16, 0u}, MatmulCase{"float16", DEVPLUG_DTYPE_FLOAT16, 0u},
        MatmulCase{"float32", DEVPLUG_DTYPE_FLOAT32, 0u},
        MatmulCase{"float32_tf32", DEVPLUG_DTYPE_FLOAT32, DEVPLUG_MATMUL_ALLOW_TF32}}) {
    const devplug_tensor_desc_t a = tensor(ba, mc.dtype, {mm, mm}), b = tensor(bb, mc.dtype, {mm, mm}),
                                c = tensor(bc, mc.dtype, {mm, mm});
    fill_random(s, a);
    fill_random(s, b);
    devplug_matmul_attrs_t attrs{sizeof attrs, mc.flags};
    const double t = seconds_best(5, s, [&] { run_op(s, DEVPLUG_OP_matmul, {&a, &b}, &c, &attrs); });
    std::printf("  \"matmul_%s_tflops\": %.1f,\n", mc.name, 2.0 * mm * mm * mm / t / 1e12);
  }

  // Launch overhead straight through the table: 1-element add, many calls, one sync.
  {
    const devplug_tensor_desc_t a = tensor(ba, DEVPLUG_DTYPE_FLOAT32, {1}),
                                b = tensor(bb, DEVPLUG_DTYPE_FLOAT32, {1}),
                                c = tensor(bc, DEVPLUG_DTYPE_FLOAT32, {1});
    const int calls = 20000;
    const double t = seconds_best(3, s, [&] {
      for (int i = 0; i < calls; ++i) run_op(s, DEVPLUG_OP_add, {&a, &b}, &c, nullptr);
    });
    std::printf("  \"add_1elem_plugin_table_us\": %.2f,\n", t / calls * 1e6);
  }
  check(g_api->buffer_release(ba), "release");
  check(g_api->buffer_release(bb), "release");
  check(g_api->buffer_release(bc), "release");
  check(g_api->stream_destroy(s), "stream_destroy");
  check(g_api->device_close(device), "device_close");
#ifdef DEVPLUG_BENCH_HOST_API
  std::printf("  \"add_1elem_host_api_us\": %.2f,\n", host_api_add_overhead_us(path));
#else
  std::printf("  \"add_1elem_host_api_us\": null,\n");
#endif
  std::printf("  \"targets\": {\"elementwise_share_of_copy\": 0.9, \"sum_share_of_copy\": 0.9}\n}\n");
  return 0;
}
