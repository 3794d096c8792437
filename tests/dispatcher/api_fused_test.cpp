// SPDX-License-Identifier: Apache-2.0
// Fused programs through the host API (devplug_fused_program_*): on the reference plugin the
// plugin's extension runs them, on dispatcher-runtime's fixture plugin (no extension, few
// kernels) they run op by op with the CPU fallback, and while a stream captures they run op by
// op into the graph; every way gives the bytes of the nodes run one devplug_op_call at a time.
// Misuse gets INVALID_ARGUMENT naming what is wrong.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api_test_util.hpp"
#include "devplug/sdk/fused_program.hpp"

namespace devplug::test {
namespace {

constexpr devplug_dtype_t F32 = DEVPLUG_DTYPE_FLOAT32;
constexpr devplug_dtype_t BOOL = DEVPLUG_DTYPE_BOOL;

using Program = devplug::sdk::FusedProgram;

// where(x > y, x * y + x, y) and x > y.
Program select_program() {
  Program p;
  p.inputs = {F32, F32};
  const auto prod = p.node(DEVPLUG_OP_mul, F32, {0, 1});
  const auto sum = p.node(DEVPLUG_OP_add, F32, {prod, 0});
  const auto gt = p.node(DEVPLUG_OP_gt, BOOL, {0, 1});
  p.outputs = {p.node(DEVPLUG_OP_where, F32, {gt, sum, 1}), gt};
  return p;
}

class ApiFused : public ReferenceContext {
 protected:
  devplug_tensor_t* call(devplug_op_t op, std::vector<devplug_tensor_t*> in, devplug_dtype_t dtype,
                         std::vector<int64_t> shape, const void* attrs = nullptr) {
    devplug_tensor_t* out = make(dtype, shape);
    EXPECT_TRUE(Ok(devplug_op_call(stream_, op, in.data(), in.size(), &out, 1, attrs)));
    return out;
  }
  // x (3 x 1, broadcast to 3 x 4) and y (4 x 3, transposed): the program's operands.
  void operands(devplug_tensor_t** x, devplug_tensor_t** y) {
    devplug_tensor_t* column = floats({3, 1}, {0.5f, -2.0f, 3.0f});
    const int64_t shape[2] = {3, 4};
    ASSERT_TRUE(Ok(devplug_tensor_expand(column, 2, shape, x)));
    devplug_tensor_t* rows = floats({4, 3}, {1, -1, 2, 0.25f, 4, -3, 0, 1.5f, 2.5f, -0.5f, 3, 1});
    ASSERT_TRUE(Ok(devplug_tensor_transpose(rows, 0, 1, y)));
  }
  // The select program's results, one op at a time.
  void unfused(devplug_tensor_t* x, devplug_tensor_t* y, std::vector<float>* pick,
               std::vector<uint8_t>* mask) {
    devplug_tensor_t* prod = call(DEVPLUG_OP_mul, {x, y}, F32, {3, 4});
    devplug_tensor_t* sum = call(DEVPLUG_OP_add, {prod, x}, F32, {3, 4});
    devplug_tensor_t* gt = call(DEVPLUG_OP_gt, {x, y}, BOOL, {3, 4});
    *pick = download<float>(call(DEVPLUG_OP_where, {gt, sum, y}, F32, {3, 4}));
    *mask = download<uint8_t>(gt);
  }
};

TEST_F(ApiFused, ThePluginRunsItAsTheOpsWould) {
  const Program program = select_program();
  const devplug_fused_program_desc_t desc = program.desc();
  devplug_fused_program_t* p = nullptr;
  ASSERT_TRUE(Ok(devplug_fused_program_create(device_, &desc, &p)));
  bool native = false;
  const char* why = "untouched";
  ASSERT_TRUE(Ok(devplug_fused_program_is_native(p, &native, &why)));
  EXPECT_TRUE(native);
  EXPECT_EQ(why, nullptr);

  devplug_tensor_t *x = nullptr, *y = nullptr;
  operands(&x, &y);
  devplug_tensor_t* outs[2] = {make(F32, {3, 4}), make(BOOL, {3, 4})};
  devplug_tensor_t* ins[2] = {x, y};
  ASSERT_TRUE(Ok(devplug_fused_program_run(stream_, p, ins, 2, outs, 2)));
  std::vector<float> pick;
  std::vector<uint8_t> mask;
  unfused(x, y, &pick, &mask);
  EXPECT_EQ(download<float>(outs[0]), pick);
  EXPECT_EQ(download<uint8_t>(outs[1]), mask);
  EXPECT_TRUE(Ok(devplug_fused_program_destroy(p)));
}

// mean and unbiased var of x - y over the last dim, beside x - y itself.
TEST_F(ApiFused, AReductionTailGivesTheOpsResults) {
  static const devplug_reduce_attrs_t last{sizeof(devplug_reduce_attrs_t), 0x2, 1.0};
  Program program;
  program.inputs = {F32, F32};
  const auto diff = program.node(DEVPLUG_OP_sub, F32, {0, 1});
  program.outputs = {program.node(DEVPLUG_OP_mean, F32, {diff}, &last),
                     program.node(DEVPLUG_OP_var, F32, {diff}, &last), diff};
  const devplug_fused_program_desc_t desc = program.desc();
  devplug_fused_program_t* p = nullptr;
  ASSERT_TRUE(Ok(devplug_fused_program_create(device_, &desc, &p)));
  devplug_tensor_t* x = floats({2, 5}, {1, 2, 3, 4, 5, -1, 0.5f, 7, 2, 2});
  devplug_tensor_t* y = floats({2, 5}, {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 1, 1, 1, 1, 1});
  devplug_tensor_t* ins[2] = {x, y};
  devplug_tensor_t* outs[3] = {make(F32, {2, 1}), make(F32, {2, 1}), make(F32, {2, 5})};
  ASSERT_TRUE(Ok(devplug_fused_program_run(stream_, p, ins, 2, outs, 3)));
  devplug_tensor_t* d = call(DEVPLUG_OP_sub, {x, y}, F32, {2, 5});
  EXPECT_EQ(download<float>(outs[0]), download<float>(call(DEVPLUG_OP_mean, {d}, F32, {2, 1}, &last)));
  EXPECT_EQ(download<float>(outs[1]), download<float>(call(DEVPLUG_OP_var, {d}, F32, {2, 1}, &last)));
  EXPECT_EQ(download<float>(outs[2]), download<float>(d));
  EXPECT_TRUE(Ok(devplug_fused_program_destroy(p)));
}

// A captured run is recorded op by op; replaying the graph after changing an input gives the
// program's results for the new input.
TEST_F(ApiFused, ACapturedRunReplays) {
  Program program;
  program.inputs = {F32};
  const auto sq = program.node(DEVPLUG_OP_mul, F32, {0, 0});
  program.outputs = {program.node(DEVPLUG_OP_add, F32, {sq, 0})};
  const devplug_fused_program_desc_t desc = program.desc();
  devplug_fused_program_t* p = nullptr;
  ASSERT_TRUE(Ok(devplug_fused_program_create(device_, &desc, &p)));
  devplug_stream_t* s = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_create(device_, &s)));
  devplug_tensor_t* x = floats({3}, {1, 2, 3});
  devplug_tensor_t* out = make(F32, {3});
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(s)));
  ASSERT_TRUE(Ok(devplug_fused_program_run(s, p, &x, 1, &out, 1)));
  devplug_graph_t* graph = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_end_capture(s, &graph)));
  const std::vector<float> next = {-1, 0.5f, 10};
  ASSERT_TRUE(Ok(devplug_tensor_copy_from_host(s, x, next.data(), 12, DEVPLUG_COPY_BLOCKING)));
  ASSERT_TRUE(Ok(devplug_graph_launch(graph, s, nullptr)));
  ASSERT_TRUE(Ok(devplug_stream_synchronize(s)));
  EXPECT_EQ(download<float>(out), (std::vector<float>{0, 0.75f, 110}));
  EXPECT_TRUE(Ok(devplug_graph_destroy(graph)));
  EXPECT_TRUE(Ok(devplug_fused_program_destroy(p)));
  EXPECT_TRUE(Ok(devplug_stream_destroy(s)));
}

