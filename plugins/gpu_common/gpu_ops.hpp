// SPDX-License-Identifier: Apache-2.0
// The op families the shared GPU kernels implement, as host functions that enqueue one
// validated call on a stream, and the kernel table built from ops.def. Each family lives in
// one kernel file (k_*.cu) compiled by nvcc or hipcc.
#pragma once

#include "devplug/plugin_api.h"
#include "devplug/sdk/kernels.hpp"
#include "gpu_handles.hpp"

namespace devplug::gpu {

// Each run_* enqueues `call` (already checked by sdk::check_call) on `stream` or throws.
void run_unary(devplug_stream_handle_t* stream, const devplug_op_call_t& call);
void run_binary(devplug_stream_handle_t* stream, const devplug_op_call_t& call);
void run_compare(devplug_stream_handle_t* stream, const devplug_op_call_t& call);
void run_where(devplug_stream_handle_t* stream, const devplug_op_call_t& call);
void run_data(devplug_stream_handle_t* stream, const devplug_op_call_t& call);  // convert, copy, fill, iota
void run_random(devplug_stream_handle_t* stream, const devplug_op_call_t& call);
void run_reduce(devplug_stream_handle_t* stream, const devplug_op_call_t& call);
void run_scan(devplug_stream_handle_t* stream, const devplug_op_call_t& call);
void run_index(devplug_stream_handle_t* stream,
               const devplug_op_call_t& call);  // index_select, gather, scatter(_add)
void run_shape(devplug_stream_handle_t* stream, const devplug_op_call_t& call);  // cat, flip, constant_pad
// matmul by the portable tiled kernel (the HIP and emulated plugins' matmul).
void run_matmul_tiled(devplug_stream_handle_t* stream, const devplug_op_call_t& call);
// The same as a kernel-table entry: checks the call, runs run_matmul_tiled inside sdk::guard.
devplug_error_t* matmul_tiled_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call);

// Copies every element of `src` into `dst` (same shape and dtype, any strides).
void copy_strided(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& src,
                  const devplug_tensor_desc_t& dst);
// Sets every element of `dst` to zero.
void fill_zero(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& dst);

// The kernel table: one row per ops.def op with its full dtype set; matmul runs `matmul`.
const sdk::KernelTable& kernel_table(devplug_kernel_fn matmul);

}  // namespace devplug::gpu
