// SPDX-License-Identifier: Apache-2.0
/* Proves that every SDK and host header is plain C11 (this file is compiled as C with
 * -std=c11 -pedantic -Wall -Wextra -Werror, so a C++-ism in a header breaks the build), and
 * freezes the layout of every ABI struct on x86-64 Linux: a field that moves, grows or
 * changes type is a compile error here, long before a plugin built against older headers
 * misreads it (PJRT's struct sizes drifted until such a check caught them).
 *
 * The numbers are ABI 1.1 (1.0 plus devplug_device_properties_t.dtypes). A later minor
 * appends fields: add asserts for the new fields and raise the sizes, never change an
 * existing offset. */
#include "devplug/types.h"
#include "devplug/errors.h"
#include "devplug/ops.h"
#include "devplug/plugin_api.h"
#include "devplug/devplug.h"

#include <stddef.h>

#include "abi_layout.h"

/* Values that are ABI besides the layouts: dtype and error code numbers. */
_Static_assert(DEVPLUG_DTYPE_BOOL == 0 && DEVPLUG_DTYPE_UINT8 == 1 && DEVPLUG_DTYPE_INT8 == 2 &&
                   DEVPLUG_DTYPE_INT16 == 3 && DEVPLUG_DTYPE_INT32 == 4 && DEVPLUG_DTYPE_INT64 == 5 &&
                   DEVPLUG_DTYPE_FLOAT16 == 6 && DEVPLUG_DTYPE_BFLOAT16 == 7 && DEVPLUG_DTYPE_FLOAT32 == 8 &&
                   DEVPLUG_DTYPE_FLOAT64 == 9,
               "dtype numbers are ABI");
_Static_assert(DEVPLUG_CODE_INVALID_ARGUMENT == 3 && DEVPLUG_CODE_NOT_FOUND == 5 &&
                   DEVPLUG_CODE_RESOURCE_EXHAUSTED == 8 && DEVPLUG_CODE_UNIMPLEMENTED == 12 &&
                   DEVPLUG_CODE_INTERNAL == 13 && DEVPLUG_CODE_UNAVAILABLE == 14,
               "error code numbers are ABI (abseil numbering)");
_Static_assert(DEVPLUG_MAX_RANK == 8, "DEVPLUG_MAX_RANK is ABI");

