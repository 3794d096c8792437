// SPDX-License-Identifier: Apache-2.0
// Native composite ops that reduce: softmax and log_softmax (one work-group per line),
// layer_norm and rms_norm (one work-group per row, two-pass statistics) and
// scaled_dot_product_attention (one work-group per query, its scores in local memory). Each
// does in one kernel what the dispatcher's decomposition does in five to twelve prims,
// reading its input two or three times instead of writing and rereading temporaries. The
// pointwise composites are in composite_pointwise.cl.
//
// Options: DTA the input dtype (and weight, bias, query, key, value), DTO the output's, DTB
// the statistics' (layer_norm's mean and rstd: float32 for 16-bit inputs), DTC the attention
// mask's (bool or DTA), GROUP the work-group size (a power of two; the host launches exactly
// GROUP items per group). 16-bit dtypes are computed in float and rounded once at the store;
// float64 in double.

#ifndef GROUP
#define GROUP 256
#endif

#if DTA == DT_F64
#define CT double
#else
#define CT float
#endif

#define STORE_B(p, i, v) CAT(STORE_, DTB)(p, i, v)
#define B_ST_OUT CAT(STORAGE_, DTB)

// NaN-propagating max, as the prims' amax.
inline CT max_nan(CT a, CT b) { return isnan(a) || isnan(b) ? (CT)NAN : fmax(a, b); }

