// SPDX-License-Identifier: Apache-2.0
// The prologue of a fused program (plugins/opencl/fused.cpp), after common.cl and ahead of
// its nodes. A node computes in private memory (elementwise.cl with FUSED_NODE), so the
// 16-bit float loads and stores here take private pointers; everything else of common.cl
// serves as it is. The host then appends, for each node, its dtype defines and elementwise.cl,
// and last the kernel that loads the inputs, calls the nodes in order and stores the outputs.
#undef LOAD_6
#define LOAD_6(p, i) vload_half((size_t)(i), (const half*)(p))
#undef STORE_6
#define STORE_6(p, i, v) vstore_half_rte((float)(v), (size_t)(i), (half*)(p))
#ifdef HAS_FP64
#undef STORED_6
#define STORED_6(p, i, v) vstore_half_rte((double)(v), (size_t)(i), (half*)(p))
#endif

// The reduction tail (sum, mean, amax, amin, var over trailing dims): accumulated as
// reduce.cl accumulates them, in double where the device has it, and rounded once to the
// node's dtype when stored.
#ifdef HAS_FP64
typedef double tail_t;
#define TAIL_STORE(d, p, v) CAT(STORED_, d)(p, 0, v)
#else
typedef float tail_t;
#define TAIL_STORE(d, p, v) CAT(STORE_, d)(p, 0, v)
#endif
// amax and amin as reduce.cl's combine_extreme: the first NaN, else the better value, and of
// two equal zeros +0 for amax and -0 for amin.
inline tail_t tail_amax(tail_t acc, tail_t x) {
  if (isnan(acc)) return acc;
  if (isnan(x)) return x;
  return (acc > x || (acc == x && !signbit(acc))) ? acc : x;
}
inline tail_t tail_amin(tail_t acc, tail_t x) {
  if (isnan(acc)) return acc;
  if (isnan(x)) return x;
  return (acc < x || (acc == x && signbit(acc))) ? acc : x;
}
