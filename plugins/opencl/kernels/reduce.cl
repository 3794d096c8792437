// SPDX-License-Identifier: Apache-2.0
// Reductions over a set of dims (sum prod amax amin argmax argmin var all any).
//
// Two geometries split the input: `kept` walks the output elements (operand 0: output,
// operand 1: input base), `red` walks the reduced sub-space in row-major order (operand 0:
// input, offset 0), so argmax's index is simply the row-major index r. Every op is an
// accumulator with INIT, ADD (one element), COMBINE (two partial results, order-free) and
// FINAL (store). var runs every kernel twice (pass 0: means, pass 1: squared deviations).
// Kernels:
//   reduce_serial   one work item per output element (short reductions, many outputs)
//   reduce_partial  groups of GROUP items, tree in local memory; a group reduces one chunk of
//                   one output element and writes the result or a partial accumulator
//   reduce_combine  one group per output element combines the partials (second level)

#ifndef GROUP
#define GROUP 256
#endif

#if A_FLOAT && defined(HAS_FP64)
#define R double
#define STORE_R(p, i, v) STORED_O(p, i, v)
#elif A_FLOAT
#define R float
#define STORE_R(p, i, v) STORE_O(p, i, v)
#endif

// Lowest and highest values per dtype (identities of amax and amin).
#define LOWEST_0 0
#define LOWEST_1 0
#define LOWEST_2 CHAR_MIN
#define LOWEST_3 SHRT_MIN
#define LOWEST_4 INT_MIN
#define LOWEST_5 LONG_MIN
#define LOWEST_6 (-INFINITY)
#define LOWEST_7 (-INFINITY)
#define LOWEST_8 (-INFINITY)
#define LOWEST_9 (-INFINITY)
#define HIGHEST_0 1
#define HIGHEST_1 UCHAR_MAX
#define HIGHEST_2 CHAR_MAX
#define HIGHEST_3 SHRT_MAX
#define HIGHEST_4 INT_MAX
#define HIGHEST_5 LONG_MAX
#define HIGHEST_6 INFINITY
#define HIGHEST_7 INFINITY
#define HIGHEST_8 INFINITY
#define HIGHEST_9 INFINITY

// Eight floating elements at once, converted to R (sum's CPU path below).
#if defined(OP_sum) && A_FLOAT
#define R8 CAT(R, 8)
typedef R8 r8_t;
#define CONVERT_R8 CAT(convert_, R8)
#if DTA == 6
#define LOAD8_A(p, i) CONVERT_R8(vload_half8(0, (__global const half*)(p) + (i)))
#elif DTA == 7
#define LOAD8_A(p, i) CONVERT_R8(as_float8(convert_uint8(vload8(0, (p) + (i))) << 16))
#else
#define LOAD8_A(p, i) CONVERT_R8(vload8(0, (p) + (i)))
#endif
#endif

#if A_FLOAT
#define IS_NAN(v) isnan(v)
#else
#define IS_NAN(v) 0
#endif

#if defined(OP_sum) || defined(OP_prod)
#if A_FLOAT
typedef R acc_t;
#else
typedef ulong acc_t;  // wraps mod 2^64; truncating to the dtype keeps the wrap mod 2^n
#endif
#ifdef OP_sum
#define INIT() ((acc_t)0)
#define COMBINE(a, b) ((a) + (b))
#else
#define INIT() ((acc_t)1)
#define COMBINE(a, b) ((a) * (b))
#endif
#define ADD(acc, x, r) COMBINE(acc, (acc_t)(x))
#if A_FLOAT
#define FINAL(p, i, acc) STORE_R(p, i, acc)
#else
#define FINAL(p, i, acc) ((p)[i] = (O_ST)(A_UT)(acc))
#endif

#elif defined(OP_amax) || defined(OP_amin)
typedef A_CT acc_t;
#ifdef OP_amax
#define INIT() ((acc_t)CAT(LOWEST_, DTA))
#define BETTER(a, b) ((a) > (b) || ((a) == (b) && !signbit((float)(a))))
#else
#define INIT() ((acc_t)CAT(HIGHEST_, DTA))
#define BETTER(a, b) ((a) < (b) || ((a) == (b) && signbit((float)(a))))
#endif
inline acc_t combine_extreme(acc_t a, acc_t b) {
  if (IS_NAN(a)) return a;
  if (IS_NAN(b)) return b;
  return BETTER(a, b) ? a : b;
}
#define COMBINE(a, b) combine_extreme(a, b)
#define ADD(acc, x, r) combine_extreme(acc, x)
#define FINAL(p, i, acc) STORE_O(p, i, acc)

