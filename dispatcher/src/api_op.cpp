// SPDX-License-Identifier: Apache-2.0
// C entry points: op calls, elementwise ops with broadcasting and promotion, and the
// promotion and broadcasting rules themselves.
#include "api_guard.hpp"
#include "devplug/sdk/composite.hpp"
#include "dispatch.hpp"
#include "elementwise.hpp"
#include "promotion.hpp"

using namespace devplug::detail;

namespace {

// Checks an array of tensor handles; the message names the element ("inputs[2]", and for
// a composite its name: "outputs[1] (mean)"). A NULL element is allowed where the
// composite's signature marks it optional.
void require_tensors(devplug_op_t op, devplug_tensor_t* const* tensors, size_t n, bool inputs) {
  const char* what = inputs ? "inputs" : "outputs";
  if (n > 0 && tensors == nullptr)
    invalid_argument(std::string(what) + " is NULL but its count is " + std::to_string(n));
  const devplug::sdk::CompositeSignature* sig = devplug::sdk::composite_signature(op);
  const int known = sig == nullptr ? 0 : inputs ? sig->n_inputs : sig->n_outputs;
  for (size_t i = 0; i < n; ++i) {
    const devplug_tensor_t* t = tensors[i];
    const devplug::sdk::CompositeArg* arg =
        static_cast<int>(i) < known ? &(inputs ? sig->inputs : sig->outputs)[i] : nullptr;
    if (t == nullptr && arg != nullptr && arg->optional) continue;  // an absent optional tensor
    if (t == nullptr || t->magic != devplug_tensor_t::kMagic)
      invalid_argument(std::string(what) + "[" + std::to_string(i) + "]" +
                       (arg != nullptr ? std::string(" (") + arg->name + ")" : std::string()) + " is " +
                       (t                ? "not a live tensor handle"
                        : arg != nullptr ? "NULL but not optional"
                                         : "NULL"));
  }
}

// True when every handle is a live tensor, the common case, checked without building
// anything; require_tensors then has nothing to say.
bool all_live(devplug_tensor_t* const* tensors, size_t n) noexcept {
  if (n > 0 && tensors == nullptr) return false;
  for (size_t i = 0; i < n; ++i)
    if (tensors[i] == nullptr || tensors[i]->magic != devplug_tensor_t::kMagic) return false;
  return true;
}

// The stream to run on: `stream`, or the default stream of `fallback_tensor`'s device.
devplug_stream_t& pick_stream(devplug_stream_t* stream, const devplug_tensor_t* fallback_tensor,
                              const char* missing) {
  if (stream != nullptr) return *require_handle(stream, "stream");
  if (fallback_tensor == nullptr) invalid_argument(missing);
  return *fallback_tensor->device().default_stream();
}

}  // namespace

extern "C" {

DEVPLUG_API devplug_error_t* devplug_op_call(devplug_stream_t* stream, devplug_op_t op,
                                             devplug_tensor_t* const* inputs, size_t n_inputs,
                                             devplug_tensor_t* const* outputs, size_t n_outputs,
                                             const void* attrs) {
  return guard([&] {
    if (!all_live(inputs, n_inputs)) require_tensors(op, inputs, n_inputs, true);
    if (!all_live(outputs, n_outputs)) require_tensors(op, outputs, n_outputs, false);
    const devplug_tensor_t* first_output = nullptr;  // a composite's outputs may start with an absent one
    for (size_t i = 0; i < n_outputs && first_output == nullptr; ++i) first_output = outputs[i];
    devplug_stream_t& s =
        pick_stream(stream, first_output, "stream is NULL and there is no output to take the device from");
    dispatch_op(s, OpCall{op, inputs, n_inputs, outputs, n_outputs, attrs});
  });
}

DEVPLUG_API devplug_error_t* devplug_elementwise(devplug_stream_t* stream, devplug_op_t op,
                                                 devplug_tensor_t* const* inputs, size_t n_inputs,
                                                 devplug_tensor_t** inout_result) {
  return guard([&] {
    require_not_null(inout_result, "inout_result");
    if (*inout_result != nullptr) require_handle(*inout_result, "*inout_result");
    if (n_inputs == 0) invalid_argument("n_inputs is 0");
    require_tensors(op, inputs, n_inputs, true);
    devplug_stream_t& s = pick_stream(stream, inputs[0], "stream is NULL");
    run_elementwise(s, op, inputs, n_inputs, inout_result);
  });
}

DEVPLUG_API devplug_error_t* devplug_promote_types(devplug_dtype_t a, devplug_dtype_t b,
                                                   devplug_dtype_t* out_dtype) {
  return guard([&] {
    require_not_null(out_dtype, "out_dtype");
    *out_dtype = -1;
    if (devplug_dtype_name(a) == nullptr) invalid_argument("a is an unknown dtype " + std::to_string(a));
    if (devplug_dtype_name(b) == nullptr) invalid_argument("b is an unknown dtype " + std::to_string(b));
    *out_dtype = promote_types(a, b);
  });
}

DEVPLUG_API devplug_error_t* devplug_broadcast_shapes(int32_t rank_a, const int64_t* shape_a, int32_t rank_b,
                                                      const int64_t* shape_b, int32_t* out_rank,
                                                      int64_t* out_shape) {
  return guard([&] {
    require_not_null(out_rank, "out_rank");
    *out_rank = 0;
    require_not_null(out_shape, "out_shape");
    Problem problem = check_shape(rank_a, shape_a, DEVPLUG_DTYPE_BOOL, "shape_a");
    if (!problem.empty()) invalid_argument(problem);
    problem = check_shape(rank_b, shape_b, DEVPLUG_DTYPE_BOOL, "shape_b");
    if (!problem.empty()) invalid_argument(problem);
    problem = broadcast_shapes(rank_a, shape_a, rank_b, shape_b, out_rank, out_shape);
    if (!problem.empty()) invalid_argument(problem);
  });
}

}  // extern "C"
