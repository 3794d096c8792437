// SPDX-License-Identifier: Apache-2.0
/* The host C API of libdevplug: what a framework links to find plugins, list devices,
 * make tensors and run ops.
 *
 * C11. Every fallible call returns NULL on success or a `devplug_error_t*` that the caller
 * destroys with `devplug_error_destroy`; bad input is answered with INVALID_ARGUMENT and a
 * message naming the argument, never a crash. Out-parameters are prefixed `out_` and
 * cleared on entry. Objects are owned by the context that made them unless said otherwise;
 * a context is thread-safe, and so are its devices; a stream is used by one thread at a
 * time.
 *
 * Each function's "Errors:" line lists its checks in the order they are made. A "bad"
 * handle there is one that is NULL or not a live object of its kind: a handle of another
 * kind is caught, and so are most uses after destruction (which stay undefined behaviour).
 * A call that reaches a plugin also passes on the plugin's own error, and any call may
 * answer RESOURCE_EXHAUSTED when host memory runs out.
 *
 * Work runs asynchronously: an error the device finds while running enqueued work (an
 * index value outside its dim, ops.def) comes back from the next call that waits for that
 * stream (devplug_stream_synchronize, devplug_device_synchronize, a copy to the host, a CPU
 * fallback's staging, devplug_stream_destroy), once; the stream stays usable.
 *
 * Plugins run inside the host's process, as in every runtime of this kind. A plugin that
 * crashes takes the process down, and one that hangs blocks the calling thread (the op
 * call, or the next wait on its stream) for good: libdevplug neither isolates plugins nor
 * times them out. What does isolate them is the tooling: devplug-conform runs each case in
 * a child process with a timeout, and `devplug-info --check` loads a plugin in a child
 * process that it ends after DEVPLUG_INFO_CHECK_TIMEOUT seconds (60). A host that must
 * survive a faulty plugin runs it in a process of its own. See docs/reliability.md.
 *
 * fork(): device drivers do not survive it. In a child forked after libdevplug initialized a
 * plugin, every call that takes a handle, and devplug_context_create, answers
 * FAILED_PRECONDITION (before its "Errors:" checks), and devplug_context_destroy and
 * devplug_tensor_release do nothing: the parent's objects are left to the parent. A child
 * that needs devices starts a new program (exec). */
#ifndef DEVPLUG_DEVPLUG_H_
#define DEVPLUG_DEVPLUG_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devplug/errors.h"
#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(DEVPLUG_BUILDING_LIBRARY)
#define DEVPLUG_API __declspec(dllexport)
#elif defined(_WIN32)
#define DEVPLUG_API __declspec(dllimport)
#else
#define DEVPLUG_API __attribute__((visibility("default")))
#endif

/* Host-side objects. Distinct from the plugin-side handles in types.h: a host device
 * knows its plugin, a host tensor owns (a share of) its storage. */
typedef struct devplug_context_t devplug_context_t;
typedef struct devplug_plugin_t devplug_plugin_t;
typedef struct devplug_device_t devplug_device_t;
typedef struct devplug_stream_t devplug_stream_t;
typedef struct devplug_event_t devplug_event_t;
typedef struct devplug_tensor_t devplug_tensor_t;
typedef struct devplug_graph_t devplug_graph_t;
typedef struct devplug_fused_program_t devplug_fused_program_t;
typedef struct devplug_comm_t devplug_comm_t;

/* ---- version and errors ------------------------------------------------------------ */

/* The library's version ("0.1.0"), a static string. Errors: none, it never fails. */
DEVPLUG_API const char* devplug_version_string(void);
/* The ABI the library speaks (DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR).
 * Errors: none, it never fails; a NULL out-pointer is skipped. */
DEVPLUG_API void devplug_abi_version(uint32_t* out_major, uint32_t* out_minor);

/* Destroys an error returned by this API. Errors: none; NULL is ignored. */
DEVPLUG_API void devplug_error_destroy(devplug_error_t* error);

/* ---- context: the registry of plugins and devices ----------------------------------- */

/* Context flags. */
/* Do not scan DEVPLUG_PLUGIN_PATH and the install's plugin folder at creation. */
#define DEVPLUG_CONTEXT_NO_DISCOVERY 1u
/* Fail instead of running an op on the CPU fallback (DEVPLUG_STRICT=1 sets it too). */
#define DEVPLUG_CONTEXT_STRICT 2u
/* Never use a CPU fallback and never load the reference plugin for one. */
#define DEVPLUG_CONTEXT_NO_FALLBACK 4u
/* Run every composite op through its decomposition into prims, even on a device with a
 * native kernel for it (DEVPLUG_DECOMPOSE=1 sets it too): for benchmarks and for checking
 * decompositions. */
#define DEVPLUG_CONTEXT_DECOMPOSE 8u

typedef struct devplug_context_options_t {
  size_t struct_size;
  uint32_t flags; /* DEVPLUG_CONTEXT_* */
} devplug_context_options_t;

/* Creates a context. `options` may be NULL (defaults: discovery on, strict from
 * DEVPLUG_STRICT). Discovery loads every plugin found in DEVPLUG_PLUGIN_PATH (files or
 * folders, ':'-separated, empty entries ignored, never the current directory) and in the
 * install's plugin folder (lib/devplug/plugins). A plugin that fails to load is recorded
 * (devplug_context_get_failure) and never fails the context. The caller destroys it with
 * devplug_context_destroy.
 * Errors: INVALID_ARGUMENT for NULL `out_context`, an `options->struct_size` below
 * DEVPLUG_SIZE_THROUGH(devplug_context_options_t, flags) or unknown bits in
 * `options->flags`. */
DEVPLUG_API devplug_error_t* devplug_context_create(const devplug_context_options_t* options,
                                                    devplug_context_t** out_context);
/* Destroys the context and everything it made (tensors, streams, events, graphs, fused
 * programs, communicators, devices), then unloads its plugins. Errors: none; NULL, or a
 * handle that is not a live context, is ignored. */
DEVPLUG_API void devplug_context_destroy(devplug_context_t* context);

/* Loads the plugin at `path` (a file) into the context. A path already loaded gives the
 * same plugin again. On failure the reason is returned (the loader's own message, the
 * missing symbol, both ABI versions, a struct_size too small) and also recorded as a
 * failure. `out_plugin` may be NULL.
 * Errors: INVALID_ARGUMENT for a bad `context`, NULL `path` or an empty `path`; NOT_FOUND
 * when nothing exists at `path`; FAILED_PRECONDITION when the file exists but is not a
 * loadable plugin (not a library, no entry symbol, another ABI major, a bad table, a
 * failing plugin_initialize). A path that failed before in this context fails again the
 * same way, without a new try. */
DEVPLUG_API devplug_error_t* devplug_context_load_plugin(devplug_context_t* context, const char* path,
                                                         devplug_plugin_t** out_plugin);

/* The number of loaded plugins. Errors: INVALID_ARGUMENT for NULL `out_count` or a bad
 * `context`. */
DEVPLUG_API devplug_error_t* devplug_context_plugin_count(devplug_context_t* context, size_t* out_count);
/* Plugin `index`, in load order. Errors: INVALID_ARGUMENT for NULL `out_plugin`, a bad
 * `context` or `index` outside [0, count) (INVALID_ARGUMENT, not OUT_OF_RANGE). */
