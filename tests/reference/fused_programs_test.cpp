// SPDX-License-Identifier: Apache-2.0
// Reference backend: the fused_programs extension. A fused program's outputs equal, byte for
// byte, the same ops run one kernel at a time (broadcast and strided operands, casts, a
// reduction tail, an output that is also an input), and launches the program cannot take are
// refused before anything is written.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "devplug/sdk/fused_program.hpp"
#include "harness.hpp"

namespace {

namespace rt = devplug::reftest;

constexpr devplug_dtype_t F32 = DEVPLUG_DTYPE_FLOAT32;
constexpr devplug_dtype_t F16 = DEVPLUG_DTYPE_FLOAT16;
constexpr devplug_dtype_t BOOL = DEVPLUG_DTYPE_BOOL;

const devplug_ext_fused_programs_t* fused() {
  const devplug_extension_t* e = devplug_extension_find(rt::api(), DEVPLUG_EXTENSION_FUSED_PROGRAMS);
  return reinterpret_cast<const devplug_ext_fused_programs_t*>(e);
}

// A program, made on the reference device and launched there.
struct Program : devplug::sdk::FusedProgram {
  devplug_fused_program_handle_t* handle = nullptr;

  void create() {
    const devplug_fused_program_desc_t d = desc();
    rt::check(fused()->fused_program_create(rt::device(), &d, &handle), "fused_program_create");
  }
  std::string launch(const std::vector<const rt::Tensor*>& ins, const std::vector<const rt::Tensor*>& outs) {
    std::vector<const devplug_tensor_desc_t*> in, out;
    for (const rt::Tensor* t : ins) in.push_back(&t->desc);
    for (const rt::Tensor* t : outs) out.push_back(&t->desc);
    const std::string error = rt::take_error(
        rt::api(),
        fused()->fused_program_launch(rt::stream(), handle, in.data(), in.size(), out.data(), out.size()));
    rt::check(rt::api()->stream_synchronize(rt::stream()), "stream_synchronize");
    return error;
  }
  ~Program() {
    if (handle != nullptr) {
      EXPECT_EQ(rt::take_error(rt::api(), fused()->fused_program_destroy(handle)), "");
    }
  }
};

rt::Tensor random_tensor(devplug_dtype_t dtype, const std::vector<int64_t>& shape, unsigned seed,
                         const std::vector<int64_t>& strides = {}) {
  rt::Tensor t = rt::make_tensor(dtype, shape, strides);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-3.0, 3.0);
  std::vector<double> values(static_cast<size_t>(t.numel()));
  for (double& v : values) v = dist(rng);
  rt::write_doubles(t, values);
  return t;
}

TEST(ReferenceFusedPrograms, TheExtensionIsOffered) { ASSERT_NE(fused(), nullptr); }

// where(x > y, x * y + x, y) and x > y, with x broadcast along dim 1 (stride 0), y transposed
// and the first output written through a transposed view.
TEST(ReferenceFusedPrograms, ElementwiseEqualsOpByOp) {
  ASSERT_NE(fused(), nullptr);
  Program p;
  p.inputs = {F32, F32};
  const auto prod = p.node(DEVPLUG_OP_mul, F32, {0, 1});
  const auto sum = p.node(DEVPLUG_OP_add, F32, {prod, 0});
  const auto gt = p.node(DEVPLUG_OP_gt, BOOL, {0, 1});
  const auto pick = p.node(DEVPLUG_OP_where, F32, {gt, sum, 1});
  p.outputs = {pick, gt};
  p.create();

  rt::Tensor x = random_tensor(F32, {4, 5}, 1, {1, 0});  // column vector broadcast over dim 1
  rt::Tensor y = random_tensor(F32, {4, 5}, 2, {1, 4});  // transposed storage
  rt::Tensor out = rt::make_tensor(F32, {4, 5}, {1, 4});
  rt::Tensor mask = rt::make_tensor(BOOL, {4, 5});
  ASSERT_EQ(p.launch({&x, &y}, {&out, &mask}), "");

  rt::Tensor t_prod = rt::make_tensor(F32, {4, 5}), t_sum = rt::make_tensor(F32, {4, 5});
  rt::Tensor t_gt = rt::make_tensor(BOOL, {4, 5}), t_pick = rt::make_tensor(F32, {4, 5});
  rt::run_ok(DEVPLUG_OP_mul, {&x, &y}, {&t_prod});
  rt::run_ok(DEVPLUG_OP_add, {&t_prod, &x}, {&t_sum});
  rt::run_ok(DEVPLUG_OP_gt, {&x, &y}, {&t_gt});
  rt::run_ok(DEVPLUG_OP_where, {&t_gt, &t_sum, &y}, {&t_pick});
  EXPECT_EQ(rt::read<float>(out), rt::read<float>(t_pick));
  EXPECT_EQ(rt::read<bool>(mask), rt::read<bool>(t_gt));
}

