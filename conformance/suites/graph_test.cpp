// SPDX-License-Identifier: Apache-2.0
// Graphs on the plugin under test (Abi.graph_replay, Abi.graph_misuse): random programs of
// elementwise ops, broadcasting, reductions, views, copies, matmul, composites, random ops
// and an in-place update, run eagerly and replayed from one capture over launches with
// changing inputs; the outputs must match bit for bit (the same kernels on the same
// operands). And every misuse devplug.h names, answered with its code, the stream usable.
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "devplug/devplug.h"
#include "harness/execute.hpp"
#include "harness/run_state.hpp"
#include "suites/device_under_test.hpp"
#include "suites/suites.hpp"

namespace devplug::conform {
namespace {

constexpr int64_t kN = 16;  // every value is [kN, kN] float32
constexpr int64_t kShape[2] = {kN, kN};
constexpr uint64_t kBytes = kN * kN * sizeof(float);
constexpr uint64_t kSeed = 0x5eed;

// The device under test, with [kN, kN] float32 tensors.
struct Device : DeviceUnderTest {
  devplug_tensor_t* make() const {
    devplug_tensor_t* t = nullptr;
    std::string e = take_error(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 2, kShape, &t));
    return e.empty() ? t : nullptr;
  }
  std::string upload(devplug_tensor_t* t, const std::vector<float>& v) const {
    return take_error(devplug_tensor_copy_from_host(stream, t, v.data(), kBytes, DEVPLUG_COPY_BLOCKING));
  }
  std::string read(const devplug_tensor_t* t, std::vector<float>* v) const {
    v->assign(kN * kN, 0.0f);
    return take_error(devplug_tensor_copy_to_host(stream, t, v->data(), kBytes));
  }
};

// The steps a program draws from.
enum class Kind {
  unary,      // tanh, sin, neg or abs of a value
  binary,     // add, sub, mul or maximum of two values
  row_sum,    // sum over dim 1 ([kN, 1]), subtracted from a value by broadcasting
  transpose,  // a value's transpose (a strided view) times another value
  row,        // row 0 of a value ([1, kN], a slice) added to another by broadcasting
  copy,       // a contiguous copy of a value (a buffer copy)
  copy_t,     // a contiguous copy of a transposed value (copy_strided)
  matmul,
  softmax,  // a composite: the device's kernel, or its decomposition into prims
  random,   // philox_uniform
};
constexpr Kind kKinds[] = {Kind::unary, Kind::binary, Kind::row_sum, Kind::transpose, Kind::row,
                           Kind::copy,  Kind::copy_t, Kind::matmul,  Kind::softmax,   Kind::random};
const char* kind_name(Kind k) {
  const char* names[] = {"unary", "binary", "row_sum", "transpose", "row",
                         "copy",  "copy_t", "matmul",  "softmax",   "random"};
  return names[static_cast<int>(k)];
}

struct Step {
  Kind kind;
  devplug_op_t op;  // unary and binary
  size_t a, b;      // operands: indices into the program's values so far
};

constexpr uint64_t kRandomBlocks = (kN * kN + 3) / 4;  // philox_uniform float32: a word an element

// Runs `steps` on `inputs`: each step appends a new value; then the last value is copied
// into `out` and added in place to `state`. `offset` is the first random step's Philox
// offset; each uses kRandomBlocks. Every tensor a step made is released before returning.
std::string run(const Device& d, const std::vector<Step>& steps, const std::vector<devplug_tensor_t*>& inputs,
                devplug_tensor_t* out, devplug_tensor_t* state, uint64_t offset) {
  std::vector<devplug_tensor_t*> values(inputs);
  std::vector<devplug_tensor_t*> made;  // released at the end
  auto fresh = [&]() {
    devplug_tensor_t* t = d.make();
    if (t != nullptr) made.push_back(t);
    return t;
  };
  auto elementwise = [&](devplug_op_t op, std::vector<devplug_tensor_t*> in) -> std::string {
    devplug_tensor_t* r = nullptr;
    std::string e = take_error(devplug_elementwise(d.stream, op, in.data(), in.size(), &r));
    if (r != nullptr) made.push_back(r);
    values.push_back(r);
    return e;
  };
  std::string e;
  for (size_t i = 0; i < steps.size() && e.empty(); ++i) {
    const Step& s = steps[i];
    devplug_tensor_t* a = values[s.a];
    devplug_tensor_t* b = values[s.b];
    switch (s.kind) {
      case Kind::unary:
        e = elementwise(s.op, {a});
        break;
      case Kind::binary:
        e = elementwise(s.op, {a, b});
        break;
      case Kind::row_sum: {
        devplug_tensor_t* sum = nullptr;
        const int64_t shape[2] = {kN, 1};
        e = take_error(devplug_tensor_create(d.device, DEVPLUG_DTYPE_FLOAT32, 2, shape, &sum));
        if (sum != nullptr) made.push_back(sum);
        devplug_reduce_attrs_t attrs{sizeof attrs, 2u, 0.0};
        if (e.empty()) e = take_error(devplug_op_call(d.stream, DEVPLUG_OP_sum, &a, 1, &sum, 1, &attrs));
        if (e.empty()) e = elementwise(DEVPLUG_OP_sub, {b, sum});
        break;
      }
      case Kind::transpose:
      case Kind::copy_t: {
        devplug_tensor_t* view = nullptr;
        e = take_error(devplug_tensor_transpose(a, 0, 1, &view));
        if (view != nullptr) made.push_back(view);
        if (e.empty() && s.kind == Kind::transpose) e = elementwise(DEVPLUG_OP_mul, {view, b});
        if (e.empty() && s.kind == Kind::copy_t) {
          devplug_tensor_t* r = fresh();
          e = take_error(devplug_tensor_copy(d.stream, r, view));
          values.push_back(r);
        }
        break;
      }
      case Kind::row: {
        devplug_tensor_t* view = nullptr;
        e = take_error(devplug_tensor_slice(a, 0, 0, 1, 1, &view));
        if (view != nullptr) made.push_back(view);
        if (e.empty()) e = elementwise(DEVPLUG_OP_add, {b, view});
        break;
      }
      case Kind::copy: {
        devplug_tensor_t* r = fresh();
        e = take_error(devplug_tensor_copy(d.stream, r, a));
        values.push_back(r);
        break;
      }
      case Kind::matmul: {
        devplug_tensor_t* r = fresh();
        devplug_tensor_t* in[2] = {a, b};
        devplug_matmul_attrs_t attrs{sizeof attrs, 0u};
        e = take_error(devplug_op_call(d.stream, DEVPLUG_OP_matmul, in, 2, &r, 1, &attrs));
        values.push_back(r);
        break;
      }
      case Kind::softmax: {
        devplug_tensor_t* r = fresh();
        devplug_dim_attrs_t attrs{sizeof attrs, 1};
        e = take_error(devplug_op_call(d.stream, DEVPLUG_OP_softmax, &a, 1, &r, 1, &attrs));
        values.push_back(r);
        break;
      }
      case Kind::random: {
        devplug_tensor_t* r = fresh();
        devplug_philox_attrs_t attrs{sizeof attrs, kSeed, offset};
        offset += kRandomBlocks;
        e = take_error(devplug_op_call(d.stream, DEVPLUG_OP_philox_uniform, nullptr, 0, &r, 1, &attrs));
        values.push_back(r);
        break;
      }
    }
    if (!e.empty()) e = std::string("step ") + std::to_string(i) + " (" + kind_name(s.kind) + "): " + e;
  }
  if (e.empty()) e = take_error(devplug_tensor_copy(d.stream, out, values.back()));
  devplug_tensor_t* update[2] = {state, values.back()};
  if (e.empty()) e = take_error(devplug_op_call(d.stream, DEVPLUG_OP_add, update, 2, &state, 1, nullptr));
  for (devplug_tensor_t* t : made) devplug_tensor_release(t);
  return e;
}

// Host values for input `i` at launch `k`.
std::vector<float> input_values(size_t i, int k) {
  std::vector<float> v(kN * kN);
  for (size_t j = 0; j < v.size(); ++j)
    v[j] = static_cast<float>(static_cast<int>((j * 7 + i * 13 + static_cast<size_t>(k) * 29) % 37) - 18) /
           16.0f;
  return v;
}

// The kinds this device runs without a fallback, each tried once eagerly.
std::vector<Kind> runnable_kinds(const Device& d, std::string* problems) {
  std::vector<Kind> kinds;
  devplug_tensor_t* x = d.make();
  devplug_tensor_t* y = d.make();
  devplug_tensor_t* out = d.make();
  devplug_tensor_t* state = d.make();
  if (!x || !y || !out || !state) {
    *problems += "  could not make [16, 16] float32 tensors\n";
    return kinds;
  }
  std::string e = d.upload(x, input_values(0, 0));
  if (e.empty()) e = d.upload(y, input_values(1, 0));
  if (e.empty()) e = d.upload(state, std::vector<float>(kN * kN, 0.0f));
  for (Kind k : kKinds) {
    if (!e.empty()) break;
    const devplug_op_t op = k == Kind::unary ? DEVPLUG_OP_tanh : DEVPLUG_OP_add;
    if (run(d, {{k, op, 0, 1}}, {x, y}, out, state, 0).empty()) kinds.push_back(k);
    e = take_error(devplug_stream_synchronize(d.stream));
  }
  if (!e.empty()) *problems += "  setting up: " + e + "\n";
  for (devplug_tensor_t* t : {x, y, out, state}) devplug_tensor_release(t);
  return kinds;
}

std::vector<Step> random_program(std::mt19937& rng, const std::vector<Kind>& kinds, size_t n_inputs,
                                 size_t length) {
  const devplug_op_t unary[] = {DEVPLUG_OP_tanh, DEVPLUG_OP_sin, DEVPLUG_OP_neg, DEVPLUG_OP_abs};
  const devplug_op_t binary[] = {DEVPLUG_OP_add, DEVPLUG_OP_sub, DEVPLUG_OP_mul, DEVPLUG_OP_maximum};
  std::vector<Step> steps;
  for (size_t i = 0; i < length; ++i) {
    const size_t values = n_inputs + i;  // every step adds one value
    // Operands lean towards recent values, so that temporaries die at different times.
    auto pick = [&]() {
      const size_t back = std::min<size_t>(values, 1 + rng() % 4);
      return rng() % 3 == 0 ? rng() % values : values - back;
    };
    Step s{kinds[rng() % kinds.size()], 0, pick(), pick()};
    if (s.kind == Kind::unary) s.op = unary[rng() % 4];
    if (s.kind == Kind::binary) s.op = binary[rng() % 4];
    steps.push_back(s);
  }
  return steps;
}

std::string describe(const std::vector<Step>& steps) {
  std::string text;
  for (const Step& s : steps)
    text += std::string(text.empty() ? "" : " ") + kind_name(s.kind) +
            (s.op != 0 ? std::string(":") + devplug_op_name(s.op) : std::string()) + "(" +
            std::to_string(s.a) + "," + std::to_string(s.b) + ")";
  return text;
}

// One program: kLaunches eager runs, then one capture and kLaunches launches with the same
// inputs; every launch's out and state compared bit for bit with the eager run's.
std::string check_program(const Device& d, const std::vector<Step>& steps) {
  constexpr int kLaunches = 4;
  constexpr size_t kInputs = 3;
  constexpr uint64_t kBase = 1000;
  uint64_t span = 0;
  for (const Step& s : steps) span += s.kind == Kind::random ? kRandomBlocks : 0;
  std::vector<devplug_tensor_t*> inputs;
  for (size_t i = 0; i < kInputs; ++i) inputs.push_back(d.make());
  devplug_tensor_t* out = d.make();
  devplug_tensor_t* state = d.make();
  devplug_graph_t* graph = nullptr;
  std::string e;
  std::vector<std::vector<float>> eager_out(kLaunches), eager_state(kLaunches);
  const std::vector<float> state0(kN * kN, 0.5f);
  e = d.upload(state, state0);
  for (int k = 0; k < kLaunches && e.empty(); ++k) {
    for (size_t i = 0; i < kInputs && e.empty(); ++i) e = d.upload(inputs[i], input_values(i, k));
    if (e.empty()) e = run(d, steps, inputs, out, state, kBase + static_cast<uint64_t>(k) * span);
    if (e.empty()) e = d.read(out, &eager_out[k]);
    if (e.empty()) e = d.read(state, &eager_state[k]);
    if (!e.empty()) e = "eager launch " + std::to_string(k) + ": " + e;
  }
  if (e.empty()) e = d.upload(state, state0);
  if (e.empty()) e = take_error(devplug_stream_begin_capture(d.stream));
  if (e.empty()) {
    e = run(d, steps, inputs, out, state, kBase);
    std::string end = take_error(devplug_stream_end_capture(d.stream, &graph));
    if (e.empty()) e = end;
    if (!e.empty()) e = "capture: " + e;
  }
  if (e.empty()) {
    devplug_graph_info_t info{};
    info.struct_size = sizeof info;
    e = take_error(devplug_graph_get_info(graph, &info));
    if (e.empty() && info.philox_blocks != span)
      e = "the graph's Philox span is " + std::to_string(info.philox_blocks) + " blocks, its calls use " +
          std::to_string(span);
    if (e.empty() && info.pool_bytes > info.temporary_bytes)
      e = "the pool takes " + std::to_string(info.pool_bytes) + " bytes for " +
          std::to_string(info.temporary_bytes) + " bytes of temporaries";
    if (e.empty() && info.temporaries == 0) e = "the graph planned no temporaries into its pool";
  }
  std::vector<float> got;
  for (int k = 0; k < kLaunches && e.empty(); ++k) {
    for (size_t i = 0; i < kInputs && e.empty(); ++i) e = d.upload(inputs[i], input_values(i, k));
    if (e.empty()) e = take_error(devplug_graph_launch(graph, d.stream, nullptr));
    if (e.empty()) e = d.read(out, &got);
    if (e.empty() && std::memcmp(got.data(), eager_out[k].data(), kBytes) != 0)
      e = "launch " + std::to_string(k) + ": the output differs from the eager run's";
    if (e.empty()) e = d.read(state, &got);
    if (e.empty() && std::memcmp(got.data(), eager_state[k].data(), kBytes) != 0)
      e = "launch " + std::to_string(k) + ": the in-place state differs from the eager run's";
    if (!e.empty() && e.rfind("launch", 0) != 0) e = "launch " + std::to_string(k) + ": " + e;
  }
  if (graph != nullptr) {
    std::string destroyed = take_error(devplug_graph_destroy(graph));
    if (e.empty()) e = destroyed;
  }
  for (devplug_tensor_t* t : inputs) devplug_tensor_release(t);
  devplug_tensor_release(out);
  devplug_tensor_release(state);
  return e;
}

// Expects `error` to have `code`; a problem line otherwise.
std::string expect_code(const char* what, devplug_code_t code, devplug_error_t* error) {
  if (error == nullptr)
    return std::string("  ") + what + ": succeeded, expected " + devplug_code_name(code) + "\n";
  const devplug_code_t got = error->code;
  std::string message = error->message != nullptr ? error->message : "";
  devplug_error_destroy(error);
  if (got != code)
    return std::string("  ") + what + ": " + devplug_code_name(got) + " (" + message + "), expected " +
           devplug_code_name(code) + "\n";
  return "";
}

std::string expect_ok(const char* what, devplug_error_t* error) {
  std::string e = take_error(error);
  return e.empty() ? "" : std::string("  ") + what + ": " + e + "\n";
}

}  // namespace