DEVPLUG_API devplug_error_t* devplug_context_get_plugin(devplug_context_t* context, size_t index,
                                                        devplug_plugin_t** out_plugin);
/* Finds a loaded plugin by its name ("reference").
 * Errors: INVALID_ARGUMENT for NULL `out_plugin`, a bad `context` or NULL `name`; NOT_FOUND
 * when no loaded plugin has that name. */
DEVPLUG_API devplug_error_t* devplug_context_find_plugin(devplug_context_t* context, const char* name,
                                                         devplug_plugin_t** out_plugin);

/* Plugins that failed to load: their number. Errors: INVALID_ARGUMENT for NULL
 * `out_count` or a bad `context`. */
DEVPLUG_API devplug_error_t* devplug_context_failure_count(devplug_context_t* context, size_t* out_count);
/* Failure `index`: the path and the reason, owned by the context.
 * Errors: INVALID_ARGUMENT for a bad `context`, NULL `out_path` or `out_reason`, or `index`
 * outside [0, failure count). */
DEVPLUG_API devplug_error_t* devplug_context_get_failure(devplug_context_t* context, size_t index,
                                                         const char** out_path, const char** out_reason);

/* Every device of every loaded plugin, in load order: their number.
 * Errors: INVALID_ARGUMENT for NULL `out_count` or a bad `context`. */
DEVPLUG_API devplug_error_t* devplug_context_device_count(devplug_context_t* context, size_t* out_count);
/* Device `index` of that list. Errors: INVALID_ARGUMENT for NULL `out_device`, a bad
 * `context` or `index` outside [0, count) (INVALID_ARGUMENT, not OUT_OF_RANGE). */
DEVPLUG_API devplug_error_t* devplug_context_get_device(devplug_context_t* context, size_t index,
                                                        devplug_device_t** out_device);

/* Writes the DEVPLUG_TRACE file now with every op call traced so far (it is rewritten on each
 * call and once more when the context is destroyed), for a host whose context lives as long
 * as its process. Reading the device times waits for the work they time. `*out_written`
 * (optional) says whether a file was written: false when DEVPLUG_TRACE was unset when the
 * context was made. A file that cannot be written is reported on stderr.
 * Errors: INVALID_ARGUMENT for a bad `context`. */
DEVPLUG_API devplug_error_t* devplug_context_write_trace(devplug_context_t* context, bool* out_written);

/* How many op calls of `op` ran on the CPU fallback since the context was made (any op:
 * pass DEVPLUG_OP_INVALID for the total).
 * Errors: INVALID_ARGUMENT for NULL `out_count`, a bad `context` or an `op` that is
 * neither DEVPLUG_OP_INVALID nor an op of this op set. */
DEVPLUG_API devplug_error_t* devplug_context_fallback_count(devplug_context_t* context, devplug_op_t op,
                                                            uint64_t* out_count);

/* ---- plugins ------------------------------------------------------------------------- */

typedef struct devplug_plugin_info_t {
  size_t struct_size;
  const char* name; /* owned by the plugin record, valid while the context lives */
  const char* version;
  const char* path;
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t opset_version;
  int32_t device_count;
  const char* device_note; /* why there are no devices, or NULL */
} devplug_plugin_info_t;

/* Describes the plugin, writing only the fields inside `out_info->struct_size`.
 * Errors: INVALID_ARGUMENT for NULL `out_info`, a bad `plugin` or an
 * `out_info->struct_size` below sizeof(devplug_plugin_info_t). */
DEVPLUG_API devplug_error_t* devplug_plugin_get_info(devplug_plugin_t* plugin,
                                                     devplug_plugin_info_t* out_info);
/* Whether the plugin declares a kernel for (`op`, dispatch dtype `dtype`), and its
 * DEVPLUG_KERNEL_* flags. Reads the declared table only. For a composite op this says
 * whether a native kernel exists; without one the op still runs, through its
 * decomposition. `out_kernel_flags` may be NULL.
 * Errors: INVALID_ARGUMENT for a bad `plugin`, NULL `out_supported`, an `op` outside this
 * op set (DEVPLUG_OP_INVALID included) or an unknown `dtype`. */
DEVPLUG_API devplug_error_t* devplug_plugin_supports(devplug_plugin_t* plugin, devplug_op_t op,
                                                     devplug_dtype_t dtype, bool* out_supported,
                                                     uint32_t* out_kernel_flags);
/* The plugin's own table, for tools that test the ABI itself (conformance).
 * Errors: INVALID_ARGUMENT for NULL `out_api` or a bad `plugin`. */
DEVPLUG_API devplug_error_t* devplug_plugin_get_table(devplug_plugin_t* plugin,
                                                      const devplug_plugin_api_t** out_api);

/* ---- devices ------------------------------------------------------------------------- */

/* Describes the device, writing only the fields inside `out_properties->struct_size` (a
 * host built against ABI 1.0 passes the struct without `dtypes` and gets what it holds).
 * Errors: INVALID_ARGUMENT for NULL `out_properties`, a bad `device` or an
 * `out_properties->struct_size` below DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE. */
DEVPLUG_API devplug_error_t* devplug_device_get_properties(devplug_device_t* device,
                                                           devplug_device_properties_t* out_properties);
/* The plugin the device belongs to. Errors: INVALID_ARGUMENT for NULL `out_plugin` or a
 * bad `device`. */
DEVPLUG_API devplug_error_t* devplug_device_get_plugin(devplug_device_t* device,
                                                       devplug_plugin_t** out_plugin);
/* The device's default stream, made when the device is first used; owned by the device.
 * Errors: INVALID_ARGUMENT for NULL `out_stream` or a bad `device`; the plugin's error when
 * it cannot open the device or make the stream. */
DEVPLUG_API devplug_error_t* devplug_device_default_stream(devplug_device_t* device,
                                                           devplug_stream_t** out_stream);
/* Whether `device` runs `op` for dispatch dtype `dtype` natively: the plugin declares a
 * kernel for it and the device claims the dtype (devplug_device_properties_t.dtypes, ABI
 * 1.1). Otherwise the call falls back (or is refused in strict mode). `out_kernel_flags`
 * (optional) gets the kernel's DEVPLUG_KERNEL_* flags.
 * Errors: INVALID_ARGUMENT for a bad `device`, NULL `out_supported`, an `op` outside this
 * op set (DEVPLUG_OP_INVALID included) or an unknown `dtype`. */
DEVPLUG_API devplug_error_t* devplug_device_supports(devplug_device_t* device, devplug_op_t op,
                                                     devplug_dtype_t dtype, bool* out_supported,
                                                     uint32_t* out_kernel_flags);
/* Waits for all work on every stream of the device.
 * Errors: INVALID_ARGUMENT for a bad `device`; then an error the device found in that work
 * (see the top of this file). */
DEVPLUG_API devplug_error_t* devplug_device_synchronize(devplug_device_t* device);

/* ---- pinned host memory ------------------------------------------------------------- */

