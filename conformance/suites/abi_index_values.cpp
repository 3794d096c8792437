// SPDX-License-Identifier: Apache-2.0
// The ABI suite's check of ops.def's index contract, tried from outside as a host would:
// index_select, gather, scatter and scatter_add called through the host API with one index
// value outside [0, rows) (2^40, 2^33, -1, -5, and 7 of 4 rows). Every plugin must answer
// INVALID_ARGUMENT, from the call or from the stream's next synchronize, once; write
// nothing outside the output; and then run the same call with good indices correctly on the
// same stream. A stream destroyed with such a call pending reports it too.
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "devplug/devplug.hpp"
#include "harness/run_state.hpp"
#include "suites/suites.hpp"

namespace devplug::conform {
namespace {

constexpr int64_t kRows = 4;
constexpr int64_t kCols = 3;
constexpr float kGuard = 777.0f;
const int64_t kBadValues[] = {int64_t{1} << 40, int64_t{1} << 33, -1, -5, 7};

// The error code of `f()`, or OK; `message` gets the error's text.
template <typename F>
devplug_code_t code_of(F&& f, std::string* message = nullptr) {
  try {
    f();
    return DEVPLUG_CODE_OK;
  } catch (const Error& e) {
    if (message != nullptr) *message = e.message();
    return e.code();
  }
}

std::string code_name(devplug_code_t code) {
  const char* name = devplug_code_name(code);
  return name ? name : "code " + std::to_string(code);
}

// Row numbers of the index tensor: index_select picks rows {2, 3, 0}; the others use a [2, 3]
// index. `bad` (when not 0) replaces element 1.
std::vector<int64_t> picks_of(devplug_op_t op, int64_t bad) {
  std::vector<int64_t> picks =
      op == DEVPLUG_OP_index_select ? std::vector<int64_t>{2, 3, 0} : std::vector<int64_t>{2, 3, 0, 1, 0, 3};
  if (bad != 0) picks[1] = bad;
  return picks;
}

bool is_scatter(devplug_op_t op) { return op == DEVPLUG_OP_scatter || op == DEVPLUG_OP_scatter_add; }

std::vector<int64_t> out_shape_of(devplug_op_t op) {
  if (is_scatter(op)) return {kRows, kCols};
  return {op == DEVPLUG_OP_index_select ? 3 : 2, kCols};
}

std::vector<float> iota_values(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i + 1);
  return v;
}

// What `op` gives with the good picks, row-major: the input is iota_values(12, 1) as [4, 3],
// src iota_values(6, 100) as [2, 3], all along dim 0.
std::vector<float> expected_of(devplug_op_t op) {
  const std::vector<float> in = iota_values(kRows * kCols, 1), src = iota_values(2 * kCols, 100);
  const std::vector<int64_t> picks = picks_of(op, 0);
  std::vector<float> out = is_scatter(op) ? in : std::vector<float>{};
  for (size_t k = 0; k < picks.size(); ++k) {
    const int64_t col = static_cast<int64_t>(k) % kCols;
    if (op == DEVPLUG_OP_index_select) {
      for (int64_t c = 0; c < kCols; ++c) out.push_back(in[static_cast<size_t>(picks[k] * kCols + c)]);
    } else if (op == DEVPLUG_OP_gather) {
      out.push_back(in[static_cast<size_t>(picks[k] * kCols + col)]);
    } else {
      float& slot = out[static_cast<size_t>(picks[k] * kCols + col)];
      slot = op == DEVPLUG_OP_scatter ? src[k] : slot + src[k];
    }
  }
  return out;
}

// One index op with `bad` among its index values (0: good values only). Its output is the
// middle third of a storage whose other two thirds are guard bands.
struct IndexCall {
  devplug_op_t op;
  Tensor input, index, storage, out;
  std::vector<Tensor> src;  // scatter's third input

  IndexCall(const Device& device, devplug_op_t op_, int64_t bad)
      : op(op_),
        input(Tensor::from_host(device, iota_values(kRows * kCols, 1), {kRows, kCols})),
        index(Tensor::from_host(
            device, picks_of(op, bad),
            op == DEVPLUG_OP_index_select ? std::vector<int64_t>{3} : std::vector<int64_t>{2, kCols})),
        storage(Tensor::from_host(device, std::vector<float>(static_cast<size_t>(3 * numel_of(op)), kGuard),
                                  {3 * numel_of(op)})),
        out(storage.slice(0, numel_of(op), 2 * numel_of(op)).reshape(out_shape_of(op))) {
    if (is_scatter(op)) src.push_back(Tensor::from_host(device, iota_values(2 * kCols, 100), {2, kCols}));
  }

  static int64_t numel_of(devplug_op_t op) {
    const std::vector<int64_t> shape = out_shape_of(op);
    return shape[0] * shape[1];
  }

  void run(const Stream& stream) const {
    const devplug_dim_attrs_t attrs{sizeof(devplug_dim_attrs_t), 0};
    std::vector<Tensor> inputs{input, index};
    inputs.insert(inputs.end(), src.begin(), src.end());
    call(op, inputs, {out}, &attrs, &stream);
  }

