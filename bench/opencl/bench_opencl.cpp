// bench-opencl: prints figures for the OpenCL plugin.
//
//   add    float32 add of 16M elements, GB/s (3 arrays moved), next to a plain C++ loop
//   sum    sum of 16M float32, GB/s, next to the reference backend
//   matmul 1024 x 1024 x 1024 float32, GFLOP/s, next to the reference backend
//   start  the first program build in a cold cache, and the time from process start to the
//          first result in a second process whose disk cache is warm
//
// Usage: bench-opencl [--skip-reference]. Uses a temporary folder as the disk cache and
// POCL_CACHE_DIR unless they are set. Timings are medians of a few runs.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "devplug/plugin_api.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench-opencl: %s\n", what.c_str());
  std::exit(1);
}

void check(const devplug_plugin_api_t* api, devplug_error_t* error, const char* what) {
  if (error == nullptr) return;
  const std::string message = error->message;
  api->error_destroy(error);
  die(std::string(what) + ": " + message);
}

// Device 0 of one plugin, a stream, and helpers to run a kernel.
struct Device {
  const devplug_plugin_api_t* api = nullptr;
  devplug_device_handle_t* device = nullptr;
  devplug_stream_handle_t* stream = nullptr;

  explicit Device(const char* path) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) die(dlerror());
    auto get = reinterpret_cast<devplug_plugin_get_api_fn>(dlsym(handle, DEVPLUG_PLUGIN_ENTRY_SYMBOL));
    api = get ? get() : nullptr;
    if (api == nullptr) die(std::string("no table in ") + path);
    devplug_plugin_init_args_t args{sizeof args, DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR};
    check(api, api->plugin_initialize(&args), "plugin_initialize");
    int32_t count = 0;
    const char* note = nullptr;
    check(api, api->device_count(&count, &note), "device_count");
    if (count == 0) die(std::string("no device: ") + (note ? note : ""));
    check(api, api->device_open(0, &device), "device_open");
    check(api, api->stream_create(device, &stream), "stream_create");
  }
  devplug_buffer_handle_t* buffer(size_t bytes, const void* data = nullptr) {
    devplug_buffer_handle_t* b = nullptr;
    check(api, api->buffer_allocate(device, bytes, &b), "buffer_allocate");
    if (data != nullptr) check(api, api->buffer_copy_from_host(stream, data, b, 0, bytes), "copy_from_host");
    sync();
    return b;
  }
  void sync() { check(api, api->stream_synchronize(stream), "stream_synchronize"); }
  void run(devplug_op_t op, std::vector<devplug_tensor_desc_t> inputs, devplug_tensor_desc_t out, const void* attrs) {
    std::vector<const devplug_tensor_desc_t*> in;
    for (const devplug_tensor_desc_t& t : inputs) in.push_back(&t);
    const devplug_tensor_desc_t* outs[1] = {&out};
    const devplug_dtype_t dtype = inputs.empty() ? out.dtype : inputs[0].dtype;
    for (size_t i = 0; i < api->kernel_count; ++i) {
      const devplug_kernel_t* k = api->kernels[i];
      if (k->op != op || (k->dtypes & DEVPLUG_DTYPE_BIT(dtype)) == 0) continue;
      devplug_op_call_t call{sizeof call, op, in.data(), in.size(), outs, 1, attrs};
      check(api, k->fn(stream, &call), devplug_op_name(op));
      return;
    }
    die(std::string("no kernel for ") + devplug_op_name(op));
  }
};

devplug_tensor_desc_t tensor(devplug_buffer_handle_t* b, devplug_dtype_t dtype, std::vector<int64_t> shape) {
  devplug_tensor_desc_t t{};
  t.struct_size = sizeof t;
  t.buffer = b;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  int64_t step = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    t.shape[d] = shape[static_cast<size_t>(d)];
    t.strides[d] = step;
    step *= shape[static_cast<size_t>(d)];
  }
  return t;
}