/* Allocates `size_bytes` of page-locked host memory for copies with `device`'s tensors,
 * aligned to at least 64 bytes. It is the plugin's own where the plugin offers the
 * pinned_host_memory extension (CUDA and HIP host allocations, a mapped host-visible OpenCL
 * buffer, Level Zero host memory): copies from it (devplug_tensor_copy_from_host without
 * DEVPLUG_COPY_BLOCKING) and into it (devplug_tensor_copy_to_host_async) then run while the
 * host goes on, ordered on their stream. Otherwise it is the dispatcher's: page-aligned,
 * locked when the process may lock that much (RLIMIT_MEMLOCK), copied as any host memory.
 * Free it with devplug_host_free; the context frees what is left when it is destroyed.
 * Errors: INVALID_ARGUMENT for a bad `device`, NULL `out_ptr` or a `size_bytes` of 0;
 * RESOURCE_EXHAUSTED when the memory cannot be had; the plugin's error. */
DEVPLUG_API devplug_error_t* devplug_host_allocate(devplug_device_t* device, uint64_t size_bytes,
                                                   void** out_ptr);
/* Frees memory devplug_host_allocate gave, once the copies enqueued on it have finished.
 * NULL is ignored. Errors: INVALID_ARGUMENT for a pointer devplug_host_allocate did not give
 * (or one already freed). */
DEVPLUG_API devplug_error_t* devplug_host_free(void* ptr);
/* Whether `ptr` (any byte) lies in memory from devplug_host_allocate: `*out_device` gets the
 * device it was made for, or NULL; `*out_async` (optional) whether it is the plugin's own, so
 * that copies with it run asynchronously. Errors: INVALID_ARGUMENT for NULL `out_device`. */
DEVPLUG_API devplug_error_t* devplug_host_query(const void* ptr, devplug_device_t** out_device,
                                                bool* out_async);

/* ---- device memory: the caching allocator's statistics ------------------------------ */

/* One memory statistic of a device: its value now, its highest value since the peaks were
 * last reset, and the amounts added and taken away since the totals were last reset. */
typedef struct devplug_memory_stat_t {
  int64_t current;
  int64_t peak;
  int64_t allocated;
  int64_t freed;
} devplug_memory_stat_t;

/* What devplug's allocator holds on one device (this context's allocations only). Sizes
 * are bytes. Requests round up to a size class (multiples of 512 bytes below 1 MiB, powers
 * of two from 1 MiB on) on plugins that opted in to caching; freed buffers stay cached,
 * still reserved, until reused, emptied or needed for a larger allocation. */
typedef struct devplug_memory_stats_t {
  size_t struct_size;
  devplug_memory_stat_t allocated_bytes; /* live buffers, in the bytes taken (size classes) */
  devplug_memory_stat_t requested_bytes; /* live buffers, in the bytes asked for */
  devplug_memory_stat_t reserved_bytes;  /* held from the plugin: live and cached buffers */
  devplug_memory_stat_t allocations;     /* live buffers, counted */
  devplug_memory_stat_t segments;        /* buffers held from the plugin, counted */
  int64_t plugin_allocations;            /* buffer_allocate calls that succeeded */
  int64_t plugin_releases;               /* buffer_release calls */
  int64_t out_of_memory_retries;         /* allocations retried after emptying the cache */
  int64_t out_of_memory_errors;          /* allocations the plugin refused for lack of memory */
} devplug_memory_stats_t;

/* devplug_device_reset_memory_stats: peaks back to the current values. */
#define DEVPLUG_MEMORY_RESET_PEAKS 1u
/* devplug_device_reset_memory_stats: totals (allocated, freed) and the counts back to 0. */
#define DEVPLUG_MEMORY_RESET_TOTALS 2u

/* Writes the device's memory statistics. `out_stats->struct_size` must be set; the fields
 * inside it are written.
 * Errors: INVALID_ARGUMENT for a bad `device`, NULL `out_stats` or an
 * `out_stats->struct_size` below sizeof(devplug_memory_stats_t) of ABI 1.2. */
DEVPLUG_API devplug_error_t* devplug_device_memory_stats(devplug_device_t* device,
                                                         devplug_memory_stats_t* out_stats);
/* Resets the statistics `what` names (DEVPLUG_MEMORY_RESET_* bits).
 * Errors: INVALID_ARGUMENT for a bad `device` or unknown bits in `what`. */
DEVPLUG_API devplug_error_t* devplug_device_reset_memory_stats(devplug_device_t* device, uint32_t what);
/* Waits for the device's work, then returns every cached (freed, unused) buffer of the
 * device to its plugin; live tensors keep theirs.
 * Errors: INVALID_ARGUMENT for a bad `device`; then an error the device found in its work. */
DEVPLUG_API devplug_error_t* devplug_device_empty_cache(devplug_device_t* device);

/* ---- streams and events -------------------------------------------------------------- */

/* Makes a stream on `device`; the caller destroys it with devplug_stream_destroy (or the
 * context does). Errors: INVALID_ARGUMENT for NULL `out_stream` or a bad `device`. */
DEVPLUG_API devplug_error_t* devplug_stream_create(devplug_device_t* device, devplug_stream_t** out_stream);
/* Waits for the stream's work, then destroys it. NULL is ignored.
 * Errors: INVALID_ARGUMENT for a `stream` that is not a live stream or that is a device's
 * default stream (the device owns it); then an error of the stream's work, after the
 * stream is destroyed. */
DEVPLUG_API devplug_error_t* devplug_stream_destroy(devplug_stream_t* stream);
/* Waits for the stream's work.
 * Errors: INVALID_ARGUMENT for a bad `stream`; then an error the device found in that work
 * (see the top of this file). */
DEVPLUG_API devplug_error_t* devplug_stream_synchronize(devplug_stream_t* stream);
/* The device the stream belongs to. Errors: INVALID_ARGUMENT for NULL `out_device` or a
 * bad `stream`. */
DEVPLUG_API devplug_error_t* devplug_stream_get_device(devplug_stream_t* stream,
                                                       devplug_device_t** out_device);

/* Makes an event on `device`; the caller destroys it with devplug_event_destroy (or the
 * context does). Errors: INVALID_ARGUMENT for NULL `out_event` or a bad `device`. */
DEVPLUG_API devplug_error_t* devplug_event_create(devplug_device_t* device, devplug_event_t** out_event);
/* Destroys the event. NULL is ignored. Errors: INVALID_ARGUMENT for an `event` that is not
 * a live event. */
DEVPLUG_API devplug_error_t* devplug_event_destroy(devplug_event_t* event);
/* Marks the current end of `stream`; the event completes when the work before it does.
 * Errors: INVALID_ARGUMENT for a bad `event`, a bad `stream`, or the two on different
 * devices. */
DEVPLUG_API devplug_error_t* devplug_event_record(devplug_event_t* event, devplug_stream_t* stream);
/* Makes later work on `stream` wait for `event`, which may belong to another device of
 * the same plugin (otherwise the host waits).
 * Errors: INVALID_ARGUMENT for a bad `stream` or a bad `event`. */
DEVPLUG_API devplug_error_t* devplug_stream_wait_event(devplug_stream_t* stream, devplug_event_t* event);
/* Blocks the host until `event` has completed. Errors: INVALID_ARGUMENT for a bad `event`. */
DEVPLUG_API devplug_error_t* devplug_event_synchronize(devplug_event_t* event);

/* ---- graphs: a stream's work captured once, replayed many times ----------------------- */

