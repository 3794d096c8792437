// SPDX-License-Identifier: Apache-2.0
// lgamma and digamma in double for the device kernels: the one source of every device plugin,
// written in the common subset of OpenCL C 1.2 and CUDA/HIP C++ (no namespaces, overloads,
// references, brace returns or casts other than C's; no includes).
//
// Who compiles it:
// - OpenCL C: the opencl plugin embeds this file and puts its text ahead of common.cl in every
//   program it builds (plugins/opencl/program_cache.cpp), so it is part of the source its
//   disk cache keys hash; the level_zero plugin's SPIR-V build passes it with -include ahead
//   of common.cl (plugins/level_zero/spirv/build_spirv.cpp --prelude) and hashes it into
//   every module's key. The body compiles only in programs built with -DHAS_FP64, and the
//   tables are static, so programs that call none of it carry none of it.
//   plugins/opencl/kernels/elementwise.cl calls lgamma_double and digamma_double.
// - CUDA, HIP, the emulated GPU and the host unit tests: plugins/gpu_common/special_double.cuh
//   defines DEVPLUG_SPECIAL_FN (function qualifiers: `__device__ inline` in device code,
//   `inline` on the host) and DEVPLUG_SPECIAL_TABLE (`static __constant__ const double` in
//   device code, `inline constexpr double` on the host) and includes this file inside its
//   namespace.
// This file #undefs both macros at its end.
//
// Accuracy: within 2 ulp of the true value, also next to the functions' roots, where the
// vendors' libraries lose all relative accuracy (CUDA documents no bound for lgamma on
// (-23, -2.26)). Double-double sums (pairs hi + lo, about 104 bits) where the usual formulas
// cancel, and Taylor series around the roots, where even that is too little. Roots and
// coefficients were computed with mpmath at 300 bits. The reference backend keeps its own,
// independent implementation (reference_backend/kernels/gamma.hpp) as the oracle.
//
// Every product and sum here must be rounded on its own where the compiler is told so: the
// CUDA/HIP kernel file that calls these is compiled without contraction (nvcc -fmad=false,
// hipcc -ffp-contract=off; gpu_common/sources.cmake). With nvcc's default fusion of products
// into sums the double-double steps broke on an H200 (the hi + lo of dd_log differed from the
// unfused result in half the inputs): digamma 8 to 32 ulp off next to its roots, lgamma up to
// 45 ulp; unfused, the GPU matched the emulated GPU (host compiler, no fusion) bit for bit.
// The OpenCL programs are built with OpenCL C's default FP_CONTRACT (on), as they always were.
#ifndef DEVPLUG_DEVICE_COMMON_SPECIAL_DOUBLE_H_
#define DEVPLUG_DEVICE_COMMON_SPECIAL_DOUBLE_H_

#if defined(__OPENCL_C_VERSION__)
#if defined(HAS_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define DEVPLUG_SPECIAL_DOUBLE 1
#define DEVPLUG_SPECIAL_FN inline
#define DEVPLUG_SPECIAL_TABLE static __constant double
#endif
#else
#if !defined(DEVPLUG_SPECIAL_FN) || !defined(DEVPLUG_SPECIAL_TABLE)
#error "define DEVPLUG_SPECIAL_FN and DEVPLUG_SPECIAL_TABLE before including special_double.h"
#endif
#define DEVPLUG_SPECIAL_DOUBLE 1
#endif

#if defined(DEVPLUG_SPECIAL_DOUBLE)

