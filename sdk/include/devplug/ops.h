/* The op ids, categories and attribute structs, all expanded from ops.def.
 *
 * Shape rules by category (the dispatcher checks them before a kernel runs, so a kernel
 * may rely on them):
 *   UNARY BINARY COMPARE TERNARY  all inputs and the output have one shape.
 *   DATA       convert_element_type and copy_strided: input and output have one shape.
 *   REDUCE     the output has the input's rank; dims in `dims_mask` have size 1, the rest
 *              match. A dims_mask of 0 reduces nothing.
 *   SCAN       the output has the input's shape; `dim` < rank (0 for a 0-d input).
 *   INDEX      index_select: index is 1-D, out = input's shape with `dim` = len(index).
 *              gather: index has input's rank, out has index's shape, index.shape[d] <=
 *              input.shape[d] for d != dim. scatter(_add): out has input's shape, index
 *              has input's rank, index.shape[d] <= src.shape[d] for every d and <=
 *              input.shape[d] for d != dim.
 *   SHAPE      cat: same rank, equal except `dim`, out.shape[dim] is the sum. flip: one
 *              shape. constant_pad: out.shape[d] = in.shape[d] + before[d] + after[d] >= 0.
 *   LINALG     matmul: a [B.., M, K], b [B.., K, N], out [B.., M, N], one rank >= 2, equal
 *              batch dims (the dispatcher broadcasts batch dims as stride-0 views).
 *   RANDOM     no inputs; any output shape. */
#ifndef DEVPLUG_OPS_H_
#define DEVPLUG_OPS_H_

#include "devplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the op set a plugin implements: raised whenever rows are appended. */
#define DEVPLUG_OPSET_VERSION 1

/* Op ids, as frozen in ops.def. Stored as int32_t in structs. */
typedef int32_t devplug_op_t;
enum {
  DEVPLUG_OP_INVALID = 0,
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary) \
  DEVPLUG_OP_##name = id,
#include "devplug/ops.def"
  /* One past the largest id; ids below it may have gaps in later op sets. */
  DEVPLUG_OP_END_
};

typedef int32_t devplug_category_t;
enum {
  DEVPLUG_CATEGORY_unary = 1,
  DEVPLUG_CATEGORY_binary = 2,
  DEVPLUG_CATEGORY_compare = 3,
  DEVPLUG_CATEGORY_ternary = 4,
  DEVPLUG_CATEGORY_data = 5,
  DEVPLUG_CATEGORY_reduce = 6,
  DEVPLUG_CATEGORY_scan = 7,
  DEVPLUG_CATEGORY_index = 8,
  DEVPLUG_CATEGORY_shape = 9,
  DEVPLUG_CATEGORY_linalg = 10,
  DEVPLUG_CATEGORY_random = 11
};

/* How an op's output dtype and dispatch dtype follow from its tensors (ops.def `result`). */
typedef int32_t devplug_result_t;
enum {
  DEVPLUG_RESULT_same = 1,
  DEVPLUG_RESULT_bool = 2,
  DEVPLUG_RESULT_int64 = 3,
  DEVPLUG_RESULT_any = 4,
  DEVPLUG_RESULT_select = 5,
  DEVPLUG_RESULT_made = 6
};

/* ---- attribute structs (ops.def `attrs`); each starts with struct_size ---------------- */

/* Ops with no attributes take NULL; this struct exists so every token names a type. */
typedef struct devplug_none_attrs_t {
  size_t struct_size;
} devplug_none_attrs_t;

/* Reductions. Bit d of `dims_mask` reduces dim d. `correction` is read by var only
 * (1 gives the unbiased estimate). */
typedef struct devplug_reduce_attrs_t {
  size_t struct_size;
  uint32_t dims_mask;
  double correction;
} devplug_reduce_attrs_t;

/* Scans, index_select, gather, scatter, scatter_add and cat: the dim they work along,
 * in [0, rank). */
typedef struct devplug_dim_attrs_t {
  size_t struct_size;
  int32_t dim;
} devplug_dim_attrs_t;

/* flip: bit d of `dims_mask` reverses dim d. */
typedef struct devplug_flip_attrs_t {
  size_t struct_size;
  uint32_t dims_mask;
} devplug_flip_attrs_t;

/* constant_pad: elements added before and after each dim (negative crops); entries past
 * the rank are ignored. */
typedef struct devplug_pad_attrs_t {
  size_t struct_size;
  int64_t before[DEVPLUG_MAX_RANK];
  int64_t after[DEVPLUG_MAX_RANK];
  devplug_scalar_t value;
} devplug_pad_attrs_t;

