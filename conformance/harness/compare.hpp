// SPDX-License-Identifier: Apache-2.0
// The one place where a plugin's output is compared with the reference's.
#pragma once

#include <string>
#include <vector>

#include "harness/values.hpp"
#include "tolerances.hpp"

namespace devplug::conform {

struct Judgement {
  bool ok = true;
  double max_ulp = 0, max_abs = 0, max_rel = 0;
  std::string detail;  // the first bad elements, or why the output is suspicious
};

// Compares output `output` (`got`, row-major) with the reference's (`ref`) under `tol`.
// Elements marked in `unspecified` are skipped. `magnitude` is the reference op run on
// |inputs| (Accumulate rows; may be empty). `poison` is one element of the poison pattern,
// used to say "unwritten" when a bad element still holds it.
//
// `moments` (Variance rows) holds, per output element, sum(x^2) / max(1, n - correction)
// over its reduced elements (var_second_moments), the scale of the two-pass bound's
// second-order term; empty elsewhere.
Judgement judge(const Case& c, const Tolerance& tol, const Bytes& ref, const Bytes& got,
                const Bytes& magnitude, const std::vector<char>& unspecified, const Bytes& poison,
                size_t output = 0, const std::vector<double>& moments = {});

// For a reduction case `c` with row-major input elements `input`: per output element (row-
// major), the sum of the squares of its reduced elements divided by max(1, n - correction).
std::vector<double> var_second_moments(const Case& c, const Bytes& input);

}  // namespace devplug::conform
