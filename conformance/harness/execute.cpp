// SPDX-License-Identifier: Apache-2.0
// Running a case on a device (see execute.hpp).
#include "harness/execute.hpp"

#include <chrono>
#include <memory>

namespace devplug::conform {

std::string take_error(devplug_error_t* error) {
  if (error == nullptr) return {};
  std::string text =
      std::string(devplug_code_name(error->code)) + ": " + (error->message ? error->message : "");
  devplug_error_destroy(error);
  return text;
}

namespace {

struct TensorDeleter {
  void operator()(devplug_tensor_t* t) const { devplug_tensor_release(t); }
};
using TensorPtr = std::unique_ptr<devplug_tensor_t, TensorDeleter>;

// A flat storage tensor holding `bytes`, and the case's view of it.
struct Placed {
  TensorPtr storage;
  TensorPtr view;
};

bool make_placed(const Target& t, const TensorSpec& spec, const Placement& p, const Bytes& bytes, Placed* out,
                 std::string* error, devplug_code_t* code) {
  devplug_tensor_t* raw = nullptr;
  const int64_t elems = p.storage_elems;
  devplug_error_t* e = devplug_tensor_create(t.device, spec.dtype, 1, &elems, &raw);
  if (e == nullptr) {
    out->storage.reset(raw);
    e = devplug_tensor_copy_from_host(t.stream, raw, bytes.data(), bytes.size(), DEVPLUG_COPY_BLOCKING);
  }
  if (e == nullptr) {
    devplug_tensor_t* view = nullptr;
    e = devplug_tensor_as_strided(raw, static_cast<int32_t>(spec.shape.size()), spec.shape.data(),
                                  p.strides.data(), p.offset, &view);
    out->view.reset(view);
  }
  if (e != nullptr) {
    *code = e->code;
    *error = "setting up a " + std::string(devplug_dtype_name(spec.dtype)) + " tensor: " + take_error(e);
    return false;
  }
  return true;
}

// Reads output `spec` back from `placed` into its row-major elements; checks the guard
// bands. Returns false (with x's error set) when a host call fails.
bool read_output(const Target& t, const TensorSpec& ospec, const Placement& op, Placed& placed, Bytes* out,
                 Execution& x);

}  // namespace

Execution execute(const Target& t, const Case& c, const std::vector<Bytes>& input_storage,
                  const std::vector<Placement>& input_placement) {
  Execution x;
  std::vector<Placed> inputs(c.inputs.size());
  for (size_t k = 0; k < c.inputs.size(); ++k)
    if (!c.inputs[k].absent &&
        !make_placed(t, c.inputs[k], input_placement[k], input_storage[k], &inputs[k], &x.error, &x.code))
      return x;
  std::vector<Placement> out_placement(c.outputs.size());
  std::vector<Placed> outputs(c.outputs.size());
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    const TensorSpec& ospec = c.outputs[k];
    if (ospec.absent) continue;
    out_placement[k] = place(ospec, kGuardElements);
    const Bytes poisoned(
        static_cast<size_t>(out_placement[k].storage_elems) * devplug_dtype_size(ospec.dtype), kPoisonByte);
    if (!make_placed(t, ospec, out_placement[k], poisoned, &outputs[k], &x.error, &x.code)) return x;
  }

  std::vector<devplug_tensor_t*> in_views, out_views;
  for (Placed& p : inputs) in_views.push_back(p.view.get());
  for (Placed& p : outputs) out_views.push_back(p.view.get());
  const auto start = std::chrono::steady_clock::now();
  devplug_error_t* e = devplug_op_call(t.stream, c.op, in_views.data(), in_views.size(), out_views.data(),
                                       out_views.size(), c.attrs.pointer());
  if (e == nullptr) e = devplug_stream_synchronize(t.stream);
  x.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (e != nullptr) {
    x.code = e->code;
    x.error = "devplug_op_call: " + take_error(e);
    return x;
  }
  x.more.resize(c.outputs.size() - 1);
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    if (c.outputs[k].absent) continue;
    if (!read_output(t, c.outputs[k], out_placement[k], outputs[k], k == 0 ? &x.output : &x.more[k - 1], x))
      return x;
  }
  return x;
}

namespace {

bool read_output(const Target& t, const TensorSpec& ospec, const Placement& op, Placed& placed, Bytes* out,
                 Execution& x) {
  const size_t es = devplug_dtype_size(ospec.dtype);
  Bytes storage(static_cast<size_t>(op.storage_elems) * es);
  devplug_error_t* e =
      devplug_tensor_copy_to_host(t.stream, placed.storage.get(), storage.data(), storage.size());
  if (e != nullptr) {
    x.code = e->code;
    x.error = "reading the output back: " + take_error(e);
    return false;
  }
  *out = logical_elements(storage, ospec, op);
  // Every storage element the view does not reach must still hold the poison.
  std::vector<char> reached(static_cast<size_t>(op.storage_elems), 0);
  {
    const int64_t n = numel(ospec.shape);
    std::vector<int64_t> index(ospec.shape.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t at = op.offset;
      for (size_t k = 0; k < index.size(); ++k) at += index[k] * op.strides[k];
      reached[static_cast<size_t>(at)] = 1;
      for (size_t k = index.size(); k-- > 0;) {
        if (++index[k] < ospec.shape[k]) break;
        index[k] = 0;
      }
    }
  }
  for (int64_t at = 0; at < op.storage_elems; ++at) {
    if (reached[static_cast<size_t>(at)]) continue;
    for (size_t b = 0; b < es; ++b) {
      if (storage[static_cast<size_t>(at) * es + b] != kPoisonByte) {
        if (x.guard_problem.empty())
          x.guard_problem = "wrote outside the output: storage element " + std::to_string(at) +
                            " (the view starts at element " + std::to_string(op.offset) + ")";
        return true;
      }
    }
  }
  return true;
}

}  // namespace
}  // namespace devplug::conform
