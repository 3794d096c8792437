// SPDX-License-Identifier: Apache-2.0
// Checks an op call against what ops.def and ops.h promise a kernel, before any kernel
// runs: the op, arity, dtypes, shapes, attributes and aliasing.
//
// Pure and thread-safe, in namespace devplug::detail; driven by devplug_op_info() rather
// than lists of ops. Allocates only to build an error message.
#ifndef DEVPLUG_DISPATCHER_VALIDATE_HPP_
#define DEVPLUG_DISPATCHER_VALIDATE_HPP_

#include <cstddef>

#include "layout.hpp"
#include "devplug/ops.h"

namespace devplug::detail {

// One tensor of a call: its view and the identity of its storage.
struct CallTensor {
  const Layout* layout;
  const void* storage;  // identity of the storage (two tensors alias iff equal)
};

// Returns an empty Problem when a kernel may run `op` on these tensors, otherwise the
// message of the INVALID_ARGUMENT error, naming the argument ("inputs[1]: dtype int32
// does not match inputs[0] dtype float32").
//
// Checks: a known op; arity; the dispatch dtype is allowed; the dtype rules of the
// `result` column (same dtype where required, bool cond for where, int64 index tensors,
// bool/int64 outputs); the shape rules of each category (ops.h); `attrs` non-NULL with
// struct_size >= its 1.0 size when the op has attributes, and values in range (dims_mask
// bits < rank, dim in [0, rank), pads giving non-negative sizes, finite correction >= 0);
// an output that overlaps itself; an output that may overlap another output or an input,
// except an elementwise (UNARY/BINARY/COMPARE/TERNARY/copy/convert) output that is
// exactly the same view as an input of the same element size. Storage bounds are not
// checked here (tensors are checked when they are made). No heap allocation when the call
// is valid. `inputs`/`outputs` may be NULL only when their count is 0.
//
// A composite op's call is checked by devplug::sdk::check_composite (its signature's dtypes,
// its shape rule and attribute values); a CallTensor with a NULL layout is an absent
// optional tensor, allowed where ops.def marks it optional. Composite outputs never alias
// an input.
Problem validate_call(devplug_op_t op, const CallTensor* inputs, size_t n_inputs, const CallTensor* outputs,
                      size_t n_outputs, const void* attrs);

}  // namespace devplug::detail

#endif  // DEVPLUG_DISPATCHER_VALIDATE_HPP_
