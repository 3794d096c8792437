// SPDX-License-Identifier: Apache-2.0
// Tests of what happens to a call the plugin does not run: UNIMPLEMENTED in no-fallback and
// strict contexts (and with DEVPLUG_STRICT), the CPU fallback to the reference backend (from
// the install folder or an already loaded reference plugin), and per-device claims (ABI 1.1)
// and the claims hook (ABI 1.2) deciding per device and per call. The fallback cases need the
// reference plugin (DEVPLUG_REFERENCE_PLUGIN).
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime_test_util.hpp"

namespace devplug::runtime_test {
namespace {

TEST_F(Runtime, NoFallbackAndStrictContextsAnswerUnimplemented) {
  for (uint32_t flags : {DEVPLUG_CONTEXT_NO_FALLBACK, DEVPLUG_CONTEXT_STRICT}) {
    devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY | flags);
    ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), nullptr));
    devplug_device_t* device = nullptr;
    ASSERT_OK(devplug_context_get_device(context, 0, &device));
    devplug_tensor_t* a = tensor(device, DEVPLUG_DTYPE_FLOAT32, {3});
    devplug_tensor_t* ins[2] = {a, a};
    expect_error(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
                 "mul (float32) is not implemented by plugin fixture_good");
    expect_error(devplug_op_call(nullptr, DEVPLUG_OP_sub, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
                 flags == DEVPLUG_CONTEXT_STRICT ? "strict" : "no CPU fallback");
    devplug_tensor_release(a);
    devplug_context_destroy(context);
  }
}

TEST(RuntimeStrict, StrictFromTheEnvironment) {
  setenv("DEVPLUG_STRICT", "1", 1);
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  unsetenv("DEVPLUG_STRICT");
  ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), nullptr));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 0, &device));
  const int64_t shape[1] = {2};
  devplug_tensor_t* a = nullptr;
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, shape, &a));
  devplug_tensor_t* ins[2] = {a, a};
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
               "DEVPLUG_STRICT");
  uint64_t count = 1;
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_mul, &count));
  EXPECT_EQ(count, 0u);
  devplug_tensor_release(a);
  devplug_context_destroy(context);
}

#ifdef DEVPLUG_REFERENCE_PLUGIN
TEST_F(Runtime, FallsBackToTheReferenceBackendFromTheInstallFolder) {
  devplug_tensor_t* a = floats({2, 2}, {1, 2, 3, 4});
  devplug_tensor_t* at = nullptr;
  ASSERT_OK(devplug_tensor_transpose(a, 0, 1, &at));
  devplug_tensor_t* out = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {2, 2});
  devplug_tensor_t* ins[2] = {a, at};
  testing::internal::CaptureStderr();
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &out, 1, nullptr));  // no kernel
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_mul, ins, 2, &out, 1, nullptr));
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_sub, ins, 2, &out, 1, nullptr));  // kernel says UNIMPLEMENTED
  const std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(read<float>(out), (std::vector<float>{0, -1, 1, 0}));
  const std::string expected =
      "devplug: warning: mul (float32) is not implemented by plugin fixture_good; running it on the CPU "
      "reference backend";
  EXPECT_NE(warnings.find(expected), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find(expected), warnings.rfind(expected)) << "warned twice: " << warnings;
  uint64_t count = 0;
  ASSERT_OK(devplug_context_fallback_count(context_, DEVPLUG_OP_mul, &count));
  EXPECT_EQ(count, 2u);
  ASSERT_OK(devplug_context_fallback_count(context_, DEVPLUG_OP_INVALID, &count));
  EXPECT_EQ(count, 3u);
  size_t plugins = 0;
  ASSERT_OK(devplug_context_plugin_count(context_, &plugins));
  EXPECT_EQ(plugins, 1u);  // the fallback's reference plugin is not listed
  expect_error(devplug_context_fallback_count(context_, 4000, &count), DEVPLUG_CODE_INVALID_ARGUMENT,
               "op 4000");
  for (auto* t : {a, at, out}) devplug_tensor_release(t);
}

TEST(RuntimeFallback, UsesALoadedReferencePlugin) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  ASSERT_OK(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, nullptr));
  devplug_plugin_t* fixture_plugin = nullptr;
  ASSERT_OK(devplug_context_load_plugin(context, fixture("good").c_str(), &fixture_plugin));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 1, &device));  // reference has device 0
  devplug_plugin_t* owner = nullptr;
  ASSERT_OK(devplug_device_get_plugin(device, &owner));
  ASSERT_EQ(owner, fixture_plugin);
  devplug_tensor_t* t = nullptr;
  const int64_t shape[1] = {4};
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_INT64, 1, shape, &t));
  devplug_iota_attrs_t iota{sizeof(iota), {3.0, 3}, {2.0, 2}};
  testing::internal::CaptureStderr();
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_iota, nullptr, 0, &t, 1, &iota));
  testing::internal::GetCapturedStderr();
  std::vector<int64_t> values(4);
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, t, values.data(), 32));
  EXPECT_EQ(values, (std::vector<int64_t>{3, 5, 7, 9}));
  // A stream waiting on another plugin's event: the host waits for it.
  devplug_device_t* reference_device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 0, &reference_device));
  devplug_event_t* event = nullptr;
  devplug_stream_t *reference_stream = nullptr, *fixture_stream = nullptr;
  ASSERT_OK(devplug_event_create(reference_device, &event));
  ASSERT_OK(devplug_device_default_stream(reference_device, &reference_stream));
  ASSERT_OK(devplug_device_default_stream(device, &fixture_stream));
  ASSERT_OK(devplug_event_record(event, reference_stream));
  ASSERT_OK(devplug_stream_wait_event(fixture_stream, event));
  ASSERT_OK(devplug_event_destroy(event));
  devplug_tensor_release(t);
  devplug_context_destroy(context);
}
#endif