/* Starts capturing `stream`: until devplug_stream_end_capture, the work the calling thread
 * enqueues on it (op calls, elementwise calls, copies between tensors of its device) is
 * validated and recorded into a graph instead of being run. Tensors keep their identity: a
 * launch reads and writes the very storages the capture saw, so a caller updates a graph's
 * inputs in place between launches. Tensors made during the capture that only the graph
 * still uses when the capture ends are its temporaries: they move into the graph's private
 * pool, whose buffers are shared between temporaries whose uses do not overlap (planned from
 * their first and last use). Anything that must wait for the device or touch host memory (a
 * copy to or from the host, a CPU fallback, a synchronize, an event on the stream, a launch,
 * a DLPack export to the host from the capturing thread), and a collective (devplug_comm_*),
 * ends the capture with FAILED_PRECONDITION naming it, discards the graph and leaves the
 * stream usable; so does destroying the stream. Work on the stream from any thread is
 * recorded (a framework may hand the stream to another thread, as PyTorch's autograd does
 * for backward), one thread at a time as always; the thread that began the capture ends it.
 * Errors: INVALID_ARGUMENT for a bad `stream`; FAILED_PRECONDITION when it is already
 * capturing (from any thread). */
DEVPLUG_API devplug_error_t* devplug_stream_begin_capture(devplug_stream_t* stream);
/* Ends the capture of `stream` and hands the graph to the caller (destroyed with
 * devplug_graph_destroy, or by the context), with its temporaries planned into its pool.
 * Errors: INVALID_ARGUMENT for NULL `out_graph` or a bad `stream`; FAILED_PRECONDITION when
 * the stream is not capturing (or an error ended its capture) or when another thread
 * started it. */
DEVPLUG_API devplug_error_t* devplug_stream_end_capture(devplug_stream_t* stream,
                                                        devplug_graph_t** out_graph);
/* Whether `stream` is capturing. Errors: INVALID_ARGUMENT for NULL `out_capturing` or a bad
 * `stream`. */
DEVPLUG_API devplug_error_t* devplug_stream_is_capturing(devplug_stream_t* stream, bool* out_capturing);

/* What a graph holds. */
typedef struct devplug_graph_info_t {
  size_t struct_size;
  uint64_t kernel_nodes;    /* recorded kernel calls */
  uint64_t copy_nodes;      /* recorded copies between buffers */
  uint64_t temporaries;     /* tensors made during the capture that live in the pool */
  uint64_t pool_buffers;    /* buffers of the pool, shared by the temporaries */
  uint64_t pool_bytes;      /* their bytes as allocated (devplug_device_memory_stats counts them) */
  uint64_t temporary_bytes; /* the temporaries' own bytes, before sharing */
  uint64_t philox_blocks;   /* Philox counter blocks one launch's random calls span (docs/random.md) */
  uint64_t launches;        /* launches so far */
} devplug_graph_info_t;
/* Errors: INVALID_ARGUMENT for a bad `graph`, NULL `out_info` or an `out_info->struct_size`
 * smaller than the first version of the struct. */
DEVPLUG_API devplug_error_t* devplug_graph_get_info(const devplug_graph_t* graph,
                                                    devplug_graph_info_t* out_info);

/* devplug_graph_launch's options. */
#define DEVPLUG_GRAPH_LAUNCH_PHILOX_SHIFT 1u /* use `philox_shift` */
typedef struct devplug_graph_launch_options_t {
  size_t struct_size;
  uint32_t flags;
  /* Added to the Philox `offset` of every random call the graph recorded. Without the flag,
   * launch k (from 0) adds k * philox_blocks: each launch draws the numbers the same calls
   * would draw made again eagerly, offsets continuing. */
  uint64_t philox_shift;
} devplug_graph_launch_options_t;
/* Enqueues the graph's recorded work on `stream` (of the graph's device), in order, without
 * validating it again. `options` may be NULL.
 * Errors: INVALID_ARGUMENT for a bad `graph` or `stream`, a stream of another device, or
 * `options` with a bad struct_size or unknown flags; FAILED_PRECONDITION when `stream` is
 * capturing; then a kernel's error, naming the node (the nodes before it were enqueued). */
DEVPLUG_API devplug_error_t* devplug_graph_launch(devplug_graph_t* graph, devplug_stream_t* stream,
                                                  const devplug_graph_launch_options_t* options);
/* Waits for the graph's device, then frees the graph and its pool; tensors it used keep
 * their contents. NULL is ignored. Errors: INVALID_ARGUMENT for a `graph` that is not a live
 * graph; then an error the device found in its work. */
DEVPLUG_API devplug_error_t* devplug_graph_destroy(devplug_graph_t* graph);

/* ---- tensors --------------------------------------------------------------------------- */

/* Allocates a contiguous row-major tensor of `rank` dims on `device`. Contents are
 * undefined. `shape` may be NULL when rank is 0. The caller releases it with
 * devplug_tensor_release.
 * Errors: INVALID_ARGUMENT for NULL `out_tensor`, a bad `device`, a `rank` outside
 * [0, DEVPLUG_MAX_RANK], NULL `shape` with a rank above 0, a negative dim, an unknown
 * `dtype`, or an element count or byte size that overflows int64; RESOURCE_EXHAUSTED when
 * the device cannot hold it. */
DEVPLUG_API devplug_error_t* devplug_tensor_create(devplug_device_t* device, devplug_dtype_t dtype,
                                                   int32_t rank, const int64_t* shape,
                                                   devplug_tensor_t** out_tensor);
/* Drops this tensor's share of its storage; the storage is freed with its last view.
 * Work already enqueued on the tensor still completes. Errors: none; NULL, or a handle that
 * is not a live tensor, is ignored. */
DEVPLUG_API void devplug_tensor_release(devplug_tensor_t* tensor);

/* The tensor's metadata. `out_desc` receives the plugin-level descriptor (buffer, byte
 * offset, dtype, rank, shape, strides), writing only the fields inside its struct_size.
 * Errors: INVALID_ARGUMENT for NULL `out_desc`, a bad `tensor` or an
 * `out_desc->struct_size` below sizeof(devplug_tensor_desc_t). */
DEVPLUG_API devplug_error_t* devplug_tensor_describe(const devplug_tensor_t* tensor,
                                                     devplug_tensor_desc_t* out_desc);
/* The device the tensor lives on. Errors: INVALID_ARGUMENT for NULL `out_device` or a bad
 * `tensor`. */
DEVPLUG_API devplug_error_t* devplug_tensor_get_device(const devplug_tensor_t* tensor,
                                                       devplug_device_t** out_device);
/* The number of elements (product of the shape; 1 for rank 0).
 * Errors: INVALID_ARGUMENT for NULL `out_numel` or a bad `tensor`. */
DEVPLUG_API devplug_error_t* devplug_tensor_numel(const devplug_tensor_t* tensor, int64_t* out_numel);
/* Bytes in the tensor's whole storage (what as_strided may reach).
 * Errors: INVALID_ARGUMENT for NULL `out_bytes` or a bad `tensor`. */
DEVPLUG_API devplug_error_t* devplug_tensor_storage_bytes(const devplug_tensor_t* tensor,
                                                          uint64_t* out_bytes);

/* Copies `size_bytes` of host data into the tensor's elements in row-major logical order
 * (any layout). `size_bytes` must equal numel * element size. Enqueued on `stream` (NULL:
 * the device's default stream); `src` must stay valid until that stream has passed it,
 * unless DEVPLUG_COPY_BLOCKING is given. `src` may be NULL when `size_bytes` is 0.
 * Errors: INVALID_ARGUMENT for a bad `dst`, unknown bits in `flags`, a non-NULL `stream`
 * that is not a live stream or that belongs to another device than dst's, a `size_bytes`
 * other than numel * element size, NULL `src`, or a `dst` that overlaps itself (an
 * expanded view). */
