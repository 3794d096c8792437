// SPDX-License-Identifier: Apache-2.0
// Host side of the Philox random ops (kernels/philox.cl).
#include "devplug/sdk/strided.hpp"
#include "ops.hpp"
#include "launch.hpp"
#include "variants.hpp"

namespace devplug::clc {

namespace {

devplug_error_t* philox_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_info_t* info = devplug_op_info(call->op);
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, out.dtype, info->name);
    const auto* attrs = static_cast<const devplug_philox_attrs_t*>(call->attrs);
    const View view = view_of(out);
    const Geometry g = make_geometry(out.rank, out.shape, {&view});
    if (g.numel == 0) return;
    const std::string options = philox_defines(info->name, out.dtype);
    Launch(stream, "philox", options, "philox", info->name)
        .arg(g)
        .mem(view.mem)
        .arg<uint64_t>(attrs->seed)
        .arg<uint64_t>(attrs->offset)
        .run1(static_cast<size_t>(g.numel));
  });
}

}  // namespace

void register_random_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes) {
  table.add_all(sdk::ops_in_category(DEVPLUG_CATEGORY_random), dtypes, 0, &philox_kernel);
}

}  // namespace devplug::clc
