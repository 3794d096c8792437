// SPDX-License-Identifier: Apache-2.0
// Tests of the host C API's argument checks: NULL and bad handles, bad tensor shapes, dtypes,
// ranks and strides, and bad copy arguments are INVALID_ARGUMENT; NULL releases are no-ops;
// the ABI and library versions.
#include <cstdint>

#include "runtime_test_util.hpp"

namespace devplug::runtime_test {
namespace {

TEST(RuntimeArguments, NullAndBadHandlesAreInvalidArguments) {
  expect_error(devplug_context_create(nullptr, nullptr), DEVPLUG_CODE_INVALID_ARGUMENT,
               "out_context is NULL");
  devplug_context_options_t bad{4, 0};
  devplug_context_t* context = nullptr;
  expect_error(devplug_context_create(&bad, &context), DEVPLUG_CODE_INVALID_ARGUMENT, "struct_size");
  size_t n = 0;
  expect_error(devplug_context_plugin_count(nullptr, &n), DEVPLUG_CODE_INVALID_ARGUMENT, "context is NULL");
  int garbage[16] = {};
  expect_error(devplug_context_plugin_count(reinterpret_cast<devplug_context_t*>(garbage), &n),
               DEVPLUG_CODE_INVALID_ARGUMENT, "not a live context");
  const int64_t shape[1] = {-3};
  devplug_tensor_t* t = nullptr;
  expect_error(devplug_tensor_create(nullptr, DEVPLUG_DTYPE_FLOAT32, 1, shape, &t),
               DEVPLUG_CODE_INVALID_ARGUMENT, "device is NULL");
  expect_error(devplug_stream_synchronize(nullptr), DEVPLUG_CODE_INVALID_ARGUMENT, "stream is NULL");
  expect_error(devplug_tensor_numel(nullptr, nullptr), DEVPLUG_CODE_INVALID_ARGUMENT, "out_numel is NULL");
  devplug_tensor_t* result = nullptr;
  expect_error(devplug_elementwise(nullptr, DEVPLUG_OP_add, nullptr, 2, &result),
               DEVPLUG_CODE_INVALID_ARGUMENT, "inputs is NULL");
  devplug_tensor_release(nullptr);
  devplug_context_destroy(nullptr);
  devplug_error_destroy(nullptr);
  uint32_t major = 0, minor = 9;
  devplug_abi_version(&major, &minor);
  EXPECT_EQ(major, 1u);
  EXPECT_EQ(minor, 2u);
  EXPECT_STREQ(devplug_version_string(), "0.1.0");
}

TEST_F(Runtime, TensorArgumentsAreChecked) {
  const int64_t negative[1] = {-3};
  devplug_tensor_t* t = reinterpret_cast<devplug_tensor_t*>(1);
  expect_error(devplug_tensor_create(dev0_, DEVPLUG_DTYPE_FLOAT32, 1, negative, &t),
               DEVPLUG_CODE_INVALID_ARGUMENT, "shape");
  EXPECT_EQ(t, nullptr);
  const int64_t ok[1] = {3};
  expect_error(devplug_tensor_create(dev0_, 42, 1, ok, &t), DEVPLUG_CODE_INVALID_ARGUMENT, "");
  expect_error(devplug_tensor_create(dev0_, DEVPLUG_DTYPE_FLOAT32, 9, ok, &t), DEVPLUG_CODE_INVALID_ARGUMENT,
               "");
  const int64_t huge[2] = {int64_t{1} << 40, int64_t{1} << 40};
  expect_error(devplug_tensor_create(dev0_, DEVPLUG_DTYPE_FLOAT32, 2, huge, &t),
               DEVPLUG_CODE_INVALID_ARGUMENT, "");
  devplug_tensor_t* base = tensor(dev0_, DEVPLUG_DTYPE_FLOAT32, {4});
  const int64_t shape[1] = {4}, strides[1] = {2};
  devplug_tensor_t* view = nullptr;
  expect_error(devplug_tensor_as_strided(base, 1, shape, strides, 0, &view), DEVPLUG_CODE_INVALID_ARGUMENT,
               "");
  expect_error(devplug_tensor_copy_from_host(nullptr, base, nullptr, 16, 0), DEVPLUG_CODE_INVALID_ARGUMENT,
               "src is NULL");
  expect_error(devplug_tensor_copy_from_host(nullptr, base, negative, 16, 77), DEVPLUG_CODE_INVALID_ARGUMENT,
               "flags");
  devplug_tensor_release(base);
}

}  // namespace
}  // namespace devplug::runtime_test
