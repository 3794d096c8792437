// SPDX-License-Identifier: Apache-2.0
// The contract of composite ops beyond ops.def's columns, for the dispatcher and for plugins
// with native composite kernels: the parsed signature of each composite row, the dtype each
// of its tensors must have, which optional tensors a call must (or must not) pass, and the
// shape rule of each op (composite_shapes.hpp).
//
//   std::string problem = devplug::sdk::check_composite(*call);
//   if (!problem.empty()) devplug::sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, problem);
//
// The dispatcher runs check_composite on every composite call before a kernel or a
// decomposition sees it; a native kernel may run it again (plugins are also called
// directly). Valid calls cost no allocation; thread-safe.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/composite_shapes.hpp"

namespace devplug::sdk {

// What dtype a tensor of a composite call has, from its signature annotation.
enum class ArgDtype {
  Dispatch,  // no annotation: the dispatch dtype (input 0's)
  Int64,     // :int64 indices
  Bool,      // :bool
  Mask,      // :mask bool, or the dispatch dtype (an additive mask)
  Acc,       // :acc float32 for a 16-bit dispatch dtype, else the dispatch dtype
};

struct CompositeArg {
  char name[40] = {};
  bool optional = false;
  ArgDtype dtype = ArgDtype::Dispatch;
};

struct CompositeSignature {
  int n_inputs = 0, n_outputs = 0;
  CompositeArg inputs[kMaxCompositeArgs], outputs[kMaxCompositeArgs];
};

// The accumulation dtype of `dtype`: float32 for float16 and bfloat16, `dtype` otherwise.
inline devplug_dtype_t acc_dtype(devplug_dtype_t dtype) {
  return dtype == DEVPLUG_DTYPE_FLOAT16 || dtype == DEVPLUG_DTYPE_BFLOAT16 ? DEVPLUG_DTYPE_FLOAT32 : dtype;
}

// Parses a signature ("input, weight? -> out, rstd:acc"). Returns false for a malformed one
// (an unknown annotation, a name too long, more than kMaxCompositeArgs tensors a side).
inline bool parse_signature(const char* text, CompositeSignature* out) {
  *out = CompositeSignature{};
  if (text == nullptr) return false;
  int side = 0;  // 0 inputs, 1 outputs
  const char* p = text;
  for (;;) {
    while (*p == ' ') ++p;
    const char* start = p;
    while (*p && *p != ',' && *p != ' ' && *p != '?' && *p != ':') ++p;
    const size_t length = static_cast<size_t>(p - start);
    int& count = side == 0 ? out->n_inputs : out->n_outputs;
    if (length == 0 || length >= sizeof(CompositeArg::name) || count >= kMaxCompositeArgs) return false;
    CompositeArg& arg = (side == 0 ? out->inputs : out->outputs)[count++];
    std::memcpy(arg.name, start, length);
    if (*p == '?') {
      arg.optional = true;
      ++p;
    }
    if (*p == ':') {
      const char* kind = ++p;
      while (*p && *p != ',' && *p != ' ') ++p;
      const std::string token(kind, static_cast<size_t>(p - kind));
      if (token == "int64")
        arg.dtype = ArgDtype::Int64;
      else if (token == "bool")
        arg.dtype = ArgDtype::Bool;
      else if (token == "mask")
        arg.dtype = ArgDtype::Mask;
      else if (token == "acc")
        arg.dtype = ArgDtype::Acc;
      else
        return false;
    }
    while (*p == ' ') ++p;
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == '-' && p[1] == '>' && side == 0) {
      side = 1;
      p += 2;
      continue;
    }
    return *p == '\0' && side == 1;
  }
}

// The parsed signature of composite op `op` (parsed once per process), or NULL for a prim,
// an unknown id or a malformed signature (which the op table test rules out).
inline const CompositeSignature* composite_signature(devplug_op_t op) {
  struct Table {
    CompositeSignature rows[DEVPLUG_OP_END_];
    bool ok[DEVPLUG_OP_END_] = {};
    Table() {
      for (devplug_op_t id = 1; id < DEVPLUG_OP_END_; ++id) {
        const devplug_op_info_t* info = devplug_op_info(id);
        if (info == nullptr || info->category != DEVPLUG_CATEGORY_composite) continue;
        ok[id] = parse_signature(info->signature, &rows[id]) && rows[id].n_inputs == info->n_inputs &&
                 rows[id].n_outputs == info->n_outputs;
      }
    }
  };
  static const Table table;
  if (op <= 0 || op >= DEVPLUG_OP_END_ || !table.ok[op]) return nullptr;
  return &table.rows[op];
}

// The dtype `arg` must have in a call dispatched on `dispatch`; for ArgDtype::Mask the
// other allowed dtype is bool.
inline devplug_dtype_t expected_dtype(const CompositeArg& arg, devplug_dtype_t dispatch) {
  switch (arg.dtype) {
    case ArgDtype::Int64:
      return DEVPLUG_DTYPE_INT64;
    case ArgDtype::Bool:
      return DEVPLUG_DTYPE_BOOL;
    case ArgDtype::Acc:
      return acc_dtype(dispatch);
    default:
      return dispatch;
  }
}

