// SPDX-License-Identifier: Apache-2.0
/* The plugin ABI: the one symbol a plugin exports and the table of functions it hands out.
 *
 * A plugin is a shared library exporting `devplug_plugin_get_api`. Everything else is
 * reached through the returned table. Rules (docs/abi.md):
 *   - C11 only; nothing C++ crosses this boundary, and no call aborts the process.
 *   - Every struct starts with `size_t struct_size`. The table's struct_size tells the
 *     dispatcher which fields exist; structs the host passes in carry the host's size, and
 *     the plugin reads only fields inside it. Fields are only ever appended.
 *   - A call returns NULL on success or an error the caller destroys with `error_destroy`.
 *   - Out-parameters are prefixed `out_` and cleared on entry.
 *   - Whoever allocates frees: handles are destroyed through the table that made them. */
#ifndef DEVPLUG_PLUGIN_API_H_
#define DEVPLUG_PLUGIN_API_H_

#include <stdbool.h>

#include "devplug/errors.h"
#include "devplug/ops.h"
#include "devplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device capability bits in devplug_device_properties_t.capabilities. */
#define DEVPLUG_DEVICE_FP64 1u           /* native float64 arithmetic */
#define DEVPLUG_DEVICE_FP16 2u           /* native float16 arithmetic (storage is always there) */
#define DEVPLUG_DEVICE_BF16 4u           /* native bfloat16 arithmetic */
#define DEVPLUG_DEVICE_UNIFIED_MEMORY 8u /* device memory is host memory (CPU devices) */

/* What a plugin says about one device. Filled by `device_get_properties`, which writes
 * only the fields inside the caller's struct_size. Strings are NUL-terminated and cut to
 * fit. */
typedef struct devplug_device_properties_t {
  size_t struct_size;
  char name[256];
  char vendor[128];
  char driver_version[128];
  uint64_t memory_bytes; /* total device memory; 0 when unknown */
  int32_t compute_units; /* SMs, CUs, EUs or cores; 0 when unknown */
  uint32_t capabilities; /* DEVPLUG_DEVICE_* bits */
  /* ABI 1.1: the dtypes this device runs (its per-device claim), or 0 for every dtype.
   * The device runs a declared kernel for a call only when every tensor of the call has a
   * dtype in this mask; other calls fall back (or are refused in strict mode) as if
   * undeclared. A 1.0 plugin does not write it and its devices claim every dtype. */
  devplug_dtype_mask_t dtypes;
} devplug_device_properties_t;

/* The smallest struct_size `device_get_properties` accepts: the struct of ABI 1.0. */
#define DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE DEVPLUG_SIZE_THROUGH(devplug_device_properties_t, capabilities)

/* Kernel flags in devplug_kernel_t.flags. */
/* The kernel needs every input dense and row-major (strides of a contiguous tensor, no
 * zero, negative or overlapping strides); the dispatcher materializes other inputs first
 * with the plugin's own copy_strided. */
#define DEVPLUG_KERNEL_DENSE_INPUTS 1u
/* The kernel needs the outputs dense and row-major. */
#define DEVPLUG_KERNEL_DENSE_OUTPUTS 2u

/* One op call as a kernel receives it. The dispatcher has checked arity, dtypes, shapes,
 * bounds and aliasing against ops.def before the call. `inputs` and `outputs` are arrays of
 * pointers (not of structs) so that the tensor struct can grow. `attrs` points at the op's
 * attribute struct (ops.h) or is NULL for ops without attributes. Everything is borrowed
 * for the duration of the call only: a kernel that works asynchronously copies what it
 * needs. */
typedef struct devplug_op_call_t {
  size_t struct_size;
  devplug_op_t op;
  const devplug_tensor_desc_t* const* inputs;
  size_t n_inputs;
  const devplug_tensor_desc_t* const* outputs;
  size_t n_outputs;
  const void* attrs;
} devplug_op_call_t;

/* The smallest call struct a kernel accepts: the struct of ABI 1.0. */
#define DEVPLUG_OP_CALL_MIN_SIZE DEVPLUG_SIZE_THROUGH(devplug_op_call_t, attrs)

/* GENERATED BEGIN kernel_fn: tools/abi_spec/gen_abi.py from plugin_api.def */
/* Enqueues `call` on `stream`. Shapes, bounds, aliasing and devices are the dispatcher's to check
 * before the call; a kernel answers UNIMPLEMENTED for a case it does not cover (the dispatcher may
 * then fall back). Every in-tree kernel starts with the SDK's prologue, sdk::run_kernel
 * (sdk/kernel.hpp), which runs every check below.
 * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `call`, `call` with a struct_size
 * below DEVPLUG_OP_CALL_MIN_SIZE, an op id outside the op set, an arity other than ops.def's, a
 * NULL (not optional) or short tensor, an unknown dtype, a rank outside [0, 8], short attributes, a
 * dispatch dtype ops.def does not allow for the op or a tensor on another device than `stream`;
 * UNIMPLEMENTED for a tensor of a dtype the device does not claim (device_get_claims). */
