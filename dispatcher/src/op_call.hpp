// SPDX-License-Identifier: Apache-2.0
// One op call as it travels through the dispatcher: devplug_op_call -> dispatch_op ->
// validation -> run_on_device -> the kernel (call_kernel) or the CPU fallback or a
// composite's decomposition -> the trace. A view of the caller's arrays; it owns nothing.
#pragma once

#include <cstddef>

#include "devplug/ops.h"
#include "tensor.hpp"

namespace devplug::detail {

struct OpCall {
  devplug_op_t op;
  const devplug_tensor_t* const* inputs;  // absent optional tensors of a composite are NULL
  size_t n_inputs;
  const devplug_tensor_t* const* outputs;
  size_t n_outputs;
  const void* attrs;
  // The dtype that picks the kernel (dispatch_dtype), once the call is validated; the
  // functions that need it say so.
  devplug_dtype_t dtype = DEVPLUG_DTYPE_COUNT;

  template <typename Attrs>
  const Attrs& attrs_as() const {
    return *static_cast<const Attrs*>(attrs);
  }
  OpCall with_dtype(devplug_dtype_t d) const {
    OpCall c = *this;
    c.dtype = d;
    return c;
  }
};

}  // namespace devplug::detail