typedef struct devplug_fill_attrs_t {
  size_t struct_size;
  devplug_scalar_t value;
} devplug_fill_attrs_t;

typedef struct devplug_iota_attrs_t {
  size_t struct_size;
  devplug_scalar_t start;
  devplug_scalar_t step;
} devplug_iota_attrs_t;

/* matmul. DEVPLUG_MATMUL_ALLOW_TF32 lets a float32 matmul use reduced-precision tensor
 * cores (off by default; the conformance suite judges such results with TF32 bounds). */
#define DEVPLUG_MATMUL_ALLOW_TF32 1u
typedef struct devplug_matmul_attrs_t {
  size_t struct_size;
  uint32_t flags;
} devplug_matmul_attrs_t;

/* Random ops: Philox4x32-10 with key = `seed` and 128-bit counter = `offset` + (word index
 * / 4). See docs/random.md for the element-to-word mapping. */
typedef struct devplug_philox_attrs_t {
  size_t struct_size;
  uint64_t seed;
  uint64_t offset;
} devplug_philox_attrs_t;

/* ---- the table as data --------------------------------------------------------------- */

typedef struct devplug_op_info_t {
  devplug_op_t id;
  const char* name;
  devplug_category_t category;
  int32_t n_inputs; /* -1: one or more */
  int32_t n_outputs;
  size_t attrs_size; /* sizeof the attribute struct as of these headers; 0 for none */
  devplug_result_t result;
  devplug_dtype_mask_t dtypes;
  const char* summary;
} devplug_op_info_t;

/* The row for `op`, or NULL when `op` is not an id of this op set. No allocation. */
static inline const devplug_op_info_t* devplug_op_info(devplug_op_t op) {
  static const devplug_op_info_t rows[] = {
#define DEVPLUG_ATTRS_SIZE_none 0
#define DEVPLUG_ATTRS_SIZE_reduce sizeof(devplug_reduce_attrs_t)
#define DEVPLUG_ATTRS_SIZE_dim sizeof(devplug_dim_attrs_t)
#define DEVPLUG_ATTRS_SIZE_flip sizeof(devplug_flip_attrs_t)
#define DEVPLUG_ATTRS_SIZE_pad sizeof(devplug_pad_attrs_t)
#define DEVPLUG_ATTRS_SIZE_fill sizeof(devplug_fill_attrs_t)
#define DEVPLUG_ATTRS_SIZE_iota sizeof(devplug_iota_attrs_t)
#define DEVPLUG_ATTRS_SIZE_matmul sizeof(devplug_matmul_attrs_t)
#define DEVPLUG_ATTRS_SIZE_philox sizeof(devplug_philox_attrs_t)
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary)        \
  {id, #name, DEVPLUG_CATEGORY_##category, n_in, n_out, DEVPLUG_ATTRS_SIZE_##attrs, \
   DEVPLUG_RESULT_##result, dtypes, summary},
#include "devplug/ops.def"
  };
  size_t i;
  /* Ids are dense from 1 in op set 1, so the row is usually at id - 1. */
  if (op >= 1 && (size_t)op <= sizeof(rows) / sizeof(rows[0]) && rows[op - 1].id == op)
    return &rows[op - 1];
  for (i = 0; i < sizeof(rows) / sizeof(rows[0]); ++i)
    if (rows[i].id == op) return &rows[i];
  return (const devplug_op_info_t*)0;
}

/* The op's name ("exp"), or NULL for an unknown id. */
static inline const char* devplug_op_name(devplug_op_t op) {
  const devplug_op_info_t* info = devplug_op_info(op);
  return info ? info->name : (const char*)0;
}

/* The dtype's name ("float32"), or NULL for an unknown dtype. */
static inline const char* devplug_dtype_name(devplug_dtype_t dtype) {
  static const char* const names[DEVPLUG_DTYPE_COUNT] = {
      "bool", "uint8", "int8", "int16", "int32", "int64",
      "float16", "bfloat16", "float32", "float64"};
  if (dtype < 0 || dtype >= DEVPLUG_DTYPE_COUNT) return (const char*)0;
  return names[dtype];
}

/* Bytes per element of `dtype`, or 0 for an unknown dtype. */
static inline size_t devplug_dtype_size(devplug_dtype_t dtype) {
  static const unsigned char sizes[DEVPLUG_DTYPE_COUNT] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  if (dtype < 0 || dtype >= DEVPLUG_DTYPE_COUNT) return 0;
  return sizes[dtype];
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DEVPLUG_OPS_H_ */