// layer_norm's statistics and a cast: x (float16) widened, centred by y, then the mean and
// the unbiased variance of the last dim; the centred values narrowed back to float16.
TEST(ReferenceFusedPrograms, CastsAndAReductionTailEqualOpByOp) {
  ASSERT_NE(fused(), nullptr);
  static const devplug_reduce_attrs_t last{sizeof(devplug_reduce_attrs_t), 0x2, 1.0};
  Program p;
  p.inputs = {F16, F32};
  const auto wide = p.node(DEVPLUG_OP_convert_element_type, F32, {0});
  const auto centred = p.node(DEVPLUG_OP_sub, F32, {wide, 1});
  const auto narrow = p.node(DEVPLUG_OP_convert_element_type, F16, {centred});
  const auto mean = p.node(DEVPLUG_OP_mean, F32, {centred}, &last);
  const auto var = p.node(DEVPLUG_OP_var, F32, {centred}, &last);
  p.outputs = {mean, var, narrow};
  p.create();

  rt::Tensor x = random_tensor(F16, {3, 7}, 3);
  rt::Tensor y = random_tensor(F32, {3, 7}, 4);
  rt::Tensor o_mean = rt::make_tensor(F32, {3, 1}), o_var = rt::make_tensor(F32, {3, 1});
  rt::Tensor o_narrow = rt::make_tensor(F16, {3, 7});
  ASSERT_EQ(p.launch({&x, &y}, {&o_mean, &o_var, &o_narrow}), "");

  rt::Tensor t_wide = rt::make_tensor(F32, {3, 7}), t_centred = rt::make_tensor(F32, {3, 7});
  rt::Tensor t_narrow = rt::make_tensor(F16, {3, 7});
  rt::Tensor t_mean = rt::make_tensor(F32, {3, 1}), t_var = rt::make_tensor(F32, {3, 1});
  rt::run_ok(DEVPLUG_OP_convert_element_type, {&x}, {&t_wide});
  rt::run_ok(DEVPLUG_OP_sub, {&t_wide, &y}, {&t_centred});
  rt::run_ok(DEVPLUG_OP_convert_element_type, {&t_centred}, {&t_narrow});
  rt::run_ok(DEVPLUG_OP_mean, {&t_centred}, {&t_mean}, &last);
  rt::run_ok(DEVPLUG_OP_var, {&t_centred}, {&t_var}, &last);
  EXPECT_EQ(rt::read_bytes(o_mean), rt::read_bytes(t_mean));
  EXPECT_EQ(rt::read_bytes(o_var), rt::read_bytes(t_var));
  EXPECT_EQ(rt::read_bytes(o_narrow), rt::read_bytes(t_narrow));
}

// x = x * x + x in place: every input element is read before the output (the same tensor) is
// written.
TEST(ReferenceFusedPrograms, AnOutputMayBeItsInput) {
  ASSERT_NE(fused(), nullptr);
  Program p;
  p.inputs = {F32};
  const auto sq = p.node(DEVPLUG_OP_mul, F32, {0, 0});
  p.outputs = {p.node(DEVPLUG_OP_add, F32, {sq, 0})};
  p.create();
  rt::Tensor x = rt::make_tensor(F32, {5});
  rt::write<float>(x, {1, 2, -3, 0.5f, 10});
  ASSERT_EQ(p.launch({&x}, {&x}), "");
  EXPECT_EQ(rt::read<float>(x), (std::vector<float>{2, 6, 6, 0.75f, 110}));
}

