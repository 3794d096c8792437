// SPDX-License-Identifier: Apache-2.0
// A deliberately broken plugin for proving that devplug-conform catches bugs. It opens a
// private copy of the reference backend (DEVPLUG_REFERENCE_COPY), forwards every entry
// point to it, and injects ONE bug chosen at build time with DEVPLUG_BUG_<NAME>:
//   STRIDES    add reads its inputs as if they were contiguous
//   NAN        maximum drops NaN (runs fmax instead)
//   SUM        sum skips the last element of the input's last dim when that dim is reduced
//   UNWRITTEN  exp leaves the last element of the output's last dim unwritten
//   ROUNDING   float64 -> float16/bfloat16 casts round twice, through float32
//   CRASH      neg dereferences NULL
//   ABI        buffer_allocate(0) succeeds
//   HANG       sqrt never returns
//   PARTIAL    not a bug: exp is not claimed at all (for unsupported and fallback reports)
// A copy of the reference is opened, not the reference itself, so that a context holding
// both keeps their states apart.
#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "devplug/plugin_api.h"

namespace {

const devplug_plugin_api_t* real = nullptr;
devplug_plugin_api_t table;
std::vector<devplug_kernel_t> rows;
std::vector<const devplug_kernel_t*> row_pointers;

[[maybe_unused]] devplug_kernel_fn original(devplug_op_t op) {
  for (size_t k = 0; k < real->kernel_count; ++k)
    if (real->kernels[k]->op == op) return real->kernels[k]->fn;
  return nullptr;
}

// Row-major strides of `t`'s shape.
[[maybe_unused]] void make_contiguous(devplug_tensor_desc_t* t) {
  int64_t step = 1;
  for (int32_t d = t->rank; d-- > 0;) {
    t->strides[d] = step;
    step *= t->shape[d] > 0 ? t->shape[d] : 1;
  }
}

[[maybe_unused]] int64_t numel(const devplug_tensor_desc_t& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.rank; ++d) n *= t.shape[d];
  return n;
}

