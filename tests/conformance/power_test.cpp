// SPDX-License-Identifier: Apache-2.0
// Unit tests of what gives the suite its power: the op domains and the edges value class,
// the ill-conditioned data of reductions, scans and matmul, the size classes, and the
// tolerance rows that judge float64 against an exact reference (docs/conformance.md).
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "devplug/sdk/kernels.hpp"
#include "harness/compare.hpp"
#include "harness/domains.hpp"
#include "harness/elements.hpp"
#include "harness/generate.hpp"
#include "harness/values.hpp"
#include "tolerances.hpp"

namespace devplug::conform {
namespace {

devplug_op_t op_named(const std::string& name) {
  for (devplug_op_t id : sdk::all_ops())
    if (name == devplug_op_name(id)) return id;
  return DEVPLUG_OP_INVALID;
}

std::vector<double> input0(const std::vector<std::array<double, 2>>& tuples) {
  std::vector<double> v;
  for (const auto& t : tuples) v.push_back(t[0]);
  return v;
}

bool contains(const std::vector<double>& v, double x) {
  for (double y : v)
    if (y == x || (std::isnan(x) && std::isnan(y))) return true;
  return false;
}

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases =
      generate_cases([](devplug_op_t, devplug_dtype_t) { return true; }, false, 1);
  return cases;
}

const Case* find_case(const std::string& name) {
  for (const Case& c : all_cases())
    if (c.name == name) return &c;
  return nullptr;
}

TEST(Edges, ErfinvClosesInOnBothEdgesToTheLastUlp) {
  const std::vector<double> v =
      input0(edge_values(DEVPLUG_OP_erfinv, 1, DEVPLUG_DTYPE_FLOAT64, DEVPLUG_DTYPE_FLOAT64));
  EXPECT_TRUE(contains(v, 1.0));
  EXPECT_TRUE(contains(v, std::nextafter(1.0, 0.0)));  // 1 - 2^-53: (float)y rounds it to 1
  EXPECT_TRUE(contains(v, std::nextafter(1.0, 2.0)));  // outside: NaN
  EXPECT_TRUE(contains(v, -std::nextafter(1.0, 0.0)));
  EXPECT_TRUE(contains(v, 1 - std::ldexp(1.0, -26)));  // within 4e-8 of 1, on the ladder
  EXPECT_TRUE(contains(v, 1 - std::ldexp(1.0, -23)));  // about 1 - 1e-7
}

TEST(Edges, DigammaRootsWithTheirNeighbours) {
  const std::vector<double> v =
      input0(edge_values(DEVPLUG_OP_digamma, 1, DEVPLUG_DTYPE_FLOAT64, DEVPLUG_DTYPE_FLOAT64));
  for (double root : {1.4616321449683622, -0.5040830082644554, -2.6107208684441447, -9.702672540001863}) {
    EXPECT_TRUE(contains(v, root)) << root;
    EXPECT_TRUE(contains(v, std::nextafter(root, 10.0))) << root;
    EXPECT_TRUE(contains(v, std::nextafter(root, -10.0))) << root;
  }
  EXPECT_TRUE(contains(v, std::nextafter(-1.0, 0.0)));  // next to a pole
}

TEST(Edges, EveryValueIsRepresentableInItsDtypeAndTheDtypeEdgesAreThere) {
  for (devplug_dtype_t d : {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT32}) {
    const Format f = format_of(d);
    for (devplug_op_t op :
         {DEVPLUG_OP_exp, DEVPLUG_OP_tan, DEVPLUG_OP_lgamma, DEVPLUG_OP_pow, DEVPLUG_OP_hypot}) {
      const auto tuples = edge_values(op, devplug_op_info(op)->n_inputs, d, d);
      for (const auto& t : tuples) {
        for (double x : t) {
          uint8_t b[8];
          store_float(d, b, x);
          const double back = load_float(d, b);
          EXPECT_TRUE(back == x || (std::isnan(x) && std::isnan(back))) << devplug_op_name(op) << " " << x;
        }
      }
      const std::vector<double> v = input0(tuples);
      EXPECT_TRUE(contains(v, f.max) && contains(v, -f.min_sub) && contains(v, f.min_normal))
          << devplug_op_name(op);
    }
  }
}

TEST(Edges, CastsMeetTheTargetsOverflowBoundaryAndIntegerLimits) {
  const std::vector<double> to16 =
      input0(edge_values(DEVPLUG_OP_convert_element_type, 1, DEVPLUG_DTYPE_FLOAT64, DEVPLUG_DTYPE_FLOAT16));
  EXPECT_TRUE(contains(to16, 65504.0));
  EXPECT_TRUE(contains(to16, 65520.0));                       // rounds to Inf
  EXPECT_TRUE(contains(to16, std::nextafter(65520.0, 0.0)));  // rounds to 65504
  const std::vector<double> to32 =
      input0(edge_values(DEVPLUG_OP_convert_element_type, 1, DEVPLUG_DTYPE_FLOAT64, DEVPLUG_DTYPE_INT32));
  EXPECT_TRUE(contains(to32, 2147483647.0));
  EXPECT_TRUE(contains(to32, std::nextafter(2147483647.0, 3e9)));  // truncates to INT32_MAX
}

TEST(Generate, EveryFloatElementwiseOpHasAnEdgesCase) {
  for (devplug_op_t op : sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    const bool elementwise = info->category == DEVPLUG_CATEGORY_unary ||
                             info->category == DEVPLUG_CATEGORY_binary ||
                             info->category == DEVPLUG_CATEGORY_compare;
    if (!elementwise || !(info->dtypes & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64))) continue;
    bool found = false;
    for (const Case& c : all_cases())
      found = found || (c.op == op && c.dtype == DEVPLUG_DTYPE_FLOAT64 && c.values == "edges");
    EXPECT_TRUE(found) << info->name;
  }
}

