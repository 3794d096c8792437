// SPDX-License-Identifier: Apache-2.0
// Elementwise ops (unary, binary, compare, where, casts, copies): one kernel `ew` for dense
// and strided operands, specialised by OP_<name>, DTA (dispatch dtype) and DTO (output
// dtype). Operand 0 of the geometry is the output; 1, 2, 3 are a, b, c.
//
// Floating ops marked WANT_WIDE compute in double when the device has fp64 (HAS_FP64 with
// WIDE_MATH, set by the host for CPU devices) and round once; otherwise they use the
// float32 built-ins, whose error the OpenCL full-profile ULP table bounds. Exact ops (sign,
// rounding, +, -, *, /, fmod...) run in the dtype's compute type: for 16-bit floats float32
// is wide enough that rounding twice equals rounding once (24 >= 2 * 11 + 2).

#define WANT_WIDE 0
#define RAW 0
#define ARITY 1

// ---------------------------------------------------------------- unary
#if defined(OP_abs)
#if A_FLOAT
#define F1(x) fabs(x)
#elif A_SIGNED
#define F1(x) ((x) < 0 ? (A_CT)(0 - (A_UT)(x)) : (x))
#else
#define F1(x) (x)
#endif
#elif defined(OP_neg)
#if A_FLOAT
#define F1(x) (-(x))
#else
#define F1(x) ((A_CT)(0 - (A_UT)(x)))
#endif
#elif defined(OP_sign)
#define F1(x) ((x) > 0 ? (W)1 : ((x) < 0 ? (W)(-1) : (W)0))
#elif defined(OP_signbit)
#if A_FLOAT
#define F1(x) (signbit(x) != 0)
#else
#define F1(x) ((x) < 0)
#endif
#elif defined(OP_ceil)
#define F1(x) ceil(x)
#elif defined(OP_floor)
#define F1(x) floor(x)
#elif defined(OP_round)
#define F1(x) rint(x)
#elif defined(OP_trunc)
#define F1(x) trunc(x)
#elif defined(OP_exp)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) exp_w(x)
#define NEED_EXP_NEAR_OVERFLOW
#elif defined(OP_exp2)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) exp2(x)
#elif defined(OP_expm1)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) expm1(x)
#elif defined(OP_log)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) log(x)
#elif defined(OP_log2)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) log2(x)
#elif defined(OP_log10)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) log10(x)
#elif defined(OP_log1p)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) log1p(x)
#elif defined(OP_sqrt)
#define F1(x) sqrt(x)
#elif defined(OP_rsqrt)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) ((W)1 / sqrt(x))
#elif defined(OP_cbrt)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) cbrt(x)
#elif defined(OP_reciprocal)
#define F1(x) ((W)1 / (x))
#elif defined(OP_sin)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) sin(x)
#elif defined(OP_cos)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) cos(x)
#elif defined(OP_tan)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) tan(x)
#elif defined(OP_asin)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) asin(x)
#elif defined(OP_acos)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) acos(x)
#elif defined(OP_atan)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) atan(x)
#elif defined(OP_sinh)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) sinh_w(x)
#define NEED_EXP_NEAR_OVERFLOW
#elif defined(OP_cosh)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) cosh_w(x)
#define NEED_EXP_NEAR_OVERFLOW
#elif defined(OP_tanh)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) tanh(x)
#elif defined(OP_asinh)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) asinh(x)
#elif defined(OP_acosh)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) acosh(x)
#elif defined(OP_atanh)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) atanh(x)
#elif defined(OP_erf)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) erf(x)
#elif defined(OP_erfc)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) erfc(x)
#elif defined(OP_erfinv)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) erfinv_w(x)
#define NEED_ERFINV
#elif defined(OP_lgamma)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) lgamma_w(x)
#define NEED_LGAMMA
#define NEED_DOUBLE_DOUBLE
#elif defined(OP_digamma)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) digamma_w(x)
#define NEED_DIGAMMA
#define NEED_DOUBLE_DOUBLE
#elif defined(OP_isfinite)
#define F1(x) (isfinite(x) != 0)
#elif defined(OP_isinf)
#define F1(x) (isinf(x) != 0)
#elif defined(OP_isnan)
#define F1(x) (isnan(x) != 0)
#elif defined(OP_bitwise_not)
#if DTA == DT_BOOL
#define F1(x) ((x) == 0)
#else
#define F1(x) ((A_CT) ~(x))
#endif