#elif defined(OP_argmax) || defined(OP_argmin)
typedef struct {
  A_CT v;
  long idx;  // -1: nothing seen yet
} acc_t;
#ifdef OP_argmax
#define STRICTLY_BETTER(a, b) ((a) > (b))
#else
#define STRICTLY_BETTER(a, b) ((a) < (b))
#endif
// First NaN wins, then the best value, then the smallest index: independent of order.
inline acc_t combine_arg(acc_t a, acc_t b) {
  if (a.idx < 0) return b;
  if (b.idx < 0) return a;
#if A_FLOAT  // integers have no NaN (and a constant test would draw a warning from the compiler)
  const int na = IS_NAN(a.v), nb = IS_NAN(b.v);
  if (na || nb) {
    if (na && nb) return a.idx < b.idx ? a : b;
    return na ? a : b;
  }
#endif
  if (STRICTLY_BETTER(a.v, b.v)) return a;
  if (STRICTLY_BETTER(b.v, a.v)) return b;
  return a.idx < b.idx ? a : b;
}
inline acc_t arg_init(void) {
  acc_t a;
  a.v = 0;
  a.idx = -1;
  return a;
}
inline acc_t arg_one(A_CT x, long r) {
  acc_t a;
  a.v = x;
  a.idx = r;
  return a;
}
#define INIT() arg_init()
#define COMBINE(a, b) combine_arg(a, b)
#define ADD(acc, x, r) combine_arg(acc, arg_one(x, r))
#define FINAL(p, i, acc) ((p)[i] = (acc).idx)

#elif defined(OP_var)
// Two passes, as ops.def defines var: pass 0 sums the elements and stores each output's mean
// in `center` (dense, by output index); pass 1 sums the squared deviations from it. A
// one-pass update (Welford, or E[x^2] - E[x]^2) loses digits in proportion to mean / spread.
typedef R acc_t;
inline acc_t var_add(acc_t acc, R x, int pass, R mean) {
  if (pass == 0) return acc + x;
  const R d = x - mean;
  return acc + d * d;
}
#define INIT() ((acc_t)0)
#define COMBINE(a, b) ((a) + (b))
#define ADD(acc, x, r) var_add(acc, (R)(x), pass, center_o)
#define FINAL(p, i, acc)                                            \
  do {                                                              \
    if (pass == 0)                                                  \
      center[o] = (acc) / (R)length;                                \
    else                                                            \
      STORE_R(p, i, (acc) / fmax((R)0, (R)length - (R)correction)); \
  } while (0)

#elif defined(OP_all) || defined(OP_any)
typedef uchar acc_t;
#ifdef OP_all
#define INIT() ((acc_t)1)
#define COMBINE(a, b) ((acc_t)((a) & (b)))
#else
#define INIT() ((acc_t)0)
#define COMBINE(a, b) ((acc_t)((a) | (b)))
#endif
#define ADD(acc, x, r) COMBINE(acc, (acc_t)((x) != 0))
#define FINAL(p, i, acc) ((p)[i] = (acc))
#else
#error "reduce.cl: no OP_<name> given"
#endif

#ifdef HAS_FP64
typedef double real_t;
#else
typedef float real_t;
#endif

// Every kernel takes var's `center` (the means, written by pass 0 and read by pass 1) and
// `pass`; the other ops ignore both (center may be NULL).
#define CENTER_OF(o) (pass == 1 ? center[o] : (real_t)0)

__kernel void reduce_serial(const geom_t kept, const geom_t red, __global const A_ST* in, __global O_ST* out,
                            const real_t correction, __global real_t* center, const int pass) {
  const long o = get_global_id(0);
  if (o >= kept.numel) return;
  const long length = red.numel;
  const real_t center_o = CENTER_OF(o);
  long at[2];
  geom_offsets(&kept, o, 2, at);
  acc_t acc = INIT();
  for (long r = 0; r < red.numel; ++r) {
    const A_CT x = LOAD_A(in, at[1] + geom_offset(&red, 0, r));
    acc = ADD(acc, x, r);
  }
  FINAL(out, at[0], acc);
  (void)correction;
  (void)length;
  (void)center_o;
}

// Tree reduction of `tree` (GROUP entries) into tree[0].
#define TREE_REDUCE(tree, lid)                                              \
  for (int width = GROUP / 2; width > 0; width >>= 1) {                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                           \
    if ((lid) < width) tree[lid] = COMBINE(tree[lid], tree[(lid) + width]); \
  }                                                                         \
  barrier(CLK_LOCAL_MEM_FENCE)