#if defined(DEVPLUG_BUG_STRIDES)
const devplug_op_t kBuggyOp = DEVPLUG_OP_add;
devplug_error_t* buggy(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  if (call == nullptr || call->n_inputs != 2) return original(kBuggyOp)(stream, call);
  devplug_tensor_desc_t in[2] = {*call->inputs[0], *call->inputs[1]};
  for (devplug_tensor_desc_t& t : in) {
    // Only where the contiguous reading stays inside the buffer: a wrong answer, not a crash.
    uint64_t size = 0;
    devplug_error_t* e = real->buffer_get_size(t.buffer, &size);
    if (e) {
      real->error_destroy(e);
      continue;
    }
    const uint64_t need = t.byte_offset + static_cast<uint64_t>(numel(t)) * devplug_dtype_size(t.dtype);
    if (need <= size) make_contiguous(&t);
  }
  const devplug_tensor_desc_t* inputs[2] = {&in[0], &in[1]};
  devplug_op_call_t changed = *call;
  changed.inputs = inputs;
  return original(kBuggyOp)(stream, &changed);
}
#elif defined(DEVPLUG_BUG_NAN)
const devplug_op_t kBuggyOp = DEVPLUG_OP_maximum;
devplug_error_t* buggy(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  if (call == nullptr) return original(kBuggyOp)(stream, call);
  devplug_op_call_t changed = *call;
  changed.op = DEVPLUG_OP_fmax;
  return original(DEVPLUG_OP_fmax)(stream, &changed);
}
#elif defined(DEVPLUG_BUG_SUM)
const devplug_op_t kBuggyOp = DEVPLUG_OP_sum;
devplug_error_t* buggy(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  if (call == nullptr || call->n_inputs != 1 || call->attrs == nullptr)
    return original(kBuggyOp)(stream, call);
  devplug_tensor_desc_t in = *call->inputs[0];
  const auto* attrs = static_cast<const devplug_reduce_attrs_t*>(call->attrs);
  const int32_t last = in.rank - 1;
  if (last >= 0 && (attrs->dims_mask & (1u << last)) && in.shape[last] > 1) --in.shape[last];
  const devplug_tensor_desc_t* inputs[1] = {&in};
  devplug_op_call_t changed = *call;
  changed.inputs = inputs;
  return original(kBuggyOp)(stream, &changed);
}
#elif defined(DEVPLUG_BUG_UNWRITTEN)
const devplug_op_t kBuggyOp = DEVPLUG_OP_exp;
devplug_error_t* buggy(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  if (call == nullptr || call->n_inputs != 1 || call->n_outputs != 1) return original(kBuggyOp)(stream, call);
  devplug_tensor_desc_t in = *call->inputs[0], out = *call->outputs[0];
  const int32_t last = out.rank - 1;
  if (last >= 0 && out.shape[last] > 1) {
    --in.shape[last];
    --out.shape[last];
  }
  const devplug_tensor_desc_t* inputs[1] = {&in};
  const devplug_tensor_desc_t* outputs[1] = {&out};
  devplug_op_call_t changed = *call;
  changed.inputs = inputs;
  changed.outputs = outputs;
  return original(kBuggyOp)(stream, &changed);
}
#elif defined(DEVPLUG_BUG_ROUNDING)
const devplug_op_t kBuggyOp = DEVPLUG_OP_convert_element_type;
devplug_error_t* buggy(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  devplug_kernel_fn cast = original(kBuggyOp);
  if (call == nullptr || call->n_inputs != 1 || call->n_outputs != 1 ||
      call->inputs[0]->dtype != DEVPLUG_DTYPE_FLOAT64 ||
      (call->outputs[0]->dtype != DEVPLUG_DTYPE_FLOAT16 && call->outputs[0]->dtype != DEVPLUG_DTYPE_BFLOAT16))
    return cast(stream, call);
  // float64 -> float32 -> 16-bit: two roundings.
  devplug_tensor_desc_t mid = *call->outputs[0];
  mid.dtype = DEVPLUG_DTYPE_FLOAT32;
  mid.byte_offset = 0;
  make_contiguous(&mid);
  const int64_t n = numel(mid);
  if (n == 0) return cast(stream, call);
  // The device comes from nowhere here; the reference's buffers are host memory, so a
  // buffer made on device 0 serves.
  devplug_device_handle_t* device = nullptr;
  devplug_error_t* e = real->device_open(0, &device);
  if (e) return e;
  e = real->buffer_allocate(device, static_cast<uint64_t>(n) * 4, &mid.buffer);
  if (e) {
    real->device_close(device);
    return e;
  }
  const devplug_tensor_desc_t* first_in[1] = {call->inputs[0]};
  const devplug_tensor_desc_t* first_out[1] = {&mid};
  devplug_op_call_t first = *call;
  first.inputs = first_in;
  first.outputs = first_out;
  e = cast(stream, &first);
  if (e == nullptr) {
    const devplug_tensor_desc_t* second_in[1] = {&mid};
    devplug_op_call_t second = *call;
    second.inputs = second_in;
    e = cast(stream, &second);
  }
  if (devplug_error_t* s = real->stream_synchronize(stream)) real->error_destroy(s);
  if (devplug_error_t* r = real->buffer_release(mid.buffer)) real->error_destroy(r);
  if (devplug_error_t* c = real->device_close(device)) real->error_destroy(c);
  return e;
}
#elif defined(DEVPLUG_BUG_CRASH)
const devplug_op_t kBuggyOp = DEVPLUG_OP_neg;
devplug_error_t* buggy(devplug_stream_handle_t*, const devplug_op_call_t*) {
  volatile int* nowhere = nullptr;
  *nowhere = 1;
  return nullptr;
}
#elif defined(DEVPLUG_BUG_ABI)
const devplug_op_t kBuggyOp = DEVPLUG_OP_INVALID;
devplug_error_t* buggy(devplug_stream_handle_t*, const devplug_op_call_t*) { return nullptr; }
devplug_error_t* allocate_zero_too(devplug_device_handle_t* device, uint64_t size,
                                   devplug_buffer_handle_t** out) {
  return real->buffer_allocate(device, size == 0 ? 1 : size, out);
}
#elif defined(DEVPLUG_BUG_HANG)
const devplug_op_t kBuggyOp = DEVPLUG_OP_sqrt;
devplug_error_t* buggy(devplug_stream_handle_t*, const devplug_op_call_t*) {
  for (;;) pause();
}
#elif defined(DEVPLUG_BUG_PARTIAL)
const devplug_op_t kBuggyOp = DEVPLUG_OP_exp;
constexpr bool kDropRow = true;
devplug_error_t* buggy(devplug_stream_handle_t*, const devplug_op_call_t*) { return nullptr; }
#else
#error "define one DEVPLUG_BUG_<NAME>"
#endif

#if !defined(DEVPLUG_BUG_PARTIAL)
constexpr bool kDropRow = false;
#endif

const devplug_plugin_api_t* build_table() {
  void* handle = dlopen(DEVPLUG_REFERENCE_COPY, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  auto get = reinterpret_cast<devplug_plugin_get_api_fn>(dlsym(handle, DEVPLUG_PLUGIN_ENTRY_SYMBOL));
  real = get ? get() : nullptr;
  if (real == nullptr) return nullptr;
  std::memcpy(&table, real, sizeof table);
  table.struct_size = sizeof table;
  table.plugin_name = DEVPLUG_BROKEN_NAME;
  table.plugin_version = "broken";
#if defined(DEVPLUG_BUG_ABI)
  table.buffer_allocate = allocate_zero_too;
#endif
  rows.reserve(real->kernel_count);
  for (size_t k = 0; k < real->kernel_count; ++k) {
    devplug_kernel_t row = *real->kernels[k];
    if (row.op == kBuggyOp) {
      if (kDropRow) continue;
      row.fn = buggy;
    }
    rows.push_back(row);
  }
  for (const devplug_kernel_t& row : rows) row_pointers.push_back(&row);
  table.kernels = row_pointers.data();
  table.kernel_count = row_pointers.size();
  return &table;
}

}  // namespace

extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
  static const devplug_plugin_api_t* api = build_table();
  return api;
}