// Tree reductions over the work-group (every item must call them, in the same order).
inline CT group_sum(__local CT* s, CT v) {
  const int lid = get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = GROUP / 2; stride > 0; stride >>= 1) {
    if (lid < stride) s[lid] += s[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const CT r = s[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

inline CT group_max(__local CT* s, CT v) {
  const int lid = get_local_id(0);
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = GROUP / 2; stride > 0; stride >>= 1) {
    if (lid < stride) s[lid] = max_nan(s[lid], s[lid + stride]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const CT r = s[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

// ---- softmax and log_softmax ----------------------------------------------------------------

// Group g handles line g of `lines` (operand 0: the output's line start, 1: the input's);
// the line has n elements, `in_step` and `out_step` apart. exp(x - m) / sum, or
// x - m - log(sum), with m the line's maximum.
__kernel void softmax_lines(geom_t lines, __global const A_ST* in, __global O_ST* out, long n, long in_step,
                            long out_step, int log_form) {
  __local CT scratch[GROUP];
  long at[2];
  geom_offsets(&lines, get_group_id(0), 2, at);
  const int lid = get_local_id(0);
  CT m = -INFINITY;
  for (long j = lid; j < n; j += GROUP) m = max_nan(m, (CT)LOAD_A(in, at[1] + j * in_step));
  m = group_max(scratch, m);
  CT sum = 0;
  for (long j = lid; j < n; j += GROUP) sum += exp((CT)LOAD_A(in, at[1] + j * in_step) - m);
  sum = group_sum(scratch, sum);
  if (log_form) {
    const CT lse = log(sum);
    for (long j = lid; j < n; j += GROUP)
      STORE_O(out, at[0] + j * out_step, ((CT)LOAD_A(in, at[1] + j * in_step) - m) - lse);
  } else {
    const CT inv = (CT)1 / sum;
    for (long j = lid; j < n; j += GROUP)
      STORE_O(out, at[0] + j * out_step, exp((CT)LOAD_A(in, at[1] + j * in_step) - m) * inv);
  }
}

// ---- layer_norm and rms_norm ------------------------------------------------------------------

// Group g handles row g of `rows` (operands 0 output, 1 input, 2 mean, 3 rstd: the row's
// starts); `inner` walks a row's n elements (operands 0 output, 1 input relative to the row
// start, 2 weight, 3 bias absolute). Two passes for the statistics (mean, then the centred
// sum of squares), a third writes (x - mean) rstd w + b; rms: x rstd w with rstd from the
// mean square.
__kernel void norm_rows(geom_t rows, geom_t inner, __global const A_ST* in, __global O_ST* out,
                        __global const A_ST* weight, __global const A_ST* bias, __global B_ST_OUT* mean_out,
                        __global B_ST_OUT* rstd_out, long n, CT eps, int rms, int has_weight, int has_bias) {
  __local CT scratch[GROUP];
  long at[4];
  geom_offsets(&rows, get_group_id(0), 4, at);
  const int lid = get_local_id(0);
  long io[4];
  CT mean = 0;
  if (!rms) {
    CT sum = 0;
    for (long j = lid; j < n; j += GROUP) {
      geom_offsets(&inner, j, 2, io);
      sum += (CT)LOAD_A(in, at[1] + io[1]);
    }
    mean = group_sum(scratch, sum) / (CT)n;
  }
  CT squares = 0;
  for (long j = lid; j < n; j += GROUP) {
    geom_offsets(&inner, j, 2, io);
    const CT d = (CT)LOAD_A(in, at[1] + io[1]) - mean;
    squares += d * d;
  }
  const CT rstd = (CT)1 / sqrt(group_sum(scratch, squares) / (CT)n + eps);
  for (long j = lid; j < n; j += GROUP) {
    geom_offsets(&inner, j, 4, io);
    CT y = ((CT)LOAD_A(in, at[1] + io[1]) - mean) * rstd;
    if (has_weight) y *= (CT)LOAD_A(weight, io[2]);
    if (has_bias) y += (CT)LOAD_A(bias, io[3]);
    STORE_O(out, at[0] + io[0], y);
  }
  if (lid == 0) {
    if (!rms) STORE_B(mean_out, at[2], mean);
    STORE_B(rstd_out, at[3], rstd);
  }
}

// ---- scaled_dot_product_attention -----------------------------------------------------------------

// Group g handles query i = g % L of batch b = g / L. `batch` walks the batch dims (operands
// 0 output, 1 query, 2 key, 3 value), `mask_batch` the mask's (operand 0). The scores of the
// query's S keys live in local memory (`scores`, S entries): scaled, masked, shifted by their
// maximum, exponentiated; each item then sums its share of the value columns.
__kernel void attention_rows(geom_t batch, geom_t mask_batch, __global const A_ST* q, __global const A_ST* kk,
                             __global const A_ST* v, __global const C_ST* mask, __global O_ST* out, long L,
                             long S, long E, long Ev, long q_l, long q_e, long k_s, long k_e, long v_s,
                             long v_e, long o_l, long o_e, long m_l, long m_s, CT scale, int has_mask,
                             int mask_bool, int causal, __local CT* scores) {
  __local CT scratch[GROUP];
  const long gid = get_group_id(0);
  const long b = gid / L, i = gid % L;
  const int lid = get_local_id(0);
  long at[4], mat[1];
  geom_offsets(&batch, b, 4, at);
  geom_offsets(&mask_batch, b, 1, mat);
  CT m = -INFINITY;
  for (long j = lid; j < S; j += GROUP) {
    CT dot = 0;
    for (long e = 0; e < E; ++e)
      dot += (CT)LOAD_A(q, at[1] + i * q_l + e * q_e) * (CT)LOAD_A(kk, at[2] + j * k_s + e * k_e);
    CT s = dot * scale;
    if (has_mask) {
      const long mi = mat[0] + i * m_l + j * m_s;
      if (mask_bool) {
        if (!mask[mi]) s = -INFINITY;
      } else {
        s += (CT)LOAD_C(mask, mi);
      }
    }
    if (causal && j > i) s = -INFINITY;
    scores[j] = s;
    m = max_nan(m, s);
  }
  m = group_max(scratch, m);
  const int none = m == -INFINITY;  // every key masked: the row is 0
  CT sum = 0;
  for (long j = lid; j < S; j += GROUP) {
    const CT p = none ? (CT)0 : exp(scores[j] - m);
    scores[j] = p;
    sum += p;
  }
  sum = group_sum(scratch, sum);  // its barriers also publish `scores`
  const CT inv = none ? (CT)0 : (CT)1 / sum;
  for (long e = lid; e < Ev; e += GROUP) {
    CT acc = 0;
    for (long j = 0; j < S; ++j) acc += scores[j] * (CT)LOAD_A(v, at[3] + j * v_s + e * v_e);
    STORE_O(out, at[0] + i * o_l + e * o_e, acc * inv);
  }
}