std::string graph_replay() {
  Device d;
  if (!d.error.empty()) return d.error;
  std::string problems;
  const std::vector<Kind> kinds = runnable_kinds(d, &problems);
  if (!problems.empty()) return problems;
  if (kinds.empty()) return "";  // nothing runs here without a fallback: nothing to capture
  std::mt19937 rng(20261202);
  for (int p = 0; p < 12; ++p) {
    const std::vector<Step> steps = random_program(rng, kinds, 3, 6 + static_cast<size_t>(p) * 2);
    std::string e = check_program(d, steps);
    if (!e.empty()) problems += "  program " + std::to_string(p) + " [" + describe(steps) + "]: " + e + "\n";
  }
  return problems;
}

std::string graph_misuse() {
  Device d;
  if (!d.error.empty()) return d.error;
  std::string p;
  devplug_graph_t* graph = nullptr;
  devplug_tensor_t* x = d.make();
  devplug_tensor_t* y = nullptr;
  std::vector<float> host(kN * kN, 1.0f), back;
  p += expect_ok("upload",
                 devplug_tensor_copy_from_host(d.stream, x, host.data(), kBytes, DEVPLUG_COPY_BLOCKING));
  bool capturing = true;
  // The stream must be usable after each misuse: one eager op, read back.
  auto usable = [&](const char* after) {
    devplug_tensor_t* r = nullptr;
    devplug_tensor_t* in[2] = {x, x};
    std::string e = take_error(devplug_elementwise(d.stream, DEVPLUG_OP_add, in, 2, &r));
    if (e.empty()) e = d.read(r, &back);
    if (e.empty() && back[0] != 2.0f) e = "1 + 1 gave " + std::to_string(back[0]);
    devplug_tensor_release(r);
    capturing = true;
    take_error(devplug_stream_is_capturing(d.stream, &capturing));
    if (capturing) e += " the stream still captures";
    return e.empty() ? "" : std::string("  after ") + after + ": " + e + "\n";
  };
  p += expect_code("end_capture without a capture", DEVPLUG_CODE_FAILED_PRECONDITION,
                   devplug_stream_end_capture(d.stream, &graph));
  p += expect_ok("begin_capture", devplug_stream_begin_capture(d.stream));
  p += expect_code("begin_capture twice", DEVPLUG_CODE_FAILED_PRECONDITION,
                   devplug_stream_begin_capture(d.stream));
  p += expect_ok("end_capture (empty)", devplug_stream_end_capture(d.stream, &graph));
  p += expect_ok("launch (empty)", devplug_graph_launch(graph, d.stream, nullptr));
  p += expect_ok("graph_destroy", devplug_graph_destroy(graph));
  p += expect_code("launch of a destroyed graph", DEVPLUG_CODE_INVALID_ARGUMENT,
                   devplug_graph_launch(graph, d.stream, nullptr));
  p += expect_code("destroy of a destroyed graph", DEVPLUG_CODE_INVALID_ARGUMENT,
                   devplug_graph_destroy(graph));
  graph = nullptr;

  // Each of these ends the capture with FAILED_PRECONDITION and leaves the stream usable.
  const std::pair<const char*, std::function<devplug_error_t*()>> refused[] = {
      {"copy_to_host", [&] { return devplug_tensor_copy_to_host(d.stream, x, back.data(), kBytes); }},
      {"copy_from_host",
       [&] {
         return devplug_tensor_copy_from_host(d.stream, x, host.data(), kBytes, DEVPLUG_COPY_BLOCKING);
       }},
      {"stream_synchronize", [&] { return devplug_stream_synchronize(d.stream); }},
      {"device_synchronize", [&] { return devplug_device_synchronize(d.device); }},
      {"a launch", [&] {
         devplug_graph_t* empty = nullptr;
         devplug_stream_t* other = nullptr;
         devplug_error_t* e = devplug_stream_create(d.device, &other);
         if (e == nullptr) e = devplug_stream_begin_capture(other);
         if (e == nullptr) e = devplug_stream_end_capture(other, &empty);
         if (e == nullptr) e = devplug_graph_launch(empty, d.stream, nullptr);
         devplug_graph_destroy(empty);
         devplug_stream_destroy(other);
         return e;
       }}};
  for (const auto& r : refused) {
    p += expect_ok("begin_capture", devplug_stream_begin_capture(d.stream));
    devplug_tensor_t* in[2] = {x, x};
    p += expect_ok("an op in the capture", devplug_elementwise(d.stream, DEVPLUG_OP_add, in, 2, &y));
    devplug_tensor_release(y);
    y = nullptr;
    p += expect_code(r.first, DEVPLUG_CODE_FAILED_PRECONDITION, r.second());
    p += expect_code("end_capture after the capture ended", DEVPLUG_CODE_FAILED_PRECONDITION,
                     devplug_stream_end_capture(d.stream, &graph));
    p += usable(r.first);
  }

  // A graph launched on another device's stream (another context's device).
  {
    Device other;
    if (!other.error.empty()) return p + "  a second context: " + other.error + "\n";
    p += expect_ok("begin_capture", devplug_stream_begin_capture(d.stream));
    devplug_tensor_t* in[2] = {x, x};
    p += expect_ok("an op in the capture", devplug_elementwise(d.stream, DEVPLUG_OP_add, in, 2, &y));
    p += expect_ok("end_capture", devplug_stream_end_capture(d.stream, &graph));
    p += expect_code("launch on another device's stream", DEVPLUG_CODE_INVALID_ARGUMENT,
                     devplug_graph_launch(graph, other.stream, nullptr));
    devplug_graph_launch_options_t bad{sizeof bad, 2u, 0};
    p += expect_code("launch with unknown flags", DEVPLUG_CODE_INVALID_ARGUMENT,
                     devplug_graph_launch(graph, d.stream, &bad));
    p += expect_ok("launch", devplug_graph_launch(graph, d.stream, nullptr));
    const std::string read = d.read(y, &back);
    if (!read.empty()) p += "  reading the launched graph's result: " + read + "\n";
    if (read.empty() && back[0] != 2.0f)
      p += "  the launched graph's 1 + 1 gave " + std::to_string(back[0]) + "\n";
    devplug_tensor_release(y);
    y = nullptr;
    p += expect_ok("graph_destroy", devplug_graph_destroy(graph));
    graph = nullptr;
  }

  // Two threads: another thread's work on the capturing stream is recorded (the stream
  // passes from one thread to the other), a second capture of it is refused, and only the
  // thread that began the capture ends it.
  p += expect_ok("begin_capture", devplug_stream_begin_capture(d.stream));
  devplug_error_t* other_op = nullptr;
  devplug_error_t* other_begin = nullptr;
  devplug_error_t* other_end = nullptr;
  devplug_tensor_t* z = nullptr;
  std::thread([&] {
    devplug_tensor_t* in[2] = {x, x};
    other_op = devplug_elementwise(d.stream, DEVPLUG_OP_add, in, 2, &z);
    other_begin = devplug_stream_begin_capture(d.stream);
    devplug_graph_t* g = nullptr;
    other_end = devplug_stream_end_capture(d.stream, &g);
  }).join();
  p += expect_ok("an op from another thread", other_op);
  p += expect_code("begin_capture from another thread", DEVPLUG_CODE_FAILED_PRECONDITION, other_begin);
  p += expect_code("end_capture from another thread", DEVPLUG_CODE_FAILED_PRECONDITION, other_end);
  {
    devplug_tensor_t* in[2] = {x, x};
    p += expect_ok("an op in the capture", devplug_elementwise(d.stream, DEVPLUG_OP_add, in, 2, &y));
  }
  p += expect_ok("end_capture", devplug_stream_end_capture(d.stream, &graph));
  devplug_graph_info_t info{};
  info.struct_size = sizeof info;
  p += expect_ok("graph_get_info", devplug_graph_get_info(graph, &info));
  if (info.kernel_nodes != 2)
    p += "  the capture recorded " + std::to_string(info.kernel_nodes) + " kernel calls, expected 2\n";
  p += expect_ok("graph_destroy", devplug_graph_destroy(graph));
  devplug_tensor_release(y);
  devplug_tensor_release(z);

  // A stream destroyed while it captures drops the capture.
  devplug_stream_t* s = nullptr;
  p += expect_ok("stream_create", devplug_stream_create(d.device, &s));
  p += expect_ok("begin_capture", devplug_stream_begin_capture(s));
  p += expect_ok("stream_destroy while capturing", devplug_stream_destroy(s));
  p += usable("a capturing stream's destruction");
  devplug_tensor_release(x);
  return p;
}

}  // namespace devplug::conform