#define DEVPLUG_COPY_BLOCKING 1u
DEVPLUG_API devplug_error_t* devplug_tensor_copy_from_host(devplug_stream_t* stream, devplug_tensor_t* dst,
                                                           const void* src, uint64_t size_bytes,
                                                           uint32_t flags);
/* Copies the tensor's elements in row-major logical order to host memory and waits, on
 * `stream` (NULL: the default stream of src's device). `dst` may be NULL when
 * `size_bytes` is 0.
 * Errors: INVALID_ARGUMENT for a bad `src`, a non-NULL `stream` that is not a live stream
 * or that belongs to another device than src's, a `size_bytes` other than numel * element
 * size, or NULL `dst`; then an error of the stream's work. */
DEVPLUG_API devplug_error_t* devplug_tensor_copy_to_host(devplug_stream_t* stream,
                                                         const devplug_tensor_t* src, void* dst,
                                                         uint64_t size_bytes);
/* As devplug_tensor_copy_to_host, but returns once the copy is enqueued where it can be (a
 * contiguous `src`, or a view the plugin's copy_strided gathers on the device): `dst` holds
 * the elements once `stream` has passed the copy (devplug_stream_synchronize, or an event),
 * and must stay valid until then. Otherwise it copies and waits. `*out_waited` (optional)
 * says which. Whether the host goes on while the copy runs is the plugin's: with pinned
 * memory of a plugin that offers it (devplug_host_allocate) it does.
 * Errors: those of devplug_tensor_copy_to_host. */
DEVPLUG_API devplug_error_t* devplug_tensor_copy_to_host_async(devplug_stream_t* stream,
                                                               const devplug_tensor_t* src, void* dst,
                                                               uint64_t size_bytes, bool* out_waited);
/* The host address of the tensor's first element (its storage's buffer plus its offset), for a
 * device whose memory is host memory (DEVPLUG_DEVICE_UNIFIED_MEMORY) and whose plugin offers
 * the host_address extension; valid while the tensor lives. Read or write through it only
 * once the device's work on the tensor is done (synchronize first).
 * Errors: INVALID_ARGUMENT for a bad `tensor` or NULL `out_address`; UNIMPLEMENTED when the
 * plugin offers no host_address extension; FAILED_PRECONDITION when the device's memory is not
 * host-addressable. */
DEVPLUG_API devplug_error_t* devplug_tensor_host_address(const devplug_tensor_t* tensor, void** out_address);
/* A new tensor of `device`, uint8 of shape [size_bytes], whose storage is the caller's
 * `size_bytes` of host memory at `host`, without a copy: the device's work on it and its views
 * reads and writes that memory (memory that processes share, such as POSIX shared memory, is
 * then the same device memory in each of them). For a device whose memory is host memory
 * (DEVPLUG_DEVICE_UNIFIED_MEMORY) whose plugin offers the host_memory_import extension. The
 * memory must stay valid until the storage's last tensor is released; that release waits for
 * the device's work (as devplug_device_synchronize), releases the plugin's buffer and then calls
 * `release(release_context)` when `release` is not NULL, on the releasing thread. The caller
 * orders its own reads and writes of the memory with the device's work (synchronize first).
 * Such a storage is not the caching allocator's, and the memory statistics do not count it.
 * Errors: INVALID_ARGUMENT for NULL `out_tensor`, a bad `device`, NULL `host`, `size_bytes` 0,
 * `host` not aligned to 64 bytes or `size_bytes` above INT64_MAX; UNIMPLEMENTED when the
 * plugin offers no host_memory_import extension; FAILED_PRECONDITION when the device's memory
 * is not host memory; then an error of the plugin's buffer_import_host. On error `release` is
 * not called. */
DEVPLUG_API devplug_error_t* devplug_tensor_from_host_memory(devplug_device_t* device, void* host,
                                                             uint64_t size_bytes, void (*release)(void*),
                                                             void* release_context,
                                                             devplug_tensor_t** out_tensor);
/* Copies `src` into `dst` (same shape and dtype, any layouts, any devices; through the
 * host when the devices belong to different plugins). Enqueued on `stream`, which belongs
 * to dst's device (NULL: its default stream).
 * Errors: INVALID_ARGUMENT for a bad `dst`, a bad `src`, a non-NULL `stream` that is not a
 * live stream or that belongs to another device than dst's, different dtypes, different
 * shapes, or a non-empty `dst` that overlaps itself (an expanded view). */
DEVPLUG_API devplug_error_t* devplug_tensor_copy(devplug_stream_t* stream, devplug_tensor_t* dst,
                                                 const devplug_tensor_t* src);

/* ---- views: metadata only, never reach a plugin; each returns a new tensor sharing the
 * storage, which the caller releases; dims may be negative and count from the end ------- */

/* A view with a new shape; one dim may be -1 (inferred). When the strides cannot express
 * it as a view, copy the tensor first.
 * Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, a `rank` outside
 * [0, DEVPLUG_MAX_RANK], NULL `shape` with a rank above 0, a second -1, a dim below -1, a
 * -1 that cannot be inferred (beside a 0 dim, or no size fits), an element count other
 * than the tensor's, dims whose product overflows int64, or strides that cannot express
 * the view. */
DEVPLUG_API devplug_error_t* devplug_tensor_reshape(const devplug_tensor_t* tensor, int32_t rank,
                                                    const int64_t* shape, devplug_tensor_t** out_view);
/* Reorders the dims: view dim k is dim dims[k] of the tensor; `dims` is a permutation of
 * [0, rank). Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, NULL `dims`
 * with a rank above 0, a dims[k] outside [-rank, rank), or a dim named twice. */
DEVPLUG_API devplug_error_t* devplug_tensor_permute(const devplug_tensor_t* tensor, const int32_t* dims,
                                                    devplug_tensor_t** out_view);
/* Swaps dims dim0 and dim1 (a 0-d tensor takes 0 or -1 and is given back).
 * Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, or `dim0` or `dim1`
 * outside [-rank, rank). */
DEVPLUG_API devplug_error_t* devplug_tensor_transpose(const devplug_tensor_t* tensor, int32_t dim0,
                                                      int32_t dim1, devplug_tensor_t** out_view);
/* Broadcasts to `shape` (PyTorch expand / broadcast_to): new dims are prepended, size-1
 * dims get stride 0; -1 keeps a dim.
 * Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, a `rank` outside
 * [0, DEVPLUG_MAX_RANK] or below the tensor's, NULL `shape` with a rank above 0, a
 * negative size for a new leading dim, a dim below -1, a size that differs from a dim of
 * size other than 1, or an element count that overflows int64. */
DEVPLUG_API devplug_error_t* devplug_tensor_expand(const devplug_tensor_t* tensor, int32_t rank,
                                                   const int64_t* shape, devplug_tensor_t** out_view);
/* Elements start, start+step, ... before stop along `dim`, Python slice rules (negative
 * start/stop count from the end and are clamped). A negative step walks backwards and
 * gives a negative stride. step != 0.
 * Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, a `dim` outside
 * [-rank, rank) or a `step` of 0. */