// ---------------------------------------------------------------- binary
#elif defined(OP_add)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) ((x) + (y))
#elif DTA == DT_BOOL
#define F2(x, y) ((x) | (y))
#else
#define F2(x, y) ((A_CT)((A_WUT)(A_UT)(x) + (A_WUT)(A_UT)(y)))
#endif
#elif defined(OP_sub)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) ((x) - (y))
#else
#define F2(x, y) ((A_CT)((A_WUT)(A_UT)(x) - (A_WUT)(A_UT)(y)))
#endif
#elif defined(OP_mul)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) ((x) * (y))
#elif DTA == DT_BOOL
#define F2(x, y) ((x) & (y))
#else
#define F2(x, y) ((A_CT)((A_WUT)(A_UT)(x) * (A_WUT)(A_UT)(y)))
#endif
#elif defined(OP_div)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) ((x) / (y))
#else
#define F2(x, y) int_div(x, y)
#endif
#elif defined(OP_remainder)
#undef ARITY
#define ARITY 2
#define F2(x, y) py_remainder(x, y)
#elif defined(OP_fmod)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) fmod(x, y)
#else
#define F2(x, y) int_fmod(x, y)
#endif
#elif defined(OP_pow)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#undef WANT_WIDE
#define WANT_WIDE 1
#define F2(x, y) pow(x, y)
#else
#define F2(x, y) int_pow(x, y)
#endif
#elif defined(OP_atan2)
#undef ARITY
#define ARITY 2
#undef WANT_WIDE
#define WANT_WIDE 1
#define F2(x, y) atan2(x, y)
#elif defined(OP_hypot)
#undef ARITY
#define ARITY 2
#undef WANT_WIDE
#define WANT_WIDE 1
#define F2(x, y) ((isinf(x) || isinf(y)) ? (W)INFINITY : hypot(x, y))
#elif defined(OP_copysign)
#undef ARITY
#define ARITY 2
#define F2(x, y) copysign(x, y)
#elif defined(OP_nextafter)
#undef ARITY
#define ARITY 2
#undef RAW
#define RAW 1
#elif defined(OP_maximum)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) ((isnan(x) || isnan(y)) ? (x) + (y) : max_signed_zero(x, y))
#else
#define F2(x, y) ((x) > (y) ? (x) : (y))
#endif
#elif defined(OP_minimum)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) ((isnan(x) || isnan(y)) ? (x) + (y) : min_signed_zero(x, y))
#else
#define F2(x, y) ((x) < (y) ? (x) : (y))
#endif
#elif defined(OP_fmax)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) (isnan(x) ? (y) : isnan(y) ? (x) : max_signed_zero(x, y))
#else
#define F2(x, y) ((x) > (y) ? (x) : (y))
#endif
#elif defined(OP_fmin)
#undef ARITY
#define ARITY 2
#if A_FLOAT
#define F2(x, y) (isnan(x) ? (y) : isnan(y) ? (x) : min_signed_zero(x, y))
#else
#define F2(x, y) ((x) < (y) ? (x) : (y))
#endif
#elif defined(OP_bitwise_and)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((A_CT)((x) & (y)))
#elif defined(OP_bitwise_or)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((A_CT)((x) | (y)))
#elif defined(OP_bitwise_xor)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((A_CT)((x) ^ (y)))
#elif defined(OP_shift_left)
#undef ARITY
#define ARITY 2
#define F2(x, y) (((y) < 0 || (y) >= A_BITS) ? (A_CT)0 : (A_CT)((A_WUT)(A_UT)(x) << (y)))
#elif defined(OP_shift_right_arithmetic)
#undef ARITY
#define ARITY 2
#define F2(x, y) (((y) < 0 || (y) >= A_BITS) ? (A_CT)((x) < 0 ? -1 : 0) : (A_CT)((x) >> (y)))
#elif defined(OP_shift_right_logical)
#undef ARITY
#define ARITY 2
#define F2(x, y) (((y) < 0 || (y) >= A_BITS) ? (A_CT)0 : (A_CT)((A_UT)(x) >> (y)))
#elif defined(OP_gcd)
#undef ARITY
#define ARITY 2
#define F2(x, y) int_gcd(x, y)

// ---------------------------------------------------------------- compare
#elif defined(OP_eq)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((x) == (y))
#elif defined(OP_ne)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((x) != (y))
#elif defined(OP_lt)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((x) < (y))
#elif defined(OP_le)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((x) <= (y))
#elif defined(OP_gt)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((x) > (y))
#elif defined(OP_ge)
#undef ARITY
#define ARITY 2
#define F2(x, y) ((x) >= (y))

