// SPDX-License-Identifier: Apache-2.0
// The ABI suite: the plugin's table called directly (devplug_plugin_get_table), with bad
// arguments that must come back with the exact error code plugin_api.h documents,
// load/unload cycles, buffer round trips, stream and event ordering, and threads. Each
// check runs in a forked child, so a crash fails the check and not the run.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "harness/name_filter.hpp"
#include "harness/pool.hpp"
#include "harness/run_state.hpp"
#include "suites/suites.hpp"

namespace devplug::conform {
namespace {

// Collects problems; every call that must fail goes through expect_error with the code
// plugin_api.h documents for that failure.
class Checker {
 public:
  explicit Checker(const devplug_plugin_api_t* api) : api_(api) {}
  void expect_error(const char* what, devplug_code_t expected, devplug_error_t* e) {
    if (e == nullptr) {
      problems_ << "  " << what << ": returned success, expected " << devplug_code_name(expected) << "\n";
      return;
    }
    if (e->code != expected)
      problems_ << "  " << what << ": returned " << code_text(e->code) << ", expected "
                << devplug_code_name(expected) << " (" << (e->message ? e->message : "") << ")\n";
    api_->error_destroy(e);
  }
  void expect_ok(const char* what, devplug_error_t* e) {
    if (e == nullptr) return;
    problems_ << "  " << what << ": " << code_text(e->code) << ": " << (e->message ? e->message : "") << "\n";
    api_->error_destroy(e);
  }
  void problem(const std::string& text) { problems_ << "  " << text << "\n"; }
  std::string text() const { return problems_.str(); }

 private:
  static std::string code_text(devplug_code_t code) {
    const char* name = devplug_code_name(code);
    return name ? name : "code " + std::to_string(code);
  }
  const devplug_plugin_api_t* api_;
  std::ostringstream problems_;
};

// A context with only the plugin under test, and its table.
struct Loaded {
  devplug_context_t* context = nullptr;
  devplug_plugin_t* plugin = nullptr;
  const devplug_plugin_api_t* api = nullptr;
  std::string error;
  Loaded() {
    devplug_context_options_t o{sizeof o, DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
    error = take_error(devplug_context_create(&o, &context));
    if (error.empty())
      error =
          take_error(devplug_context_load_plugin(context, run_state().options.plugin_path.c_str(), &plugin));
    if (error.empty()) error = take_error(devplug_plugin_get_table(plugin, &api));
  }
  ~Loaded() { devplug_context_destroy(context); }
};

std::string load_unload() {
  for (int i = 0; i < 100; ++i) {
    Loaded l;
    if (!l.error.empty()) return "cycle " + std::to_string(i) + ": " + l.error;
    devplug_plugin_info_t info{};
    info.struct_size = sizeof info;
    std::string e = take_error(devplug_plugin_get_info(l.plugin, &info));
    if (!e.empty()) return "cycle " + std::to_string(i) + ": devplug_plugin_get_info: " + e;
    size_t devices = 0;
    take_error(devplug_context_device_count(l.context, &devices));
    if (devices > 0) {
      devplug_device_t* dev = nullptr;
      devplug_tensor_t* t = nullptr;
      const int64_t n = 16;
      e = take_error(devplug_context_get_device(l.context, 0, &dev));
      if (e.empty()) e = take_error(devplug_tensor_create(dev, DEVPLUG_DTYPE_FLOAT32, 1, &n, &t));
      devplug_tensor_release(t);
      if (!e.empty()) return "cycle " + std::to_string(i) + ": " + e;
    }
  }
  return "";
}

// Every documented failure of every entry point (plugin_api.h, "Errors:"), each answered
// with its exact code, and nothing written past a caller's struct_size.
std::string invalid_arguments() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  const devplug_plugin_api_t* api = l.api;
  Checker c(api);
  constexpr devplug_code_t kInvalid = DEVPLUG_CODE_INVALID_ARGUMENT;
  constexpr devplug_code_t kRange = DEVPLUG_CODE_OUT_OF_RANGE;
  if (api->struct_size < DEVPLUG_PLUGIN_API_MIN_SIZE) c.problem("table struct_size below the 1.0 minimum");
  if (api->abi_major != DEVPLUG_ABI_MAJOR) c.problem("abi_major differs from the host's");
  if (api->plugin_name == nullptr || api->plugin_name[0] == 0) c.problem("plugin_name is empty");
  api->error_destroy(nullptr);
  devplug_error_t* made = api->error_create(DEVPLUG_CODE_INVALID_ARGUMENT, 7, "made by conformance");
  if (made == nullptr || made->code != DEVPLUG_CODE_INVALID_ARGUMENT || made->message == nullptr)
    c.problem("error_create did not return the error asked for");
  api->error_destroy(made);