// Median seconds of `reps` runs of `body` (after one warm-up run).
double median_seconds(int reps, const std::function<void()>& body) {
  body();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto start = Clock::now();
    body();
    times.push_back(seconds_since(start));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

constexpr int64_t kElements = 16 << 20;

void bench_add() {
  std::vector<float> a(kElements), b(kElements), c(kElements);
  for (int64_t i = 0; i < kElements; ++i) {
    a[static_cast<size_t>(i)] = static_cast<float>(i % 1000);
    b[static_cast<size_t>(i)] = 0.5f;
  }
  const double bytes = 3.0 * 4.0 * static_cast<double>(kElements);
  const double loop = median_seconds(5, [&] {
    float* __restrict out = c.data();
    const float* __restrict x = a.data();
    const float* __restrict y = b.data();
    for (int64_t i = 0; i < kElements; ++i) out[i] = x[i] + y[i];
  });
  Device dev(DEVPLUG_OPENCL_PLUGIN);
  devplug_buffer_handle_t* da = dev.buffer(kElements * 4, a.data());
  devplug_buffer_handle_t* db = dev.buffer(kElements * 4, b.data());
  devplug_buffer_handle_t* dc = dev.buffer(kElements * 4);
  const double ocl = median_seconds(5, [&] {
    dev.run(DEVPLUG_OP_add, {tensor(da, DEVPLUG_DTYPE_FLOAT32, {kElements}), tensor(db, DEVPLUG_DTYPE_FLOAT32, {kElements})},
            tensor(dc, DEVPLUG_DTYPE_FLOAT32, {kElements}), nullptr);
    dev.sync();
  });
  std::printf("add float32 16M:   opencl %7.2f GB/s   C++ loop %7.2f GB/s   ratio %.2f (%g)\n", bytes / ocl / 1e9,
              bytes / loop / 1e9, loop / ocl, static_cast<double>(c[7]));
}

void bench_sum(bool with_reference) {
  std::vector<float> a(kElements, 0.25f);
  const double bytes = 4.0 * static_cast<double>(kElements);
  devplug_reduce_attrs_t attrs{sizeof attrs, 1u, 0.0};
  auto time_on = [&](const char* path) {
    Device dev(path);
    devplug_buffer_handle_t* da = dev.buffer(kElements * 4, a.data());
    devplug_buffer_handle_t* out = dev.buffer(4);
    return median_seconds(3, [&] {
      dev.run(DEVPLUG_OP_sum, {tensor(da, DEVPLUG_DTYPE_FLOAT32, {kElements})}, tensor(out, DEVPLUG_DTYPE_FLOAT32, {1}), &attrs);
      dev.sync();
    });
  };
  const double ocl = time_on(DEVPLUG_OPENCL_PLUGIN);
  std::printf("sum float32 16M:   opencl %7.2f GB/s", bytes / ocl / 1e9);
#ifdef DEVPLUG_REFERENCE_PLUGIN
  if (with_reference) std::printf("   reference %7.2f GB/s", bytes / time_on(DEVPLUG_REFERENCE_PLUGIN) / 1e9);
#endif
  (void)with_reference;
  std::printf("\n");
}

void bench_matmul(bool with_reference) {
  constexpr int64_t n = 1024;
  std::vector<float> a(n * n), b(n * n);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 7) - 3.0f;
    b[i] = static_cast<float>(i % 5) - 2.0f;
  }
  devplug_matmul_attrs_t attrs{sizeof attrs, 0};
  const double flops = 2.0 * n * n * n;
  auto time_on = [&](const char* path, int reps) {
    Device dev(path);
    devplug_buffer_handle_t* da = dev.buffer(n * n * 4, a.data());
    devplug_buffer_handle_t* db = dev.buffer(n * n * 4, b.data());
    devplug_buffer_handle_t* dc = dev.buffer(n * n * 4);
    return median_seconds(reps, [&] {
      dev.run(DEVPLUG_OP_matmul, {tensor(da, DEVPLUG_DTYPE_FLOAT32, {n, n}), tensor(db, DEVPLUG_DTYPE_FLOAT32, {n, n})},
              tensor(dc, DEVPLUG_DTYPE_FLOAT32, {n, n}), &attrs);
      dev.sync();
    });
  };
  const double ocl = time_on(DEVPLUG_OPENCL_PLUGIN, 3);
  std::printf("matmul f32 1024^3: opencl %7.2f GFLOP/s", flops / ocl / 1e9);
