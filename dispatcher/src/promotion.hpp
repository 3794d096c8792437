// SPDX-License-Identifier: Apache-2.0
// Type promotion and broadcasting for the host's elementwise ops, as PyTorch does them.
//
// Pure, thread-safe functions in namespace devplug::detail; no allocation except for an error
// message.
#ifndef DEVPLUG_DISPATCHER_PROMOTION_HPP_
#define DEVPLUG_DISPATCHER_PROMOTION_HPP_

#include <cstdint>

#include "layout.hpp"
#include "devplug/ops.h"
#include "devplug/types.h"

namespace devplug::detail {

// Returns the dtype PyTorch's torch.promote_types gives for two tensors of dtypes `a` and
// `b` (uint8 + int8 -> int16, int32 + float16 -> float16, float16 + bfloat16 -> float32).
// Both must be known dtypes; otherwise returns -1.
devplug_dtype_t promote_types(devplug_dtype_t a, devplug_dtype_t b);

// Writes the shape two shapes broadcast to (PyTorch rules: align at the right, a size-1
// dim stretches, other sizes must match) into `*out_rank` and `out_shape` (room for
// DEVPLUG_MAX_RANK dims). Ranks must be in [0, DEVPLUG_MAX_RANK] and dims >= 0.
// `out_shape` may alias either input.
Problem broadcast_shapes(int32_t rank_a, const int64_t* shape_a, int32_t rank_b, const int64_t* shape_b,
                         int32_t* out_rank, int64_t* out_shape);

// Returns the output dtype of prim `op` when it dispatches on `computation` (ops.def's
// `result` column): bool for `bool` ops, int64 for `int64` ops, otherwise `computation`
// (for `any`, the cast target is the caller's choice and `computation` is returned).
// Returns -1 for an unknown op.
devplug_dtype_t elementwise_result_dtype(devplug_op_t op, devplug_dtype_t computation);

}  // namespace devplug::detail

#endif  // DEVPLUG_DISPATCHER_PROMOTION_HPP_
