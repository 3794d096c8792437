// SPDX-License-Identifier: Apache-2.0
// The check kinds of plugin_api.def's rows, and the per-entry checks generated from them
// (plugin_checks.inc, by tools/abi_spec/gen_abi.py). make_plugin_api's shims (plugin.hpp) and
// every kernel's prologue (entry.hpp) run them before a plugin's own code, so each plugin
// answers bad input with the code the spec gives, in the spec's order.
//
// Each check throws sdk::Error with the code its row names (the caller's `code`) and a
// message that starts with the entry's name. The checks that read a handle ask Impl (the
// plugin's struct of static functions, plugin.hpp): `device_count`, `device_of` and
// `buffer_size`, where a plugin that can tell a stale handle from a live one says so.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/error.hpp"

namespace devplug::sdk::detail {

template <typename T>
void clear_out(T* out) noexcept {
  if (out != nullptr) *out = T{};
}

namespace checks {

[[noreturn]] inline void raise(devplug_code_t code, const char* entry, const std::string& what) {
  fail(code, std::string(entry) + ": " + what);
}

template <typename T>
void null(devplug_code_t code, const char* entry, const char* name, T* ptr) {
  if (ptr == nullptr) raise(code, entry, std::string(name) + " is NULL");
}

template <typename T>
void struct_size(devplug_code_t code, const char* entry, const char* name, const T* s, size_t min_size) {
  if (s->struct_size < min_size)
    raise(code, entry,
          std::string(name) + "->struct_size is " + std::to_string(s->struct_size) + ", at least " +
              std::to_string(min_size) + " expected");
}

template <typename Impl>
void abi_major(devplug_code_t code, const char* entry, const devplug_plugin_init_args_t* args) {
  if (args->host_abi_major != DEVPLUG_ABI_MAJOR)
    raise(code, entry,
          "host ABI " + std::to_string(args->host_abi_major) + "." + std::to_string(args->host_abi_minor) +
              " does not match plugin " + Impl::name() + "'s ABI " + std::to_string(DEVPLUG_ABI_MAJOR) + "." +
              std::to_string(DEVPLUG_ABI_MINOR));
}

template <typename Impl>
void device_index(devplug_code_t code, const char* entry, int32_t index) {
  const char* note = nullptr;
  const int32_t count = Impl::device_count(&note);
  if (index < 0 || index >= count)
    raise(code, entry,
          "device index " + std::to_string(index) + " is outside [0, " + std::to_string(count) + ")");
}

inline void nonzero(devplug_code_t code, const char* entry, const char* name, uint64_t value) {
  if (value == 0) raise(code, entry, std::string(name) + " is 0");
}

inline void aligned(devplug_code_t code, const char* entry, const char* name, const void* pointer,
                    uintptr_t alignment) {
  if (reinterpret_cast<uintptr_t>(pointer) % alignment != 0)
    raise(code, entry, std::string(name) + " is not aligned to " + std::to_string(alignment) + " bytes");
}

inline void below(devplug_code_t code, const char* entry, const char* name, uint64_t value,
                  const char* bound_name, uint64_t bound) {
  if (value >= bound)
    raise(code, entry,
          std::string(name) + " " + std::to_string(value) + " is not below " + bound_name + " " +
              std::to_string(bound));
}

inline void reduce_op(devplug_code_t code, const char* entry, const char* name, uint32_t op) {
  if (op < DEVPLUG_REDUCE_SUM || op >= DEVPLUG_REDUCE_OP_END)
    raise(code, entry, std::string(name) + " " + std::to_string(op) + " is not a devplug_reduce_op_t");
}

// A tensor a collective reads or writes whole: a known dtype, a rank in [0, DEVPLUG_MAX_RANK],
// no negative size, and row-major contiguous strides (a dim of size 1 may have any stride).
inline void dense(devplug_code_t code, const char* entry, const char* name, const devplug_tensor_desc_t* t) {
  const std::string what = std::string(name) + " ";
  if (t->struct_size < DEVPLUG_SIZE_THROUGH(devplug_tensor_desc_t, strides))
    raise(code, entry, what + "has a short struct_size");
  if (t->buffer == nullptr) raise(code, entry, what + "has no buffer");
  if (t->dtype < 0 || t->dtype >= DEVPLUG_DTYPE_COUNT)
    raise(code, entry, what + "has unknown dtype " + std::to_string(t->dtype));
  if (t->rank < 0 || t->rank > DEVPLUG_MAX_RANK)
    raise(code, entry, what + "has rank " + std::to_string(t->rank) + ", outside [0, 8]");
  int64_t expected = 1;
  for (int32_t d = t->rank - 1; d >= 0; --d) {
    if (t->shape[d] < 0) raise(code, entry, what + "has a negative size in dim " + std::to_string(d));
    if (t->shape[d] != 1 && t->strides[d] != expected)
      raise(code, entry,
            what + "is not contiguous (dim " + std::to_string(d) + " has stride " +
                std::to_string(t->strides[d]) + ", " + std::to_string(expected) + " expected)");
    expected *= t->shape[d];
  }
}

// The ops a fused program's nodes may be: elementwise prims, casts, and the reductions of
// its tail.
inline bool fused_elementwise_op(const devplug_op_info_t& info) {
  return info.category == DEVPLUG_CATEGORY_unary || info.category == DEVPLUG_CATEGORY_binary ||
         info.category == DEVPLUG_CATEGORY_compare || info.category == DEVPLUG_CATEGORY_ternary ||
         info.id == DEVPLUG_OP_convert_element_type;
}
inline bool fused_tail_op(devplug_op_t op) {
  return op == DEVPLUG_OP_sum || op == DEVPLUG_OP_amax || op == DEVPLUG_OP_amin || op == DEVPLUG_OP_var ||
         op == DEVPLUG_OP_mean;
}

// The structure of a fused program (devplug_fused_program_desc_t's comments): counts within
// the limits, every node a fusable op with its arity and attributes, operands numbered below
// the node (so no cycle), a reduction tail only at the end over one trailing dims_mask and
// reading no tail value, dtypes as ops.def's strict prims have them (one dispatch dtype the
// op allows, the result by its rule), outputs naming distinct node results. Whether the device
// claims the dtypes is the plugin's to check.
inline void fused_program(devplug_code_t code, const char* entry, const devplug_fused_program_desc_t* p) {
  auto bad = [&](const std::string& what) { raise(code, entry, "fused program: " + what); };
  if (p->n_inputs == 0 || p->n_inputs > DEVPLUG_FUSED_MAX_INPUTS)
    bad("n_inputs " + std::to_string(p->n_inputs) + " is outside [1, " +
        std::to_string(DEVPLUG_FUSED_MAX_INPUTS) + "]");
  if (p->n_nodes == 0 || p->n_nodes > DEVPLUG_FUSED_MAX_NODES)
    bad("n_nodes " + std::to_string(p->n_nodes) + " is outside [1, " +
        std::to_string(DEVPLUG_FUSED_MAX_NODES) + "]");
  if (p->n_outputs == 0 || p->n_outputs > DEVPLUG_FUSED_MAX_OUTPUTS)
    bad("n_outputs " + std::to_string(p->n_outputs) + " is outside [1, " +
        std::to_string(DEVPLUG_FUSED_MAX_OUTPUTS) + "]");
  if (p->input_dtypes == nullptr || p->nodes == nullptr || p->outputs == nullptr)
    bad("input_dtypes, nodes or outputs is NULL");
  for (uint32_t i = 0; i < p->n_inputs; ++i)
    if (p->input_dtypes[i] < 0 || p->input_dtypes[i] >= DEVPLUG_DTYPE_COUNT)
      bad("input " + std::to_string(i) + " has unknown dtype " + std::to_string(p->input_dtypes[i]));
  const uint32_t values = p->n_inputs + p->n_nodes;
  uint32_t tail_start = p->n_nodes;
  uint32_t tail_mask = 0;
  for (uint32_t k = 0; k < p->n_nodes; ++k) {
    const std::string node = "node " + std::to_string(k) + " ";
    if (p->nodes[k] == nullptr) bad(node + "is NULL");
    const devplug_fused_node_t& n = *p->nodes[k];
    if (n.struct_size < DEVPLUG_FUSED_NODE_MIN_SIZE) bad(node + "has a short struct_size");
    const devplug_op_info_t* info = devplug_op_info(n.op);
    if (info == nullptr) bad(node + "has unknown op " + std::to_string(n.op));
    const bool tail = fused_tail_op(n.op);
    if (!tail && !fused_elementwise_op(*info))
      bad(node + "is " + info->name + ", which a fused program cannot hold");
    if (!tail && tail_start < k) bad(node + "(" + info->name + ") follows the reduction tail");
    if (tail && tail_start > k) tail_start = k;
    if (n.dtype < 0 || n.dtype >= DEVPLUG_DTYPE_COUNT)
      bad(node + "has unknown dtype " + std::to_string(n.dtype));
    if (info->n_inputs < 1 || info->n_inputs > 3 || info->n_outputs != 1)
      bad(node + "is " + info->name + ", whose arity a fused node cannot hold");
    for (int32_t a = 0; a < info->n_inputs; ++a) {
      const uint32_t v = n.args[a];
      if (v >= p->n_inputs + k)
        bad(node + "(" + info->name + ") reads value " + std::to_string(v) + ", not defined before it");
      if (tail && v >= p->n_inputs + tail_start)
        bad(node + "(" + info->name + ") reads value " + std::to_string(v) + " of the reduction tail");
    }
    // Prims are strict (ops.def): the operands share the dispatch dtype, which the op allows,
    // and the result follows the op's rule.
    auto dtype_of = [&](uint32_t v) {
      return v < p->n_inputs ? p->input_dtypes[v] : p->nodes[v - p->n_inputs]->dtype;
    };
    const bool select = info->result == DEVPLUG_RESULT_select;
    const devplug_dtype_t dispatch = dtype_of(n.args[select ? 1 : 0]);
    if (select && dtype_of(n.args[0]) != DEVPLUG_DTYPE_BOOL)
      bad(node + "(" + info->name + ") has a condition that is not bool");
    for (int32_t a = select ? 1 : 0; a < info->n_inputs; ++a)
      if (dtype_of(n.args[a]) != dispatch)
        bad(node + "(" + info->name + ") has operands of different dtypes (the host casts first)");
    if (!(info->dtypes & DEVPLUG_DTYPE_BIT(dispatch)))
      bad(node + "(" + info->name + ") does not allow dtype " + std::to_string(dispatch));
    const devplug_dtype_t result = info->result == DEVPLUG_RESULT_bool    ? DEVPLUG_DTYPE_BOOL
                                   : info->result == DEVPLUG_RESULT_int64 ? DEVPLUG_DTYPE_INT64
                                   : info->result == DEVPLUG_RESULT_any   ? n.dtype
                                                                          : dispatch;
    if (n.dtype != result)
      bad(node + "(" + info->name + ") has dtype " + std::to_string(n.dtype) + ", its rule gives " +
          std::to_string(result));
    if (info->attrs_size != 0) {
      const auto* attrs = static_cast<const devplug_none_attrs_t*>(n.attrs);
      if (attrs == nullptr || attrs->struct_size < info->attrs_size)
        bad(node + "(" + info->name + ") has missing or short attributes");
    }
    if (tail) {
      const uint32_t mask = static_cast<const devplug_reduce_attrs_t*>(n.attrs)->dims_mask;
      if (mask == 0) bad(node + "(" + info->name + ") reduces no dim");
      if (k > tail_start && mask != tail_mask) bad(node + "reduces other dims than the tail's first node");
      tail_mask = mask;
      // Trailing dims are one run of bits (that it reaches the rank is checked at launch).
      uint32_t run = mask;
      while ((run & 1u) == 0) run >>= 1;
      if ((run & (run + 1)) != 0) bad(node + "(" + info->name + ") reduces dims that are not one run");
    }
  }
  for (uint32_t o = 0; o < p->n_outputs; ++o) {
    const uint32_t v = p->outputs[o];
    if (v < p->n_inputs || v >= values)
      bad("output " + std::to_string(o) + " names value " + std::to_string(v) + ", not a node's result");
    for (uint32_t e = 0; e < o; ++e)
      if (p->outputs[e] == v)
        bad("outputs " + std::to_string(e) + " and " + std::to_string(o) + " are one value");
  }
}

template <typename Impl, typename Handle, typename Other>
void same_device(devplug_code_t code, const char* entry, const char* name, Handle* handle,
                 const char* other_name, Other* other) {
  if (Impl::device_of(handle) != Impl::device_of(other))
    raise(code, entry, std::string(name) + " and " + other_name + " belong to different devices");
}

template <typename Impl>
void range(devplug_code_t code, const char* entry, const char* name, devplug_buffer_handle_t* buffer,
           uint64_t offset, uint64_t size) {
  const uint64_t buffer_size = Impl::buffer_size(buffer);
  if (offset > buffer_size || size > buffer_size - offset)
    raise(code, entry,
          std::string(name) + ": range [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " +
              std::to_string(size) + ") is outside the buffer of " + std::to_string(buffer_size) + " bytes");
}

inline void disjoint(devplug_code_t code, const char* entry, const devplug_buffer_handle_t* src,
                     uint64_t src_offset, const devplug_buffer_handle_t* dst, uint64_t dst_offset,
                     uint64_t size) {
  if (src == dst && src_offset < dst_offset + size && dst_offset < src_offset + size)
    raise(code, entry, "source and destination ranges overlap");
}

// ---- the kernel call (devplug_kernel_fn) ----

inline const devplug_op_info_t& call_info(const devplug_op_call_t* call) {
  const devplug_op_info_t* info = devplug_op_info(call->op);
  if (info == nullptr)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT,
         "call->op " + std::to_string(call->op) + " is not an op of this op set");
  return *info;
}

inline void call_known_op(devplug_code_t code, const devplug_op_call_t* call) {
  if (devplug_op_info(call->op) == nullptr)
    raise(code, "kernel", "call->op " + std::to_string(call->op) + " is not an op of this op set");
}

inline void call_arity(devplug_code_t code, const devplug_op_call_t* call) {
  const devplug_op_info_t& info = call_info(call);
  const bool variadic = info.n_inputs < 0;
  if (variadic ? call->n_inputs < 1 : call->n_inputs != static_cast<size_t>(info.n_inputs))
    raise(code, "kernel",
          std::string(info.name) + ": wrong number of inputs (" + std::to_string(call->n_inputs) + ")");
  if (call->n_outputs != static_cast<size_t>(info.n_outputs))
    raise(code, "kernel",
          std::string(info.name) + ": wrong number of outputs (" + std::to_string(call->n_outputs) + ")");
}

// Calls `fn(tensor, what)` for every tensor of the call that is present (a composite's absent
// optional tensors are NULL and skipped).
template <typename Fn>
void for_each_tensor(const devplug_op_call_t* call, Fn&& fn) {
  const devplug_op_info_t& info = call_info(call);
  auto optional = [](uint32_t mask, size_t i) { return i < 32 && ((mask >> i) & 1u) != 0; };
  for (size_t i = 0; i < call->n_inputs; ++i)
    if (call->inputs[i] != nullptr || !optional(info.optional_inputs, i)) fn(call->inputs[i], "input tensor");
  for (size_t i = 0; i < call->n_outputs; ++i)
    if (call->outputs[i] != nullptr || !optional(info.optional_outputs, i))
      fn(call->outputs[i], "output tensor");
}

inline void call_tensors(devplug_code_t code, const devplug_op_call_t* call) {
  if (call->n_inputs > 0 && call->inputs == nullptr) raise(code, "kernel", "call->inputs is NULL");
  if (call->outputs == nullptr) raise(code, "kernel", "call->outputs is NULL");
  for_each_tensor(call, [&](const devplug_tensor_desc_t* t, const char* what) {
    if (t == nullptr) raise(code, "kernel", std::string(what) + " is NULL");
    if (t->struct_size < DEVPLUG_SIZE_THROUGH(devplug_tensor_desc_t, strides))
      raise(code, "kernel", std::string(what) + "->struct_size is " + std::to_string(t->struct_size));
    if (t->buffer == nullptr) raise(code, "kernel", std::string(what) + " has a NULL buffer");
  });
}

inline void call_known_dtype(devplug_code_t code, const devplug_op_call_t* call) {
  for_each_tensor(call, [&](const devplug_tensor_desc_t* t, const char* what) {
    if (t->dtype < 0 || t->dtype >= DEVPLUG_DTYPE_COUNT)
      raise(code, "kernel", std::string(what) + " has an unknown dtype");
  });
}

inline void call_rank(devplug_code_t code, const devplug_op_call_t* call) {
  for_each_tensor(call, [&](const devplug_tensor_desc_t* t, const char* what) {
    if (t->rank < 0 || t->rank > DEVPLUG_MAX_RANK)
      raise(code, "kernel", std::string(what) + " has a rank outside [0, 8]");
  });
}

// attrs_size is the struct as of the op's first ABI minor; a later minor that appends
// attribute fields keeps this minimum.
inline void call_attrs_size(devplug_code_t code, const devplug_op_call_t* call) {
  const devplug_op_info_t& info = call_info(call);
  if (info.attrs_size == 0) return;
  const auto* attrs = static_cast<const devplug_none_attrs_t*>(call->attrs);
  if (attrs == nullptr) raise(code, "kernel", "call->attrs is NULL");
  if (attrs->struct_size < info.attrs_size)
    raise(code, "kernel",
          "call->attrs->struct_size is " + std::to_string(attrs->struct_size) + ", at least " +
              std::to_string(info.attrs_size) + " expected");
}

// The call's dispatch dtype (ops.def's `result` column) among the op's allowed dtypes.
inline void call_allowed_dtype(devplug_code_t code, const devplug_op_call_t* call) {
  const devplug_op_info_t& info = call_info(call);
  const devplug_tensor_desc_t* t = info.result == DEVPLUG_RESULT_select
                                       ? (call->n_inputs > 1 ? call->inputs[1] : nullptr)
                                   : info.result == DEVPLUG_RESULT_made ? call->outputs[0]
                                   : call->n_inputs > 0                 ? call->inputs[0]
                                                                        : call->outputs[0];
  if (t == nullptr) return;  // a composite's absent optional first tensor: check_composite's
  if ((info.dtypes & DEVPLUG_DTYPE_BIT(t->dtype)) == 0)
    raise(code, "kernel", std::string(info.name) + " does not allow dtype " + devplug_dtype_name(t->dtype));
}

// Every tensor's buffer on the stream's device (Impl::device_of).
template <typename Impl>
void call_on_device(devplug_code_t code, devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  devplug_device_handle_t* device = Impl::device_of(stream);
  for_each_tensor(call, [&](const devplug_tensor_desc_t* t, const char* what) {
    if (Impl::device_of(t->buffer) != device)
      raise(code, "kernel", std::string(what) + " lives on another device than the stream");
  });
}

// Every tensor's dtype among those the stream's device claims (Impl::claimed_dtypes).
template <typename Impl>
void call_claimed(devplug_code_t code, devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  const devplug_dtype_mask_t claimed = Impl::claimed_dtypes(stream);
  for_each_tensor(call, [&](const devplug_tensor_desc_t* t, const char* what) {
    if ((claimed & DEVPLUG_DTYPE_BIT(t->dtype)) == 0)
      raise(code, "kernel",
            std::string(what) + " has dtype " + devplug_dtype_name(t->dtype) +
                ", which this device does not run");
  });
}

// Every `kernel` row above at once, without messages: true when none of them applies. One
// pass over the call's tensors instead of one per row; run_kernel runs the rows one by one
// (the first that applies names the error) only when this returns false, so a call that
// breaks several rows still gets the error of the first. A traits function that throws (a
// stale handle) counts as a row that applies.
template <typename Impl>
bool kernel_call_holds(devplug_stream_handle_t* stream, const devplug_op_call_t* call) noexcept {
  if (stream == nullptr || call == nullptr || call->struct_size < DEVPLUG_OP_CALL_MIN_SIZE) return false;
  const devplug_op_info_t* info = devplug_op_info(call->op);
  if (info == nullptr) return false;
  if (info->n_inputs < 0 ? call->n_inputs < 1 : call->n_inputs != static_cast<size_t>(info->n_inputs))
    return false;
  if (call->n_outputs != static_cast<size_t>(info->n_outputs)) return false;
  if ((call->n_inputs > 0 && call->inputs == nullptr) || call->outputs == nullptr) return false;
  if (info->attrs_size != 0) {
    const auto* attrs = static_cast<const devplug_none_attrs_t*>(call->attrs);
    if (attrs == nullptr || attrs->struct_size < info->attrs_size) return false;
  }
  try {
    devplug_device_handle_t* device = Impl::device_of(stream);
    const devplug_dtype_mask_t claimed = Impl::claimed_dtypes(stream);
    auto holds = [&](const devplug_tensor_desc_t* t, uint32_t optional_mask, size_t i) {
      if (t == nullptr) return i < 32 && ((optional_mask >> i) & 1u) != 0;
      return t->struct_size >= DEVPLUG_SIZE_THROUGH(devplug_tensor_desc_t, strides) && t->buffer != nullptr &&
             t->dtype >= 0 && t->dtype < DEVPLUG_DTYPE_COUNT && t->rank >= 0 && t->rank <= DEVPLUG_MAX_RANK &&
             (claimed & DEVPLUG_DTYPE_BIT(t->dtype)) != 0 && Impl::device_of(t->buffer) == device;
    };
    for (size_t i = 0; i < call->n_inputs; ++i)
      if (!holds(call->inputs[i], info->optional_inputs, i)) return false;
    for (size_t i = 0; i < call->n_outputs; ++i)
      if (!holds(call->outputs[i], info->optional_outputs, i)) return false;
  } catch (...) {
    return false;
  }
  const devplug_tensor_desc_t* t = info->result == DEVPLUG_RESULT_select
                                       ? (call->n_inputs > 1 ? call->inputs[1] : nullptr)
                                   : info->result == DEVPLUG_RESULT_made ? call->outputs[0]
                                   : call->n_inputs > 0                  ? call->inputs[0]
                                                                         : call->outputs[0];
  return t == nullptr || (info->dtypes & DEVPLUG_DTYPE_BIT(t->dtype)) != 0;
}

}  // namespace checks

#include "devplug/sdk/plugin_checks.inc"

}  // namespace devplug::sdk::detail
