// SPDX-License-Identifier: Apache-2.0
// Elementary functions of the reference kernels that glibc's long double versions make slow:
// exp, log, sinh, cosh, asinh, acosh, atanh, asin, acos, cbrt, erfc and exp2. double overloads (for
// float32 and the 16-bit formats) call the C library; long double overloads (for float64, see
// elementwise.hpp's compute types) are computed here.
//
// glibc's x87 versions take 50-130 ns an element here (expl and logl go through f2xm1 and
// fyl2x, erfcl calls expl twice). These use one table-driven exp or log kernel in long double,
// or one Newton step from the C library's double result, and stay within about 1 ulp of long
// double (1/2048 of a double ulp), so that the float64 result, rounded once, is the correctly
// rounded one but in rare near-halfway cases. Arguments outside the ranges the kernels are
// built for (beyond double's range, NaN, +-Inf) go to the C library's long double functions;
// erfc only skips glibc where the float64 result is settled (see there).
//
// No path returns its argument unchanged (small arguments go through the general formula,
// signs through sign_of): GCC merges such a path with the computed one through a stack slot
// read back from an x87 store, which halves the throughput of the calling loop.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/math.hpp"

namespace devplug::reference::math {

inline double sinh(double x) { return std::sinh(x); }
inline double cosh(double x) { return std::cosh(x); }
inline double asinh(double x) { return std::asinh(x); }
inline double acosh(double x) { return std::acosh(x); }
inline double atanh(double x) { return std::atanh(x); }
inline double asin(double x) { return std::asin(x); }
inline double acos(double x) { return std::acos(x); }
inline double cbrt(double x) { return std::cbrt(x); }
inline double erfc(double x) { return std::erfc(x); }
inline double exp2(double x) { return std::exp2(x); }
inline double exp(double x) { return std::exp(x); }
inline double log(double x) { return std::log(x); }

// The kernels need the x87 80-bit format (64-bit significand); elsewhere long double goes to
// the C library.
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
#define DEVPLUG_FAST_LDBL_ELEMENTARY 1
#else
#define DEVPLUG_FAST_LDBL_ELEMENTARY 0
#endif

#if DEVPLUG_FAST_LDBL_ELEMENTARY
namespace elementary_detail {

// c[0] + x c[1] + x^2 c[2] + ... (double coefficients where 53 bits are enough: x87 loads
// them far faster than long double ones).
template <typename C, int N>
inline long double polynomial(long double x, const C (&c)[N]) {
  long double p = c[N - 1];
  for (int i = N - 2; i >= 0; --i) p = p * x + c[i];
  return p;
}

// +1.0 or -1.0 with the sign of x. Multiplying by it keeps the code free of branches on the
// sign: copysign on long double branches on fxam's status word, which waits for every x87
// instruction before it, so each misprediction on mixed signs costs a whole evaluation.
inline double sign_of(long double x) {
  const double d = static_cast<double>(x);  // keeps the sign, even of a long double below double's range
  return double_of((bits_of(d) & (uint64_t{1} << 63)) | 0x3FF0000000000000u);
}

// v * 2^k, exact for |k| <= 2044 (long double's range is far wider than double's).
inline long double scale(long double v, int k) {
  if (k >= -1022 && k <= 1023) return v * pow2(k);
  return v * pow2(k / 2) * pow2(k - k / 2);
}

// ---- exp: e^x = 2^k (hi + lo) -------------------------------------------------------------
//
// x = (32 k + j) ln2/32 + r with |r| <= ln2/64, e^x = 2^k 2^(j/32) e^r. 2^(j/32) is a long
// double plus a double correction; e^r - 1 is Taylor's series to r^7 (the rest is below
// 2^-67.5); hi + lo carries e^x / 2^k to within 2^-66 relative.
struct ExpParts {
  long double hi, lo;  // |lo| <= ulp(hi)
  int k;
};

inline constexpr long double kExpArgLimit = 1400;           // |x| beyond: n = 32k + j needs 17 bits
inline constexpr double k32OverLn2 = 0x1.71547652b82fep+5;  // n need only be near x 32/ln2
// ln2/32 = kLn2Over32Hi + kLn2Over32Lo; Hi has 48 bits, so n * Hi is exact for |n| < 2^16
// and x - n * Hi is exact (Sterbenz).
inline constexpr long double kLn2Over32Hi = 0x1.62e42fefa39e0000p-6L;
inline constexpr double kLn2Over32Lo = 0x1.e6af278ece601p-55;
inline constexpr long double kLn2 = 0x1.62e42fefa39ef358p-1L;

struct TableEntry {
  long double hi;
  double lo;
};

// 2^(j/32) = hi + lo.
inline constexpr TableEntry kExp2Table[32] = {
    {0x1.0000000000000000p+0L, 0.0},
    {0x1.059b0d31585743aep+0L, 0x1.f1523ada32906p-66},
    {0x1.0b5586cf9890f62ap+0L, -0x1.d1b5239ef559fp-66},
    {0x1.11301d0125b50a4ep+0L, 0x1.77e35db26319dp-65},
    {0x1.172b83c7d517adcep+0L, -0x1.06e75e29d6b0ep-69},
    {0x1.1d4873168b9aa780p+0L, 0x1.6e00a2643c1eap-66},
    {0x1.2387a6e75623866cp+0L, 0x1.fadb1c15cb594p-68},
    {0x1.29e9df51fdee12c2p+0L, 0x1.7457d6892a8efp-66},
    {0x1.306fe0a31b7152dep+0L, 0x1.1ab48c60b90bep-65},
    {0x1.371a7373aa9caa72p+0L, -0x1.755fa17570cf0p-65},
    {0x1.3dea64c12342235cp+0L, -0x1.7dbb83d851181p-65},
    {0x1.44e086061892d032p+0L, -0x1.9217ec41fcc08p-65},
    {0x1.4bfdad5362a271d4p+0L, 0x1.cbd7f62171070p-67},
    {0x1.5342b569d4f81df0p+0L, 0x1.507893b0d4c7fp-65},
    {0x1.5ab07dd48542958cp+0L, 0x1.2602a323d668cp-65},
    {0x1.6247eb03a5584b20p+0L, -0x1.e0bf205a4b7a9p-65},
    {0x1.6a09e667f3bcc908p+0L, 0x1.65f626cdd52b0p-65},
    {0x1.71f75e8ec5f73dd2p+0L, 0x1.b879778566b66p-67},
    {0x1.7a11473eb0186d7ep+0L, -0x1.5dfb81264bc14p-65},
    {0x1.82589994cce128acp+0L, 0x1.f115f56694022p-65},
    {0x1.8ace5422aa0db5bap+0L, 0x1.f156864b26ed0p-66},
    {0x1.93737b0cdc5e4f46p+0L, -0x1.fc781b57ebba6p-65},
    {0x1.9c49182a3f0901c8p+0L, -0x1.dca7c706a0d39p-67},
    {0x1.a5503b23e255c8b4p+0L, 0x1.2248e57c3de40p-67},
    {0x1.ae89f995ad3ad5e8p+0L, 0x1.cd345dcc816a0p-66},
    {0x1.b7f76f2fb5e46eaap+0L, 0x1.ec206ad4f14d5p-66},
    {0x1.c199bdd85529c222p+0L, 0x1.9625412374ccfp-69},
    {0x1.cb720dcef9069150p+0L, 0x1.e5e8f4a4edbb1p-67},
    {0x1.d5818dcfba48725ep+0L, -0x1.7e9452647c8d6p-66},
    {0x1.dfc97337b9b5eb96p+0L, 0x1.195873da5236ep-65},
    {0x1.ea4afa2a490d9858p+0L, 0x1.ee7431ebb6604p-65},
    {0x1.f50765b6e4540674p+0L, 0x1.f096ec50c5760p-65},
};

// e^r - 1 = r + r^2 (1/2 + r/6 + ...), Taylor to r^7: the rest is below 2^-67.5 for |r| <= ln2/64.
// Beyond the exact 1/2 each term is below 2^-20, so double coefficients are enough.
inline constexpr double kExpm1Taylor[6] = {1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040};

// 2^(n/32) e^r for an integer n (|n| < 2^16) and |r| <= ~ln2/64.
inline ExpParts exp_table_parts(int64_t n, long double r) {
  const long double p = r + r * r * polynomial(r, kExpm1Taylor);
  const TableEntry& t = kExp2Table[n & 31];
  const long double small = t.hi * p + t.lo;
  const long double hi = t.hi + small;
  return {hi, (t.hi - hi) + small, static_cast<int>(n >> 5)};  // Fast2Sum: |t.hi| > |small|
}

// Rounds v (|v| < 2^51) to the nearest integer, as a double and as an int64: adding 1.5 * 2^52
// leaves it in the significand's low bits.
inline int64_t round_to_int(double v, double& rounded) {
  constexpr double kShift = 0x1.8p52;
  const double shifted = v + kShift;
  uint64_t bits, shift_bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  std::memcpy(&shift_bits, &kShift, sizeof shift_bits);
  rounded = shifted - kShift;
  return static_cast<int64_t>(bits - shift_bits);
}

// e^(x + x_lo) for |x| <= kExpArgLimit, |x_lo| <= ulp(x).
inline ExpParts exp_parts(long double x, long double x_lo) {
  double n_double;
  const int64_t ni = round_to_int(static_cast<double>(x) * k32OverLn2, n_double);
  const long double n = n_double;
  return exp_table_parts(ni, ((x - n * kLn2Over32Hi) - n * kLn2Over32Lo) + x_lo);
}

inline ExpParts exp_parts(long double x) {
  double n_double;
  const int64_t ni = round_to_int(static_cast<double>(x) * k32OverLn2, n_double);
  const long double n = n_double;
  return exp_table_parts(ni, (x - n * kLn2Over32Hi) - n * kLn2Over32Lo);
}

// ---- log: log(y) for y = (hi + lo) 2^extra_exponent >= 1 ----------------------------------
//
// hi = 2^e m, m in [1, 2): with c ~ 1/m of 11 bits from a 129-entry table, r = m c - 1 is
// exact (53 + 11 bits) and |r| <= 2^-7.9; log y = (e + extra) ln2 - log c + log1p(r) +
// log1p(lo/hi), where log1p(r) is Taylor's series to r^8 (the rest is below 2^-67 of the
// result) and -log c is a double rounded to a multiple of 2^-53 plus a double, so that the
// leading terms add exactly. Within about 0.5 ulp.
struct LogTableEntry {
  double c;  // round(2^18 / (128 + j)) / 2^11, ~ 1 / (1 + j/128)
  double minus_log_c_hi, minus_log_c_lo;
};

inline constexpr LogTableEntry kLogTable[129] = {
    {2048 / 2048.0, 0.0, 0.0},
    {2032 / 2048.0, 0x1.010157588de80p-7, -0x1.dae6674afa0c5p-56},
    {2016 / 2048.0, 0x1.0205658935840p-6, 0x1.d27c8e8416e72p-56},
    {2001 / 2048.0, 0x1.7c61b1cf5dee0p-6, 0x1.b83db2ddc8012p-60},
    {1986 / 2048.0, 0x1.f7a9b16782860p-6, -0x1.49b639060a3bbp-55},
    {1971 / 2048.0, 0x1.39f07ba0ebd60p-5, 0x1.29d642e5777ebp-56},
    {1956 / 2048.0, 0x1.788595a3577c0p-5, -0x1.61a107674986ep-55},
    {1942 / 2048.0, 0x1.b35dd9b58bab0p-5, -0x1.8b2930aa71bcfp-56},
    {1928 / 2048.0, 0x1.eea31c006b880p-5, -0x1.13e4fc93b7b67p-55},
    {1913 / 2048.0, 0x1.174f76ab09170p-4, 0x1.0317ee2e48380p-56},
    {1900 / 2048.0, 0x1.333d7f8183f48p-4, 0x1.b5255f91dee16p-55},
    {1886 / 2048.0, 0x1.5188742261308p-4, 0x1.0ecb12c59ec54p-55},
    {1872 / 2048.0, 0x1.700d30aeac0e0p-4, 0x1.e8da99ded3230p-57},
    {1859 / 2048.0, 0x1.8c985e9b9ec80p-4, 0x1.e440de7fe5173p-55},
    {1846 / 2048.0, 0x1.a956d3ecade60p-4, 0x1.bca6016257aacp-55},
    {1833 / 2048.0, 0x1.c6494a2e418a8p-4, -0x1.0baa6f9d8d2ecp-55},
    {1820 / 2048.0, 0x1.e3707ee304878p-4, 0x1.a1399d9aaf3b3p-55},
    {1808 / 2048.0, 0x1.fe89139dbd568p-4, -0x1.3593e842bf272p-55},
    {1796 / 2048.0, 0x1.0ce7ecdccc28cp-3, 0x1.4b6affd511b53p-56},
    {1783 / 2048.0, 0x1.1bc8af21436b4p-3, -0x1.4d823555d3f75p-56},
    {1771 / 2048.0, 0x1.299d30c606ea8p-3, -0x1.7fc311fb93abfp-55},
    {1759 / 2048.0, 0x1.3789c4c041338p-3, -0x1.6177659c34089p-55},
    {1748 / 2048.0, 0x1.4462b9dc9b3dcp-3, -0x1.629c46c186385p-58},
    {1736 / 2048.0, 0x1.527e5e4a1b58cp-3, 0x1.f472b4bee3520p-56},
    {1725 / 2048.0, 0x1.5f830a1a5ca90p-3, 0x1.344c7fe0dddc0p-55},
    {1713 / 2048.0, 0x1.6dcf0165f8374p-3, -0x1.532cb983673c5p-55},
    {1702 / 2048.0, 0x1.7b0091651528cp-3, 0x1.4069f303518c8p-57},
    {1691 / 2048.0, 0x1.884807ce56390p-3, -0x1.06216af1da751p-55},
    {1680 / 2048.0, 0x1.95a5adcf70180p-3, -0x1.baf4ebe012171p-56},
    {1670 / 2048.0, 0x1.a1dfc40f1b7f0p-3, 0x1.f0ffb0c87f381p-56},
    {1659 / 2048.0, 0x1.af6895610dbacp-3, 0x1.f5dd0215b2274p-55},
    {1649 / 2048.0, 0x1.bbca696b07e80p-3, 0x1.17a8fc988fe53p-58},
    {1638 / 2048.0, 0x1.c97f8079d44ecp-3, 0x1.61a8c6e6c4ee7p-57},
    {1628 / 2048.0, 0x1.d60a17f903514p-3, 0x1.1f903df2c7243p-56},
    {1618 / 2048.0, 0x1.e2a877a6b2c10p-3, 0x1.c0bbc3840cd7ap-55},
    {1608 / 2048.0, 0x1.ef5ade4dcffe4p-3, 0x1.deea9a4471eecp-55},
    {1598 / 2048.0, 0x1.fc218be620a5cp-3, 0x1.d2378e7b4fcf0p-55},
    {1589 / 2048.0, 0x1.03d95a1d67686p-2, -0x1.dfc3727bdcd30p-58},
    {1579 / 2048.0, 0x1.0a504e97bb40cp-2, 0x1.29ccd218877e5p-57},
    {1570 / 2048.0, 0x1.102ac0a35cc1cp-2, 0x1.088080a5e68b4p-59},
    {1560 / 2048.0, 0x1.16b5ccbacfb74p-2, -0x1.4c8216ba5fb65p-55},
    {1551 / 2048.0, 0x1.1ca28c64bae54p-2, -0x1.3e10bd559adb8p-56},
    {1542 / 2048.0, 0x1.22981fbef797ap-2, 0x1.ef4fb53f93142p-55},
    {1533 / 2048.0, 0x1.2896a13e086a4p-2, -0x1.2fd81e96ad9cfp-56},
    {1524 / 2048.0, 0x1.2e9e2bce12286p-2, 0x1.8251a3b83d97ap-62},
    {1515 / 2048.0, 0x1.34aedad5b168ap-2, 0x1.56795f0feeb1ep-55},
    {1507 / 2048.0, 0x1.3a1ac802f3664p-2, -0x1.30c6654272c10p-56},
    {1498 / 2048.0, 0x1.403d086cea79cp-2, -0x1.0a8bb78cf7cdap-56},
    {1489 / 2048.0, 0x1.4668bf41ef994p-2, 0x1.d13a74ae12674p-57},
    {1481 / 2048.0, 0x1.4becf95d97914p-2, -0x1.9d90011d3828bp-55},
    {1473 / 2048.0, 0x1.5178d9ab55570p-2, 0x1.530fe963b2f50p-56},
    {1464 / 2048.0, 0x1.57bf753c8d1fap-2, 0x1.bdbdcba81dd27p-55},
    {1456 / 2048.0, 0x1.5d5bddf595f30p-2, -0x1.6541148cbb8a2p-56},
    {1448 / 2048.0, 0x1.630030b3aac4ap-2, -0x1.88f9cc6b8001ap-55},
    {1440 / 2048.0, 0x1.68ac83e9c6a14p-2, 0x1.a64eadd740178p-58},
    {1432 / 2048.0, 0x1.6e60ee6af1972p-2, 0x1.657c222d868cdp-58},
    {1425 / 2048.0, 0x1.736580f3aeb66p-2, -0x1.5a62c981339d5p-55},
    {1417 / 2048.0, 0x1.792955fdf47a2p-2, 0x1.3604a7950f969p-57},
    {1409 / 2048.0, 0x1.7ef5861cc6e78p-2, -0x1.7b958443c2126p-56},
    {1402 / 2048.0, 0x1.840f1e12667f0p-2, 0x1.deee3f9b04a4bp-59},
    {1394 / 2048.0, 0x1.89eb3af432874p-2, 0x1.6060f2227164bp-56},
    {1387 / 2048.0, 0x1.8f12e873862c8p-2, -0x1.649986a9ef876p-57},
    {1380 / 2048.0, 0x1.9441434a0325ap-2, -0x1.1f8da8002f245p-55},
    {1372 / 2048.0, 0x1.9a355c33bd6bap-2, -0x1.959578e82a9d9p-57},
    {1365 / 2048.0, 0x1.9f7240cc0edb2p-2, -0x1.6e4e8b7863438p-55},
    {1358 / 2048.0, 0x1.a4b60a46e5dd2p-2, 0x1.9987dd316a2a5p-55},
    {1351 / 2048.0, 0x1.aa00cae22ab12p-2, 0x1.707cbeb6ac2c1p-57},
    {1344 / 2048.0, 0x1.af5295248cdd0p-2, 0x1.9d56c45dd3e86p-56},
    {1337 / 2048.0, 0x1.b4ab7bdf08592p-2, -0x1.c673c1798d22cp-56},
    {1331 / 2048.0, 0x1.b9468b593cb76p-2, -0x1.427aff9a9b66cp-55},
    {1324 / 2048.0, 0x1.beacd9e271ad2p-2, -0x1.64491e192bbb0p-55},
    {1317 / 2048.0, 0x1.c41a7c4e0d4e6p-2, 0x1.fbfe8d5c70149p-55},
    {1311 / 2048.0, 0x1.c8c77e019b580p-2, 0x1.88489c297974ap-56},
    {1304 / 2048.0, 0x1.ce42f18064744p-2, -0x1.7c33ec7a6b064p-55},
    {1298 / 2048.0, 0x1.d2fbe932034c8p-2, -0x1.f55e1c3ca9f15p-55},
    {1291 / 2048.0, 0x1.d88574cee015ep-2, 0x1.c2d25a9f4412dp-57},
    {1285 / 2048.0, 0x1.dd4aa04e1c4b6p-2, 0x1.44b7c06bf4a85p-58},
    {1279 / 2048.0, 0x1.e21582ecdbf74p-2, -0x1.bf6cb3bbd43b9p-56},
    {1273 / 2048.0, 0x1.e6e62a6da4e54p-2, 0x1.fbe3d327494e4p-55},
    {1266 / 2048.0, 0x1.ec8ba06d15ad8p-2, 0x1.1b2d285a2075dp-55},
    {1260 / 2048.0, 0x1.f168f7fb05c52p-2, 0x1.2fd60fce475cfp-59},
    {1254 / 2048.0, 0x1.f64c414b926c4p-2, 0x1.03d1f04d4be94p-55},
    {1248 / 2048.0, 0x1.fb358af7a4884p-2, 0x1.7e8f05924d259p-57},
    {1242 / 2048.0, 0x1.001271e716158p-1, 0x1.97a2ec1ed2dc2p-55},
    {1237 / 2048.0, 0x1.02232ccb34624p-1, -0x1.c5fd02bb9a15ep-56},
    {1231 / 2048.0, 0x1.04a07ab41a122p-1, 0x1.5e3b22f0ed514p-55},
    {1225 / 2048.0, 0x1.0720e5c40df1cp-1, 0x1.3a00581fdee84p-55},
    {1219 / 2048.0, 0x1.09a475cf0badcp-1, 0x1.5793a595a6bc1p-55},
    {1214 / 2048.0, 0x1.0bbf2fd23dd41p-1, -0x1.7f5294328cde4p-57},
    {1208 / 2048.0, 0x1.0e4898611cce1p-1, 0x1.3300f002e836ep-55},
    {1202 / 2048.0, 0x1.10d53cbc080f8p-1, -0x1.d1a5584a84aa4p-57},
    {1197 / 2048.0, 0x1.12f799594efbcp-1, 0x1.f6af5711d0546p-55},
    {1192 / 2048.0, 0x1.151c3f6f29612p-1, 0x1.342eb628dba17p-56},
    {1186 / 2048.0, 0x1.17b1ac17cbd5bp-1, 0x1.3ab727496f094p-57},
    {1181 / 2048.0, 0x1.19db6ba0ba5b6p-1, 0x1.d621692899fb3p-55},
    {1176 / 2048.0, 0x1.1c07849ae6007p-1, 0x1.59bddae1ccce2p-56},
    {1170 / 2048.0, 0x1.1ea5f6e70eb83p-1, -0x1.7028ff35c8d40p-57},
    {1165 / 2048.0, 0x1.20d74d2fbafe5p-1, -0x1.90e29e8a8f0e4p-56},
    {1160 / 2048.0, 0x1.230b0d8bebc98p-1, -0x1.fcc8dbccc25cbp-57},
    {1155 / 2048.0, 0x1.25413d529caeep-1, -0x1.01ac7a85a3827p-55},
    {1150 / 2048.0, 0x1.2779e1ec93ecap-1, 0x1.19b99acdbc5cap-55},
    {1145 / 2048.0, 0x1.29b500d4b1ccbp-1, 0x1.bc6160cc1ba09p-56},
    {1140 / 2048.0, 0x1.2bf29f9841c3bp-1, 0x1.470c3a76fd89cp-57},
    {1135 / 2048.0, 0x1.2e32c3d74d58bp-1, -0x1.e0d9bfad3e160p-56},
    {1130 / 2048.0, 0x1.30757344f0e13p-1, 0x1.f42b317819db2p-55},
    {1125 / 2048.0, 0x1.32bab3a7b21e8p-1, 0x1.b2631756ce057p-55},
    {1120 / 2048.0, 0x1.35028ad9d8c86p-1, -0x1.f01ab6065515cp-56},
    {1116 / 2048.0, 0x1.36d77e9d34fd7p-1, -0x1.030a8308afc73p-55},
    {1111 / 2048.0, 0x1.39240dde5ce92p-1, 0x1.edf55bac59b95p-55},
    {1106 / 2048.0, 0x1.3b7344be40311p-1, 0x1.db4a1d0290a7ep-55},
    {1101 / 2048.0, 0x1.3dc5296585e9ep-1, -0x1.e4f016f1e8475p-55},
    {1097 / 2048.0, 0x1.3fa238ac248a5p-1, -0x1.4a5ea4df5827cp-58},
    {1092 / 2048.0, 0x1.41f8ff8471d61p-1, 0x1.eeba65347de21p-58},
    {1088 / 2048.0, 0x1.43d9ff2f923c5p-1, -0x1.84f481051f71ap-56},
    {1083 / 2048.0, 0x1.4635bcf40ddcfp-1, -0x1.ca8afb4d54bf0p-55},
    {1079 / 2048.0, 0x1.481abdce327f6p-1, 0x1.8628ed1140e9fp-55},
    {1074 / 2048.0, 0x1.4a7b87bf1fa82p-1, 0x1.1d275b329e52fp-55},
    {1070 / 2048.0, 0x1.4c649aff0ee16p-1, -0x1.39ba4d4d9f577p-55},
    {1066 / 2048.0, 0x1.4e4f832c560ddp-1, 0x1.b7bb95e53a353p-55},
    {1061 / 2048.0, 0x1.50b7be32b91b5p-1, -0x1.ab8b4889e1d8cp-57},
    {1057 / 2048.0, 0x1.52a6d269bc600p-1, 0x1.11347b44e4a9cp-55},
    {1053 / 2048.0, 0x1.5497c729233afp-1, -0x1.a4d9abae70349p-55},
    {1049 / 2048.0, 0x1.568aa0194ec6fp-1, -0x1.db8cae0303d5fp-56},
    {1044 / 2048.0, 0x1.58fcddce004c4p-1, -0x1.c801a2d42e96cp-55},
    {1040 / 2048.0, 0x1.5af405c3649e0p-1, -0x1.6714fbcd8135bp-55},
    {1036 / 2048.0, 0x1.5ced1e17c35c5p-1, 0x1.6812a0aac67dep-55},
    {1032 / 2048.0, 0x1.5ee82aa241920p-1, 0x1.1c066d235ee63p-56},
    {1028 / 2048.0, 0x1.60e52f45788e3p-1, 0x1.d4bcd02c7194cp-55},
    {1024 / 2048.0, 0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56},
};

// ln2 = kLn2Hi + kLn2Lo; kLn2Hi is a multiple of 2^-53, so e * kLn2Hi + minus_log_c_hi is
// exact in 64 bits for |e| < 2^10.
inline constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
inline constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;

// log1p(r) - r = r^2 (-1/2 + r/3 - ...), Taylor to r^8; beyond the exact 1/2 each term is
// below 2^-22 of the result, so double coefficients are enough.
inline constexpr double kLog1pTaylor[7] = {-1.0 / 2, 1.0 / 3, -1.0 / 4, 1.0 / 5, -1.0 / 6, 1.0 / 7, -1.0 / 8};

// log((hi + lo) 2^extra_exponent) for 1 <= hi < 2^1024, |lo| <= ulp(hi) (as a double),
// |log| < 2^10 ln2.
inline long double log_parts(double hi, long double lo, int extra_exponent = 0) {
  uint64_t bits;
  std::memcpy(&bits, &hi, sizeof bits);
  const int e = static_cast<int>(bits >> 52) - 1023 + extra_exponent;
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  const LogTableEntry& t = kLogTable[(fraction + (uint64_t{1} << 44)) >> 45];  // round((m - 1) 128)
  const uint64_t m_bits = fraction | (uint64_t{1023} << 52);
  double m;
  std::memcpy(&m, &m_bits, sizeof m);
  const long double r = static_cast<long double>(m) * t.c - 1;  // exact
  const long double ratio = lo / hi;  // |ratio| <= 2^-52: log1p(ratio) = ratio (1 - ratio/2) within 2^-104
  const long double exponent = static_cast<double>(e);  // converted in SSE
  const long double small = (exponent * kLn2Lo + t.minus_log_c_lo) +
                            (r * r * polynomial(r, kLog1pTaylor) + ratio * (1 - ratio / 2));
  const long double head = exponent * kLn2Hi + t.minus_log_c_hi;  // exact
  const long double sum = head + r;
  return sum + (((head - sum) + r) + small);  // Fast2Sum: head is 0 or above |r|
}

// log(a + b) for a double a >= 1 and 0 <= b <= 2a (so that a - hi below is exact).
inline long double log_of_sum(double a, long double b) {
  const double hi = static_cast<double>(a + b);
  return log_parts(hi, (a - static_cast<long double>(hi)) + b);
}

// log(1 + u + u_lo) for u, u_lo >= 0 and u + u_lo < 2^62: 1 - hi is exact and the other
// two additions round less than 2^-64 (u_lo + 2^-53).
inline long double log1p_of(long double u, long double u_lo) {
  const double hi = static_cast<double>(1 + (u + u_lo));
  return log_parts(hi, ((1 - static_cast<long double>(hi)) + u) + u_lo);
}

// log(1 + u) for 0 <= u < 2^62.
inline long double log1p_of(long double u) {
  const double hi = static_cast<double>(1 + u);
  return log_parts(hi, (1 - static_cast<long double>(hi)) + u);
}

}  // namespace elementary_detail
#endif

// ---- the long double functions --------------------------------------------------------------

inline long double exp(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  if (std::fabs(x) <= kExpArgLimit) {
    const ExpParts e = exp_parts(x);
    return scale(e.hi + e.lo, e.k);
  }
#endif
  return std::exp(x);  // NaN, +-Inf, and far beyond double's overflow and underflow
}

// log of a double x >= 2^-1000 (a long double holding one, as the float64 kernels pass),
// scaled into [1, 2^1024) by an exact power of two for log_parts.
inline long double log(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  const double x_double = static_cast<double>(x);
  if (x_double == x && x_double >= 0x1p-1000 && x_double < HUGE_VAL) {
    if (x_double >= 1) return log_parts(x_double, 0);
    return log_parts(x_double * 0x1p1000, 0, -1000);
  }
#endif
  return std::log(x);  // NaN, negative numbers, 0, Inf, subnormals, and wider long doubles
}

inline long double exp2(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  // x = n/32 + r exactly (|x| <= 1100 has ulp >= 2^-53); 2^r = e^(r ln2).
  if (std::fabs(x) <= 1100) {
    double n;
    const int64_t ni = round_to_int(static_cast<double>(x) * 32, n);
    const ExpParts e = exp_table_parts(ni, (x - static_cast<long double>(n) / 32) * kLn2);
    return scale(e.hi + e.lo, e.k);
  }
#endif
  return std::exp2(x);  // NaN, +-Inf, and far beyond double's overflow and underflow
}

inline long double cosh(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  const long double a = std::fabs(x);
  if (a <= kExpArgLimit) {
    // (e^a + e^-a) / 2 adds positive terms: e^-a's rounding (half an ulp of the smaller term)
    // and the final one, within one ulp.
    const ExpParts e = exp_parts(a);
    const long double big = scale(e.hi, e.k - 1), big_lo = scale(e.lo, e.k - 1);
    const long double small = 0.25L / big;  // e^-a / 2 = 1 / (4 (e^a / 2))
    const long double sum = big + small;
    return sum + (((big - sum) + small) + big_lo * (1 - 4 * small * small));
  }
#endif
  return std::cosh(x);
}

inline long double sinh(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  const long double a = std::fabs(x);
  if (a < 0.5L) {
    // Taylor to a^17: the rest is below 2^-73 a. From a^7 on the terms are below 2^-18 a,
    // so double coefficients are enough there.
    static constexpr double kTaylorTail[6] = {1.0 / 5040,       1.0 / 362880,        1.0 / 39916800,
                                              1.0 / 6227020800, 1.0 / 1307674368000, 1.0 / 355687428096000};
    const long double z = a * a;
    return (a + a * z * (1.0L / 6 + z * (1.0L / 120 + z * polynomial(z, kTaylorTail)))) * sign_of(x);
  }
  if (a <= kExpArgLimit) {
    // (e^a - e^-a) / 2 with e^-a at most 0.58 of the result above a = 1/2: e^-a's rounding
    // adds at most 0.3 ulp to the final one.
    const ExpParts e = exp_parts(a);
    const long double big = scale(e.hi, e.k - 1), big_lo = scale(e.lo, e.k - 1);
    const long double small = 0.25L / big;
    const long double difference = big - small;
    return (difference + (((big - difference) - small) + big_lo * (1 + 4 * small * small))) * sign_of(x);
  }
#endif
  return std::sinh(x);
}

inline long double asinh(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  const long double a = std::fabs(x);
  if (a < 2) {
    // log1p(a + w), w = a^2 / (1 + sqrt(1 + a^2)) = sqrt(1 + a^2) - 1: a is exact and w,
    // within ~2.5 ulp, is at most 0.3 of a + w, so the argument is within ~0.8 ulp.
    const long double w = a * a / (1 + std::sqrt(1 + a * a));
    return log1p_of(a, w) * sign_of(x);
  }
  if (a < 0x1p32L) {
    // log(a + sqrt(a^2 + 1)): the sum is within ~1 ulp and the log is above 1.4.
    return log_of_sum(static_cast<double>(a), std::sqrt(a * a + 1)) * sign_of(x);
  }
  // log(2a) + 1/(4a^2) - ... where 1/(4a^2) < 2^-66.
  if (a <= DBL_MAX) return log_parts(static_cast<double>(a), a - static_cast<double>(a), 1) * sign_of(x);
#endif
  return std::asinh(x);
}

inline long double acosh(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  if (x >= 1 && x < 0x1p32L) {
    // log(x + w), w = sqrt((x - 1)(x + 1)) with x - 1 and x + 1 exact (x a double): w within
    // 0.75 ulp; near x = 1 the log is ~ x - 1 + w and keeps that relative accuracy.
    const double xd = static_cast<double>(x);
    if (xd == x) return log_of_sum(xd, std::sqrt((x - 1) * (x + 1)));
  }
  if (x >= 0x1p32L && x <= DBL_MAX) {
    const double xd = static_cast<double>(x);
    return log_parts(xd, x - xd, 1);  // log(2x) - 1/(4x^2) - ...: 1/(4x^2) < 2^-66
  }
#endif
  return std::acosh(x);  // NaN, below 1 (NaN), +Inf, long double arguments
}

inline long double atanh(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  const long double a = std::fabs(x);
  if (a < 1) {
    // log1p(2a / (1 - a)) / 2: 1 - a is exact above 2^-11 (a double) and within half an ulp
    // below; the quotient within 1.5 ulp, and log1p's condition number is below 1.
    return log1p_of(2 * a / (1 - a)) / 2 * sign_of(x);
  }
#endif
  return std::atanh(x);  // NaN, +-1 (+-Inf), |x| > 1 (NaN)
}

inline long double cbrt(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  const long double a = std::fabs(x);
  if (a >= DBL_MIN && a <= DBL_MAX) {
    // One Newton step from the double cube root y (within 1 ulp of double): y + (x - y^3) /
    // (3 y^2) has a quadratic error below 2^-100; y^3 is rounded twice (x - y^3 is then
    // exact), which moves the step by at most 2/3 ulp of y.
    const long double y = std::cbrt(static_cast<double>(x));
    const long double square = y * y;
    return y + (x - square * y) / (3 * square);
  }
#endif
  return std::cbrt(x);  // +-0, +-Inf, NaN, subnormal and long double arguments
}

#if DEVPLUG_FAST_LDBL_ELEMENTARY
namespace elementary_detail {

// pi/2 and pi as long double plus the rest.
inline constexpr long double kHalfPiHi = 0x1.921fb54442d1846ap+0L, kHalfPiLo = -0x1.d9cceba3f91f1976p-66L;
inline constexpr long double kPiHi = 0x1.921fb54442d1846ap+1L, kPiLo = -0x1.d9cceba3f91f1976p-65L;

// asin(s + s_lo) - a0 for |s| <= 1/2 (a double), |s_lo| <= ulp(s), a0 the double asin(s)
// (within a few ulp) and cos_a0 ~ cos(a0) within 2^-40: one Newton step on sin(a) = s + s_lo,
// whose quadratic error is below 2^-100 a. sin a0 - a0 is Taylor's series to a0^17 (the
// rest is below 2^-73 a0 for |a0| <= pi/6); s - a0 is exact, and the residual is small
// against the terms it comes from, so the step is within 2^-66 a0.
inline long double asin_newton_step(double s, long double s_lo, double a0, double cos_a0) {
  static constexpr double kSinTaylorTail[6] = {-1.0 / 5040,      1.0 / 362880,         -1.0 / 39916800,
                                               1.0 / 6227020800, -1.0 / 1307674368000, 1.0 / 355687428096000};
  const long double a = a0, z = a * a;
  const long double sin_minus_a = a * z * (-1.0L / 6 + z * (1.0L / 120 + z * polynomial(z, kSinTaylorTail)));
  const long double residual = ((s - a) + s_lo) - sin_minus_a;
  return residual / cos_a0;
}

// For 1/2 < |x| <= 1: v = asin(sqrt((1 - |x|) / 2)) = (pi/2 - asin|x|) / 2 as v_hi + v_lo
// (v_hi a double), so that asin|x| = pi/2 - 2v and acos|x| = 2v.
struct HalfAngle {
  double hi;
  long double lo;
};

inline HalfAngle half_angle(long double x) {
  const long double t = (1 - std::fabs(x)) / 2;  // exact (Sterbenz)
  const double s = std::sqrt(static_cast<double>(t));
  // t - s^2 exactly: s splits into 32 + 21 bits, whose products are exact in long double.
  uint64_t bits;
  std::memcpy(&bits, &s, sizeof bits);
  bits &= ~((uint64_t{1} << 21) - 1);
  double s_top;
  std::memcpy(&s_top, &bits, sizeof s_top);
  const long double top = s_top, bottom = static_cast<long double>(s) - top;
  const long double s_residual = ((t - top * top) - 2 * top * bottom) - bottom * bottom;
  const long double s_lo = s > 0 ? s_residual / (2 * s) : 0;
  const double v0 = std::asin(s);
  return {v0, asin_newton_step(s, s_lo, v0, std::sqrt(static_cast<double>(1 - t)))};
}

// hi + lo - (v + v_lo) (hi, lo a long double constant and its rest, |v| <= hi), within half an
// ulp.
inline long double subtract_from(long double hi, long double lo, double v, long double v_lo) {
  const long double difference = hi - v;
  return difference + (((hi - difference) - v) + (lo - v_lo));  // Fast2Sum
}

}  // namespace elementary_detail
#endif

inline long double asin(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  const long double a = std::fabs(x);
  if (a <= 0.5L) {
    const double ad = static_cast<double>(a);
    const double a0 = std::asin(ad);
    return (a0 + asin_newton_step(ad, a - ad, a0, std::sqrt((1 - ad) * (1 + ad)))) * sign_of(x);
  }
  if (a <= 1) {
    const HalfAngle v = half_angle(x);
    return subtract_from(kHalfPiHi, kHalfPiLo, 2 * v.hi, 2 * v.lo) * sign_of(x);
  }
#endif
  return std::asin(x);  // NaN, |x| > 1 (NaN)
}

inline long double acos(long double x) {
#if DEVPLUG_FAST_LDBL_ELEMENTARY
  using namespace elementary_detail;
  const long double a = std::fabs(x);
  const double xd = static_cast<double>(x);
  if (a <= 0.5L) {
    // pi/2 - asin x: asin x is at most a third of pi/2.
    const double a0 = std::asin(xd);
    return subtract_from(kHalfPiHi, kHalfPiLo, a0,
                         asin_newton_step(xd, x - xd, a0, std::sqrt((1 - xd) * (1 + xd))));
  }
  if (a <= 1) {
    const HalfAngle v = half_angle(x);
    if (x > 0) return 2 * v.hi + 2 * v.lo;
    return subtract_from(kPiHi, kPiLo, 2 * v.hi, 2 * v.lo);
  }
#endif
  return std::acos(x);  // NaN, |x| > 1 (NaN)
}

// glibc's erfcl is accurate and takes ~30 ns below |x| = 1.25 but calls expl twice beyond
// (110-130 ns), even where the float64 answer is settled: below -6.5, erfc(-x) < 2^-64 and
// 2 - erfc(-x) rounds to 2 already in long double; above 27.25, erfc(x) < 2^-1075, half the
// smallest double, so the float64 result is +0, which is what this returns there (this
// function serves float64 only). In between it stays glibc's.
inline long double erfc(long double x) {
  if (x <= -6.5L) return 2;   // also -Inf
  if (x >= 27.25L) return 0;  // also +Inf
  return std::erfc(x);        // and NaN
}

}  // namespace devplug::reference::math
