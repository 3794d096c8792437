// SPDX-License-Identifier: Apache-2.0
// Host side of indexing (kernels/index.cl) and of the shape ops, which are strided copies:
// cat copies each input into its slice of the output, flip copies from a view with negated
// strides, constant_pad fills the output and copies the kept part of the input. Index kernels
// record a bad index value in the stream's status block (backend.hpp, index_status), which
// the plugin reports at the stream's next synchronize.
#include <algorithm>
#include <memory>

#include "devplug/sdk/strided.hpp"
#include "ops.hpp"
#include "launch.hpp"
#include "variants.hpp"

namespace devplug::clc {

namespace {

int32_t checked_dim(const devplug_op_call_t* call, int32_t rank) {
  const auto* attrs = static_cast<const devplug_dim_attrs_t*>(call->attrs);
  sdk::check_argument(attrs->dim >= 0 && attrs->dim < std::max(rank, 1), "dim out of range");
  return attrs->dim;
}

// index_select and gather.
devplug_error_t* take_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_info_t* info = devplug_op_info(call->op);
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& index = *call->inputs[1];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, in.dtype, info->name);
    sdk::check_argument(index.dtype == DEVPLUG_DTYPE_INT64, "index tensors are int64");
    const int32_t dim = checked_dim(call, in.rank);
    sdk::check_argument(in.rank > 0 && out.rank == in.rank, "indexing needs rank >= 1");
    View in_view = view_of(in);
    in_view.strides[dim] = 0;  // the kernel adds index * stride itself
    View index_view = view_of(index);
    if (call->op == DEVPLUG_OP_index_select) {
      sdk::check_argument(index.rank == 1, "index_select: index must be 1-D");
      const int64_t step = index.strides[0];
      for (int32_t d = 0; d < out.rank; ++d) index_view.strides[d] = d == dim ? step : 0;
    } else {
      sdk::check_argument(index.rank == out.rank, "gather: index must have the output's rank");
    }
    const View out_view = view_of(out);
    const Geometry g = make_geometry(out.rank, out.shape, {&out_view, &in_view, &index_view});
    if (g.numel == 0) return;
    Launch(stream, "index", index_defines(info->name, in.dtype, false), "take", info->name)
        .arg(g)
        .mem(out_view.mem)
        .mem(in_view.mem)
        .mem(index_view.mem)
        .arg<int64_t>(in.strides[dim])
        .arg<int64_t>(in.shape[dim])
        .mem(index_status(stream))
        .arg<int32_t>(call->op)
        .run1(static_cast<size_t>(g.numel));
  });
}

// scatter and scatter_add: out = input, then the updates, one work item per line along dim.
devplug_error_t* scatter_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_info_t* info = devplug_op_info(call->op);
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& index = *call->inputs[1];
    const devplug_tensor_desc_t& src = *call->inputs[2];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, in.dtype, info->name);
    sdk::check_argument(index.dtype == DEVPLUG_DTYPE_INT64, "index tensors are int64");
    const int32_t dim = checked_dim(call, in.rank);
    sdk::check_argument(in.rank > 0 && index.rank == in.rank && src.rank == in.rank, "scatter: ranks differ");
    const View in_view = view_of(in);
    const View out_view = view_of(out);
    run_copy(stream, in.dtype, out.rank, out.shape, out_view, in_view);
    int64_t line_shape[DEVPLUG_MAX_RANK];
    for (int32_t d = 0; d < index.rank; ++d) line_shape[d] = d == dim ? 1 : index.shape[d];
    const View src_view = view_of(src);
    const View index_view = view_of(index);
    if (sdk::numel(index) == 0) return;
    // 16-bit floats add into a float32 copy of the output and are rounded once at the end,
    // as they accumulate in float32 (several updates may hit one element).
    const bool widen = call->op == DEVPLUG_OP_scatter_add &&
                       (in.dtype == DEVPLUG_DTYPE_FLOAT16 || in.dtype == DEVPLUG_DTYPE_BFLOAT16);
    std::unique_ptr<ScratchBuffer> wide;
    View target = out_view;
    if (widen) {
      wide = std::make_unique<ScratchBuffer>(stream, static_cast<size_t>(sdk::numel(out)) * 4);
      target = View{};
      target.mem = wide->get();
      sdk::contiguous_strides(out.rank, out.shape, target.strides);
      run_elementwise(stream, "convert", in.dtype, in.dtype, in.dtype, DEVPLUG_DTYPE_FLOAT32, out.rank,
                      out.shape, target, {&out_view}, "scatter_add");
    }
    const Geometry lines = make_geometry(index.rank, line_shape, {&target, &src_view, &index_view});
    const std::string options = index_defines(info->name, in.dtype, widen);
    Launch(stream, "index", options, "scatter", info->name)
        .arg(lines)
        .mem(target.mem)
        .mem(src_view.mem)
        .mem(index_view.mem)
        .arg<int64_t>(index.shape[dim])
        .arg<int64_t>(target.strides[dim])
        .arg<int64_t>(src.strides[dim])
        .arg<int64_t>(index.strides[dim])
        .arg<int64_t>(out.shape[dim])
        .mem(index_status(stream))
        .arg<int32_t>(call->op)
        .run1(static_cast<size_t>(lines.numel), 64);
    if (widen)
      run_elementwise(stream, "convert", DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT32,
                      in.dtype, out.rank, out.shape, out_view, {&target}, "scatter_add");
  });
}