typedef devplug_error_t* (*devplug_kernel_fn)(devplug_stream_handle_t* stream, const devplug_op_call_t* call);
/* GENERATED END kernel_fn */

/* A device's hook for declining single calls (devplug_device_claims_t.supports), in the manner
 * of ggml's supports_op: shape- or attribute-level limits a dtype mask cannot say. Called by
 * the dispatcher before a kernel of the device runs a validated call, from any thread; returns
 * true when the device runs `call`, false to have it fall back. Must not fail, block or keep
 * `call` (it is borrowed for the call only). */
typedef bool (*devplug_supports_fn)(devplug_device_handle_t* device, const devplug_op_call_t* call);

/* What one device runs (device_get_claims, ABI 1.2): one struct per device, the single place
 * a plugin states it. */
typedef struct devplug_device_claims_t {
  size_t struct_size;
  /* The dtypes the device runs, explicitly (DEVPLUG_DTYPES_ALL for every dtype; 0 is no
   * dtype). The FP64, FP16 and BF16 capability bits agree with it: FP64 exactly when float64
   * is claimed, FP16 and BF16 only when float16 and bfloat16 are (conformance checks both). */
  devplug_dtype_mask_t dtypes;
  /* Optional (NULL: every call of a declared kernel with claimed dtypes runs). */
  devplug_supports_fn supports;
} devplug_device_claims_t;

/* The smallest struct_size `device_get_claims` accepts: the struct of ABI 1.2. */
#define DEVPLUG_DEVICE_CLAIMS_MIN_SIZE DEVPLUG_SIZE_THROUGH(devplug_device_claims_t, supports)

/* One row of a plugin's kernel table: `fn` implements `op` for every dispatch dtype in
 * `dtypes` (see the `result` column of ops.def for which tensor's dtype that is). */
typedef struct devplug_kernel_t {
  size_t struct_size;
  devplug_op_t op;
  devplug_dtype_mask_t dtypes;
  uint32_t flags; /* DEVPLUG_KERNEL_* */
  devplug_kernel_fn fn;
} devplug_kernel_t;

/* The head of every extension record (ABI 1.2): an optional capability a plugin offers
 * without growing the table, in the manner of PJRT's extension chain. `type` is a
 * DEVPLUG_EXTENSION_* id from plugin_api.def's registry (frozen forever); `struct_size` is the
 * size of the whole record as the plugin built it, so a record grows by appending; `next` is
 * the next record or NULL. A host finds a record by its type (devplug_extension_find) and
 * skips types it does not know. */
typedef struct devplug_extension_t {
  size_t struct_size;
  uint32_t type;
  const struct devplug_extension_t* next;
} devplug_extension_t;

/* Plugin flags in devplug_plugin_api_t.flags. */
/* The plugin asks the dispatcher's caching allocator to serve its buffers: freed buffers
 * are kept and reused by size instead of reaching `buffer_release` at once. */
#define DEVPLUG_PLUGIN_CACHING_ALLOCATOR 1u

/* What the host tells a plugin when it initializes it. */
typedef struct devplug_plugin_init_args_t {
  size_t struct_size;
  uint32_t host_abi_major;
  uint32_t host_abi_minor;
} devplug_plugin_init_args_t;

/* The smallest struct_size `plugin_initialize` accepts. */
#define DEVPLUG_PLUGIN_INIT_ARGS_MIN_SIZE DEVPLUG_SIZE_THROUGH(devplug_plugin_init_args_t, host_abi_minor)

/* The table a plugin hands out. Static data owned by the plugin, valid until it is
 * unloaded. Everything up to `kernels` is required in ABI 1.0; later minors append. */
