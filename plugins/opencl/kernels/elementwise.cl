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
#elif defined(OP_digamma)
#undef WANT_WIDE
#define WANT_WIDE 1
#define F1(x) digamma_w(x)
#define NEED_DIGAMMA
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
#ifdef FUSED_NODE
#define max_signed_zero CAT(max_signed_zero_, FUSED_NODE)
#define min_signed_zero CAT(min_signed_zero_, FUSED_NODE)
#define int_div CAT(int_div_, FUSED_NODE)
#define int_fmod CAT(int_fmod_, FUSED_NODE)
#define py_remainder CAT(py_remainder_, FUSED_NODE)
#define int_pow CAT(int_pow_, FUSED_NODE)
#define int_gcd CAT(int_gcd_, FUSED_NODE)
#define exp_above_709 CAT(exp_above_709_, FUSED_NODE)
#define exp_w CAT(exp_w_, FUSED_NODE)
#define sinh_w CAT(sinh_w_, FUSED_NODE)
#define cosh_w CAT(cosh_w_, FUSED_NODE)
#define erfinv_w CAT(erfinv_w_, FUSED_NODE)
#define lgamma_w CAT(lgamma_w_, FUSED_NODE)
#define digamma_w CAT(digamma_w_, FUSED_NODE)
#endif
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
inline W exp_w(W x) { return exp(x); }
inline W sinh_w(W x) { return sinh(x); }
inline W cosh_w(W x) { return cosh(x); }
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

#ifdef NEED_LGAMMA
#if W_DOUBLE
// lgamma in double: lgamma_double of plugins/device_common/special_double.h (the plugin puts
// that file ahead of every program), after one case of PoCL's.
inline W lgamma_w(W x) {
  if (x > 0x1p1000 && x < (W)INFINITY) {
    // x (log x - 1), the rest below an ulp: PoCL's lgamma overflows once x log x does
    // (from 2.5e305), before lgamma itself does.
    const dd_t l = dd_add(dd_log(x), dd_of(-1));
    const double p = x * l.hi;
    if (isinf(p)) return p;
    const dd_t r = dd_quick(p, fma(x, l.hi, -p) + x * l.lo);
    return r.hi + r.lo;
  }
  return lgamma_double(x);
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
// digamma in double, within 2 ulp of the true value everywhere: digamma_double of
// plugins/device_common/special_double.h (the plugin puts that file ahead of every program).
inline W digamma_w(W x) { return digamma_double(x); }
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

#ifndef FUSED_NODE
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
#else
// One element of a fused program's node: the operands' and the result's storage values, in
// private memory (the fused program's prologue makes the 16-bit float loads and stores take
// private pointers).
inline O_ST CAT(node_, FUSED_NODE)(A_ST a0, B_ST b0, C_ST c0) {
  O_ST o[1];
  const A_ST a[1] = {a0};
  const B_ST b[1] = {b0};
  const C_ST c[1] = {c0};
  ELEMENT(0, 0, 0, 0);
  return o[0];
}

#undef WANT_WIDE
#undef RAW
#undef ARITY
#undef F1
#undef F2
#undef A_WUT
#undef W
#undef W_DOUBLE
#undef STORE_W
#undef ELEMENT
#undef TOBITS
#undef FROMBITS
#undef convert_value
#undef NEED_EXP_NEAR_OVERFLOW
#undef NEED_ERFINV
#undef NEED_LGAMMA
#undef NEED_DIGAMMA
#undef max_signed_zero
#undef min_signed_zero
#undef int_div
#undef int_fmod
#undef py_remainder
#undef int_pow
#undef int_gcd
#undef exp_above_709
#undef exp_w
#undef sinh_w
#undef cosh_w
#undef erfinv_w
#undef lgamma_w
#undef digamma_w
#endif