DEVPLUG_API devplug_error_t* devplug_tensor_slice(const devplug_tensor_t* tensor, int32_t dim, int64_t start,
                                                  int64_t stop, int64_t step, devplug_tensor_t** out_view);
/* Removes dim `dim`, which must have size 1 (a 0-d tensor takes 0 or -1 and is given
 * back). Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, a `dim` outside
 * [-rank, rank), or a dim whose size is not 1. */
DEVPLUG_API devplug_error_t* devplug_tensor_squeeze(const devplug_tensor_t* tensor, int32_t dim,
                                                    devplug_tensor_t** out_view);
/* Inserts a size-1 dim before position `dim` in [0, rank] (or [-rank-1, -1], counted from
 * the end). Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, a tensor that
 * already has rank DEVPLUG_MAX_RANK, or a `dim` outside [-rank-1, rank]. */
DEVPLUG_API devplug_error_t* devplug_tensor_unsqueeze(const devplug_tensor_t* tensor, int32_t dim,
                                                      devplug_tensor_t** out_view);
/* The diagonal of dims dim0 and dim1 with `offset` (PyTorch diagonal): both dims are
 * removed and the diagonal is appended as the last dim.
 * Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, a tensor of rank below 2,
 * `dim0` or `dim1` outside [-rank, rank), or `dim0` and `dim1` naming the same dim. */
DEVPLUG_API devplug_error_t* devplug_tensor_diagonal(const devplug_tensor_t* tensor, int64_t offset,
                                                     int32_t dim0, int32_t dim1, devplug_tensor_t** out_view);
/* Any view of the storage: shape, strides (elements, may be zero or negative) and a
 * storage offset in elements; every element must lie inside the storage.
 * Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, a `rank` outside
 * [0, DEVPLUG_MAX_RANK], NULL `shape` with a rank above 0, a negative dim, an element
 * count or byte size that overflows int64, NULL `strides` with a rank above 0, a negative
 * `storage_offset`, or an element outside the storage. */
DEVPLUG_API devplug_error_t* devplug_tensor_as_strided(const devplug_tensor_t* tensor, int32_t rank,
                                                       const int64_t* shape, const int64_t* strides,
                                                       int64_t storage_offset, devplug_tensor_t** out_view);
/* As devplug_tensor_as_strided, but the view reads the storage's bytes as `dtype`, which
 * may differ from the tensor's (PyTorch's untyped storages and Tensor.view(dtype)):
 * `strides` and `storage_offset` count elements of `dtype`. The bytes are reinterpreted,
 * never converted.
 * Errors: INVALID_ARGUMENT for NULL `out_view`, a bad `tensor`, an unknown `dtype`, then
 * as devplug_tensor_as_strided. */
DEVPLUG_API devplug_error_t* devplug_tensor_as_strided_dtype(const devplug_tensor_t* tensor,
                                                             devplug_dtype_t dtype, int32_t rank,
                                                             const int64_t* shape, const int64_t* strides,
                                                             int64_t storage_offset,
                                                             devplug_tensor_t** out_view);

/* ---- DLPack ------------------------------------------------------------------------- */

/* DLPack 1.x's versioned managed tensor, as <dlpack/dlpack.h> (DLPack 1.0 or later)
 * defines it; these functions only pass pointers to it. */
struct DLManagedTensorVersioned;

/* devplug_tensor_to_dlpack: set DLPACK_FLAG_BITMASK_READ_ONLY on the export. */
#define DEVPLUG_DLPACK_READ_ONLY 1u
/* devplug_tensor_to_dlpack: export host memory ({kDLCPU, 0}) that any DLPack consumer reads. */
#define DEVPLUG_DLPACK_HOST 2u

/* Exports `tensor` as a DLPack 1.0 versioned managed tensor that shares its storage: the
 * managed tensor holds a view of it until its deleter is called (once, by its consumer, from
 * any thread; after the context is destroyed the deleter frees only the managed tensor).
 * `dl_tensor` has the tensor's shape, its strides in elements (always given) and its dtype:
 * kDLBool 8 for bool, kDLUInt 8, kDLInt 8 to 64, kDLFloat 16 to 64 and kDLBfloat 16, lanes 1.
 * Two forms:
 *  - by default, device {kDLExtDev, the device's index in its context}, `data` the storage's
 *    plugin buffer handle and `byte_offset` the tensor's offset in bytes: an address only
 *    devplug understands, for carrying a tensor through DLPack-speaking code and back in with
 *    devplug_tensor_from_dlpack;
 *  - with DEVPLUG_DLPACK_HOST, for a device whose memory is host memory (see
 *    devplug_tensor_host_address): the device is synchronized first, then device
 *    {kDLCPU, 0}, `data` the tensor's host address and `byte_offset` 0, which numpy or torch
 *    read (and write, unless read-only) without a copy. Enqueue no work that writes the
 *    tensor while a consumer reads it.
 * Errors: INVALID_ARGUMENT for NULL `out_managed`, a bad `tensor` or unknown bits in
 * `flags`; with DEVPLUG_DLPACK_HOST, those of devplug_tensor_host_address, then an error of
 * the device's work. */
DEVPLUG_API devplug_error_t* devplug_tensor_to_dlpack(const devplug_tensor_t* tensor, uint32_t flags,
                                                      struct DLManagedTensorVersioned** out_managed);
/* Imports a managed tensor devplug_tensor_to_dlpack made (in either form, and with the
 * dtype, shape, strides, `data` and `byte_offset` a consumer may have changed) as a new
 * tensor: a view of the exported tensor's storage, on its device, whose first element is at
 * (`data` + `byte_offset`) and whose elements must all lie inside the storage. On success
 * the import consumes `managed` (its deleter has been called); on error the caller still
 * owns it.
 * Errors: INVALID_ARGUMENT for NULL `managed` or `out_tensor`; a major version other than 1;
 * a managed tensor another producer made (devplug cannot address its memory: copy it in with
 * devplug_tensor_copy_from_host); one whose device's context was destroyed; the read-only
 * flag (devplug tensors are writable); a device other than the export's; a dtype devplug
 * lacks, or lanes other than 1; an `ndim` outside [0, DEVPLUG_MAX_RANK]; NULL `shape` with
 * an `ndim` above 0; a negative dim; a first element before the storage or not on an element
 * boundary; an element outside the storage. */
DEVPLUG_API devplug_error_t* devplug_tensor_from_dlpack(struct DLManagedTensorVersioned* managed,
                                                        devplug_tensor_t** out_tensor);

/* ---- ops ----------------------------------------------------------------------------- */