#ifdef DEVPLUG_REFERENCE_PLUGIN
// Per-device claims (ABI 1.1): fixture_claims declares add for float32 and int32 and
// convert_element_type into float64, but its device 1 runs neither int32 nor float64. The
// dispatcher runs such calls natively on device 0 and falls back on device 1 (refusing them
// in strict mode), and devplug_device_supports says so per device.
TEST(RuntimeDeviceClaims, DevicesThatDifferInDtypesAreDispatchedPerDevice) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  ASSERT_OK(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, nullptr));
  devplug_plugin_t* plugin = nullptr;
  ASSERT_OK(devplug_context_load_plugin(context, fixture("claims").c_str(), &plugin));
  devplug_device_t* dev[2] = {nullptr, nullptr};
  ASSERT_OK(devplug_context_get_device(context, 1, &dev[0]));  // the reference is device 0
  ASSERT_OK(devplug_context_get_device(context, 2, &dev[1]));
  devplug_device_properties_t p{};
  p.struct_size = sizeof p;
  ASSERT_OK(devplug_device_get_properties(dev[1], &p));
  EXPECT_EQ(p.dtypes, DEVPLUG_DTYPES_ALL & ~(DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64) |
                                             DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32)));

  bool yes = false;
  ASSERT_OK(devplug_plugin_supports(plugin, DEVPLUG_OP_add, DEVPLUG_DTYPE_INT32, &yes, nullptr));
  EXPECT_TRUE(yes) << "the plugin declares add int32";
  ASSERT_OK(devplug_device_supports(dev[0], DEVPLUG_OP_add, DEVPLUG_DTYPE_INT32, &yes, nullptr));
  EXPECT_TRUE(yes);
  ASSERT_OK(devplug_device_supports(dev[1], DEVPLUG_OP_add, DEVPLUG_DTYPE_INT32, &yes, nullptr));
  EXPECT_FALSE(yes) << "device 1 does not run int32";
  ASSERT_OK(devplug_device_supports(dev[1], DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, &yes, nullptr));
  EXPECT_TRUE(yes);
  expect_error(devplug_device_supports(dev[1], 4000, DEVPLUG_DTYPE_FLOAT32, &yes, nullptr),
               DEVPLUG_CODE_INVALID_ARGUMENT, "op 4000");

  const int64_t n = 3;
  auto add_int32 = [&](devplug_device_t* device) {
    devplug_tensor_t *a = nullptr, *out = nullptr;
    EXPECT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 1, &n, &a));
    EXPECT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 1, &n, &out));
    const int32_t values[3] = {1, -2, 2147483647};
    EXPECT_OK(devplug_tensor_copy_from_host(nullptr, a, values, sizeof values, DEVPLUG_COPY_BLOCKING));
    devplug_tensor_t* ins[2] = {a, a};
    EXPECT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &out, 1, nullptr));
    int32_t got[3] = {0, 0, 0};
    EXPECT_OK(devplug_tensor_copy_to_host(nullptr, out, got, sizeof got));
    EXPECT_EQ(std::vector<int32_t>(got, got + 3), (std::vector<int32_t>{2, -4, -2}));
    devplug_tensor_release(a);
    devplug_tensor_release(out);
  };
  uint64_t fell_back = 0;
  add_int32(dev[0]);
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_add, &fell_back));
  EXPECT_EQ(fell_back, 0u) << "device 0 runs add int32 itself";
  testing::internal::CaptureStderr();
  add_int32(dev[1]);
  const std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_add, &fell_back));
  EXPECT_EQ(fell_back, 1u) << "device 1 falls back";
  EXPECT_NE(warning.find(
                "add (int32) is not implemented by plugin fixture_claims on device 1 ('fixture device 1'), "
                "which does not run int32"),
            std::string::npos)
      << warning;

  // A call whose dispatch dtype the device runs but whose output it does not (float32 ->
  // float64) falls back too; float32 -> int64 runs natively.
  devplug_tensor_t *f = nullptr, *d = nullptr, *i64 = nullptr;
  ASSERT_OK(devplug_tensor_create(dev[1], DEVPLUG_DTYPE_FLOAT32, 1, &n, &f));
  ASSERT_OK(devplug_tensor_create(dev[1], DEVPLUG_DTYPE_FLOAT64, 1, &n, &d));
  ASSERT_OK(devplug_tensor_create(dev[1], DEVPLUG_DTYPE_INT64, 1, &n, &i64));
  const float values[3] = {1.5f, -2.0f, 3.25f};
  ASSERT_OK(devplug_tensor_copy_from_host(nullptr, f, values, sizeof values, DEVPLUG_COPY_BLOCKING));
  testing::internal::CaptureStderr();
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_convert_element_type, &f, 1, &d, 1, nullptr));
  ASSERT_OK(devplug_op_call(nullptr, DEVPLUG_OP_convert_element_type, &f, 1, &i64, 1, nullptr));
  testing::internal::GetCapturedStderr();
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_convert_element_type, &fell_back));
  EXPECT_EQ(fell_back, 1u) << "only the float64 output falls back";
  double doubles[3] = {0, 0, 0};
  int64_t longs[3] = {0, 0, 0};
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, d, doubles, sizeof doubles));
  ASSERT_OK(devplug_tensor_copy_to_host(nullptr, i64, longs, sizeof longs));
  EXPECT_EQ(std::vector<double>(doubles, doubles + 3), (std::vector<double>{1.5, -2.0, 3.25}));
  EXPECT_EQ(std::vector<int64_t>(longs, longs + 3), (std::vector<int64_t>{1, -2, 3}));
  for (auto* t : {f, d, i64}) devplug_tensor_release(t);
  devplug_context_destroy(context);

  // Strict: the device's unclaimed dtype is refused with the reason, the claimed one runs.
  devplug_context_t* strict = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT);
  ASSERT_OK(devplug_context_load_plugin(strict, fixture("claims").c_str(), nullptr));
  devplug_device_t* small = nullptr;
  ASSERT_OK(devplug_context_get_device(strict, 1, &small));
  devplug_tensor_t* a = nullptr;
  ASSERT_OK(devplug_tensor_create(small, DEVPLUG_DTYPE_INT32, 1, &n, &a));
  devplug_tensor_t* ins[2] = {a, a};
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
               "which does not run int32 (strict mode");
  devplug_tensor_release(a);
  devplug_context_destroy(strict);
}
#endif

