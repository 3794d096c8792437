// SPDX-License-Identifier: Apache-2.0
// Native gelu (erf and tanh forms), silu, sigmoid and their backward ops: one work item per
// element over a strided geometry, in the forms that do not cancel (1 + erf(z) as erfc(-z),
// 1 + tanh(u) as 2 sigmoid(2u)). Options: DTA the input dtype (and grad's), DTO the output's,
// OP_<name> the op (gelu, gelu_tanh, silu, sigmoid and their _backward). 16-bit dtypes are
// computed in float, float64 in double, each result rounded once.

#if DTA == DT_F64
#define CT double
#else
#define CT float
#endif

// ---- the gelu / silu family ---------------------------------------------------------------------

#define SQRT1_2 0.70710678118654752440
#define INV_SQRT_2PI 0.39894228040143267794
#define SQRT_2_OVER_PI 0.79788456080286535588
#define GELU_KAPPA 0.044715

inline CT sigmoid_of(CT z) { return (CT)1 / ((CT)1 + exp(-z)); }

// 2u = 2 sqrt(2/pi) (x + 0.044715 x^3), the tanh form's sigmoid argument.
inline CT gelu_two_u(CT x) { return (CT)(2 * SQRT_2_OVER_PI) * (x + (CT)GELU_KAPPA * x * x * x); }

// Operands of `g`: 0 output, 1 input (x, or y for sigmoid_backward), 2 grad (backward ops).
__kernel void pointwise(geom_t g, __global O_ST* out, __global const A_ST* x_in,
                        __global const A_ST* grad_in) {
  const long k = get_global_id(0);
  if (k >= g.numel) return;
  long o[3];
  geom_offsets(&g, k, 3, o);
  const CT x = LOAD_A(x_in, o[1]);
  CT r;
#if defined(OP_gelu)
  r = (CT)0.5 * x * erfc(-x * (CT)SQRT1_2);
#elif defined(OP_gelu_tanh)
  r = x / ((CT)1 + exp(-gelu_two_u(x)));
#elif defined(OP_silu)
  r = x / ((CT)1 + exp(-x));
#elif defined(OP_sigmoid)
  r = sigmoid_of(x);
#else
  const CT gr = LOAD_A(grad_in, o[2]);
#if defined(OP_gelu_backward)
  r = gr * ((CT)0.5 * erfc(-x * (CT)SQRT1_2) + x * exp((CT)-0.5 * x * x) * (CT)INV_SQRT_2PI);
#elif defined(OP_gelu_tanh_backward)
  // Beyond |x| = 30 s (1 - s) is exactly 0; clamping keeps x^2 from overflowing into 0 * Inf.
  const CT xc = isinf(x) || isnan(x) ? x : fmin(fmax(x, (CT)-30), (CT)30);
  const CT two_u = gelu_two_u(xc);
  const CT s = sigmoid_of(two_u), s_neg = sigmoid_of(-two_u);
  r = gr * (s + xc * s * s_neg * (CT)(2 * SQRT_2_OVER_PI) * ((CT)1 + (CT)(3 * GELU_KAPPA) * xc * xc));
#elif defined(OP_silu_backward)
  const CT s = sigmoid_of(x);
  r = gr * s * ((CT)1 + x * ((CT)1 - s));
#elif defined(OP_sigmoid_backward)
  r = (gr * x) * ((CT)1 - x);
#endif
#endif
  STORE_O(out, o[0], r);
}
