// SPDX-License-Identifier: Apache-2.0
// Composite calls through the host API: optional tensors passed as NULL, the validation of
// composite calls (each problem answered with INVALID_ARGUMENT naming the tensor), native
// kernels preferred over decompositions and DEVPLUG_CONTEXT_DECOMPOSE overriding that (seen
// in the trace, where a decomposition's prims nest inside it), and the plugin's own kernel
// refusing a bad direct call without crashing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "devplug/devplug.hpp"

namespace {

struct Errors {
  std::string message;
  devplug_code_t code = DEVPLUG_CODE_OK;
};

Errors take(devplug_error_t* e) {
  Errors out;
  if (e == nullptr) return out;
  out.code = e->code;
  out.message = e->message ? e->message : "";
  devplug_error_destroy(e);
  return out;
}

class CompositeApi : public testing::Test {
 protected:
  void open(uint32_t flags = 0) {
    context_ = std::make_unique<devplug::Context>(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK |
                                                  flags);
    plugin_ = context_->load(DEVPLUG_REFERENCE_PLUGIN_PATH);
    device_ = context_->devices().at(0);
  }
  devplug::Tensor ramp(const std::vector<int64_t>& shape, float scale = 0.25f) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(static_cast<int64_t>(i % 7) - 3);
    return devplug::Tensor::from_host<float>(*device_, v, shape);
  }
  devplug::Tensor empty(const std::vector<int64_t>& shape, devplug_dtype_t d = DEVPLUG_DTYPE_FLOAT32) {
    return devplug::Tensor::empty(*device_, d, shape);
  }
  Errors call(devplug_op_t op, std::vector<devplug_tensor_t*> in, std::vector<devplug_tensor_t*> out,
              const void* attrs) {
    return take(devplug_op_call(nullptr, op, in.data(), in.size(), out.data(), out.size(), attrs));
  }

  std::unique_ptr<devplug::Context> context_;
  std::optional<devplug::Plugin> plugin_;
  std::optional<devplug::Device> device_;
};

TEST_F(CompositeApi, OptionalInputsAndOutputsArePassedAsNull) {
  open();
  devplug::Tensor x = ramp({4, 8}), out = empty({4, 8}), mean = empty({4, 1}), rstd = empty({4, 1});
  const devplug_norm_attrs_t a{sizeof(a), 1, 1e-5};
  Errors e = call(DEVPLUG_OP_layer_norm, {x.handle(), nullptr, nullptr},
                  {out.handle(), mean.handle(), rstd.handle()}, &a);
  ASSERT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
  // Row 0 is 0.25 * (-3 .. 3, -3): its mean is the mean of those values.
  const std::vector<float> m = mean.to_host<float>();
  EXPECT_NEAR(m[0], 0.25 * (-3 - 2 - 1 + 0 + 1 + 2 + 3 - 3) / 8.0, 1e-6);
  // The backward asked for grad_weight alone: grad_input and grad_bias are NULL.
  devplug::Tensor gw = empty({8});
  e = call(DEVPLUG_OP_layer_norm_backward, {x.handle(), x.handle(), mean.handle(), rstd.handle(), nullptr},
           {nullptr, gw.handle(), nullptr}, &a);
  EXPECT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
}

TEST_F(CompositeApi, ValidationNamesTheTensorAtFault) {
  open();
  devplug::Tensor x = ramp({4, 8}), out = empty({4, 8}), mean = empty({4, 1}), rstd = empty({4, 1});
  devplug::Tensor bad_weight = ramp({7});
  const devplug_norm_attrs_t a{sizeof(a), 1, 1e-5};
  Errors e = call(DEVPLUG_OP_layer_norm, {nullptr, nullptr, nullptr},
                  {out.handle(), mean.handle(), rstd.handle()}, &a);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(e.message.find("inputs[0]"), std::string::npos) << e.message;
  e = call(DEVPLUG_OP_layer_norm, {x.handle(), bad_weight.handle(), nullptr},
           {out.handle(), mean.handle(), rstd.handle()}, &a);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(e.message.find("weight"), std::string::npos) << e.message;
  e = call(DEVPLUG_OP_layer_norm, {x.handle(), nullptr, nullptr}, {out.handle(), nullptr, rstd.handle()}, &a);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(e.message.find("mean"), std::string::npos) << e.message;
  const devplug_norm_attrs_t too_deep{sizeof(a), 3, 1e-5};
  e = call(DEVPLUG_OP_layer_norm, {x.handle(), nullptr, nullptr},
           {out.handle(), mean.handle(), rstd.handle()}, &too_deep);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(e.message.find("normalized_rank"), std::string::npos) << e.message;
  // A 16-bit input's statistics are float32 (:acc): float16 mean and rstd are refused.
  devplug::Tensor h = empty({4, 8}, DEVPLUG_DTYPE_FLOAT16), hmean = empty({4, 1}, DEVPLUG_DTYPE_FLOAT16);
  e = call(DEVPLUG_OP_layer_norm, {h.handle(), nullptr, nullptr},
           {h.handle(), hmean.handle(), hmean.handle()}, &a);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT);
  // Attention with both a mask and the causal flag is refused, as PyTorch refuses it.
  devplug::Tensor q = ramp({2, 3, 4}), mask = empty({2, 3, 3}, DEVPLUG_DTYPE_BOOL), o = empty({2, 3, 4});
  const devplug_sdpa_attrs_t causal{sizeof(causal), DEVPLUG_SDPA_CAUSAL, 0};
  e = call(DEVPLUG_OP_scaled_dot_product_attention, {q.handle(), q.handle(), q.handle(), mask.handle()},
           {o.handle()}, &causal);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(e.message.find("causal"), std::string::npos) << e.message;
  // An output that overlaps an input is refused: composites never write over their inputs.
  e = call(DEVPLUG_OP_softmax, {x.handle()}, {x.handle()}, nullptr);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT);
  const devplug_dim_attrs_t dim{sizeof(dim), 1};
  e = call(DEVPLUG_OP_softmax, {x.handle()}, {x.handle()}, &dim);
  EXPECT_EQ(e.code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(e.message.find("overlaps"), std::string::npos) << e.message;
}

