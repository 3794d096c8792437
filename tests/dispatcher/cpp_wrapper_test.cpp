// SPDX-License-Identifier: Apache-2.0
// Tests of the C++ wrapper (devplug.hpp) with the reference plugin: RAII lifetimes,
// reference semantics of Tensor, exceptions carrying the C error, and the operators.
// devplug.hpp first: it must compile on its own.
#include "devplug/devplug.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace devplug {
namespace {

using Dims = std::vector<int64_t>;

class CppWrapper : public ::testing::Test {
 protected:
  CppWrapper() : context_(DEVPLUG_CONTEXT_NO_DISCOVERY) {}
  void SetUp() override {
    plugin_name_ = context_.load(DEVPLUG_REFERENCE_PLUGIN_PATH).info().name;
    device_ = std::make_unique<Device>(context_.devices().at(0));
  }
  Context context_;
  std::string plugin_name_;
  std::unique_ptr<Device> device_;
};
using CppWrapperNegative = CppWrapper;

// Runs `body`, expecting a devplug::Error with `code` whose message contains `part`.
template <typename Body>
::testing::AssertionResult Throws(Body&& body, devplug_code_t code, const std::string& part) {
  try {
    body();
  } catch (const Error& e) {
    if (e.code() == code && e.message().find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "threw " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

TEST_F(CppWrapper, ContextPluginsAndDevices) {
  EXPECT_EQ(plugin_name_, "reference");
  EXPECT_EQ(version(), "0.1.0");
  std::vector<Plugin> plugins = context_.plugins();
  ASSERT_EQ(plugins.size(), 1u);
  EXPECT_EQ(plugins[0].handle(), context_.find_plugin("reference").handle());
  EXPECT_TRUE(plugins[0].supports(DEVPLUG_OP_matmul, DEVPLUG_DTYPE_BFLOAT16));
  EXPECT_FALSE(plugins[0].supports(DEVPLUG_OP_matmul, DEVPLUG_DTYPE_INT32));
  EXPECT_EQ(device_->plugin().handle(), plugins[0].handle());
  EXPECT_FALSE(device_->name().empty());
  EXPECT_TRUE(context_.failures().empty());
  EXPECT_EQ(context_.fallback_count(), 0u);
  device_->synchronize();
}

TEST_F(CppWrapper, TensorRoundTripsAndMetadata) {
  Tensor t = Tensor::from_host<int64_t>(*device_, {1, -2, 3, INT64_MIN, INT64_MAX, 0}, {2, 3});
  EXPECT_EQ(t.shape(), (Dims{2, 3}));
  EXPECT_EQ(t.strides(), (Dims{3, 1}));
  EXPECT_EQ(t.dtype(), DEVPLUG_DTYPE_INT64);
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.storage_bytes(), 48u);
  EXPECT_EQ(t.device().handle(), device_->handle());
  EXPECT_EQ(t.to_host<int64_t>(), (std::vector<int64_t>{1, -2, 3, INT64_MIN, INT64_MAX, 0}));
  Tensor flags = Tensor::from_host<bool>(*device_, {true, false, true}, {3});
  EXPECT_EQ(flags.to_host<bool>(), (std::vector<bool>{true, false, true}));
  Tensor halves = Tensor::from_host<sdk::float16>(*device_, {{0x3c00}, {0xc000}}, {2});
  std::vector<sdk::float16> back = halves.to_host<sdk::float16>();
  EXPECT_EQ(back[0].bits, 0x3c00);
  EXPECT_EQ(back[1].bits, 0xc000);
}

TEST_F(CppWrapper, CopiesShareTheTensorAndViewsShareTheStorage) {
  Tensor a = Tensor::from_host<float>(*device_, {0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor b = a;  // another reference to the same tensor
  EXPECT_EQ(b.handle(), a.handle());
  EXPECT_EQ(a.use_count(), 2);
  Tensor moved = std::move(b);
  EXPECT_EQ(moved.handle(), a.handle());
  EXPECT_EQ(a.use_count(), 2);
  Tensor column = a.slice(1, 1, 2);
  column.copy_from_host(std::vector<float>{7, 8});
  EXPECT_EQ(moved.to_host<float>(), (std::vector<float>{0, 7, 2, 3, 8, 5}));
}

TEST_F(CppWrapper, Views) {
  Tensor a = Tensor::from_host<float>(*device_, {0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(a.transpose(0, 1).to_host<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(a.permute({1, 0}).strides(), (Dims{1, 3}));
  EXPECT_EQ(a.reshape({3, -1}).shape(), (Dims{3, 2}));
  EXPECT_EQ(a.slice(1, INT64_MAX, INT64_MIN, -1).to_host<float>(), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(a.unsqueeze(0).shape(), (Dims{1, 2, 3}));
  EXPECT_EQ(a.unsqueeze(0).squeeze(0).shape(), (Dims{2, 3}));
  EXPECT_EQ(a.diagonal().to_host<float>(), (std::vector<float>{0, 4}));
  EXPECT_EQ(a.slice(0, 0, 1).expand({3, 3}).to_host<float>(),
            (std::vector<float>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(a.as_strided({2, 2}, {1, 2}, 1).to_host<float>(), (std::vector<float>{1, 3, 2, 4}));
}

TEST_F(CppWrapper, ObjectsKeepTheContextAlive) {
  Tensor survivor = Tensor::empty(*device_, DEVPLUG_DTYPE_INT32, {2});
  {
    Context other(DEVPLUG_CONTEXT_NO_DISCOVERY);
    other.load(DEVPLUG_REFERENCE_PLUGIN_PATH);
    survivor = Tensor::from_host<int32_t>(other.devices().at(0), {4, 5}, {2});
  }  // `other` is gone, its C context is not
  EXPECT_EQ(survivor.to_host<int32_t>(), (std::vector<int32_t>{4, 5}));
  Context moved = std::move(context_);
  EXPECT_EQ(moved.plugins().size(), 1u);
}

TEST_F(CppWrapper, ArithmeticOperatorsBroadcastAndPromote) {
  Tensor column = Tensor::from_host<float>(*device_, {10, 20}, {2, 1});
  Tensor row = Tensor::from_host<int32_t>(*device_, {1, 2, 4}, {3});
  Tensor sum = column + row;
  EXPECT_EQ(sum.dtype(), DEVPLUG_DTYPE_FLOAT32);
  EXPECT_EQ(sum.shape(), (Dims{2, 3}));
  EXPECT_EQ(sum.to_host<float>(), (std::vector<float>{11, 12, 14, 21, 22, 24}));
  EXPECT_EQ((column - row).to_host<float>(), (std::vector<float>{9, 8, 6, 19, 18, 16}));
  EXPECT_EQ((column * row).to_host<float>(), (std::vector<float>{10, 20, 40, 20, 40, 80}));
  EXPECT_EQ((column / row).to_host<float>(), (std::vector<float>{10, 5, 2.5, 20, 10, 5}));
  EXPECT_EQ((-row).to_host<int32_t>(), (std::vector<int32_t>{-1, -2, -4}));
  Tensor seven = Tensor::from_host<int32_t>(*device_, {7, -7}, {2});
  Tensor two = Tensor::from_host<int32_t>(*device_, {2, 2}, {2});
  EXPECT_EQ((seven / two).to_host<int32_t>(), (std::vector<int32_t>{3, -3}));  // truncating
}

TEST_F(CppWrapper, ComparisonsReturnBoolTensors) {
  Tensor a = Tensor::from_host<float>(*device_, {1, 2, 3}, {3});
  Tensor b = Tensor::from_host<double>(*device_, {2}, {1});
  EXPECT_EQ(eq(a, b).dtype(), DEVPLUG_DTYPE_BOOL);
  EXPECT_EQ(eq(a, b).to_host<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(ne(a, b).to_host<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(lt(a, b).to_host<bool>(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(le(a, b).to_host<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(gt(a, b).to_host<bool>(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(ge(a, b).to_host<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(where(lt(a, b), a, b).to_host<double>(), (std::vector<double>{1, 2, 2}));
}

TEST_F(CppWrapper, CallAndElementwiseInto) {
  Tensor a = Tensor::from_host<float>(*device_, {0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor out = Tensor::empty(*device_, DEVPLUG_DTYPE_FLOAT32, {1, 3});
  devplug_reduce_attrs_t rows{sizeof(rows), 0b1u, 0.0};
  call(DEVPLUG_OP_amax, {a}, {out}, &rows);
  EXPECT_EQ(out.to_host<float>(), (std::vector<float>{3, 4, 5}));
  Stream stream(*device_);
  Event done(*device_);
  call(DEVPLUG_OP_neg, {out}, {out}, nullptr, &stream);
  done.record(stream);
  device_->default_stream().wait(done);
  done.synchronize();
  stream.synchronize();
  EXPECT_EQ(stream.device().handle(), device_->handle());
  EXPECT_EQ(out.to_host<float>(), (std::vector<float>{-3, -4, -5}));
  Tensor wide = Tensor::empty(*device_, DEVPLUG_DTYPE_FLOAT64, {2, 3});
  elementwise_into(DEVPLUG_OP_add, {a, out}, wide);
  EXPECT_EQ(wide.to_host<double>(), (std::vector<double>{-3, -3, -3, 0, 0, 0}));
  Tensor copy = Tensor::empty(*device_, DEVPLUG_DTYPE_FLOAT32, {3, 2});
  copy.copy_from(a.transpose(0, 1));
  EXPECT_EQ(copy.to_host<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(promote_types(DEVPLUG_DTYPE_UINT8, DEVPLUG_DTYPE_INT8), DEVPLUG_DTYPE_INT16);
  EXPECT_EQ(broadcast_shapes({2, 1}, {3}), (Dims{2, 3}));
}

// ---- errors ----

TEST(CppWrapperErrors, ErrorCarriesCodeAndMessage) {
  Error e(DEVPLUG_CODE_NOT_FOUND, "no plugin x", 42);
  EXPECT_EQ(e.code(), DEVPLUG_CODE_NOT_FOUND);
  EXPECT_EQ(e.message(), "no plugin x");
  EXPECT_EQ(e.native_code(), 42);
  EXPECT_STREQ(e.what(), "NOT_FOUND: no plugin x");
}

TEST_F(CppWrapperNegative, LoadFailuresThrowAndAreRecorded) {
  try {
    context_.load("/nonexistent/libdevplug_missing.so");
    FAIL() << "load did not throw";
  } catch (const Error& e) {
    EXPECT_NE(e.code(), DEVPLUG_CODE_OK);
    EXPECT_NE(e.message().find("/nonexistent/libdevplug_missing.so"), std::string::npos);
  }
  ASSERT_EQ(context_.failures().size(), 1u);
  EXPECT_EQ(context_.failures()[0].path, "/nonexistent/libdevplug_missing.so");
  EXPECT_TRUE(Throws([&] { context_.find_plugin("missing"); }, DEVPLUG_CODE_NOT_FOUND, "missing"));
}

TEST_F(CppWrapperNegative, BadShapesAndDtypesThrow) {
  EXPECT_TRUE(Throws(
      [&] {
        Tensor::empty(*device_, DEVPLUG_DTYPE_FLOAT32, {2, -1});
      },
      DEVPLUG_CODE_INVALID_ARGUMENT, "shape[1] is -1"));
  EXPECT_TRUE(Throws([&] { Tensor::empty(*device_, 42, {2}); }, DEVPLUG_CODE_INVALID_ARGUMENT, "dtype"));
  Tensor t = Tensor::empty(*device_, DEVPLUG_DTYPE_FLOAT32, {2, 3});
  EXPECT_TRUE(Throws([&] { t.to_host<double>(); }, DEVPLUG_CODE_INVALID_ARGUMENT, "dtype"));
  EXPECT_TRUE(
      Throws([&] { t.copy_from_host(std::vector<float>(5)); }, DEVPLUG_CODE_INVALID_ARGUMENT, "size_bytes"));
  EXPECT_TRUE(Throws([&] { t.transpose(0, 1).reshape({6}); }, DEVPLUG_CODE_INVALID_ARGUMENT, "copy"));
  EXPECT_TRUE(Throws([&] { t.permute({0}); }, DEVPLUG_CODE_INVALID_ARGUMENT, "permute"));
  EXPECT_TRUE(Throws([&] { t.squeeze(0); }, DEVPLUG_CODE_INVALID_ARGUMENT, "size 2"));
  EXPECT_TRUE(Throws([&] { t.as_strided({7}, {1}, 0); }, DEVPLUG_CODE_INVALID_ARGUMENT, "outside"));
}

TEST_F(CppWrapperNegative, OperatorsAndCallsThrow) {
  Tensor a = Tensor::empty(*device_, DEVPLUG_DTYPE_FLOAT32, {2, 3});
  Tensor b = Tensor::empty(*device_, DEVPLUG_DTYPE_FLOAT32, {4});
  EXPECT_TRUE(Throws([&] { a + b; }, DEVPLUG_CODE_INVALID_ARGUMENT, "broadcast"));
  Tensor flags = Tensor::empty(*device_, DEVPLUG_DTYPE_BOOL, {3});
  EXPECT_TRUE(Throws([&] { flags - flags; }, DEVPLUG_CODE_INVALID_ARGUMENT, "bool"));
  EXPECT_TRUE(
      Throws([&] { call(DEVPLUG_OP_add, {a}, {a}); }, DEVPLUG_CODE_INVALID_ARGUMENT, "n_inputs is 1"));
  EXPECT_TRUE(
      Throws([&] { call(DEVPLUG_OP_sum, {a}, {a}); }, DEVPLUG_CODE_INVALID_ARGUMENT, "attrs is NULL"));
  EXPECT_TRUE(Throws([&] { elementwise(DEVPLUG_OP_add, {}); }, DEVPLUG_CODE_INVALID_ARGUMENT, "no inputs"));
  EXPECT_TRUE(Throws([&] { promote_types(DEVPLUG_DTYPE_FLOAT32, 77); }, DEVPLUG_CODE_INVALID_ARGUMENT, "77"));
  EXPECT_TRUE(Throws([&] { broadcast_shapes({2}, {3}); }, DEVPLUG_CODE_INVALID_ARGUMENT, "broadcast"));
}

}  // namespace
}  // namespace devplug
