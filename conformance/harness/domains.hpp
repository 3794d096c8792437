// SPDX-License-Identifier: Apache-2.0
// Each op's domain, declared once: the interval its random inputs are drawn from, and the
// hard points of its function (domain edges, poles, roots, overflow and underflow
// thresholds, points of bad conditioning), around which the `edges` value class draws its
// values. Keyed by the op's ops.def id (DEVPLUG_OP_exp), so a misspelled op does not
// compile; an op not named here draws from the default interval and gets only the dtype's
// own edges (largest, smallest normal, smallest subnormal). docs/conformance.md lists the
// points per op.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "devplug/ops.h"

namespace devplug::conform {

// The numbers of a floating dtype's format.
struct Format {
  int mant = 52;          // fraction bits
  int min_exp = -1022;    // exponent of the smallest normal
  int max_exp = 1023;     // exponent of the largest finite value
  double max = 0;         // largest finite value
  double min_normal = 0;  // smallest positive normal
  double min_sub = 0;     // smallest positive subnormal
  double eps = 0;         // 2^-mant
};
Format format_of(devplug_dtype_t d);

// An interval random floats are drawn from.
struct Interval {
  double lo = -4, hi = 4;
};

// The interval of input `input` of `op`'s random floats; `terms` is the number of terms
// behind one output element (products of long lines draw closer to 1, so that they neither
// overflow nor underflow).
Interval random_interval(devplug_op_t op, size_t input, int64_t terms = 1);

// A hard point of a function of one or two inputs: `at` is the point (inputs 0 and 1);
// bit k of `moves` says that input k walks toward at[k] while the other stays at the point.
struct HardPoint {
  std::array<double, 2> at{0, 0};
  unsigned moves = 1;
};

// The hard points of `op` for inputs of format `in` (and, for casts, outputs of format
// `out`), before rounding to the dtype. Empty for ops with none of their own.
std::vector<HardPoint> hard_points(devplug_op_t op, const Format& in, const Format& out);

// The values of the `edges` class of `op` with inputs of dtype `in` and output of dtype
// `out`, as tuples (input 0, input 1), each already rounded to `in`: for every hard point,
// the point itself, its neighbours one and two ulps either side, and a ladder closing in
// on it from both sides (relative distances 2^-2, 2^-5, ... down to about one ulp; for a
// point at zero, powers of two down to the smallest subnormal); then the dtype's own edges
// (largest finite, smallest normal, smallest subnormal, each signed, with their
// neighbours). `inputs` is the op's number of inputs (1 or 2). Deterministic.
std::vector<std::array<double, 2>> edge_values(devplug_op_t op, int inputs, devplug_dtype_t in,
                                               devplug_dtype_t out);

}  // namespace devplug::conform
