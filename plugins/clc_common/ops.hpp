// SPDX-License-Identifier: Apache-2.0
// The ops of the OpenCL C kernels' host side, registered per family into a plugin's declared
// kernel table, and the helpers the families share. Every function here runs on the
// plugin's backend (backend.hpp).
#pragma once

#include <vector>

#include "devplug/sdk/kernel.hpp"
#include "devplug/sdk/kernels.hpp"
#include "launch.hpp"

namespace devplug::clc {

// Every dtype the kernels cover. The table is static per plugin: a device that lacks
// float64 answers UNIMPLEMENTED for it at run time (and claims less per device).
constexpr devplug_dtype_mask_t kClaimedDtypes = DEVPLUG_DTYPES_ALL;

void register_elementwise_kernels(sdk::KernelTable& table,
                                  devplug_dtype_mask_t dtypes);  // ops_elementwise.cpp
void register_reduce_kernels(sdk::KernelTable& table,
                             devplug_dtype_mask_t dtypes);  // ops_reduce.cpp (reduce, scan)
void register_index_kernels(sdk::KernelTable& table,
                            devplug_dtype_mask_t dtypes);  // ops_index.cpp (index, shape)
void register_linalg_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes);  // ops_linalg.cpp
void register_random_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes);  // ops_random.cpp

// Registers every op above into `table`; a plugin adds its own kernels (native composites) beside.
void register_prim_kernels(sdk::KernelTable& table);
// The table of every op above, for a plugin that has no kernels of its own.
const sdk::KernelTable& kernel_table();

// What the SDK's kernel prologue asks of the plugin's handles (backend.hpp's hooks). Every
// kernel here and every native composite of the plugins starts with
// sdk::run_kernel<KernelTraits>(stream, call, body) (devplug/sdk/kernel.hpp).
struct KernelTraits {
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) {
    return clc::device_of(stream);
  }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) {
    return clc::device_of(buffer);
  }
  // What the device reports as devplug_device_properties_t.dtypes: every dtype, float64 only
  // with double support in kernels.
  static devplug_dtype_mask_t claimed_dtypes(devplug_stream_handle_t* stream) {
    return DEVPLUG_DTYPES_ALL & ~(caps_of(stream).fp64 ? 0u : DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64));
  }
};

// The work-group size of an elementwise launch of `numel` elements on `stream`'s device.
size_t elementwise_group(devplug_stream_handle_t* stream, int64_t numel);

// elementwise.cl's OP_<token> of devplug op `op` (unary, binary, compare, ternary,
// convert_element_type, copy_strided): the op's name, "convert" or "copy".
const char* elementwise_token(devplug_op_t op);

// Runs elementwise.cl's op `op_token` with operands (dta, dtb, dtc) -> dto over `shape`.
void run_elementwise(devplug_stream_handle_t* stream, const char* op_token, devplug_dtype_t dta,
                     devplug_dtype_t dtb, devplug_dtype_t dtc, devplug_dtype_t dto, int32_t rank,
                     const int64_t* shape, const View& out, const std::vector<const View*>& inputs,
                     const char* what);

// Copies `in` to `out`, both of `shape` and `dtype`, any strides.
void run_copy(devplug_stream_handle_t* stream, devplug_dtype_t dtype, int32_t rank, const int64_t* shape,
              const View& out, const View& in);

// Sets every element of `out` (of `shape`) to `value` rounded once to `dtype`.
void run_fill(devplug_stream_handle_t* stream, devplug_dtype_t dtype, int32_t rank, const int64_t* shape,
              const View& out, const devplug_scalar_t& value);

}  // namespace devplug::clc