typedef struct devplug_plugin_api_t {
  size_t struct_size;
  uint32_t abi_major; /* DEVPLUG_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor;
  const char* plugin_name;    /* short and stable: "reference", "opencl", "cuda" */
  const char* plugin_version; /* the plugin's own version, free form */
  uint32_t opset_version;     /* DEVPLUG_OPSET_VERSION the plugin was built with */
  uint32_t flags;             /* DEVPLUG_PLUGIN_* */

  /* The error contract. Every entry below lists its failures and their codes; a check
   * listed earlier wins when several apply. In every entry:
   *   - a NULL handle or NULL required pointer is INVALID_ARGUMENT;
   *   - a handle already destroyed, or made by another plugin, is INVALID_ARGUMENT where the
   *     plugin can tell (best effort: it may not always be able to);
   *   - out-parameters are cleared on entry, so they are NULL/0 after any failure;
   *   - a failing native call is the code that fits it (RESOURCE_EXHAUSTED for memory,
   *     UNAVAILABLE for a lost device, INTERNAL otherwise) with the native code set;
   *   - nothing aborts the process. The SDK's make_plugin_api (sdk/plugin.hpp) implements
   *     every check written here, and the conformance ABI suite asserts each code. */

  /* GENERATED BEGIN api: tools/abi_spec/gen_abi.py from plugin_api.def */
  /* ---- errors ---- */
  /* Creates an error of this plugin's making (used by the SDK helpers and by hosts that need to
   * hand an error back). Never fails: returns a static out-of-memory error when it cannot allocate,
   * which error_destroy ignores. */
  devplug_error_t* (*error_create)(devplug_code_t code, int64_t native_code, const char* message);
  /* Destroys an error this plugin returned. NULL is ignored. */
  void (*error_destroy)(devplug_error_t* error);

  /* ---- lifecycle ---- */
  /* Prepares the plugin. Called once after loading, before any call that takes a handle (error_*,
   * device_count, device_get_properties and the kernel table work before it too). A plugin that
   * finds no driver or device still succeeds and reports zero devices.
   * Errors, in this order: INVALID_ARGUMENT for NULL `args` or `args` with a struct_size below
   * DEVPLUG_PLUGIN_INIT_ARGS_MIN_SIZE; FAILED_PRECONDITION for `args->host_abi_major` other than
   * the plugin's DEVPLUG_ABI_MAJOR. */
  devplug_error_t* (*plugin_initialize)(const devplug_plugin_init_args_t* args);
  /* Releases what plugin_initialize took. Every handle must be destroyed before. Cannot fail. */
  void (*plugin_shutdown)(void);

  /* ---- devices ---- */
  /* Counts the devices. When there are none, `*out_note` gets a static string saying why
   * ("libOpenCL.so.1 not found", "cudaGetDeviceCount: cudaErrorInsufficientDriver (35)"), else
   * NULL. No driver is not an error.
   * Errors: INVALID_ARGUMENT for NULL `out_count`. */
  devplug_error_t* (*device_count)(int32_t* out_count, const char** out_note);
  /* Describes device `index` without opening it, writing only the fields inside
   * `out_properties->struct_size` (struct_size itself is left as the caller set it).
   * Errors, in this order: INVALID_ARGUMENT for NULL `out_properties` or `out_properties` with a
   * struct_size below DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE; OUT_OF_RANGE for `index` outside [0,
   * device count). */
  devplug_error_t* (*device_get_properties)(int32_t index, devplug_device_properties_t* out_properties);
  /* Opens device `index`; the caller closes it with device_close after destroying every stream,
   * event and buffer made on it.
   * Errors, in this order: INVALID_ARGUMENT for NULL `out_device`; OUT_OF_RANGE for `index` outside
   * [0, device count). */
  devplug_error_t* (*device_open)(int32_t index, devplug_device_handle_t** out_device);
  /* Closes a device.
   * Errors: INVALID_ARGUMENT for NULL `device`. */
  devplug_error_t* (*device_close)(devplug_device_handle_t* device);

  /* ---- buffers ---- */
  /* Allocates `size_bytes` of device memory. Contents are undefined. The caller releases it with
   * buffer_release. Thread-safe.
   * Errors, in this order: INVALID_ARGUMENT for NULL `device`, NULL `out_buffer` or `size_bytes` 0;
   * RESOURCE_EXHAUSTED for more than the device can hold (`size_bytes`; the message gives the
   * sizes). */
  devplug_error_t* (*buffer_allocate)(devplug_device_handle_t* device, uint64_t size_bytes,
                                      devplug_buffer_handle_t** out_buffer);
  /* Releases a buffer once work already enqueued on it has finished.
   * Errors: INVALID_ARGUMENT for NULL `buffer`. */
  devplug_error_t* (*buffer_release)(devplug_buffer_handle_t* buffer);
  /* The buffer's size in bytes, as allocated.
   * Errors, in this order: INVALID_ARGUMENT for NULL `buffer` or NULL `out_size_bytes`. */
  devplug_error_t* (*buffer_get_size)(devplug_buffer_handle_t* buffer, uint64_t* out_size_bytes);
  /* Enqueues a copy of `size_bytes` from host memory `src` to `dst` at `dst_offset`. `src` must
   * stay valid and unchanged until the stream has passed the copy.
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `dst` or `dst` of another
   * device than `stream`; OUT_OF_RANGE for [dst_offset, dst_offset + size_bytes) not inside `dst`;
   * `size_bytes` 0: success, and the checks after it are skipped; INVALID_ARGUMENT for NULL `src`. */
  devplug_error_t* (*buffer_copy_from_host)(devplug_stream_handle_t* stream, const void* src,
                                            devplug_buffer_handle_t* dst, uint64_t dst_offset,
                                            uint64_t size_bytes);
  /* Enqueues a copy of `size_bytes` from `src` at `src_offset` to host memory `dst`; `dst` holds
   * the data once the stream has passed the copy (stream_synchronize).
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `src` or `src` of another
   * device than `stream`; OUT_OF_RANGE for [src_offset, src_offset + size_bytes) not inside `src`;
   * `size_bytes` 0: success, and the checks after it are skipped; INVALID_ARGUMENT for NULL `dst`. */
  devplug_error_t* (*buffer_copy_to_host)(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                          uint64_t src_offset, void* dst, uint64_t size_bytes);
  /* Enqueues a copy between two buffers of the same device.
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `src`, NULL `dst`, `src` of
   * another device than `stream` or `dst` of another device than `stream`; OUT_OF_RANGE for
   * [src_offset, src_offset + size_bytes) not inside `src` or [dst_offset, dst_offset + size_bytes)
   * not inside `dst`; `size_bytes` 0: success, and the checks after it are skipped;
   * INVALID_ARGUMENT for `src` and `dst` one buffer with overlapping ranges. */
  devplug_error_t* (*buffer_copy)(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                  uint64_t src_offset, devplug_buffer_handle_t* dst, uint64_t dst_offset,
                                  uint64_t size_bytes);

  /* ---- streams: in-order queues of work ---- */
  /* Creates a stream on `device`.
   * Errors, in this order: INVALID_ARGUMENT for NULL `device` or NULL `out_stream`. */
  devplug_error_t* (*stream_create)(devplug_device_handle_t* device, devplug_stream_handle_t** out_stream);
  /* Waits for the stream's work, then destroys it. An error of the stream's asynchronous work is
   * returned (the stream is destroyed anyway).
   * Errors: INVALID_ARGUMENT for NULL `stream`. */
  devplug_error_t* (*stream_destroy)(devplug_stream_handle_t* stream);
  /* Blocks until every piece of work enqueued so far has finished. Errors raised by asynchronous
   * work surface here.
   * Errors: INVALID_ARGUMENT for NULL `stream`. */
  devplug_error_t* (*stream_synchronize)(devplug_stream_handle_t* stream);

  /* ---- events: points in a stream that other streams and the host can wait for ---- */
  /* Creates an event on `device`.
   * Errors, in this order: INVALID_ARGUMENT for NULL `device` or NULL `out_event`. */
  devplug_error_t* (*event_create)(devplug_device_handle_t* device, devplug_event_handle_t** out_event);
  /* Destroys an event.
   * Errors: INVALID_ARGUMENT for NULL `event`. */
  devplug_error_t* (*event_destroy)(devplug_event_handle_t* event);
  /* Marks the current end of `stream`; the event completes when the work before it does.
   * Errors, in this order: INVALID_ARGUMENT for NULL `event`, NULL `stream` or `event` of another
   * device than `stream`. */
  devplug_error_t* (*event_record)(devplug_event_handle_t* event, devplug_stream_handle_t* stream);
  /* Makes later work on `stream` wait for `event`, without blocking the host.
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `event` or `event` of another
   * device than `stream`. */
  devplug_error_t* (*stream_wait_event)(devplug_stream_handle_t* stream, devplug_event_handle_t* event);
  /* Blocks the host until `event` has completed. An event never recorded is complete.
   * Errors: INVALID_ARGUMENT for NULL `event`. */
  devplug_error_t* (*event_synchronize)(devplug_event_handle_t* event);

  /* ---- kernels: declared, readable without creating a device ---- */
  /* `kernel_count` pointers to kernel rows, each with its own struct_size. An (op, dtype) pair
   * appears in at most one row. */
  const devplug_kernel_t* const* kernels;
  /* The number of rows in `kernels`. */
  size_t kernel_count;

  /* ---- extensions (ABI 1.2) ---- */
  /* The first of the plugin's extensions, chained through `next`, or NULL for none. Static data,
   * valid until the plugin is unloaded. A host looks an extension up by its type
   * (devplug_extension_find) and ignores types it does not know. (ABI 1.2) */
  const devplug_extension_t* extensions;

  /* ---- claims (ABI 1.2) ---- */
  /* Says what device `index` runs, writing only the fields inside `out_claims->struct_size`: its
   * dtypes (an explicit mask, never 0) and an optional `supports` hook that may decline single
   * calls. The dispatcher runs a declared kernel on the device only for calls whose tensors all
   * have claimed dtypes and that the hook accepts; other calls fall back, counted (refused in
   * strict mode). Without this entry (a 1.0 or 1.1 plugin) the claims are
   * `devplug_device_properties_t.dtypes`, where 0 means every dtype. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `out_claims` or `out_claims` with a
   * struct_size below DEVPLUG_DEVICE_CLAIMS_MIN_SIZE; OUT_OF_RANGE for `index` outside [0, device
   * count). */
  devplug_error_t* (*device_get_claims)(int32_t index, devplug_device_claims_t* out_claims);
  /* GENERATED END api */
} devplug_plugin_api_t;

