// SPDX-License-Identifier: Apache-2.0
// The workloads devplug-bench times on a device through the host API (devplug.h), each one
// iteration = enqueue + stream_synchronize, so small sizes show launch latency and large
// sizes bandwidth or FLOP/s. Each workload knows what one iteration moves or computes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "devplug/devplug.h"

namespace devplug::bench {

// What a figure measures, for its unit and for how it is compared with its yardstick.
enum class Measure { kBandwidth, kFlops, kLatency };

// A timed workload on one device: `run` does one iteration.
struct Workload {
  std::string name;   // "add", "sum", "copy", "matmul", "op_call", ...
  std::string dtype;  // "float32", ...
  int64_t size = 0;   // elements (matmul: M = N = K)
  Measure measure = Measure::kBandwidth;
  double amount = 0;  // bytes or FLOPs one iteration moves or computes (latency: 0)
  std::function<void()> run;
  std::shared_ptr<void> keep;  // owns the tensors `run` uses
};

// Throws std::runtime_error naming `what` when `error` is set (and destroys it).
void check(devplug_error_t* error, const std::string& what);

// A tensor of `numel` elements (or the given shape) on `device`, filled with small values.
std::shared_ptr<devplug_tensor_t> make_tensor(devplug_device_t* device, devplug_dtype_t dtype,
                                              std::vector<int64_t> shape);

// a + b into a third tensor (the first-result child's op).
Workload add_workload(devplug_device_t* device, devplug_dtype_t dtype, int64_t numel);
// The bandwidth figures of one dtype and size, over three tensors of `numel` elements they
// share (no more memory than the add alone): the copy of a into c, the yardstick (the
// plugin's own buffer_copy: clEnqueueCopyBuffer, cudaMemcpyAsync device to device,
// zeCommandListAppendMemoryCopy); a + b into c; the sum of all elements of a.
std::vector<Workload> bandwidth_workloads(devplug_device_t* device, devplug_dtype_t dtype, int64_t numel);
// The host-to-device transfer figures of `bytes` bytes, run in turn: from pageable host
// memory (an ordinary vector; devplug_tensor_copy_from_host, blocking), from pinned memory
// (devplug_host_allocate; the copy enqueued, then the stream synchronized), and the
// yardstick, the host's own memcpy between two pageable blocks of that size.
std::vector<Workload> transfer_workloads(devplug_device_t* device, int64_t bytes);
// A chain of 8 elementwise ops over two tensors of `numel` elements into a third (mul, add,
// sub, mul, add, maximum, neg, abs: what an activation or an optimizer step chains), as 8
// devplug_op_call calls into temporaries made beforehand ("chain8 unfused", what an eager
// framework calls) and as one fused program ("chain8 fused", devplug_fused_program_run: one
// kernel where the plugin offers fused_programs). Both have the fused run's amount: the
// bytes of its two inputs and its output. `*native` says whether the program runs as the
// plugin's one kernel, and if not why.
std::vector<Workload> fusion_workloads(devplug_device_t* device, devplug_dtype_t dtype, int64_t numel,
                                       std::string* native);
// An n x n by n x n matmul.
Workload matmul_workload(devplug_device_t* device, devplug_dtype_t dtype, int64_t n);
// A 1-element float32 add with a given output through devplug_op_call (dispatch overhead).
Workload op_call_workload(devplug_device_t* device);
// The same add through devplug_elementwise (broadcasting and promotion checks included).
Workload elementwise_workload(devplug_device_t* device);
// The same add kernel called directly through the plugin's table: the floor op_call is
// measured against.
Workload direct_kernel_workload(devplug_plugin_t* plugin, devplug_device_t* device);

}  // namespace devplug::bench
