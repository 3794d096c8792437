// SPDX-License-Identifier: Apache-2.0
// The op suites: one GoogleTest test per generated case, in a suite per category, and one
// skipped test per (op, dtype) the plugin does not claim.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>

#include <gtest/gtest.h>

#include "harness/pool.hpp"
#include "harness/run_state.hpp"
#include "suites/suites.hpp"

namespace devplug::conform {
namespace {

const char* category_suite(devplug_category_t c) {
  switch (c) {
    case DEVPLUG_CATEGORY_unary:
      return "Unary/OpTest";
    case DEVPLUG_CATEGORY_binary:
      return "Binary/OpTest";
    case DEVPLUG_CATEGORY_compare:
      return "Compare/OpTest";
    case DEVPLUG_CATEGORY_ternary:
      return "Ternary/OpTest";
    case DEVPLUG_CATEGORY_data:
      return "Data/OpTest";
    case DEVPLUG_CATEGORY_reduce:
      return "Reduce/OpTest";
    case DEVPLUG_CATEGORY_scan:
      return "Scan/OpTest";
    case DEVPLUG_CATEGORY_index:
      return "Index/OpTest";
    case DEVPLUG_CATEGORY_shape:
      return "Shape/OpTest";
    case DEVPLUG_CATEGORY_linalg:
      return "Linalg/OpTest";
    case DEVPLUG_CATEGORY_composite:
      return "Composite/OpTest";
    default:
      return "Random/OpTest";
  }
}

// Full GoogleTest name ("Unary/OpTest.Matches/exp_...") -> case index.
std::map<std::string, size_t>& test_index() {
  static std::map<std::string, size_t> index;
  return index;
}

class OpTest : public testing::Test {
 public:
  explicit OpTest(long index) : index_(index) {}
  void TestBody() override {
    RunState& run = run_state();
    if (index_ < 0) GTEST_SKIP() << "unsupported: the plugin does not claim this (op, dtype)";
    const size_t i = static_cast<size_t>(index_);
    if (!run.ran[i]) GTEST_SKIP() << "not run: --fail-fast stopped the run at the first failure";
    const Case& c = run.cases[i];
    Result& r = run.results[i];
    if (r.status == Status::Unsupported) GTEST_SKIP() << "unsupported: " << r.message;
    const std::string& xfail = run.xfail_reason[i];
    const std::string repro = "repro: " + repro_command(c.name);
    if (is_failure(r.status)) {  // Pass and Fallback (right, through the CPU fallback) pass
      if (!xfail.empty()) {
        r.status = Status::Xfail;
        GTEST_SKIP() << "xfail (" << xfail << "): " << r.message;
      }
      ADD_FAILURE() << c.name << ": " << status_name(r.status) << "\n" << r.message << "\n" << repro;
      return;
    }
    if (!xfail.empty()) {
      r.status = Status::Xpass;
      ADD_FAILURE() << c.name << ": XPASS, listed as an expected failure (" << xfail
                    << ") but it passes: remove it from the xfail file\n"
                    << repro;
      return;
    }
    if (c.through_fallback && r.status == Status::Pass)
      r.message += "unclaimed, but ran without the fallback";
    if (!r.message.empty()) RecordProperty("note", r.message);
  }

 private:
  long index_;
};

// Draws progress on a terminal; plain lines every 10% otherwise.
void show_progress(size_t done, size_t total) {
  static const bool tty = ::isatty(2) != 0;
  static size_t last_tenth = 0;
  if (tty) {
    const int width = 40;
    const int filled = static_cast<int>(width * done / std::max<size_t>(total, 1));
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu cases", filled,
                 "========================================", width - filled, "", done, total);
    if (done == total) std::fprintf(stderr, "\n");
  } else {
    const size_t tenth = done * 10 / std::max<size_t>(total, 1);
    if (tenth != last_tenth || done == total) {
      std::fprintf(stderr, "devplug-conform: %zu/%zu cases run\n", done, total);
      last_tenth = tenth;
    }
  }
}

// Runs every selected op case before the test bodies report them.
class RunSelectedCases : public testing::Environment {
 public:
  void SetUp() override {
    RunState& run = run_state();
    std::vector<size_t> which;
    testing::UnitTest* unit = testing::UnitTest::GetInstance();
    for (int s = 0; s < unit->total_test_suite_count(); ++s) {
      const testing::TestSuite* suite = unit->GetTestSuite(s);
      for (int t = 0; t < suite->total_test_count(); ++t) {
        const testing::TestInfo* info = suite->GetTestInfo(t);
        if (!info->should_run()) continue;
        auto it = test_index().find(std::string(info->test_suite_name()) + "." + info->name());
        if (it != test_index().end()) which.push_back(it->second);
      }
    }
    const auto start = std::chrono::steady_clock::now();
    // --fail-fast: stop at the first case that fails unexpectedly (or passes while listed).
    std::function<bool(const Result&, size_t)> stop;
    if (run.options.fail_fast)
      stop = [&run, &which](const Result& r, size_t k) {
        const bool listed = !run.xfail_reason[which[k]].empty();
        return is_failure(r.status) ? !listed : listed && r.status == Status::Pass;
      };
    std::vector<std::optional<Result>> results =
        run_in_workers(run.options, run.cases, which, show_progress, stop);
    size_t not_run = 0;
    for (size_t k = 0; k < which.size(); ++k) {
      if (!results[k]) {
        ++not_run;
        continue;
      }
      run.results[which[k]] = std::move(*results[k]);
      run.ran[which[k]] = 1;
    }
    if (not_run > 0)
      std::fprintf(stderr, "devplug-conform: --fail-fast: stopped at the first failure, %zu cases not run\n",
                   not_run);
    run.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

}  // namespace

void register_op_tests(const std::string& filter) {
  RunState& run = run_state();
  (void)filter;  // the cases were filtered when made
  for (size_t i = 0; i < run.cases.size(); ++i) {
    const Case& c = run.cases[i];
    const char* suite = category_suite(devplug_op_info(c.op)->category);
    const std::string name = "Matches/" + c.name;
    test_index()[std::string(suite) + "." + name] = i;
    const long index = static_cast<long>(i);
    testing::RegisterTest(suite, name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [index]() -> testing::Test* { return new OpTest(index); });
  }
  for (const auto& u : run.unsupported) {
    const std::string name =
        std::string("Unsupported/") + devplug_op_name(u.first) + "_" + devplug_dtype_name(u.second);
    testing::RegisterTest(category_suite(devplug_op_info(u.first)->category), name.c_str(), nullptr, nullptr,
                          __FILE__, __LINE__, []() -> testing::Test* { return new OpTest(-1); });
  }
  testing::AddGlobalTestEnvironment(new RunSelectedCases);
}

}  // namespace devplug::conform