/* The smallest table a 1.x dispatcher accepts: everything through `kernel_count`. */
#define DEVPLUG_PLUGIN_API_MIN_SIZE DEVPLUG_SIZE_THROUGH(devplug_plugin_api_t, kernel_count)

/* ---- the data of the fused_programs extension (ABI 1.2) -----------------------------------
 * A fused program is a straight-line (SSA) list of elementwise prims that a plugin may compile
 * into one kernel. Its values are numbered: 0 .. n_inputs - 1 are the program's input tensors,
 * n_inputs + k is the result of node k. A node reads only values numbered below its own, so a
 * program has no cycle. Each node's result is rounded to the node's dtype exactly as the
 * unfused op would round it: a plugin's fused result equals its op-by-op result bit for bit for
 * deterministic elementwise ops (a reduction tail within the op's tolerance). */
typedef uint32_t devplug_fused_value_t;

/* One node. `op` is an op of ops.def of category unary, binary, compare or ternary, or
 * convert_element_type (category data), or, in the reduction tail, sum, amax, amin, var
 * (category reduce) or mean. `args` holds the op's n_in operands in ops.def's order (the rest
 * are ignored); `attrs` the op's attribute struct as ops.h declares it (struct_size set), NULL
 * for an op without attributes. `dtype` is the dtype of the node's result: ops.def's result
 * rule applied to the operands' dtypes (bool for a compare), or the target of a convert. */
