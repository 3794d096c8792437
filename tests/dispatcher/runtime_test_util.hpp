// SPDX-License-Identifier: Apache-2.0
// Shared helpers of dispatcher_runtime_test's files (runtime_*_test.cpp): the fixture plugins'
// paths and counters, error assertions (ASSERT_OK, EXPECT_OK, expect_error), contexts without
// discovery, and the Runtime fixture, a context with fixture_good loaded and its two devices.
// Every helper is inline here, so the files share one copy and one fixture class (gtest
// requires one class per test suite).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "devplug/devplug.h"

namespace devplug::runtime_test {

// The path of the fixture plugin `name` ("good", "no_copy", ...) that runtime.cmake builds.
inline std::string fixture(const std::string& name) {
  return std::string(DEVPLUG_FIXTURE_DIR) + "/libdevplug_fixture_" + name + ".so";
}

// Takes an error: empty string when NULL, else "CODE: message"; destroys it.
inline std::string take(devplug_error_t* e) {
  if (e == nullptr) return "";
  std::string text = std::string(devplug_code_name(e->code)) + ": " + e->message;
  devplug_error_destroy(e);
  return text;
}

#define ASSERT_OK(call) ASSERT_EQ(take(call), "")
#define EXPECT_OK(call) EXPECT_EQ(take(call), "")

// Expects `e` to carry `code` and a message containing `text`.
inline void expect_error(devplug_error_t* e, devplug_code_t code, const std::string& text) {
  ASSERT_NE(e, nullptr) << "expected " << devplug_code_name(code) << " containing: " << text;
  EXPECT_EQ(e->code, code) << e->message;
  EXPECT_NE(std::string(e->message).find(text), std::string::npos) << e->message;
  devplug_error_destroy(e);
}

// The fixture plugin `variant`'s counter `symbol` ("fixture_initialized", "fixture_allocations",
// "fixture_live_buffers"), or -1 when that plugin is not loaded in this process.
inline int64_t fixture_counter(const std::string& variant, const char* symbol) {
  void* handle = dlopen(fixture(variant).c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto fn = reinterpret_cast<int64_t (*)()>(dlsym(handle, symbol));
  int64_t value = fn ? fn() : -1;
  dlclose(handle);
  return value;
}

// A new context made with `flags` (a failure is a test failure and NULL).
inline devplug_context_t* make_context(uint32_t flags) {
  devplug_context_options_t options{sizeof(options), flags};
  devplug_context_t* context = nullptr;
  devplug_error_t* e = devplug_context_create(&options, &context);
  EXPECT_EQ(take(e), "");
  return context;
}

// A context without discovery with fixture_good loaded, and its two devices (`dev0_`, `dev1_`);
// helpers make, fill and read tensors. The context destroys what a test leaves.
class Runtime : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = make_context(DEVPLUG_CONTEXT_NO_DISCOVERY);
    ASSERT_NE(context_, nullptr);
    ASSERT_OK(devplug_context_load_plugin(context_, fixture("good").c_str(), &plugin_));
    ASSERT_OK(devplug_context_get_device(context_, 0, &dev0_));
    ASSERT_OK(devplug_context_get_device(context_, 1, &dev1_));
  }
  void TearDown() override { devplug_context_destroy(context_); }

  devplug_tensor_t* tensor(devplug_device_t* device, devplug_dtype_t dtype, std::vector<int64_t> shape) {
    devplug_tensor_t* t = nullptr;
    EXPECT_OK(devplug_tensor_create(device, dtype, static_cast<int32_t>(shape.size()), shape.data(), &t));
    return t;
  }
  devplug_tensor_t* floats(std::vector<int64_t> shape, const std::vector<float>& values,
                           devplug_device_t* device = nullptr) {
    devplug_tensor_t* t = tensor(device ? device : dev0_, DEVPLUG_DTYPE_FLOAT32, shape);
    EXPECT_OK(
        devplug_tensor_copy_from_host(nullptr, t, values.data(), values.size() * 4, DEVPLUG_COPY_BLOCKING));
    return t;
  }
  template <typename T>
  std::vector<T> read(const devplug_tensor_t* t) {
    int64_t n = 0;
    EXPECT_OK(devplug_tensor_numel(t, &n));
    std::vector<T> values(static_cast<size_t>(n));
    EXPECT_OK(devplug_tensor_copy_to_host(nullptr, t, values.data(), values.size() * sizeof(T)));
    return values;
  }

  devplug_context_t* context_ = nullptr;
  devplug_plugin_t* plugin_ = nullptr;
  devplug_device_t* dev0_ = nullptr;
  devplug_device_t* dev1_ = nullptr;
};

}  // namespace devplug::runtime_test
