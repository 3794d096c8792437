// SPDX-License-Identifier: Apache-2.0
// Every composite op, through its decomposition, against the reference's direct composite:
// the prims-only fixture (the reference's prims, none of its composites) runs every case the
// conformance generator makes for the op, in every dtype, and each output is judged with the
// conformance tolerance table. The context has no CPU fallback, and no call may fall back:
// a prims-only plugin runs every composite on its own prims. The temporaries of a repeated
// decomposition come from the caching allocator, never from the plugin.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "devplug/devplug.h"
#include "devplug/sdk/kernels.hpp"
#include "harness/composite_cases.hpp"
#include "harness/session.hpp"
#include "test_counter.hpp"

namespace devplug::conform {
namespace {

Options prims_only_options() {
  Options o;
  o.plugin_path = DEVPLUG_PRIMS_ONLY_PLUGIN_PATH;
  o.reference_path = DEVPLUG_REFERENCE_PLUGIN_PATH;
  o.seed = 1;
  return o;
}

class Decomposition : public testing::TestWithParam<devplug_op_t> {};

TEST_P(Decomposition, MatchesTheReferenceWithNoFallback) {
  const devplug_op_info_t& info = *devplug_op_info(GetParam());
  const Options options = prims_only_options();
  Session session(options);  // NO_FALLBACK: a fallback would be an error
  ASSERT_TRUE(session.error().empty()) << session.error();
  bool native = true;
  ASSERT_EQ(devplug_plugin_supports(session.plugin(), info.id, DEVPLUG_DTYPE_FLOAT32, &native, nullptr),
            nullptr);
  EXPECT_FALSE(native) << "the prims-only fixture must not declare " << info.name;
  int cases = 0;
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
    if (!(info.dtypes & DEVPLUG_DTYPE_BIT(d))) continue;
    for (Case& c : composite_cases(info, d, options.seed)) {
      c.decomposed = true;
      const Result r = run_case(session, c, options);
      EXPECT_EQ(r.status, Status::Pass) << c.name << ": " << status_name(r.status) << "\n" << r.message;
      ++cases;
    }
  }
  EXPECT_GT(cases, 0);
  uint64_t fallbacks = 1;
  ASSERT_EQ(devplug_context_fallback_count(session.context(), DEVPLUG_OP_INVALID, &fallbacks), nullptr);
  EXPECT_EQ(fallbacks, 0u) << "a prims-only plugin ran part of " << info.name << " on the CPU fallback";
}

std::vector<devplug_op_t> composite_ops() { return sdk::ops_in_category(DEVPLUG_CATEGORY_composite); }

INSTANTIATE_TEST_SUITE_P(Composite, Decomposition, testing::ValuesIn(composite_ops()),
                         [](const testing::TestParamInfo<devplug_op_t>& p) {
                           return std::string(devplug_op_name(p.param));
                         });

// A decomposition's temporaries come from the dispatcher's caching allocator: once a first
// call has warmed the cache, the same call again reaches the plugin's buffer_allocate for
// nothing.
TEST(CompositeTemporaries, ComeFromTheCachingAllocator) {
  const Options options = prims_only_options();
  Session session(options);
  ASSERT_TRUE(session.error().empty()) << session.error();
  const devplug_op_info_t& info = *devplug_op_info(DEVPLUG_OP_layer_norm);
  const std::vector<Case> cases = composite_cases(info, DEVPLUG_DTYPE_FLOAT16, 1);
  const Case* transformer = nullptr;
  for (const Case& c : cases)
    if (c.name.find("transformer") != std::string::npos) transformer = &c;
  ASSERT_NE(transformer, nullptr);
  ASSERT_EQ(run_case(session, *transformer, options).status, Status::Pass);  // warms the cache
  // The case allocates its own inputs and outputs through the host API (each a buffer of the
  // cache too); the same case again finds every buffer it needs in the cache.
  const long before = devplug_test_buffer_allocations;
  ASSERT_EQ(run_case(session, *transformer, options).status, Status::Pass);
  EXPECT_EQ(devplug_test_buffer_allocations - before, 0) << "a repeated layer_norm reached buffer_allocate";
}

}  // namespace
}  // namespace devplug::conform
