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