#ifdef DEVPLUG_REFERENCE_PLUGIN
// The claims hook (ABI 1.2): fixture_claims' device 0 declines an add of 7777 elements.
// Such a call falls back (counted, and right), a small one runs on the device, the same call
// again is declined again (the hot path of a repeated call asks the hook too), and in strict
// mode the declined call is refused.
TEST(RuntimeDeviceClaims, CallsTheClaimsHookDeclinesFallBack) {
  devplug_context_t* context = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
  ASSERT_OK(devplug_context_load_plugin(context, DEVPLUG_REFERENCE_PLUGIN, nullptr));
  ASSERT_OK(devplug_context_load_plugin(context, fixture("claims").c_str(), nullptr));
  devplug_device_t* device = nullptr;
  ASSERT_OK(devplug_context_get_device(context, 1, &device));  // fixture device 0
  auto add = [&](int64_t n) {
    devplug_tensor_t *a = nullptr, *out = nullptr;
    EXPECT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &a));
    EXPECT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &out));
    std::vector<float> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>(i) - 2.5f;
    EXPECT_OK(
        devplug_tensor_copy_from_host(nullptr, a, values.data(), values.size() * 4, DEVPLUG_COPY_BLOCKING));
    devplug_tensor_t* ins[2] = {a, a};
    EXPECT_OK(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &out, 1, nullptr));
    std::vector<float> got(values.size());
    EXPECT_OK(devplug_tensor_copy_to_host(nullptr, out, got.data(), got.size() * 4));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], 2 * values[i]) << i;
    devplug_tensor_release(a);
    devplug_tensor_release(out);
  };
  uint64_t fell_back = 0;
  add(4);
  add(7776);
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_add, &fell_back));
  EXPECT_EQ(fell_back, 0u) << "4 and 7776 elements run on the device";
  testing::internal::CaptureStderr();
  add(7777);
  add(7777);
  const std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_OK(devplug_context_fallback_count(context, DEVPLUG_OP_add, &fell_back));
  EXPECT_EQ(fell_back, 2u) << "7777 elements are declined, each time";
  EXPECT_NE(warning.find("its claims hook declined the call"), std::string::npos) << warning;
  devplug_context_destroy(context);

  devplug_context_t* strict = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT);
  ASSERT_OK(devplug_context_load_plugin(strict, fixture("claims").c_str(), nullptr));
  ASSERT_OK(devplug_context_get_device(strict, 0, &device));
  const int64_t n = 7777;
  devplug_tensor_t* a = nullptr;
  ASSERT_OK(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &a));
  devplug_tensor_t* ins[2] = {a, a};
  expect_error(devplug_op_call(nullptr, DEVPLUG_OP_add, ins, 2, &a, 1, nullptr), DEVPLUG_CODE_UNIMPLEMENTED,
               "its claims hook declined the call");
  devplug_tensor_release(a);
  devplug_context_destroy(strict);
}
#endif

}  // namespace
}  // namespace devplug::runtime_test