// ---- double-double arithmetic: sums, products, reciprocals, quotients -----------------------
typedef struct {
  double hi, lo;
} dd_t;
DEVPLUG_SPECIAL_FN dd_t dd_make(double hi, double lo) {
  dd_t r;
  r.hi = hi;
  r.lo = lo;
  return r;
}
DEVPLUG_SPECIAL_FN dd_t dd_of(double a) { return dd_make(a, 0); }
DEVPLUG_SPECIAL_FN dd_t dd_quick(double a, double b) {  // |a| >= |b|
  const double s = a + b;
  return dd_make(s, b - (s - a));
}
DEVPLUG_SPECIAL_FN dd_t dd_two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return dd_make(s, (a - (s - bb)) + (b - bb));
}
DEVPLUG_SPECIAL_FN dd_t dd_add(dd_t a, dd_t b) {
  dd_t s = dd_two_sum(a.hi, b.hi);
  const dd_t t = dd_two_sum(a.lo, b.lo);
  s = dd_quick(s.hi, s.lo + t.hi);
  return dd_quick(s.hi, s.lo + t.lo);
}
DEVPLUG_SPECIAL_FN dd_t dd_neg(dd_t a) { return dd_make(-a.hi, -a.lo); }
DEVPLUG_SPECIAL_FN dd_t dd_mul(dd_t a, dd_t b) {
  const double p = a.hi * b.hi;
  return dd_quick(p, fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi));
}
DEVPLUG_SPECIAL_FN dd_t dd_scale(dd_t a, double b) {
  const double p = a.hi * b;
  return dd_quick(p, fma(a.hi, b, -p) + a.lo * b);
}
DEVPLUG_SPECIAL_FN dd_t dd_recip(dd_t a) {
  const double q = 1 / a.hi;
  const double r = fma(-q, a.lo, fma(-q, a.hi, 1.0));  // 1 - q * a; the inner fma is exact
  return dd_quick(q, q * r);
}
DEVPLUG_SPECIAL_FN dd_t dd_div(dd_t a, dd_t b) {
  const double q1 = a.hi / b.hi;
  dd_t r = dd_add(a, dd_scale(b, -q1));
  const double q2 = r.hi / b.hi;
  r = dd_add(r, dd_scale(b, -q2));
  return dd_add(dd_quick(q1, q2), dd_of(r.hi / b.hi));
}

// 1 / (2k + 1) for k = 0..9, and B_2k / (2k) for k = 1..13, as hi + lo.
DEVPLUG_SPECIAL_TABLE kInvOdd[10][2] = {{1.0, 0.0},
                                        {0.3333333333333333, 1.850371707708594e-17},
                                        {0.2, -1.1102230246251566e-17},
                                        {0.14285714285714285, 7.93016446160826e-18},
                                        {0.1111111111111111, 6.1679056923619804e-18},
                                        {0.09090909090909091, -2.523234146875356e-18},
                                        {0.07692307692307693, -4.270088556250602e-18},
                                        {0.06666666666666667, 9.251858538542971e-19},
                                        {0.058823529411764705, 8.163404592832033e-19},
                                        {0.05263157894736842, 2.921639538487254e-18}};
DEVPLUG_SPECIAL_TABLE kBernoulli[13][2] = {
    {0.08333333333333333, 4.625929269271485e-18},    {-0.008333333333333333, -1.1564823173178714e-19},
    {0.003968253968253968, 2.20282346155785e-19},    {-0.004166666666666667, -5.782411586589357e-20},
    {0.007575757575757576, -2.1026951223961299e-19}, {-0.021092796092796094, 1.3911677399530732e-18},
    {0.08333333333333333, 4.625929269271485e-18},    {-0.4432598039215686, -2.0462934179365632e-17},
    {3.0539543302701198, -1.0882720820608607e-17},   {-26.456212121212122, 7.449932926454383e-16},
    {281.46014492753625, -1.647635329298783e-14},    {-3607.5105463980462, -1.5347029033579816e-13},
    {54827.583333333336, -2.4253192047278085e-12}};