devplug_error_t* cat_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, out.dtype, "cat");
    const int32_t dim = checked_dim(call, out.rank);
    sdk::check_argument(out.rank > 0, "cat needs rank >= 1");
    const View out_view = view_of(out);
    int64_t at = 0;
    for (size_t i = 0; i < call->n_inputs; ++i) {
      const devplug_tensor_desc_t& in = *call->inputs[i];
      sdk::check_argument(in.rank == out.rank && in.dtype == out.dtype, "cat: inputs must match the output");
      sdk::check_argument(at + in.shape[dim] <= out.shape[dim], "cat: inputs overrun the output");
      View slice = out_view;
      slice.offset += at * out.strides[dim];
      run_copy(stream, out.dtype, in.rank, in.shape, slice, view_of(in));
      at += in.shape[dim];
    }
  });
}

devplug_error_t* flip_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, in.dtype, "flip");
    const auto* attrs = static_cast<const devplug_flip_attrs_t*>(call->attrs);
    View flipped = view_of(in);
    for (int32_t d = 0; d < in.rank; ++d) {
      if (((attrs->dims_mask >> d) & 1u) == 0 || in.shape[d] == 0) continue;
      flipped.offset += (in.shape[d] - 1) * in.strides[d];
      flipped.strides[d] = -in.strides[d];
    }
    run_copy(stream, in.dtype, out.rank, out.shape, view_of(out), flipped);
  });
}

devplug_error_t* pad_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, in.dtype, "constant_pad");
    const auto* attrs = static_cast<const devplug_pad_attrs_t*>(call->attrs);
    const View out_view = view_of(out);
    run_fill(stream, out.dtype, out.rank, out.shape, out_view, attrs->value);
    // The part of the input that survives cropping, and where it lands.
    View src = view_of(in);
    View dst = out_view;
    int64_t shape[DEVPLUG_MAX_RANK];
    for (int32_t d = 0; d < in.rank; ++d) {
      const int64_t before = attrs->before[d], after = attrs->after[d];
      const int64_t skip_in = before < 0 ? -before : 0;
      const int64_t skip_out = before > 0 ? before : 0;
      const int64_t crop_end = after < 0 ? -after : 0;
      shape[d] = std::max<int64_t>(0, in.shape[d] - skip_in - crop_end);
      src.offset += skip_in * in.strides[d];
      dst.offset += skip_out * out.strides[d];
    }
    run_copy(stream, in.dtype, in.rank, shape, dst, src);
  });
}

}  // namespace

void register_index_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes) {
  table.add_all({DEVPLUG_OP_index_select, DEVPLUG_OP_gather}, dtypes, 0, &take_kernel);
  table.add_all({DEVPLUG_OP_scatter, DEVPLUG_OP_scatter_add}, dtypes, 0, &scatter_kernel);
  table.add_all({DEVPLUG_OP_cat}, dtypes, 0, &cat_kernel);
  table.add_all({DEVPLUG_OP_flip}, dtypes, 0, &flip_kernel);
  table.add_all({DEVPLUG_OP_constant_pad}, dtypes, 0, &pad_kernel);
}

}  // namespace devplug::clc