  // A write outside the output, read back on `stream`; "" when the guard bands are intact.
  std::string guard_problem(const Stream& stream) const {
    const std::vector<float> all = storage.to_host<float>(&stream);
    const size_t n = all.size() / 3;
    for (size_t i = 0; i < all.size(); ++i)
      if ((i < n || i >= 2 * n) && all[i] != kGuard)
        return "wrote element " + std::to_string(i) + " of the storage, outside the output [" +
               std::to_string(n) + ", " + std::to_string(2 * n) + ")";
    return "";
  }
};

// One bad value on `op`: the verdict, or "" when the plugin kept the contract.
std::string check_bad_value(const Device& device, const Stream& stream, devplug_op_t op, int64_t bad) {
  std::ostringstream p;
  const std::string what = std::string(devplug_op_name(op)) + " with index value " + std::to_string(bad);
  std::string message;
  std::optional<IndexCall> made;
  if (code_of([&] { made.emplace(device, op, bad); }, &message) != DEVPLUG_CODE_OK)
    return what + ": setting up: " + message + "\n";
  const IndexCall& bad_call = *made;
  const devplug_code_t at_call = code_of([&] { bad_call.run(stream); }, &message);
  const devplug_code_t at_sync =
      code_of([&] { stream.synchronize(); }, at_call == DEVPLUG_CODE_OK ? &message : nullptr);
  const devplug_code_t reported = at_call != DEVPLUG_CODE_OK ? at_call : at_sync;
  if (reported != DEVPLUG_CODE_INVALID_ARGUMENT)
    p << what << ": " << (at_call != DEVPLUG_CODE_OK ? "the call" : "the call and the next synchronize")
      << " answered " << code_name(reported) << ", expected INVALID_ARGUMENT"
      << (message.empty() ? "" : " (" + message + ")") << "\n";
  else if (message.find(std::to_string(bad)) == std::string::npos)
    p << what << ": the error does not name the value: " << message << "\n";
  if (at_call != DEVPLUG_CODE_OK && at_sync != DEVPLUG_CODE_OK)
    p << what << ": refused at the call, and the next synchronize still answered " << code_name(at_sync)
      << "\n";
  const devplug_code_t again = code_of([&] { stream.synchronize(); }, &message);
  if (again != DEVPLUG_CODE_OK)
    p << what << ": reported twice: the second synchronize answered " << code_name(again) << " (" << message
      << ")\n";
  std::string guard;
  if (code_of([&] { guard = bad_call.guard_problem(stream); }, &message) != DEVPLUG_CODE_OK) guard = message;
  if (!guard.empty()) p << what << ": " << guard << "\n";
  // The stream keeps working: the call with good indices gives the right result.
  std::vector<float> got;
  const devplug_code_t ran = code_of(
      [&] {
        const IndexCall good(device, op, 0);
        good.run(stream);
        got = good.out.to_host<float>(&stream);
      },
      &message);
  if (ran != DEVPLUG_CODE_OK)
    p << what << ": the good call after it failed: " << code_name(ran) << ": " << message << "\n";
  else if (got != expected_of(op))
    p << what << ": the good call after it gave a wrong result\n";
  return p.str();
}

// A stream destroyed while a bad call is pending reports it (plugin_api.h: stream_destroy).
std::string check_destroy_reports(const Device& device) {
  const IndexCall bad_call(device, DEVPLUG_OP_gather, -1);
  devplug_stream_t* raw = nullptr;
  api_detail::check(devplug_stream_create(device.handle(), &raw));
  std::string message;
  // A borrowed handle: the Stream wrapper would destroy it and drop the error.
  const devplug_code_t at_call = code_of([&] {
    const devplug_dim_attrs_t attrs{sizeof(devplug_dim_attrs_t), 0};
    devplug_tensor_t* inputs[2] = {bad_call.input.handle(), bad_call.index.handle()};
    devplug_tensor_t* outputs[1] = {bad_call.out.handle()};
    api_detail::check(devplug_op_call(raw, DEVPLUG_OP_gather, inputs, 2, outputs, 1, &attrs));
  });
  const devplug_code_t at_destroy =
      code_of([&] { api_detail::check(devplug_stream_destroy(raw)); }, &message);
  if (at_call == DEVPLUG_CODE_OK && at_destroy != DEVPLUG_CODE_INVALID_ARGUMENT)
    return "gather with index value -1, then stream_destroy: answered " + code_name(at_destroy) +
           ", expected INVALID_ARGUMENT (" + message + ")\n";
  return "";
}

}  // namespace

std::string index_values() {
  Context context(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK);
  std::string problems;
  try {
    context.load(run_state().options.plugin_path);
    const std::vector<Device> devices = context.devices();
    const size_t index = static_cast<size_t>(run_state().options.device);
    if (index >= devices.size()) return "no device " + std::to_string(index);
    const Device& device = devices[index];
    const Stream stream(device);
    bool any = false;
    for (devplug_op_t op :
         {DEVPLUG_OP_index_select, DEVPLUG_OP_gather, DEVPLUG_OP_scatter, DEVPLUG_OP_scatter_add}) {
      bool supported = false;
      if (devplug_error_t* e =
              devplug_device_supports(device.handle(), op, DEVPLUG_DTYPE_FLOAT32, &supported, nullptr))
        devplug_error_destroy(e);
      if (!supported) continue;  // the op cases report it as unsupported
      any = true;
      for (int64_t bad : kBadValues) problems += check_bad_value(device, stream, op, bad);
    }
    if (any) problems += check_destroy_reports(device);
  } catch (const Error& e) {
    problems += "setting up: " + std::string(e.what()) + "\n";
  }
  return problems;
}

}  // namespace devplug::conform
