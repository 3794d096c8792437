// SPDX-License-Identifier: Apache-2.0
// Shared helpers of the host API tests: error assertions and a fixture that owns a context
// with the reference plugin loaded from the build tree (no discovery).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "devplug/devplug.h"

namespace devplug::test {

// Passes when `error` is NULL. Destroys it otherwise and reports its code and message.
inline ::testing::AssertionResult Ok(devplug_error_t* error) {
  if (error == nullptr) return ::testing::AssertionSuccess();
  ::testing::AssertionResult result = ::testing::AssertionFailure()
                                      << devplug_code_name(error->code) << ": " << error->message;
  devplug_error_destroy(error);
  return result;
}

// Passes when `error` has `code` and its message contains `part`; destroys it.
inline ::testing::AssertionResult Fails(devplug_error_t* error, devplug_code_t code,
                                        const std::string& part) {
  if (error == nullptr)
    return ::testing::AssertionFailure() << "succeeded, expected " << devplug_code_name(code);
  const std::string message = error->message ? error->message : "(null message)";
  const devplug_code_t got = error->code;
  devplug_error_destroy(error);
  if (got != code || message.find(part) == std::string::npos)
    return ::testing::AssertionFailure() << devplug_code_name(got) << ": '" << message << "', expected "
                                         << devplug_code_name(code) << " with '" << part << "'";
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult Invalid(devplug_error_t* error, const std::string& part) {
  return Fails(error, DEVPLUG_CODE_INVALID_ARGUMENT, part);
}

// Creates a context without discovery, loads the plugin at `path` and returns its first
// device; the caller destroys the context.
inline ::testing::AssertionResult OpenPlugin(const char* path, devplug_context_t** context,
                                             devplug_device_t** device) {
  devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY};
  ::testing::AssertionResult result = Ok(devplug_context_create(&options, context));
  if (result) result = Ok(devplug_context_load_plugin(*context, path, nullptr));
  if (result) result = Ok(devplug_context_get_device(*context, 0, device));
  return result;
}

// A context with only the reference plugin, its first device and default stream.
class ReferenceContext : public ::testing::Test {
 protected:
  void SetUp() override {
    devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY};
    ASSERT_TRUE(Ok(devplug_context_create(&options, &context_)));
    ASSERT_TRUE(Ok(devplug_context_load_plugin(context_, DEVPLUG_REFERENCE_PLUGIN_PATH, &plugin_)));
    ASSERT_TRUE(Ok(devplug_context_get_device(context_, 0, &device_)));
    ASSERT_TRUE(Ok(devplug_device_default_stream(device_, &stream_)));
  }
  // The context destroys every tensor, stream and event the test made.
  void TearDown() override { devplug_context_destroy(context_); }

  devplug_tensor_t* make(devplug_dtype_t dtype, std::vector<int64_t> shape) {
    devplug_tensor_t* t = nullptr;
    EXPECT_TRUE(
        Ok(devplug_tensor_create(device_, dtype, static_cast<int32_t>(shape.size()), shape.data(), &t)));
    return t;
  }

  template <typename T>
  devplug_tensor_t* upload(devplug_dtype_t dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
    devplug_tensor_t* t = make(dtype, shape);
    EXPECT_TRUE(Ok(devplug_tensor_copy_from_host(nullptr, t, values.data(), values.size() * sizeof(T),
                                                 DEVPLUG_COPY_BLOCKING)));
    return t;
  }
  devplug_tensor_t* floats(std::vector<int64_t> shape, const std::vector<float>& values) {
    return upload(DEVPLUG_DTYPE_FLOAT32, shape, values);
  }

  template <typename T>
  std::vector<T> download(const devplug_tensor_t* t) {
    int64_t n = 0;
    EXPECT_TRUE(Ok(devplug_tensor_numel(t, &n)));
    std::vector<T> values(static_cast<size_t>(n));
    EXPECT_TRUE(Ok(devplug_tensor_copy_to_host(nullptr, t, values.data(), n * sizeof(T))));
    return values;
  }

  devplug_tensor_desc_t describe(const devplug_tensor_t* t) {
    devplug_tensor_desc_t d{};
    d.struct_size = sizeof(d);
    EXPECT_TRUE(Ok(devplug_tensor_describe(t, &d)));
    return d;
  }
  std::vector<int64_t> shape_of(const devplug_tensor_t* t) {
    devplug_tensor_desc_t d = describe(t);
    return std::vector<int64_t>(d.shape, d.shape + d.rank);
  }
  std::vector<int64_t> strides_of(const devplug_tensor_t* t) {
    devplug_tensor_desc_t d = describe(t);
    return std::vector<int64_t>(d.strides, d.strides + d.rank);
  }

  devplug_context_t* context_ = nullptr;
  devplug_plugin_t* plugin_ = nullptr;
  devplug_device_t* device_ = nullptr;
  devplug_stream_t* stream_ = nullptr;
};

// A pointer that is not NULL and must have been cleared by the call.
template <typename T>
T* poison() {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(0xdeadbeef));
}

}  // namespace devplug::test
