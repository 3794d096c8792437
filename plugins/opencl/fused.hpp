// SPDX-License-Identifier: Apache-2.0
// The fused_programs extension (plugin_api.h): a program of elementwise nodes becomes one
// generated OpenCL C kernel.
//
// The kernel is made of the same text as the unfused kernels: for each node, elementwise.cl
// with the node's OP_<name> and dtype defines and FUSED_NODE set, which defines a function
// that computes one element exactly as the unfused `ew` kernel does (the same macros, the same
// working type, the same rounding to the node's storage type). The kernel loads each input
// once, calls the nodes in order on storage values held in private memory and stores the
// outputs: a fused result equals the plugin's op-by-op result bit for bit, with no
// intermediate in device memory and one launch.
//
// A program's kernel text is built per launch shape: dense (every tensor contiguous: one offset
// each) or strided over the merged dims (strides and sizes as kernel arguments), with inputs
// broadcast from one element (0-dim scalars) passed as one offset; it is compiled at its first
// launch through the program cache under a name hashed from its text, so equal programs share
// one build in a process, and PoCL's own cache serves the next process.
//
// A launch whose arguments exceed the device's CL_DEVICE_MAX_PARAMETER_SIZE (1024 bytes on
// PoCL: about 48 dense tensors, or 24 strided over two dims) runs node by node through the
// plugin's own elementwise kernels instead, with the same results.
//
// A reduction tail (sum, mean, amax, amin, var over trailing dims) of floating values runs in
// the kernel too, in a variant per rank: one work-item per output row walks the row's elements
// in row-major order, computes the elementwise nodes there (storing the elementwise outputs),
// and accumulates each tail node as reduce.cl's reduce_serial does (double where the device
// has it; amax and amin with its NaN and signed-zero rules; var in two passes, the nodes
// computed again for the second). Its results are within a few units in the last place of the
// unfused reductions of the unfused values. A tail of integers, or one whose tensors could pass
// more argument bytes than the device takes (strides for every dim of every tensor), is
// declined at create (UNIMPLEMENTED), and the host runs the program op by op.
#pragma once

#include <cstddef>

#include "devplug/plugin_api.h"
#include "objects.hpp"

namespace devplug::opencl {

devplug_fused_program_handle_t* fused_program_create(devplug_device_handle_t* device,
                                                     const devplug_fused_program_desc_t& desc);
void fused_program_launch(devplug_stream_handle_t* stream, devplug_fused_program_handle_t* program,
                          const devplug_tensor_desc_t* const* inputs, size_t n_inputs,
                          const devplug_tensor_desc_t* const* outputs, size_t n_outputs);
void fused_program_destroy(devplug_fused_program_handle_t* program);

}  // namespace devplug::opencl
