// SPDX-License-Identifier: Apache-2.0
// Kernel registration for plugin authors: build the declared kernel table (`kernels`,
// `kernel_count` in devplug_plugin_api_t) from a list of (op, dtypes, flags, fn) rows.
//
//   static const devplug::sdk::KernelTable table = [] {
//     devplug::sdk::KernelTable t;
//     t.add(DEVPLUG_OP_exp, DEVPLUG_DTYPES_FLOAT, 0, &exp_kernel);
//     return t;
//   }();
//   api.kernels = table.data(); api.kernel_count = table.size();
//
// The table owns its rows; the pointers it hands out stay valid as long as it lives (make it
// static). Not thread-safe while rows are being added.
#pragma once

#include <deque>
#include <vector>

#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/error.hpp"

namespace devplug::sdk {

class KernelTable {
 public:
  // Adds a row. Throws std::logic_error when `op` is unknown, when `dtypes` holds a dtype
  // ops.def does not allow for `op`, or when an (op, dtype) pair is already registered:
  // such a table is a plugin bug caught at start-up.
  KernelTable& add(devplug_op_t op, devplug_dtype_mask_t dtypes, uint32_t flags, devplug_kernel_fn fn) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (info == nullptr) throw std::logic_error("KernelTable::add: unknown op id");
    if ((dtypes & ~info->dtypes) != 0)
      throw std::logic_error(std::string("KernelTable::add: dtype not allowed for ") + info->name);
    for (const devplug_kernel_t& row : rows_)
      if (row.op == op && (row.dtypes & dtypes) != 0)
        throw std::logic_error(std::string("KernelTable::add: duplicate kernel for ") + info->name);
    rows_.push_back(devplug_kernel_t{sizeof(devplug_kernel_t), op, dtypes, flags, fn});
    pointers_.push_back(&rows_.back());  // deque: earlier rows never move
    return *this;
  }

  // Adds one row per op in `ops`, each with the op's full dtype set from ops.def intersected
  // with `dtypes`; ops whose intersection is empty are skipped.
  KernelTable& add_all(const std::vector<devplug_op_t>& ops, devplug_dtype_mask_t dtypes, uint32_t flags,
                       devplug_kernel_fn fn) {
    for (devplug_op_t op : ops) {
      const devplug_op_info_t* info = devplug_op_info(op);
      if (info == nullptr) throw std::logic_error("KernelTable::add_all: unknown op id");
      const devplug_dtype_mask_t mask = info->dtypes & dtypes;
      if (mask != 0) add(op, mask, flags, fn);
    }
    return *this;
  }

  const devplug_kernel_t* const* data() const noexcept { return pointers_.data(); }
  size_t size() const noexcept { return pointers_.size(); }

 private:
  std::deque<devplug_kernel_t> rows_;
  std::vector<const devplug_kernel_t*> pointers_;
};

// Every op id of the op set, in table order.
inline const std::vector<devplug_op_t>& all_ops() {
  static const std::vector<devplug_op_t> ops = {
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary) id,
#include "devplug/ops.def"
  };
  return ops;
}

// Every op id of one category, in table order.
inline std::vector<devplug_op_t> ops_in_category(devplug_category_t category) {
  std::vector<devplug_op_t> ops;
  for (devplug_op_t op : all_ops())
    if (devplug_op_info(op)->category == category) ops.push_back(op);
  return ops;
}

// The dtype a call dispatches on (ops.def `result` column): input 1 for `select`, the
// output for `made`, input 0 otherwise.
inline devplug_dtype_t dispatch_dtype(const devplug_op_call_t& call) {
  const devplug_op_info_t* info = devplug_op_info(call.op);
  if (info == nullptr) fail(DEVPLUG_CODE_INVALID_ARGUMENT, "unknown op id");
  if (info->result == DEVPLUG_RESULT_select) {
    check_argument(call.n_inputs >= 2, "select op needs 3 inputs");
    return call.inputs[1]->dtype;
  }
  if (info->result == DEVPLUG_RESULT_made) {
    check_argument(call.n_outputs >= 1, "op needs an output");
    return call.outputs[0]->dtype;
  }
  check_argument(call.n_inputs >= 1, "op needs an input");
  return call.inputs[0]->dtype;
}

}  // namespace devplug::sdk
