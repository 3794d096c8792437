// SPDX-License-Identifier: Apache-2.0
// Module variants: the -D defines that specialise an OpenCL C kernel family for one op and
// its dtypes, written once here and used both by the host code that launches kernels
// (ops_*.cpp) and by the build of the level_zero plugin, which compiles every variant to
// SPIR-V ahead of time (all_variants), so the two cannot disagree.
//
// A module is kernels/<family>.cl after common.cl, built with module_defines(caps, defines):
//   "-DHAS_FP64 -DWIDE_MATH -DOP_exp -DDTA=8 -DDTB=8 -DDTC=8 -DDTO=8"
#pragma once

#include <string>
#include <vector>

#include "backend.hpp"
#include "devplug/types.h"

namespace devplug::clc {

// The device's defines (HAS_FP64, WIDE_MATH) followed by the op's `defines`.
std::string module_defines(const DeviceCaps& caps, const std::string& defines);

// elementwise.cl: op token (an ops.def name, "convert" or "copy") with operand dtypes a, b, c
// and output dtype o.
std::string elementwise_defines(const char* op_token, devplug_dtype_t a, devplug_dtype_t b, devplug_dtype_t c,
                                devplug_dtype_t o);
// fill.cl (fill and iota) for output dtype `dtype`.
std::string fill_defines(devplug_dtype_t dtype);
// reduce.cl: reduction `op` of dtype `a` into dtype `o`, GROUP work items per group.
constexpr int kReduceGroup = 256;
std::string reduce_defines(const char* op, devplug_dtype_t a, devplug_dtype_t o);
// scan.cl
std::string scan_defines(const char* op, devplug_dtype_t a, devplug_dtype_t o);
// index.cl: index_select, gather, scatter, scatter_add; `wide_target` for scatter_add of
// 16-bit floats into a float32 copy of the output.
std::string index_defines(const char* op, devplug_dtype_t dtype, bool wide_target);
// matmul.cl, tiled TILE x TILE with WPT x WPT outputs per work item.
constexpr int kMatmulTile = 32;
constexpr int kMatmulWorkPerThread = 4;
std::string matmul_defines(devplug_dtype_t a, devplug_dtype_t o);
// philox.cl
std::string philox_defines(const char* op, devplug_dtype_t o);

// One module the host code may ask for.
struct ModuleVariant {
  std::string family;
  std::string defines;  // module_defines(caps, ...)
};

// Every module the ops of ops.def can ask for on a device with `caps`, without duplicates,
// in a stable order.
std::vector<ModuleVariant> all_variants(const DeviceCaps& caps);

}  // namespace devplug::clc