// Tensors the program does not take: INVALID_ARGUMENT naming what is wrong, and the outputs
// untouched.
TEST(ReferenceFusedPrograms, LaunchesItCannotTakeAreRefused) {
  ASSERT_NE(fused(), nullptr);
  static const devplug_reduce_attrs_t last{sizeof(devplug_reduce_attrs_t), 0x2, 0.0};
  Program p;
  p.inputs = {F32, F32};
  const auto sum = p.node(DEVPLUG_OP_add, F32, {0, 1});
  p.outputs = {sum, p.node(DEVPLUG_OP_sum, F32, {sum}, &last)};
  p.create();
  rt::Tensor a = random_tensor(F32, {2, 3}, 5), b = random_tensor(F32, {2, 3}, 6);
  rt::Tensor out = rt::make_tensor(F32, {2, 3}), total = rt::make_tensor(F32, {2, 1});
  const std::vector<unsigned char> before = rt::read_bytes(out);

  EXPECT_NE(p.launch({&a}, {&out, &total}).find("1 inputs and 2 outputs, the program takes 2 and 2"),
            std::string::npos);
  rt::Tensor wrong_dtype = random_tensor(DEVPLUG_DTYPE_FLOAT64, {2, 3}, 7);
  EXPECT_NE(p.launch({&a, &wrong_dtype}, {&out, &total}).find("input 1 has dtype 9, the program gives it 8"),
            std::string::npos);
  rt::Tensor wrong_shape = random_tensor(F32, {2, 4}, 8);
  EXPECT_NE(p.launch({&a, &wrong_shape}, {&out, &total}).find("input 1 has size 4 in dim 1"),
            std::string::npos);
  rt::Tensor wide_total = rt::make_tensor(F32, {2, 3});
  EXPECT_NE(
      p.launch({&a, &b}, {&out, &wide_total}).find("output 1 has size 3 in dim 1, the program gives it 1"),
      std::string::npos);
  rt::Tensor rank3 = random_tensor(F32, {2, 3, 1}, 9), rank3b = random_tensor(F32, {2, 3, 1}, 10);
  rt::Tensor out3 = rt::make_tensor(F32, {2, 3, 1}), total3 = rt::make_tensor(F32, {2, 1, 1});
  EXPECT_NE(p.launch({&rank3, &rank3b}, {&out3, &total3}).find("does not name trailing dims of rank 3"),
            std::string::npos);
  rt::Tensor outside = out;
  outside.desc.byte_offset = 8;  // the last element past the buffer's end
  EXPECT_NE(p.launch({&a, &b}, {&outside, &total}).find("output 0 reaches outside its buffer"),
            std::string::npos);
  EXPECT_EQ(rt::read_bytes(out), before);
}

TEST(ReferenceFusedPrograms, MalformedProgramsAreRefusedAtCreate) {
  ASSERT_NE(fused(), nullptr);
  Program p;
  p.inputs = {F32};
  p.node(DEVPLUG_OP_neg, F32, {1});  // reads its own result
  p.outputs = {1};
  const devplug_fused_program_desc_t desc = p.desc();
  devplug_fused_program_handle_t* handle = reinterpret_cast<devplug_fused_program_handle_t*>(uintptr_t{1});
  const std::string error =
      rt::take_error(rt::api(), fused()->fused_program_create(rt::device(), &desc, &handle));
  EXPECT_EQ(error,
            "INVALID_ARGUMENT: fused_program_create: fused program: node 0 (neg) reads value 1, not "
            "defined before it");
  EXPECT_EQ(handle, nullptr);  // the out-parameter is cleared
}

}  // namespace