typedef struct devplug_fused_node_t {
  size_t struct_size;
  devplug_op_t op;
  devplug_dtype_t dtype;
  devplug_fused_value_t args[3];
  const void* attrs;
} devplug_fused_node_t;

/* The smallest node struct a plugin accepts. */
#define DEVPLUG_FUSED_NODE_MIN_SIZE DEVPLUG_SIZE_THROUGH(devplug_fused_node_t, attrs)

/* A program. Inputs are described only by dtype here: shapes and strides come with the
 * tensors at each launch, all broadcast by the host (stride-0 views) to one shape, the
 * program's iteration space. The reduction tail is a run of reduce nodes at the end of
 * `nodes`, all with the same `dims_mask` (devplug_reduce_attrs_t), which must name trailing
 * dims; a tail node reads only non-tail values, and its output keeps the rank with the
 * reduced dims 1 (as the unfused op). `outputs` lists the values the launch writes, in the
 * order of its output tensors: inputs are not outputs, and no value is listed twice. */
typedef struct devplug_fused_program_desc_t {
  size_t struct_size;
  uint32_t n_inputs;
  const devplug_dtype_t* input_dtypes;      /* n_inputs entries */
  uint32_t n_nodes;                         /* at least 1, at most DEVPLUG_FUSED_MAX_NODES */
  const devplug_fused_node_t* const* nodes; /* n_nodes pointers, in order (each node's
                                               struct_size says which fields it has) */
  uint32_t n_outputs;                       /* at least 1 */
  const devplug_fused_value_t* outputs;     /* n_outputs value numbers */
} devplug_fused_program_desc_t;

/* The smallest program struct a plugin accepts, and the limits of a program. */
#define DEVPLUG_FUSED_PROGRAM_DESC_MIN_SIZE DEVPLUG_SIZE_THROUGH(devplug_fused_program_desc_t, outputs)
#define DEVPLUG_FUSED_MAX_INPUTS 32u
#define DEVPLUG_FUSED_MAX_NODES 256u
#define DEVPLUG_FUSED_MAX_OUTPUTS 16u

/* A compiled program of one device (fused_program_create). */
typedef struct devplug_fused_program_handle_t devplug_fused_program_handle_t;

/* ---- the data of the collectives extension (ABI 1.2) --------------------------------------
 * A communicator joins one device in each of `world_size` processes (or threads), each its
 * `rank`. Rank 0 makes a unique id (comm_unique_id) and the host hands its bytes to every rank
 * out of band (PyTorch's c10d store); every rank then creates its communicator from it. The
 * collectives are enqueued on a stream like kernels; every rank calls the same collectives
 * in the same order with matching tensors (same dtype, and the sizes each collective gives). */
#define DEVPLUG_COMM_UNIQUE_ID_BYTES 128u

typedef struct devplug_comm_unique_id_t {
  uint8_t bytes[DEVPLUG_COMM_UNIQUE_ID_BYTES];
} devplug_comm_unique_id_t;

/* One rank's communicator (comm_create). */
typedef struct devplug_comm_handle_t devplug_comm_handle_t;

/* The reductions of all_reduce and reduce_scatter (the values are frozen). AVG divides the
 * sum by world_size (integers: truncating); the bitwise ones are for integral and bool
 * tensors only. */
typedef enum devplug_reduce_op_t {
  DEVPLUG_REDUCE_SUM = 1,
  DEVPLUG_REDUCE_PRODUCT = 2,
  DEVPLUG_REDUCE_MIN = 3,
  DEVPLUG_REDUCE_MAX = 4,
  DEVPLUG_REDUCE_AVG = 5,
  DEVPLUG_REDUCE_BAND = 6,
  DEVPLUG_REDUCE_BOR = 7,
  DEVPLUG_REDUCE_BXOR = 8
} devplug_reduce_op_t;

/* One past the largest devplug_reduce_op_t. */
#define DEVPLUG_REDUCE_OP_END 9u

/* GENERATED BEGIN extensions: tools/abi_spec/gen_abi.py from plugin_api.def */
#define DEVPLUG_EXTENSION_EVENT_TIMESTAMPS 1u
#define DEVPLUG_EXTENSION_PINNED_HOST_MEMORY 2u
#define DEVPLUG_EXTENSION_HOST_ADDRESS 3u
#define DEVPLUG_EXTENSION_FUSED_PROGRAMS 4u
#define DEVPLUG_EXTENSION_COLLECTIVES 5u
#define DEVPLUG_EXTENSION_HOST_MEMORY_IMPORT 6u

/* Device-side timestamps on events: the time between two recorded events as the device measured it
 * (OpenCL profiling info, Level Zero kernel timestamps, CUDA events). Extension type
 * DEVPLUG_EXTENSION_EVENT_TIMESTAMPS (ABI 1.2). */