// digamma: the positive root and the first ten negative ones (hi, lo), and the series
// psi^(j)(root) / j! for j = 1..16 around each.
DEVPLUG_SPECIAL_TABLE kDigammaRoot[11][2] = {
    {1.4616321449683622, 9.549995429965697e-17},    {-0.5040830082644554, -8.15428206243813e-18},
    {-1.5734984731623904, -1.574185691077347e-17},  {-2.6107208684441447, 9.881960746978353e-17},
    {-3.635293366436901, 5.454396163173039e-17},    {-4.653237761743142, -2.5492686201468193e-16},
    {-5.6671624415568855, -3.2153051074948335e-18}, {-6.678418213073427, 3.470798723495241e-16},
    {-7.687788325031626, -1.351562494643672e-16},   {-8.695764163816401, -3.2859903716289447e-16},
    {-9.702672540001863, -3.2563178405401477e-16},
};
DEVPLUG_SPECIAL_TABLE kDigammaTaylor[11][16] = {
    {0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652, 0.10782405069126237,
     -0.07219956125645471, 0.04880428816414311, -0.03316112647484736, 0.022597648232218104,
     -0.01542476590494896, 0.010538791616612175, -0.007204534386356869, 0.004926781395729853,
     -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972},
    {8.939798558792134, -0.8093454625306507, 32.258572064915505, -2.761011648790828, 128.27342343090902,
     -14.70672173553036, 513.2704629562862, -75.37700066344631, 2055.5357119463315, -368.5783503832191,
     8234.667099203069, -1743.364608867363, 32997.785655255044, -8051.818155363498, 132262.95480834588,
     -36529.94596948565},
    {9.941513615924176, -7.802593974782628, 39.911910808498966, -54.82093287162743, 194.4376179574295,
     -340.5781696501909, 998.8875783432551, -1992.4996040262852, 5280.90721723033, -11319.594764761363,
     28392.778384038458, -63341.621003608976, 154145.9448243582, -351599.7910103957, 841503.4207747859,
     -1943181.342358103},
    {10.84832879920919, -12.770725694247192, 51.217352382808855, -100.2036323192089, 306.843080795829,
     -706.7052450573435, 1948.0852652620983, -4786.785969940508, 12652.372604354454, -31919.2289457462,
     82949.8731907648, -211523.43319593722, 545930.3505014677, -1398224.70739006, 3598689.520560963,
     -9233265.531308448},
    {11.650939359651861, -16.938337607821335, 63.16205964241572, -145.45199182008608, 440.37818718162464,
     -1141.3233980389668, 3232.6440925841607, -8700.78423006634, 24112.90022627927, -65712.73440774584,
     180814.05819229368, -494780.80672965344, 1358226.093813731, -3721686.383217015, 10208497.556997271,
     -27984853.560869675},
    {12.369637994669782, -20.636997462381604, 75.16701278577447, -191.19880243991764, 588.2838897926692,
     -1639.1313916625995, 4813.770065042627, -13748.637856812207, 39852.31593119324, -114614.76590425898,
     331005.9805944661, -953830.505840743, 2751795.146716904, -7933969.253832636, 22882765.161359254,
     -65985768.20848166},
    {13.021406387509394, -24.0108335669899, 87.05344839974758, -237.41817939113608, 747.1149127904746,
     -2193.015906371229, 6665.187546739225, -19910.323828704128, 59991.778412707245, -179985.50305343443,
     541147.0701411078, -1625280.206943129, 4883971.343185349, -14672437.550305542, 44084828.29867977,
     -132448560.2186355},
    {13.61885190419576, -27.138720475450622, 98.75629029391955, -283.9889360971214, 914.6724839741158,
     -2796.63958799162, 8765.570815645153, -27155.207038126624, 84593.02617191541, -262830.8073953754,
     817633.3059183315, -2542053.805219634, 7905554.568456607, -24582292.733584784, 76443350.8364023,
     -237708172.17275923},
    {14.17134063324115, -30.070057845407266, 110.25217734518726, -330.7928072979211, 1089.4014901692478,
     -3444.6381440378464, 11096.710438985036, -35448.931182267035, 113676.36726120014, -363903.5424965649,
     1165852.443919254, -3733757.452982863, 11959661.892701421, -38305382.418307886, 122691700.0473347,
     -392974158.51830214},
    {14.685967981672645, -32.83860036635177, 121.5353573419734, -377.731730126488, 1270.1370712167277,
     -4132.490913449008, 13642.735030528525, -44756.24073843751, 147233.7956915306, -483768.3564393116,
     1590364.9972181884, -5227041.293983923, 17181413.791572675, -56473238.906705394, 185624320.90714893,
     -610131425.1283845},
    {15.168227153977934, -35.4688400421718, 132.60808169720988, -424.727902889821, 1455.973780241242,
     -4856.364730538353, 16389.648612878456, -55042.30534176439, 185237.91377236077, -622846.4516098213,
     2095048.4331540435, -7045935.7325132815, 23698031.429113574, -79702804.69936009, 268065007.49316096,
     -901580380.7046278},
};

