// SPDX-License-Identifier: Apache-2.0
// Worker sessions and the per-case procedure (see session.hpp).
#include "harness/session.hpp"

#include <algorithm>
#include <cmath>

#include "harness/compare.hpp"
#include "harness/elements.hpp"
#include "tolerances.hpp"

namespace devplug::conform {
namespace {

// The `index`-th device that belongs to `plugin`.
devplug_device_t* device_of(devplug_context_t* ctx, devplug_plugin_t* plugin, int index) {
  size_t count = 0;
  if (devplug_context_device_count(ctx, &count) != nullptr) return nullptr;
  int seen = 0;
  for (size_t i = 0; i < count; ++i) {
    devplug_device_t* dev = nullptr;
    devplug_plugin_t* owner = nullptr;
    take_error(devplug_context_get_device(ctx, i, &dev));
    take_error(devplug_device_get_plugin(dev, &owner));
    if (owner == plugin && seen++ == index) return dev;
  }
  return nullptr;
}

}  // namespace

Session::Session(const Options& o) {
  devplug_context_options_t opts{sizeof(devplug_context_options_t), DEVPLUG_CONTEXT_NO_DISCOVERY};
  if (!o.allow_fallback) opts.flags |= DEVPLUG_CONTEXT_NO_FALLBACK;
  error_ = take_error(devplug_context_create(&opts, &context_));
  if (!error_.empty()) {
    error_ = "devplug_context_create: " + error_;
    return;
  }
  error_ = take_error(devplug_context_load_plugin(context_, o.reference_path.c_str(), &reference_));
  if (!error_.empty()) {
    error_ = "loading the reference " + o.reference_path + ": " + error_;
    return;
  }
  error_ = take_error(devplug_context_load_plugin(context_, o.plugin_path.c_str(), &plugin_));
  if (!error_.empty()) {
    error_ = "loading " + o.plugin_path + ": " + error_;
    return;
  }
  target_.device = device_of(context_, plugin_, o.device);
  reference_target_.device = device_of(context_, reference_, 0);
  if (target_.device == nullptr) {
    error_ = "the plugin has no device " + std::to_string(o.device);
    return;
  }
  if (reference_target_.device == nullptr) {
    error_ = "the reference plugin has no device";
    return;
  }
  error_ = take_error(devplug_stream_create(target_.device, &target_.stream));
  if (error_.empty())
    error_ = take_error(devplug_stream_create(reference_target_.device, &reference_target_.stream));
  if (!error_.empty()) error_ = "devplug_stream_create: " + error_;
}

Session::~Session() {
  if (target_.stream) take_error(devplug_stream_destroy(target_.stream));
  if (reference_target_.stream) take_error(devplug_stream_destroy(reference_target_.stream));
  devplug_context_destroy(context_);
}

Result run_case(Session& session, const Case& c, const Options& options) {
  Result result;
  std::vector<Placement> placement;
  std::vector<Bytes> storage, logical;
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    placement.push_back(c.inputs[k].absent ? Placement() : place(c.inputs[k], 0));
    storage.push_back(c.inputs[k].absent ? Bytes()
                                         : make_input_storage(c, k, placement.back(), options.seed));
    logical.push_back(c.inputs[k].absent ? Bytes()
                                         : logical_elements(storage.back(), c.inputs[k], placement.back()));
  }
  const Execution ref = execute(session.reference_target(), c, storage, placement);
  // Every fallback counts, not only the op's own: a composite's decomposition runs prims.
  uint64_t fallback_before = 0, fallback_after = 0;
  take_error(devplug_context_fallback_count(session.context(), DEVPLUG_OP_INVALID, &fallback_before));
  const Execution got = execute(session.target(), c, storage, placement);
  take_error(devplug_context_fallback_count(session.context(), DEVPLUG_OP_INVALID, &fallback_after));
  const bool fell_back = fallback_after > fallback_before;
  result.seconds = got.seconds;
  if (!ref.error.empty() && !got.error.empty()) {
    result.message = "both refused the case (reference: " + ref.error + ")";
    return result;  // a case ops.def refuses (an empty amax, ...): refused alike is right
  }
  if (!ref.error.empty()) {
    result.status = Status::Fail;
    result.message = "the reference refused a case the plugin ran: " + ref.error;
    return result;
  }
  if (!got.error.empty() && c.decomposed && got.code == DEVPLUG_CODE_UNIMPLEMENTED) {
    // A decomposition needs a prim (or dtype) the plugin does not run, and the run allows no
    // CPU fallback: the composite is not the device's to run, like an unclaimed prim.
    result.status = Status::Unsupported;
    result.message = "its decomposition needs what the plugin lacks: " + got.error;
    return result;
  }
  if (!got.error.empty()) {
    result.status = Status::Fail;
    result.message = "the plugin failed where the reference did not: " + got.error;
    return result;
  }
  const Tolerance tol = tolerance_for(c, options.bitwise);
  Bytes magnitude;
  const devplug_dtype_t out = c.outputs[0].dtype;
  if (tol.kind == TolKind::Accumulate && is_float(out)) {
    // The same op on |inputs| gives sum|terms| per output element, the scale of the bound.
    std::vector<Bytes> abs_storage = storage;
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      const devplug_dtype_t d = c.inputs[k].dtype;
      if (!is_float(d)) continue;
      const size_t es = devplug_dtype_size(d);
      for (size_t at = 0; at < abs_storage[k].size(); at += es)
        store_float(d, &abs_storage[k][at], std::fabs(load_float(d, &abs_storage[k][at])));
    }
    const Execution mag = execute(session.reference_target(), c, abs_storage, placement);
    if (mag.error.empty()) magnitude = mag.output;
  }
  std::vector<double> moments;
  if (tol.kind == TolKind::Variance && is_float(out)) moments = var_second_moments(c, logical[0]);
  const Bytes poison(devplug_dtype_size(out), kPoisonByte);
  Judgement j =
      judge(c, tol, ref.output, got.output, magnitude, unspecified_mask(c, logical), poison, 0, moments);
  result.max_ulp = j.max_ulp;
  result.max_abs = j.max_abs;
  result.max_rel = j.max_rel;
  // A composite's further outputs (statistics, indices, masks, gradients), each judged by
  // its own tolerance row.
  for (size_t k = 1; k < c.outputs.size() && k - 1 < got.more.size() && k - 1 < ref.more.size(); ++k) {
    if (c.outputs[k].absent) continue;
    const Tolerance tk = tolerance_for(c, options.bitwise, k);
    const Bytes poison_k(devplug_dtype_size(c.outputs[k].dtype), kPoisonByte);
    const Judgement jk = judge(c, tk, ref.more[k - 1], got.more[k - 1], Bytes(), {}, poison_k, k);
    result.max_ulp = std::max(result.max_ulp, jk.max_ulp);
    result.max_abs = std::max(result.max_abs, jk.max_abs);
    result.max_rel = std::max(result.max_rel, jk.max_rel);
    if (!jk.ok) {
      j.ok = false;
      j.detail += "outputs[" + std::to_string(k) + "]: " + jk.detail + "tolerance: " + tk.rule + " — " +
                  tk.reason + "\n";
    }
  }
  if (!got.guard_problem.empty()) {
    result.status = Status::Fail;
    result.message = got.guard_problem + "\n";
  }
  if (!ref.guard_problem.empty()) {
    result.status = Status::Fail;
    result.message += "reference: " + ref.guard_problem + "\n";
  }
  if (!j.ok) {
    result.status = Status::Fail;
    result.message += j.detail;
  }
  if (result.status == Status::Fail)
    result.message += "tolerance: " + std::string(tol.rule) + " — " + tol.reason;
  if (fell_back) {
    // Counted by the dispatcher itself, not inferred from the claims.
    result.message += (result.message.empty() ? "" : "\n") + std::string("ran through the CPU fallback");
    if (result.status == Status::Pass) result.status = Status::Fallback;
  }
  return result;
}

}  // namespace devplug::conform