TEST(Generate, ReductionSizesForceEveryStrategyAndHugeCasesAreFew) {
  // Several work-groups per output, one per output, many outputs, either side of 64 and 2^16.
  for (const char* name :
       {"sum_float32_groups_2x40000_random", "sum_float32_len65_3x65_random", "sum_float32_len63_3x63_random",
        "sum_float32_outputs_4100x3_random", "sum_int8_len65537_65537_random",
        "var_float64_corr1_len63_3x63_bigmean", "argmax_float16_groups_2x40000_runs",
        "cumsum_float64_len1025_3x1025_cancel", "matmul_float32_tiles_33x65x47_magnitudes",
        "matmul_float32_batches_65537x1x2x1_random"}) {
    EXPECT_NE(find_case(name), nullptr) << name;
  }
  std::set<std::string> huge;
  for (const Case& c : all_cases()) {
    int64_t n = 0;
    for (const TensorSpec& t : c.outputs) n = std::max(n, numel(t.shape));
    for (const TensorSpec& t : c.inputs) n = std::max(n, numel(t.shape));
    if (n > (int64_t{1} << 24)) huge.insert(c.name);
  }
  EXPECT_EQ(huge, (std::set<std::string>{"sum_float32_huge_16777219_runs", "cumsum_int32_huge_16777219_runs",
                                         "iota_float32_huge_16777219_halves"}));
  // Products never get values spanning many magnitudes (order-dependent overflow).
  EXPECT_EQ(find_case("prod_float64_groups_2x40000_magnitudes"), nullptr);
}

// The logical values of input 0 of a generated case.
std::vector<double> values_of(const Case& c) {
  const Placement p = place(c.inputs[0], 0);
  const Bytes storage = make_input_storage(c, 0, p, 1);
  const Bytes logical = logical_elements(storage, c.inputs[0], p);
  std::vector<double> v;
  const size_t es = devplug_dtype_size(c.inputs[0].dtype);
  for (size_t at = 0; at < logical.size(); at += es)
    v.push_back(load_as_double(c.inputs[0].dtype, &logical[at]));
  return v;
}