// log(x) for a double x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) =
// 2 atanh(s) with s = (m - 1) / (m + 1), |s| < 0.172: the first ten terms in double-double,
// the rest (below 2^-53 of the sum) in double.
DEVPLUG_SPECIAL_FN dd_t dd_log(double x) {
  int e = 0;
  double m = frexp(x, &e);
  if (m < 0.70710678118654752) {
    m *= 2;
    e -= 1;
  }
  const dd_t s = dd_div(dd_of(m - 1), dd_two_sum(m, 1));
  const dd_t s2 = dd_mul(s, s);
  double tail = 0;
  for (int k = 21; k >= 10; --k) tail = 1.0 / (2 * k + 1) + s2.hi * tail;
  dd_t p = dd_of(tail);
  for (int k = 9; k >= 0; --k) p = dd_add(dd_make(kInvOdd[k][0], kInvOdd[k][1]), dd_mul(s2, p));
  const dd_t ln2 = dd_make(0.6931471805599453, 2.3190468138462996e-17);
  return dd_add(dd_scale(ln2, (double)e), dd_scale(dd_mul(s, p), 2));
}

// digamma(z) for z = hi + lo > 0: the recurrence psi(z) = psi(z + 1) - 1 / z up to z >= 32,
// then the asymptotic series log z - 1 / 2z - sum B_2k / (2k z^2k), thirteen terms (the
// fourteenth is below 2^-110 at z = 32).
DEVPLUG_SPECIAL_FN dd_t dd_digamma(dd_t z) {
  dd_t sum = dd_of(0);
  while (z.hi < 32) {
    sum = dd_add(sum, dd_recip(z));
    z = dd_add(z, dd_of(1));
  }
  const dd_t iz = dd_recip(z);
  const dd_t iz2 = dd_mul(iz, iz);
  double tail = 0;
  for (int k = 12; k >= 4; --k) tail = kBernoulli[k][0] + iz2.hi * tail;
  dd_t p = dd_of(tail);
  for (int k = 3; k >= 0; --k) p = dd_add(dd_make(kBernoulli[k][0], kBernoulli[k][1]), dd_mul(iz2, p));
  dd_t r = dd_add(dd_log(z.hi), dd_of(z.lo / z.hi));  // log(hi + lo) = log(hi) + lo / hi
  r = dd_add(r, dd_scale(iz, -0.5));
  r = dd_add(r, dd_neg(dd_mul(iz2, p)));
  return dd_add(r, dd_neg(sum));
}

// lgamma: the six roots in (-5, -2) (hi, lo, half-width of the Taylor window: 1/16 of the
// distance to the nearest pole), the series lgamma^(j)(root) / j! for j = 1..16, sin and cos
// coefficients (-1)^k / (2k + 1)! and (-1)^k / (2k)! for k = 0..15, and Stirling's
// B_2k / (2k (2k - 1)) for k = 1..13, as hi + lo.
DEVPLUG_SPECIAL_TABLE kLgammaRoot[6][3] = {{-2.4570247382208006, -3.7075610815513266e-17, 0x1p-6},
                                           {-2.7476826467274127, 9.055340329338315e-17, 0x1p-6},
                                           {-3.14358088834998, -2.1818179852331714e-16, 0x1p-7},
                                           {-3.955294284858598, -1.999428391746348e-17, 0x1p-9},
                                           {-4.039361839740537, 2.1143995503980602e-16, 0x1p-9},
                                           {-4.991544640560048, 1.5174411760571722e-16, 0x1p-11}};