  // plugin_initialize: each of these is refused before the plugin does anything.
  c.expect_error("plugin_initialize(NULL)", kInvalid, api->plugin_initialize(nullptr));
  devplug_plugin_init_args_t init{};
  init.struct_size = offsetof(devplug_plugin_init_args_t, host_abi_major);
  init.host_abi_major = DEVPLUG_ABI_MAJOR;
  c.expect_error("plugin_initialize(struct_size too small)", kInvalid, api->plugin_initialize(&init));
  init.struct_size = sizeof init;
  init.host_abi_major = DEVPLUG_ABI_MAJOR + 1;
  c.expect_error("plugin_initialize(another ABI major)", DEVPLUG_CODE_FAILED_PRECONDITION,
                 api->plugin_initialize(&init));

  c.expect_error("device_count(NULL, NULL)", kInvalid, api->device_count(nullptr, nullptr));
  int32_t count = -1;
  const char* note = "untouched";
  c.expect_ok("device_count", api->device_count(&count, &note));
  if (count < 0) c.problem("device_count wrote a negative count");
  if (count > 0 && note != nullptr) c.problem("device_count left a note although it found devices");
  devplug_device_properties_t props;
  std::memset(&props, 0, sizeof props);
  props.struct_size = sizeof props;
  c.expect_error("device_get_properties(-1)", kRange, api->device_get_properties(-1, &props));
  c.expect_error("device_get_properties(count)", kRange, api->device_get_properties(count, &props));
  c.expect_error("device_get_properties(0, NULL)", kInvalid, api->device_get_properties(0, nullptr));
  props.struct_size = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE - 1;
  c.expect_error("device_get_properties(struct_size below the 1.0 size)", kInvalid,
                 api->device_get_properties(0, &props));
  if (count > 0) {
    // The 1.0 struct: accepted, and nothing written past it (the 1.1 `dtypes` field).
    std::memset(&props, 0x5A, sizeof props);
    props.struct_size = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE;
    c.expect_ok("device_get_properties(the 1.0 struct)", api->device_get_properties(0, &props));
    if (props.struct_size != DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE)
      c.problem("device_get_properties changed struct_size");
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&props);
    for (size_t b = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE; b < sizeof props; ++b)
      if (bytes[b] != 0x5A) {
        c.problem("device_get_properties wrote past a short struct_size");
        break;
      }
  }
  devplug_device_handle_t* no_device = reinterpret_cast<devplug_device_handle_t*>(uintptr_t{1});
  c.expect_error("device_open(-1)", kRange, api->device_open(-1, &no_device));
  if (no_device != nullptr) c.problem("device_open(-1) left *out_device set");
  c.expect_error("device_open(count)", kRange, api->device_open(count, &no_device));
  c.expect_error("device_open(0, NULL)", kInvalid, api->device_open(0, nullptr));
  c.expect_error("device_close(NULL)", kInvalid, api->device_close(nullptr));
  c.expect_error("buffer_release(NULL)", kInvalid, api->buffer_release(nullptr));
  uint64_t size = 99;
  c.expect_error("buffer_get_size(NULL)", kInvalid, api->buffer_get_size(nullptr, &size));
  if (size != 0) c.problem("buffer_get_size(NULL) left *out_size_bytes set");
  c.expect_error("stream_synchronize(NULL)", kInvalid, api->stream_synchronize(nullptr));
  c.expect_error("stream_destroy(NULL)", kInvalid, api->stream_destroy(nullptr));
  c.expect_error("event_synchronize(NULL)", kInvalid, api->event_synchronize(nullptr));
  c.expect_error("event_destroy(NULL)", kInvalid, api->event_destroy(nullptr));
  devplug_buffer_handle_t* buf = nullptr;
  devplug_stream_handle_t* stream = nullptr;
  devplug_event_handle_t* event = nullptr;
  c.expect_error("buffer_allocate(NULL device)", kInvalid, api->buffer_allocate(nullptr, 16, &buf));
  c.expect_error("stream_create(NULL device)", kInvalid, api->stream_create(nullptr, &stream));
  c.expect_error("event_create(NULL device)", kInvalid, api->event_create(nullptr, &event));
  if (count == 0) return c.text();

