// SPDX-License-Identifier: Apache-2.0
// The tolerance table (see tolerances.hpp). Rows are matched top to bottom; the first row
// whose op list and dtype class match wins.
//
// Every ulp row bounds the plugin's distance to the TRUE value. The reference is within 0.5
// ulp of it (0.5005 for its float64 functions, 0.52 for pow: docs/reference.md), so a
// plugin within B ulp of the true value is within B + 0.52 of the reference, which for an
// integer distance means B: the check is "distance to the reference <= B". float32 rows
// follow the OpenCL 1.2 full-profile single-precision table; float64 rows the double-
// precision table for the library functions (the same numbers, except division, which is
// correctly rounded there) and devplug's own bounds where OpenCL has none or where the
// reference's exactness leaves no excuse (erfinv, lgamma, digamma). 16-bit floats are
// computed in float32 and rounded once, so they get 1 ulp of their own format.
#include "tolerances.hpp"

#include <vector>

#include "harness/elements.hpp"

namespace devplug::conform {
namespace {

// any; float32 and float64; float16 and bfloat16; float32; float64
enum class Dtypes { Any, Wide, Narrow, Single, Double };

struct Row {
  std::vector<devplug_op_t> ops;  // ops.def ids; empty: every op
  Dtypes dtypes;
  Tolerance tol;
};

Tolerance exact(const char* rule, const char* reason, bool signed_zero = false) {
  Tolerance t{rule, TolKind::Exact, 0, 0, 1, signed_zero, reason};
  return t;
}
Tolerance ulp(const char* rule, double ulps, const char* reason, double abs_eps = 0) {
  Tolerance t{rule, TolKind::Ulp, ulps, abs_eps, 1, false, reason};
  return t;
}

const std::vector<Row>& table() {
  static const std::vector<Row> rows = {
      {{DEVPLUG_OP_philox_bits, DEVPLUG_OP_philox_uniform},
       Dtypes::Any,
       exact("philox exact", "the Philox mapping is defined bit for bit (docs/random.md)", true)},
      {{DEVPLUG_OP_philox_normal},
       Dtypes::Double,
       ulp("philox_normal float64", 64,
           "devices may run Box-Muller in float32 (docs/random.md), even for float64 output: "
           "the same 32 float32-eps absolute slack (32 * 2^-23), written in float64 eps",
           32.0 * (1 << 29))},
      {{DEVPLUG_OP_philox_normal},
       Dtypes::Wide,
       ulp("philox_normal float32/float64", 64,
           "Box-Muller in float32: log, sqrt and cos of float32 words carry a few ulp each and "
           "2*pi*u2 an absolute 2^-22; 64 ulp or 32 eps absolute covers it",
           32)},
      {{DEVPLUG_OP_philox_normal},
       Dtypes::Narrow,
       ulp("philox_normal 16-bit", 1, "computed in float32, rounded once to the 16-bit format")},
      {{DEVPLUG_OP_copy_strided, DEVPLUG_OP_convert_element_type, DEVPLUG_OP_fill, DEVPLUG_OP_iota,
        DEVPLUG_OP_cat, DEVPLUG_OP_flip, DEVPLUG_OP_constant_pad, DEVPLUG_OP_index_select, DEVPLUG_OP_gather,
        DEVPLUG_OP_scatter, DEVPLUG_OP_where},
       Dtypes::Any,
       exact("data movement", "moves or rounds each value once: every bit is defined", true)},
      {{DEVPLUG_OP_abs, DEVPLUG_OP_neg, DEVPLUG_OP_sign, DEVPLUG_OP_copysign, DEVPLUG_OP_ceil,
        DEVPLUG_OP_floor, DEVPLUG_OP_round, DEVPLUG_OP_trunc, DEVPLUG_OP_maximum, DEVPLUG_OP_minimum,
        DEVPLUG_OP_fmax, DEVPLUG_OP_fmin, DEVPLUG_OP_nextafter, DEVPLUG_OP_fmod, DEVPLUG_OP_amax,
        DEVPLUG_OP_amin},
       Dtypes::Any,
       exact("sign-exact", "exact in IEEE arithmetic, and the sign of zero is part of the answer", true)},
      {{DEVPLUG_OP_add, DEVPLUG_OP_sub, DEVPLUG_OP_mul, DEVPLUG_OP_sqrt},
       Dtypes::Any,
       exact("correctly rounded",
             "IEEE +,-,* and sqrt are correctly rounded; for 16-bit inputs float32 has >= 2p+2 "
             "bits, so rounding through float32 is innocuous (Figueroa 1995)")},
      {{DEVPLUG_OP_div, DEVPLUG_OP_reciprocal},
       Dtypes::Double,
       exact("division float64",
             "OpenCL's double-precision table: x / y and 1 / x correctly rounded. Was 3 ulp, "
             "float32's 2.5 borrowed for float64")},
      {{DEVPLUG_OP_div, DEVPLUG_OP_reciprocal},
       Dtypes::Single,
       ulp("division", 3, "OpenCL full profile allows 2.5 ulp for x / y")},
      {{DEVPLUG_OP_exp, DEVPLUG_OP_exp2, DEVPLUG_OP_log, DEVPLUG_OP_log2, DEVPLUG_OP_log10},
       Dtypes::Wide,
       ulp("exp/log", 3, "OpenCL (single and double): 3 ulp")},
      {{DEVPLUG_OP_expm1, DEVPLUG_OP_log1p},
       Dtypes::Wide,
       ulp("expm1/log1p", 3, "OpenCL (single and double): 3 (expm1), 2 (log1p); one bound")},
      {{DEVPLUG_OP_sin, DEVPLUG_OP_cos},
       Dtypes::Wide,
       ulp("sin/cos", 4, "OpenCL (single and double): 4 ulp")},
      {{DEVPLUG_OP_tan}, Dtypes::Wide, ulp("tan", 5, "OpenCL (single and double): 5 ulp")},
      {{DEVPLUG_OP_asin, DEVPLUG_OP_acos, DEVPLUG_OP_atan},
       Dtypes::Wide,
       ulp("inverse trig", 5, "OpenCL (single and double): 4 (asin, acos), 5 (atan)")},
      {{DEVPLUG_OP_sinh, DEVPLUG_OP_cosh, DEVPLUG_OP_tanh},
       Dtypes::Wide,
       ulp("hyperbolic", 5, "OpenCL (single and double): 4 (sinh, cosh), 5 (tanh)")},
      {{DEVPLUG_OP_asinh, DEVPLUG_OP_acosh, DEVPLUG_OP_atanh},
       Dtypes::Wide,
       ulp("inverse hyperbolic", 4, "OpenCL: 4 ulp")},
      {{DEVPLUG_OP_erf, DEVPLUG_OP_erfc},
       Dtypes::Wide,
       ulp("erf/erfc", 16, "OpenCL (single and double): 16 ulp")},
      {{DEVPLUG_OP_erfinv},
       Dtypes::Double,
       ulp("erfinv float64", 5,
           "devplug's own bound (OpenCL has no erfinv): the reference is within 0.5005 ulp; "
           "CUDA documents 5 ulp for its double erfinv; Newton steps on erf/erfc end within "
           "their error plus a rounding. Was 16 ulp, float32's erf row borrowed")},
      {{DEVPLUG_OP_erfinv}, Dtypes::Single, ulp("erfinv", 16, "no OpenCL row: erf's 16 ulp")},
      {{DEVPLUG_OP_lgamma},
       Dtypes::Double,
       ulp("lgamma float64", 4,
           "the reference is correctly rounded, also next to the zeros (1, 2 and the negative "
           "ones), so no absolute slack; CUDA documents 4 ulp (outside -23 < x < -2.26). Was 16 "
           "ulp or 8 eps absolute, the float32 reasoning borrowed")},
      {{DEVPLUG_OP_digamma},
       Dtypes::Double,
       ulp("digamma float64", 4,
           "the reference is correctly rounded, also next to the zeros, so no absolute slack; "
           "double-double sums and Taylor series at the roots stay within 2 ulp (OpenCL and GPU "
           "kernels), 4 leaves a device's log its 3 ulp above 32. Was 16 ulp or 8 eps absolute, "
           "the float32 reasoning borrowed")},
      {{DEVPLUG_OP_lgamma, DEVPLUG_OP_digamma},
       Dtypes::Single,
       ulp("gamma family", 16,
           "tgamma is 16 ulp in OpenCL; near the zeros of lgamma (1, 2) and digamma (1.46) the "
           "relative error of any float32 method explodes, so 8 eps absolute is also accepted",
           8)},
      {{DEVPLUG_OP_pow}, Dtypes::Wide, ulp("pow", 16, "OpenCL: 16 ulp")},
      {{DEVPLUG_OP_cbrt, DEVPLUG_OP_rsqrt}, Dtypes::Wide, ulp("cbrt/rsqrt", 2, "OpenCL: 2 ulp")},
      {{DEVPLUG_OP_atan2}, Dtypes::Wide, ulp("atan2", 6, "OpenCL: 6 ulp")},
      {{DEVPLUG_OP_hypot}, Dtypes::Wide, ulp("hypot", 4, "OpenCL: 4 ulp")},
      {{DEVPLUG_OP_remainder},
       Dtypes::Wide,
       ulp("remainder", 2, "fmod is exact; adding the divisor back rounds once more (<= 1 ulp)")},
      {{DEVPLUG_OP_sum, DEVPLUG_OP_cumsum, DEVPLUG_OP_matmul, DEVPLUG_OP_scatter_add},
       Dtypes::Any,
       Tolerance{"accumulation", TolKind::Accumulate, 0, 0, 1, false,
                 "recursive summation of n terms: |err| <= n * eps * sum|terms| (Higham, "
                 "Accuracy and Stability, 4.2), plus the final rounding; eps of float32 for "
                 "16-bit dtypes, which accumulate in float32"}},
      {{DEVPLUG_OP_prod, DEVPLUG_OP_cumprod},
       Dtypes::Any,
       Tolerance{"products", TolKind::Relative, 0, 0, 1, false,
                 "n roundings of a product each add a relative eps: |err| <= n * eps * |ref| "
                 "(+1 ulp)"}},
      {{DEVPLUG_OP_var},
       Dtypes::Any,
       Tolerance{"variance", TolKind::Variance, 0, 0, 4, false,
                 "two-pass variance (ops.def): the squared deviations add n * eps relative error and "
                 "the mean's error delta adds n delta^2 <= (n eps)^2 sum x^2 (Chan, Golub, LeVeque "
                 "1983): 4 n eps (|ref| + n eps sum x^2 / (n - correction)) (+1 ulp). One-pass "
                 "updates fail it on data with a large mean. Was 4 n eps |ref|, which large-mean "
                 "data makes too tight for the two-pass algorithm itself"}},
      // ---- composite ops (op set 2); docs/conformance.md "Composite tolerances" ----
      {{DEVPLUG_OP_relu, DEVPLUG_OP_clamp, DEVPLUG_OP_relu_backward, DEVPLUG_OP_embedding,
        DEVPLUG_OP_max_pool2d},
       Dtypes::Any,
       exact("composite exact",
             "selects or copies input values (max, bounds, rows, window maxima): no rounding")},
      {{DEVPLUG_OP_gelu, DEVPLUG_OP_silu, DEVPLUG_OP_sigmoid, DEVPLUG_OP_softplus, DEVPLUG_OP_leaky_relu,
        DEVPLUG_OP_dropout, DEVPLUG_OP_gelu_backward, DEVPLUG_OP_silu_backward, DEVPLUG_OP_sigmoid_backward},
       Dtypes::Wide,
       ulp("composite pointwise", 64,
           "a chain of 3 to 8 prims (exp, erfc, log1p: OpenCL 3-16 ulp each); the input's rounding "
           "is amplified up to 2z^2 ulp by erfc(z) at |z| <= 3; derivatives cross zero, so an "
           "absolute 64 eps (terms are O(1) times grad <= 4) is also accepted",
           64)},
      {{DEVPLUG_OP_gelu, DEVPLUG_OP_silu, DEVPLUG_OP_sigmoid, DEVPLUG_OP_softplus, DEVPLUG_OP_leaky_relu,
        DEVPLUG_OP_dropout, DEVPLUG_OP_gelu_backward, DEVPLUG_OP_silu_backward, DEVPLUG_OP_sigmoid_backward},
       Dtypes::Narrow,
       ulp("composite pointwise 16-bit", 2,
           "computed in float32 within 64 float32 ulp (2^-18 relative) and rounded once: at most "
           "1 ulp of the 16-bit format, 2 with the reference's own rounding near a tie",
           2)},
      {{DEVPLUG_OP_mean,
        DEVPLUG_OP_logsumexp,
        DEVPLUG_OP_softmax,
        DEVPLUG_OP_log_softmax,
        DEVPLUG_OP_layer_norm,
        DEVPLUG_OP_rms_norm,
        DEVPLUG_OP_batch_norm,
        DEVPLUG_OP_batch_norm_training,
        DEVPLUG_OP_linear,
        DEVPLUG_OP_scaled_dot_product_attention,
        DEVPLUG_OP_conv2d,
        DEVPLUG_OP_avg_pool2d,
        DEVPLUG_OP_nll_loss,
        DEVPLUG_OP_cross_entropy,
        DEVPLUG_OP_mse_loss,
        DEVPLUG_OP_softmax_backward,
        DEVPLUG_OP_log_softmax_backward,
        DEVPLUG_OP_layer_norm_backward,
        DEVPLUG_OP_rms_norm_backward,
        DEVPLUG_OP_batch_norm_backward,
        DEVPLUG_OP_linear_backward,
        DEVPLUG_OP_scaled_dot_product_attention_backward,
        DEVPLUG_OP_conv2d_backward,
        DEVPLUG_OP_avg_pool2d_backward,
        DEVPLUG_OP_max_pool2d_backward,
        DEVPLUG_OP_embedding_backward,
        DEVPLUG_OP_nll_loss_backward,
        DEVPLUG_OP_cross_entropy_backward,
        DEVPLUG_OP_mse_loss_backward},
       Dtypes::Any,
       Tolerance{"composite normwise", TolKind::Normwise, 0, 0, 8, false,
                 "sums of n terms (rows, channels, dot products, windows, batches) in up to 4 passes "
                 "(max, shift, exp-sum, normalize): 4 passes of the recursive-summation bound n eps "
                 "(Higham 4.2) plus the pointwise steps, 8 n eps; normwise (times the largest |ref| "
                 "of the output) because outputs near 0 are differences of terms that size "
                 "(x - mean, grad - sum(grad y)); eps of float32 for 16-bit dtypes, then 1 ulp"}},
      {{},
       Dtypes::Narrow,
       ulp("16-bit elementwise", 1, "computed in float32 (itself within a few float32 ulp), rounded once")},
      {{}, Dtypes::Any, exact("exact", "integer, bool, comparison and classification results are exact")},
  };
  return rows;
}

}  // namespace

Tolerance tolerance_for(const Case& c, bool bitwise, size_t output) {
  if (bitwise) return exact("--bitwise", "bit-exact equality was asked for on the command line", true);
  const devplug_dtype_t out = output < c.outputs.size() ? c.outputs[output].dtype : c.dtype;
  // Integer and bool outputs are always exact, except the float family rows for philox.
  if (!is_float(out)) return exact("exact", "integer, bool, comparison and classification results are exact");
  for (const Row& row : table()) {
    if (row.dtypes == Dtypes::Wide && is_16bit_float(out)) continue;
    if (row.dtypes == Dtypes::Narrow && !is_16bit_float(out)) continue;
    if (row.dtypes == Dtypes::Single && out != DEVPLUG_DTYPE_FLOAT32) continue;
    if (row.dtypes == Dtypes::Double && out != DEVPLUG_DTYPE_FLOAT64) continue;
    if (!row.ops.empty()) {
      bool hit = false;
      for (devplug_op_t op : row.ops) hit = hit || op == c.op;
      if (!hit) continue;
    }
    return row.tol;
  }
  return table().back().tol;
}

}  // namespace devplug::conform
