// SPDX-License-Identifier: Apache-2.0
// Copies between host memory and tensors, and between tensors, in row-major logical order
// whatever the layouts.
//
// Paths, cheapest first: a contiguous view is one buffer copy at its byte offset; another
// view goes through a contiguous temporary on the device and the plugin's own copy_strided
// kernel; a plugin without a usable copy_strided gets host staging of the span of storage
// the view reaches (read, gather or scatter on the host, write back), which blocks.
// Tensors of different devices meet on the host.
#pragma once

#include <cstdint>

#include "stream_event.hpp"
#include "tensor.hpp"

namespace devplug::detail {

// Copies `size_bytes` (== numel * element size) from `src` into `dst`'s elements on
// `stream` (of dst's device). Unless `blocking`, `src` must stay valid until the stream has
// passed the copy. INVALID_ARGUMENT when dst overlaps itself.
void copy_from_host(devplug_stream_t& stream, const devplug_tensor_t& dst, const void* src,
                    uint64_t size_bytes, bool blocking);

// Copies `src`'s elements into `dst` (`size_bytes` == numel * element size) and waits,
// unless `wait` is false and the copy can be enqueued (a contiguous `src`, or one the
// plugin's copy_strided gathers on the device): then `dst` holds the elements once the
// stream has passed the copy. Returns whether it waited.
bool copy_to_host(devplug_stream_t& stream, const devplug_tensor_t& src, void* dst, uint64_t size_bytes,
                  bool wait = true);

// Copies `src` into `dst` (same shape and dtype; any layouts and devices) on `stream` (of
// dst's device).
void copy_tensor(devplug_stream_t& stream, const devplug_tensor_t& dst, const devplug_tensor_t& src);

// Runs the plugin's copy_strided kernel from `src` to `dst` (same device, shape and dtype)
// when it has one that takes these layouts. Returns false, having done nothing, otherwise.
bool copy_with_kernel(devplug_stream_t& stream, const devplug_tensor_t& dst, const devplug_tensor_t& src);

}  // namespace devplug::detail