TEST_F(ApiFused, MisuseIsRefused) {
  const Program program = select_program();
  devplug_fused_program_desc_t desc = program.desc();
  devplug_fused_program_t* p = reinterpret_cast<devplug_fused_program_t*>(uintptr_t{8});
  EXPECT_TRUE(Invalid(devplug_fused_program_create(device_, &desc, nullptr), "out_program is NULL"));
  EXPECT_TRUE(Invalid(devplug_fused_program_create(device_, nullptr, &p), "desc is NULL"));
  EXPECT_EQ(p, nullptr);
  EXPECT_TRUE(Invalid(devplug_fused_program_create(nullptr, &desc, &p), "device is NULL"));
  desc.struct_size = 8;
  EXPECT_TRUE(Invalid(devplug_fused_program_create(device_, &desc, &p), "desc->struct_size is 8"));
  Program cyclic = select_program();
  cyclic.nodes[0].args[1] = 5;
  desc = cyclic.desc();
  EXPECT_TRUE(Invalid(devplug_fused_program_create(device_, &desc, &p), "node 0 (mul) reads value 5"));

  desc = program.desc();
  ASSERT_TRUE(Ok(devplug_fused_program_create(device_, &desc, &p)));
  devplug_tensor_t* a = floats({2}, {1, 2});
  devplug_tensor_t* b = floats({2}, {3, 4});
  devplug_tensor_t* ins[2] = {a, b};
  devplug_tensor_t* outs[2] = {make(F32, {2}), make(BOOL, {2})};
  EXPECT_TRUE(Invalid(devplug_fused_program_run(stream_, p, ins, 1, outs, 2),
                      "1 inputs and 2 outputs, the program takes 2 and 2"));
  EXPECT_TRUE(
      Invalid(devplug_fused_program_run(stream_, p, nullptr, 2, outs, 2), "inputs or outputs is NULL"));
  EXPECT_TRUE(Invalid(devplug_fused_program_run(reinterpret_cast<devplug_stream_t*>(a), p, ins, 2, outs, 2),
                      "stream is not a live stream handle"));
  devplug_tensor_t* not_live[2] = {a, reinterpret_cast<devplug_tensor_t*>(stream_)};
  EXPECT_TRUE(Invalid(devplug_fused_program_run(stream_, p, not_live, 2, outs, 2),
                      "inputs[1] is not a live tensor handle"));
  bool native = true;
  EXPECT_TRUE(Invalid(devplug_fused_program_is_native(p, nullptr, nullptr), "out_native is NULL"));
  EXPECT_TRUE(Ok(devplug_fused_program_is_native(p, &native, nullptr)));
  devplug_tensor_t* wide = make(DEVPLUG_DTYPE_FLOAT64, {2});
  devplug_tensor_t* wrong_dtype[2] = {a, wide};
  EXPECT_TRUE(Invalid(devplug_fused_program_run(stream_, p, wrong_dtype, 2, outs, 2),
                      "inputs[1] has dtype float64, the program gives it float32"));
  devplug_tensor_t* long_b = floats({3}, {1, 2, 3});
  devplug_tensor_t* wrong_shape[2] = {a, long_b};
  EXPECT_TRUE(Invalid(devplug_fused_program_run(stream_, p, wrong_shape, 2, outs, 2),
                      "inputs[1] has shape [3], the program gives it [2]"));
  devplug_tensor_t* twice[2] = {outs[0], outs[0]};
  EXPECT_TRUE(
      Invalid(devplug_fused_program_run(stream_, p, ins, 2, twice, 2), "outputs[1] has dtype float32"));
  // Outputs in one storage: disjoint views are fine, overlapping ones are refused.
  devplug_tensor_t* storage = make(F32, {4});
  devplug_tensor_t *first = nullptr, *disjoint = nullptr, *overlapping = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(storage, 0, 0, 2, 1, &first)));
  const int64_t two[1] = {2}, one[1] = {1};
  ASSERT_TRUE(Ok(devplug_tensor_as_strided_dtype(storage, BOOL, 1, two, one, 8, &disjoint)));
  ASSERT_TRUE(Ok(devplug_tensor_as_strided_dtype(storage, BOOL, 1, two, one, 4, &overlapping)));
  devplug_tensor_t* apart[2] = {first, disjoint};
  EXPECT_TRUE(Ok(devplug_fused_program_run(stream_, p, ins, 2, apart, 2)));
  devplug_tensor_t* shared[2] = {first, overlapping};
  EXPECT_TRUE(
      Invalid(devplug_fused_program_run(stream_, p, ins, 2, shared, 2), "outputs[1] may overlap outputs[0]"));
  EXPECT_TRUE(Ok(devplug_fused_program_destroy(p)));
  EXPECT_TRUE(
      Invalid(devplug_fused_program_run(stream_, p, ins, 2, outs, 2), "not a live fused program handle"));
  EXPECT_TRUE(Invalid(devplug_fused_program_destroy(p), "not a live fused program handle"));
}