DEVPLUG_SPECIAL_TABLE kLgammaTaylor[6][16] = {
    {1.5156034480216574, 4.8583209516339965, 1.41129114307798, 8.721782583815346, 5.800414566599873,
     24.824942121894072, 24.038823062292956, 82.22915682704253, 100.6481235455116, 296.43641350761317,
     425.17984568438214, 1130.457858177513, 1811.2054188018712, 4487.218453188998, 7776.158102344247,
     18347.170699977025},
    {-1.9143501856115988, 9.575189475709667, -20.095134916842603, 62.627282713513715, -194.76615530344623,
     646.9059997129283, -2193.112776480624, 7610.397986658329, -26804.57842061811, 95617.4516433497,
     -344497.5934348329, 1251567.4465251002, -4578716.594581718, 16850484.270697366, -62330684.832407415,
     231593359.80352938},
    {7.781884658131351, 25.831338372387957, 112.268986297176, 588.8907422380014, 3277.1937854953417,
     19023.061984356358, 113559.66423713516, 692049.6022897746, 4284377.443645979, 26855525.05557589,
     170037345.82174313, 1085573221.5700052, 6979115396.671346, 45135583357.51528, 293399385882.33044,
     1915727973453.9404},
    {-20.725060845803707, 251.7146825868894, -3730.6047156806126, 62588.08191876606, -1119991.501665522,
     20877114.726503327, -400276998.18746364, 7834398183.738318, -155772242416.57217, 3135952925293.2925,
     -63769616182266.91, 1307561713653824.5, -2.699833879304111e+16, 5.607758637305037e+17,
     -1.1707469715963824e+19, 2.4551117958856704e+20},
    {26.790480886140593, 324.25532293784715, 5465.691820777134, 104145.55520145541, 2116669.417577535,
     44812215.95015571, 975830163.5382146, 21692364960.71331, 489867910498.2002, 11200724416202.004,
     258689045256062.44, 6024404000960524.0, 1.4127866850826968e+17, 3.3328557787986145e+18,
     7.902743911489097e+19, 1.8822347903091118e+21},
    {-116.53578161624363, 6995.235954894064, -551419.9978512884, 48911582.709059045, -4627747171.739249,
     456096042262.1976, -46235700276520.07, 4784685740359657.0, -5.030009689871695e+17, 5.35401097142486e+19,
     -5.756446826254377e+21, 6.240707993007915e+23, -6.813020277751576e+25, 7.482089930210699e+27,
     -8.259003043521392e+29, 9.157287053600414e+31}};
DEVPLUG_SPECIAL_TABLE kSinCoef[16][2] = {{1.0, 0.0},
                                         {-0.16666666666666666, -9.25185853854297e-18},
                                         {0.008333333333333333, 1.1564823173178714e-19},
                                         {-0.0001984126984126984, -1.7209558293420705e-22},
                                         {2.7557319223985893e-06, -1.858393274046472e-22},
                                         {-2.505210838544172e-08, 1.448814070935912e-24},
                                         {1.6059043836821613e-10, 1.2585294588752098e-26},
                                         {-7.647163731819816e-13, -7.03872877733453e-30},
                                         {2.8114572543455206e-15, 1.6508842730861433e-31},
                                         {-8.22063524662433e-18, -2.2141894119604265e-34},
                                         {1.9572941063391263e-20, -1.3643503830087908e-36},
                                         {-3.868170170630684e-23, 8.843177655482344e-40},
                                         {6.446950284384474e-26, -1.9330404233703465e-42},
                                         {-9.183689863795546e-29, -1.4303150396787322e-45},
                                         {1.1309962886447716e-31, 1.0498015412959506e-47},
                                         {-1.216125041553518e-34, -5.586290567888806e-51}};
DEVPLUG_SPECIAL_TABLE kCosCoef[16][2] = {{1.0, 0.0},
                                         {-0.5, 0.0},
                                         {0.041666666666666664, 2.3129646346357427e-18},
                                         {-0.001388888888888889, 5.300543954373577e-20},
                                         {2.48015873015873e-05, 2.1511947866775882e-23},
                                         {-2.755731922398589e-07, -2.3767714622250297e-23},
                                         {2.08767569878681e-09, -1.20734505911326e-25},
                                         {-1.1470745597729725e-11, -2.0655512752830745e-28},
                                         {4.779477332387385e-14, 4.399205485834081e-31},
                                         {-1.5619206968586225e-16, -1.1910679660273754e-32},
                                         {4.110317623312165e-19, 1.4412973378659527e-36},
                                         {-8.896791392450574e-22, 7.911402614872376e-38},
                                         {1.6117375710961184e-24, -3.6846573564509766e-41},
                                         {-2.4795962632247976e-27, 1.2953730964765229e-43},
                                         {3.279889237069838e-30, 1.5117542744029879e-46},
                                         {-3.7699876288159054e-33, -2.5870347832750324e-49}};
