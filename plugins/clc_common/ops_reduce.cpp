// SPDX-License-Identifier: Apache-2.0
// Host side of reductions (kernels/reduce.cl) and scans (kernels/scan.cl).
#include <algorithm>
#include <optional>

#include "devplug/sdk/strided.hpp"
#include "ops.hpp"
#include "launch.hpp"
#include "variants.hpp"

namespace devplug::clc {

namespace {

constexpr size_t kGroup = kReduceGroup;
constexpr size_t kMaxAccumulatorBytes = 16;  // the largest acc_t in reduce.cl (argmax: a value and an index)

devplug_error_t* reduce_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_info_t* info = devplug_op_info(call->op);
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, in.dtype, info->name);
    sdk::check_argument(in.rank == out.rank, "reduction: output rank differs from the input's");
    const auto* attrs = static_cast<const devplug_reduce_attrs_t*>(call->attrs);
    const View in_view = view_of(in);
    const View out_view = view_of(out);
    // The reduced sub-space: the input's shape with kept dims set to 1, at offset 0.
    int64_t red_shape[DEVPLUG_MAX_RANK];
    for (int32_t d = 0; d < in.rank; ++d) {
      const bool reduced = (attrs->dims_mask >> d) & 1u;
      red_shape[d] = reduced ? in.shape[d] : 1;
      if (!reduced)
        sdk::check_argument(out.shape[d] == in.shape[d], "reduction: kept dims must match");
      else
        sdk::check_argument(out.shape[d] == 1, "reduction: reduced dims must have size 1 in the output");
    }
    View red_view = in_view;
    red_view.offset = 0;
    const Geometry kept = make_geometry(out.rank, out.shape, {&out_view, &in_view});
    const Geometry red = make_geometry(in.rank, red_shape, {&red_view});
    if (kept.numel == 0) return;
    const bool needs_elements = call->op == DEVPLUG_OP_amax || call->op == DEVPLUG_OP_amin ||
                                call->op == DEVPLUG_OP_argmax || call->op == DEVPLUG_OP_argmin;
    if (needs_elements && red.numel == 0)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(info->name) + ": empty reduction");
    const std::string options = reduce_defines(info->name, in.dtype, out.dtype);
    const bool fp64 = caps_of(stream).fp64;
    auto correction = [&](Launch& launch) -> Launch& {
      if (fp64) return launch.arg<double>(attrs->correction);
      return launch.arg<float>(static_cast<float>(attrs->correction));
    };
    const size_t outputs = static_cast<size_t>(kept.numel);
    const size_t length = static_cast<size_t>(red.numel);
    // var runs the strategy twice: pass 0 leaves each output's mean in `center`, pass 1
    // sums the squared deviations from it (ops.def's two-pass definition). Other ops get a
    // valid buffer they never read (the input) as `center`.
    const bool var = call->op == DEVPLUG_OP_var;
    const size_t real_bytes = fp64 ? sizeof(double) : sizeof(float);
    std::optional<ScratchBuffer> center;
    if (var) center.emplace(stream, outputs * real_bytes);
    const MemHandle center_mem = var ? center->get() : in_view.mem;
    const int passes = var ? 2 : 1;
    if (length <= 64 || outputs >= 4096 || caps_of(stream).max_work_group < kGroup) {
      for (int pass = 0; pass < passes; ++pass) {
        Launch launch(stream, "reduce", options, "reduce_serial", info->name);
        launch.arg(kept).arg(red).mem(in_view.mem).mem(out_view.mem);
        correction(launch).mem(center_mem).arg<int32_t>(pass).run1(outputs, 64);
      }
      return;
    }
    // Enough groups to keep the device busy, each with a sizeable chunk.
    const size_t want_groups = std::max<size_t>(1, 64 / outputs);
    const size_t groups = std::min(want_groups, (length + kGroup * 64 - 1) / (kGroup * 64));
    const size_t chunk = (length + groups - 1) / groups;
    const size_t global[2] = {groups * kGroup, outputs};
    const size_t local[2] = {kGroup, 1};
    ScratchBuffer partial(stream, outputs * groups * kMaxAccumulatorBytes);
    for (int pass = 0; pass < passes; ++pass) {
      {
        Launch launch(stream, "reduce", options, "reduce_partial", info->name);
        launch.arg(kept)
            .arg(red)
            .mem(in_view.mem)
            .mem(out_view.mem)
            .mem(partial.get())
            .arg<int64_t>(static_cast<int64_t>(chunk))
            .arg<int32_t>(groups == 1 ? 1 : 0);
        correction(launch)
            .mem(center_mem)
            .arg<int32_t>(pass)
            .arg<int32_t>(caps_of(stream).cpu ? 1 : 0)
            .run(2, global, local);
      }
      if (groups > 1) {
        const size_t combine_global[2] = {kGroup, outputs};
        Launch launch(stream, "reduce", options, "reduce_combine", info->name);
        launch.arg(kept).mem(partial.get()).arg<int64_t>(static_cast<int64_t>(groups)).mem(out_view.mem);
        correction(launch)
            .mem(center_mem)
            .arg<int32_t>(pass)
            .arg<int64_t>(static_cast<int64_t>(length))
            .run(2, combine_global, local);
      }
    }
  });
}

devplug_error_t* scan_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_info_t* info = devplug_op_info(call->op);
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, in.dtype, info->name);
    const auto* attrs = static_cast<const devplug_dim_attrs_t*>(call->attrs);
    const int32_t dim = attrs->dim;
    sdk::check_argument(in.rank == 0 ? dim == 0 : (dim >= 0 && dim < in.rank), "scan: dim out of range");
    const View in_view = view_of(in);
    const View out_view = view_of(out);
    int64_t line_shape[DEVPLUG_MAX_RANK];
    for (int32_t d = 0; d < out.rank; ++d) line_shape[d] = d == dim ? 1 : out.shape[d];
    const Geometry lines = make_geometry(out.rank, line_shape, {&out_view, &in_view});
    const int64_t n = in.rank == 0 ? 1 : in.shape[dim];
    if (lines.numel == 0 || n == 0) return;
    const std::string options = scan_defines(info->name, in.dtype, out.dtype);
    Launch(stream, "scan", options, "scan", info->name)
        .arg(lines)
        .mem(in_view.mem)
        .mem(out_view.mem)
        .arg<int64_t>(n)
        .arg<int64_t>(in.rank == 0 ? 0 : in.strides[dim])
        .arg<int64_t>(out.rank == 0 ? 0 : out.strides[dim])
        .run1(static_cast<size_t>(lines.numel), 64);
  });
}

}  // namespace

void register_reduce_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes) {
  table.add_all(sdk::ops_in_category(DEVPLUG_CATEGORY_reduce), dtypes, 0, &reduce_kernel);
  table.add_all(sdk::ops_in_category(DEVPLUG_CATEGORY_scan), dtypes, 0, &scan_kernel);
}

}  // namespace devplug::clc
