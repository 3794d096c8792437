// SPDX-License-Identifier: Apache-2.0
// sdk::for_each_offset on layouts at the edge of int64: a dim of size 1 may carry any stride
// in a valid view (it is never multiplied by an index above 0), so the walk must not compute
// an offset past it in signed arithmetic. Found by fuzz_views (UBSan: signed overflow in
// strided.hpp when copy_strided walked shape [3, 1] with stride 2^63 - 2 on its inner dim);
// the sanitizer build (build-asan) fails this test on the old code.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "devplug/sdk/strided.hpp"

namespace sdk = devplug::sdk;

namespace {

std::vector<std::array<int64_t, 2>> walk(std::vector<int64_t> shape, std::vector<int64_t> a,
                                         std::vector<int64_t> b) {
  std::vector<std::array<int64_t, 2>> seen;
  sdk::for_each_offset<2>(static_cast<int32_t>(shape.size()), shape.data(), {a.data(), b.data()},
                          [&](const std::array<int64_t, 2>& at) { seen.push_back(at); });
  return seen;
}

TEST(ForEachOffset, HugeStridesOnSizeOneDimsDoNotOverflow) {
  const int64_t huge = INT64_MAX - 1;
  using Offsets = std::vector<std::array<int64_t, 2>>;
  EXPECT_EQ(walk({3, 1}, {1, huge}, {1, 1}), (Offsets{{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_EQ(walk({1, 2}, {INT64_MIN, 1}, {huge, 1}), (Offsets{{0, 0}, {1, 1}}));
  EXPECT_EQ(walk({2, 1, 2}, {2, INT64_MAX, -1}, {2, -huge, 1}), (Offsets{{0, 0}, {-1, 1}, {2, 2}, {1, 3}}));
}

TEST(ForEachOffset, LargestReachableOffsetsAreExact) {
  // The last element sits at INT64_MAX - 1: stepping past it is where the walk wraps.
  const int64_t step = (INT64_MAX - 1) / 2;
  using Offsets = std::vector<std::array<int64_t, 2>>;
  EXPECT_EQ(walk({3}, {step}, {-step}), (Offsets{{0, 0}, {step, -step}, {2 * step, -2 * step}}));
}

}  // namespace