// ---------------------------------------------------------------- data movement
#elif defined(OP_where)
#undef RAW
#define RAW 1
#elif defined(OP_copy)
#undef RAW
#define RAW 1
#elif defined(OP_convert)
#define F1(x) convert_value(x)
#else
#error "elementwise.cl: no OP_<name> given"
#endif

// The unsigned type integer arithmetic wraps in: at least 32 bits so that promotion of
// narrow types never reaches signed overflow.
#if A_BITS == 64
#define A_WUT ulong
#else
#define A_WUT uint
#endif

// The working type of floating ops.
#if A_FLOAT && WANT_WIDE && defined(HAS_FP64) && defined(WIDE_MATH) && DTA != DT_F64
#define W double
#define W_DOUBLE 1
#define STORE_W(p, i, v) STORED_O(p, i, v)
#elif A_FLOAT
#define W A_CT
#define W_DOUBLE (DTA == DT_F64)
#define STORE_W(p, i, v) STORE_O(p, i, v)
#else
#define W A_CT
#define STORE_W(p, i, v) STORE_O(p, i, v)
#endif

// ---------------------------------------------------------------- helpers
#if A_FLOAT
inline W max_signed_zero(W x, W y) { return x > y ? x : (y > x ? y : (signbit(x) ? y : x)); }
inline W min_signed_zero(W x, W y) { return x < y ? x : (y < x ? y : (signbit(x) ? x : y)); }
#endif

#if defined(OP_div) && !A_FLOAT
inline A_CT int_div(A_CT x, A_CT y) {
  if (y == 0) return 0;  // unspecified; never trap
#if A_SIGNED
  if (y == -1) return (A_CT)(0 - (A_WUT)(A_UT)x);
#endif
  return (A_CT)(x / y);
}
#endif

#if (defined(OP_fmod) || defined(OP_remainder)) && !A_FLOAT
inline A_CT int_fmod(A_CT x, A_CT y) {
  if (y == 0) return 0;  // unspecified; never trap
#if A_SIGNED
  if (y == -1) return 0;
#endif
  return (A_CT)(x % y);
}
#endif

#if defined(OP_remainder)
inline W py_remainder(W x, W y) {
#if A_FLOAT
  W m = fmod(x, y);
#else
  W m = int_fmod(x, y);
#endif
  if (m != 0 && ((y < 0) != (m < 0))) m += y;
#if A_FLOAT
  if (m == 0) m = copysign((W)0, y);  // zero takes the divisor's sign, as Python
#endif
  return m;
}
#endif

#if defined(OP_pow) && !A_FLOAT
inline A_CT int_pow(A_CT x, A_CT y) {
#if A_SIGNED
  if (y < 0) {
    if (x == 1) return 1;
    if (x == -1) return (y & 1) ? -1 : 1;
    return 0;  // 1 / x truncates to 0 (x == 0 unspecified)
  }
#endif
  A_WUT result = 1, base = (A_WUT)(A_UT)x;
  ulong e = (ulong)y;
  while (e != 0) {
    if (e & 1) result *= base;
    base *= base;
    e >>= 1;
  }
  return (A_CT)(A_UT)result;
}
#endif

#if defined(OP_gcd)
inline A_CT int_gcd(A_CT x, A_CT y) {
#if A_SIGNED
  A_UT u = x < 0 ? (A_UT)(0 - (A_WUT)(A_UT)x) : (A_UT)x;
  A_UT v = y < 0 ? (A_UT)(0 - (A_WUT)(A_UT)y) : (A_UT)y;
#else
  A_UT u = x, v = y;
#endif
  while (v != 0) {
    const A_UT t = (A_UT)(u % v);
    u = v;
    v = t;
  }
  return (A_CT)u;
}
#endif