typedef struct devplug_ext_event_timestamps_t {
  devplug_extension_t base; /* type DEVPLUG_EXTENSION_EVENT_TIMESTAMPS */
  /* Waits until `start` and `end` have completed, then gives the device time between them in
   * nanoseconds (negative when `end` was reached first). Both must have been recorded. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `start`, NULL `end`, NULL `out_ns` or `end` of
   * another device than `start`; FAILED_PRECONDITION for `start` never recorded or `end` never
   * recorded. */
  devplug_error_t* (*event_elapsed_ns)(devplug_event_handle_t* start, devplug_event_handle_t* end,
                                       int64_t* out_ns);
} devplug_ext_event_timestamps_t;

/* Page-locked host memory that the device copies to and from directly, so that a copy from it runs
 * while the host goes on (CUDA and HIP host allocations, an OpenCL buffer allocated host-visible
 * and kept mapped, Level Zero host allocations). Extension type
 * DEVPLUG_EXTENSION_PINNED_HOST_MEMORY (ABI 1.2). */
typedef struct devplug_ext_pinned_host_memory_t {
  devplug_extension_t base; /* type DEVPLUG_EXTENSION_PINNED_HOST_MEMORY */
  /* Allocates `size_bytes` of page-locked host memory for copies to and from `device`'s buffers
   * (buffer_copy_from_host and buffer_copy_to_host read and write it without a staging copy),
   * aligned to at least 64 bytes; the host reads and writes it as ordinary memory. The caller
   * releases it with host_release. Thread-safe. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `device`, NULL `out_ptr` or `size_bytes` 0. */
  devplug_error_t* (*host_allocate)(devplug_device_handle_t* device, uint64_t size_bytes, void** out_ptr);
  /* Releases memory that host_allocate gave for `device`, once the copies already enqueued on it
   * have finished. INVALID_ARGUMENT for a pointer host_allocate did not give. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `device` or NULL `ptr`. */
  devplug_error_t* (*host_release)(devplug_device_handle_t* device, void* ptr);
} devplug_ext_pinned_host_memory_t;

/* The host address of a buffer of a device whose memory is host memory
 * (DEVPLUG_DEVICE_UNIFIED_MEMORY), so that a host shares it without a copy (DLPack export to the
 * CPU, numpy). Extension type DEVPLUG_EXTENSION_HOST_ADDRESS (ABI 1.2). */
typedef struct devplug_ext_host_address_t {
  devplug_extension_t base; /* type DEVPLUG_EXTENSION_HOST_ADDRESS */
  /* The host address of `buffer`'s first byte, valid while the buffer lives; the host may read and
   * write through it once the device's work on the buffer has finished. FAILED_PRECONDITION for a
   * buffer of a device whose memory the host cannot address. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `buffer` or NULL `out_address`. */
  devplug_error_t* (*buffer_host_address)(devplug_buffer_handle_t* buffer, void** out_address);
} devplug_ext_host_address_t;

/* Fused elementwise programs: a chain of elementwise prims over N broadcast, strided inputs with M
 * outputs and an optional reduction tail, compiled into one kernel (devplug_fused_program_desc_t).
 * Each intermediate is rounded to its node's dtype as the unfused op rounds it, so a fused result
 * equals the plugin's op-by-op result; a host runs the same program op by op where a plugin lacks
 * the extension. Extension type DEVPLUG_EXTENSION_FUSED_PROGRAMS (ABI 1.2). */
typedef struct devplug_ext_fused_programs_t {
  devplug_extension_t base; /* type DEVPLUG_EXTENSION_FUSED_PROGRAMS */
  /* Compiles `desc` for `device` (the plugin may cache compiled programs by their content; `desc`
   * and what it points to are read during the call only). The caller destroys the program with
   * fused_program_destroy. Besides the rows below, INVALID_ARGUMENT for a dtype the device does not
   * claim, and RESOURCE_EXHAUSTED or UNIMPLEMENTED where the plugin cannot build the program (the
   * host then runs it op by op). Thread-safe. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `device`, NULL `desc`, NULL `out_program`,
   * `desc` with a struct_size below DEVPLUG_FUSED_PROGRAM_DESC_MIN_SIZE or `desc` not a well-formed
   * program (counts, ops, arity, dtypes, attributes, operands defined before use, the reduction
   * tail, outputs). */
  devplug_error_t* (*fused_program_create)(devplug_device_handle_t* device,
                                           const devplug_fused_program_desc_t* desc,
                                           devplug_fused_program_handle_t** out_program);
  /* Enqueues `program` on `stream` (of the program's device) over `inputs` and `outputs`, in the
   * program's order: every input of the program's shape (broadcast inputs as stride-0 views),
   * outputs of elementwise values of that shape and outputs of the reduction tail of it with the
   * reduced dims 1; any strides; outputs do not overlap each other or an input unless they are the
   * same tensor read element for element. Besides the rows below, INVALID_ARGUMENT for tensor
   * counts other than the program's or a tensor whose dtype or shape differs from what the program
   * gives it. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `program`, NULL `inputs` or
   * NULL `outputs`. */
  devplug_error_t* (*fused_program_launch)(devplug_stream_handle_t* stream,
                                           devplug_fused_program_handle_t* program,
                                           const devplug_tensor_desc_t* const* inputs, size_t n_inputs,
                                           const devplug_tensor_desc_t* const* outputs, size_t n_outputs);
  /* Destroys a program once the launches already enqueued with it have finished. (ABI 1.2)
   * Errors: INVALID_ARGUMENT for NULL `program`. */
  devplug_error_t* (*fused_program_destroy)(devplug_fused_program_handle_t* program);
} devplug_ext_fused_programs_t;

