// SPDX-License-Identifier: Apache-2.0
// Indexing: index_select and gather ("take"), scatter and scatter_add. Index tensors are
// int64; an index outside [0, dim_size) never reads or writes out of bounds (take writes
// zero, scatter skips it) and is reported through the stream's status block: the plugin
// answers INVALID_ARGUMENT at the stream's next synchronize (ops.def, "indexing").

#if A_BITS == 64
#define A_WUT ulong
#else
#define A_WUT uint
#endif

// Records a bad index in the status block (layout: sdk/index_status.hpp): the first work item
// to claim the block by a compare-and-swap of its 32-bit `op` word writes the value and size.
void report_bad_index(__global long* status, const int op, const long value, const long size) {
  if (atomic_cmpxchg((volatile __global int*)status, 0, op) == 0) {
    status[1] = value;
    status[2] = size;
  }
}

// Operands: 0 output, 1 input with its stride along dim zeroed, 2 index (index_select: only
// the dim stride is set; gather: the index tensor's strides). The picked element is
// input[at[1] + index * in_dim_stride].
__kernel void take(const geom_t g, __global A_ST* out, __global const A_ST* in, __global const long* index,
                   const long in_dim_stride, const long dim_size, __global long* status, const int op) {
  const long k = get_global_id(0);
  if (k >= g.numel) return;
  long at[3];
  geom_offsets(&g, k, 3, at);
  const long i = index[at[2]];
  const bool valid = i >= 0 && i < dim_size;
  if (!valid) report_bad_index(status, op, i, dim_size);
  out[at[0]] = valid ? in[at[1] + i * in_dim_stride] : (A_ST)0;
}

// One work item per line along dim of the index tensor, in order, so duplicate targets
// resolve the same way as a sequential loop (last write wins; additions in order).
// Operands of `lines`: 0 output, 1 src, 2 index.
// With WIDE_TARGET (scatter_add of 16-bit floats) the output is a float32 copy that the host
// rounds back once.
#ifdef WIDE_TARGET
#define TARGET_T float
#define LOAD_T(p, i) ((p)[i])
#define STORE_T(p, i, v) ((p)[i] = (v))
#else
#define TARGET_T A_ST
#define LOAD_T(p, i) LOAD_A(p, i)
#define STORE_T(p, i, v) STORE_O(p, i, v)
#endif

__kernel void scatter(const geom_t lines, __global TARGET_T* out, __global const A_ST* src,
                      __global const long* index, const long n, const long out_stride, const long src_stride,
                      const long index_stride, const long dim_size, __global long* status, const int op) {
  const long line = get_global_id(0);
  if (line >= lines.numel) return;
  long at[3];
  geom_offsets(&lines, line, 3, at);
  for (long j = 0; j < n; ++j) {
    const long i = index[at[2] + j * index_stride];
    if (i < 0 || i >= dim_size) {
      report_bad_index(status, op, i, dim_size);
      continue;
    }
    const long p = at[0] + i * out_stride;
    const long q = at[1] + j * src_stride;
#if defined(OP_scatter_add) && A_FLOAT
    STORE_T(out, p, LOAD_T(out, p) + LOAD_A(src, q));
#elif defined(OP_scatter_add)
    out[p] = (A_ST)((A_WUT)(A_UT)out[p] + (A_WUT)(A_UT)src[q]);
#elif defined(WIDE_TARGET)
    out[p] = LOAD_A(src, q);
#else
    out[p] = src[q];
#endif
  }
}