// A reduction tail reduces trailing dims of the inputs' rank, checked at each run.
TEST_F(ApiFused, ATailMustReduceTrailingDims) {
  static const devplug_reduce_attrs_t middle{sizeof(devplug_reduce_attrs_t), 0x2, 0.0};
  Program program;
  program.inputs = {F32};
  program.outputs = {program.node(DEVPLUG_OP_sum, F32, {0}, &middle)};
  const devplug_fused_program_desc_t desc = program.desc();
  devplug_fused_program_t* p = nullptr;
  ASSERT_TRUE(Ok(devplug_fused_program_create(device_, &desc, &p)));
  devplug_tensor_t* x3 = floats({2, 3, 2}, std::vector<float>(12, 1.0f));
  devplug_tensor_t* s3 = make(F32, {2, 1, 2});
  EXPECT_TRUE(Invalid(devplug_fused_program_run(stream_, p, &x3, 1, &s3, 1),
                      "does not name trailing dims of the inputs' rank 3"));
  devplug_tensor_t* x2 = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  devplug_tensor_t* s2 = make(F32, {2, 1});
  ASSERT_TRUE(Ok(devplug_fused_program_run(stream_, p, &x2, 1, &s2, 1)));
  EXPECT_EQ(download<float>(s2), (std::vector<float>{6, 15}));
  EXPECT_TRUE(Ok(devplug_fused_program_destroy(p)));
}