/* Device-native collectives (NCCL, RCCL, oneCCL and the like): a communicator made from a unique id
 * that the host exchanges between ranks, and all_reduce, all_gather, reduce_scatter, broadcast,
 * all_to_all, send and recv on a stream, so a host moves device tensors between ranks without
 * staging them through host memory. Every rank enqueues the same collectives in the same order.
 * Besides each entry's rows, an entry given tensors answers INVALID_ARGUMENT for a stream or tensor
 * of another device than the communicator's, a tensor reaching past its buffer, and dtypes or
 * element counts other than the entry names, and UNIMPLEMENTED for a dtype or reduction the
 * plugin's library does not carry, before anything is sent (the host then stages the tensors). A
 * peer that fails or never takes part fails this rank's stream work within the plugin's timeout
 * instead of waiting for ever. Extension type DEVPLUG_EXTENSION_COLLECTIVES (ABI 1.2). */
typedef struct devplug_ext_collectives_t {
  devplug_extension_t base; /* type DEVPLUG_EXTENSION_COLLECTIVES */
  /* Makes the id of a new communicator on `device`'s kind of device. Rank 0 calls it once and hands
   * the bytes to every rank. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `device` or NULL `out_id`. */
  devplug_error_t* (*comm_unique_id)(devplug_device_handle_t* device, devplug_comm_unique_id_t* out_id);
  /* Joins `device` to the communicator `id` names as `rank` of `world_size`; returns when every
   * rank has joined, or UNAVAILABLE when they have not joined within the plugin's timeout (the
   * message says which ranks are missing). The caller destroys it with comm_destroy. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `device`, NULL `id`, NULL `out_comm`,
   * `world_size` 0 or `rank` not below `world_size`. */
  devplug_error_t* (*comm_create)(devplug_device_handle_t* device, const devplug_comm_unique_id_t* id,
                                  uint32_t world_size, uint32_t rank, devplug_comm_handle_t** out_comm);
  /* Leaves and destroys a communicator once the collectives already enqueued on it have finished.
   * (ABI 1.2)
   * Errors: INVALID_ARGUMENT for NULL `comm`. */
  devplug_error_t* (*comm_destroy)(devplug_comm_handle_t* comm);
  /* Enqueues on `stream`: `recv` gets the reduction by `op` over the ranks of their `send` (both of
   * one dtype and element count; `recv` may be `send`). (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `comm`, NULL `send`, NULL
   * `recv`, `send` short, of an unknown dtype or rank, without a buffer or not contiguous, `recv`
   * short, of an unknown dtype or rank, without a buffer or not contiguous or `op` not a
   * devplug_reduce_op_t. */
  devplug_error_t* (*all_reduce)(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                 const devplug_tensor_desc_t* send, const devplug_tensor_desc_t* recv,
                                 uint32_t op);
  /* Enqueues on `stream`: `recv` (world_size times `send`'s elements) gets every rank's `send`, in
   * rank order. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `comm`, NULL `send`, NULL
   * `recv`, `send` short, of an unknown dtype or rank, without a buffer or not contiguous or `recv`
   * short, of an unknown dtype or rank, without a buffer or not contiguous. */
  devplug_error_t* (*all_gather)(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                 const devplug_tensor_desc_t* send, const devplug_tensor_desc_t* recv);
  /* Enqueues on `stream`: the reduction by `op` over the ranks of their `send` (world_size times
   * `recv`'s elements), of which rank r's `recv` gets the r-th part. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `comm`, NULL `send`, NULL
   * `recv`, `send` short, of an unknown dtype or rank, without a buffer or not contiguous, `recv`
   * short, of an unknown dtype or rank, without a buffer or not contiguous or `op` not a
   * devplug_reduce_op_t. */
  devplug_error_t* (*reduce_scatter)(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                     const devplug_tensor_desc_t* send, const devplug_tensor_desc_t* recv,
                                     uint32_t op);
  /* Enqueues on `stream`: every rank's `tensor` gets rank `root`'s. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `comm`, NULL `tensor` or
   * `tensor` short, of an unknown dtype or rank, without a buffer or not contiguous. */
  devplug_error_t* (*broadcast)(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                const devplug_tensor_desc_t* tensor, uint32_t root);
  /* Enqueues on `stream`: `send` and `recv` are world_size equal parts; rank r's `recv` part q gets
   * rank q's `send` part r. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `comm`, NULL `send`, NULL
   * `recv`, `send` short, of an unknown dtype or rank, without a buffer or not contiguous or `recv`
   * short, of an unknown dtype or rank, without a buffer or not contiguous. */
  devplug_error_t* (*all_to_all)(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                                 const devplug_tensor_desc_t* send, const devplug_tensor_desc_t* recv);
  /* Enqueues on `stream` the sending of `tensor` to rank `peer`, which receives it with recv; the
   * pair completes together. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `comm`, NULL `tensor` or
   * `tensor` short, of an unknown dtype or rank, without a buffer or not contiguous. */
  devplug_error_t* (*send)(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                           const devplug_tensor_desc_t* tensor, uint32_t peer);
  /* Enqueues on `stream` the receiving into `tensor` of what rank `peer` sends. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `stream`, NULL `comm`, NULL `tensor` or
   * `tensor` short, of an unknown dtype or rank, without a buffer or not contiguous. */
  devplug_error_t* (*recv)(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                           const devplug_tensor_desc_t* tensor, uint32_t peer);
} devplug_ext_collectives_t;