#ifdef NEED_EXP_NEAR_OVERFLOW
// e^x, sinh and cosh next to overflow. PoCL 3.1's double exp returns Inf for x just below
// log(max), where e^x is still finite, and its sinh and cosh return NaN a little beyond it.
// Between 709 and 711, e^|x| = e^(|x| - 709) * e^709 with |x| - 709 exact and e^709 (or
// e^709 / 2 for sinh and cosh, whose e^-|x| part is far below an ulp) as hi + lo.
#if W_DOUBLE
inline W exp_above_709(W ax, W hi, W lo) {
  const W r = exp(ax - 709);
  return fma(r, hi, r * lo);
}
inline W exp_w(W x) {
  return (x > 709 && x < 711) ? exp_above_709(x, 8.218407461554972e+307, -1.955965507696277e+291) : exp(x);
}
inline W sinh_w(W x) {
  const W ax = fabs(x);
  if (ax > 709 && ax < 711)
    return copysign(exp_above_709(ax, 4.109203730777486e+307, -9.779827538481386e+290), x);
  return sinh(x);
}
inline W cosh_w(W x) {
  const W ax = fabs(x);
  return (ax > 709 && ax < 711) ? exp_above_709(ax, 4.109203730777486e+307, -9.779827538481386e+290)
                                : cosh(x);
}
#else
#define exp_w(x) exp(x)
#define sinh_w(x) sinh(x)
#define cosh_w(x) cosh(x)
#endif
#endif

#ifdef NEED_ERFINV
// Inverse error function: a float-accurate first guess (Giles, "Approximating the erfinv
// function", 2010) polished by Newton steps. The guess's w = -log(1 - y^2) is taken in W
// from 1 - |y| (exact for |y| >= 0.5): rounding y to float first would turn every y within
// 2^-25 of +-1 into +-1 (and the guess into an infinity of the wrong sign). Near +-1 the
// guess is extrapolated beyond the float fit, so there Newton works on log(erfc(x)), which
// is nearly linear in x^2 and converges from far away; elsewhere on erf(x) - y.
inline W erfinv_w(W y) {
  if (isnan(y) || y < -1 || y > 1) return (W)NAN;
  if (y == 1) return (W)INFINITY;
  if (y == -1) return (W)(-INFINITY);
  if (y == 0) return y;
  const W a = fabs(y);
  const W tail = (W)1 - a;  // exact when a >= 0.5
  float w = (float)(-log(tail * ((W)1 + a))), p;
  if (w < 5.0f) {
    w = w - 2.5f;
    p = 2.81022636e-08f;
    p = 3.43273939e-07f + p * w;
    p = -3.5233877e-06f + p * w;
    p = -4.39150654e-06f + p * w;
    p = 0.00021858087f + p * w;
    p = -0.00125372503f + p * w;
    p = -0.00417768164f + p * w;
    p = 0.246640727f + p * w;
    p = 1.50140941f + p * w;
  } else {
    w = sqrt(w) - 3.0f;
    p = -0.000200214257f;
    p = 0.000100950558f + p * w;
    p = 0.00134934322f + p * w;
    p = -0.00367342844f + p * w;
    p = 0.00573950773f + p * w;
    p = -0.0076224613f + p * w;
    p = 0.00943887047f + p * w;
    p = 1.00167406f + p * w;
    p = 2.83297682f + p * w;
  }
  W x = (W)p * a;  // erfinv is odd: work on |y|, restore the sign at the end
  const W two_over_sqrt_pi = (W)1.1283791670955126;
  for (int step = 0; step < 6; ++step) {
    const W slope = two_over_sqrt_pi * exp(-x * x);
    if (slope == 0) break;
    W dx;
    if (a > (W)0.5) {
      const W e = erfc(x);
      dx = -log1p((e - tail) / tail) * e / slope;  // Newton on log(erfc(x)) - log(1 - a)
    } else {
      dx = (erf(x) - a) / slope;
    }
    x -= dx;
    if (fabs(dx) <= fabs(x) * (W)0x1p-50) break;
  }
  return copysign(x, y);
}
#endif