// Group (g, o) reduces elements [g * chunk, (g + 1) * chunk) of output element o.
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void reduce_partial(
    const geom_t kept, const geom_t red, __global const A_ST* in, __global O_ST* out, __global acc_t* partial,
    const long chunk, const int write_final, const real_t correction, __global real_t* center, const int pass,
    const int cpu_slices) {
  __local acc_t tree[GROUP];
  const int lid = (int)get_local_id(0);
  const long g = get_group_id(0), groups = get_num_groups(0), o = get_group_id(1);
  const long length = red.numel;
  const real_t center_o = CENTER_OF(o);
  long at[2];
  geom_offsets(&kept, o, 2, at);
  const long begin = g * chunk;
  const long end = min(begin + chunk, red.numel);
  acc_t acc = INIT();
  if (red.dense) {
    const long base = at[1] + red.offset[0];
    if (cpu_slices) {
      // A CPU runs a group's work-items one after another: each takes one contiguous slice,
      // so every cache line is read once and in order (interleaved, as a GPU wants, each
      // line would come from memory once per element in it). Four accumulators, combined at
      // the end (COMBINE is order-free): one alone is a chain of dependent additions that
      // runs at the adder's latency, not at memory speed (sum of 16M float32 in PoCL: 13.9 ms
      // with one, 4.2 ms with four). The host chooses the path from the device type, so one
      // compiled program (a SPIR-V module too) serves CPUs and GPUs.
      const long slice = (end - begin + GROUP - 1) / GROUP;
      const long first = begin + lid * slice;
      const long last = min(first + slice, end);
      acc_t acc1 = INIT(), acc2 = INIT(), acc3 = INIT();
      long r = first;
#if defined(OP_sum) && A_FLOAT
      // Floating sums in vector registers, 16 elements a step: the scalar loop is bound by
      // instructions per element, not by memory (bfloat16 needs a shift and two conversions).
      r8_t vacc0 = 0, vacc1 = 0;
      for (; r + 15 < last; r += 16) {
        vacc0 += LOAD8_A(in, base + r);
        vacc1 += LOAD8_A(in, base + r + 8);
      }
      const r8_t v = vacc0 + vacc1;
      acc1 = (v.s0 + v.s1) + (v.s2 + v.s3);
      acc2 = (v.s4 + v.s5) + (v.s6 + v.s7);
#endif
      for (; r + 3 < last; r += 4) {
        acc = ADD(acc, LOAD_A(in, base + r), r);
        acc1 = ADD(acc1, LOAD_A(in, base + r + 1), r + 1);
        acc2 = ADD(acc2, LOAD_A(in, base + r + 2), r + 2);
        acc3 = ADD(acc3, LOAD_A(in, base + r + 3), r + 3);
      }
      for (; r < last; ++r) acc = ADD(acc, LOAD_A(in, base + r), r);
      acc = COMBINE(COMBINE(acc, acc1), COMBINE(acc2, acc3));
    } else {
      // Neighbouring work-items read neighbouring elements: coalesced on a GPU.
      for (long r = begin + lid; r < end; r += GROUP) {
        const A_CT x = LOAD_A(in, base + r);
        acc = ADD(acc, x, r);
      }
    }
  } else {
    for (long r = begin + lid; r < end; r += GROUP) {
      const A_CT x = LOAD_A(in, at[1] + geom_offset(&red, 0, r));
      acc = ADD(acc, x, r);
    }
  }
  tree[lid] = acc;
  TREE_REDUCE(tree, lid);
  if (lid == 0) {
    if (write_final) {
      FINAL(out, at[0], tree[0]);
    } else {
      partial[o * groups + g] = tree[0];
    }
  }
  (void)correction;
  (void)length;
  (void)center_o;
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void reduce_combine(
    const geom_t kept, __global const acc_t* partial, const long groups, __global O_ST* out,
    const real_t correction, __global real_t* center, const int pass, const long length) {
  __local acc_t tree[GROUP];
  const int lid = (int)get_local_id(0);
  const long o = get_group_id(1);
  acc_t acc = INIT();
  for (long g = lid; g < groups; g += GROUP) acc = COMBINE(acc, partial[o * groups + g]);
  tree[lid] = acc;
  TREE_REDUCE(tree, lid);
  if (lid == 0) FINAL(out, geom_offset(&kept, 0, o), tree[0]);
  (void)correction;
  (void)length;
  (void)center;
  (void)pass;
}