// The reference's own kernel, called directly through its table with a call the dispatcher
// would have refused, answers INVALID_ARGUMENT instead of reading out of bounds.
TEST_F(CompositeApi, APluginKernelRefusesABadDirectCall) {
  open();
  const devplug_plugin_api_t* api = nullptr;
  ASSERT_EQ(devplug_plugin_get_table(plugin_->handle(), &api), nullptr);
  devplug_kernel_fn softmax = nullptr;
  for (size_t k = 0; k < api->kernel_count; ++k)
    if (api->kernels[k]->op == DEVPLUG_OP_softmax) softmax = api->kernels[k]->fn;
  ASSERT_NE(softmax, nullptr);
  devplug::Tensor x = ramp({4, 8}), small = empty({2, 8});
  devplug_tensor_desc_t in = x.describe(), out = small.describe();
  const devplug_tensor_desc_t* ins[1] = {&in};
  const devplug_tensor_desc_t* outs[1] = {&out};
  const devplug_dim_attrs_t dim{sizeof(dim), 1};
  const devplug_op_call_t bad{sizeof(bad), DEVPLUG_OP_softmax, ins, 1, outs, 1, &dim};
  devplug_error_t* e = softmax(nullptr, &bad);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, DEVPLUG_CODE_INVALID_ARGUMENT);
  api->error_destroy(e);
}

// The trace says how each composite ran: "native" on the reference, "decomposed" with
// DEVPLUG_CONTEXT_DECOMPOSE, with the decomposition's prims as events of their own.
TEST_F(CompositeApi, TheTraceShowsNativeOrDecomposed) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("devplug_composite_trace_" + std::to_string(getpid()) + ".json");
  auto run_softmax = [&](uint32_t flags) {
    setenv("DEVPLUG_TRACE", file.c_str(), 1);
    open(flags);
    unsetenv("DEVPLUG_TRACE");
    {
      devplug::Tensor x = ramp({3, 5}), y = empty({3, 5});
      const devplug_dim_attrs_t dim{sizeof(dim), 1};
      EXPECT_EQ(call(DEVPLUG_OP_softmax, {x.handle()}, {y.handle()}, &dim).code, DEVPLUG_CODE_OK);
      const std::vector<float> p = y.to_host<float>();
      float row = 0;
      for (int i = 0; i < 5; ++i) row += p[static_cast<size_t>(i)];
      EXPECT_NEAR(row, 1.0f, 1e-6f);
    }  // the tensors hold the context
    device_.reset();
    plugin_.reset();
    context_.reset();  // writes the trace
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::filesystem::remove(file);
    return text.str();
  };
  const std::string native = run_softmax(0);
  EXPECT_NE(native.find("\"name\":\"softmax\""), std::string::npos) << native;
  EXPECT_NE(native.find("\"path\":\"native\""), std::string::npos) << native;
  EXPECT_EQ(native.find("\"name\":\"amax\""), std::string::npos) << native;
  const std::string decomposed = run_softmax(DEVPLUG_CONTEXT_DECOMPOSE);
  EXPECT_NE(decomposed.find("\"path\":\"decomposed\""), std::string::npos) << decomposed;
  EXPECT_NE(decomposed.find("\"name\":\"amax\""), std::string::npos) << decomposed;
  EXPECT_NE(decomposed.find("\"name\":\"exp\""), std::string::npos) << decomposed;
}

// DEVPLUG_DECOMPOSE=1 sets the switch for every context, like DEVPLUG_STRICT.
TEST_F(CompositeApi, TheDecomposeSwitchGivesTheSameResult) {
  open();
  devplug::Tensor x = ramp({6, 9}), native = empty({6, 9});
  const devplug_dim_attrs_t dim{sizeof(dim), 1};
  ASSERT_EQ(call(DEVPLUG_OP_log_softmax, {x.handle()}, {native.handle()}, &dim).code, DEVPLUG_CODE_OK);
  const std::vector<float> expected = native.to_host<float>();
  device_.reset();
  plugin_.reset();
  setenv("DEVPLUG_DECOMPOSE", "1", 1);
  open();
  unsetenv("DEVPLUG_DECOMPOSE");
  devplug::Tensor x2 = ramp({6, 9}), decomposed = empty({6, 9});
  ASSERT_EQ(call(DEVPLUG_OP_log_softmax, {x2.handle()}, {decomposed.handle()}, &dim).code, DEVPLUG_CODE_OK);
  const std::vector<float> got = decomposed.to_host<float>();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5f) << i;
}

}  // namespace
