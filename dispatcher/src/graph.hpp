// SPDX-License-Identifier: Apache-2.0
// Graphs (devplug.h, "graphs"): a stream's work recorded once at the dispatcher's last step
// before the plugin (call_kernel and the buffer copies), replayed by calling the recorded
// kernels again with the recorded descriptors. This is the replay every plugin gets; nothing
// of it is in the plugin ABI.
//
// While a stream captures, call_kernel hands its frame to record_kernel instead of the
// plugin, and copy.cpp's device-to-device buffer copies go to record_copy; whatever would
// wait for the device or touch host memory calls refuse_in_capture, which ends the capture
// with FAILED_PRECONDITION. The graph holds a share of every storage it recorded, so that
// nothing it uses is freed under it; at the end of the capture, the storages made during
// it that nobody else holds are its temporaries, moved into the graph's pool.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "devplug/devplug.h"
#include "tensor.hpp"

struct devplug_stream_t;

namespace devplug::detail {

// One recorded step: a kernel call (fn set) or a copy between buffers (fn NULL).
struct GraphNode {
  devplug_kernel_fn fn = nullptr;
  devplug_op_t op = 0;
  size_t n_inputs = 0, n_outputs = 0;
  std::vector<devplug_tensor_desc_t> descs;            // inputs then outputs
  std::vector<unsigned char> present;                  // 0 for an absent optional tensor
  std::vector<Storage*> storages;                      // each desc's storage (NULL when absent)
  std::vector<unsigned char> attrs;                    // a copy of the caller's attrs struct
  std::vector<const devplug_tensor_desc_t*> pointers;  // the frame's arrays, built at the end
  devplug_op_call_t call{};
  // Philox attrs: where the offset lies in `attrs`, the offset recorded, the blocks used.
  size_t philox_at = 0;
  uint64_t philox_offset = 0, philox_blocks = 0;
  bool random = false;
  // A copy: bytes from (storages[0], src_offset) to (storages[1], dst_offset).
  devplug_buffer_handle_t* src = nullptr;
  devplug_buffer_handle_t* dst = nullptr;
  uint64_t src_offset = 0, dst_offset = 0, bytes = 0;
};

// A buffer of a graph's pool.
struct PoolBuffer {
  devplug_buffer_handle_t* buffer = nullptr;
  uint64_t bytes = 0;
};

}  // namespace devplug::detail

struct devplug_graph_t {
  static constexpr uint32_t kMagic = 0x47525048;  // "GRPH"
  static constexpr const char* kKind = "graph";
  uint32_t magic = kMagic;
  devplug_device_t* device = nullptr;
  std::vector<devplug::detail::GraphNode> nodes;
  std::vector<devplug::detail::Storage*> held;  // one share each, dropped with the graph
  std::vector<devplug::detail::PoolBuffer> pool;
  uint64_t temporaries = 0, temporary_bytes = 0;
  uint64_t philox_blocks = 0;  // the span of one launch's Philox offsets
  uint64_t launches = 0;
  devplug_graph_t* live_prev = nullptr;
  devplug_graph_t* live_next = nullptr;
};

namespace devplug::detail {

// A stream's capture in progress.
struct Capture {
  std::unique_ptr<devplug_graph_t, void (*)(devplug_graph_t*)> graph{nullptr, nullptr};
  std::thread::id thread;
  uint64_t first_serial = 0;          // storages from this serial on were made during the capture
  std::unordered_set<Storage*> held;  // the storages graph->held lists
};

// Checks that `graph` is a graph end_capture returned and nobody destroyed (a registry, not
// the object's memory, is asked); names it `what` in the error.
const devplug_graph_t* require_graph(const devplug_graph_t* graph, const char* what);

void begin_capture(devplug_stream_t& stream);
// Ends the capture and returns its graph, listed on the device.
devplug_graph_t* end_capture(devplug_stream_t& stream);
// Records a kernel call on a capturing stream (the frame call_kernel built for `call`).
void record_kernel(const devplug_stream_t& stream, devplug_kernel_fn fn, const devplug_op_call_t& frame,
                   const devplug_tensor_t* const* inputs, const devplug_tensor_t* const* outputs);
// Records a copy of `bytes` between buffers of two storages on a capturing stream.
void record_copy(const devplug_stream_t& stream, Storage* src, uint64_t src_offset, Storage* dst,
                 uint64_t dst_offset, uint64_t bytes);
// When `stream` captures: ends the capture, discards its graph and throws
// FAILED_PRECONDITION saying that `what` cannot be captured, and `why` (NULL: because it
// would wait for the device or touch host memory). Otherwise does nothing.
void refuse_in_capture(const devplug_stream_t& stream, const char* what, const char* why = nullptr);
// When a stream of `device` captures on the calling thread: as refuse_in_capture.
void refuse_device_capture(devplug_device_t& device, const char* what);
// Discards the capture of a stream that is going away. Never throws.
void abandon_capture(devplug_stream_t& stream) noexcept;

void launch_graph(devplug_graph_t& graph, devplug_stream_t& stream,
                  const devplug_graph_launch_options_t* options);
// Waits for the graph's device, then frees the graph. Throws the device's error, after freeing.
void destroy_graph(devplug_graph_t* graph);
// Frees a graph at context destruction (unlinked by the caller). Never throws.
void free_graph(devplug_graph_t* graph) noexcept;

}  // namespace devplug::detail
