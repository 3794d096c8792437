// SPDX-License-Identifier: Apache-2.0
// Host side of the native composite kernels (kernels/composite.cl: softmax, log_softmax,
// layer_norm, rms_norm and scaled_dot_product_attention; kernels/composite_pointwise.cl:
// gelu, silu, sigmoid and their backward ops). Every other composite runs through the dispatcher's
// decomposition on this plugin's prims. A call a kernel does not cover (attention whose
// scores do not fit local memory) answers UNIMPLEMENTED, and the dispatcher decomposes it.
#include <algorithm>
#include <cmath>

#include "devplug/sdk/composite.hpp"
#include "devplug/sdk/strided.hpp"
#include "composite_kernels.hpp"
#include "launch.hpp"
#include "objects.hpp"
#include "ops.hpp"

namespace devplug::opencl {

namespace {

using clc::Geometry;
using clc::Launch;
using clc::make_geometry;
using clc::View;
using clc::view_of;

// The work-group size: 256, or the largest power of two the device allows.
size_t group_size(const devplug_device_handle_t& device) {
  size_t g = 256;
  while (g > device.info.max_work_group) g /= 2;
  return std::max<size_t>(g, 1);
}

// What every native composite kernel checks after the SDK's prologue (sdk::run_kernel): the
// composite's contract (shapes, dims) and a dtype the device's kernels run.
void check_contract(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  const std::string problem = sdk::check_composite(*call);
  if (!problem.empty()) sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, problem);
  clc::require_dtype(stream, call->inputs[0]->dtype, devplug_op_name(call->op));
}

// The module's defines (clc::Launch puts the device's in front).
std::string options_for(const devplug_device_handle_t&, devplug_dtype_t a, devplug_dtype_t o,
                        devplug_dtype_t b, devplug_dtype_t c, size_t group, const std::string& extra = "") {
  return "-DDTA=" + std::to_string(a) + " -DDTO=" + std::to_string(o) + " -DDTB=" + std::to_string(b) +
         " -DDTC=" + std::to_string(c) + " -DGROUP=" + std::to_string(group) + extra;
}

// A scalar argument in the kernels' compute type (double for float64, else float).
Launch& compute_arg(Launch& launch, devplug_dtype_t dtype, double value) {
  if (dtype == DEVPLUG_DTYPE_FLOAT64) return launch.arg<cl_double>(value);
  return launch.arg<cl_float>(static_cast<float>(value));
}

// ---- softmax, log_softmax ------------------------------------------------------------------

devplug_error_t* softmax_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<clc::KernelTraits>(stream, call, [&] {
    check_contract(stream, call);
    const devplug_tensor_desc_t &in = *call->inputs[0], &out = *call->outputs[0];
    if (sdk::numel(in) == 0) return;
    const int32_t dim = static_cast<const devplug_dim_attrs_t*>(call->attrs)->dim;
    const View in_view = view_of(in), out_view = view_of(out);
    int64_t line_shape[DEVPLUG_MAX_RANK];
    for (int32_t d = 0; d < in.rank; ++d) line_shape[d] = d == dim ? 1 : in.shape[d];
    const Geometry lines = make_geometry(in.rank, line_shape, {&out_view, &in_view});
    const size_t group = group_size(*stream->device);
    const std::string options = options_for(*stream->device, in.dtype, out.dtype, in.dtype, in.dtype, group);
    Launch(stream, "composite", options, "softmax_lines", devplug_op_name(call->op))
        .arg(lines)
        .mem(in_view.mem)
        .mem(out_view.mem)
        .arg<cl_long>(in.rank == 0 ? 1 : in.shape[dim])
        .arg<cl_long>(in.rank == 0 ? 0 : in.strides[dim])
        .arg<cl_long>(out.rank == 0 ? 0 : out.strides[dim])
        .arg<cl_int>(call->op == DEVPLUG_OP_log_softmax ? 1 : 0)
        .run1(static_cast<size_t>(lines.numel) * group, group);
  });
}

// ---- layer_norm, rms_norm ----------------------------------------------------------------------