// A program the context still holds at its destruction is freed with it (the fixture's
// TearDown destroys the context; ASan and LSan watch this test in the asan tree).
TEST_F(ApiFused, TheContextFreesAProgramLeftBehind) {
  const Program program = select_program();
  const devplug_fused_program_desc_t desc = program.desc();
  devplug_fused_program_t* p = nullptr;
  ASSERT_TRUE(Ok(devplug_fused_program_create(device_, &desc, &p)));
}

#ifdef DEVPLUG_FIXTURE_PLUGIN_PATH
// The fixture plugin offers no extension and few kernels: the program runs op by op, the
// nodes it lacks on the CPU fallback, with the reference plugin's results.
TEST_F(ApiFused, WithoutTheExtensionItRunsOpByOp) {
  devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY};
  devplug_context_t* context = nullptr;
  ASSERT_TRUE(Ok(devplug_context_create(&options, &context)));
  ASSERT_TRUE(Ok(devplug_context_load_plugin(context, DEVPLUG_FIXTURE_PLUGIN_PATH, nullptr)));
  ASSERT_TRUE(Ok(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN_PATH, nullptr)));
  devplug_device_t* fixture = nullptr;
  ASSERT_TRUE(Ok(devplug_context_get_device(context, 0, &fixture)));
  const Program program = select_program();
  const devplug_fused_program_desc_t desc = program.desc();
  devplug_fused_program_t* p = nullptr;
  ASSERT_TRUE(Ok(devplug_fused_program_create(fixture, &desc, &p)));
  bool native = true;
  const char* why = nullptr;
  ASSERT_TRUE(Ok(devplug_fused_program_is_native(p, &native, &why)));
  EXPECT_FALSE(native);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("offers no fused_programs extension"), std::string::npos) << why;

  auto upload = [&](const std::vector<float>& v) {
    devplug_tensor_t* t = nullptr;
    const int64_t shape[2] = {3, 4};
    EXPECT_TRUE(Ok(devplug_tensor_create(fixture, F32, 2, shape, &t)));
    EXPECT_TRUE(Ok(devplug_tensor_copy_from_host(nullptr, t, v.data(), v.size() * 4, DEVPLUG_COPY_BLOCKING)));
    return t;
  };
  const std::vector<float> xv = {0.5f, 0.5f, 0.5f, 0.5f, -2, -2, -2, -2, 3, 3, 3, 3};
  const std::vector<float> yv = {1, 0.25f, 0, -0.5f, -1, 4, 1.5f, 3, 2, -3, 2.5f, 1};
  devplug_tensor_t* ins[2] = {upload(xv), upload(yv)};
  devplug_tensor_t* outs[2] = {upload(std::vector<float>(12)), nullptr};
  const int64_t shape[2] = {3, 4};
  ASSERT_TRUE(Ok(devplug_tensor_create(fixture, BOOL, 2, shape, &outs[1])));
  ASSERT_TRUE(Ok(devplug_fused_program_run(nullptr, p, ins, 2, outs, 2)));
  std::vector<float> got(12);
  ASSERT_TRUE(Ok(devplug_tensor_copy_to_host(nullptr, outs[0], got.data(), 48)));
  std::vector<float> want(12);
  for (size_t i = 0; i < 12; ++i) want[i] = xv[i] > yv[i] ? xv[i] * yv[i] + xv[i] : yv[i];
  EXPECT_EQ(got, want);
  EXPECT_TRUE(Ok(devplug_fused_program_destroy(p)));
  devplug_context_destroy(context);
}
#endif

}  // namespace
}  // namespace devplug::test