#if defined(NEED_DOUBLE_DOUBLE) && W_DOUBLE
// Double-double arithmetic (pairs hi + lo, about 104 bits) for lgamma and digamma, where
// the terms of the usual formulas cancel: sums, products, reciprocals, quotients and log.
typedef struct {
  double hi, lo;
} dd_t;
inline dd_t dd_quick(double a, double b) {  // |a| >= |b|
  dd_t r;
  r.hi = a + b;
  r.lo = b - (r.hi - a);
  return r;
}
inline dd_t dd_two_sum(double a, double b) {
  dd_t r;
  r.hi = a + b;
  const double bb = r.hi - a;
  r.lo = (a - (r.hi - bb)) + (b - bb);
  return r;
}
inline dd_t dd_add(dd_t a, dd_t b) {
  dd_t s = dd_two_sum(a.hi, b.hi);
  const dd_t t = dd_two_sum(a.lo, b.lo);
  s = dd_quick(s.hi, s.lo + t.hi);
  return dd_quick(s.hi, s.lo + t.lo);
}
inline dd_t dd_neg(dd_t a) {
  a.hi = -a.hi;
  a.lo = -a.lo;
  return a;
}
inline dd_t dd_mul(dd_t a, dd_t b) {
  const double p = a.hi * b.hi;
  return dd_quick(p, fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi));
}
inline dd_t dd_scale(dd_t a, double b) {
  const double p = a.hi * b;
  return dd_quick(p, fma(a.hi, b, -p) + a.lo * b);
}
inline dd_t dd_recip(dd_t a) {
  const double q = 1 / a.hi;
  const double p = q * a.hi;
  const double r = ((1 - p) - fma(q, a.hi, -p)) - q * a.lo;  // 1 - q * a, exactly enough
  return dd_quick(q, q * r);
}
inline dd_t dd_div(dd_t a, dd_t b) {
  const double q1 = a.hi / b.hi;
  dd_t r = dd_add(a, dd_scale(b, -q1));
  const double q2 = r.hi / b.hi;
  r = dd_add(r, dd_scale(b, -q2));
  const dd_t q = dd_quick(q1, q2);
  return dd_add(q, dd_quick(r.hi / b.hi, 0));
}
inline dd_t dd_of(double a) {
  dd_t r;
  r.hi = a;
  r.lo = 0;
  return r;
}

// 1 / (2k + 1) for k = 0..9, as hi + lo.
__constant double kInvOdd[10][2] = {{1.0, 0.0},
                                    {0.3333333333333333, 1.850371707708594e-17},
                                    {0.2, -1.1102230246251566e-17},
                                    {0.14285714285714285, 7.93016446160826e-18},
                                    {0.1111111111111111, 6.1679056923619804e-18},
                                    {0.09090909090909091, -2.523234146875356e-18},
                                    {0.07692307692307693, -4.270088556250602e-18},
                                    {0.06666666666666667, 9.251858538542971e-19},
                                    {0.058823529411764705, 8.163404592832033e-19},
                                    {0.05263157894736842, 2.921639538487254e-18}};
inline dd_t dd_const(__constant const double* c) {
  dd_t r;
  r.hi = c[0];
  r.lo = c[1];
  return r;
}

// log(x) for a double x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) =
// 2 atanh(s) with s = (m - 1) / (m + 1), |s| < 0.172: the first ten terms in double-double,
// the rest (below 2^-53 of the sum) in double.
inline dd_t dd_log(double x) {
  int e;
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
  for (int k = 9; k >= 0; --k) p = dd_add(dd_const(kInvOdd[k]), dd_mul(s2, p));
  const dd_t ln2 = {0.6931471805599453, 2.3190468138462996e-17};
  return dd_add(dd_scale(ln2, (double)e), dd_scale(dd_mul(s, p), 2));
}

#endif

#ifdef NEED_LGAMMA
#if W_DOUBLE
// lgamma in double. For x > 0 the device's lgamma. For x < 0 the reflection
// log|gamma(x)| = log(pi) - log|sin(pi x)| - lgamma(1 - x), whose two terms cancel next
// to the negative roots, in double-double; within 1/16 of the distance to the nearest pole
// around each root in (-5, -2) a Taylor series in t = x - root (root as hi + lo) gives
// t * p(t). Below -5 the roots lie within 1/k! of the poles, and below about -20 no double
// lies between a root and its pole. Constants from mpmath at 300 bits.
__constant double kLgammaRoot[6][3] = {{-2.4570247382208006, -3.7075610815513266e-17, 0x1p-6},
                                       {-2.7476826467274127, 9.055340329338315e-17, 0x1p-6},
                                       {-3.14358088834998, -2.1818179852331714e-16, 0x1p-7},
                                       {-3.955294284858598, -1.999428391746348e-17, 0x1p-9},
                                       {-4.039361839740537, 2.1143995503980602e-16, 0x1p-9},
                                       {-4.991544640560048, 1.5174411760571722e-16, 0x1p-11}};
