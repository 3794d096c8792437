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
Judgement judge(const Case& c, const Tolerance& tol, const Bytes& ref, const Bytes& got,
                const Bytes& magnitude, const std::vector<char>& unspecified, const Bytes& poison,
                size_t output = 0);

}  // namespace devplug::conform
