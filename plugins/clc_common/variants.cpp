// SPDX-License-Identifier: Apache-2.0
// The defines of every module variant, and the list of all of them generated from ops.def.
//
// all_variants() follows what ops_*.cpp launch for each op category; a launch whose module
// is missing from it fails in the level_zero plugin with a message naming the module (and
// the level_zero conformance runs, which reach every op and dtype, would fail).
#include "variants.hpp"

#include <set>
#include <utility>

#include "devplug/ops.h"
#include "devplug/sdk/kernels.hpp"

namespace devplug::clc {

namespace {

std::string dt(const char* slot, devplug_dtype_t d) {
  return std::string(" -D") + slot + "=" + std::to_string(d);
}

}  // namespace

std::string module_defines(const DeviceCaps& caps, const std::string& defines) {
  std::string out;
  if (caps.fp64) out += "-DHAS_FP64 ";
  // CPUs run double as fast as float per element; computing float transcendentals in double
  // and rounding once makes them correctly rounded in practice.
  if (caps.fp64 && caps.wide_math) out += "-DWIDE_MATH ";
  return out + defines;
}

std::string elementwise_defines(const char* op_token, devplug_dtype_t a, devplug_dtype_t b, devplug_dtype_t c,
                                devplug_dtype_t o) {
  return std::string("-DOP_") + op_token + dt("DTA", a) + dt("DTB", b) + dt("DTC", c) + dt("DTO", o);
}

std::string fill_defines(devplug_dtype_t dtype) {
  return (dt("DTA", dtype) + dt("DTB", dtype) + dt("DTC", dtype) + dt("DTO", dtype)).substr(1);
}

std::string reduce_defines(const char* op, devplug_dtype_t a, devplug_dtype_t o) {
  return std::string("-DOP_") + op + dt("DTA", a) + dt("DTO", o) + " -DGROUP=" + std::to_string(kReduceGroup);
}

std::string scan_defines(const char* op, devplug_dtype_t a, devplug_dtype_t o) {
  return std::string("-DOP_") + op + dt("DTA", a) + dt("DTO", o);
}

std::string index_defines(const char* op, devplug_dtype_t dtype, bool wide_target) {
  return std::string("-DOP_") + op + dt("DTA", dtype) + dt("DTO", dtype) +
         (wide_target ? " -DWIDE_TARGET" : "");
}

std::string matmul_defines(devplug_dtype_t a, devplug_dtype_t o) {
  return std::string("-DOP_matmul") + dt("DTA", a) + dt("DTO", o) + " -DTILE=" + std::to_string(kMatmulTile) +
         " -DWPT=" + std::to_string(kMatmulWorkPerThread);
}

std::string philox_defines(const char* op, devplug_dtype_t o) {
  return std::string("-DOP_") + op + dt("DTO", o);
}

std::vector<ModuleVariant> all_variants(const DeviceCaps& caps) {
  std::vector<ModuleVariant> out;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](const char* family, const std::string& defines) {
    ModuleVariant v{family, module_defines(caps, defines)};
    if (seen.insert({v.family, v.defines}).second) out.push_back(std::move(v));
  };
  auto usable = [&](devplug_dtype_t d) { return d != DEVPLUG_DTYPE_FLOAT64 || caps.fp64; };
  // The output dtype of an op dispatched on `d` (ops.def `result`); -1 for `any`.
  auto result_dtype = [](const devplug_op_info_t* info, devplug_dtype_t d) -> devplug_dtype_t {
    switch (info->result) {
      case DEVPLUG_RESULT_bool:
        return DEVPLUG_DTYPE_BOOL;
      case DEVPLUG_RESULT_int64:
        return DEVPLUG_DTYPE_INT64;
      case DEVPLUG_RESULT_any:
        return -1;
      default:
        return d;
    }
  };

  for (devplug_op_t op : sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      if ((info->dtypes & DEVPLUG_DTYPE_BIT(d)) == 0 || !usable(d)) continue;
      const devplug_dtype_t o = result_dtype(info, d);
      switch (info->category) {
        case DEVPLUG_CATEGORY_unary:
          add("elementwise", elementwise_defines(info->name, d, d, d, o));
          break;
        case DEVPLUG_CATEGORY_binary:
        case DEVPLUG_CATEGORY_compare:
          add("elementwise", elementwise_defines(info->name, d, d, d, o));
          break;
        case DEVPLUG_CATEGORY_ternary:  // where(cond: bool, a, b)
          add("elementwise", elementwise_defines(info->name, DEVPLUG_DTYPE_BOOL, d, d, o));
          break;
        case DEVPLUG_CATEGORY_data:
          if (op == DEVPLUG_OP_convert_element_type) {
            for (devplug_dtype_t to = 0; to < DEVPLUG_DTYPE_COUNT; ++to)
              if (usable(to)) add("elementwise", elementwise_defines("convert", d, d, d, to));
          } else if (op == DEVPLUG_OP_copy_strided) {
            add("elementwise", elementwise_defines("copy", d, d, d, d));
          } else {  // fill, iota
            add("fill", fill_defines(d));
          }
          break;
        case DEVPLUG_CATEGORY_reduce:
          add("reduce", reduce_defines(info->name, d, o));
          break;
        case DEVPLUG_CATEGORY_scan:
          add("scan", scan_defines(info->name, d, o));
          break;
        case DEVPLUG_CATEGORY_index: {
          add("index", index_defines(info->name, d, false));
          // scatter and scatter_add start from a copy of the input; scatter_add of 16-bit
          // floats adds into a float32 copy (converts both ways).
          if (op == DEVPLUG_OP_scatter || op == DEVPLUG_OP_scatter_add)
            add("elementwise", elementwise_defines("copy", d, d, d, d));
          const bool wide =
              op == DEVPLUG_OP_scatter_add && (d == DEVPLUG_DTYPE_FLOAT16 || d == DEVPLUG_DTYPE_BFLOAT16);
          if (wide) {
            add("index", index_defines(info->name, d, true));
            add("elementwise", elementwise_defines("convert", d, d, d, DEVPLUG_DTYPE_FLOAT32));
            add("elementwise", elementwise_defines("convert", DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT32,
                                                   DEVPLUG_DTYPE_FLOAT32, d));
          }
          break;
        }
        case DEVPLUG_CATEGORY_shape:  // strided copies; constant_pad fills first
          add("elementwise", elementwise_defines("copy", d, d, d, d));
          if (op == DEVPLUG_OP_constant_pad) add("fill", fill_defines(d));
          break;
        case DEVPLUG_CATEGORY_linalg:  // matmul; K = 0 fills with zeros
          add("matmul", matmul_defines(d, o));
          add("fill", fill_defines(o));
          break;
        case DEVPLUG_CATEGORY_random:
          add("philox", philox_defines(info->name, o));
          break;
        default:
          break;
      }
    }
  }
  return out;
}

}  // namespace devplug::clc