DEVPLUG_SPECIAL_TABLE kStirling[13][2] = {
    {0.08333333333333333, 4.625929269271485e-18},    {-0.002777777777777778, 1.0601087908747154e-19},
    {0.0007936507936507937, 6.883823317368282e-22},  {-0.0005952380952380953, 5.36938218754726e-20},
    {0.0008417508417508417, 3.6870174889237694e-20}, {-0.0019175269175269176, 1.0675702776872475e-19},
    {0.00641025641025641, 2.2240044563805217e-19},   {-0.029550653594771242, 4.861760957508855e-19},
    {0.17964437236883057, -6.401600482710946e-19},   {-1.3924322169059011, 1.5837056989230303e-17},
    {13.402864044168393, -6.154114101993966e-16},    {-156.84828462600203, 9.391823141715389e-15},
    {2193.1033333333335, -1.3339255626002948e-13}};

// sin(pi a) for a in [0, 1/2], as hi + lo: the Taylor series of sin or cos on an argument
// within pi/4 (the first ten terms in double-double).
DEVPLUG_SPECIAL_FN dd_t dd_sinpi(double a) {
  const bool use_cos = a > 0.25;
  const dd_t pi = dd_make(3.141592653589793, 1.2246467991473532e-16);
  const dd_t th = dd_scale(pi, use_cos ? 0.5 - a : a);  // 0.5 - a is exact
  const dd_t th2 = dd_mul(th, th);
  double tail = 0;
  for (int k = 15; k >= 10; --k) tail = (use_cos ? kCosCoef[k][0] : kSinCoef[k][0]) + th2.hi * tail;
  dd_t p = dd_of(tail);
  for (int k = 9; k >= 0; --k)
    p = dd_add(use_cos ? dd_make(kCosCoef[k][0], kCosCoef[k][1]) : dd_make(kSinCoef[k][0], kSinCoef[k][1]),
               dd_mul(th2, p));
  return use_cos ? p : dd_mul(th, p);
}

// log|gamma(z)| for z = hi + lo >= 1: the recurrence up to z >= 32 (a product), then
// Stirling's series (z - 1/2) log z - z + log(2 pi) / 2 + sum B_2k / (2k (2k - 1) z^(2k-1)).
DEVPLUG_SPECIAL_FN dd_t dd_lgamma(dd_t z) {
  dd_t prod = dd_of(1);
  while (z.hi < 32) {
    prod = dd_mul(prod, z);
    z = dd_add(z, dd_of(1));
  }
  const dd_t iz = dd_recip(z);
  const dd_t iz2 = dd_mul(iz, iz);
  double tail = 0;
  for (int k = 12; k >= 3; --k) tail = kStirling[k][0] + iz2.hi * tail;
  dd_t p = dd_of(tail);
  for (int k = 2; k >= 0; --k) p = dd_add(dd_make(kStirling[k][0], kStirling[k][1]), dd_mul(iz2, p));
  const dd_t log_z = dd_add(dd_log(z.hi), dd_of(z.lo / z.hi));
  const dd_t half_log_2pi = dd_make(0.9189385332046728, -3.8782941580672414e-17);
  dd_t r = dd_mul(dd_add(z, dd_of(-0.5)), log_z);
  r = dd_add(dd_add(r, dd_neg(z)), half_log_2pi);
  r = dd_add(r, dd_mul(iz, p));
  const dd_t log_prod = dd_add(dd_log(prod.hi), dd_of(prod.lo / prod.hi));
  return dd_add(r, dd_neg(log_prod));
}