  devplug_device_handle_t* dev = nullptr;
  devplug_error_t* opened = api->device_open(0, &dev);
  if (opened != nullptr) {
    c.expect_ok("device_open(0)", opened);
    return c.text();
  }
  c.expect_error("buffer_allocate(0 bytes)", kInvalid, api->buffer_allocate(dev, 0, &buf));
  if (buf) {
    api->buffer_release(buf);
    buf = nullptr;
  }
  c.expect_error("buffer_allocate(2^62 bytes)", DEVPLUG_CODE_RESOURCE_EXHAUSTED,
                 api->buffer_allocate(dev, uint64_t{1} << 62, &buf));
  if (buf) {
    api->buffer_release(buf);
    buf = nullptr;
  }
  c.expect_error("buffer_allocate(out NULL)", kInvalid, api->buffer_allocate(dev, 16, nullptr));
  c.expect_error("stream_create(out NULL)", kInvalid, api->stream_create(dev, nullptr));
  c.expect_error("event_create(out NULL)", kInvalid, api->event_create(dev, nullptr));
  c.expect_ok("buffer_allocate(16)", api->buffer_allocate(dev, 16, &buf));
  c.expect_ok("stream_create", api->stream_create(dev, &stream));
  c.expect_ok("event_create", api->event_create(dev, &event));
  if (buf && stream && event) {
    c.expect_error("buffer_get_size(out NULL)", kInvalid, api->buffer_get_size(buf, nullptr));
    char host[64] = {0};
    c.expect_error("copy_from_host(NULL stream)", kInvalid,
                   api->buffer_copy_from_host(nullptr, host, buf, 0, 16));
    c.expect_error("copy_from_host(NULL src)", kInvalid,
                   api->buffer_copy_from_host(stream, nullptr, buf, 0, 16));
    c.expect_error("copy_from_host(NULL dst)", kInvalid,
                   api->buffer_copy_from_host(stream, host, nullptr, 0, 16));
    c.expect_error("copy_from_host(past the end)", kRange,
                   api->buffer_copy_from_host(stream, host, buf, 8, 16));
    c.expect_error("copy_from_host(offset past the end, 0 bytes)", kRange,
                   api->buffer_copy_from_host(stream, host, buf, 17, 0));
    c.expect_error("copy_from_host(offset overflow)", kRange,
                   api->buffer_copy_from_host(stream, host, buf, ~uint64_t{0}, 2));
    c.expect_error("copy_from_host(past the end, NULL src)", kRange,
                   api->buffer_copy_from_host(stream, nullptr, buf, 8, 16));
    c.expect_ok("copy_from_host(0 bytes at the end)", api->buffer_copy_from_host(stream, host, buf, 16, 0));
    c.expect_ok("copy_from_host(0 bytes, NULL src)", api->buffer_copy_from_host(stream, nullptr, buf, 0, 0));
    c.expect_error("copy_to_host(NULL stream)", kInvalid,
                   api->buffer_copy_to_host(nullptr, buf, 0, host, 16));
    c.expect_error("copy_to_host(NULL src)", kInvalid,
                   api->buffer_copy_to_host(stream, nullptr, 0, host, 16));
    c.expect_error("copy_to_host(past the end)", kRange, api->buffer_copy_to_host(stream, buf, 1, host, 16));
    c.expect_error("copy_to_host(size overflow)", kRange,
                   api->buffer_copy_to_host(stream, buf, 8, host, ~uint64_t{0}));
    c.expect_error("copy_to_host(NULL dst)", kInvalid, api->buffer_copy_to_host(stream, buf, 0, nullptr, 16));
    c.expect_ok("copy_to_host(0 bytes)", api->buffer_copy_to_host(stream, buf, 0, host, 0));
    c.expect_error("buffer_copy(NULL stream)", kInvalid, api->buffer_copy(nullptr, buf, 0, buf, 8, 8));
    c.expect_error("buffer_copy(NULL src)", kInvalid, api->buffer_copy(stream, nullptr, 0, buf, 8, 8));
    c.expect_error("buffer_copy(NULL dst)", kInvalid, api->buffer_copy(stream, buf, 0, nullptr, 8, 8));
    c.expect_error("buffer_copy(destination past the end)", kRange,
                   api->buffer_copy(stream, buf, 0, buf, 9, 8));
    c.expect_error("buffer_copy(source past the end)", kRange, api->buffer_copy(stream, buf, 9, buf, 0, 8));
    c.expect_error("buffer_copy(overlapping ranges)", kInvalid, api->buffer_copy(stream, buf, 0, buf, 4, 8));
    c.expect_error("buffer_copy(onto itself)", kInvalid, api->buffer_copy(stream, buf, 4, buf, 4, 4));
    c.expect_ok("buffer_copy(disjoint halves)", api->buffer_copy(stream, buf, 0, buf, 8, 8));
    c.expect_ok("buffer_copy(0 bytes onto itself)", api->buffer_copy(stream, buf, 4, buf, 4, 0));
    c.expect_error("event_record(NULL event)", kInvalid, api->event_record(nullptr, stream));
    c.expect_error("event_record(NULL stream)", kInvalid, api->event_record(event, nullptr));
    c.expect_error("stream_wait_event(NULL stream)", kInvalid, api->stream_wait_event(nullptr, event));
    c.expect_error("stream_wait_event(NULL event)", kInvalid, api->stream_wait_event(stream, nullptr));
    // Handles of another device: refused by copies, events and waits.
    devplug_device_handle_t* other = nullptr;
    if (count > 1) c.expect_ok("device_open(1)", api->device_open(1, &other));
    if (other != nullptr) {
      devplug_buffer_handle_t* far_buf = nullptr;
      devplug_event_handle_t* far_event = nullptr;
      c.expect_ok("buffer_allocate on device 1", api->buffer_allocate(other, 16, &far_buf));
      c.expect_ok("event_create on device 1", api->event_create(other, &far_event));
      if (far_buf && far_event) {
        c.expect_error("copy_from_host(dst on another device)", kInvalid,
                       api->buffer_copy_from_host(stream, host, far_buf, 0, 8));
        c.expect_error("copy_to_host(src on another device)", kInvalid,
                       api->buffer_copy_to_host(stream, far_buf, 0, host, 8));
        c.expect_error("buffer_copy(dst on another device)", kInvalid,
                       api->buffer_copy(stream, buf, 0, far_buf, 0, 8));
        c.expect_error("event_record(event of another device)", kInvalid,
                       api->event_record(far_event, stream));
        c.expect_error("stream_wait_event(event of another device)", kInvalid,
                       api->stream_wait_event(stream, far_event));
      }
      if (far_event) c.expect_ok("event_destroy on device 1", api->event_destroy(far_event));
      if (far_buf) c.expect_ok("buffer_release on device 1", api->buffer_release(far_buf));
      c.expect_ok("device_close(1)", api->device_close(other));
    }
    // Every kernel: no call, a short call struct, an unknown op id, a bad dtype.
    for (size_t k = 0; k < api->kernel_count; ++k) {
      const devplug_kernel_t* row = api->kernels[k];
      if (row == nullptr || row->fn == nullptr) {
        c.problem("kernel row " + std::to_string(k) + " is empty");
        continue;
      }
      const std::string name = devplug_op_name(row->op) ? devplug_op_name(row->op) : "?";
      devplug_tensor_desc_t bad{};
      bad.struct_size = sizeof bad;
      bad.buffer = buf;
      bad.dtype = 77;
      bad.rank = 1;
      bad.shape[0] = 2;
      bad.strides[0] = 1;
      const devplug_tensor_desc_t* tensors[3] = {&bad, &bad, &bad};
      const devplug_op_info_t* info = devplug_op_info(row->op);
      const size_t n_in = info && info->n_inputs >= 0 ? static_cast<size_t>(info->n_inputs) : 2;
      devplug_op_call_t call{sizeof call, row->op, tensors, n_in, tensors, 1, nullptr};
      c.expect_error((name + " kernel: NULL call").c_str(), kInvalid, row->fn(stream, nullptr));
      devplug_op_call_t short_call = call;
      short_call.struct_size = 4;
      c.expect_error((name + " kernel: struct_size 4").c_str(), kInvalid, row->fn(stream, &short_call));
      devplug_op_call_t unknown = call;
      unknown.op = 9999;
      c.expect_error((name + " kernel: op 9999").c_str(), kInvalid, row->fn(stream, &unknown));
      devplug_op_call_t arity = call;
      arity.n_outputs = 2;
      c.expect_error((name + " kernel: 2 outputs").c_str(), kInvalid, row->fn(stream, &arity));
      c.expect_error((name + " kernel: dtype 77").c_str(), kInvalid, row->fn(stream, &call));
      bad.dtype = 0;  // the row's first dtype
      while (bad.dtype + 1 < DEVPLUG_DTYPE_COUNT && !(row->dtypes & DEVPLUG_DTYPE_BIT(bad.dtype)))
        ++bad.dtype;
      bad.rank = DEVPLUG_MAX_RANK + 1;
      c.expect_error((name + " kernel: rank 9").c_str(), kInvalid, row->fn(stream, &call));
    }
    c.expect_ok("stream_synchronize", api->stream_synchronize(stream));
  }
  if (event) c.expect_ok("event_destroy", api->event_destroy(event));
  if (stream) c.expect_ok("stream_destroy", api->stream_destroy(stream));
  if (buf) c.expect_ok("buffer_release", api->buffer_release(buf));
  c.expect_ok("device_close", api->device_close(dev));
  return c.text();
}

// Opens device --device through the raw table for the checks below.
struct RawDevice {
  Loaded loaded;
  devplug_device_handle_t* dev = nullptr;
  std::string error;
  RawDevice() {
    error = loaded.error;
    if (!error.empty()) return;
    int32_t count = 0;
    if (devplug_error_t* e = loaded.api->device_count(&count, nullptr)) {
      loaded.api->error_destroy(e);
    }
    const int index = run_state().options.device;
    if (index >= count) {
      error = "no device " + std::to_string(index);
      return;
    }
    if (devplug_error_t* e = loaded.api->device_open(index, &dev)) {
      error = "device_open(" + std::to_string(index) + "): " + (e->message ? e->message : "");
      loaded.api->error_destroy(e);
    }
  }
  ~RawDevice() {
    if (dev)
      if (devplug_error_t* e = loaded.api->device_close(dev)) loaded.api->error_destroy(e);
  }
};

std::vector<unsigned char> pattern(uint64_t n, unsigned seed) {
  std::vector<unsigned char> p(n);
  for (uint64_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>((i * 131 + seed * 7 + (i >> 9)) & 0xFF);
  return p;
}

std::string buffer_round_trip() {
  RawDevice r;
  if (!r.error.empty()) return r.error;
  const devplug_plugin_api_t* api = r.loaded.api;
  Checker c(api);
  devplug_stream_handle_t* stream = nullptr;
  c.expect_ok("stream_create", api->stream_create(r.dev, &stream));
  if (!stream) return c.text();
  for (uint64_t size : {uint64_t{1}, uint64_t{7}, uint64_t{4099}, uint64_t{256} << 20}) {
    for (uint64_t offset : {uint64_t{0}, uint64_t{3}}) {
      devplug_buffer_handle_t* a = nullptr;
      devplug_buffer_handle_t* b = nullptr;
      const std::string what = std::to_string(size) + " bytes at offset " + std::to_string(offset);
      c.expect_ok(("allocate " + what).c_str(), api->buffer_allocate(r.dev, size + offset, &a));
      c.expect_ok(("allocate " + what).c_str(), api->buffer_allocate(r.dev, size + offset, &b));
      if (!a || !b) break;
      uint64_t got_size = 0;
      c.expect_ok("buffer_get_size", api->buffer_get_size(a, &got_size));
      if (got_size != size + offset) c.problem("buffer_get_size says " + std::to_string(got_size));
      const std::vector<unsigned char> in = pattern(size, static_cast<unsigned>(offset));
      std::vector<unsigned char> out(size, 0);
      c.expect_ok("copy_from_host", api->buffer_copy_from_host(stream, in.data(), a, offset, size));
      c.expect_ok("buffer_copy", api->buffer_copy(stream, a, offset, b, offset, size));
      c.expect_ok("copy_to_host", api->buffer_copy_to_host(stream, b, offset, out.data(), size));
      c.expect_ok("stream_synchronize", api->stream_synchronize(stream));
      if (in != out) c.problem("round trip of " + what + " changed the data");
      // A copy of zero bytes is a no-op that succeeds (plugin_api.h).
      c.expect_ok("copy_from_host(0 bytes)", api->buffer_copy_from_host(stream, in.data(), a, 0, 0));
      api->buffer_release(a);
      api->buffer_release(b);
    }
  }
  c.expect_ok("stream_destroy", api->stream_destroy(stream));
  return c.text();
}

std::string stream_event_ordering() {
  RawDevice r;
  if (!r.error.empty()) return r.error;
  const devplug_plugin_api_t* api = r.loaded.api;
  Checker c(api);
  const uint64_t size = uint64_t{64} << 20;
  devplug_stream_handle_t *a = nullptr, *b = nullptr;
  devplug_event_handle_t* ev = nullptr;
  devplug_buffer_handle_t *x = nullptr, *y = nullptr;
  c.expect_ok("stream_create", api->stream_create(r.dev, &a));
  c.expect_ok("stream_create", api->stream_create(r.dev, &b));
  c.expect_ok("event_create", api->event_create(r.dev, &ev));
  c.expect_ok("buffer_allocate", api->buffer_allocate(r.dev, size, &x));
  c.expect_ok("buffer_allocate", api->buffer_allocate(r.dev, size, &y));
  if (a && b && ev && x && y) {
    c.expect_ok("event_synchronize (never recorded)", api->event_synchronize(ev));
    for (unsigned round = 0; round < 3; ++round) {
      const std::vector<unsigned char> in = pattern(size, round + 1);
      std::vector<unsigned char> out(size, 0);
      // Stream A writes x; stream B copies x to y only after the event on A.
      c.expect_ok("copy_from_host on A", api->buffer_copy_from_host(a, in.data(), x, 0, size));
      c.expect_ok("event_record on A", api->event_record(ev, a));
      c.expect_ok("stream_wait_event B", api->stream_wait_event(b, ev));
      c.expect_ok("buffer_copy on B", api->buffer_copy(b, x, 0, y, 0, size));
      c.expect_ok("copy_to_host on B", api->buffer_copy_to_host(b, y, 0, out.data(), size));
      c.expect_ok("stream_synchronize B", api->stream_synchronize(b));
      c.expect_ok("event_synchronize", api->event_synchronize(ev));
      if (in != out) {
        c.problem("stream B saw x before stream A finished writing it (round " + std::to_string(round) + ")");
        break;
      }
    }
  }
  if (x) api->buffer_release(x);
  if (y) api->buffer_release(y);
  if (ev) api->event_destroy(ev);
  if (a) api->stream_destroy(a);
  if (b) api->stream_destroy(b);
  return c.text();
}

std::string concurrent_threads() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  size_t devices = 0;
  take_error(devplug_context_device_count(l.context, &devices));
  const size_t index = static_cast<size_t>(run_state().options.device);
  if (index >= devices) return "no device " + std::to_string(index);
  devplug_device_t* dev = nullptr;  // the context holds only the plugin under test
  take_error(devplug_context_get_device(l.context, index, &dev));
  bool add_f32 = false;
  take_error(devplug_plugin_supports(l.plugin, DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, &add_f32, nullptr));
  std::vector<std::string> problems(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      devplug_stream_t* s = nullptr;
      std::string& p = problems[static_cast<size_t>(t)];
      p = take_error(devplug_stream_create(dev, &s));
      const int64_t n = 4099;
      for (int round = 0; round < 20 && p.empty(); ++round) {
        std::vector<float> a(n), b(n), out(n, 0);
        for (int64_t i = 0; i < n; ++i) {
          a[i] = static_cast<float>(i * (t + 1));
          b[i] = static_cast<float>(round - i);
        }
        devplug_tensor_t *ta = nullptr, *tb = nullptr, *to = nullptr;
        p = take_error(devplug_tensor_create(dev, DEVPLUG_DTYPE_FLOAT32, 1, &n, &ta));
        if (p.empty()) p = take_error(devplug_tensor_create(dev, DEVPLUG_DTYPE_FLOAT32, 1, &n, &tb));
        if (p.empty()) p = take_error(devplug_tensor_create(dev, DEVPLUG_DTYPE_FLOAT32, 1, &n, &to));
        if (p.empty())
          p = take_error(devplug_tensor_copy_from_host(s, ta, a.data(), n * 4, DEVPLUG_COPY_BLOCKING));
        if (p.empty())
          p = take_error(devplug_tensor_copy_from_host(s, tb, b.data(), n * 4, DEVPLUG_COPY_BLOCKING));
        if (p.empty() && add_f32) {
          devplug_tensor_t* ins[2] = {ta, tb};
          p = take_error(devplug_op_call(s, DEVPLUG_OP_add, ins, 2, &to, 1, nullptr));
        } else if (p.empty()) {
          p = take_error(devplug_tensor_copy(s, to, ta));
        }
        if (p.empty()) p = take_error(devplug_tensor_copy_to_host(s, to, out.data(), n * 4));
        for (int64_t i = 0; i < n && p.empty(); ++i)
          if (out[i] != (add_f32 ? a[i] + b[i] : a[i]))
            p = "thread " + std::to_string(t) + " round " + std::to_string(round) + ": wrong element " +
                std::to_string(i);
        devplug_tensor_release(ta);
        devplug_tensor_release(tb);
        devplug_tensor_release(to);
      }
      take_error(devplug_stream_destroy(s));
    });
  }
  for (auto& th : threads) th.join();
  std::string all;
  for (const std::string& p : problems)
    if (!p.empty()) all += "  " + p + "\n";
  return all;
}

