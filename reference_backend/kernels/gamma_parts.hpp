// SPDX-License-Identifier: Apache-2.0
// Building blocks of lgamma and digamma (gamma.hpp): values carried as unevaluated sums
// hi + lo ("pairs", about twice the precision of the type C they are made of), a table-driven
// log, sin and cos of pi s, Taylor rows around grid points of [1, 16], and binary128 versions
// for the few inputs where the pairs cannot decide the rounding. Every table is computed once,
// in binary128, from its defining formula (Hurwitz zeta sums, Bernoulli numbers, logq); only
// the zeros of lgamma and psi are listed as numbers (bisection in 320-bit arithmetic).
//
// Speed: coefficients whose rounding to double stays far below the pairs' error are stored as
// double (cheaper to load, on x87 too), long polynomials run as two interleaved chains, and
// conditions that alternate at random select values instead of branching.
#pragma once

#include <quadmath.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/math.hpp"

namespace devplug::reference::math::gamma_parts {

using Quad = __float128;

// ---- pairs: hi + lo with |lo| <= ulp(hi) / 2 ------------------------------------------------
// How the pair operations run: products split in halves (Dekker; x87 has no FMA) or fused
// (where gamma.hpp found FMA on the CPU) give the same pairs; plain drops every lo part, a
// quick estimate for the narrow dtypes. The build keeps FP contraction off (-std=c++17; the
// fused path sets it off itself), which the error-free transformations need.
enum class Mode { kSplit, kFused, kPlain };

template <typename C>
struct Pair {
  C hi, lo;
};

template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> two_sum(C a, C b) {
  const C s = a + b;
  if constexpr (M == Mode::kPlain) return {s, 0};
  const C b_part = s - a;
  return {s, (a - (s - b_part)) + (b - b_part)};
}

// Requires |a| >= |b| or a == 0.
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> fast_two_sum(C a, C b) {
  const C s = a + b;
  if constexpr (M == Mode::kPlain) return {s, 0};
  return {s, b - (s - a)};
}

template <typename C>
constexpr C kSplitter = [] {
  C power = 1;
  for (int i = 0; i < (std::numeric_limits<C>::digits + 1) / 2; ++i) power *= 2;
  return power + 1;
}();

// a * b exactly (no overflow or underflow at the magnitudes used here).
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> two_prod(C a, C b) {
  const C p = a * b;
  if constexpr (M == Mode::kPlain) {
    return {p, 0};
  } else if constexpr (M == Mode::kFused) {
    static_assert(std::is_same_v<C, double>);
    return {p, __builtin_fma(a, b, -p)};
  } else {
    const C a_scaled = kSplitter<C> * a, b_scaled = kSplitter<C> * b;
    const C a_hi = a_scaled - (a_scaled - a), b_hi = b_scaled - (b_scaled - b);
    const C a_lo = a - a_hi, b_lo = b - b_hi;
    return {p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo};
  }
}

template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> add(Pair<C> a, Pair<C> b) {
  const Pair<C> s = two_sum<M>(a.hi, b.hi);
  return fast_two_sum<M>(s.hi, s.lo + a.lo + b.lo);
}

template <typename C>
[[gnu::always_inline]] inline Pair<C> negate(Pair<C> a) {
  return {-a.hi, -a.lo};
}

template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> mul(Pair<C> a, C b) {
  const Pair<C> p = two_prod<M>(a.hi, b);
  return fast_two_sum<M>(p.hi, p.lo + a.lo * b);
}

template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> div(Pair<C> a, Pair<C> b) {
  const C q = a.hi / b.hi;
  const Pair<C> qb = two_prod<M>(q, b.hi);
  return fast_two_sum<M>(q, ((a.hi - qb.hi) - qb.lo + a.lo - q * b.lo) / b.hi);
}

template <typename C>
inline Pair<C> pair_of(Quad q) {
  const C hi = static_cast<C>(q);
  return {hi, static_cast<C>(q - hi)};
}

// Nearest integer to v (ties either way): adding 1.5 * 2^(digits - 1) rounds to an integer
// while |v| < 2^(digits - 2); beyond, nearbyint (v can still be a half-integer below
// 2^(digits - 1)).
template <typename C>
[[gnu::always_inline]] inline C nearest_integer(C v) {
  constexpr C shifter = [] {
    C power = 1;
    for (int i = 0; i < std::numeric_limits<C>::digits - 1; ++i) power *= 2;
    return power + power / 2;
  }();
  if (!(std::fabs(v) < shifter / 3)) return std::nearbyint(v);
  return (v + shifter) - shifter;
}

// v = m 2^e with m near [1, 2) and k = round(m 2^bits) (bits <= 8), both read from v rounded
// to double: that rounding may give m just below 1 and k = 2^bits, which callers accept (m
// is v 2^-e exactly). Falls back to frexp outside the double range.
template <typename C>
struct Scaled {
  C m, scale;  // m = v * scale, scale = 2^-e
  int e, k;
};

template <int bits, typename C>
[[gnu::always_inline]] inline Scaled<C> scale_down(C v) {
  const double nearest = static_cast<double>(v);
  const uint64_t word = bits_of(nearest);
  const int field = static_cast<int>(word >> 52) & 0x7ff;
  if (field != 0 && field < 2046) {
    const uint64_t fraction = word & ((uint64_t{1} << 52) - 1);
    const int k = (1 << bits) + static_cast<int>((fraction + (uint64_t{1} << (51 - bits))) >> (52 - bits));
    const C scale = static_cast<C>(double_of(static_cast<uint64_t>(2046 - field) << 52));  // 2^-e
    return {v * scale, scale, field - 1023, k};
  }
  int frexp_exponent;
  const C m = 2 * std::frexp(v, &frexp_exponent);
  const int k = static_cast<int>(std::lrint(std::ldexp(m, bits)));
  return {m, std::ldexp(C(1), 1 - frexp_exponent), frexp_exponent - 1, k};
}

// c[0] + c[1] t + ... + c[n-1] t^(n-1), as two interleaved Horner chains in t^2.
template <int n, typename C, typename Coefficient>
[[gnu::always_inline]] inline C polynomial(const Coefficient* c, C t) {
  static_assert(n >= 2);
  const C t2 = t * t;
  constexpr int top_even = (n - 1) / 2 * 2, top_odd = (n - 2) / 2 * 2 + 1;
  C even = c[top_even], odd = c[top_odd];
  for (int i = top_even - 2; i >= 0; i -= 2) even = even * t2 + c[i];
  for (int i = top_odd - 2; i >= 1; i -= 2) odd = odd * t2 + c[i];
  return even + t * odd;
}

// ---- binary128 formulas (table construction and the rare fallback) --------------------------

// B_2k = kBernoulliNumerator[k - 1] / kBernoulliDenominator[k - 1], k = 1..17.
constexpr int kBernoulliCount = 17;
constexpr int64_t kBernoulliNumerator[kBernoulliCount] = {1,
                                                          -1,
                                                          1,
                                                          -1,
                                                          5,
                                                          -691,
                                                          7,
                                                          -3617,
                                                          43867,
                                                          -174611,
                                                          854513,
                                                          -236364091,
                                                          8553103,
                                                          -23749461029,
                                                          8615841276005,
                                                          -7709321041217,
                                                          2577687858367};
constexpr int64_t kBernoulliDenominator[kBernoulliCount] = {6,   30,  42,   30, 66,  2730,  6,   510, 798,
                                                            330, 138, 2730, 6,  870, 14322, 510, 6};

inline Quad bernoulli_2k(int k) {
  return Quad(kBernoulliNumerator[k - 1]) / Quad(kBernoulliDenominator[k - 1]);
}

inline Quad pi_quad() { return 4 * atanq(1); }

// The asymptotic series in binary128 is used from 32 up: its 17th term is below 2^-130 of
// the result there.
constexpr int kQuadAsymptoticFrom = 32;

// lgamma(y) for y > 0: shift up to 32 (one log of the product), then Stirling's series.
inline Quad lgamma_quad_positive(Quad y) {
  Quad product = 1;
  while (y < kQuadAsymptoticFrom) {
    product *= y;
    y += 1;
  }
  const Quad z = 1 / y, z2 = z * z;
  Quad series = 0;
  for (int k = kBernoulliCount; k >= 1; --k) series = series * z2 + bernoulli_2k(k) / ((2 * k) * (2 * k - 1));
  return (y - Quad(0.5)) * logq(y) - y + logq(2 * pi_quad()) / 2 + series * z - logq(product);
}

// psi(y) for y > 0: the recurrence up to 32 (summed as one fraction), then the asymptotic
// series.
inline Quad digamma_quad_positive(Quad y) {
  Quad numerator = 0, denominator = 1;  // sum of 1 / (y + j) = numerator / denominator
  while (y < kQuadAsymptoticFrom) {
    numerator = numerator * y + denominator;
    denominator *= y;
    y += 1;
  }
  const Quad z2 = 1 / (y * y);
  Quad series = 0;
  for (int k = kBernoulliCount; k >= 1; --k) series = series * z2 + bernoulli_2k(k) / (2 * k);
  return logq(y) - 1 / (2 * y) - series * z2 - numerator / denominator;
}

// Reflection for x < 0 (not an integer): r = x - round(x) is exact, |sin(pi x)| = |sin(pi r)|.
inline Quad lgamma_quad(Quad x) {
  if (x > 0) return lgamma_quad_positive(x);
  const Quad r = x - rintq(x);
  return logq(pi_quad() / fabsq(sinq(pi_quad() * r))) - lgamma_quad_positive(1 - x);
}

inline Quad digamma_quad(Quad x) {
  if (x > 0) return digamma_quad_positive(x);
  const Quad r = x - rintq(x);
  return digamma_quad_positive(1 - x) - pi_quad() * cosq(pi_quad() * r) / sinq(pi_quad() * r);
}

// Hurwitz zeta(s, a) = sum_j (a + j)^-s for integers s = 2..kMaxOrder, a >= 1, all at once:
// direct terms up to a + j >= 64, then Euler-Maclaurin (its 17th correction term is below
// 2^-120 of the sum there for these s).
constexpr int kMaxOrder = 16;
inline void hurwitz_zeta_quad(Quad a, Quad (&zeta)[kMaxOrder + 1]) {
  static const auto bernoulli_over_factorial = [] {  // B_2k / (2k)!
    struct Table {
      Quad value[kBernoulliCount + 1];
    } t{};
    Quad factorial = 1;
    for (int k = 1; k <= kBernoulliCount; ++k) {
      factorial *= Quad(2 * k - 1) * (2 * k);
      t.value[k] = bernoulli_2k(k) / factorial;
    }
    return t;
  }();
  for (Quad& z : zeta) z = 0;
  while (a < 64) {
    const Quad inverse = 1 / a;
    Quad power = inverse;
    for (int s = 2; s <= kMaxOrder; ++s) {
      power *= inverse;
      zeta[s] += power;
    }
    a += 1;
  }
  const Quad inverse = 1 / a, inverse2 = inverse * inverse;
  Quad a_to_minus_s = inverse;
  for (int s = 2; s <= kMaxOrder; ++s) {
    a_to_minus_s *= inverse;
    Quad tail = a * a_to_minus_s / (s - 1) + a_to_minus_s / 2;
    // B_2k / (2k)! * s (s + 1) ... (s + 2k - 2) * a^(-s - 2k + 1)
    Quad factor = a_to_minus_s * inverse * s;
    for (int k = 1; k <= kBernoulliCount; ++k) {
      if (k > 1) factor *= Quad((s + 2 * k - 3) * (s + 2 * k - 2)) * inverse2;
      tail += bernoulli_over_factorial.value[k] * factor;
    }
    zeta[s] += tail;
  }
}

// ---- binary128 next to the zeros ------------------------------------------------------------
// At the doubles next to a zero of lgamma or psi even binary128 cancels too far: its error
// is about 2^-105 of the terms summed, the result about 2^-52 of them. There both functions
// are evaluated as f(x0 + t) = c1 t + c2 t^2 + c3 t^3 + c4 t^4 around the zero x0, known to
// 159 bits as three doubles (bisection in 320-bit arithmetic), with t = x - x0 exact to
// binary128 precision. Only zeros with doubles that close are listed: beyond k = 9 the zeros
// of lgamma lie within 2^-21 of the poles, closer than any double around them can get.

struct ZeroParts {
  double hi, mid, lo;
};

// psi's positive root, 1.4616321449683623412626595423257213..., as three doubles (bisection
// in 320-bit arithmetic).
constexpr double kDigammaRootParts[3] = {0x1.762d86356be3fp+0, 0x1.b86a722197829p-54, 0x1.e0d62a6be90c7p-109};

// lgamma: the two zeros in (-k-1, -k), k = 2..9, the lower one first.
constexpr ZeroParts kLgammaNegativeZeros[16] = {
    {-0x1.5fb410a1bd901p+1, 0x1.a19a96d2e6f85p-54, 0x1.140b4ff4b7d6p-108},
    {-0x1.3a7fc9600f86cp+1, -0x1.55f64f98af8dp-55, -0x1.c4b0cd201366ap-110},
    {-0x1.fa471547c2fe5p+1, -0x1.70d4561291237p-56, 0x1.9e6fadbbc171ap-111},
    {-0x1.9260dbc9e59afp+1, -0x1.f717cd335a7b3p-53, -0x1.d32a2a65bfd63p-107},
    {-0x1.3f7577a6eeafdp+2, 0x1.5de5eab7f12cfp-53, -0x1.4075f5e0494a2p-110},
    {-0x1.0284e78599581p+2, 0x1.e78c1e9e43cfep-53, -0x1.2ac17bfd6be92p-108},
    {-0x1.7fe92f591f40dp+2, -0x1.7dd4ed62cbd32p-52, 0x1.2071c071a2146p-108},
    {-0x1.4086a57f0b6d9p+2, -0x1.95262b72ca9cap-55, -0x1.bd98d5e0861aap-109},
    {-0x1.bffcbf76b86fp+2, 0x1.853b29347b806p-57, -0x1.0fa018051dd41p-111},
    {-0x1.8016b25897c8dp+2, 0x1.27e0f49a4ba72p-54, -0x1.72e1ab15a4d03p-110},
    {-0x1.ffff97f8159cfp+2, -0x1.e54f415a91586p-55, -0x1.53a5d106f9a3ep-109},
    {-0x1.c0033fdedfe1fp+2, 0x1.20bb7d2324678p-52, 0x1.f5536678d69d3p-106},
    {-0x1.1ffffa3884bdp+3, -0x1.ff90c9d2ae925p-53, 0x1.30c0efef78c04p-107},
    {-0x1.000034028b3f9p+3, -0x1.f60cb3cec1cedp-52, 0x1.ea26620d6b1cap-106},
    {-0x1.3fffff6c0d7cp+3, 0x1.197cea8c42d7dp-51, 0x1.7072c5a292198p-105},
    {-0x1.200005c7768fbp+3, -0x1.b5b610ffb70d4p-54, -0x1.deb7ad09ec5eap-108},
};

// psi: the zero in (-k-1, -k), k = 0..30.
constexpr ZeroParts kDigammaNegativeZeros[31] = {
    {-0x1.02172b05ee26p-1, -0x1.2cd704405bff6p-57, 0x1.f50afde5bd58dp-112},
    {-0x1.92d0cbc289d4ap+0, -0x1.2262d144a30e4p-56, 0x1.4113d1be96855p-112},
    {-0x1.4e2c19f679e5ap+1, 0x1.c7b999bd14f47p-54, -0x1.96d9e32e367dfp-108},
    {-0x1.d1514b041b2a8p+1, 0x1.f71449c2a5446p-55, -0x1.e6975cc76f90bp-109},
    {-0x1.29cea5c1ccbdp+2, -0x1.25e92119a56a9p-52, -0x1.06c66f9871ffdp-106},
    {-0x1.6ab2ca18e6ce3p+2, -0x1.da7ecae62c5bdp-59, 0x1.49085b7d2825dp-116},
    {-0x1.ab6b34398a4ffp+2, 0x1.9027e5b26e237p-52, -0x1.24fefe500cb03p-106},
    {-0x1.ec04b952a5368p+2, -0x1.37a62af51caacp-53, 0x1.6e3a780f75176p-107},
    {-0x1.1643b3352a3f5p+3, -0x1.7ad951453a497p-52, -0x1.ecb220d918c6ep-110},
    {-0x1.367c4b1f635e4p+3, -0x1.776d89f6e195p-52, -0x1.94fd88d4cd88fp-109},
    {-0x1.56ae014434848p+3, -0x1.6a6ede6ee3df8p-51, 0x1.769bd85f501c4p-106},
    {-0x1.76da2d93df103p+3, 0x1.efa7c6ac12c96p-51, -0x1.f361ec9a211fcp-106},
    {-0x1.9701cf864ba95p+3, -0x1.11f3c0c1a3c48p-51, 0x1.8dc38a3806ecdp-105},
    {-0x1.b725a99120b77p+3, 0x1.05099936de9a6p-51, -0x1.7d1a80c111162p-105},
    {-0x1.d74652d341c14p+3, -0x1.51bec0981dfc3p-55, -0x1.c8e3379b20053p-109},
    {-0x1.f76442d8ce088p+3, 0x1.e69f83449d24p-54, 0x1.f1d41a959037cp-108},
    {-0x1.0bbfecd60fcd2p+4, -0x1.5b03d79730b5p-50, 0x1.ee9e2459e340fp-109},
    {-0x1.1bccb2c0db753p+4, -0x1.277b1b18b6e89p-51, 0x1.adb2bdc324c9ap-105},
    {-0x1.2bd89365e9bbcp+4, 0x1.bf2dff73ec7d7p-51, -0x1.927904ffb8fc5p-105},
    {-0x1.3be3a99ba082fp+4, 0x1.7706c7df831ap-51, -0x1.b3463b51a9d22p-105},
    {-0x1.4bee0bf2c8a59p+4, 0x1.0e13b5b8642eep-50, -0x1.2f40895427ac1p-104},
    {-0x1.5bf7cd8e6df44p+4, -0x1.60f941f9df359p-50, 0x1.b0fa744edcaecp-106},
    {-0x1.6c00fec99a5e1p+4, -0x1.44cb98150508ap-50, 0x1.8bb4f5798aed1p-105},
    {-0x1.7c09adb82cab7p+4, 0x1.d63854e815fc4p-51, 0x1.85f69622a8a7ep-106},
    {-0x1.8c11e68c26cbcp+4, -0x1.7b92945c2511ap-50, 0x1.f46e22a9ffd1cp-106},
    {-0x1.9c19b3e62b0fdp+4, 0x1.78f2752af50aap-50, 0x1.3f871d64ab64ep-105},
    {-0x1.ac211f160c1b4p+4, 0x1.46b0a582b43e1p-50, -0x1.0daa97e8313cep-104},
    {-0x1.bc28304f0b1aap+4, -0x1.0249e16649a75p-53, -0x1.5375e8fba7b72p-108},
    {-0x1.cc2eeed275f6bp+4, -0x1.bc0a1578fc125p-50, -0x1.351d06030ac92p-104},
    {-0x1.dc356112ae729p+4, -0x1.0c78355f478f1p-51, 0x1.7c668b19a6911p-109},
    {-0x1.ec3b8cd027c0fp+4, -0x1.302f44068f35p-50, -0x1.9246544d9d5b7p-104},
};

// psi^(n)(x), n = 0..4, for x not a pole: psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x) for x > 0,
// and below 0 the reflection psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi d^n/dx^n cot(pi x).
inline void polygamma_quad(Quad x, Quad (&psi)[5]) {
  const bool reflect = x < 0;
  const Quad y = reflect ? 1 - x : x;
  Quad zeta[kMaxOrder + 1];
  hurwitz_zeta_quad(y, zeta);
  psi[0] = digamma_quad_positive(y);
  Quad factorial = 1;
  for (int n = 1; n <= 4; ++n) {
    factorial *= n;
    psi[n] = (n % 2 == 1 ? 1 : -1) * factorial * zeta[n + 1];
  }
  if (!reflect) return;
  const Quad pi = pi_quad(), r = x - rintq(x);
  const Quad c = cosq(pi * r) / sinq(pi * r), c2 = c * c;  // cot(pi x)
  // d^n/dx^n cot(pi x) for n = 0..4, from (cot)' = -pi (1 + cot^2).
  const Quad pi2 = pi * pi;
  const Quad derivative[5] = {c, -pi * (1 + c2), 2 * pi2 * c * (1 + c2),
                              -2 * pi2 * pi * (1 + c2) * (1 + 3 * c2),
                              8 * pi2 * pi2 * c * (1 + c2) * (2 + 3 * c2)};
  for (int n = 0; n <= 4; ++n) psi[n] = (n % 2 == 0 ? psi[n] : -psi[n]) - pi * derivative[n];
}

struct ZeroExpansion {
  ZeroParts x0;
  Quad reach;  // |t| below this keeps the truncated terms under 2^-120 of the result
  Quad c[5];   // c[1..4]; c[0] = 0 (the zero)
};

// For lgamma (derivative_order 0) c_n = psi^(n-1)(x0) / n!; for psi (order 1) c_n =
// psi^(n)(x0) / n!. The reach is 2^-30 of the distance to the nearest pole.
inline ZeroExpansion zero_expansion(ZeroParts x0, int derivative_order) {
  ZeroExpansion e{x0, 0, {0, 0, 0, 0, 0}};
  const Quad x = Quad(x0.hi) + Quad(x0.mid) + Quad(x0.lo);
  Quad psi[5];
  polygamma_quad(x, psi);
  Quad factorial = 1;
  for (int n = 1; n <= 4; ++n) {
    factorial *= n;
    e.c[n] = psi[n - 1 + derivative_order] / factorial;
  }
  const Quad pole_distance = x > 0 ? x : fminq(x - floorq(x), ceilq(x) - x);
  e.reach = ldexpq(pole_distance, -30);
  return e;
}

struct ZeroExpansions {
  ZeroExpansion lgamma_positive[2];  // 1 and 2
  ZeroExpansion lgamma_negative[16];
  ZeroExpansion digamma_positive;
  ZeroExpansion digamma_negative[31];
};

// Built on the first input that needs it.
inline const ZeroExpansions& zero_expansions() {
  static const ZeroExpansions instance = [] {
    ZeroExpansions z;
    z.lgamma_positive[0] = zero_expansion({1, 0, 0}, 0);
    z.lgamma_positive[1] = zero_expansion({2, 0, 0}, 0);
    for (int i = 0; i < 16; ++i) z.lgamma_negative[i] = zero_expansion(kLgammaNegativeZeros[i], 0);
    z.digamma_positive =
        zero_expansion({kDigammaRootParts[0], kDigammaRootParts[1], kDigammaRootParts[2]}, 1);
    for (int i = 0; i < 31; ++i) z.digamma_negative[i] = zero_expansion(kDigammaNegativeZeros[i], 1);
    return z;
  }();
  return instance;
}

// f(x) from the expansion when x is within its reach.
inline bool evaluate_near_zero(const ZeroExpansion& e, double x, Quad& value) {
  const Quad t = ((Quad(x) - e.x0.hi) - e.x0.mid) - e.x0.lo;  // exact but the last step
  if (!(fabsq(t) <= e.reach)) return false;
  value = t * (e.c[1] + t * (e.c[2] + t * (e.c[3] + t * e.c[4])));
  return true;
}

// lgamma and psi in binary128 for a double x (not a pole), rounded to double.
inline double lgamma_binary128(double x) {
  const ZeroExpansions& z = zero_expansions();
  Quad value;
  if (x > 0) {
    for (const ZeroExpansion& e : z.lgamma_positive)
      if (evaluate_near_zero(e, x, value)) return static_cast<double>(value);
  } else if (x > -10 && x < -2) {
    const int k = static_cast<int>(-x);
    for (int i = 2 * (k - 2); i < 2 * (k - 1); ++i)
      if (evaluate_near_zero(z.lgamma_negative[i], x, value)) return static_cast<double>(value);
  }
  return static_cast<double>(lgamma_quad(x));
}

inline double digamma_binary128(double x) {
  const ZeroExpansions& z = zero_expansions();
  Quad value;
  if (x > 0) {
    if (evaluate_near_zero(z.digamma_positive, x, value)) return static_cast<double>(value);
  } else if (x > -31) {
    if (evaluate_near_zero(z.digamma_negative[static_cast<int>(-x)], x, value))
      return static_cast<double>(value);
  }
  return static_cast<double>(digamma_quad(x));
}

// ---- tables in C ----------------------------------------------------------------------------

// Taylor rows: lgamma(c + t) = sum_n a_n t^n with a_0 = lgamma(c), a_1 = psi(c) and
// a_n = (-1)^n zeta(n, c) / n; psi(c + t) is the derivative. Grid points c = 2^e (1 + i/16),
// e = 0..3, i = 0..15, and 16: |t| <= c / 32 keeps term n below 2^-5n of the first, so terms
// to t^14 leave the truncation below 2^-72 of the result. The zeros of lgamma (1 and 2) are
// grid points, so a_0 = 0 there and the rows keep relative accuracy; the positive root of
// psi gets a row of its own. Near the zeros a_2 t^2 and a_3 t^3 reach 2^-5 and 2^-10 of the
// result and are summed as pairs (a_4 t^4 too for psi); from a_5 on double is enough.
constexpr int kGridRows = 65;
constexpr int kTaylorOrder = 14;
constexpr int kDoubleTerms = kTaylorOrder - 4;  // a_5 .. a_14

template <typename C>
struct TaylorRow {
  Pair<C> a0, a1, a2, a3, a4;
  Pair<C> a3_times_3;                      // for psi
  double higher[kDoubleTerms];             // a_5, a_6, ...
  double higher_derivative[kDoubleTerms];  // 5 a_5, 6 a_6, ... for psi
};

inline Quad digamma_root_quad() {
  return Quad(kDigammaRootParts[0]) + Quad(kDigammaRootParts[1]) + Quad(kDigammaRootParts[2]);
}

// k0 + k1 w + k2 w^2 + ... in w = s^2 for |s| <= 1/4: k0 .. k3 as pairs carry the value
// (k2 w^2 and k3 w^3 reach 2^-6 and 2^-11 of it); k4 w^4 stays below 2^-17, beyond double is
// enough.
constexpr int kEvenSeriesDoubleTerms = 8;  // k4 .. k11
template <typename C>
struct EvenSeries {
  Pair<C> k0, k1, k2, k3;
  double higher[kEvenSeriesDoubleTerms];
};

// Stirling / asymptotic terms from 16 up: the first omitted one is below 2^-72 of the result.
constexpr int kAsymptoticTerms = 10;

template <typename C>
struct Tables {
  Pair<C> ln2;  // ln2.hi has 32 bits: e * ln2.hi is exact
  // For k = round(256 m), m in [1, 2]: m times factor (1, or 1/2 above 1.5) lies within
  // 2^-9 of center (k/256 or k/512); log(center) and 1/center.
  struct LogRow {
    Pair<C> log;
    C inverse, center, factor;
    int exponent_increment;
  } log_rows[257];
  TaylorRow<C> rows[kGridRows + 1];  // the last row is centred on psi's root
  C digamma_root[3];                 // hi + mid + lo: t = x - root must stay exact next to the root
  Pair<C> half_log_2pi;
  // B_2k / (2k (2k - 1)) and B_2k / (2k): the first term reaches 2^-12 of the result and is a
  // pair, the second keeps C's precision, the rest are double.
  Pair<C> stirling_first, digamma_first;
  C stirling_second, digamma_second;
  double stirling[kAsymptoticTerms - 2], digamma_series[kAsymptoticTerms - 2];
  EvenSeries<C> sinc;         // sin(pi s) / (pi s)
  EvenSeries<C> cos;          // cos(pi s)
  EvenSeries<C> cos_over_pi;  // cos(pi s) / pi
  EvenSeries<C> pi_sinc;      // pi sin(pi s) / s
};

// The Taylor coefficients of every row in binary128, computed once for both compute types.
struct QuadRows {
  Quad a[kGridRows + 1][kTaylorOrder + 1];
};

inline const QuadRows& quad_rows() {
  static const QuadRows instance = [] {
    QuadRows rows;
    for (int row = 0; row <= kGridRows; ++row) {
      const bool is_digamma_root = row == kGridRows;
      const Quad c = is_digamma_root ? digamma_root_quad() : ldexpq(Quad(16 + row % 16) / 16, row / 16);
      Quad zeta[kMaxOrder + 1];
      hurwitz_zeta_quad(c, zeta);
      Quad* a = rows.a[row];
      a[0] = lgamma_quad_positive(c);
      a[1] = is_digamma_root ? 0 : digamma_quad_positive(c);
      for (int n = 2; n <= kTaylorOrder; ++n) a[n] = (n % 2 == 0 ? zeta[n] : -zeta[n]) / n;
    }
    return rows;
  }();
  return instance;
}

template <typename C>
inline TaylorRow<C> taylor_row(const Quad (&a)[kTaylorOrder + 1]) {
  TaylorRow<C> row;
  row.a0 = pair_of<C>(a[0]);
  row.a1 = pair_of<C>(a[1]);
  row.a2 = pair_of<C>(a[2]);
  row.a3 = pair_of<C>(a[3]);
  row.a3_times_3 = pair_of<C>(3 * a[3]);
  row.a4 = pair_of<C>(a[4]);
  for (int n = 5; n <= kTaylorOrder; ++n) {
    row.higher[n - 5] = static_cast<double>(a[n]);
    row.higher_derivative[n - 5] = static_cast<double>(n * a[n]);
  }
  return row;
}

// sum_n (-1)^n scale pi^2n s^2n / (2n + factorial_offset)!, in w = s^2.
template <typename C>
inline EvenSeries<C> even_series(Quad scale, int factorial_offset) {
  const Quad pi2 = pi_quad() * pi_quad();
  Quad coefficient[4 + kEvenSeriesDoubleTerms];
  Quad power = scale, factorial = 1;
  for (int i = 1; i <= factorial_offset; ++i) factorial *= i;
  for (int n = 0; n < 4 + kEvenSeriesDoubleTerms; ++n) {
    coefficient[n] = (n % 2 == 0 ? power : -power) / factorial;
    power *= pi2;
    factorial *= Quad(2 * n + 1 + factorial_offset) * (2 * n + 2 + factorial_offset);
  }
  EvenSeries<C> series;
  series.k0 = pair_of<C>(coefficient[0]);
  series.k1 = pair_of<C>(coefficient[1]);
  series.k2 = pair_of<C>(coefficient[2]);
  series.k3 = pair_of<C>(coefficient[3]);
  for (int n = 0; n < kEvenSeriesDoubleTerms; ++n) series.higher[n] = static_cast<double>(coefficient[4 + n]);
  return series;
}

template <typename C>
inline Tables<C> make_tables() {
  Tables<C> t;
  const Quad ln2 = logq(2);
  const Quad ln2_hi = rintq(ldexpq(ln2, 32)) / ldexpq(1, 32);
  t.ln2 = {static_cast<C>(ln2_hi), static_cast<C>(ln2 - ln2_hi)};
  for (int k = 256; k <= 512; ++k) {
    const bool halve = k > 384;
    const Quad center = Quad(k) / (halve ? 512 : 256);
    t.log_rows[k - 256] = {pair_of<C>(logq(center)), static_cast<C>(1 / center), static_cast<C>(center),
                           C(halve ? 0.5 : 1), halve ? 1 : 0};
  }
  for (int row = 0; row <= kGridRows; ++row) t.rows[row] = taylor_row<C>(quad_rows().a[row]);
  // The three doubles of kDigammaRootParts, regrouped in C.
  const Pair<C> root_head =
      pair_of<C>(Quad(kDigammaRootParts[0]) + kDigammaRootParts[1]);  // exact in binary128
  t.digamma_root[0] = root_head.hi;
  t.digamma_root[1] = root_head.lo;
  t.digamma_root[2] = static_cast<C>(digamma_root_quad() - Quad(kDigammaRootParts[0]) - kDigammaRootParts[1]);
  t.half_log_2pi = pair_of<C>(logq(2 * pi_quad()) / 2);
  t.stirling_first = pair_of<C>(bernoulli_2k(1) / 2);
  t.digamma_first = pair_of<C>(bernoulli_2k(1) / 2);
  t.stirling_second = static_cast<C>(bernoulli_2k(2) / 12);
  t.digamma_second = static_cast<C>(bernoulli_2k(2) / 4);
  for (int k = 3; k <= kAsymptoticTerms; ++k) {
    t.stirling[k - 3] = static_cast<double>(bernoulli_2k(k) / ((2 * k) * (2 * k - 1)));
    t.digamma_series[k - 3] = static_cast<double>(bernoulli_2k(k) / (2 * k));
  }
  t.sinc = even_series<C>(1, 1);  // sum (-1)^n (pi s)^2n / (2n+1)!
  t.cos = even_series<C>(1, 0);   // sum (-1)^n (pi s)^2n / (2n)!
  t.cos_over_pi = even_series<C>(1 / pi_quad(), 0);
  t.pi_sinc = even_series<C>(pi_quad() * pi_quad(), 1);  // pi^2 * sinc
  return t;
}

// Built on first use (a few milliseconds of binary128), then shared by every thread.
template <typename C>
inline const Tables<C>& tables() {
  static const Tables<C> instance = make_tables<C>();
  return instance;
}

// ---- functions on pairs ---------------------------------------------------------------------
// Each takes the tables from its caller: tables<C>() checks its guard on every call. Values
// entering as pairs (an argument 1 - x that C cannot hold exactly, t = x - root) keep their
// lo part in every term that reaches 2^-12 of the result.

// log(v) for v = v.hi + v.lo > 0 finite: v = 2^e m with m in [0.75, 1.5], c = the nearest
// k/256 (above 1) or k/512 (below), m = c (1 + z) with |z| <= 2^-9, log1p(z) by its series to
// z^9 (relative 2^-80). Keeping m around 1 keeps e ln2 and log c from cancelling when v is
// near 1. Branch-free: random inputs would mispredict the halving half of the time.
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> log_pair(const Tables<C>& t, Pair<C> v) {
  if constexpr (M == Mode::kPlain) return {std::log(v.hi), 0};  // within a few ulps: enough there
  const Scaled<C> s = scale_down<8>(v.hi);
  const auto& row = t.log_rows[s.k - 256];
  const C m = s.m * row.factor;
  // z = (m - c) / c as a pair: m - c is exact, and so is the residual of z c (a fused
  // multiply-add, or z split in halves: c has at most 9 bits). Near v = 1, log c and z nearly
  // cancel, so z's own rounding would show.
  const C difference = m - row.center;
  const C z = difference * row.inverse;
  const C v_lo_scaled = v.lo * s.scale * row.factor;  // exact
  C residual;                                         // difference - z center, exactly
  if constexpr (M == Mode::kPlain) {
    residual = 0;
  } else if constexpr (M == Mode::kFused) {
    residual = __builtin_fma(-z, row.center, difference);
  } else {
    const C z_scaled = kSplitter<C> * z;
    const C z_hi = z_scaled - (z_scaled - z);
    residual = (difference - z_hi * row.center) - (z - z_hi) * row.center;
  }
  const C z_lo = (residual + v_lo_scaled) * row.inverse;
  // log1p(z) = z - z^2/2 + z^3 (1/3 - z/4 + ...); z^2/2 reaches 2^-10 of it and is a pair.
  static constexpr double kLog1pSeries[7] = {1.0 / 3, -1.0 / 4, 1.0 / 5, -1.0 / 6,
                                             1.0 / 7, -1.0 / 8, 1.0 / 9};
  const Pair<C> z2 = two_prod<M>(z, z);
  const C z_series = z2.hi * z * polynomial<7>(kLog1pSeries, z);
  const C e = static_cast<C>(s.e + row.exponent_increment);
  const Pair<C> a = two_sum<M>(e * t.ln2.hi, row.log.hi);  // e * ln2.hi is exact
  const Pair<C> b = two_sum<M>(a.hi, z);
  const Pair<C> c = two_sum<M>(b.hi, -z2.hi / 2);
  return fast_two_sum<M>(
      c.hi, a.lo + b.lo + c.lo + (e * t.ln2.lo + row.log.lo) + z_lo * (1 - z) - z2.lo / 2 + z_series);
}

template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> log_pair(const Tables<C>& t, C v) {
  return log_pair<M>(t, Pair<C>{v, 0});
}

// The product of two pairs, to about twice C's precision (lo may reach an ulp of hi).
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> mul(Pair<C> a, Pair<C> b) {
  Pair<C> p = two_prod<M>(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return p;
}

// s^2, s^4 and s^6 as pairs, for the even series.
template <typename C>
struct EvenPowers {
  Pair<C> w, w2, w3;
};

template <Mode M, typename C>
[[gnu::always_inline]] inline EvenPowers<C> even_powers(C s) {
  const Pair<C> w = two_prod<M>(s, s);
  const Pair<C> w2 = mul<M>(w, w);
  return {w, w2, mul<M>(w2, w)};
}

// k0 + k1 w + k2 w^2 + ... for w = s^2 (s exact in C, |s| <= 1/4).
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> sum_even_series(const EvenSeries<C>& series, const EvenPowers<C>& p) {
  const C w = p.w.hi;
  const C rest = p.w3.hi * w * polynomial<kEvenSeriesDoubleTerms>(series.higher, w);
  const Pair<C> k1w = mul<M>(series.k1, p.w), k2w2 = mul<M>(series.k2, p.w2), k3w3 = mul<M>(series.k3, p.w3);
  const Pair<C> first = two_sum<M>(series.k0.hi, k1w.hi);
  const Pair<C> second = two_sum<M>(first.hi, k2w2.hi);
  const Pair<C> third = two_sum<M>(second.hi, k3w3.hi);
  return fast_two_sum<M>(third.hi,
                         first.lo + second.lo + third.lo + series.k0.lo + k1w.lo + k2w2.lo + k3w3.lo + rest);
}

// a if chosen else b, exactly, without a branch (the compiler branches on a ternary of
// floating values, and these conditions alternate at random).
template <typename C>
[[gnu::always_inline]] inline C select(bool chosen, C a, C b) {
  const C weight = static_cast<C>(chosen);
  return weight * a + (1 - weight) * b;  // one product is an exact zero
}

// |sin(pi r)| / pi for |r| <= 1/2: |r| sinc(pi r) up to 1/4, cos(pi (1/2 - |r|)) / pi above,
// so both series stay at w <= 1/16.
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> sin_pi_over_pi(const Tables<C>& t, C r) {
  const C a = std::fabs(r);
  const bool near_zero = a <= C(0.25);
  const C s = select(near_zero, a, C(0.5) - a);  // exact
  return mul<M>(sum_even_series<M>(near_zero ? t.sinc : t.cos_over_pi, even_powers<M>(s)),
                select(near_zero, a, C(1)));
}

// pi cot(pi r) for 0 < |r| <= 1/2: cos / (r sinc) up to 1/4, and above, with s = 1/2 - |r|,
// +-pi tan(pi s) = +-(s pi sinc) / cos, so that neither side divides by a cosine near its
// zero.
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> pi_cot_pi(const Tables<C>& t, C r) {
  const C a = std::fabs(r);
  const bool near_zero = a <= C(0.25);
  const C s = select(near_zero, r, std::copysign(C(0.5) - a, r));  // exact; the sign makes tan odd
  const EvenPowers<C> powers = even_powers<M>(s);
  const Pair<C> numerator =
      mul<M>(sum_even_series<M>(near_zero ? t.cos : t.pi_sinc, powers), select(near_zero, C(1), s));
  const Pair<C> denominator =
      mul<M>(sum_even_series<M>(near_zero ? t.sinc : t.cos, powers), select(near_zero, s, C(1)));
  return div<M>(numerator, denominator);
}

// The Taylor row and offset t = t_hi + t_lo for an argument y = y.hi + y.lo in [1, 16]
// (t_hi = y.hi - c is exact). With near_digamma_root, arguments within 1/32 of psi's root
// use its own row, and t = y - root keeps the root's three parts: next to the root t is tiny
// and the result is relative to it.
template <typename C>
struct RowPoint {
  const TaylorRow<C>* row;
  C t_hi, t_lo;
};

template <Mode M, typename C>
[[gnu::always_inline]] inline RowPoint<C> locate(const Tables<C>& t, Pair<C> y, bool near_digamma_root) {
  if (near_digamma_root && std::fabs(y.hi - t.digamma_root[0]) <= C(1) / 32) {
    // Exact for y.lo = 0 (x itself next to the root); else psi(y) is not the whole result.
    const Pair<C> offset = two_sum<M>(y.hi - t.digamma_root[0], y.lo - t.digamma_root[1]);
    return {&t.rows[kGridRows], offset.hi, offset.lo - t.digamma_root[2]};
  }
  const Scaled<C> s = scale_down<4>(y.hi);  // y ~ m 2^e, k = round(16 m) in 16..32, e in 0..4
  const C c = static_cast<C>(s.k << s.e) * C(1.0 / 16);
  return {&t.rows[16 * s.e + s.k - 16], y.hi - c, y.lo};
}

// t = t_hi + t_lo and its square and cube as pairs, for the Taylor rows.
template <typename C>
struct Powers {
  C t;  // rounded: enough for the terms beyond the cube
  Pair<C> t1, t2, t3;
};

// t_lo can be far above ulp(t_hi) (it carries the root's lo part), so t is normalized first:
// the plain terms use the hi parts.
template <Mode M, typename C>
[[gnu::always_inline]] inline Powers<C> powers(const RowPoint<C>& p) {
  const Pair<C> t1 = fast_two_sum<M>(p.t_hi, p.t_lo);
  const Pair<C> t2 = mul<M>(t1, t1);
  return {t1.hi, t1, t2, mul<M>(t2, t1)};
}

// a0 + a1 t + a2 t^2 + a3 t^3 as pairs, plus rest.
template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> sum_cubic(Pair<C> a0, Pair<C> a1, Pair<C> a2, Pair<C> a3,
                                                const Powers<C>& p, C rest) {
  const Pair<C> linear = mul<M>(a1, p.t1), square = mul<M>(a2, p.t2), cube = mul<M>(a3, p.t3);
  const Pair<C> first = two_sum<M>(a0.hi, linear.hi);
  const Pair<C> second = two_sum<M>(first.hi, square.hi);
  const Pair<C> third = two_sum<M>(second.hi, cube.hi);
  return fast_two_sum<M>(third.hi,
                         first.lo + second.lo + third.lo + a0.lo + linear.lo + square.lo + cube.lo + rest);
}

template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> taylor_lgamma(RowPoint<C> p) {
  const TaylorRow<C>& row = *p.row;
  const Powers<C> w = powers<M>(p);
  const C rest = w.t3.hi * w.t * (row.a4.hi + w.t * polynomial<kDoubleTerms>(row.higher, w.t));
  return sum_cubic<M>(row.a0, row.a1, row.a2, row.a3, w, rest);
}

template <Mode M, typename C>
[[gnu::always_inline]] inline Pair<C> taylor_digamma(RowPoint<C> p) {
  const TaylorRow<C>& row = *p.row;
  const Powers<C> w = powers<M>(p);
  const C rest = w.t3.hi * w.t * polynomial<kDoubleTerms>(row.higher_derivative, w.t);
  const Pair<C> a2_times_2 = {2 * row.a2.hi, 2 * row.a2.lo}, a4_times_4 = {4 * row.a4.hi, 4 * row.a4.lo};
  return sum_cubic<M>(row.a1, a2_times_2, row.a3_times_3, a4_times_4, w, rest);
}

}  // namespace devplug::reference::math::gamma_parts
