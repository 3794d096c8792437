// SPDX-License-Identifier: Apache-2.0
// The SDK's checks of the fused_programs and collectives extensions (checks.hpp): every
// malformed program and tensor is refused with INVALID_ARGUMENT and a message naming what is
// wrong, and well-formed ones (a layer_norm-like program with a mean and var tail included)
// pass. make_plugin_api's shims run these before a plugin's body.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "devplug/plugin_api.h"
#include "devplug/sdk/checks.hpp"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/fused_program.hpp"

namespace checks = devplug::sdk::detail::checks;

namespace {

// The message of the INVALID_ARGUMENT `fn` throws, or "" when it throws nothing.
std::string refusal(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const devplug::sdk::Error& e) {
    EXPECT_EQ(e.code(), DEVPLUG_CODE_INVALID_ARGUMENT) << e.what();
    return e.what();
  }
  return "";
}

devplug_reduce_attrs_t reduce_attrs(uint32_t mask) { return {sizeof(devplug_reduce_attrs_t), mask, 0.0}; }

// A program under construction, checked as a desc.
struct Program : devplug::sdk::FusedProgram {
  std::string check() const {
    const devplug_fused_program_desc_t d = desc();
    return refusal([&] { checks::fused_program(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_create", &d); });
  }
};

constexpr devplug_dtype_t F32 = DEVPLUG_DTYPE_FLOAT32;

// x * 2 + y, relu'd through where(x > y, ., y): inputs x, y (float32).
Program elementwise() {
  Program p;
  p.inputs = {F32, F32};
  const auto sum = p.node(DEVPLUG_OP_add, F32, {0, 1});
  const auto gt = p.node(DEVPLUG_OP_gt, DEVPLUG_DTYPE_BOOL, {0, 1});
  const auto pick = p.node(DEVPLUG_OP_where, F32, {gt, sum, 1});
  p.outputs = {pick, gt};
  return p;
}

TEST(FusedProgramChecks, WellFormedProgramsPass) {
  EXPECT_EQ(elementwise().check(), "");
  // layer_norm's statistics: mean and var of x over the last dim, beside an elementwise output.
  static const devplug_reduce_attrs_t last = reduce_attrs(0x2);
  Program p;
  p.inputs = {F32};
  const auto sq = p.node(DEVPLUG_OP_mul, F32, {0, 0});
  const auto mean = p.node(DEVPLUG_OP_mean, F32, {0}, &last);
  const auto var = p.node(DEVPLUG_OP_var, F32, {0}, &last);
  p.outputs = {mean, var, sq};
  EXPECT_EQ(p.check(), "");
  // A cast to another dtype, and a tail over two trailing dims.
  static const devplug_reduce_attrs_t two = reduce_attrs(0x6);
  Program c;
  c.inputs = {DEVPLUG_DTYPE_FLOAT16};
  const auto wide = c.node(DEVPLUG_OP_convert_element_type, F32, {0});
  c.outputs = {c.node(DEVPLUG_OP_sum, F32, {wide}, &two)};
  EXPECT_EQ(c.check(), "");
}

TEST(FusedProgramChecks, CountsAndArraysAreChecked) {
  Program p = elementwise();
  p.outputs.clear();
  EXPECT_NE(p.check().find("n_outputs 0"), std::string::npos);
  p = elementwise();
  p.inputs.clear();
  EXPECT_NE(p.check().find("n_inputs 0"), std::string::npos);
  p = elementwise();
  p.nodes.clear();
  EXPECT_NE(p.check().find("n_nodes 0"), std::string::npos);
  p = elementwise();
  devplug_fused_program_desc_t d = p.desc();
  d.nodes = nullptr;
  EXPECT_NE(refusal([&] { checks::fused_program(DEVPLUG_CODE_INVALID_ARGUMENT, "f", &d); }).find("is NULL"),
            std::string::npos);
  d = p.desc();
  d.n_inputs = DEVPLUG_FUSED_MAX_INPUTS + 1;
  EXPECT_NE(
      refusal([&] { checks::fused_program(DEVPLUG_CODE_INVALID_ARGUMENT, "f", &d); }).find("n_inputs 33"),
      std::string::npos);
}

TEST(FusedProgramChecks, NodesAreChecked) {
  Program p = elementwise();
  p.nodes[0].op = 9999;
  EXPECT_NE(p.check().find("node 0 has unknown op 9999"), std::string::npos);
  p = elementwise();
  p.nodes[0].op = DEVPLUG_OP_matmul;
  EXPECT_NE(p.check().find("node 0 is matmul, which a fused program cannot hold"), std::string::npos);
  p = elementwise();
  p.nodes[1].args[1] = 3;  // its own result
  EXPECT_NE(p.check().find("node 1 (gt) reads value 3, not defined before it"), std::string::npos);
  p = elementwise();
  p.nodes[0].args[1] = 4;  // a later node's result: a cycle
  EXPECT_NE(p.check().find("node 0 (add) reads value 4"), std::string::npos);
  p = elementwise();
  p.nodes[0].dtype = DEVPLUG_DTYPE_FLOAT64;
  EXPECT_NE(p.check().find("node 0 (add) has dtype 9, its rule gives 8"), std::string::npos);
  p = elementwise();
  p.nodes[1].dtype = F32;  // a compare gives bool
  EXPECT_NE(p.check().find("node 1 (gt) has dtype 8, its rule gives 0"), std::string::npos);
  p = elementwise();
  p.inputs[1] = DEVPLUG_DTYPE_FLOAT64;
  EXPECT_NE(p.check().find("node 0 (add) has operands of different dtypes"), std::string::npos);
  p = elementwise();
  p.nodes[2].args[0] = 2;  // where's condition must be bool
  EXPECT_NE(p.check().find("node 2 (where) has a condition that is not bool"), std::string::npos);
  p = elementwise();
  p.inputs = {DEVPLUG_DTYPE_BOOL, DEVPLUG_DTYPE_BOOL};
  p.nodes.resize(1);
  p.nodes[0].op = DEVPLUG_OP_sub;  // sub does not allow bool
  p.nodes[0].dtype = DEVPLUG_DTYPE_BOOL;
  p.outputs = {2};
  EXPECT_NE(p.check().find("node 0 (sub) does not allow dtype 0"), std::string::npos);
  p = elementwise();
  p.nodes[0].dtype = 42;
  EXPECT_NE(p.check().find("node 0 has unknown dtype 42"), std::string::npos);
  p = elementwise();
  devplug_fused_program_desc_t with_null = p.desc();
  p.pointers[1] = nullptr;
  EXPECT_NE(refusal([&] {
              checks::fused_program(DEVPLUG_CODE_INVALID_ARGUMENT, "f", &with_null);
            }).find("node 1 is NULL"),
            std::string::npos);
  p = elementwise();
  p.nodes[0].struct_size = 8;
  EXPECT_NE(p.check().find("node 0 has a short struct_size"), std::string::npos);
}

TEST(FusedProgramChecks, TheReductionTailIsChecked) {
  static const devplug_reduce_attrs_t last = reduce_attrs(0x2);
  static const devplug_reduce_attrs_t other = reduce_attrs(0x1);
  static const devplug_reduce_attrs_t gap = reduce_attrs(0x5);
  static const devplug_reduce_attrs_t none = reduce_attrs(0);
  Program p;
  p.inputs = {F32};
  const auto s = p.node(DEVPLUG_OP_sum, F32, {0}, &last);
  p.node(DEVPLUG_OP_neg, F32, {0});
  p.outputs = {s};
  EXPECT_NE(p.check().find("node 1 (neg) follows the reduction tail"), std::string::npos);

  Program q;
  q.inputs = {F32};
  const auto m = q.node(DEVPLUG_OP_amax, F32, {0}, &last);
  q.outputs = {q.node(DEVPLUG_OP_amin, F32, {m}, &last)};
  EXPECT_NE(q.check().find("node 1 (amin) reads value 1 of the reduction tail"), std::string::npos);

  Program r;
  r.inputs = {F32};
  r.node(DEVPLUG_OP_sum, F32, {0}, &last);
  r.node(DEVPLUG_OP_amax, F32, {0}, &other);
  r.outputs = {1, 2};
  EXPECT_NE(r.check().find("node 1 reduces other dims than the tail's first node"), std::string::npos);

  Program g;
  g.inputs = {F32};
  g.outputs = {g.node(DEVPLUG_OP_sum, F32, {0}, &gap)};
  EXPECT_NE(g.check().find("node 0 (sum) reduces dims that are not one run"), std::string::npos);

  Program z;
  z.inputs = {F32};
  z.outputs = {z.node(DEVPLUG_OP_sum, F32, {0}, &none)};
  EXPECT_NE(z.check().find("node 0 (sum) reduces no dim"), std::string::npos);

  Program a;  // a reduction without its attributes
  a.inputs = {F32};
  a.outputs = {a.node(DEVPLUG_OP_sum, F32, {0})};
  EXPECT_NE(a.check().find("node 0 (sum) has missing or short attributes"), std::string::npos);
}

TEST(FusedProgramChecks, OutputsAreChecked) {
  Program p = elementwise();
  p.outputs = {0};  // an input
  EXPECT_NE(p.check().find("output 0 names value 0, not a node's result"), std::string::npos);
  p.outputs = {5};  // past the last node
  EXPECT_NE(p.check().find("output 0 names value 5"), std::string::npos);
  p.outputs = {4, 4};
  EXPECT_NE(p.check().find("outputs 0 and 1 are one value"), std::string::npos);
}

TEST(CollectiveChecks, TensorsMustBeDense) {
  devplug_buffer_handle_t* buffer = reinterpret_cast<devplug_buffer_handle_t*>(uintptr_t{64});
  devplug_tensor_desc_t t{};
  t.struct_size = sizeof t;
  t.buffer = buffer;
  t.dtype = F32;
  t.rank = 2;
  t.shape[0] = 3;
  t.shape[1] = 4;
  t.strides[0] = 4;
  t.strides[1] = 1;
  auto check = [&](const devplug_tensor_desc_t& x) {
    return refusal([&] { checks::dense(DEVPLUG_CODE_INVALID_ARGUMENT, "all_reduce", "send", &x); });
  };
  EXPECT_EQ(check(t), "");
  devplug_tensor_desc_t u = t;
  u.shape[0] = 1;
  u.strides[0] = 99;  // a dim of size 1 may have any stride
  EXPECT_EQ(check(u), "");
  u = t;
  u.strides[0] = 8;
  EXPECT_EQ(check(u), "all_reduce: send is not contiguous (dim 0 has stride 8, 4 expected)");
  u = t;
  u.dtype = -1;
  EXPECT_EQ(check(u), "all_reduce: send has unknown dtype -1");
  u = t;
  u.rank = 9;
  EXPECT_EQ(check(u), "all_reduce: send has rank 9, outside [0, 8]");
  u = t;
  u.buffer = nullptr;
  EXPECT_EQ(check(u), "all_reduce: send has no buffer");
  u = t;
  u.shape[1] = -1;
  EXPECT_EQ(check(u), "all_reduce: send has a negative size in dim 1");
  u = t;
  u.struct_size = 8;
  EXPECT_EQ(check(u), "all_reduce: send has a short struct_size");
}

TEST(CollectiveChecks, RanksAndReduceOps) {
  auto below = [](uint64_t v, uint64_t b) {
    return refusal(
        [&] { checks::below(DEVPLUG_CODE_INVALID_ARGUMENT, "comm_create", "rank", v, "world_size", b); });
  };
  EXPECT_EQ(below(0, 1), "");
  EXPECT_EQ(below(3, 4), "");
  EXPECT_EQ(below(4, 4), "comm_create: rank 4 is not below world_size 4");
  auto op = [](uint32_t o) {
    return refusal([&] { checks::reduce_op(DEVPLUG_CODE_INVALID_ARGUMENT, "all_reduce", "op", o); });
  };
  for (uint32_t o = DEVPLUG_REDUCE_SUM; o < DEVPLUG_REDUCE_OP_END; ++o) EXPECT_EQ(op(o), "") << o;
  EXPECT_EQ(op(0), "all_reduce: op 0 is not a devplug_reduce_op_t");
  EXPECT_EQ(op(DEVPLUG_REDUCE_OP_END), "all_reduce: op 9 is not a devplug_reduce_op_t");
}

}  // namespace
