// SPDX-License-Identifier: Apache-2.0
// Op domains: random intervals, hard points and the edges value class (see domains.hpp).
#include "harness/domains.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "harness/elements.hpp"

namespace devplug::conform {

Format format_of(devplug_dtype_t d) {
  Format f;
  f.mant = d == DEVPLUG_DTYPE_FLOAT16    ? 10
           : d == DEVPLUG_DTYPE_BFLOAT16 ? 7
           : d == DEVPLUG_DTYPE_FLOAT32  ? 23
                                         : 52;
  f.min_exp = d == DEVPLUG_DTYPE_FLOAT16 ? -14 : d == DEVPLUG_DTYPE_FLOAT64 ? -1022 : -126;
  f.max_exp = d == DEVPLUG_DTYPE_FLOAT16 ? 15 : d == DEVPLUG_DTYPE_FLOAT64 ? 1023 : 127;
  f.max = std::ldexp(2.0 - std::ldexp(1.0, -f.mant), f.max_exp);
  f.min_normal = std::ldexp(1.0, f.min_exp);
  f.min_sub = std::ldexp(1.0, f.min_exp - f.mant);
  f.eps = std::ldexp(1.0, -f.mant);
  return f;
}

Interval random_interval(devplug_op_t op, size_t input, int64_t terms) {
  if (op == DEVPLUG_OP_log || op == DEVPLUG_OP_log2 || op == DEVPLUG_OP_log10 || op == DEVPLUG_OP_sqrt ||
      op == DEVPLUG_OP_rsqrt)
    return {0.01, 100};
  if (op == DEVPLUG_OP_log1p) return {-0.99, 50};
  if (op == DEVPLUG_OP_asin || op == DEVPLUG_OP_acos || op == DEVPLUG_OP_atanh || op == DEVPLUG_OP_erfinv)
    return {-0.999, 0.999};
  if (op == DEVPLUG_OP_acosh) return {1, 50};
  if (op == DEVPLUG_OP_exp || op == DEVPLUG_OP_exp2 || op == DEVPLUG_OP_expm1 || op == DEVPLUG_OP_sinh ||
      op == DEVPLUG_OP_cosh)
    return {-10, 10};
  if (op == DEVPLUG_OP_tan) return {-1.5, 1.5};
  if (op == DEVPLUG_OP_lgamma || op == DEVPLUG_OP_digamma) return {0.1, 20};
  if (op == DEVPLUG_OP_prod || op == DEVPLUG_OP_cumprod) {
    // The log of a product of n factors from (1 - w, 1 + w) drifts by about -n w^2 / 6 with
    // spread sqrt(n / 3) w: w = 4 / sqrt(n) keeps both near 3, far from over- and underflow.
    const double w = std::min(0.5, 4 / std::sqrt(static_cast<double>(std::max<int64_t>(terms, 1))));
    return {1 - w, 1 + w};
  }
  if (op == DEVPLUG_OP_pow) return input == 0 ? Interval{0.1, 4} : Interval{-4, 4};
  if (op == DEVPLUG_OP_convert_element_type) return {-300, 300};
  if (op == DEVPLUG_OP_matmul || op == DEVPLUG_OP_var) return {-1, 1};
  return {};
}

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kNeighbours = 2;  // representable values either side of every point

// x where a decreasing f(x) falls through `level`, by bisection on [lo, hi] (thresholds of
// erf, erfc and lgamma: the place matters to within the ladder's first steps only; the
// ladder and the one-ulp neighbours cover the exact crossing).
// Geometric midpoints while the interval spans more than a factor 2, so that a threshold
// near 1e305 is found to the last bit as well as one near 27.
double crossing(const std::function<double(double)>& f, double level, double lo, double hi) {
  const bool rising = f(hi) > f(lo);
  for (int i = 0; i < 2200 && lo < hi; ++i) {
    const double mid = (lo > 0 && hi > 2 * lo) ? std::sqrt(lo) * std::sqrt(hi) : lo + 0.5 * (hi - lo);
    if (mid <= lo || mid >= hi) break;
    if ((f(mid) < level) == rising)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

HardPoint one(double x) { return {{x, 0}, 1}; }
// Input 0 walks toward a, input 1 stays at b.
HardPoint first(double a, double b) { return {{a, b}, 1}; }
// Input 1 walks toward b, input 0 stays at a.
HardPoint second(double a, double b) { return {{a, b}, 2}; }
// Both walk, in step.
HardPoint both(double a, double b) { return {{a, b}, 3}; }

using PointsFn = std::function<std::vector<HardPoint>(const Format& in, const Format& out)>;

struct Row {
  std::vector<devplug_op_t> ops;
  PointsFn points;
};

// Roots of digamma (the positive one and the first ten negative ones, then two far out) and
// of lgamma (1, 2 and the negative ones), the double nearest each, computed with mpmath
// (bisection at 200 bits).
const double kDigammaRoots[] = {
    1.4616321449683622, -0.5040830082644554, -1.5734984731623904, -2.6107208684441447, -3.635293366436901,
    -4.653237761743142, -5.6671624415568855, -6.678418213073427,  -7.687788325031626,  -8.695764163816401,
    -9.702672540001863, -99.80953650218777,  -999.8641415089436};
const double kLgammaRoots[] = {1.0,
                               2.0,
                               -2.4570247382208006,
                               -2.7476826467274127,
                               -3.14358088834998,
                               -3.955294284858598,
                               -4.039361839740537,
                               -4.991544640560048};

const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      // Exponentials: overflow, underflow to zero, the first subnormal result, and 0.
      {{DEVPLUG_OP_exp},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(std::log(f.max)), one(std::log(f.min_sub)),
                                       one(std::log(f.min_normal)), one(0)};
       }},
      {{DEVPLUG_OP_exp2},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(f.max_exp + 1), one(f.min_exp - f.mant), one(f.min_exp), one(0)};
       }},
      // expm1: tiny arguments must keep their relative accuracy; it saturates at -1.
      {{DEVPLUG_OP_expm1},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(0), one(std::log(f.max)), one(-(f.mant + 2) * std::log(2.0))};
       }},
      // Logarithms: the result vanishes at 1 (relative accuracy), -Inf at 0 (through the
      // subnormals), the largest values.
      {{DEVPLUG_OP_log, DEVPLUG_OP_log2, DEVPLUG_OP_log10},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(1), one(0), one(f.max)};
       }},
      {{DEVPLUG_OP_log1p},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(-1), one(0), one(f.max)};
       }},
      {{DEVPLUG_OP_sqrt, DEVPLUG_OP_rsqrt, DEVPLUG_OP_cbrt, DEVPLUG_OP_reciprocal},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(0), one(1), one(f.max), one(-f.max)};
       }},
      // Trigonometry: the roots of sin and cos (relative accuracy needs an exact argument
      // reduction) and the poles of tan, near and far.
      {{DEVPLUG_OP_sin},
       [](const Format&, const Format&) {
         return std::vector<HardPoint>{one(0),       one(kPi),      one(-kPi),
                                       one(2 * kPi), one(10 * kPi), one(1000 * kPi)};
       }},
      {{DEVPLUG_OP_cos},
       [](const Format&, const Format&) {
         return std::vector<HardPoint>{one(0),         one(kPi / 2),    one(-kPi / 2),
                                       one(1.5 * kPi), one(10.5 * kPi), one(1000.5 * kPi)};
       }},
      {{DEVPLUG_OP_tan},
       [](const Format&, const Format&) {
         return std::vector<HardPoint>{one(0),   one(kPi / 2),    one(-kPi / 2),    one(1.5 * kPi),
                                       one(kPi), one(10.5 * kPi), one(1000.5 * kPi)};
       }},
      {{DEVPLUG_OP_asin, DEVPLUG_OP_acos, DEVPLUG_OP_atanh, DEVPLUG_OP_erfinv},
       [](const Format&, const Format&) {
         return std::vector<HardPoint>{one(1), one(-1), one(0)};
       }},
      {{DEVPLUG_OP_atan},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(0), one(1), one(f.max), one(-std::ldexp(1.0, f.mant + 2))};
       }},
      // Hyperbolic: overflow of sinh and cosh (at log(2 max)), tanh's saturation at +-1.
      {{DEVPLUG_OP_sinh, DEVPLUG_OP_cosh},
       [](const Format& f, const Format&) {
         const double t = std::log(f.max) + std::log(2.0);
         return std::vector<HardPoint>{one(0), one(t), one(-t)};
       }},
      {{DEVPLUG_OP_tanh},
       [](const Format& f, const Format&) {
         const double s = 0.5 * (f.mant + 2) * std::log(2.0);
         return std::vector<HardPoint>{one(0), one(s), one(-s)};
       }},
      // asinh and acosh: x^2 overflows long before the result does.
      {{DEVPLUG_OP_asinh},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(0), one(std::sqrt(f.max)), one(-f.max)};
       }},
      {{DEVPLUG_OP_acosh},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(1), one(std::sqrt(f.max)), one(f.max)};
       }},
      // erf saturates at +-1 where erfc(x) drops below eps / 4; erfc underflows far out.
      {{DEVPLUG_OP_erf},
       [](const Format& f, const Format&) {
         const double s = crossing([](double x) { return std::erfc(x); }, f.eps / 4, 0, 30);
         return std::vector<HardPoint>{one(0), one(s), one(-s)};
       }},
      {{DEVPLUG_OP_erfc},
       [](const Format& f, const Format&) {
         const double s = crossing([](double x) { return std::erfc(x); }, f.eps / 4, 0, 30);
         const double u = crossing([](double x) { return std::erfc(x); }, f.min_sub, 0, 30);
         return std::vector<HardPoint>{
             one(0), one(-s), one(u),
             one(crossing([](double x) { return std::erfc(x); }, f.min_normal, 0, 30))};
       }},
      // lgamma: poles at 0 and the negative integers, its roots, and overflow.
      {{DEVPLUG_OP_lgamma},
       [](const Format& f, const Format&) {
         std::vector<HardPoint> p = {one(0), one(-1), one(-2), one(-3), one(-10)};
         for (double r : kLgammaRoots) p.push_back(one(r));
         p.push_back(one(crossing([](double x) { return std::lgamma(x); }, f.max, 2, f.max)));
         return p;
       }},
      // digamma: poles at 0 and the negative integers, its roots (the negative ones sit
      // where the reflection formula cancels), and the asymptotic range that random inputs
      // (up to 20) never reach: where the usual recurrences hand over to the series (6, 10,
      // 20, 32) and beyond (100, 10^4). A mutant of the OpenCL plugin's series above 32
      // (`+` to `-`, 10^4 to 10^7 ulp there) survived every earlier case.
      {{DEVPLUG_OP_digamma},
       [](const Format&, const Format&) {
         std::vector<HardPoint> p = {one(0), one(-1), one(-2), one(-3), one(-10)};
         for (double r : kDigammaRoots) p.push_back(one(r));
         for (double x : {6.0, 10.0, 20.0, 32.0, 100.0, 1e4}) p.push_back(one(x));
         return p;
       }},
      // Rounding to integers: ties and the point where every value is an integer.
      {{DEVPLUG_OP_ceil, DEVPLUG_OP_floor, DEVPLUG_OP_round, DEVPLUG_OP_trunc},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{one(0.5),
                                       one(-0.5),
                                       one(1.5),
                                       one(2.5),
                                       one(std::ldexp(1.0, f.mant)),
                                       one(-std::ldexp(1.0, f.mant))};
       }},
      // pow: overflow and underflow of 2^y and e^y, a base next to 1 raised to a huge power
      // (needs log(x) beyond working precision), parity of huge integer exponents of -1, and
      // 0 to exponents next to 0.
      {{DEVPLUG_OP_pow},
       [](const Format& f, const Format&) {
         const double e = 2.718281828459045;
         return std::vector<HardPoint>{second(2, f.max_exp + 1),
                                       second(2, f.min_exp - f.mant),
                                       second(e, std::log(f.max)),
                                       first(1, std::ldexp(1.0, f.mant + 1)),
                                       second(-1, std::ldexp(1.0, f.mant)),
                                       second(0, 0),
                                       second(-2, f.max_exp + 1)};
       }},
      // atan2 next to its branch cut (y -> +-0 with x < 0) and next to the axes.
      {{DEVPLUG_OP_atan2},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{first(0, -1), first(0, 1), second(1, 0), second(-1, 0),
                                       first(f.max, f.min_sub)};
       }},
      // hypot: the squares overflow (or underflow) long before the result.
      {{DEVPLUG_OP_hypot},
       [](const Format& f, const Format&) {
         const double r = f.max / std::sqrt(2.0);
         return std::vector<HardPoint>{both(r, r), both(f.min_sub, f.min_sub), second(f.max, 1),
                                       second(1, 0)};
       }},
      // Sums and products next to overflow, to the first subnormal, and cancelling.
      {{DEVPLUG_OP_add, DEVPLUG_OP_sub},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{second(f.max, std::ldexp(f.eps, f.max_exp - 1)), second(1, -1),
                                       second(1, 1), second(f.min_normal, -f.min_normal)};
       }},
      {{DEVPLUG_OP_mul},
       [](const Format& f, const Format&) {
         const double s = std::sqrt(f.max);
         return std::vector<HardPoint>{second(s, s), first(f.min_normal, 0.5),
                                       second(std::sqrt(f.min_normal), std::sqrt(f.min_normal))};
       }},
      {{DEVPLUG_OP_div},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{second(1, 0), second(f.max, 1), second(f.min_normal, 1), first(1, 3),
                                       second(1, f.max)};
       }},
      // remainder and fmod: results next to 0 and next to the divisor, and huge quotients.
      {{DEVPLUG_OP_remainder, DEVPLUG_OP_fmod},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{first(5.25, 0.75), first(-5.25, 0.75), first(f.max, 3),
                                       first(f.max, -1.5), second(1, f.min_sub)};
       }},
      {{DEVPLUG_OP_nextafter},
       [](const Format& f, const Format&) {
         return std::vector<HardPoint>{first(f.max, kInf), first(0, 1), first(f.min_normal, 0), first(1, 1)};
       }},
      // Casts: the target's overflow boundary (its largest value and the halfway point to
      // the next power, which rounds to Inf), its smallest subnormal and the tie below it,
      // its smallest normal; to integers, the limits and the halves next to zero.
      {{DEVPLUG_OP_convert_element_type},
       [](const Format& in, const Format& out) {
         std::vector<HardPoint> p = {one(0.5), one(-0.5), one(1)};
         if (out.mant < in.mant) {
           p.push_back(one(out.max));
           p.push_back(one(std::ldexp(2.0 - std::ldexp(1.0, -out.mant - 1), out.max_exp)));
           p.push_back(one(-out.max));
           p.push_back(one(out.min_sub));
           p.push_back(one(out.min_sub / 2));
           p.push_back(one(out.min_normal));
         }
         return p;
       }},
  };
  return table;
}

