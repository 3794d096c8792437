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
// before the first node (a node's value number counts the inputs). FusedProgram::copy_of keeps
// a program a host or plugin was handed (the dispatcher's and the reference backend's).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/sdk/checks.hpp"

namespace devplug::sdk {

struct FusedProgram {
  std::vector<devplug_dtype_t> inputs;
  std::vector<devplug_fused_node_t> nodes;
  std::vector<devplug_fused_value_t> outputs;
  // The node pointers desc() hands out (to `nodes`); a test may change them after desc().
  mutable std::vector<const devplug_fused_node_t*> pointers;
  // The attribute structs copy_of copied; its nodes' `attrs` point into them (so a program
  // moves but does not copy).
  std::vector<std::unique_ptr<unsigned char[]>> attr_copies;

  // A copy of `desc`, which checks::fused_program has passed: each node as far as its
  // struct_size goes (struct_size then this header's), each attribute struct as ops.h
  // declares it, so that the copy outlives the caller's memory.
  static FusedProgram copy_of(const devplug_fused_program_desc_t& desc) {
    FusedProgram p;
    p.inputs.assign(desc.input_dtypes, desc.input_dtypes + desc.n_inputs);
    p.outputs.assign(desc.outputs, desc.outputs + desc.n_outputs);
    p.nodes.resize(desc.n_nodes);
    for (uint32_t k = 0; k < desc.n_nodes; ++k) {
      devplug_fused_node_t& n = p.nodes[k];
      std::memcpy(&n, desc.nodes[k], std::min(desc.nodes[k]->struct_size, sizeof n));
      n.struct_size = sizeof n;
      const size_t size = devplug_op_info(n.op)->attrs_size;
      if (size == 0) {
        n.attrs = nullptr;
        continue;
      }
      p.attr_copies.emplace_back(new unsigned char[size]);
      std::memcpy(p.attr_copies.back().get(), n.attrs, size);
      std::memcpy(p.attr_copies.back().get(), &size, sizeof size);  // the struct as copied
      n.attrs = p.attr_copies.back().get();
    }
    return p;
  }

  // The dtype of value `v` (an input or a node's result).
  devplug_dtype_t dtype_of(devplug_fused_value_t v) const {
    return v < inputs.size() ? inputs[v] : nodes[v - inputs.size()].dtype;
  }
  // The first node of the reduction tail, nodes.size() when there is none.
  uint32_t tail_start() const {
    uint32_t k = 0;
    while (k < nodes.size() && !detail::checks::fused_tail_op(nodes[k].op)) ++k;
    return k;
  }
  // The dims the tail reduces (0 without a tail).
  uint32_t tail_mask() const {
    const uint32_t k = tail_start();
    return k < nodes.size() ? static_cast<const devplug_reduce_attrs_t*>(nodes[k].attrs)->dims_mask : 0u;
  }
  // Whether a launch over inputs of rank `rank` can run the tail: none, or one whose dims
  // are trailing dims of that rank.
  bool tail_fits(int32_t rank) const {
    if (tail_start() == nodes.size()) return true;
    const uint32_t mask = tail_mask();
    const uint64_t all = rank >= 32 ? ~uint64_t{0} : (uint64_t{1} << rank) - 1;
    return rank > 0 && (mask & ~all) == 0 && ((mask >> (rank - 1)) & 1u) != 0;
  }

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
