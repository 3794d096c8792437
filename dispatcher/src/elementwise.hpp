// SPDX-License-Identifier: Apache-2.0
// devplug_elementwise: an elementwise prim the way PyTorch runs its operator. Inputs are
// broadcast together (expand views) and promoted to one computation dtype
// (convert_element_type into temporaries), then the strict prim runs.
//
// Promotion follows PyTorch's result_type: tensors with dims decide within their category
// (bool < integer < floating); a 0-d tensor only raises the category. where's condition
// stays bool and is not promoted. Ops defined for floating dtypes only (exp, sqrt, atan2...)
// compute integer and bool inputs in float32, PyTorch's default dtype. div keeps the prim's
// meaning: integer division truncates.
//
// With a given result of another dtype than the op's, the op runs into a temporary of its
// own dtype which is cast into the result; a cast PyTorch refuses (floating to integer,
// anything but bool to bool) is INVALID_ARGUMENT.
#pragma once

#include "stream_event.hpp"
#include "tensor.hpp"

namespace devplug::detail {

// Runs `op` (UNARY, BINARY, COMPARE or TERNARY) on `inputs` into `*inout_result`, allocated
// on the stream's device when NULL. Throws on error, leaving *inout_result unchanged.
void run_elementwise(devplug_stream_t& stream, devplug_op_t op, const devplug_tensor_t* const* inputs,
                     size_t n_inputs, devplug_tensor_t** inout_result);

// The computation dtype PyTorch's result_type gives for `inputs` (see above).
devplug_dtype_t computation_dtype(const devplug_op_info_t& info, const devplug_tensor_t* const* inputs,
                                  size_t n_inputs);

}  // namespace devplug::detail