namespace composite_detail {

inline std::string arg_text(const char* group, size_t k, const CompositeArg& arg) {
  return std::string(group) + "[" + std::to_string(k) + "] (" + arg.name + ")";
}

inline std::string dims_text(int32_t rank, const int64_t* shape) {
  std::string s = "[";
  for (int32_t d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

}  // namespace composite_detail

// Checks a composite call against its row and shape rule: which optional tensors are
// passed, every tensor's dtype, the attributes' values and every shape. The frame (struct
// sizes, op id, arity, non-NULL arrays, known dtypes and ranks, attribute struct_size) is
// check_call's. Returns "" when the call is valid, otherwise the message of its
// INVALID_ARGUMENT error, naming the tensor ("inputs[1] (weight): ...").
inline std::string check_composite(const devplug_op_call_t& call) {
  using composite_detail::arg_text;
  using composite_detail::dims_text;
  const devplug_op_info_t* info = devplug_op_info(call.op);
  const CompositeSignature* sig = composite_signature(call.op);
  if (info == nullptr || sig == nullptr) return "op " + std::to_string(call.op) + " is not a composite op";
  const char* op = info->name;  // messages are built on failure only: valid calls do not allocate
  if (call.n_inputs != static_cast<size_t>(sig->n_inputs) ||
      call.n_outputs != static_cast<size_t>(sig->n_outputs))
    return std::string(op) + ": takes " + std::to_string(sig->n_inputs) + " inputs and " +
           std::to_string(sig->n_outputs) + " outputs (absent optional ones as NULL)";
  for (int k = 0; k < sig->n_inputs; ++k)
    if (call.inputs[k] == nullptr && !sig->inputs[k].optional)
      return std::string(op) + ": " + arg_text("inputs", static_cast<size_t>(k), sig->inputs[k]) +
             " is NULL but not optional";
  for (int k = 0; k < sig->n_outputs; ++k)
    if (call.outputs[k] == nullptr && !sig->outputs[k].optional)
      return std::string(op) + ": " + arg_text("outputs", static_cast<size_t>(k), sig->outputs[k]) +
             " is NULL but not optional";

  const devplug_dtype_t dispatch = call.inputs[0]->dtype;
  if ((info->dtypes & DEVPLUG_DTYPE_BIT(dispatch)) == 0)
    return std::string(op) + ": does not allow dtype " + devplug_dtype_name(dispatch) + " (inputs[0])";
  auto check_dtype = [&](const devplug_tensor_desc_t* t, const CompositeArg& arg, const char* group,
                         size_t k) -> std::string {
    if (t == nullptr) return "";
    const devplug_dtype_t want = expected_dtype(arg, dispatch);
    if (t->dtype == want || (arg.dtype == ArgDtype::Mask && t->dtype == DEVPLUG_DTYPE_BOOL)) return "";
    return std::string(op) + ": " + arg_text(group, k, arg) + " has dtype " + devplug_dtype_name(t->dtype) +
           ", expected " + devplug_dtype_name(want) + (arg.dtype == ArgDtype::Mask ? " or bool" : "");
  };
  for (int k = 0; k < sig->n_inputs; ++k) {
    std::string p = check_dtype(call.inputs[k], sig->inputs[k], "inputs", static_cast<size_t>(k));
    if (!p.empty()) return p;
  }
  for (int k = 0; k < sig->n_outputs; ++k) {
    std::string p = check_dtype(call.outputs[k], sig->outputs[k], "outputs", static_cast<size_t>(k));
    if (!p.empty()) return p;
  }

  CompositeShapes shapes;
  std::string p = composite_shapes(call.op, call.inputs, call.outputs, call.attrs, &shapes);
  if (!p.empty()) return std::string(op) + ": " + p;
  for (int k = 0; k < sig->n_outputs; ++k) {
    const devplug_tensor_desc_t* t = call.outputs[k];
    const OutputRule& rule = shapes.outputs[k];
    if (t == nullptr) {
      if (rule.presence == Presence::Required)
        return std::string(op) + ": " + arg_text("outputs", static_cast<size_t>(k), sig->outputs[k]) +
               " is NULL, but " + rule.why;
      continue;
    }
    if (rule.presence == Presence::Forbidden)
      return std::string(op) + ": " + arg_text("outputs", static_cast<size_t>(k), sig->outputs[k]) +
             " is given, but " + rule.why;
    bool same = t->rank == rule.dims.rank;
    for (int32_t d = 0; same && d < t->rank; ++d) same = t->shape[d] == rule.dims.d[d];
    if (!same)
      return std::string(op) + ": " + arg_text("outputs", static_cast<size_t>(k), sig->outputs[k]) +
             " has shape " + dims_text(t->rank, t->shape) + ", expected " +
             dims_text(rule.dims.rank, rule.dims.d);
  }
  return "";
}

}  // namespace devplug::sdk