#if defined(__x86_64__) && defined(__LP64__)
_Static_assert(sizeof(devplug_tensor_desc_t) == 160, "sizeof(devplug_tensor_desc_t)");
_Static_assert(_Alignof(devplug_tensor_desc_t) == 8, "alignof(devplug_tensor_desc_t)");
_Static_assert(offsetof(devplug_tensor_desc_t, struct_size) == 0, "devplug_tensor_desc_t.struct_size");
_Static_assert(offsetof(devplug_tensor_desc_t, buffer) == 8, "devplug_tensor_desc_t.buffer");
_Static_assert(offsetof(devplug_tensor_desc_t, byte_offset) == 16, "devplug_tensor_desc_t.byte_offset");
_Static_assert(offsetof(devplug_tensor_desc_t, dtype) == 24, "devplug_tensor_desc_t.dtype");
_Static_assert(offsetof(devplug_tensor_desc_t, rank) == 28, "devplug_tensor_desc_t.rank");
_Static_assert(offsetof(devplug_tensor_desc_t, shape) == 32, "devplug_tensor_desc_t.shape");
_Static_assert(offsetof(devplug_tensor_desc_t, strides) == 96, "devplug_tensor_desc_t.strides");
_Static_assert(sizeof(devplug_scalar_t) == 16, "sizeof(devplug_scalar_t)");
_Static_assert(_Alignof(devplug_scalar_t) == 8, "alignof(devplug_scalar_t)");
_Static_assert(offsetof(devplug_scalar_t, f) == 0, "devplug_scalar_t.f");
_Static_assert(offsetof(devplug_scalar_t, i) == 8, "devplug_scalar_t.i");
_Static_assert(sizeof(devplug_error_t) == 32, "sizeof(devplug_error_t)");
_Static_assert(_Alignof(devplug_error_t) == 8, "alignof(devplug_error_t)");
_Static_assert(offsetof(devplug_error_t, struct_size) == 0, "devplug_error_t.struct_size");
_Static_assert(offsetof(devplug_error_t, code) == 8, "devplug_error_t.code");
_Static_assert(offsetof(devplug_error_t, native_code) == 16, "devplug_error_t.native_code");
_Static_assert(offsetof(devplug_error_t, message) == 24, "devplug_error_t.message");
_Static_assert(sizeof(devplug_none_attrs_t) == 8, "sizeof(devplug_none_attrs_t)");
_Static_assert(_Alignof(devplug_none_attrs_t) == 8, "alignof(devplug_none_attrs_t)");
_Static_assert(offsetof(devplug_none_attrs_t, struct_size) == 0, "devplug_none_attrs_t.struct_size");
_Static_assert(sizeof(devplug_reduce_attrs_t) == 24, "sizeof(devplug_reduce_attrs_t)");
_Static_assert(_Alignof(devplug_reduce_attrs_t) == 8, "alignof(devplug_reduce_attrs_t)");
_Static_assert(offsetof(devplug_reduce_attrs_t, struct_size) == 0, "devplug_reduce_attrs_t.struct_size");
_Static_assert(offsetof(devplug_reduce_attrs_t, dims_mask) == 8, "devplug_reduce_attrs_t.dims_mask");
_Static_assert(offsetof(devplug_reduce_attrs_t, correction) == 16, "devplug_reduce_attrs_t.correction");
_Static_assert(sizeof(devplug_dim_attrs_t) == 16, "sizeof(devplug_dim_attrs_t)");
_Static_assert(_Alignof(devplug_dim_attrs_t) == 8, "alignof(devplug_dim_attrs_t)");
_Static_assert(offsetof(devplug_dim_attrs_t, struct_size) == 0, "devplug_dim_attrs_t.struct_size");
_Static_assert(offsetof(devplug_dim_attrs_t, dim) == 8, "devplug_dim_attrs_t.dim");
_Static_assert(sizeof(devplug_flip_attrs_t) == 16, "sizeof(devplug_flip_attrs_t)");
_Static_assert(_Alignof(devplug_flip_attrs_t) == 8, "alignof(devplug_flip_attrs_t)");
_Static_assert(offsetof(devplug_flip_attrs_t, struct_size) == 0, "devplug_flip_attrs_t.struct_size");
_Static_assert(offsetof(devplug_flip_attrs_t, dims_mask) == 8, "devplug_flip_attrs_t.dims_mask");
_Static_assert(sizeof(devplug_pad_attrs_t) == 152, "sizeof(devplug_pad_attrs_t)");
_Static_assert(_Alignof(devplug_pad_attrs_t) == 8, "alignof(devplug_pad_attrs_t)");
_Static_assert(offsetof(devplug_pad_attrs_t, struct_size) == 0, "devplug_pad_attrs_t.struct_size");
_Static_assert(offsetof(devplug_pad_attrs_t, before) == 8, "devplug_pad_attrs_t.before");
_Static_assert(offsetof(devplug_pad_attrs_t, after) == 72, "devplug_pad_attrs_t.after");
_Static_assert(offsetof(devplug_pad_attrs_t, value) == 136, "devplug_pad_attrs_t.value");
_Static_assert(sizeof(devplug_fill_attrs_t) == 24, "sizeof(devplug_fill_attrs_t)");
_Static_assert(_Alignof(devplug_fill_attrs_t) == 8, "alignof(devplug_fill_attrs_t)");
_Static_assert(offsetof(devplug_fill_attrs_t, struct_size) == 0, "devplug_fill_attrs_t.struct_size");
_Static_assert(offsetof(devplug_fill_attrs_t, value) == 8, "devplug_fill_attrs_t.value");
_Static_assert(sizeof(devplug_iota_attrs_t) == 40, "sizeof(devplug_iota_attrs_t)");
_Static_assert(_Alignof(devplug_iota_attrs_t) == 8, "alignof(devplug_iota_attrs_t)");
_Static_assert(offsetof(devplug_iota_attrs_t, struct_size) == 0, "devplug_iota_attrs_t.struct_size");
_Static_assert(offsetof(devplug_iota_attrs_t, start) == 8, "devplug_iota_attrs_t.start");
_Static_assert(offsetof(devplug_iota_attrs_t, step) == 24, "devplug_iota_attrs_t.step");
_Static_assert(sizeof(devplug_matmul_attrs_t) == 16, "sizeof(devplug_matmul_attrs_t)");
_Static_assert(_Alignof(devplug_matmul_attrs_t) == 8, "alignof(devplug_matmul_attrs_t)");
_Static_assert(offsetof(devplug_matmul_attrs_t, struct_size) == 0, "devplug_matmul_attrs_t.struct_size");
_Static_assert(offsetof(devplug_matmul_attrs_t, flags) == 8, "devplug_matmul_attrs_t.flags");
_Static_assert(sizeof(devplug_philox_attrs_t) == 24, "sizeof(devplug_philox_attrs_t)");
_Static_assert(_Alignof(devplug_philox_attrs_t) == 8, "alignof(devplug_philox_attrs_t)");
_Static_assert(offsetof(devplug_philox_attrs_t, struct_size) == 0, "devplug_philox_attrs_t.struct_size");
_Static_assert(offsetof(devplug_philox_attrs_t, seed) == 8, "devplug_philox_attrs_t.seed");
_Static_assert(offsetof(devplug_philox_attrs_t, offset) == 16, "devplug_philox_attrs_t.offset");
_Static_assert(sizeof(devplug_op_info_t) == 72, "sizeof(devplug_op_info_t)");
_Static_assert(_Alignof(devplug_op_info_t) == 8, "alignof(devplug_op_info_t)");
_Static_assert(offsetof(devplug_op_info_t, id) == 0, "devplug_op_info_t.id");
_Static_assert(offsetof(devplug_op_info_t, name) == 8, "devplug_op_info_t.name");
_Static_assert(offsetof(devplug_op_info_t, category) == 16, "devplug_op_info_t.category");
_Static_assert(offsetof(devplug_op_info_t, n_inputs) == 20, "devplug_op_info_t.n_inputs");
_Static_assert(offsetof(devplug_op_info_t, n_outputs) == 24, "devplug_op_info_t.n_outputs");
_Static_assert(offsetof(devplug_op_info_t, attrs_size) == 32, "devplug_op_info_t.attrs_size");
_Static_assert(offsetof(devplug_op_info_t, result) == 40, "devplug_op_info_t.result");
_Static_assert(offsetof(devplug_op_info_t, dtypes) == 44, "devplug_op_info_t.dtypes");
_Static_assert(offsetof(devplug_op_info_t, summary) == 48, "devplug_op_info_t.summary");
/* op set 2: appended for composite rows */
_Static_assert(offsetof(devplug_op_info_t, signature) == 56, "devplug_op_info_t.signature");
_Static_assert(offsetof(devplug_op_info_t, optional_inputs) == 64, "devplug_op_info_t.optional_inputs");
_Static_assert(offsetof(devplug_op_info_t, optional_outputs) == 68, "devplug_op_info_t.optional_outputs");
/* op set 2: the composite ops' attribute structs */
#define FIELD(type, field, offset) _Static_assert(offsetof(type, field) == offset, #type "." #field)
#define SIZE(type, size)                                     \
  _Static_assert(sizeof(type) == size, "sizeof(" #type ")"); \
  _Static_assert(_Alignof(type) == 8, "alignof(" #type ")"); \
  FIELD(type, struct_size, 0)
SIZE(devplug_gelu_attrs_t, 16);
FIELD(devplug_gelu_attrs_t, approximate, 8);
SIZE(devplug_softplus_attrs_t, 24);
FIELD(devplug_softplus_attrs_t, beta, 8);
FIELD(devplug_softplus_attrs_t, threshold, 16);
SIZE(devplug_clamp_attrs_t, 48);
FIELD(devplug_clamp_attrs_t, flags, 8);
FIELD(devplug_clamp_attrs_t, min, 16);
FIELD(devplug_clamp_attrs_t, max, 32);
SIZE(devplug_leaky_relu_attrs_t, 16);
FIELD(devplug_leaky_relu_attrs_t, negative_slope, 8);
SIZE(devplug_norm_attrs_t, 24);
FIELD(devplug_norm_attrs_t, normalized_rank, 8);
FIELD(devplug_norm_attrs_t, eps, 16);
SIZE(devplug_batch_norm_attrs_t, 24);
FIELD(devplug_batch_norm_attrs_t, eps, 8);
FIELD(devplug_batch_norm_attrs_t, momentum, 16);
SIZE(devplug_sdpa_attrs_t, 24);
FIELD(devplug_sdpa_attrs_t, flags, 8);
FIELD(devplug_sdpa_attrs_t, scale, 16);
SIZE(devplug_conv2d_attrs_t, 64);
FIELD(devplug_conv2d_attrs_t, stride, 8);
FIELD(devplug_conv2d_attrs_t, padding, 24);
FIELD(devplug_conv2d_attrs_t, dilation, 40);
FIELD(devplug_conv2d_attrs_t, groups, 56);
SIZE(devplug_pool2d_attrs_t, 88);
FIELD(devplug_pool2d_attrs_t, kernel, 8);
FIELD(devplug_pool2d_attrs_t, stride, 24);
FIELD(devplug_pool2d_attrs_t, padding, 40);
FIELD(devplug_pool2d_attrs_t, dilation, 56);
FIELD(devplug_pool2d_attrs_t, flags, 72);
FIELD(devplug_pool2d_attrs_t, divisor_override, 80);
SIZE(devplug_embedding_attrs_t, 24);
FIELD(devplug_embedding_attrs_t, padding_idx, 8);
FIELD(devplug_embedding_attrs_t, flags, 16);
SIZE(devplug_loss_attrs_t, 32);
FIELD(devplug_loss_attrs_t, reduction, 8);
FIELD(devplug_loss_attrs_t, ignore_index, 16);
FIELD(devplug_loss_attrs_t, label_smoothing, 24);
SIZE(devplug_dropout_attrs_t, 32);
FIELD(devplug_dropout_attrs_t, p, 8);
FIELD(devplug_dropout_attrs_t, seed, 16);
FIELD(devplug_dropout_attrs_t, offset, 24);
#undef SIZE
#undef FIELD
_Static_assert(sizeof(devplug_device_properties_t) == 544, "sizeof(devplug_device_properties_t)");
_Static_assert(_Alignof(devplug_device_properties_t) == 8, "alignof(devplug_device_properties_t)");
_Static_assert(offsetof(devplug_device_properties_t, struct_size) == 0,
               "devplug_device_properties_t.struct_size");
_Static_assert(offsetof(devplug_device_properties_t, name) == 8, "devplug_device_properties_t.name");
_Static_assert(offsetof(devplug_device_properties_t, vendor) == 264, "devplug_device_properties_t.vendor");
_Static_assert(offsetof(devplug_device_properties_t, driver_version) == 392,
               "devplug_device_properties_t.driver_version");
_Static_assert(offsetof(devplug_device_properties_t, memory_bytes) == 520,
               "devplug_device_properties_t.memory_bytes");
_Static_assert(offsetof(devplug_device_properties_t, compute_units) == 528,
               "devplug_device_properties_t.compute_units");
_Static_assert(offsetof(devplug_device_properties_t, capabilities) == 532,
               "devplug_device_properties_t.capabilities");
_Static_assert(offsetof(devplug_device_properties_t, dtypes) == 536, "devplug_device_properties_t.dtypes");
_Static_assert(sizeof(devplug_op_call_t) == 56, "sizeof(devplug_op_call_t)");
_Static_assert(_Alignof(devplug_op_call_t) == 8, "alignof(devplug_op_call_t)");
_Static_assert(offsetof(devplug_op_call_t, struct_size) == 0, "devplug_op_call_t.struct_size");
_Static_assert(offsetof(devplug_op_call_t, op) == 8, "devplug_op_call_t.op");
_Static_assert(offsetof(devplug_op_call_t, inputs) == 16, "devplug_op_call_t.inputs");
_Static_assert(offsetof(devplug_op_call_t, n_inputs) == 24, "devplug_op_call_t.n_inputs");
_Static_assert(offsetof(devplug_op_call_t, outputs) == 32, "devplug_op_call_t.outputs");
_Static_assert(offsetof(devplug_op_call_t, n_outputs) == 40, "devplug_op_call_t.n_outputs");
_Static_assert(offsetof(devplug_op_call_t, attrs) == 48, "devplug_op_call_t.attrs");
_Static_assert(sizeof(devplug_kernel_t) == 32, "sizeof(devplug_kernel_t)");
_Static_assert(_Alignof(devplug_kernel_t) == 8, "alignof(devplug_kernel_t)");
_Static_assert(offsetof(devplug_kernel_t, struct_size) == 0, "devplug_kernel_t.struct_size");
_Static_assert(offsetof(devplug_kernel_t, op) == 8, "devplug_kernel_t.op");
_Static_assert(offsetof(devplug_kernel_t, dtypes) == 12, "devplug_kernel_t.dtypes");
_Static_assert(offsetof(devplug_kernel_t, flags) == 16, "devplug_kernel_t.flags");
_Static_assert(offsetof(devplug_kernel_t, fn) == 24, "devplug_kernel_t.fn");
_Static_assert(sizeof(devplug_plugin_init_args_t) == 16, "sizeof(devplug_plugin_init_args_t)");
_Static_assert(_Alignof(devplug_plugin_init_args_t) == 8, "alignof(devplug_plugin_init_args_t)");
_Static_assert(offsetof(devplug_plugin_init_args_t, struct_size) == 0,
               "devplug_plugin_init_args_t.struct_size");
_Static_assert(offsetof(devplug_plugin_init_args_t, host_abi_major) == 8,
               "devplug_plugin_init_args_t.host_abi_major");
_Static_assert(offsetof(devplug_plugin_init_args_t, host_abi_minor) == 12,
               "devplug_plugin_init_args_t.host_abi_minor");
_Static_assert(sizeof(devplug_plugin_api_t) == 248, "sizeof(devplug_plugin_api_t)");
_Static_assert(_Alignof(devplug_plugin_api_t) == 8, "alignof(devplug_plugin_api_t)");
_Static_assert(offsetof(devplug_plugin_api_t, struct_size) == 0, "devplug_plugin_api_t.struct_size");
_Static_assert(offsetof(devplug_plugin_api_t, abi_major) == 8, "devplug_plugin_api_t.abi_major");
_Static_assert(offsetof(devplug_plugin_api_t, abi_minor) == 12, "devplug_plugin_api_t.abi_minor");
_Static_assert(offsetof(devplug_plugin_api_t, plugin_name) == 16, "devplug_plugin_api_t.plugin_name");
_Static_assert(offsetof(devplug_plugin_api_t, plugin_version) == 24, "devplug_plugin_api_t.plugin_version");
_Static_assert(offsetof(devplug_plugin_api_t, opset_version) == 32, "devplug_plugin_api_t.opset_version");
_Static_assert(offsetof(devplug_plugin_api_t, flags) == 36, "devplug_plugin_api_t.flags");
_Static_assert(offsetof(devplug_plugin_api_t, error_create) == 40, "devplug_plugin_api_t.error_create");
_Static_assert(offsetof(devplug_plugin_api_t, error_destroy) == 48, "devplug_plugin_api_t.error_destroy");
_Static_assert(offsetof(devplug_plugin_api_t, plugin_initialize) == 56,
               "devplug_plugin_api_t.plugin_initialize");
_Static_assert(offsetof(devplug_plugin_api_t, plugin_shutdown) == 64, "devplug_plugin_api_t.plugin_shutdown");
_Static_assert(offsetof(devplug_plugin_api_t, device_count) == 72, "devplug_plugin_api_t.device_count");
_Static_assert(offsetof(devplug_plugin_api_t, device_get_properties) == 80,
               "devplug_plugin_api_t.device_get_properties");
_Static_assert(offsetof(devplug_plugin_api_t, device_open) == 88, "devplug_plugin_api_t.device_open");
_Static_assert(offsetof(devplug_plugin_api_t, device_close) == 96, "devplug_plugin_api_t.device_close");
_Static_assert(offsetof(devplug_plugin_api_t, buffer_allocate) == 104,
               "devplug_plugin_api_t.buffer_allocate");
_Static_assert(offsetof(devplug_plugin_api_t, buffer_release) == 112, "devplug_plugin_api_t.buffer_release");
_Static_assert(offsetof(devplug_plugin_api_t, buffer_get_size) == 120,
               "devplug_plugin_api_t.buffer_get_size");
_Static_assert(offsetof(devplug_plugin_api_t, buffer_copy_from_host) == 128,
               "devplug_plugin_api_t.buffer_copy_from_host");
_Static_assert(offsetof(devplug_plugin_api_t, buffer_copy_to_host) == 136,
               "devplug_plugin_api_t.buffer_copy_to_host");
_Static_assert(offsetof(devplug_plugin_api_t, buffer_copy) == 144, "devplug_plugin_api_t.buffer_copy");
_Static_assert(offsetof(devplug_plugin_api_t, stream_create) == 152, "devplug_plugin_api_t.stream_create");
_Static_assert(offsetof(devplug_plugin_api_t, stream_destroy) == 160, "devplug_plugin_api_t.stream_destroy");
_Static_assert(offsetof(devplug_plugin_api_t, stream_synchronize) == 168,
               "devplug_plugin_api_t.stream_synchronize");
_Static_assert(offsetof(devplug_plugin_api_t, event_create) == 176, "devplug_plugin_api_t.event_create");
_Static_assert(offsetof(devplug_plugin_api_t, event_destroy) == 184, "devplug_plugin_api_t.event_destroy");
_Static_assert(offsetof(devplug_plugin_api_t, event_record) == 192, "devplug_plugin_api_t.event_record");
_Static_assert(offsetof(devplug_plugin_api_t, stream_wait_event) == 200,
               "devplug_plugin_api_t.stream_wait_event");
_Static_assert(offsetof(devplug_plugin_api_t, event_synchronize) == 208,
               "devplug_plugin_api_t.event_synchronize");
_Static_assert(offsetof(devplug_plugin_api_t, kernels) == 216, "devplug_plugin_api_t.kernels");
_Static_assert(offsetof(devplug_plugin_api_t, kernel_count) == 224, "devplug_plugin_api_t.kernel_count");
_Static_assert(offsetof(devplug_plugin_api_t, extensions) == 232, "devplug_plugin_api_t.extensions");
_Static_assert(offsetof(devplug_plugin_api_t, device_get_claims) == 240,
               "devplug_plugin_api_t.device_get_claims");
_Static_assert(sizeof(devplug_device_claims_t) == 24, "sizeof(devplug_device_claims_t)");
_Static_assert(offsetof(devplug_device_claims_t, dtypes) == 8, "devplug_device_claims_t.dtypes");
_Static_assert(offsetof(devplug_device_claims_t, supports) == 16, "devplug_device_claims_t.supports");
_Static_assert(DEVPLUG_DEVICE_CLAIMS_MIN_SIZE == 24, "DEVPLUG_DEVICE_CLAIMS_MIN_SIZE");
_Static_assert(DEVPLUG_PLUGIN_API_MIN_SIZE == 232, "DEVPLUG_PLUGIN_API_MIN_SIZE");
/* ABI 1.2: extension records. */
_Static_assert(sizeof(devplug_extension_t) == 24, "sizeof(devplug_extension_t)");
_Static_assert(offsetof(devplug_extension_t, type) == 8, "devplug_extension_t.type");
_Static_assert(offsetof(devplug_extension_t, next) == 16, "devplug_extension_t.next");
_Static_assert(DEVPLUG_EXTENSION_EVENT_TIMESTAMPS == 1, "DEVPLUG_EXTENSION_EVENT_TIMESTAMPS is frozen");
_Static_assert(offsetof(devplug_ext_event_timestamps_t, event_elapsed_ns) == 24,
               "devplug_ext_event_timestamps_t.event_elapsed_ns");
_Static_assert(sizeof(devplug_ext_event_timestamps_t) == 32, "sizeof(devplug_ext_event_timestamps_t)");
_Static_assert(sizeof(devplug_context_options_t) == 16, "sizeof(devplug_context_options_t)");
_Static_assert(_Alignof(devplug_context_options_t) == 8, "alignof(devplug_context_options_t)");
_Static_assert(offsetof(devplug_context_options_t, struct_size) == 0,
               "devplug_context_options_t.struct_size");
_Static_assert(offsetof(devplug_context_options_t, flags) == 8, "devplug_context_options_t.flags");
_Static_assert(sizeof(devplug_plugin_info_t) == 56, "sizeof(devplug_plugin_info_t)");
_Static_assert(_Alignof(devplug_plugin_info_t) == 8, "alignof(devplug_plugin_info_t)");
_Static_assert(offsetof(devplug_plugin_info_t, struct_size) == 0, "devplug_plugin_info_t.struct_size");
_Static_assert(offsetof(devplug_plugin_info_t, name) == 8, "devplug_plugin_info_t.name");
_Static_assert(offsetof(devplug_plugin_info_t, version) == 16, "devplug_plugin_info_t.version");
_Static_assert(offsetof(devplug_plugin_info_t, path) == 24, "devplug_plugin_info_t.path");
_Static_assert(offsetof(devplug_plugin_info_t, abi_major) == 32, "devplug_plugin_info_t.abi_major");
_Static_assert(offsetof(devplug_plugin_info_t, abi_minor) == 36, "devplug_plugin_info_t.abi_minor");
_Static_assert(offsetof(devplug_plugin_info_t, opset_version) == 40, "devplug_plugin_info_t.opset_version");
_Static_assert(offsetof(devplug_plugin_info_t, device_count) == 44, "devplug_plugin_info_t.device_count");
_Static_assert(offsetof(devplug_plugin_info_t, device_note) == 48, "devplug_plugin_info_t.device_note");
#endif /* x86-64 */

/* The C compiler's view of each struct, for abi_layout_test.cpp to compare with C++'s. */
const abi_layout_row_t abi_c_layout[] = {
#define ABI_STRUCT(type) {#type, sizeof(type), _Alignof(type)},
#include "abi_structs.def"
};
const size_t abi_c_layout_count = sizeof(abi_c_layout) / sizeof(abi_c_layout[0]);

/* Uses every inline function of the headers once, so that C compiles their bodies. */
size_t abi_c_touch_inline_functions(void) {
  size_t n = 0;
  n += devplug_op_info(DEVPLUG_OP_exp) != NULL;
  n += devplug_op_name(DEVPLUG_OP_add) != NULL;
  n += devplug_dtype_name(DEVPLUG_DTYPE_FLOAT32) != NULL;
  n += devplug_dtype_size(DEVPLUG_DTYPE_FLOAT64);
  n += devplug_code_name(DEVPLUG_CODE_UNIMPLEMENTED) != NULL;
  return n;
}
