// SPDX-License-Identifier: Apache-2.0
// Inclusive scans (cumsum, cumprod) along one dim: one work item per line. `lines` walks
// every position with the scanned dim fixed at 0 (operand 0: output, operand 1: input);
// `n` elements follow at the given strides. Floats accumulate in double where the device
// has fp64 (float otherwise) and round each output once; integers wrap mod 2^64, then to
// their width.

#if A_FLOAT && defined(HAS_FP64)
typedef double acc_t;
#define STORE_ACC(p, i, v) STORED_O(p, i, v)
#elif A_FLOAT
typedef float acc_t;
#define STORE_ACC(p, i, v) STORE_O(p, i, v)
#else
typedef ulong acc_t;
#define STORE_ACC(p, i, v) ((p)[i] = (O_ST)(A_UT)(v))
#endif

#if defined(OP_cumsum)
#define INIT ((acc_t)0)
#define STEP(acc, x) ((acc) + (acc_t)(x))
#elif defined(OP_cumprod)
#define INIT ((acc_t)1)
#define STEP(acc, x) ((acc) * (acc_t)(x))
#else
#error "scan.cl: no OP_<name> given"
#endif

__kernel void scan(const geom_t lines, __global const A_ST* in, __global O_ST* out, const long n,
                   const long in_stride, const long out_stride) {
  const long line = get_global_id(0);
  if (line >= lines.numel) return;
  long at[2];
  geom_offsets(&lines, line, 2, at);
  acc_t acc = INIT;
  for (long j = 0; j < n; ++j) {
    acc = STEP(acc, LOAD_A(in, at[1] + j * in_stride));
    STORE_ACC(out, at[0] + j * out_stride, acc);
  }
}