/* Buffers over host memory that the host owns, for a device whose memory is host memory
 * (DEVPLUG_DEVICE_UNIFIED_MEMORY): the device works in that memory without a copy, so memory that
 * processes share (POSIX shared memory) is device memory in each of them. Extension type
 * DEVPLUG_EXTENSION_HOST_MEMORY_IMPORT (ABI 1.2). */
typedef struct devplug_ext_host_memory_import_t {
  devplug_extension_t base; /* type DEVPLUG_EXTENSION_HOST_MEMORY_IMPORT */
  /* A buffer of `device` whose `size_bytes` bytes are the host memory at `host`, which the caller
   * keeps valid until buffer_release of the buffer has returned; buffer_release releases the buffer
   * and leaves the memory to the caller. The caller orders its own host reads and writes of the
   * memory with the device's work on the buffer. Besides the rows below, FAILED_PRECONDITION for a
   * device whose memory is not host memory. Thread-safe. (ABI 1.2)
   * Errors, in this order: INVALID_ARGUMENT for NULL `device`, NULL `host`, NULL `out_buffer`,
   * `size_bytes` 0 or `host` not aligned to 64 bytes. */
  devplug_error_t* (*buffer_import_host)(devplug_device_handle_t* device, void* host, uint64_t size_bytes,
                                         devplug_buffer_handle_t** out_buffer);
} devplug_ext_host_memory_import_t;

/* The name of extension type `type` as plugin_api.def spells it, or NULL for a type this header
 * does not know. */
static inline const char* devplug_extension_name(uint32_t type) {
  switch (type) {
    case DEVPLUG_EXTENSION_EVENT_TIMESTAMPS:
      return "event_timestamps";
    case DEVPLUG_EXTENSION_PINNED_HOST_MEMORY:
      return "pinned_host_memory";
    case DEVPLUG_EXTENSION_HOST_ADDRESS:
      return "host_address";
    case DEVPLUG_EXTENSION_FUSED_PROGRAMS:
      return "fused_programs";
    case DEVPLUG_EXTENSION_COLLECTIVES:
      return "collectives";
    case DEVPLUG_EXTENSION_HOST_MEMORY_IMPORT:
      return "host_memory_import";
    default:
      return NULL;
  }
}
/* GENERATED END extensions */

/* The longest extension chain a host follows: a longer one (or a cycle) is a plugin bug, and
 * devplug_extension_find stops there instead of looping. */
#define DEVPLUG_EXTENSION_CHAIN_MAX 64

/* Returns the extension record of `type` that `api` offers, or NULL when it offers none (a
 * table older than ABI 1.2, an empty chain, or no record of that type). Records shorter than
 * their head are skipped. The caller checks the record's struct_size before reading an entry
 * appended after the record's first version (DEVPLUG_HAS_FIELD). */
static inline const devplug_extension_t* devplug_extension_find(const devplug_plugin_api_t* api,
                                                                uint32_t type) {
  /* DEVPLUG_HAS_FIELD(api, devplug_plugin_api_t, extensions), spelled out (the field is a pointer). */
  if (api == NULL || api->struct_size < offsetof(devplug_plugin_api_t, extensions) + sizeof(void*))
    return NULL;
  const devplug_extension_t* e = api->extensions;
  for (int hops = 0; e != NULL && hops < DEVPLUG_EXTENSION_CHAIN_MAX; ++hops, e = e->next)
    if (e->struct_size >= sizeof(devplug_extension_t) && e->type == type) return e;
  return NULL;
}

/* The name of the one symbol a plugin exports. */
#define DEVPLUG_PLUGIN_ENTRY_SYMBOL "devplug_plugin_get_api"

/* Returns the plugin's table, or NULL if the plugin cannot serve this process at all.
 * Must not fail for lack of a device or driver (report zero devices instead). */
typedef const devplug_plugin_api_t* (*devplug_plugin_get_api_fn)(void);

#if defined(_WIN32)
#define DEVPLUG_PLUGIN_EXPORT __declspec(dllexport)
#else
#define DEVPLUG_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DEVPLUG_PLUGIN_API_H_ */
