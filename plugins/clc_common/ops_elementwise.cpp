// SPDX-License-Identifier: Apache-2.0
// Host side of the elementwise family (kernels/elementwise.cl, kernels/fill.cl): unary,
// binary, compare, where, convert_element_type, copy_strided, fill and iota.
#include <cstring>

#include "devplug/sdk/half.hpp"
#include "devplug/sdk/strided.hpp"
#include "ops.hpp"
#include "launch.hpp"
#include "variants.hpp"

namespace devplug::clc {

namespace {

// The raw bits of `value` in `dtype`, rounded once (to nearest even) by the host.
uint64_t scalar_bits(devplug_dtype_t dtype, const devplug_scalar_t& value) {
  switch (dtype) {
    case DEVPLUG_DTYPE_BOOL:
      return value.i != 0 ? 1 : 0;
    case DEVPLUG_DTYPE_FLOAT16:
      return sdk::double_to_half_bits(value.f);
    case DEVPLUG_DTYPE_BFLOAT16:
      return sdk::double_to_bfloat16_bits(value.f);
    case DEVPLUG_DTYPE_FLOAT32: {
      const float f = static_cast<float>(value.f);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      return bits;
    }
    case DEVPLUG_DTYPE_FLOAT64: {
      uint64_t bits;
      std::memcpy(&bits, &value.f, sizeof bits);
      return bits;
    }
    default:
      return static_cast<uint64_t>(value.i);  // integers wrap to their width on store
  }
}

}  // namespace

// The work-group size of an elementwise launch of `numel` elements. On a CPU device each
// group is one call of the group function PoCL generates, and at 256 work-items their cost
// shows: groups of 4096 took add float32 at 1M elements from 0.76-0.78 of the host loop to
// 0.94-0.95 on OpenCL (Level Zero's CPU driver 0.68 to 0.73-0.85), 16M from 0.86-0.87 to
// 0.98-1.01, bfloat16 from 0.82-1.08 to 1.06-1.15 (devplug-bench --plugin opencl --sizes
// 1M,16M,64M --only bandwidth, two runs each, AMD EPYC 2 cores). Small launches keep 256, so
// a tensor of a few elements is not rounded up to 4096 work-items, and GPUs keep it too.
size_t elementwise_group(devplug_stream_handle_t* stream, int64_t numel) {
  constexpr int64_t kLargeLaunch = int64_t{1} << 20;
  return caps_of(stream).cpu && numel >= kLargeLaunch ? 4096 : 256;
}

const char* elementwise_token(devplug_op_t op) {
  if (op == DEVPLUG_OP_convert_element_type) return "convert";
  if (op == DEVPLUG_OP_copy_strided) return "copy";
  return devplug_op_info(op)->name;
}

void run_elementwise(devplug_stream_handle_t* stream, const char* op_token, devplug_dtype_t dta,
                     devplug_dtype_t dtb, devplug_dtype_t dtc, devplug_dtype_t dto, int32_t rank,
                     const int64_t* shape, const View& out, const std::vector<const View*>& inputs,
                     const char* what) {
  std::vector<const View*> operands = {&out};
  for (const View* v : inputs) operands.push_back(v);
  while (operands.size() < kGeomOperands) operands.push_back(&out);  // unused slots
  const Geometry g = make_geometry(rank, shape, operands);
  if (g.numel == 0) return;
  const std::string options = elementwise_defines(op_token, dta, dtb, dtc, dto);
  Launch(stream, "elementwise", options, "ew", what)  // dense or strided: g.dense picks
      .arg(g)
      .mem(operands[0]->mem)
      .mem(operands[1]->mem)
      .mem(operands[2]->mem)
      .mem(operands[3]->mem)
      .run1(static_cast<size_t>(g.numel), elementwise_group(stream, g.numel));
}

void run_copy(devplug_stream_handle_t* stream, devplug_dtype_t dtype, int32_t rank, const int64_t* shape,
              const View& out, const View& in) {
  run_elementwise(stream, "copy", dtype, dtype, dtype, dtype, rank, shape, out, {&in}, "copy");
}

void run_fill(devplug_stream_handle_t* stream, devplug_dtype_t dtype, int32_t rank, const int64_t* shape,
              const View& out, const devplug_scalar_t& value) {
  const Geometry g = make_geometry(rank, shape, {&out});
  if (g.numel == 0) return;
  const std::string options = fill_defines(dtype);
  Launch(stream, "fill", options, "fill", "fill")
      .arg(g)
      .mem(out.mem)
      .arg<uint64_t>(scalar_bits(dtype, value))
      .run1(static_cast<size_t>(g.numel));
}

namespace {

devplug_error_t* elementwise_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_info_t* info = devplug_op_info(call->op);
    const devplug_tensor_desc_t& out = *call->outputs[0];
    for (size_t i = 0; i < call->n_inputs; ++i) require_dtype(stream, call->inputs[i]->dtype, info->name);
    require_dtype(stream, out.dtype, info->name);
    std::vector<View> views;
    for (size_t i = 0; i < call->n_inputs; ++i) views.push_back(view_of(*call->inputs[i]));
    std::vector<const View*> inputs;
    for (const View& v : views) inputs.push_back(&v);
    const View out_view = view_of(out);
    const devplug_dtype_t a = call->inputs[0]->dtype;
    const devplug_dtype_t b = call->n_inputs > 1 ? call->inputs[1]->dtype : a;
    const devplug_dtype_t c = call->n_inputs > 2 ? call->inputs[2]->dtype : b;
    run_elementwise(stream, elementwise_token(call->op), a, b, c, out.dtype, out.rank, out.shape, out_view,
                    inputs, info->name);
  });
}

devplug_error_t* fill_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, out.dtype, "fill");
    const auto* attrs = static_cast<const devplug_fill_attrs_t*>(call->attrs);
    run_fill(stream, out.dtype, out.rank, out.shape, view_of(out), attrs->value);
  });
}

devplug_error_t* iota_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, out.dtype, "iota");
    const auto* attrs = static_cast<const devplug_iota_attrs_t*>(call->attrs);
    const View view = view_of(out);
    const Geometry g = make_geometry(out.rank, out.shape, {&view});
    if (g.numel == 0) return;
    const std::string options = fill_defines(out.dtype);
    Launch launch(stream, "fill", options, "iota", "iota");
    launch.arg(g).mem(view.mem);
    if (caps_of(stream).fp64) {
      launch.arg<double>(attrs->start.f).arg<double>(attrs->step.f);
    } else {
      launch.arg<float>(static_cast<float>(attrs->start.f)).arg<float>(static_cast<float>(attrs->step.f));
    }
    launch.arg<int64_t>(attrs->start.i).arg<int64_t>(attrs->step.i).run1(static_cast<size_t>(g.numel));
  });
}

}  // namespace

void register_elementwise_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes) {
  for (devplug_category_t category :
       {DEVPLUG_CATEGORY_unary, DEVPLUG_CATEGORY_binary, DEVPLUG_CATEGORY_compare, DEVPLUG_CATEGORY_ternary})
    table.add_all(sdk::ops_in_category(category), dtypes, 0, &elementwise_kernel);
  table.add_all({DEVPLUG_OP_convert_element_type, DEVPLUG_OP_copy_strided}, dtypes, 0, &elementwise_kernel);
  table.add_all({DEVPLUG_OP_fill}, dtypes, 0, &fill_kernel);
  table.add_all({DEVPLUG_OP_iota}, dtypes, 0, &iota_kernel);
}

}  // namespace devplug::clc
