// SPDX-License-Identifier: Apache-2.0
// A fused program (plugin_api.h, the fused_programs extension) built in C++, for hosts that
// hand programs to devplug_fused_program_create and plugins that test theirs:
//
//   devplug::sdk::FusedProgram p;
//   p.inputs = {DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT32};           // values 0 and 1
//   auto sum = p.node(DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, {0, 1});    // value 2
//   p.outputs = {p.node(DEVPLUG_OP_exp, DEVPLUG_DTYPE_FLOAT32, {sum})};  // value 3
//   const devplug_fused_program_desc_t desc = p.desc();
//
// The fields stay public, so that a test may break a program on purpose. Inputs are declared
// before the first node (a node's value number counts the inputs).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "devplug/plugin_api.h"

namespace devplug::sdk {

struct FusedProgram {
  std::vector<devplug_dtype_t> inputs;
  std::vector<devplug_fused_node_t> nodes;
  std::vector<devplug_fused_value_t> outputs;
  // The node pointers desc() hands out (to `nodes`); a test may change them after desc().
  mutable std::vector<const devplug_fused_node_t*> pointers;

  // Appends a node and returns its value number.
  devplug_fused_value_t node(devplug_op_t op, devplug_dtype_t dtype,
                             std::initializer_list<devplug_fused_value_t> args, const void* attrs = nullptr) {
    devplug_fused_node_t n{sizeof n, op, dtype, {0, 0, 0}, attrs};
    size_t a = 0;
    for (devplug_fused_value_t v : args)
      if (a < 3) n.args[a++] = v;
    nodes.push_back(n);
    return static_cast<devplug_fused_value_t>(inputs.size() + nodes.size() - 1);
  }

  // The program's descriptor, pointing into this object: valid until it changes or goes.
  devplug_fused_program_desc_t desc() const {
    pointers.clear();
    for (const devplug_fused_node_t& n : nodes) pointers.push_back(&n);
    return {sizeof(devplug_fused_program_desc_t),
            static_cast<uint32_t>(inputs.size()),
            inputs.data(),
            static_cast<uint32_t>(nodes.size()),
            pointers.data(),
            static_cast<uint32_t>(outputs.size()),
            outputs.data()};
  }
};

}  // namespace devplug::sdk
