// SPDX-License-Identifier: Apache-2.0
// Batched matmul out[b] = a[b] x b[b] with arbitrary strides (transposes are free), tiled
// in local memory. Each work item computes a WPT x WPT block of outputs from TILE x TILE
// tiles. Accumulates in float for 16-bit and 32-bit floats, double for float64. `batch`
// walks the batch dims (operands 0 out, 1 a, 2 b).

#ifndef TILE
#define TILE 32
#endif
#ifndef WPT
#define WPT 4
#endif
#define THREADS (TILE / WPT)

#if DTA == DT_F64
typedef double acc_t;
#else
typedef float acc_t;
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, THREADS, 1))) void matmul(
    const geom_t batch, __global O_ST* out, __global const A_ST* a, __global const A_ST* b, const long M,
    const long N, const long K, const long a_rs, const long a_cs, const long b_rs, const long b_cs,
    const long o_rs, const long o_cs) {
  __local acc_t ta[TILE][TILE + 1];
  __local acc_t tb[TILE][TILE + 1];
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const long col0 = (long)get_group_id(0) * TILE, row0 = (long)get_group_id(1) * TILE;
  long at[3];
  geom_offsets(&batch, (long)get_global_id(2), 3, at);
  acc_t acc[WPT][WPT];
  for (int i = 0; i < WPT; ++i)
    for (int j = 0; j < WPT; ++j) acc[i][j] = 0;
  for (long k0 = 0; k0 < K; k0 += TILE) {
    // Load both tiles cooperatively: THREADS x THREADS items, WPT x WPT elements each.
    for (int i = 0; i < WPT; ++i) {
      for (int j = 0; j < WPT; ++j) {
        const int r = ty * WPT + i, c = tx * WPT + j;
        const long ar = row0 + r, ak = k0 + c;
        ta[r][c] = (ar < M && ak < K) ? (acc_t)LOAD_A(a, at[1] + ar * a_rs + ak * a_cs) : (acc_t)0;
        const long bk = k0 + r, bc = col0 + c;
        tb[r][c] = (bk < K && bc < N) ? (acc_t)LOAD_A(b, at[2] + bk * b_rs + bc * b_cs) : (acc_t)0;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TILE; ++kk) {
      acc_t av[WPT], bv[WPT];
      for (int i = 0; i < WPT; ++i) av[i] = ta[ty * WPT + i][kk];
      for (int j = 0; j < WPT; ++j) bv[j] = tb[kk][tx * WPT + j];
      for (int i = 0; i < WPT; ++i)
        for (int j = 0; j < WPT; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = 0; i < WPT; ++i) {
    for (int j = 0; j < WPT; ++j) {
      const long r = row0 + ty * WPT + i, c = col0 + tx * WPT + j;
      if (r < M && c < N) STORE_O(out, at[0] + r * o_rs + c * o_cs, acc[i][j]);
    }
  }
}