// Integer limits of a cast target, as hard points (float to integer casts).
std::vector<HardPoint> integer_points(devplug_dtype_t out) {
  if (!is_float(out) && out != DEVPLUG_DTYPE_BOOL) {
    const double lo = static_cast<double>(int_min(out)), hi = static_cast<double>(int_max(out));
    return {one(lo), one(hi), one(0)};
  }
  return {};
}

// Element bits of `x` rounded to `d`, as the ordered integer line of elements.hpp.
int64_t ordered_of(devplug_dtype_t d, double x) {
  uint8_t b[8] = {};
  store_float(d, b, x);
  return ordered_bits(d, b);
}

double from_ordered(devplug_dtype_t d, int64_t o) {
  const int w = bit_width(d);
  const uint64_t sign = uint64_t{1} << (w - 1);
  const uint64_t bits = o >= 0 ? static_cast<uint64_t>(o) : (sign | static_cast<uint64_t>(-o));
  uint8_t b[8] = {};
  std::memcpy(b, &bits, devplug_dtype_size(d));
  return load_float(d, b);
}

// `x` rounded to `d`, moved `k` representable values (not past +-Inf).
double step(devplug_dtype_t d, double x, int k) {
  const int64_t inf = ordered_of(d, kInf);
  int64_t o = ordered_of(d, x) + k;
  if (o > inf) o = inf;
  if (o < -inf) o = -inf;
  return from_ordered(d, o);
}

