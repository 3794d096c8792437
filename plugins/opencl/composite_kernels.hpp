// SPDX-License-Identifier: Apache-2.0
// The OpenCL plugin's native composite kernels (kernels_composite.cpp); the prims are the
// shared host code of plugins/clc_common.
#pragma once

#include "devplug/sdk/kernels.hpp"

namespace devplug::opencl {

void register_composite_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes);

}  // namespace devplug::opencl
