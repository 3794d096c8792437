// SPDX-License-Identifier: Apache-2.0
// The op families the shared GPU kernels implement, as host functions that enqueue one
// validated call on a stream, and the kernel table built from ops.def. Each family lives in
// one kernel file (k_*.cu) compiled by nvcc or hipcc.
#pragma once

#include "devplug/plugin_api.h"
#include "devplug/sdk/kernels.hpp"
#include "gpu_handles.hpp"

namespace devplug::gpu {

// What the SDK's kernel prologue asks of the handles (gpu_handles.hpp). Every kernel-table
// entry starts with sdk::run_kernel<KernelTraits>(stream, call, body) (devplug/sdk/kernel.hpp).
struct KernelTraits {
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) { return stream->device; }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) { return buffer->device; }
  // Every device claims every dtype (its properties' dtypes, device_get_claims): 16-bit floats
  // are stored as bits and computed in float32.
  static devplug_dtype_mask_t claimed_dtypes(devplug_stream_handle_t*) { return DEVPLUG_DTYPES_ALL; }
};

// Each run_* enqueues `call` (already checked by sdk::run_kernel) on `stream` or throws.
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
// The same as a kernel-table entry: runs run_matmul_tiled after sdk::run_kernel's checks.
devplug_error_t* matmul_tiled_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call);

// Copies every element of `src` into `dst` (same shape and dtype, any strides).
void copy_strided(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& src,
                  const devplug_tensor_desc_t& dst);
// Sets every element of `dst` to zero.
void fill_zero(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& dst);

// The kernel table: one row per ops.def op with its full dtype set; matmul runs `matmul`.
const sdk::KernelTable& kernel_table(devplug_kernel_fn matmul);

}  // namespace devplug::gpu