// Values of dtype `d` at and around `c`: the point, one and two ulps either side, and (with
// `ladder`) the ladder of relative distances 2^-2, 2^-5, ... closing in from both sides.
std::vector<double> around(devplug_dtype_t d, double c, bool ladder) {
  const Format f = format_of(d);
  std::vector<double> v;
  for (int k = -kNeighbours; k <= kNeighbours; ++k) v.push_back(step(d, c, k));
  if (!ladder) return v;
  if (c == 0) {
    // Powers of two from 1/2 down to the smallest subnormal, about twelve of them.
    const int lowest = f.min_exp - f.mant;
    const int stride = std::max(1, -lowest / 12);
    for (int e = -1; e >= lowest; e -= stride) {
      v.push_back(std::ldexp(1.0, e));
      v.push_back(-std::ldexp(1.0, e));
    }
    return v;
  }
  for (int j = 2; j <= f.mant + 1; j += 3) {
    for (double s : {1.0, -1.0}) {
      uint8_t b[8] = {};
      store_float(d, b, c * (1 + s * std::ldexp(1.0, -j)));
      v.push_back(load_float(d, b));
    }
  }
  return v;
}

}  // namespace

std::vector<HardPoint> hard_points(devplug_op_t op, const Format& in, const Format& out) {
  for (const Row& row : rows())
    for (devplug_op_t id : row.ops)
      if (id == op) return row.points(in, out);
  return {};
}