TEST(ValueClasses, LargeMeanSmallSpreadAlternatingSignsAndRuns) {
  const Case* big = find_case("var_float64_corr1_len63_3x63_bigmean");
  ASSERT_NE(big, nullptr);
  const std::vector<double> b = values_of(*big);
  const double mean = b[0];
  EXPECT_GE(mean, 1e4);
  for (double x : b) EXPECT_LE(std::fabs(x - mean), 2.0);

  const Case* cancel = find_case("sum_float32_len65_3x65_cancel");
  ASSERT_NE(cancel, nullptr);
  const std::vector<double> c = values_of(*cancel);
  for (size_t i = 0; i + 1 < c.size(); ++i) EXPECT_LT(c[i] * c[i + 1], 0) << i;

  const Case* runs = find_case("argmax_int32_groups_2x40000_runs");
  ASSERT_NE(runs, nullptr);
  const std::vector<double> r = values_of(*runs);
  size_t changes = 0;
  for (size_t i = 1; i < r.size(); ++i) changes += r[i] != r[i - 1];
  EXPECT_LT(changes, r.size() / 8);  // runs average 16 long
  EXPECT_GT(changes, r.size() / 64);
}

TEST(Tolerances, Float64RowsAreTheirOwnAndSayWhatChanged) {
  Case c;
  c.outputs.resize(1);
  c.outputs[0].dtype = DEVPLUG_DTYPE_FLOAT64;
  for (const char* op : {"digamma", "lgamma"}) {
    c.op = op_named(op);
    const Tolerance t = tolerance_for(c, false);
    EXPECT_EQ(t.abs_eps, 0) << op;  // the reference is exact next to the zeros too
    EXPECT_LE(t.ulps, 4) << op;
    EXPECT_NE(std::string(t.reason).find("Was "), std::string::npos) << op;
  }
  c.op = op_named("div");
  EXPECT_EQ(tolerance_for(c, false).kind, TolKind::Exact);
  c.outputs[0].dtype = DEVPLUG_DTYPE_FLOAT32;
  c.op = op_named("digamma");
  EXPECT_GT(tolerance_for(c, false).abs_eps, 0);  // float32 keeps its absolute slack
}

TEST(Judge, VarianceBoundCatchesOnePassDriftButAdmitsTwoPass) {
  Case var;
  var.op = op_named("var");
  TensorSpec in;
  in.dtype = DEVPLUG_DTYPE_FLOAT64;
  in.shape = {64};
  TensorSpec out = in;
  out.shape = {1};
  var.inputs = {in};
  var.outputs = {out};
  var.attrs.kind = Attrs::Reduce;
  var.attrs.reduce = {sizeof(devplug_reduce_attrs_t), 1, 1.0};
  var.reduction_length = 64;
  const Tolerance t = tolerance_for(var, false);
  ASSERT_EQ(t.kind, TolKind::Variance);
  // Data 2^20 + U(-1, 1): variance about 1/3, sum x^2 / 63 about 2^40.
  Bytes input(64 * 8);
  for (int i = 0; i < 64; ++i)
    store_float(DEVPLUG_DTYPE_FLOAT64, &input[8 * i], std::ldexp(1.0, 20) + ((i * 37) % 64) / 32.0 - 1);
  const std::vector<double> moments = var_second_moments(var, input);
  ASSERT_EQ(moments.size(), 1u);
  EXPECT_NEAR(moments[0], std::ldexp(1.0, 40) * 64 / 63, 1e6);
  auto bytes = [](double x) {
    Bytes b(8);
    store_float(DEVPLUG_DTYPE_FLOAT64, b.data(), x);
    return b;
  };
  const double v = 1.0 / 3;
  // Two-pass: a few ulp. One-pass (Welford) on this data: about 1e-11 relative.
  EXPECT_TRUE(judge(var, t, bytes(v), bytes(v * (1 + 4e-15)), {}, {}, {}, 0, moments).ok);
  EXPECT_FALSE(judge(var, t, bytes(v), bytes(v * (1 + 1e-11)), {}, {}, {}, 0, moments).ok);
}

}  // namespace
}  // namespace devplug::conform
