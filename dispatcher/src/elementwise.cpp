// SPDX-License-Identifier: Apache-2.0
// Broadcasting and type promotion around an elementwise prim (see elementwise.hpp).
#include "elementwise.hpp"

#include <string>
#include <vector>

#include "api_guard.hpp"
#include "dispatch.hpp"
#include "plugin_record.hpp"
#include "promotion.hpp"

namespace devplug::detail {
namespace {

enum Category { kNone = -1, kBool = 0, kInteger = 1, kFloating = 2 };

Category category_of(devplug_dtype_t d) {
  if (d == DEVPLUG_DTYPE_BOOL) return kBool;
  if ((DEVPLUG_DTYPE_BIT(d) & DEVPLUG_DTYPES_FLOAT) != 0) return kFloating;
  return kInteger;
}

bool is_elementwise(devplug_category_t c) {
  return c == DEVPLUG_CATEGORY_unary || c == DEVPLUG_CATEGORY_binary || c == DEVPLUG_CATEGORY_compare ||
         c == DEVPLUG_CATEGORY_ternary;
}

// PyTorch's canCast: no floating to integral, nothing but bool to bool.
bool can_cast(devplug_dtype_t from, devplug_dtype_t to) {
  if (category_of(from) == kFloating && category_of(to) != kFloating) return false;
  if (from != DEVPLUG_DTYPE_BOOL && to == DEVPLUG_DTYPE_BOOL) return false;
  return true;
}

bool same_shape(const Layout& l, int32_t rank, const int64_t* shape) {
  if (l.rank != rank) return false;
  for (int32_t d = 0; d < rank; ++d)
    if (l.shape[d] != shape[d]) return false;
  return true;
}

std::string shape_text(int32_t rank, const int64_t* shape) {
  std::string text = "[";
  for (int32_t d = 0; d < rank; ++d) text += (d ? "," : "") + std::to_string(shape[d]);
  return text + "]";
}

// Casts `t` to `dtype` on the device (a new dense tensor).
TensorPtr convert(devplug_stream_t& stream, const devplug_tensor_t& t, devplug_dtype_t dtype) {
  TensorPtr out(new_tensor(*stream.device, contiguous_layout(dtype, t.layout.rank, t.layout.shape)));
  const devplug_tensor_t* in[1] = {&t};
  const devplug_tensor_t* outs[1] = {out.get()};
  dispatch_op(stream, OpCall{DEVPLUG_OP_convert_element_type, in, 1, outs, 1, nullptr});
  return out;
}

}  // namespace

devplug_dtype_t computation_dtype(const devplug_op_info_t& info, const devplug_tensor_t* const* inputs,
                                  size_t n_inputs) {
  const size_t first = info.result == DEVPLUG_RESULT_select ? 1 : 0;  // where's cond is not promoted
  devplug_dtype_t dim_result = -1, zero_result = -1;
  for (size_t i = first; i < n_inputs; ++i) {
    devplug_dtype_t& slot = inputs[i]->layout.rank > 0 ? dim_result : zero_result;
    const devplug_dtype_t d = inputs[i]->layout.dtype;
    slot = slot < 0 ? d : promote_types(slot, d);
  }
  devplug_dtype_t result;
  if (dim_result < 0)
    result = zero_result;
  else if (zero_result < 0)
    result = dim_result;
  else if (category_of(zero_result) > category_of(dim_result))
    result = promote_types(dim_result, zero_result);
  else
    result = dim_result;
  // Ops defined on floating dtypes only compute integer and bool inputs in float32.
  if ((info.dtypes & ~DEVPLUG_DTYPES_FLOAT) == 0 && category_of(result) != kFloating)
    result = DEVPLUG_DTYPE_FLOAT32;
  return result;
}

void run_elementwise(devplug_stream_t& stream, devplug_op_t op, const devplug_tensor_t* const* inputs,
                     size_t n_inputs, devplug_tensor_t** inout_result) {
  const devplug_op_info_t* info = devplug_op_info(op);
  if (info == nullptr) invalid_argument("op " + std::to_string(op) + " is not an op of this op set");
  if (!is_elementwise(info->category))
    invalid_argument(std::string("op ") + info->name +
                     " is not elementwise (UNARY, BINARY, COMPARE or TERNARY); use devplug_op_call");
  if (n_inputs != static_cast<size_t>(info->n_inputs))
    invalid_argument(std::string(info->name) + " takes " + std::to_string(info->n_inputs) +
                     " inputs, n_inputs is " + std::to_string(n_inputs));

  for (size_t i = 0; i < n_inputs; ++i)
    if (&inputs[i]->device() != stream.device)
      invalid_argument("inputs[" + std::to_string(i) + "] is not on the stream's device (" +
                       stream.device->plugin->name + " device " + std::to_string(stream.device->index) + ")");
  if (*inout_result != nullptr && &(*inout_result)->device() != stream.device)
    invalid_argument("*inout_result is not on the stream's device");

  // Fast path: every operand already has the given result's shape and one allowed dtype
  // whose result is the given result's dtype, so broadcasting and promotion are no-ops.
  const size_t first = info->result == DEVPLUG_RESULT_select ? 1 : 0;
  devplug_tensor_t* given = *inout_result;
  if (given != nullptr) {
    const devplug_dtype_t d = inputs[first]->layout.dtype;
    bool direct =
        (info->dtypes & DEVPLUG_DTYPE_BIT(d)) != 0 && elementwise_result_dtype(op, d) == given->layout.dtype;
    for (size_t i = 0; direct && i < n_inputs; ++i)
      direct = same_shape(inputs[i]->layout, given->layout.rank, given->layout.shape) &&
               (i < first || inputs[i]->layout.dtype == d);
    if (direct) {
      const devplug_tensor_t* outs[1] = {given};
      dispatch_op(stream, OpCall{op, inputs, n_inputs, outs, 1, nullptr});
      return;
    }
  }

  // The broadcast shape of all inputs.
  int32_t rank = inputs[0]->layout.rank;
  int64_t shape[DEVPLUG_MAX_RANK] = {};
  for (int32_t d = 0; d < rank; ++d) shape[d] = inputs[0]->layout.shape[d];
  for (size_t i = 1; i < n_inputs; ++i) {
    const Layout& l = inputs[i]->layout;
    Problem problem = broadcast_shapes(rank, shape, l.rank, l.shape, &rank, shape);
    if (!problem.empty()) invalid_argument("inputs[" + std::to_string(i) + "]: " + problem);
  }
  const devplug_dtype_t compute = computation_dtype(*info, inputs, n_inputs);
  const devplug_dtype_t result_dtype = elementwise_result_dtype(op, compute);

  if (given != nullptr) {
    if (!same_shape(given->layout, rank, shape))
      invalid_argument("result has shape " + shape_text(given->layout.rank, given->layout.shape) +
                       ", the broadcast shape of the inputs is " + shape_text(rank, shape));
    if (!can_cast(result_dtype, given->layout.dtype))
      invalid_argument(std::string("result dtype ") + devplug_dtype_name(given->layout.dtype) +
                       " cannot hold " + info->name + "'s result dtype " + devplug_dtype_name(result_dtype) +
                       " (PyTorch's casting rule)");
  }

  std::vector<TensorPtr> temps;
  std::vector<const devplug_tensor_t*> operands(inputs, inputs + n_inputs);
  for (size_t i = 0; i < n_inputs; ++i) {
    if (i >= first && operands[i]->layout.dtype != compute) {
      temps.push_back(convert(stream, *operands[i], compute));
      operands[i] = temps.back().get();
    }
    if (!same_shape(operands[i]->layout, rank, shape)) {
      Layout expanded;
      Problem problem = view_expand(operands[i]->layout, rank, shape, &expanded);
      if (!problem.empty()) invalid_argument("inputs[" + std::to_string(i) + "]: " + problem);
      temps.emplace_back(new_view(*operands[i], expanded));
      operands[i] = temps.back().get();
    }
  }
  TensorPtr result;
  const devplug_tensor_t* target = given;
  if (given == nullptr || given->layout.dtype != result_dtype) {
    result.reset(new_tensor(*stream.device, contiguous_layout(result_dtype, rank, shape)));
    target = result.get();
  }
  const devplug_tensor_t* outs[1] = {target};
  dispatch_op(stream, OpCall{op, operands.data(), n_inputs, outs, 1, nullptr});
  if (given == nullptr) {
    *inout_result = result.release();
    return;
  }
  if (target != given) {
    const devplug_tensor_t* in[1] = {target};
    const devplug_tensor_t* cast_out[1] = {given};
    dispatch_op(stream, OpCall{DEVPLUG_OP_convert_element_type, in, 1, cast_out, 1, nullptr});
  }
}

}  // namespace devplug::detail