#ifdef DEVPLUG_REFERENCE_PLUGIN
  if (with_reference) std::printf("   reference %7.2f GFLOP/s", flops / time_on(DEVPLUG_REFERENCE_PLUGIN, 1) / 1e9);
#endif
  (void)with_reference;
  std::printf("\n");
}

// One exp on 1024 floats; returns seconds from `start` to the result on the host.
double first_result(Clock::time_point start) {
  std::vector<float> x(1024, 1.0f), y(1024);
  Device dev(DEVPLUG_OPENCL_PLUGIN);
  devplug_buffer_handle_t* dx = dev.buffer(4096, x.data());
  devplug_buffer_handle_t* dy = dev.buffer(4096);
  dev.run(DEVPLUG_OP_exp, {tensor(dx, DEVPLUG_DTYPE_FLOAT32, {1024})}, tensor(dy, DEVPLUG_DTYPE_FLOAT32, {1024}), nullptr);
  check(dev.api, dev.api->buffer_copy_to_host(dev.stream, dy, 0, y.data(), 4096), "copy_to_host");
  dev.sync();
  if (y[0] < 2.7f || y[0] > 2.8f) die("wrong exp result");
  return seconds_since(start);
}

void bench_startup(const char* self) {
  // Cold: a fresh disk cache; the time of the first op includes building its program.
  char pattern[] = "/tmp/bench_opencl_XXXXXX";
  const char* dir = mkdtemp(pattern);
  if (dir == nullptr) die("mkdtemp failed");
  setenv("DEVPLUG_OPENCL_CACHE_DIR", dir, 1);
  {
    std::vector<float> x(1024, 1.0f);
    Device dev(DEVPLUG_OPENCL_PLUGIN);
    devplug_buffer_handle_t* dx = dev.buffer(4096, x.data());
    devplug_buffer_handle_t* dy = dev.buffer(4096);
    const auto start = Clock::now();
    dev.run(DEVPLUG_OP_exp, {tensor(dx, DEVPLUG_DTYPE_FLOAT32, {1024})}, tensor(dy, DEVPLUG_DTYPE_FLOAT32, {1024}), nullptr);
    dev.sync();
    std::printf("first build:       %.1f ms (exp float32 program, cold disk cache, first launch)\n", seconds_since(start) * 1e3);
  }
  // Warm: a second process that finds the binary on disk.
  int fds[2];
  if (pipe(fds) != 0) die("pipe failed");
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    dup2(fds[1], 1);
    execl(self, self, "--first-result", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  char text[64] = {0};
  const ssize_t got = read(fds[0], text, sizeof text - 1);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (got <= 0) die("the second process printed nothing");
  std::printf("warm start:        %.1f ms from process start to the first result (second process, warm disk cache)\n", std::atof(text));
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--first-result") == 0) {
    // Process start is approximated by main's entry (dynamic loading of the bench itself is
    // a few ms at most).
    std::printf("%.3f\n", first_result(Clock::now()) * 1e3);
    return 0;
  }
  const bool with_reference = !(argc > 1 && std::strcmp(argv[1], "--skip-reference") == 0);
  char pocl[] = "/tmp/bench_opencl_pocl_XXXXXX";
  if (std::getenv("POCL_CACHE_DIR") == nullptr && mkdtemp(pocl) != nullptr) setenv("POCL_CACHE_DIR", pocl, 1);
  bench_startup("/proc/self/exe");
  bench_add();
  bench_sum(with_reference);
  bench_matmul(with_reference);
  return 0;
}