/* Runs `op` exactly as ops.def defines it: strict shapes and dtypes, outputs given.
 * All tensors live on the stream's device (NULL stream: the first given output's device's
 * default stream). `attrs` is the op's attribute struct or NULL when it has none.
 * Validates arity, dtypes, shapes, bounds, attributes and aliasing (an output may not
 * overlap itself or another tensor of the call, except that an elementwise output may be
 * exactly one of its inputs) and answers each with INVALID_ARGUMENT. A prim runs on the
 * CPU fallback when the plugin lacks the kernel (see DEVPLUG_CONTEXT_STRICT). A composite
 * op (op set 2) takes its n_in inputs and n_out outputs with absent optional ones as NULL;
 * it runs the device's native kernel when the plugin declares one, else its decomposition
 * into prims on the device (never the CPU fallback itself). No heap allocation on this
 * path when the device has the kernel and its inputs need no copy.
 * Errors: INVALID_ARGUMENT for NULL `inputs` with `n_inputs` above 0, an inputs[i] that
 * is NULL (and not an absent optional input) or not a live tensor, the same for
 * `outputs`, a non-NULL `stream` that is not a live stream, a NULL `stream` with no
 * output, a tensor on another device than the stream's, then ops.def's checks: an `op`
 * outside this op set, an arity other than the op's, a NULL or short `attrs` or a bad
 * attribute, dtypes, shapes and bounds, aliasing; UNIMPLEMENTED when the plugin lacks the
 * kernel and the context is strict or has no CPU fallback (or the fallback lacks it too);
 * then the kernel's own error. */
DEVPLUG_API devplug_error_t* devplug_op_call(devplug_stream_t* stream, devplug_op_t op,
                                             devplug_tensor_t* const* inputs, size_t n_inputs,
                                             devplug_tensor_t* const* outputs, size_t n_outputs,
                                             const void* attrs);

/* Runs an elementwise op (UNARY, BINARY, COMPARE, TERNARY) the way PyTorch would: inputs
 * are broadcast together and promoted to a common dtype (views and convert_element_type),
 * then the strict prim runs. When `*inout_result` is NULL a new tensor is allocated on the
 * stream's device and returned there; otherwise it is the output (its shape must be the
 * broadcast shape; a dtype that differs from the op's result is cast to, as add_out).
 * Errors: INVALID_ARGUMENT for NULL `inout_result`, a `*inout_result` that is neither
 * NULL nor a live tensor, `n_inputs` 0, NULL `inputs` or an inputs[i] that is NULL or not
 * a live tensor, a non-NULL `stream` that is not a live stream, an `op` outside this op
 * set, an op that is not elementwise, an `n_inputs` other than the op's arity, a tensor
 * on another device than the stream's, inputs that do not broadcast together, a
 * `*inout_result` of another shape than the broadcast shape or of a dtype the result may
 * not be cast to (PyTorch's casting rule); then as devplug_op_call (a dtype the op does
 * not allow, say). */
DEVPLUG_API devplug_error_t* devplug_elementwise(devplug_stream_t* stream, devplug_op_t op,
                                                 devplug_tensor_t* const* inputs, size_t n_inputs,
                                                 devplug_tensor_t** inout_result);

/* The dtype PyTorch's type promotion gives for two tensor operands of dtypes a and b
 * (int32 + float16 -> float16, uint8 + int8 -> int16, bool + int8 -> int8).
 * Errors: INVALID_ARGUMENT for NULL `out_dtype`, an unknown `a` or an unknown `b`. */
DEVPLUG_API devplug_error_t* devplug_promote_types(devplug_dtype_t a, devplug_dtype_t b,
                                                   devplug_dtype_t* out_dtype);
/* The shape two shapes broadcast to, PyTorch's rules, into `out_shape`, which holds
 * DEVPLUG_MAX_RANK dims. Errors: INVALID_ARGUMENT for NULL `out_rank`, NULL `out_shape`,
 * a bad `shape_a` (a rank outside [0, DEVPLUG_MAX_RANK], NULL with a rank above 0, a
 * negative dim, an element count that overflows int64), a bad `shape_b` (the same), or
 * shapes that do not broadcast. */
DEVPLUG_API devplug_error_t* devplug_broadcast_shapes(int32_t rank_a, const int64_t* shape_a, int32_t rank_b,
                                                      const int64_t* shape_b, int32_t* out_rank,
                                                      int64_t* out_shape);

/* ---- fused programs (ABI 1.2) ------------------------------------------------------- */

/* Prepares `desc` (plugin_api.h: a straight-line program of elementwise prims and casts over
 * inputs of one shape, with an optional reduction tail) for `device`. Where the device's
 * plugin offers the fused_programs extension, claims every dtype of the program and builds it,
 * devplug_fused_program_run launches the plugin's one kernel; otherwise it runs the nodes one
 * op at a time on the device, each result in a temporary of its node's dtype. Either way the
 * results are those of the nodes run one op at a time (bit for bit for deterministic
 * elementwise ops; a reduction tail within its op's tolerance). `desc` is copied. The caller
 * destroys the program with devplug_fused_program_destroy.
 * Errors: INVALID_ARGUMENT for NULL `out_program`, a `device` that is not a live device, NULL
 * `desc`, a `desc` with a struct_size below DEVPLUG_FUSED_PROGRAM_DESC_MIN_SIZE or that is not
 * a well-formed program (counts within DEVPLUG_FUSED_MAX_*, fusable ops with their arity and
 * attributes, ops.def's dtype rules, operands defined before use, the reduction tail over one
 * run of dims and reading no tail value, distinct outputs naming node results; the message
 * names the node); then the plugin's own error, except UNIMPLEMENTED and RESOURCE_EXHAUSTED,
 * which leave the program to run op by op. */
DEVPLUG_API devplug_error_t* devplug_fused_program_create(devplug_device_t* device,
                                                          const devplug_fused_program_desc_t* desc,
                                                          devplug_fused_program_t** out_program);
/* Runs `program` on `stream` (NULL: the program's device's default stream). Inputs, in the
 * program's order, have one shape, the program's iteration space (broadcast with views);
 * outputs have it too, but those of the reduction tail, which have its reduced dims 1. An
 * output may be exactly the view of an input (it is read whole before it is written) but may
 * not overlap itself, another output or another view. While `stream` captures a graph the
 * program runs op by op, so that the graph records its nodes.
 * Errors: INVALID_ARGUMENT for a `program` that is not a live program, a `stream` that is not a
 * live stream, tensor counts other than the program's, NULL `inputs` or `outputs`, a tensor
 * that is not live or is on another device than the stream, the program made for another
 * device, a dtype or shape other than the program gives the tensor, a reduction tail whose
 * dims are not trailing dims of the inputs' rank, overlapping outputs; then the errors of the
 * plugin's launch or of the ops run one at a time. */
DEVPLUG_API devplug_error_t* devplug_fused_program_run(devplug_stream_t* stream,
                                                       devplug_fused_program_t* program,
                                                       devplug_tensor_t* const* inputs, size_t n_inputs,
                                                       devplug_tensor_t* const* outputs, size_t n_outputs);
/* Whether `program` runs as the plugin's one kernel (true) or op by op (false); `out_why`
 * (may be NULL) gets why it runs op by op, valid while the program lives, or NULL.
 * Errors: INVALID_ARGUMENT for a `program` that is not a live program or NULL `out_native`. */
DEVPLUG_API devplug_error_t* devplug_fused_program_is_native(const devplug_fused_program_t* program,
                                                             bool* out_native, const char** out_why);
/* Destroys a program (NULL is ignored); work already enqueued with it completes.
 * Errors: INVALID_ARGUMENT for a `program` that is not a live program; the plugin's error. */
DEVPLUG_API devplug_error_t* devplug_fused_program_destroy(devplug_fused_program_t* program);

/* ---- event timing (ABI 1.2) --------------------------------------------------------- */

