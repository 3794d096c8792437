// SPDX-License-Identifier: Apache-2.0
// Fallback accounting and strict mode through the public API, with dispatcher-runtime's
// fixture plugin (a device with a few kernels: add, copy_strided, convert_element_type, a
// dense-only neg, and a sub that answers UNIMPLEMENTED) beside the reference plugin.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "api_test_util.hpp"
#include "devplug/devplug.hpp"

#ifdef DEVPLUG_FIXTURE_PLUGIN_PATH

namespace devplug::test {
namespace {

// Sets an environment variable for one scope and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

// A context with the fixture plugin (its devices first) and the reference plugin.
struct FixtureContext {
  explicit FixtureContext(uint32_t flags) {
    devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY | flags};
    EXPECT_TRUE(Ok(devplug_context_create(&options, &context)));
    EXPECT_TRUE(Ok(devplug_context_load_plugin(context, DEVPLUG_FIXTURE_PLUGIN_PATH, &fixture)));
    EXPECT_TRUE(Ok(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN_PATH, nullptr)));
    EXPECT_TRUE(Ok(devplug_context_get_device(context, 0, &device)));
  }
  ~FixtureContext() { devplug_context_destroy(context); }

  devplug_tensor_t* floats(std::vector<int64_t> shape, const std::vector<float>& values) {
    devplug_tensor_t* t = nullptr;
    EXPECT_TRUE(Ok(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, static_cast<int32_t>(shape.size()),
                                         shape.data(), &t)));
    EXPECT_TRUE(Ok(
        devplug_tensor_copy_from_host(nullptr, t, values.data(), values.size() * 4, DEVPLUG_COPY_BLOCKING)));
    return t;
  }
  std::vector<float> read(devplug_tensor_t* t, size_t n) {
    std::vector<float> values(n);
    EXPECT_TRUE(Ok(devplug_tensor_copy_to_host(nullptr, t, values.data(), n * 4)));
    return values;
  }
  uint64_t fallbacks(devplug_op_t op) {
    uint64_t count = 0;
    EXPECT_TRUE(Ok(devplug_context_fallback_count(context, op, &count)));
    return count;
  }

  devplug_context_t* context = nullptr;
  devplug_plugin_t* fixture = nullptr;
  devplug_device_t* device = nullptr;
};

TEST(ApiFallback, CountsEachOpThatRanOnTheReference) {
  FixtureContext f(0);
  devplug_plugin_t* owner = nullptr;
  ASSERT_TRUE(Ok(devplug_device_get_plugin(f.device, &owner)));
  ASSERT_EQ(owner, f.fixture);
  devplug_tensor_t* a = f.floats({3}, {0, 1, 2});
  devplug_tensor_t* out = f.floats({3}, {0, 0, 0});
  devplug_tensor_t* ins[] = {a, a};
  devplug_tensor_t* outs[] = {out};
  testing::internal::CaptureStderr();  // the one-time warnings
  ASSERT_TRUE(Ok(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr)));  // native
  EXPECT_EQ(f.fallbacks(DEVPLUG_OP_INVALID), 0u);
  ASSERT_TRUE(Ok(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, outs, 1, nullptr)));  // no kernel
  EXPECT_EQ(f.read(out, 3), (std::vector<float>{0, 1, 4}));
  ASSERT_TRUE(Ok(devplug_op_call(nullptr, DEVPLUG_OP_sub, ins, 2, outs, 1, nullptr)));  // UNIMPLEMENTED
  EXPECT_EQ(f.read(out, 3), (std::vector<float>{0, 0, 0}));
  devplug_tensor_t* result = nullptr;  // elementwise: the prim falls back too
  ASSERT_TRUE(Ok(devplug_elementwise(nullptr, DEVPLUG_OP_mul, ins, 2, &result)));
  EXPECT_EQ(f.read(result, 3), (std::vector<float>{0, 1, 4}));
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.fallbacks(DEVPLUG_OP_mul), 2u);
  EXPECT_EQ(f.fallbacks(DEVPLUG_OP_sub), 1u);
  EXPECT_EQ(f.fallbacks(DEVPLUG_OP_add), 0u);
  EXPECT_EQ(f.fallbacks(DEVPLUG_OP_INVALID), 3u);
}

