// SPDX-License-Identifier: Apache-2.0
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
 *   RANDOM     no inputs; any output shape.
 *   COMPOSITE  per op (devplug/sdk/composite_shapes.hpp and docs/ops.md); optional tensors
 *              are passed as NULL (ops.def's optional_in / optional_out bits). */
#ifndef DEVPLUG_OPS_H_
#define DEVPLUG_OPS_H_

#include "devplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the op set a plugin implements: raised whenever rows are appended.
 *   1: the prims, ids 1 to 95.
 *   2: the composite ops, ids 96 to 138. */
#define DEVPLUG_OPSET_VERSION 2

/* Op ids, as frozen in ops.def. Stored as int32_t in structs. */
typedef int32_t devplug_op_t;
enum {
  DEVPLUG_OP_INVALID = 0,
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary) DEVPLUG_OP_##name = (id),
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
  DEVPLUG_CATEGORY_random = 11,
  DEVPLUG_CATEGORY_composite = 12
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

/* ---- attribute structs of the composite ops (op set 2) -------------------------------- */

/* gelu, gelu_backward: which form. */
#define DEVPLUG_GELU_NONE 0 /* exact: x * Phi(x) */
#define DEVPLUG_GELU_TANH 1 /* PyTorch's approximate='tanh' */
typedef struct devplug_gelu_attrs_t {
  size_t struct_size;
  int32_t approximate;
} devplug_gelu_attrs_t;

/* softplus: log1p(exp(beta x)) / beta, or x where beta x > threshold. beta is finite and
 * non-zero. */
typedef struct devplug_softplus_attrs_t {
  size_t struct_size;
  double beta;
  double threshold;
} devplug_softplus_attrs_t;

/* clamp: the bounds whose flag is set; `.f` for floating dtypes, `.i` for integers. */
#define DEVPLUG_CLAMP_MIN 1u
#define DEVPLUG_CLAMP_MAX 2u
typedef struct devplug_clamp_attrs_t {
  size_t struct_size;
  uint32_t flags;
  devplug_scalar_t min;
  devplug_scalar_t max;
} devplug_clamp_attrs_t;

typedef struct devplug_leaky_relu_attrs_t {
  size_t struct_size;
  double negative_slope;
} devplug_leaky_relu_attrs_t;

/* layer_norm, rms_norm and their backward: the last `normalized_rank` dims (in [0, rank])
 * are normalized; `eps` (finite, >= 0) is added to the variance or mean square. */
typedef struct devplug_norm_attrs_t {
  size_t struct_size;
  int32_t normalized_rank;
  double eps;
} devplug_norm_attrs_t;

/* batch_norm, batch_norm_training, batch_norm_backward. */
typedef struct devplug_batch_norm_attrs_t {
  size_t struct_size;
  double eps;
  double momentum; /* running = (1 - momentum) running + momentum statistic */
} devplug_batch_norm_attrs_t;

/* scaled_dot_product_attention and its backward. */
#define DEVPLUG_SDPA_CAUSAL 1u /* key j takes part for query i when j <= i (no mask then) */
#define DEVPLUG_SDPA_SCALE 2u  /* use `scale`; otherwise 1 / sqrt(E) */
typedef struct devplug_sdpa_attrs_t {
  size_t struct_size;
  uint32_t flags;
  double scale;
} devplug_sdpa_attrs_t;

/* conv2d and its backward: per spatial dim (height, width). */
typedef struct devplug_conv2d_attrs_t {
  size_t struct_size;
  int64_t stride[2];   /* >= 1 */
  int64_t padding[2];  /* >= 0, zeros */
  int64_t dilation[2]; /* >= 1 */
  int64_t groups;      /* >= 1, divides C and O */
} devplug_conv2d_attrs_t;

/* avg_pool2d, max_pool2d and their backward: per spatial dim (height, width). */
#define DEVPLUG_POOL_CEIL_MODE 1u         /* output size rounds up, as PyTorch's ceil_mode */
#define DEVPLUG_POOL_COUNT_INCLUDE_PAD 2u /* avg: padding counts in the divisor */
typedef struct devplug_pool2d_attrs_t {
  size_t struct_size;
  int64_t kernel[2];   /* >= 1 */
  int64_t stride[2];   /* >= 1 */
  int64_t padding[2];  /* >= 0 and at most half the dilated window */
  int64_t dilation[2]; /* >= 1; 1 for avg_pool2d */
  uint32_t flags;
  int64_t divisor_override; /* avg: > 0 replaces the divisor; 0 for none */
} devplug_pool2d_attrs_t;

/* embedding and embedding_backward. */
#define DEVPLUG_EMBEDDING_SCALE_GRAD_BY_FREQ 1u
typedef struct devplug_embedding_attrs_t {
  size_t struct_size;
  int64_t padding_idx; /* the row whose gradient stays 0; negative for none */
  uint32_t flags;
} devplug_embedding_attrs_t;

/* Losses and their backward. `ignore_index` is read by nll_loss and cross_entropy,
 * `label_smoothing` (in [0, 1]; 0 for nll_loss) by cross_entropy. */
#define DEVPLUG_REDUCTION_NONE 0
#define DEVPLUG_REDUCTION_MEAN 1
#define DEVPLUG_REDUCTION_SUM 2
typedef struct devplug_loss_attrs_t {
  size_t struct_size;
  int32_t reduction;
  int64_t ignore_index;
  double label_smoothing;
} devplug_loss_attrs_t;

/* dropout: element k is kept when element k of philox_uniform (float32, `seed`, `offset`)
 * is >= `p` rounded to float32; `p` in [0, 1]. */
typedef struct devplug_dropout_attrs_t {
  size_t struct_size;
  double p;
  uint64_t seed;
  uint64_t offset;
} devplug_dropout_attrs_t;

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
  /* Op set 2, composite ops only (NULL and 0 for prims): */
  const char* signature;     /* "input, weight? -> out, rstd:acc" (ops.def) */
  uint32_t optional_inputs;  /* bit k: input k may be NULL */
  uint32_t optional_outputs; /* bit k: output k may be NULL */
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
#define DEVPLUG_ATTRS_SIZE_gelu sizeof(devplug_gelu_attrs_t)
#define DEVPLUG_ATTRS_SIZE_softplus sizeof(devplug_softplus_attrs_t)
#define DEVPLUG_ATTRS_SIZE_clamp sizeof(devplug_clamp_attrs_t)
#define DEVPLUG_ATTRS_SIZE_leaky_relu sizeof(devplug_leaky_relu_attrs_t)
#define DEVPLUG_ATTRS_SIZE_norm sizeof(devplug_norm_attrs_t)
#define DEVPLUG_ATTRS_SIZE_batch_norm sizeof(devplug_batch_norm_attrs_t)
#define DEVPLUG_ATTRS_SIZE_sdpa sizeof(devplug_sdpa_attrs_t)
#define DEVPLUG_ATTRS_SIZE_conv2d sizeof(devplug_conv2d_attrs_t)
#define DEVPLUG_ATTRS_SIZE_pool2d sizeof(devplug_pool2d_attrs_t)
#define DEVPLUG_ATTRS_SIZE_embedding sizeof(devplug_embedding_attrs_t)
#define DEVPLUG_ATTRS_SIZE_loss sizeof(devplug_loss_attrs_t)
#define DEVPLUG_ATTRS_SIZE_dropout sizeof(devplug_dropout_attrs_t)
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary) \
  {id,                                                                              \
   #name,                                                                           \
   DEVPLUG_CATEGORY_##category,                                                     \
   n_in,                                                                            \
   n_out,                                                                           \
   DEVPLUG_ATTRS_SIZE_##attrs,                                                      \
   DEVPLUG_RESULT_##result,                                                         \
   dtypes,                                                                          \
   summary,                                                                         \
   (const char*)0,                                                                  \
   0u,                                                                              \
   0u},
#define DEVPLUG_COMPOSITE(id, name, n_in, n_out, optional_in, optional_out, attrs, result, dtypes, \
                          signature, summary)                                                      \
  {id,                                                                                             \
   #name,                                                                                          \
   DEVPLUG_CATEGORY_composite,                                                                     \
   n_in,                                                                                           \
   n_out,                                                                                          \
   DEVPLUG_ATTRS_SIZE_##attrs,                                                                     \
   DEVPLUG_RESULT_##result,                                                                        \
   dtypes,                                                                                         \
   summary,                                                                                        \
   signature,                                                                                      \
   optional_in,                                                                                    \
   optional_out},
#include "devplug/ops.def"
  };
  size_t i;
  /* Ids are dense from 1 (op sets 1 and 2), so the row is usually at id - 1. */
  if (op >= 1 && (size_t)op <= sizeof(rows) / sizeof(rows[0]) && rows[op - 1].id == op) return &rows[op - 1];
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
      "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"};
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