/* Waits until `start` and `end` have completed, then writes to `*out_ns` the time between
 * them in nanoseconds as the device measured it (negative when `end` was reached first).
 * Both events belong to one device whose plugin offers the event_timestamps extension
 * (`devplug-info --json` lists each plugin's extensions).
 * Errors, in this order: INVALID_ARGUMENT for a `start` or `end` that is not a live event
 * or NULL `out_ns`; INVALID_ARGUMENT when the two belong to different devices;
 * UNIMPLEMENTED when the device's plugin offers no event_timestamps extension;
 * FAILED_PRECONDITION when `start` or `end` was never recorded. */
DEVPLUG_API devplug_error_t* devplug_event_elapsed_ns(devplug_event_t* start, devplug_event_t* end,
                                                      int64_t* out_ns);

/* ---- collectives (ABI 1.2) ---------------------------------------------------------- */

/* Device-native collectives through the collectives extension of the device's plugin (NCCL,
 * RCCL, oneCCL and the like; the emulated GPU's test double): a communicator joins one device
 * of each rank, and the collectives below move devplug tensors between the ranks on a stream,
 * without staging them through host memory. Every rank enqueues the same collectives in the
 * same order; a communicator is used by one thread at a time, as a stream is. The tensors are
 * contiguous; each collective's work completes on `stream` (NULL: the device's default
 * stream) as a kernel does, so devplug_stream_synchronize or an event orders it with other
 * work. While `stream` captures a graph no collective is enqueued
 * (FAILED_PRECONDITION, which ends the capture as devplug_stream_begin_capture says: a graph
 * does not record collectives). libdevplug has no fallback for collectives: a plugin may
 * decline a dtype or reduction it does not carry (UNIMPLEMENTED, before anything is sent),
 * and the host then moves the tensor another way. */

/* Makes the id of a new communicator among devices of `device`'s plugin. One rank calls it
 * and hands the DEVPLUG_COMM_UNIQUE_ID_BYTES bytes to every rank (a store, a file).
 * Errors, in this order: INVALID_ARGUMENT for NULL `out_id` or a `device` that is not a live
 * device; UNIMPLEMENTED when the device's plugin offers no collectives extension; the
 * plugin's error. */
DEVPLUG_API devplug_error_t* devplug_comm_unique_id(devplug_device_t* device,
                                                    devplug_comm_unique_id_t* out_id);
/* Joins `device` to the communicator `id` names as `rank` of `world_size`; returns when
 * every rank has joined. The caller destroys it with devplug_comm_destroy.
 * Errors, in this order: INVALID_ARGUMENT for NULL `out_comm`, a `device` that is not a live
 * device, NULL `id`, `world_size` 0 or `rank` not below `world_size`; UNIMPLEMENTED when the
 * device's plugin offers no collectives extension; UNAVAILABLE when the other ranks have not
 * joined within the plugin's timeout (the message names the missing ranks); the plugin's
 * error. */
DEVPLUG_API devplug_error_t* devplug_comm_create(devplug_device_t* device, const devplug_comm_unique_id_t* id,
                                                 uint32_t world_size, uint32_t rank,
                                                 devplug_comm_t** out_comm);
/* The rank and world size `comm` was made with.
 * Errors: INVALID_ARGUMENT for a `comm` that is not a live communicator, NULL `out_rank` or
 * NULL `out_world_size`. */
DEVPLUG_API devplug_error_t* devplug_comm_rank(const devplug_comm_t* comm, uint32_t* out_rank,
                                               uint32_t* out_world_size);
/* Leaves and destroys a communicator (NULL is ignored) once the collectives already enqueued
 * on it have finished. A communicator the host leaves is destroyed with its context.
 * Errors: INVALID_ARGUMENT for a `comm` that is not a live communicator; the plugin's error. */
DEVPLUG_API devplug_error_t* devplug_comm_destroy(devplug_comm_t* comm);

/* The collectives. Common errors, in this order: INVALID_ARGUMENT for a `comm` that is not a
 * live communicator, a `stream` that is not a live stream (or not of the communicator's
 * device), a tensor that is not live, not on the communicator's device or not contiguous,
 * and the shape rules each function names; FAILED_PRECONDITION while `stream` captures a
 * graph; then the plugin's error (UNIMPLEMENTED for a dtype or reduction it does not carry). */

/* `recv` gets the reduction by `op` over the ranks of their `send`; `send` and `recv` have
 * one dtype and element count (`recv` may be `send`). Besides the common errors,
 * INVALID_ARGUMENT for another dtype or element count, an `op` outside devplug_reduce_op_t,
 * a bitwise `op` on a floating-point dtype and AVG of bool. */
DEVPLUG_API devplug_error_t* devplug_comm_all_reduce(devplug_stream_t* stream, devplug_comm_t* comm,
                                                     devplug_tensor_t* send, devplug_tensor_t* recv,
                                                     devplug_reduce_op_t op);
/* `recv` (world_size times `send`'s elements, one dtype) gets every rank's `send`, in rank
 * order. Besides the common errors, INVALID_ARGUMENT for another dtype or element count. */
DEVPLUG_API devplug_error_t* devplug_comm_all_gather(devplug_stream_t* stream, devplug_comm_t* comm,
                                                     devplug_tensor_t* send, devplug_tensor_t* recv);
/* The reduction by `op` over the ranks of their `send` (world_size times `recv`'s elements,
 * one dtype), of which rank r's `recv` gets the r-th part. Besides the common errors, those
 * of devplug_comm_all_reduce's `op` and INVALID_ARGUMENT for another dtype or element
 * count. */
DEVPLUG_API devplug_error_t* devplug_comm_reduce_scatter(devplug_stream_t* stream, devplug_comm_t* comm,
                                                         devplug_tensor_t* send, devplug_tensor_t* recv,
                                                         devplug_reduce_op_t op);
/* Every rank's `tensor` gets rank `root`'s. Besides the common errors, INVALID_ARGUMENT for a
 * `root` not below world_size. */
DEVPLUG_API devplug_error_t* devplug_comm_broadcast(devplug_stream_t* stream, devplug_comm_t* comm,
                                                    devplug_tensor_t* tensor, uint32_t root);
/* `send` and `recv` (one dtype and element count, a multiple of world_size) are world_size
 * equal parts; rank r's `recv` part q gets rank q's `send` part r. Besides the common errors,
 * INVALID_ARGUMENT for another dtype or element count, a count that world_size does not
 * divide, or `recv` sharing memory with `send`. */
DEVPLUG_API devplug_error_t* devplug_comm_all_to_all(devplug_stream_t* stream, devplug_comm_t* comm,
                                                     devplug_tensor_t* send, devplug_tensor_t* recv);
/* Sends `tensor` to rank `peer`, which receives it with devplug_comm_recv into a tensor of the
 * same dtype and element count. Besides the common errors, INVALID_ARGUMENT for a `peer` not
 * below world_size or equal to the communicator's rank. */
DEVPLUG_API devplug_error_t* devplug_comm_send(devplug_stream_t* stream, devplug_comm_t* comm,
                                               devplug_tensor_t* tensor, uint32_t peer);
/* Receives into `tensor` what rank `peer` sends with devplug_comm_send. Errors: those of
 * devplug_comm_send. */
DEVPLUG_API devplug_error_t* devplug_comm_recv(devplug_stream_t* stream, devplug_comm_t* comm,
                                               devplug_tensor_t* tensor, uint32_t peer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DEVPLUG_DEVPLUG_H_ */