devplug_error_t* norm_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<clc::KernelTraits>(stream, call, [&] {
    check_contract(stream, call);
    const bool rms = call->op == DEVPLUG_OP_rms_norm;
    const auto& a = *static_cast<const devplug_norm_attrs_t*>(call->attrs);
    const devplug_tensor_desc_t &in = *call->inputs[0], &out = *call->outputs[0];
    const devplug_tensor_desc_t* weight = call->inputs[1];
    const devplug_tensor_desc_t* bias = rms ? nullptr : call->inputs[2];
    const devplug_tensor_desc_t& rstd = *call->outputs[rms ? 1 : 2];
    const devplug_tensor_desc_t& mean = rms ? rstd : *call->outputs[1];
    const int32_t from = in.rank - a.normalized_rank;
    int64_t rows_shape[DEVPLUG_MAX_RANK], inner_shape[DEVPLUG_MAX_RANK];
    int64_t n = 1;
    for (int32_t d = 0; d < in.rank; ++d) {
      rows_shape[d] = d < from ? in.shape[d] : 1;
      inner_shape[d] = d < from ? 1 : in.shape[d];
      if (d >= from) n *= in.shape[d];
    }
    const View in_view = view_of(in), out_view = view_of(out), mean_view = view_of(mean),
               rstd_view = view_of(rstd);
    const Geometry rows = make_geometry(in.rank, rows_shape, {&out_view, &in_view, &mean_view, &rstd_view});
    if (rows.numel == 0) return;
    // The inner walk: the row's elements relative to its start; weight and bias from theirs.
    View out_rel = out_view, in_rel = in_view, w_view = out_view, b_view = out_view;
    out_rel.offset = 0;
    in_rel.offset = 0;
    if (weight != nullptr || bias != nullptr) {
      // Weight and bias have the trailing shape: their strides go where the row's dims are.
      for (int k = 0; k < 2; ++k) {
        const devplug_tensor_desc_t* t = k == 0 ? weight : bias;
        if (t == nullptr) continue;
        View v = view_of(*t);
        View& slot = k == 0 ? w_view : b_view;
        slot.mem = v.mem;
        slot.offset = v.offset;
        for (int32_t d = 0; d < in.rank; ++d) slot.strides[d] = d < from ? 0 : v.strides[d - from];
      }
    }
    const Geometry inner = make_geometry(in.rank, inner_shape, {&out_rel, &in_rel, &w_view, &b_view});
    const size_t group = group_size(*stream->device);
    Launch launch(stream, "composite",
                  options_for(*stream->device, in.dtype, out.dtype, rstd.dtype, in.dtype, group), "norm_rows",
                  devplug_op_name(call->op));
    launch.arg(rows)
        .arg(inner)
        .mem(in_view.mem)
        .mem(out_view.mem)
        .mem(weight != nullptr ? w_view.mem : out_view.mem)
        .mem(bias != nullptr ? b_view.mem : out_view.mem)
        .mem(mean_view.mem)
        .mem(rstd_view.mem)
        .arg<cl_long>(n);
    compute_arg(launch, in.dtype, a.eps)
        .arg<cl_int>(rms ? 1 : 0)
        .arg<cl_int>(weight != nullptr ? 1 : 0)
        .arg<cl_int>(bias != nullptr ? 1 : 0)
        .run1(static_cast<size_t>(rows.numel) * group, group);
  });
}

// ---- gelu, silu, sigmoid and their backward -----------------------------------------------------

const char* pointwise_token(const devplug_op_call_t& call) {
  const bool tanh_form =
      (call.op == DEVPLUG_OP_gelu || call.op == DEVPLUG_OP_gelu_backward) &&
      static_cast<const devplug_gelu_attrs_t*>(call.attrs)->approximate == DEVPLUG_GELU_TANH;
  switch (call.op) {
    case DEVPLUG_OP_gelu:
      return tanh_form ? "gelu_tanh" : "gelu";
    case DEVPLUG_OP_gelu_backward:
      return tanh_form ? "gelu_tanh_backward" : "gelu_backward";
    case DEVPLUG_OP_silu:
      return "silu";
    case DEVPLUG_OP_silu_backward:
      return "silu_backward";
    case DEVPLUG_OP_sigmoid:
      return "sigmoid";
    default:
      return "sigmoid_backward";
  }
}

devplug_error_t* pointwise_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<clc::KernelTraits>(stream, call, [&] {
    check_contract(stream, call);
    const bool backward = call->n_inputs == 2;
    const devplug_tensor_desc_t& out = *call->outputs[0];
    const devplug_tensor_desc_t& x = *call->inputs[backward ? 1 : 0];
    const View out_view = view_of(out), x_view = view_of(x);
    const View grad_view = backward ? view_of(*call->inputs[0]) : x_view;
    const Geometry g = make_geometry(out.rank, out.shape, {&out_view, &x_view, &grad_view, &out_view});
    if (g.numel == 0) return;
    const std::string options = options_for(*stream->device, x.dtype, out.dtype, x.dtype, x.dtype, 64,
                                            std::string(" -DOP_") + pointwise_token(*call));
    Launch(stream, "composite_pointwise", options, "pointwise", devplug_op_name(call->op))
        .arg(g)
        .mem(out_view.mem)
        .mem(x_view.mem)
        .mem(grad_view.mem)
        .run1(static_cast<size_t>(g.numel), 64);
  });
}

