// SPDX-License-Identifier: Apache-2.0
/* Plain data types shared by plugins and hosts: dtypes, the tensor descriptor, opaque
 * handles and the helpers that read versioned structs.
 *
 * C11. Every struct that crosses the ABI starts with `size_t struct_size`, set by whoever
 * fills the struct to `sizeof` of the struct as it knows it. Fields are only appended, so
 * a reader checks `DEVPLUG_HAS_FIELD` before touching a field newer than the ABI minor it
 * was built against. */
#ifndef DEVPLUG_TYPES_H_
#define DEVPLUG_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version of these headers. A major mismatch is refused at load time; minors are
 * compatible both ways (see docs/abi.md and docs/abi_changelog.md). */
#define DEVPLUG_ABI_MAJOR 1
#define DEVPLUG_ABI_MINOR 2

/* True when a struct of the caller's `struct_size` holds `field` of `type`. */
#define DEVPLUG_HAS_FIELD(ptr, type, field) \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

/* The size of `type` up to and including `field`: the smallest struct_size that holds it. */
#define DEVPLUG_SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type*)0)->field))

/* Element types. Values are ABI: never renumbered. Stored as int32_t in structs. */
typedef int32_t devplug_dtype_t;
enum {
  DEVPLUG_DTYPE_BOOL = 0,
  DEVPLUG_DTYPE_UINT8 = 1,
  DEVPLUG_DTYPE_INT8 = 2,
  DEVPLUG_DTYPE_INT16 = 3,
  DEVPLUG_DTYPE_INT32 = 4,
  DEVPLUG_DTYPE_INT64 = 5,
  DEVPLUG_DTYPE_FLOAT16 = 6,
  DEVPLUG_DTYPE_BFLOAT16 = 7,
  DEVPLUG_DTYPE_FLOAT32 = 8,
  DEVPLUG_DTYPE_FLOAT64 = 9,
  DEVPLUG_DTYPE_COUNT = 10
};

/* Sets of dtypes as bit masks (bit d is dtype d), used by the op table and kernel tables. */
typedef uint32_t devplug_dtype_mask_t;
#define DEVPLUG_DTYPE_BIT(d) ((devplug_dtype_mask_t)1u << (d))
#define DEVPLUG_DTYPES_NONE ((devplug_dtype_mask_t)0)
#define DEVPLUG_DTYPES_FLOAT                                                              \
  (DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT16) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_BFLOAT16) | \
   DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64))
#define DEVPLUG_DTYPES_SIGNED_INT                                                   \
  (DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT8) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT16) | \
   DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT64))
#define DEVPLUG_DTYPES_INT (DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_UINT8) | DEVPLUG_DTYPES_SIGNED_INT)
#define DEVPLUG_DTYPES_INTEGRAL (DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_BOOL) | DEVPLUG_DTYPES_INT)
#define DEVPLUG_DTYPES_NUMERIC (DEVPLUG_DTYPES_INT | DEVPLUG_DTYPES_FLOAT)
#define DEVPLUG_DTYPES_ALL (DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_BOOL) | DEVPLUG_DTYPES_NUMERIC)
#define DEVPLUG_DTYPES_INDEX_BITS \
  (DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT64))

/* Opaque handles owned by a plugin. Whoever creates one destroys it through the same
 * plugin's table. A buffer is never assumed to be a raw pointer. */
typedef struct devplug_device_handle_t devplug_device_handle_t;
typedef struct devplug_buffer_handle_t devplug_buffer_handle_t;
typedef struct devplug_stream_handle_t devplug_stream_handle_t;
typedef struct devplug_event_handle_t devplug_event_handle_t;

/* The highest rank a tensor descriptor holds. */
#define DEVPLUG_MAX_RANK 8

/* A tensor as a plugin sees it: a view of `buffer` starting `byte_offset` bytes in.
 *
 * Element (i0, ..., ir-1) lives at byte `byte_offset + sizeof(dtype) * sum(ik * strides[k])`.
 * Strides are in elements and may be zero (broadcast), negative (a flipped view) or overlap
 * (sliding windows) on inputs; the dispatcher guarantees every reachable element lies inside
 * the buffer and that an output never overlaps itself. Rank 0 is a scalar (one element);
 * any zero in `shape` makes the tensor empty. Entries past `rank` are ignored. */
typedef struct devplug_tensor_desc_t {
  size_t struct_size;
  devplug_buffer_handle_t* buffer;
  uint64_t byte_offset;
  devplug_dtype_t dtype;
  int32_t rank;
  int64_t shape[DEVPLUG_MAX_RANK];
  int64_t strides[DEVPLUG_MAX_RANK];
} devplug_tensor_desc_t;

/* A number for fill, pad and iota attributes. Kernels whose output dtype is floating read
 * `f`; kernels whose output is integral or bool read `i` (bool: non-zero is true). Callers
 * set both to the same value, which the dispatcher's helpers do. */
typedef struct devplug_scalar_t {
  double f;
  int64_t i;
} devplug_scalar_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DEVPLUG_TYPES_H_ */
