// SPDX-License-Identifier: Apache-2.0
// The one table of tolerances: how a plugin's result is judged against the reference, per op
// family and dtype, each row with its reason (printed when a case fails). See
// docs/conformance.md for the derivations.
#pragma once

#include "harness/case.hpp"

namespace devplug::conform {

enum class TolKind {
  Exact,       // equal values (NaN matches NaN)
  Ulp,         // within `ulps` units in the last place of the output dtype, or |err| <= abs
  Accumulate,  // |err| <= c * n * eps_acc * (sum of |terms|) + 1 ulp: sums, matmul
  Relative,    // |err| <= c * n * eps_acc * |ref| + 1 ulp: products
  Variance,    // |err| <= c * n * eps_acc * (|ref| + n * eps_acc * sum(x^2) / (n - corr)) + 1 ulp
  Normwise,    // |err| <= c * n * eps_acc * max|ref over the output| + 1 ulp: composites
};

struct Tolerance {
  const char* rule;  // the row's name ("transcendental float32/float64")
  TolKind kind = TolKind::Exact;
  double ulps = 0;           // Ulp
  double abs_eps = 0;        // Ulp: absolute slack in units of the dtype's epsilon
  double c = 1;              // Accumulate, Relative
  bool signed_zero = false;  // -0.0 and +0.0 are told apart
  const char* reason;
};

// The row that judges output `output` of `c`; with `bitwise` every row becomes bit-exact.
Tolerance tolerance_for(const Case& c, bool bitwise, size_t output = 0);

}  // namespace devplug::conform