std::vector<std::array<double, 2>> edge_values(devplug_op_t op, int inputs, devplug_dtype_t in,
                                               devplug_dtype_t out) {
  const Format fi = format_of(in);
  const Format fo = is_float(out) ? format_of(out) : fi;
  std::vector<HardPoint> points = hard_points(op, fi, fo);
  if (op == DEVPLUG_OP_convert_element_type)
    for (const HardPoint& p : integer_points(out)) points.push_back(p);
  std::vector<std::array<double, 2>> tuples;
  auto add_point = [&](const HardPoint& p, bool ladder) {
    const std::vector<double> a = (p.moves & 1) ? around(in, p.at[0], ladder) : std::vector<double>{};
    const std::vector<double> b = (p.moves & 2) ? around(in, p.at[1], ladder) : std::vector<double>{};
    const size_t n = std::max(a.size(), b.size());
    uint8_t fixed[2][8] = {};
    store_float(in, fixed[0], p.at[0]);
    store_float(in, fixed[1], p.at[1]);
    for (size_t i = 0; i < n; ++i)
      tuples.push_back(
          {a.empty() ? load_float(in, fixed[0]) : a[i], b.empty() ? load_float(in, fixed[1]) : b[i]});
  };
  for (const HardPoint& p : points) add_point(p, true);
  // The dtype's own edges, for every op: input 0 walks, input 1 stays at the same value (a
  // binary op meets the edge on both sides), then input 1 walks with input 0 at 1.
  for (double e : {fi.max, fi.min_normal, fi.min_sub}) {
    for (double s : {1.0, -1.0}) {
      add_point(first(s * e, s * e), false);
      if (inputs > 1) add_point(second(1, s * e), false);
    }
  }
  return tuples;
}

}  // namespace devplug::conform