class AbiTest : public testing::Test {
 public:
  AbiTest(std::string name, std::function<std::string()> body)
      : name_(std::move(name)), body_(std::move(body)) {}
  void TestBody() override {
    Result r = run_isolated(body_, std::max(run_state().options.timeout_s, 120.0));
    const std::string xfail = xfail_reason(run_state().xfail, name_);
    const Status measured = r.status;
    if (!xfail.empty()) r.status = r.status == Status::Pass ? Status::Xpass : Status::Xfail;
    run_state().abi.push_back({name_, r});
    if (r.status == Status::Xfail) GTEST_SKIP() << "xfail (" << xfail << "): " << r.message;
    if (r.status == Status::Xpass)
      ADD_FAILURE() << name_ << ": XPASS, listed as an expected failure (" << xfail << ") but it passes";
    else if (measured != Status::Pass)
      ADD_FAILURE() << name_ << ": " << status_name(r.status) << "\n"
                    << r.message << "\nrepro: " << repro_command(name_);
  }

 private:
  std::string name_;
  std::function<std::string()> body_;
};

}  // namespace

void register_abi_tests(const std::string& filter) {
  const std::pair<const char*, std::string (*)()> checks[] = {
      {"load_unload", load_unload},
      {"invalid_arguments", invalid_arguments},
      {"buffer_round_trip", buffer_round_trip},
      {"stream_event_ordering", stream_event_ordering},
      {"concurrent_threads", concurrent_threads},
      {"index_values", index_values},
  };
  for (const auto& check : checks) {
    const std::string name = std::string("abi_") + check.first;
    if (!filter_selects(filter, name)) continue;
    auto body = check.second;
    testing::RegisterTest("Abi", check.first, nullptr, nullptr, __FILE__, __LINE__,
                          [name, body]() -> testing::Test* { return new AbiTest(name, body); });
  }
}

}  // namespace devplug::conform
