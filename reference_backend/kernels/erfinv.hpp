// SPDX-License-Identifier: Apache-2.0
// The inverse error function of the reference kernels (erfinv is not in the C library).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernels/math.hpp"

namespace devplug::reference::math {

// erfinv(y) in C: double (float32 and 16-bit dtypes), or long double for float64, where the
// result must carry 64 bits before its one rounding to double. By a = |y|:
//
//  - a < 0.9375 (x < 1.32): polynomials accurate to 1.3e-22 (relative), in a^2 below 0.5 and
//    in a - center on 8 intervals above, evaluated directly.
//  - a >= 0.9375: a start x0 accurate to 1e-10 (a polynomial in s = sqrt(-log(1 - a^2)), in
//    double), then one Halley step on f(x) = erfc(x) - (1 - a), where 1 - a is exact. Halley
//    leaves (x^2 + 1) x^2 / 3 e^3 of a start error e: below 1e-26 up to x = 6.5, so the result
//    is as accurate as the residual f(x0), computed in C as exp(-x0^2) / H(x0) - (1 - a) (the
//    C library's erfcl, which calls expl twice, costs several times more). An error of erfc
//    reaches x scaled by erfc(x) / (x f'(x)) < 0.26, so the step adds little to the result's
//    error. The step divides f by f' in double: the step is 1e-10 of x, so f' needs no more.
//
// The coefficients are Chebyshev interpolants (near-minimax) fitted with mpmath at 50 digits
// against its erfinv, erfc and exp, then expanded into monomials; no published tables. In each
// polynomial the leading terms are in C and those below 1e-4 of the sum in double.
namespace erfinv_detail {

// a < 0.9375 in 9 pieces, each a polynomial accurate to 1.3e-22 (relative), its first 5
// coefficients in C, the rest (at most 6e-5 of the sum) in double:
//  - a < 0.5: erfinv(a) = a P(a^2);
//  - 0.5 <= a < 0.9375: erfinv(a) = P(a - center) on [0.5, 0.625), [0.625, 0.71875),
//    [0.71875, 0.78125), [0.78125, 0.828125), [0.828125, 0.8671875), [0.8671875, 0.8984375),
//    [0.8984375, 0.921875), [0.921875, 0.9375): narrower towards the singularity at 1. The
//    centers are short binary fractions, so a - center is exact.
// One code path for all: on random y, a branch per piece would mispredict often.
constexpr double kPieceLowerBound[9] = {0,        0.5,       0.625,     0.71875, 0.78125,
                                        0.828125, 0.8671875, 0.8984375, 0.921875};
constexpr double kPieceCenter[9] = {0,          0.5625,    0.671875,   0.75,     0.8046875,
                                    0.84765625, 0.8828125, 0.91015625, 0.9296875};
constexpr long double kPieceWide[9][5] = {
    {8.86226925452758013649024e-1L, 2.32013666534654493707105e-1L, 1.27556175305597892237670e-1L,
     8.65521292415587627005415e-2L, 6.49596177443798289909979e-2L},
    {5.49013092368501520432973e-1L, 1.19797560688804320232205L, 7.87913698984083140059993e-1L,
     1.26404208489678972721318L, 2.00089608613200511249207L},
    {6.91477984626026987020664e-1L, 1.42954979436483642657183L, 1.41311313207818393882925L,
     2.83630260440035878609029L, 6.13077430714165403281832L},
    {8.13419847597618541690295e-1L, 1.71749976936745227132309L, 2.39943030590779550815323L,
     6.15825709291628121635000L, 1.76236432416038214822522e+1L},
    {9.15719125570204549441914e-1L, 2.04983495325083473359738L, 3.84768999064758914491762L,
     1.25008751359769548273594e+1L, 4.59757931821448018629572e+1L},
    {1.01208317978559477577426L, 2.46830116157764846729334L, 6.16612752546397414668838L,
     2.55510690635971944858652e+1L, 1.20789486622975453385496e+2L},
    {1.10781612321653906538708L, 3.02367907055463334923372L, 1.01283585965162885496323e+1L,
     5.44504842039589732253093e+1L, 3.35320839689271572747096e+2L},
    {1.19941043569140609576426L, 3.73520668950869251320194L, 1.67338973509685654422328e+1L,
     1.17329084224951047797560e+2L, 9.44104501438668433000361e+2L},
    {1.27978707504653816232546L, 4.55886058148191378860614L, 2.65980832817989562869984e+1L,
     2.38493360962455668990477e+2L, 2.45571709946887479226736e+3L}};
constexpr double kPieceNarrow[9][13] = {
    {0.05173128203930653, 0.042836718687025425, 0.03646597850294437, 0.03168811563691455, 0.02799251442495806,
     0.024903351532886205, 0.02350702212347025, 0.015515283677540518, 0.040417570527741246,
     -0.048497132336340655, 0.15695490729562983, -0.17599508041027515, 0.14769459101264315},
    {3.5737792001460504, 6.619871966111176, 12.717089121979262, 25.00043359067212, 50.06497064200886,
     101.69491872612346, 208.96674940265677, 433.50239277415466, 906.4252925423735, 1902.5821024828585,
     4028.1584377682757, 9324.13364755618, 19941.606288953168},
    {14.515107473803903, 35.966402916790095, 92.14613544323811, 241.7570692740994, 645.8882166832805,
     1750.2848963012818, 4797.733517366743, 13276.375364782281, 37027.94722264562, 103665.34730758143,
     292736.9758731853, 903793.6000262941, 2577978.394523716},
    {54.746521814057324, 178.2850219091044, 599.9484511853467, 2067.3532727168053, 7253.388473601689,
     25811.2574718782, 92902.41928407767, 337542.0552528241, 1236033.36653316, 4548901.415426045,
     16864983.541992188, 66981743.841538176, 250790821.3538574},
    {182.94099987192567, 763.2876353139088, 3290.026728981684, 14519.965314184748, 65240.66949882175,
     297292.79185939225, 1370178.800696863, 6374304.183809957, 29886628.291786287, 140862137.52399337,
     668643584.2575834, 3382574683.920311, 16213951864.71124},
    {616.790925777434, 3302.145917152432, 18260.291308113457, 103377.07824594455, 595786.0337364222,
     3482101.327194155, 20582469.472980604, 122801154.4617427, 738376784.3618239, 4460896093.765008,
     27153684039.348343, 177674108412.93893, 1092155021416.0913},
    {2228.3375558059874, 15522.326761917297, 111662.89956730916, 822270.2300625839, 6163567.776237336,
     46849656.260512255, 360133539.8924355, 2794184500.6242023, 21847403363.69596, 171576704889.6154,
     1358031308277.5078, 11620690336510.56, 92883703722665.67},
    {8192.19283398815, 74495.21514809226, 699454.2942674195, 6721927.783326338, 65751256.19106374,
     652144179.27974, 6541011122.298444, 66215824641.83398, 675491541430.7423, 6922487785835.81,
     71483784455781.7, 795448803538131.0, 8294434919247833.0},
    {27253.81711623065, 316901.9174038299, 3804175.80483546, 46736460.469558984, 584379557.9928169,
     7408661861.97824, 94979007858.82307, 1228877259099.3198, 16022350550972.459, 210056701413979.88,
     2772237449378221.5, 3.865845207144777e+16, 5.150963381853401e+17}};

// The Halley start for a >= 0.9375 (s >= 1.45): erfinv as a polynomial in s - center on s in
// [0.53, 1.5), [1.5, 2.6), [2.6, 4), [4, 6.7) (up to 1 - a = 2^-64, the least a long double
// below 1 allows: x < 6.45); max relative errors 3.7e-11, 6.2e-11, 8.2e-12, 5e-11.
constexpr double kStartCenter[4] = {1.015, 2.05, 3.3, 5.35};
constexpr double kStart[4][10] = {
    {0.9100724680045535, 0.9165501536285606, 0.02755047515756665, 0.005606427430556732,
     -0.0029860716939356553, -0.000814239576921348, 0.00013424431536725924, 0.00017942300358322506,
     2.5608767008854467e-05, -2.435373445632092e-05},
    {1.890424100451594, 0.9760869615310868, 0.02299257071953216, -0.006831751098029464,
     -0.0007088641392388559, 0.001315333435765664, -0.00019933991535019864, -0.0002178939502323425,
     6.72402064077489e-05, 3.210102742770362e-05},
    {3.1341323159156493, 1.0059525731226384, 0.004298293018959977, -0.0022801718953468237,
     0.0008014627954248963, -0.00021401577783073652, 2.9417508156701677e-05, 1.226052090648294e-05,
     -1.2175580542842624e-05, 4.196216831453254e-06},
    {5.2034863964925275, 1.0101360251136395, -0.0003161675603263505, -0.00012932779638110282,
     4.860139413327848e-05, -1.2282904261449275e-05, 2.67038162707421e-06, -5.456188049648033e-07,
     1.2414567589446178e-07, -2.274624987550356e-08}};

// H(x) = 1 / (exp(x^2) erfc(x)) ~ sqrt(pi) x, a polynomial in x - center on [1.25, 1.75),
// [1.75, 2.5), [2.5, 3.5), [3.5, 4.5), [4.5, 6.75); max relative error 1e-19 on the last
// interval, 8e-21 or less on the others: below 2^-66 after the factor erfc(x) / (x f'(x))
// (0.26 at x = 1.25, 0.03 at 4.5). The centers are multiples of 1/8: x - center is exact
// for a 32-bit x.
constexpr double kHCenter[5] = {1.5, 2.125, 3.0, 4.0, 5.625};
constexpr long double kHWide[5][4] = {{3.10959374658724304747036L, 1.58216379147219475642509L,
                                       6.86581462686392581703793e-2L, -2.12933615281174914086924e-2L},
                                      {4.12081632463106678762860L, 1.64768076554801469485666L,
                                       3.93194038522472052137678e-2L, -1.11428444775958860240950e-2L},
                                      {5.58655625061681775826131L, 1.69693706994893621764030L,
                                       1.97058542333199242684221e-2L, -4.79736059467908974619108e-3L},
                                      {7.29929897048781762900191L, 1.72538560953350453782893L,
                                       1.00847567373296135752290e-2L, -2.06366296224329191581720e-3L},
                                      {1.01229782754164093596298e+1L, 1.74679880943478376939816L,
                                       4.18877841472039616527715e-3L, -6.66011713771753789210467e-4L}};
constexpr double kHNarrow[5][11] = {
    {0.005570896395202174, -0.0011483549751886693, 0.00013941750733001103, 1.8765579237761103e-05,
     -1.8909876399876093e-05, 7.256029858153519e-06, -1.8776506529971737e-06, 2.965748940926325e-07,
     1.2471113120994388e-08, -3.072275795668636e-08, 1.3147800052205857e-08},
    {0.0028248178814460384, -0.0006278240111280037, 0.00011585798269724756, -1.4722245495571279e-05,
     -2.493518849515176e-07, 9.460191884502296e-07, -3.873518922410019e-07, 1.0921201468011974e-07,
     -2.3513790935870425e-08, 3.374333886915721e-09, -1.653805373666995e-11},
    {0.0010886949217858712, -0.0002290814599921696, 4.4141418357545414e-05, -7.58176982758875e-06,
     1.0861524552628679e-06, -1.0156270796583346e-07, -6.179030459764455e-09, 6.484741201382571e-09,
     -2.177070981703721e-09, 5.643372325722635e-10, -1.1573632084666979e-10},
    {0.00040334645986347267, -7.518124516808368e-05, 1.3315000210290065e-05, -2.2252510601689306e-06,
     3.465193816021082e-07, -4.904627735795792e-08, 5.958418442392071e-09, -5.141688615779757e-10,
     -6.856522920483814e-12, 1.8530822744078096e-11, -5.6649720537783524e-12},
    {0.00010313884059600655, -1.5551605695512504e-05, 2.28128557591382e-06, -3.250788271192616e-07,
     4.4891693258774244e-08, -5.985505589651221e-09, 7.660293428826403e-10, -9.317671559957202e-11,
     1.0606405419059061e-11, -1.1052577932744229e-12, 8.886039368803219e-14}};

constexpr long double kExp2High[16] = {
    1.00000000000000000000000L,    9.57603280698573646910129e-1L, 9.17004043204671231753668e-1L,
    8.78126080186649741554736e-1L, 8.40896415253714543018917e-1L, 8.05245165974627154096069e-1L,
    7.71105412703970411792982e-1L, 7.38413072969749655711982e-1L, 7.07106781186547524381894e-1L,
    6.77127773468446364133443e-1L, 6.48419777325504832960791e-1L, 6.20928906036742024317047e-1L,
    5.94603557501360533343784e-1L, 5.69394317378345826848561e-1L, 5.45253866332628829604375e-1L,
    5.22136891213706920173310e-1L};
constexpr double kExp2Low[16] = {0.0,
                                 2.617617080990255e-20,
                                 -1.012679192725648e-20,
                                 1.3438228172316277e-21,
                                 1.2207982955417547e-20,
                                 -6.308481435806087e-21,
                                 1.3164426894366317e-20,
                                 -1.8527916071632873e-20,
                                 1.8950325588932572e-20,
                                 1.556477577953878e-20,
                                 6.085979363755686e-21,
                                 -2.0208749253662534e-20,
                                 1.4966292219224763e-20,
                                 3.3540909728056478e-21,
                                 -8.698756410174285e-22,
                                 -1.2327176863327626e-20};
constexpr double kLn2Over16High = 0.04332169878499658, kLn2Over16Low = 1.4494042586539372e-18;
constexpr double kSixteenOverLn2 = 23.083120654223414;
constexpr double kSqrtPiOver2 = 0.88622692545275801365;

constexpr double kSigns[2] = {1.0, -1.0};

// A long double table in C, converted at compile time (loading long double to round it to
// double at run time costs x87 loads and stores).
template <typename C, size_t R, size_t W>
constexpr std::array<std::array<C, W>, R> in_precision(const long double (&table)[R][W]) {
  std::array<std::array<C, W>, R> converted{};
  for (size_t i = 0; i < R; ++i)
    for (size_t j = 0; j < W; ++j) converted[i][j] = static_cast<C>(table[i][j]);
  return converted;
}
template <typename C, size_t N>
constexpr std::array<C, N> in_precision(const long double (&table)[N]) {
  std::array<C, N> converted{};
  for (size_t i = 0; i < N; ++i) converted[i] = static_cast<C>(table[i]);
  return converted;
}
template <typename C>
inline constexpr auto kPieceWideIn = in_precision<C>(kPieceWide);
template <typename C>
inline constexpr auto kHWideIn = in_precision<C>(kHWide);
template <typename C>
inline constexpr auto kExp2HighIn = in_precision<C>(kExp2High);

// c[0] + c[1] z + ... as two Horner chains in z^2: half the dependency chain of one.
template <int N>
inline double polynomial(const double (&c)[N], double z) {
  static_assert(N >= 2);
  const double z2 = z * z;
  constexpr int top_even = (N - 1) & ~1, top_odd = N % 2 == 0 ? N - 1 : N - 2;
  double even = c[top_even], odd = c[top_odd];
  for (int i = top_even - 2; i >= 0; i -= 2) even = even * z2 + c[i];
  for (int i = top_odd - 2; i >= 1; i -= 2) odd = odd * z2 + c[i];
  return even + z * odd;
}

// wide[0] + wide[1] z + ... + z^W narrow(z): the leading terms in C, the small rest in double.
// Unrolled by the fold: a loop of long double steps compiles to slower x87 code.
template <typename C, size_t W, int N, size_t... I>
inline C mixed_polynomial(const std::array<C, W>& wide, const double (&narrow)[N], C z,
                          std::index_sequence<I...>) {
  C sum = C(polynomial(narrow, static_cast<double>(z)));
  ((sum = sum * z + wide[W - 1 - I]), ...);
  return sum;
}
template <typename C, size_t W, int N>
inline C mixed_polynomial(const std::array<C, W>& wide, const double (&narrow)[N], C z) {
  return mixed_polynomial(wide, narrow, z, std::make_index_sequence<W>());
}

// x rounded to 32 significant bits, so that x * x is exact in long double.
inline double round_to_32_bits(double x) {
  return double_of((bits_of(x) + (uint64_t{1} << 20)) & ~((uint64_t{1} << 21) - 1));
}

// f / f' for f(x) = erfc(x) - t at x in [1.25, 6.75) with 32 significant bits. With
// exp(-x^2) = 2^-m e, e = 2^(-j/16) e^r (k = 16 m + j): f = 2^-m (e - 2^m t H) / H and
// f' = -2^-m e 2 / sqrt(pi); the 2^-m cancels, so nothing underflows.
template <typename C>
inline double erfc_newton_ratio(double x, C t) {
  const int k = static_cast<int>(x * x * kSixteenOverLn2 + 0.5);
  // In long double x * x (x has 32 bits), k * kLn2Over16High and their difference are exact.
  const C r = (k * C(kLn2Over16High) - C(x) * C(x)) + k * kLn2Over16Low;
  // e^r - 1 = r + r^2 / 2 + r^3 q(r): r^3 q < 2e-6, so q needs only double, and r only to 1e-14.
  const double rd = k * kLn2Over16High - x * x;
  const double q =
      1.0 / 6 + rd * (1.0 / 24 + rd * (1.0 / 120 + rd * (1.0 / 720 + rd * (1.0 / 5040 + rd / 40320))));
  const C r2 = r * r;
  const C expm1_r = r + (r2 / 2 + r2 * r * C(q));
  const int interval = (x >= 1.75) + (x >= 2.5) + (x >= 3.5) + (x >= 4.5);
  const C h = mixed_polynomial(kHWideIn<C>[interval], kHNarrow[interval], C(x - kHCenter[interval]));
  // e - 2^m t H, the two large terms first: they cancel to about |e^r - 1| < 0.011.
  const C high = kExp2HighIn<C>[k & 15];
  const C scaled_f = (high - t * C(pow2(k >> 4)) * h) + (C(kExp2Low[k & 15]) + high * expm1_r);
  const double e = static_cast<double>(high) * (1 + static_cast<double>(expm1_r));
  return -static_cast<double>(scaled_f) * kSqrtPiOver2 / (static_cast<double>(h) * e);
}

}  // namespace erfinv_detail

// +-Inf at +-1, NaN outside [-1, 1], keeps -0.0; tiny and subnormal y give y sqrt(pi) / 2.
template <typename C>
inline C erfinv(C y) {
  namespace d = erfinv_detail;
  // The pieces run in long double even for C = double: a float32 result must be correctly
  // rounded, and in double a hard case (y = 0x1.51904ep-3) lands on a float midpoint. Through
  // the long double instantiation: the same code inside erfinv<double> runs slower.
  if constexpr (!std::is_same_v<C, long double>) {
    if (std::fabs(y) < C(0.9375)) return static_cast<C>(erfinv(static_cast<long double>(y)));
  }
  if (std::isnan(y)) return y;
  const C a = std::fabs(y);
  if (a > 1) return std::numeric_limits<C>::quiet_NaN();
  if (a == 1) return std::copysign(std::numeric_limits<C>::infinity(), y);
  using Wide = long double;
  const Wide aw = a;
  Wide x;
  if (a < C(0x1p-40)) {
    x = aw * d::kPieceWideIn<Wide>[0][0];  // the a^2 term is below 2^-80 of it
  } else if (a < C(0.9375)) {
    const double ad = static_cast<double>(a);
    int piece = 0;
    for (int i = 1; i < 9; ++i) piece += ad >= d::kPieceLowerBound[i];
    const Wide central = piece == 0;  // 1 or 0; an arithmetic select, as a branch would mispredict
    const Wide scale = central * aw + (1 - central);  // a, or 1
    const Wide z = scale * aw - Wide(d::kPieceCenter[piece]);
    x = scale * d::mixed_polynomial(d::kPieceWideIn<Wide>[piece], d::kPieceNarrow[piece], z);
  } else {
    const C t = 1 - a;  // exact (Sterbenz)
    const double s = std::sqrt(-std::log(static_cast<double>(t * (1 + a))));
    const int interval = (s >= 1.5) + (s >= 2.6) + (s >= 4.0);
    // 32 bits cost at most 1.2e-10 of the start's accuracy.
    const double x0 = d::round_to_32_bits(d::polynomial(d::kStart[interval], s - d::kStartCenter[interval]));
    const double u = d::erfc_newton_ratio(x0, t);  // f / f', in C precision
    // Halley: x0 - u / (1 + x0 u) as f'' / f' = -2x; expanded, since |x0 u| < 1e-8.
    x = Wide(x0) - Wide(u - x0 * u * u);
  }
  // x * +-1 rather than copysign, which compiles to a branch for long double.
  return static_cast<C>(x * Wide(d::kSigns[std::signbit(static_cast<double>(y))]));
}

}  // namespace devplug::reference::math