// digamma(x) in double, as PyTorch at the poles: -Inf at +0, +Inf at -0, NaN at the
// negative integers and -Inf. Within 1/64 of the positive root and of the first ten negative
// ones a Taylor series in t = x - root (the root as hi + lo, so t is exact to an ulp) gives
// the result as t * p(t): relative accuracy all the way down.
DEVPLUG_SPECIAL_FN double digamma_double(double x) {
  if (x == 0) return copysign((double)INFINITY, -x);
  if (x != x || x == -(double)INFINITY) return (double)NAN;
  if (x == (double)INFINITY) return x;
  if (x < 0 && x == floor(x)) return (double)NAN;
  if (fabs(x) < 0x1p-60) return -1 / x - 0.57721566490153286;  // psi(x) = -1/x - gamma + O(x)
  if (x > -10 && x < 2) {
    // The positive root (row 0) or the root between -k - 1 and -k (row k + 1).
    const int row = x > 0 ? 0 : (int)floor(-x) + 1;
    const double t = (x - kDigammaRoot[row][0]) - kDigammaRoot[row][1];
    if (fabs(t) < 0x1p-6) {
      double p = 0;
      for (int j = 15; j >= 0; --j) p = fma(p, t, kDigammaTaylor[row][j]);
      return t * p;
    }
  }
  if (x >= 32) {
    // No cancellation: log x dominates. The series in double.
    const double z = 1 / (x * x);
    double p = 0;
    for (int k = 7; k >= 0; --k) p = kBernoulli[k][0] + z * p;
    return log(x) - 0.5 / x - z * p;
  }
  if (x > 0) {
    const dd_t r = dd_digamma(dd_of(x));
    return r.hi + r.lo;
  }
  // x < 0: with m = -floor(x) and y = x + m in (0, 1), psi(x) = psi(y) + sum_{i=1..m}
  // 1 / (i - y) = psi(y) - psi(1 - y) + psi(1 - x): every argument positive and exact as
  // hi + lo, the cancellation between them carried in double-double.
  const double m = -floor(x);
  const dd_t a = dd_digamma(dd_two_sum(x, m));
  const dd_t b = dd_digamma(dd_two_sum(1 - m, -x));
  const dd_t c = dd_digamma(dd_two_sum(1, -x));
  const dd_t r = dd_add(dd_add(a, dd_neg(b)), c);
  return r.hi + r.lo;
}

// log|gamma(x)| in double: +Inf at the poles (0 and the negative integers) and at -Inf, as
// C. For x > 0 the device's lgamma; for x < 0 the reflection log(pi) - log|sin(pi x)| -
// lgamma(1 - x), whose two terms cancel next to the negative roots, in double-double, and
// within the windows of kLgammaRoot a Taylor series in t = x - root. Below -5 the roots lie
// within 1/k! of the poles, and below about -20 no double lies between a root and its pole.
DEVPLUG_SPECIAL_FN double lgamma_double(double x) {
  if (x <= 0 && x == floor(x)) return (double)INFINITY;
  if (!(x < 0)) return lgamma(x);
  if (x > -0x1p-54) return -log(-x);  // -log|x| - gamma x + O(x^2); no subnormal sin
  if (x > -5 && x < -2) {
    for (int i = 0; i < 6; ++i) {
      const double t = (x - kLgammaRoot[i][0]) - kLgammaRoot[i][1];
      if (fabs(t) < kLgammaRoot[i][2]) {
        double p = 0;
        for (int j = 15; j >= 0; --j) p = fma(p, t, kLgammaTaylor[i][j]);
        return t * p;
      }
    }
  }
  const dd_t s = dd_sinpi(fabs(x - rint(x)));  // x - rint(x) is exact
  const dd_t log_sin = dd_add(dd_log(s.hi), dd_of(s.lo / s.hi));
  const dd_t log_pi = dd_make(1.1447298858494002, 1.0265951162707826e-17);
  const dd_t r = dd_add(dd_add(log_pi, dd_neg(log_sin)), dd_neg(dd_lgamma(dd_two_sum(1, -x))));
  return r.hi + r.lo;
}

#endif  // DEVPLUG_SPECIAL_DOUBLE

#undef DEVPLUG_SPECIAL_FN
#undef DEVPLUG_SPECIAL_TABLE

#endif  // DEVPLUG_DEVICE_COMMON_SPECIAL_DOUBLE_H_
