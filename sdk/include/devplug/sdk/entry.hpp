// SPDX-License-Identifier: Apache-2.0
// Argument checks shared by every plugin entry point, so that each plugin answers bad input
// the same way: NULL handles, short struct_size, unknown ops, calls that break ops.def.
//
// The dispatcher validates calls before they reach a plugin, but a plugin is also called
// directly (conformance's ABI tests do), so its entry points check again; these checks are
// cheap and allocation-free.
#pragma once

#include <string>

#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/error.hpp"

namespace devplug::sdk {

// Checks the frame of a kernel call: non-null call and tensors (a composite's optional
// tensors may be NULL), struct sizes, a known op, the arity ops.def gives, and dtypes in
// range. Shapes are the dispatcher's job (sdk::check_composite checks a composite's).
inline void check_call(const devplug_op_call_t* call) {
  check_struct(call, DEVPLUG_SIZE_THROUGH(devplug_op_call_t, attrs), "call");
  const devplug_op_info_t* info = devplug_op_info(call->op);
  if (info == nullptr)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT,
         "call->op " + std::to_string(call->op) + " is not an op of this op set");
  const bool variadic = info->n_inputs < 0;
  if (variadic ? call->n_inputs < 1 : call->n_inputs != static_cast<size_t>(info->n_inputs))
    fail(DEVPLUG_CODE_INVALID_ARGUMENT,
         std::string(info->name) + ": wrong number of inputs (" + std::to_string(call->n_inputs) + ")");
  if (call->n_outputs != static_cast<size_t>(info->n_outputs))
    fail(DEVPLUG_CODE_INVALID_ARGUMENT,
         std::string(info->name) + ": wrong number of outputs (" + std::to_string(call->n_outputs) + ")");
  if (call->n_inputs > 0) check_not_null(call->inputs, "call->inputs");
  check_not_null(call->outputs, "call->outputs");
  auto check_tensor = [&](const devplug_tensor_desc_t* t, const char* what) {
    check_struct(t, DEVPLUG_SIZE_THROUGH(devplug_tensor_desc_t, strides), what);
    check_not_null(t->buffer, what);
    if (t->dtype < 0 || t->dtype >= DEVPLUG_DTYPE_COUNT)
      fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + " has an unknown dtype");
    if (t->rank < 0 || t->rank > DEVPLUG_MAX_RANK)
      fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + " has a rank outside [0, 8]");
  };
  auto optional = [](uint32_t mask, size_t i) { return i < 32 && ((mask >> i) & 1u) != 0; };
  for (size_t i = 0; i < call->n_inputs; ++i)
    if (call->inputs[i] != nullptr || !optional(info->optional_inputs, i))
      check_tensor(call->inputs[i], "input tensor");
  for (size_t i = 0; i < call->n_outputs; ++i)
    if (call->outputs[i] != nullptr || !optional(info->optional_outputs, i))
      check_tensor(call->outputs[i], "output tensor");
  // attrs_size is the struct as of ABI 1.0, the first minor; when a later minor appends
  // attribute fields, this minimum stays at the 1.0 size.
  if (info->attrs_size != 0)
    check_struct(static_cast<const devplug_none_attrs_t*>(call->attrs), info->attrs_size, "call->attrs");
}

}  // namespace devplug::sdk