TEST(ApiNegativeFallback, StrictEnvironmentVariableRefusesTheFallback) {
  ScopedEnv strict("DEVPLUG_STRICT", "1");
  FixtureContext f(0);
  devplug_tensor_t* a = f.floats({3}, {0, 1, 2});
  devplug_tensor_t* ins[] = {a, a};
  devplug_tensor_t* outs[] = {f.floats({3}, {0, 0, 0})};
  EXPECT_TRUE(Fails(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, outs, 1, nullptr),
                    DEVPLUG_CODE_UNIMPLEMENTED, "strict"));
  EXPECT_TRUE(Fails(devplug_op_call(nullptr, DEVPLUG_OP_sub, ins, 2, outs, 1, nullptr),
                    DEVPLUG_CODE_UNIMPLEMENTED, "strict"));
  EXPECT_TRUE(Ok(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr)));
  EXPECT_EQ(f.fallbacks(DEVPLUG_OP_INVALID), 0u);
}

TEST(ApiFallback, StrictZeroMeansNotStrict) {
  ScopedEnv not_strict("DEVPLUG_STRICT", "0");
  FixtureContext f(0);
  devplug_tensor_t* a = f.floats({2}, {3, 4});
  devplug_tensor_t* ins[] = {a, a};
  devplug_tensor_t* outs[] = {f.floats({2}, {0, 0})};
  testing::internal::CaptureStderr();
  EXPECT_TRUE(Ok(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, outs, 1, nullptr)));
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(f.read(outs[0], 2), (std::vector<float>{9, 16}));
  EXPECT_EQ(f.fallbacks(DEVPLUG_OP_mul), 1u);
}

TEST(ApiNegativeFallback, StrictFlagAndNoFallbackFlagRefuse) {
  for (uint32_t flags : {DEVPLUG_CONTEXT_STRICT, DEVPLUG_CONTEXT_NO_FALLBACK}) {
    FixtureContext f(flags);
    devplug_tensor_t* a = f.floats({2}, {3, 4});
    devplug_tensor_t* ins[] = {a};
    devplug_tensor_t* outs[] = {f.floats({2}, {0, 0})};
    EXPECT_TRUE(Fails(devplug_op_call(nullptr, DEVPLUG_OP_exp, ins, 1, outs, 1, nullptr),
                      DEVPLUG_CODE_UNIMPLEMENTED, "exp"));
    EXPECT_EQ(f.fallbacks(DEVPLUG_OP_exp), 0u);
  }
}

TEST(CppWrapperFallback, FallbackCountAndStrictErrors) {
  {
    Context context(DEVPLUG_CONTEXT_NO_DISCOVERY);
    context.load(DEVPLUG_FIXTURE_PLUGIN_PATH);
    context.load(DEVPLUG_REFERENCE_PLUGIN_PATH);
    Device device = context.devices().at(0);
    Tensor a = Tensor::from_host<float>(device, {1, 2}, {2});
    testing::internal::CaptureStderr();
    Tensor product = a * a;  // no mul kernel on the fixture device
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(product.to_host<float>(), (std::vector<float>{1, 4}));
    EXPECT_EQ(context.fallback_count(DEVPLUG_OP_mul), 1u);
    EXPECT_EQ(context.fallback_count(), 1u);
  }
  Context strict(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT);
  strict.load(DEVPLUG_FIXTURE_PLUGIN_PATH);
  Tensor a = Tensor::from_host<float>(strict.devices().at(0), {1, 2}, {2});
  try {
    Tensor unused = a * a;
    (void)unused;
    FAIL() << "a strict context ran mul on the fallback";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), DEVPLUG_CODE_UNIMPLEMENTED);
    EXPECT_NE(e.message().find("mul"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace devplug::test

#endif  // DEVPLUG_FIXTURE_PLUGIN_PATH