// ---- scaled_dot_product_attention -----------------------------------------------------------------

devplug_error_t* attention_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<clc::KernelTraits>(stream, call, [&] {
    check_contract(stream, call);
    const auto& a = *static_cast<const devplug_sdpa_attrs_t*>(call->attrs);
    const devplug_tensor_desc_t &q = *call->inputs[0], &k = *call->inputs[1], &v = *call->inputs[2];
    const devplug_tensor_desc_t* mask = call->inputs[3];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    const int32_t r = q.rank;
    const int64_t L = q.shape[r - 2], S = k.shape[r - 2], E = q.shape[r - 1], Ev = v.shape[r - 1];
    if (sdk::numel(out) == 0) return;
    const size_t group = group_size(*stream->device);
    const size_t element = q.dtype == DEVPLUG_DTYPE_FLOAT64 ? 8 : 4;
    // The scores of one query must fit local memory beside the reduction scratch.
    const uint64_t local_needed = static_cast<uint64_t>(std::max<int64_t>(S, 1)) * element + group * element;
    if (stream->device->info.local_memory != 0 && local_needed > stream->device->info.local_memory)
      sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, "scaled_dot_product_attention: " + std::to_string(S) +
                                                " keys do not fit local memory; decomposed instead");
    const View q_view = view_of(q), k_view = view_of(k), v_view = view_of(v), out_view = view_of(out);
    const View mask_view = mask != nullptr ? view_of(*mask) : out_view;
    const Geometry batch = make_geometry(r - 2, out.shape, {&out_view, &q_view, &k_view, &v_view});
    View mask_batch_view = mask_view;
    if (mask == nullptr)
      for (int32_t d = 0; d < r; ++d) mask_batch_view.strides[d] = 0;
    const Geometry mask_batch = make_geometry(r - 2, out.shape, {&mask_batch_view});
    const double scale = (a.flags & DEVPLUG_SDPA_SCALE) ? a.scale : 1.0 / std::sqrt(static_cast<double>(E));
    const devplug_dtype_t mask_dtype = mask != nullptr ? mask->dtype : q.dtype;
    Launch launch(stream, "composite",
                  options_for(*stream->device, q.dtype, out.dtype, q.dtype, mask_dtype, group),
                  "attention_rows", "scaled_dot_product_attention");
    launch.arg(batch)
        .arg(mask_batch)
        .mem(q_view.mem)
        .mem(k_view.mem)
        .mem(v_view.mem)
        .mem(mask_view.mem)
        .mem(out_view.mem)
        .arg<cl_long>(L)
        .arg<cl_long>(S)
        .arg<cl_long>(E)
        .arg<cl_long>(Ev)
        .arg<cl_long>(q.strides[r - 2])
        .arg<cl_long>(q.strides[r - 1])
        .arg<cl_long>(k.strides[r - 2])
        .arg<cl_long>(k.strides[r - 1])
        .arg<cl_long>(v.strides[r - 2])
        .arg<cl_long>(v.strides[r - 1])
        .arg<cl_long>(out.strides[r - 2])
        .arg<cl_long>(out.strides[r - 1])
        .arg<cl_long>(mask != nullptr ? mask->strides[r - 2] : 0)
        .arg<cl_long>(mask != nullptr ? mask->strides[r - 1] : 0);
    compute_arg(launch, q.dtype, scale)
        .arg<cl_int>(mask != nullptr ? 1 : 0)
        .arg<cl_int>(mask != nullptr && mask->dtype == DEVPLUG_DTYPE_BOOL ? 1 : 0)
        .arg<cl_int>((a.flags & DEVPLUG_SDPA_CAUSAL) ? 1 : 0)
        .local(static_cast<size_t>(std::max<int64_t>(S, 1)) * element)
        .run1(static_cast<size_t>(batch.numel * L) * group, group);
  });
}

}  // namespace

void register_composite_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes) {
  table.add_all({DEVPLUG_OP_softmax, DEVPLUG_OP_log_softmax}, dtypes, 0, &softmax_kernel);
  table.add_all({DEVPLUG_OP_layer_norm, DEVPLUG_OP_rms_norm}, dtypes, 0, &norm_kernel);
  table.add_all({DEVPLUG_OP_gelu, DEVPLUG_OP_silu, DEVPLUG_OP_sigmoid, DEVPLUG_OP_gelu_backward,
                 DEVPLUG_OP_silu_backward, DEVPLUG_OP_sigmoid_backward},
                dtypes, 0, &pointwise_kernel);
  table.add_all({DEVPLUG_OP_scaled_dot_product_attention}, dtypes, 0, &attention_kernel);
}

}  // namespace devplug::opencl