__constant double kLgammaTaylor[6][16] = {
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
// (-1)^k / (2k + 1)! and (-1)^k / (2k)! for k = 0..15, and B_2k / (2k (2k - 1)) for
// k = 1..13 (Stirling's series), as hi + lo.
__constant double kSinCoef[16][2] = {{1.0, 0.0},
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
__constant double kCosCoef[16][2] = {{1.0, 0.0},
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
__constant double kStirling[13][2] = {
    {0.08333333333333333, 4.625929269271485e-18},    {-0.002777777777777778, 1.0601087908747154e-19},
    {0.0007936507936507937, 6.883823317368282e-22},  {-0.0005952380952380953, 5.36938218754726e-20},
    {0.0008417508417508417, 3.6870174889237694e-20}, {-0.0019175269175269176, 1.0675702776872475e-19},
    {0.00641025641025641, 2.2240044563805217e-19},   {-0.029550653594771242, 4.861760957508855e-19},
    {0.17964437236883057, -6.401600482710946e-19},   {-1.3924322169059011, 1.5837056989230303e-17},
    {13.402864044168393, -6.154114101993966e-16},    {-156.84828462600203, 9.391823141715389e-15},
    {2193.1033333333335, -1.3339255626002948e-13}};

// sin(pi a) for a in [0, 1/2], as hi + lo: the Taylor series of sin or cos on an argument
// within pi/4 (the first ten terms in double-double).
inline dd_t dd_sinpi(double a) {
  const bool use_cos = a > 0.25;
  __constant double(*c)[2] = use_cos ? kCosCoef : kSinCoef;
  const dd_t pi = {3.141592653589793, 1.2246467991473532e-16};
  const dd_t th = dd_scale(pi, use_cos ? 0.5 - a : a);  // 0.5 - a is exact
  const dd_t th2 = dd_mul(th, th);
  double tail = 0;
  for (int k = 15; k >= 10; --k) tail = c[k][0] + th2.hi * tail;
  dd_t p = dd_of(tail);
  for (int k = 9; k >= 0; --k) p = dd_add(dd_const(c[k]), dd_mul(th2, p));
  return use_cos ? p : dd_mul(th, p);
}

// log|gamma(z)| for z = hi + lo >= 1: the recurrence up to z >= 32 (a product), then
// Stirling's series (z - 1/2) log z - z + log(2 pi) / 2 + sum B_2k / (2k (2k - 1) z^(2k-1)).
inline dd_t dd_lgamma(dd_t z) {
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
  for (int k = 2; k >= 0; --k) p = dd_add(dd_const(kStirling[k]), dd_mul(iz2, p));
  const dd_t log_z = dd_add(dd_log(z.hi), dd_of(z.lo / z.hi));
  const dd_t half_log_2pi = {0.9189385332046728, -3.8782941580672414e-17};
  dd_t r = dd_mul(dd_add(z, dd_of(-0.5)), log_z);
  r = dd_add(dd_add(r, dd_neg(z)), half_log_2pi);
  r = dd_add(r, dd_mul(iz, p));
  const dd_t log_prod = dd_add(dd_log(prod.hi), dd_of(prod.lo / prod.hi));
  return dd_add(r, dd_neg(log_prod));
}

// log|gamma(x)|: +Inf at the poles (0 and the negative integers) and at -Inf, as C.
inline W lgamma_w(W x) {
  if (x <= 0 && x == floor(x)) return (W)INFINITY;
  if (x > 0x1p1000 && x < (W)INFINITY) {
    // x (log x - 1), the rest below an ulp: PoCL's lgamma overflows once x log x does
    // (from 2.5e305), before lgamma itself does.
    const dd_t l = dd_add(dd_log(x), dd_of(-1));
    const double p = x * l.hi;
    if (isinf(p)) return p;
    const dd_t r = dd_quick(p, fma(x, l.hi, -p) + x * l.lo);
    return r.hi + r.lo;
  }
  if (!(x < 0)) return lgamma(x);
  if (x > -0x1p-54) return -log(-x);  // log|gamma(x)| = -log|x| - gamma x + O(x^2); no subnormal sin
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
  const dd_t log_pi = {1.1447298858494002, 1.0265951162707826e-17};
  const dd_t r = dd_add(dd_add(log_pi, dd_neg(log_sin)), dd_neg(dd_lgamma(dd_two_sum(1, -x))));
  return r.hi + r.lo;
}
#else
// log|gamma(x)|: +Inf at the poles (0 and the negative integers), as C and PyTorch.
inline W lgamma_w(W x) {
  if (x <= 0 && x == floor(x)) return (W)INFINITY;
  return lgamma(x);
}
#endif
#endif

#ifdef NEED_DIGAMMA
#if W_DOUBLE
// digamma in double, within 2 ulp of the true value everywhere. Where the terms of the usual
// formulas cancel (next to digamma's roots, and for every x < 0 where the reflection
// subtracts two terms of similar size) the sums run in double-double (pairs hi + lo, about
// 104 bits). At the roots themselves even that is too little, so within 1/64 of the
// positive root and of the first ten negative ones a Taylor series in t = x - root (the
// root as hi + lo, so t is exact to an ulp) gives the result as t * p(t): relative accuracy
// all the way down. Roots and coefficients psi^(j)(root) / j! were computed with mpmath at
// 300 bits.

// B_2k / (2k) for k = 1..13, as hi + lo.
__constant double kBernoulli[13][2] = {
    {0.08333333333333333, 4.625929269271485e-18},    {-0.008333333333333333, -1.1564823173178714e-19},
    {0.003968253968253968, 2.20282346155785e-19},    {-0.004166666666666667, -5.782411586589357e-20},
    {0.007575757575757576, -2.1026951223961299e-19}, {-0.021092796092796094, 1.3911677399530732e-18},
    {0.08333333333333333, 4.625929269271485e-18},    {-0.4432598039215686, -2.0462934179365632e-17},
    {3.0539543302701198, -1.0882720820608607e-17},   {-26.456212121212122, 7.449932926454383e-16},
    {281.46014492753625, -1.647635329298783e-14},    {-3607.5105463980462, -1.5347029033579816e-13},
    {54827.583333333336, -2.4253192047278085e-12}};

// digamma(z) for z = hi + lo > 0: the recurrence psi(z) = psi(z + 1) - 1 / z up to z >= 32,
// then the asymptotic series log z - 1 / 2z - sum B_2k / (2k z^2k), thirteen terms (the
// fourteenth is below 2^-110 at z = 32).
inline dd_t dd_digamma(dd_t z) {
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
  for (int k = 3; k >= 0; --k) p = dd_add(dd_const(kBernoulli[k]), dd_mul(iz2, p));
  dd_t r = dd_add(dd_log(z.hi), dd_of(z.lo / z.hi));  // log(hi + lo) = log(hi) + lo / hi
  r = dd_add(r, dd_scale(iz, -0.5));
  r = dd_add(r, dd_neg(dd_mul(iz2, p)));
  return dd_add(r, dd_neg(sum));
}

__constant double kDigammaRoot[11][2] = {
    {1.4616321449683622, 9.549995429965697e-17},    {-0.5040830082644554, -8.15428206243813e-18},
    {-1.5734984731623904, -1.574185691077347e-17},  {-2.6107208684441447, 9.881960746978353e-17},
    {-3.635293366436901, 5.454396163173039e-17},    {-4.653237761743142, -2.5492686201468193e-16},
    {-5.6671624415568855, -3.2153051074948335e-18}, {-6.678418213073427, 3.470798723495241e-16},
    {-7.687788325031626, -1.351562494643672e-16},   {-8.695764163816401, -3.2859903716289447e-16},
    {-9.702672540001863, -3.2563178405401477e-16},
};
__constant double kDigammaTaylor[11][16] = {
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

inline W digamma_w(W x) {
  if (x == 0) return copysign((W)INFINITY, -x);
  if (isnan(x) || x == (W)(-INFINITY)) return (W)NAN;
  if (x == (W)INFINITY) return x;
  if (x < 0 && x == floor(x)) return (W)NAN;
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
#else
// digamma without double (float devices): reflection for x < 0, recurrence up to x >= 20,
// then the asymptotic series. digamma(+-0) = -+Inf and NaN at negative integers, as
// PyTorch. Within the float32 row of the tolerance table, not the float64 one.
inline W digamma_w(W x) {
  if (x == 0) return copysign((W)INFINITY, -x);
  if (isnan(x) || x == (W)(-INFINITY)) return (W)NAN;
  if (x == (W)INFINITY) return x;
  W result = 0;
  if (x < 0) {
    if (x == floor(x)) return (W)NAN;
    const W pi = (W)3.141592653589793238;
    const W r = x - rint(x);
    result = -pi * cospi(r) / sinpi(r);
    x = (W)1 - x;
  }
  while (x < (W)20) {
    result -= (W)1 / x;
    x += (W)1;
  }
  const W z = (W)1 / (x * x);
  const W series =
      z * ((W)(1.0 / 12) -
           z * ((W)(1.0 / 120) -
                z * ((W)(1.0 / 252) -
                     z * ((W)(1.0 / 240) -
                          z * ((W)(1.0 / 132) -
                               z * ((W)(691.0 / 32760) - z * ((W)(1.0 / 12) - z * (W)(3617.0 / 8160))))))));
  return result + log(x) - (W)0.5 / x - series;
}
#endif
#endif

#if defined(OP_convert)
// Cast from DTA's compute type to DTO's, rounding once to nearest even; float to integer
// truncates (saturating, so NaN and out-of-range values never trap).
#if DTO == DT_BOOL
#define convert_value(x) ((x) != 0)
#elif !O_FLOAT && A_FLOAT
#define convert_value(x) CAT(CAT(convert_, O_ST), _sat_rtz)(x)
#elif !O_FLOAT
#define convert_value(x) ((O_ST)(x))
#elif DTO == DT_F32 || DTO == DT_F16
#define convert_value(x) convert_float_rte(x)
#elif DTO == DT_F64
#define convert_value(x) convert_double_rte(x)
#elif DTO == DT_BF16 && A_FLOAT
#define convert_value(x) (x)
#else
#define convert_value(x) (x)
#endif
#endif

// ---------------------------------------------------------------- one element
#if RAW && defined(OP_copy)
#define ELEMENT(io, ia, ib, ic) o[io] = a[ia]
#elif RAW && defined(OP_where)
#define ELEMENT(io, ia, ib, ic) o[io] = a[ia] ? b[ib] : c[ic]
#elif RAW && defined(OP_nextafter)
#if DTA == DT_F32
#define TOBITS(v) as_uint(v)
#define FROMBITS(u) as_float(u)
#elif DTA == DT_F64
#define TOBITS(v) as_ulong(v)
#define FROMBITS(u) as_double(u)
#else
#define TOBITS(v) (v)
#define FROMBITS(u) (u)
#endif
#define ELEMENT(io, ia, ib, ic)                                             \
  {                                                                         \
    const A_CT x = LOAD_A(a, ia), y = LOAD_B(b, ib);                        \
    if (isnan(x) || isnan(y)) {                                             \
      STORE_O(o, io, x + y);                                                \
    } else if (x == y) {                                                    \
      o[io] = b[ib];                                                        \
    } else if (x == 0) {                                                    \
      const A_UT sign = (A_UT)(signbit(y) ? ((A_UT)1 << (A_BITS - 1)) : 0); \
      o[io] = FROMBITS((A_UT)(sign | 1));                                   \
    } else {                                                                \
      const A_UT bits = TOBITS(a[ia]);                                      \
      o[io] = FROMBITS((A_UT)(((x < y) == (x > 0)) ? bits + 1 : bits - 1)); \
    }                                                                       \
  }
#elif defined(OP_convert) && DTO == DT_BF16 && DTA == DT_F64
#define ELEMENT(io, ia, ib, ic) STORED_O(o, io, a[ia])
#elif defined(OP_convert) && DTO == DT_F16 && DTA == DT_F64
#define ELEMENT(io, ia, ib, ic) STORED_O(o, io, a[ia])
#elif defined(OP_convert) && DTO == DT_BF16 && !A_FLOAT
#define ELEMENT(io, ia, ib, ic) o[io] = bf16_from_long((long)a[ia])
#elif ARITY == 1
#define ELEMENT(io, ia, ib, ic)   \
  {                               \
    const W x = (W)LOAD_A(a, ia); \
    STORE_W(o, io, F1(x));        \
  }
#else
#define ELEMENT(io, ia, ib, ic)   \
  {                               \
    const W x = (W)LOAD_A(a, ia); \
    const W y = (W)LOAD_B(b, ib); \
    STORE_W(o, io, F2(x, y));     \
  }
#endif

// One kernel for dense and strided operands, so PoCL (which generates code per kernel and
// launch size at first launch) compiles one kernel per op and dtype, not two. The dense
// branch indexes with plain offsets: PoCL vectorizes it across the work-items of a group as
// it did a separate dense kernel; geom_offsets' private array would stop that.
__kernel void ew(const geom_t g, __global O_ST* o, __global A_ST* a, __global B_ST* b, __global C_ST* c) {
  const long k = get_global_id(0);
  if (k >= g.numel) return;
  if (g.dense) {
    ELEMENT(g.offset[0] + k, g.offset[1] + k, g.offset[2] + k, g.offset[3] + k);
    return;
  }
  long at[4];
  geom_offsets(&g, k, 4, at);
  ELEMENT(at[0], at[1], at[2], at[3]);
}
