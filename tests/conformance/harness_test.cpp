// SPDX-License-Identifier: Apache-2.0
// Unit tests of the conformance harness that need no plugin: placement of views, the
// tolerance table, the comparison, case generation, xfail files and the order in which
// workers get cases.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <set>

#include <gtest/gtest.h>

#include "devplug/sdk/kernels.hpp"
#include "harness/case_queue.hpp"
#include "harness/compare.hpp"
#include "harness/elements.hpp"
#include "harness/generate.hpp"
#include "harness/xfail.hpp"
#include "tolerances.hpp"

namespace devplug::conform {
namespace {

TEST(Placement, EveryViewStaysInsideItsStorageWithGuards) {
  for (View v : {View::Dense, View::Transposed, View::Sliced, View::Negative, View::Broadcast, View::Overlap,
                 View::Offset}) {
    TensorSpec s;
    s.shape = {7, 13};
    s.view = v;
    const Placement p = place(s, 4);
    int64_t lo = p.offset, hi = p.offset;
    for (size_t k = 0; k < 2; ++k) {
      const int64_t span = (s.shape[k] - 1) * p.strides[k];
      (span < 0 ? lo : hi) += span;
    }
    EXPECT_GE(lo, 4) << view_name(v);
    EXPECT_LE(hi, p.storage_elems - 1 - 4) << view_name(v);
  }
}

TEST(Placement, NegativeAndBroadcastStrides) {
  TensorSpec s;
  s.shape = {3, 5};
  s.view = View::Negative;
  EXPECT_EQ(place(s, 0).strides[1], -1);
  s.view = View::Broadcast;
  EXPECT_EQ(place(s, 0).strides[0], 0);
  s.view = View::Sliced;
  EXPECT_EQ(place(s, 0).strides[1], 2);
}

Bytes floats(std::initializer_list<float> values) {
  Bytes b(values.size() * 4);
  size_t i = 0;
  for (float v : values) store_float(DEVPLUG_DTYPE_FLOAT32, &b[4 * i++], v);
  return b;
}

Case float_case(const char* op) {
  Case c;
  for (devplug_op_t id : sdk::all_ops())
    if (std::string(devplug_op_name(id)) == op) c.op = id;
  c.dtype = DEVPLUG_DTYPE_FLOAT32;
  TensorSpec t;
  t.shape = {3};
  c.inputs = {t};
  c.outputs = {t};
  return c;
}

TEST(Judge, ExactRowRejectsOneUlpAndUlpRowAcceptsIt) {
  const float one_up = std::nextafter(1.0f, 2.0f);
  const Bytes ref = floats({1.0f, 2.0f, NAN}), got = floats({one_up, 2.0f, NAN});
  const Case add = float_case("add"), exp = float_case("exp");
  EXPECT_FALSE(judge(add, tolerance_for(add, false), ref, got, {}, {}, {}).ok);
  const Judgement j = judge(exp, tolerance_for(exp, false), ref, got, {}, {}, {});
  EXPECT_TRUE(j.ok) << j.detail;
  EXPECT_EQ(j.max_ulp, 1);
}

TEST(Judge, NanMustMatchNanAndSignedZeroIsToldApartWhereItMatters) {
  const Case neg = float_case("neg"), add = float_case("add");
  EXPECT_FALSE(judge(add, tolerance_for(add, false), floats({NAN, 0, 0}), floats({1, 0, 0}), {}, {}, {}).ok);
  EXPECT_FALSE(
      judge(neg, tolerance_for(neg, false), floats({-0.0f, 0, 0}), floats({0.0f, 0, 0}), {}, {}, {}).ok);
  EXPECT_TRUE(
      judge(add, tolerance_for(add, false), floats({-0.0f, 0, 0}), floats({0.0f, 0, 0}), {}, {}, {}).ok);
}

TEST(Judge, UnspecifiedElementsAreNotCompared) {
  const Case add = float_case("add");
  EXPECT_TRUE(
      judge(add, tolerance_for(add, false), floats({1, 2, 3}), floats({9, 2, 3}), {}, {1, 0, 0}, {}).ok);
}

TEST(Judge, MostlyZerosIsSuspiciousAndPoisonIsNamed) {
  const Case add = float_case("add");
  Case c = add;
  c.inputs[0].shape = c.outputs[0].shape = {5};
  const Judgement j =
      judge(c, tolerance_for(c, false), floats({1, 2, 3, 4, 5}), floats({0, 0, 0, 0, 5}), {}, {}, {});
  EXPECT_FALSE(j.ok);
  EXPECT_NE(j.detail.find("suspicious"), std::string::npos);
  const Bytes poison(4, 0xA5);
  Bytes got = floats({1, 2, 3});
  std::copy(poison.begin(), poison.end(), got.begin());
  EXPECT_NE(
      judge(add, tolerance_for(add, false), floats({1, 2, 3}), got, {}, {}, poison).detail.find("unwritten"),
      std::string::npos);
}

TEST(Judge, AccumulationBoundGrowsWithLength) {
  Case sum = float_case("sum");
  sum.reduction_length = 1000;
  const Tolerance t = tolerance_for(sum, false);
  EXPECT_EQ(t.kind, TolKind::Accumulate);
  // 1000 terms of magnitude sum 1000: an error of 1e-5 is inside 1000 * 2^-23 * 1000.
  EXPECT_TRUE(judge(sum, t, floats({1.0f, 0, 0}), floats({1.00001f, 0, 0}), floats({1000, 0, 0}), {}, {}).ok);
  sum.reduction_length = 1;
  EXPECT_FALSE(judge(sum, t, floats({1.0f, 0, 0}), floats({1.00001f, 0, 0}), floats({1, 0, 0}), {}, {}).ok);
}

TEST(Tolerances, BitwiseIsExactEverywhereAndEveryRowHasAReason) {
  for (devplug_op_t op : sdk::all_ops()) {
    Case c = float_case("exp");
    c.op = op;
    for (devplug_dtype_t d : {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_INT32}) {
      c.outputs[0].dtype = d;
      const Tolerance t = tolerance_for(c, false);
      EXPECT_TRUE(t.reason != nullptr && std::string(t.reason).size() > 10) << devplug_op_name(op);
      if (!is_float(d)) {
        EXPECT_EQ(t.kind, TolKind::Exact);
      }
      EXPECT_EQ(tolerance_for(c, true).kind, TolKind::Exact);
    }
  }
}

TEST(Generate, EveryOpAndDtypeOfTheTableGetsUniquelyNamedCases) {
  const std::vector<Case> cases =
      generate_cases([](devplug_op_t, devplug_dtype_t) { return true; }, false, 1);
  std::set<std::string> names;
  std::set<std::pair<devplug_op_t, devplug_dtype_t>> covered;
  for (const Case& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate " << c.name;
    covered.insert({c.op, c.dtype});
  }
  for (devplug_op_t op : sdk::all_ops())
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
      if (devplug_op_info(op)->dtypes & DEVPLUG_DTYPE_BIT(d)) {
        EXPECT_TRUE(covered.count({op, d})) << devplug_op_name(op) << " " << devplug_dtype_name(d);
      }
}

TEST(Generate, UnclaimedPairsAreLeftOutUnlessFallbackIsAllowed) {
  auto only_exp = [](devplug_op_t op, devplug_dtype_t) { return op == DEVPLUG_OP_exp; };
  // Composites always run (natively or decomposed), so only prims are left out.
  for (const Case& c : generate_cases(only_exp, false, 1)) {
    if (devplug_op_info(c.op)->category != DEVPLUG_CATEGORY_composite) {
      EXPECT_EQ(c.op, DEVPLUG_OP_exp);
    }
  }
  size_t fallback = 0;
  for (const Case& c : generate_cases(only_exp, true, 1)) fallback += c.through_fallback;
  EXPECT_GT(fallback, 0u);
}

TEST(Xfail, PatternsReasonsAndComments) {
  const std::string path = ::testing::TempDir() + "/conform.xfail";
  std::ofstream(path) << "# comment\nexp_float16_*   float16 exp is 2 ulp off  # why\n\nsum_*_large_* slow\n";
  std::string error;
  const auto entries = read_xfail_file(path, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(xfail_reason(entries, "exp_float16_contiguous_7x13_random"), "float16 exp is 2 ulp off");
  EXPECT_EQ(xfail_reason(entries, "exp_float32_contiguous_7x13_random"), "");
  std::ofstream(path) << "exp_*\n";
  read_xfail_file(path, &error);
  EXPECT_FALSE(error.empty());
}

// Found by the xfail fuzzer's property (tests/fuzz/fuzz_xfail.cpp): a file with Windows line
// ends kept the CR, so "exp_* \r" was an entry whose reason was an invisible CR.
TEST(Xfail, WindowsLineEndsAndBlankReasons) {
  std::istringstream crlf("exp_float16_*  rounds twice\r\nsum_* slow\r\n");
  std::string error;
  const auto entries = parse_xfail(crlf, "crlf.xfail", &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].reason, "rounds twice");
  EXPECT_EQ(entries[1].reason, "slow");
  for (const char* text : {"exp_* \r\n", "exp_*\t\v\f\n"}) {
    std::istringstream blank(text);
    error.clear();
    EXPECT_TRUE(parse_xfail(blank, "blank.xfail", &error).empty());
    EXPECT_EQ(error, "blank.xfail:1: a pattern needs a reason") << "for " << text;
  }
}

TEST(CaseQueue, EachWorkerRunsWholeGroupsThenHelpsWithTheLargestLeft) {
  //                                      0    1    2    3    4    5    6    7
  const std::vector<std::string> keys = {"a", "a", "a", "b", "b", "c", "a", "d"};
  CaseQueue queue(keys);
  std::vector<long> got0, got1;
  got0.push_back(queue.next(0));  // group a
  got1.push_back(queue.next(1));  // group b
  got0.push_back(queue.next(0));
  got1.push_back(queue.next(1));
  got0.push_back(queue.next(0));
  got1.push_back(queue.next(1));  // b is done: c
  got1.push_back(queue.next(1));  // c is done: d, the last group
  got1.push_back(queue.next(1));  // nothing untouched: the back of a, which has the most left
  EXPECT_EQ(got0, (std::vector<long>{0, 1, 2}));
  EXPECT_EQ(got1, (std::vector<long>{3, 4, 5, 7, 6}));
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.next(0), -1);
  EXPECT_EQ(queue.next(5), -1);
}

TEST(CaseQueue, EveryEntryComesOutOnceWhateverTheWorkers) {
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back(std::to_string(i % 7) + "/" + std::to_string(i / 30));
  CaseQueue queue(keys);
  std::multiset<long> seen;
  for (size_t turn = 0; !queue.empty(); ++turn) seen.insert(queue.next(turn % 3));
  ASSERT_EQ(seen.size(), keys.size());
  for (long i = 0; i < 100; ++i) EXPECT_EQ(seen.count(i), 1u) << i;
  EXPECT_EQ(kernel_group("exp", "float32"), "exp/float32");
}

}  // namespace
}  // namespace devplug::conform
