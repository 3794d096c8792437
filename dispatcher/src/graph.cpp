// SPDX-License-Identifier: Apache-2.0
// Capture, pool planning and replay of graphs (see graph.hpp).
#include "graph.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "api_guard.hpp"
#include "device.hpp"
#include "live_list.hpp"
#include "plugin_record.hpp"
#include "stream_event.hpp"

namespace devplug::detail {
namespace {

// Every graph end_capture handed out and nobody destroyed yet.
LiveSet<devplug_graph_t> live_graphs;

void delete_graph(devplug_graph_t* graph) noexcept {
  if (graph == nullptr) return;
  live_graphs.remove(graph);
  devplug_device_t& device = *graph->device;
  for (const PoolBuffer& b : graph->pool) device.allocator.free(device, b.buffer, b.bytes);
  for (Storage* s : graph->held) release_storage(s);
  graph->magic = 0;
  delete graph;
}

// Ends `stream`'s capture, discarding its graph.
void drop_capture(const devplug_stream_t& stream) noexcept {
  stream.capture_thread.store(std::thread::id(), std::memory_order_release);
  delete stream.capture;
  stream.capture = nullptr;
}

[[noreturn]] void failed_precondition(const std::string& message) {
  throw Error(DEVPLUG_CODE_FAILED_PRECONDITION, message);
}

// The capture of `stream`. Work from any thread is recorded, in the order it arrives: a
// stream is used by one thread at a time (devplug.h), and a framework may hand it to
// another thread meanwhile (PyTorch's autograd runs backward on a device thread).
Capture& capture_here(const devplug_stream_t& stream) { return *stream.capture; }

// Holds a share of `storage` for the capture's graph (once per storage).
void hold(Capture& capture, Storage* storage) {
  devplug_graph_t& graph = *capture.graph;
  if (capture.held.count(storage) != 0) return;
  graph.held.reserve(graph.held.size() + 1);
  capture.held.insert(storage);
  retain_storage(storage);
  graph.held.push_back(storage);
}

// The Philox counter blocks a random call uses (docs/random.md): words per element times
// the elements, four words a block.
uint64_t philox_blocks(devplug_op_t op, const devplug_tensor_desc_t& out) {
  uint64_t elements = 1;
  for (int32_t d = 0; d < out.rank; ++d) elements *= static_cast<uint64_t>(out.shape[d]);
  const bool wide = out.dtype == DEVPLUG_DTYPE_FLOAT64 || out.dtype == DEVPLUG_DTYPE_INT64;
  uint64_t words = 1;
  if (op == DEVPLUG_OP_philox_bits || op == DEVPLUG_OP_philox_uniform) words = wide ? 2 : 1;
  if (op == DEVPLUG_OP_philox_normal) words = out.dtype == DEVPLUG_DTYPE_FLOAT64 ? 4 : 2;
  return (elements * words + 3) / 4;
}

// Where a random op's attrs keep the Philox offset, or 0 for an op that draws none.
size_t philox_offset_at(devplug_op_t op) {
  switch (op) {
    case DEVPLUG_OP_philox_bits:
    case DEVPLUG_OP_philox_uniform:
    case DEVPLUG_OP_philox_normal:
      return offsetof(devplug_philox_attrs_t, offset);
    case DEVPLUG_OP_dropout:
      return offsetof(devplug_dropout_attrs_t, offset);
    default:
      return 0;
  }
}

// Plans the temporaries of a graph whose capture just ended into its pool: every storage
// made during the capture that only the graph still holds. In order of first use, each takes
// the smallest free pool buffer large enough, a buffer being free again after the last use
// of the temporary that had it; the nodes' descriptors are pointed at the pool buffers.
void plan_pool(devplug_graph_t& graph, uint64_t first_serial) {
  struct Temp {
    Storage* storage;
    size_t first, last;
    size_t pool = 0;
  };
  std::vector<Temp> temps;
  std::unordered_map<Storage*, size_t> temp_of;
  for (Storage* s : graph.held)
    if (s->serial >= first_serial && s->refs.load(std::memory_order_acquire) == 1) {
      temp_of.emplace(s, temps.size());
      temps.push_back({s, SIZE_MAX, 0});
    }
  if (temps.empty()) return;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    for (Storage* s : graph.nodes[n].storages) {
      auto it = s == nullptr ? temp_of.end() : temp_of.find(s);
      if (it == temp_of.end()) continue;
      Temp& t = temps[it->second];
      t.first = std::min(t.first, n);
      t.last = std::max(t.last, n);
    }
  std::vector<size_t> order(temps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return temps[a].first < temps[b].first; });

  // Sizes first, buffers after: the temporaries' own buffers go back to the allocator before
  // the pool takes its own, so that the pool reuses them.
  std::vector<uint64_t> pool_bytes;
  std::vector<size_t> busy_until;  // per pool buffer: the last node of its current temporary
  for (size_t i : order) {
    Temp& t = temps[i];
    const uint64_t need = std::max<uint64_t>(t.storage->bytes, 1);
    size_t best = SIZE_MAX;
    for (size_t p = 0; p < pool_bytes.size(); ++p)
      if (busy_until[p] < t.first && pool_bytes[p] >= need &&
          (best == SIZE_MAX || pool_bytes[p] < pool_bytes[best]))
        best = p;
    if (best == SIZE_MAX) {
      best = pool_bytes.size();
      pool_bytes.push_back(need);
      busy_until.push_back(0);
    }
    busy_until[best] = t.last;
    t.pool = best;
    graph.temporary_bytes += t.storage->bytes;
  }
  graph.temporaries = temps.size();

  devplug_device_t& device = *graph.device;
  std::vector<Storage*> kept;
  for (Storage* s : graph.held)
    if (temp_of.count(s) == 0) kept.push_back(s);
  for (const Temp& t : temps) release_storage(t.storage);  // the graph's share was the last
  graph.held = std::move(kept);
  for (uint64_t bytes : pool_bytes) {
    graph.pool.reserve(graph.pool.size() + 1);
    graph.pool.push_back({device.allocator.allocate(device, bytes), bytes});
  }
  for (GraphNode& node : graph.nodes)
    for (size_t k = 0; k < node.storages.size(); ++k) {
      auto it = node.storages[k] == nullptr ? temp_of.end() : temp_of.find(node.storages[k]);
      if (it == temp_of.end()) continue;
      devplug_buffer_handle_t* buffer = graph.pool[temps[it->second].pool].buffer;
      if (node.fn == nullptr)
        (k == 0 ? node.src : node.dst) = buffer;
      else
        node.descs[k].buffer = buffer;
      node.storages[k] = nullptr;  // freed: only the pool buffer is left
    }
}

// Builds each kernel node's frame (pointer arrays into its own vectors) and the Philox span.
void finish_nodes(devplug_graph_t& graph) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (GraphNode& node : graph.nodes) {
    if (node.fn == nullptr) continue;
    node.pointers.resize(node.descs.size());
    for (size_t k = 0; k < node.descs.size(); ++k)
      node.pointers[k] = node.present[k] ? &node.descs[k] : nullptr;
    node.call.struct_size = sizeof(node.call);
    node.call.op = node.op;
    node.call.inputs = node.pointers.data();
    node.call.n_inputs = node.n_inputs;
    node.call.outputs = node.pointers.data() + node.n_inputs;
    node.call.n_outputs = node.n_outputs;
    node.call.attrs = node.attrs.empty() ? nullptr : node.attrs.data();
    if (node.random) {
      lo = std::min(lo, node.philox_offset);
      hi = std::max(hi, node.philox_offset + node.philox_blocks);
    }
  }
  graph.philox_blocks = hi > lo ? hi - lo : 0;
}

}  // namespace

const devplug_graph_t* require_graph(const devplug_graph_t* graph, const char* what) {
  if (forked_after_init()) refuse_forked();
  require_not_null(graph, what);
  if (!live_graphs.contains(graph)) invalid_argument(std::string(what) + " is not a live graph handle");
  return graph;
}

void begin_capture(devplug_stream_t& stream) {
  if (stream.capture != nullptr) failed_precondition("stream is already capturing a graph");
  auto capture = std::make_unique<Capture>();
  capture->graph = {new devplug_graph_t(), delete_graph};
  capture->graph->device = stream.device;
  capture->thread = std::this_thread::get_id();
  capture->first_serial = next_storage_serial();
  stream.capture_thread.store(capture->thread, std::memory_order_release);
  stream.capture = capture.release();
}

devplug_graph_t* end_capture(devplug_stream_t& stream) {
  if (stream.capture == nullptr)
    failed_precondition("stream is not capturing a graph (never begun, already ended, or ended by an error)");
  if (stream.capture->thread != std::this_thread::get_id())
    failed_precondition("stream's capture was begun by another thread, which ends it");
  Capture& capture = *stream.capture;
  std::unique_ptr<Capture> owned(&capture);
  stream.capture_thread.store(std::thread::id(), std::memory_order_release);
  stream.capture = nullptr;
  devplug_graph_t& graph = *capture.graph;
  plan_pool(graph, capture.first_serial);
  finish_nodes(graph);
  devplug_device_t& device = *stream.device;
  live_graphs.add(&graph);
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    device.graphs.insert(&graph);
  }
  return capture.graph.release();
}

void record_kernel(const devplug_stream_t& stream, devplug_kernel_fn fn, const devplug_op_call_t& frame,
                   const devplug_tensor_t* const* inputs, const devplug_tensor_t* const* outputs) {
  Capture& capture = capture_here(stream);
  devplug_graph_t& graph = *capture.graph;
  GraphNode node;
  node.fn = fn;
  node.op = frame.op;
  node.n_inputs = frame.n_inputs;
  node.n_outputs = frame.n_outputs;
  const size_t n = frame.n_inputs + frame.n_outputs;
  node.descs.resize(n);
  node.present.resize(n);
  node.storages.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const devplug_tensor_t* t = k < frame.n_inputs ? inputs[k] : outputs[k - frame.n_inputs];
    if (t == nullptr) continue;
    node.descs[k] = t->desc;
    node.present[k] = 1;
    node.storages[k] = t->storage;
    hold(capture, t->storage);
  }
  const devplug_op_info_t* info = devplug_op_info(frame.op);
  if (frame.attrs != nullptr && info != nullptr && info->attrs_size != 0) {
    // The struct as these headers know it (validation found struct_size >= attrs_size), with
    // struct_size saying so: fields a newer caller appended are not recorded, and nothing
    // past what the op's struct is known to hold is read. An op without attributes is
    // recorded without them, whatever pointer came with it.
    const size_t size = info->attrs_size;
    const auto* bytes = static_cast<const unsigned char*>(frame.attrs);
    node.attrs.assign(bytes, bytes + size);
    std::memcpy(node.attrs.data(), &size, sizeof(size));
    node.philox_at = philox_offset_at(frame.op);
    if (node.philox_at != 0 && frame.n_outputs > 0 && node.present[frame.n_inputs]) {
      node.random = true;
      std::memcpy(&node.philox_offset, node.attrs.data() + node.philox_at, sizeof(uint64_t));
      node.philox_blocks = philox_blocks(frame.op, node.descs[frame.n_inputs]);
    }
  }
  graph.nodes.push_back(std::move(node));
}

void record_copy(const devplug_stream_t& stream, Storage* src, uint64_t src_offset, Storage* dst,
                 uint64_t dst_offset, uint64_t bytes) {
  Capture& capture = capture_here(stream);
  devplug_graph_t& graph = *capture.graph;
  GraphNode node;
  node.storages = {src, dst};
  node.src = src->buffer;
  node.dst = dst->buffer;
  node.src_offset = src_offset;
  node.dst_offset = dst_offset;
  node.bytes = bytes;
  hold(capture, src);
  hold(capture, dst);
  graph.nodes.push_back(std::move(node));
}

void refuse_in_capture(const devplug_stream_t& stream, const char* what, const char* why) {
  if (stream.capture == nullptr) return;
  drop_capture(stream);
  failed_precondition(std::string(what) + " on a stream that is capturing a graph: " +
                      (why != nullptr ? why : "it would wait for the device or touch host memory") +
                      ", which a graph cannot record. The capture has ended and its graph is "
                      "discarded; the stream is usable");
}

void refuse_device_capture(devplug_device_t& device, const char* what) {
  devplug_stream_t* capturing = nullptr;
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    for (devplug_stream_t* s = device.streams.head(); s != nullptr && capturing == nullptr; s = s->live_next)
      if (s->capture_thread.load(std::memory_order_acquire) == std::this_thread::get_id()) capturing = s;
  }
  if (capturing != nullptr) refuse_in_capture(*capturing, what);
}

void abandon_capture(devplug_stream_t& stream) noexcept {
  if (stream.capture == nullptr) return;
  drop_capture(stream);
}

void launch_graph(devplug_graph_t& graph, devplug_stream_t& stream,
                  const devplug_graph_launch_options_t* options) {
  if (stream.device != graph.device)
    invalid_argument("stream belongs to device " + std::to_string(stream.device->index) + " of plugin " +
                     stream.device->plugin->name + ", not to the graph's device " +
                     std::to_string(graph.device->index) + " of plugin " + graph.device->plugin->name);
  uint64_t shift = graph.launches * graph.philox_blocks;
  if (options != nullptr) {
    if (options->struct_size < offsetof(devplug_graph_launch_options_t, philox_shift) + sizeof(uint64_t))
      invalid_argument("options->struct_size is " + std::to_string(options->struct_size) + ", smaller than " +
                       std::to_string(sizeof(devplug_graph_launch_options_t)));
    if (options->flags & ~DEVPLUG_GRAPH_LAUNCH_PHILOX_SHIFT)
      invalid_argument("options->flags has unknown bits " + std::to_string(options->flags));
    if (options->flags & DEVPLUG_GRAPH_LAUNCH_PHILOX_SHIFT) shift = options->philox_shift;
  }
  refuse_in_capture(stream, "a graph launch");
  const devplug_plugin_t& plugin = *graph.device->plugin;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    GraphNode& node = graph.nodes[n];
    devplug_error_t* error = nullptr;
    if (node.fn == nullptr) {
      error = plugin.api->buffer_copy(stream.native, node.src, node.src_offset, node.dst, node.dst_offset,
                                      node.bytes);
    } else {
      if (node.random) {
        const uint64_t offset = node.philox_offset + shift;
        std::memcpy(node.attrs.data() + node.philox_at, &offset, sizeof(offset));
      }
      error = node.fn(stream.native, &node.call);
    }
    if (error != nullptr) {
      const std::string what = "graph node " + std::to_string(n) + " (" +
                               (node.fn == nullptr ? std::string("buffer_copy") : devplug_op_name(node.op)) +
                               ")";
      throw_plugin_error(plugin, error, what.c_str());
    }
  }
  ++graph.launches;
}

void destroy_graph(devplug_graph_t* graph) {
  devplug_device_t& device = *graph->device;
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    device.graphs.remove(graph);
  }
  try {
    device.synchronize();
  } catch (...) {
    delete_graph(graph);
    throw;
  }
  delete_graph(graph);
}

void free_graph(devplug_graph_t* graph) noexcept { delete_graph(graph); }

}  // namespace devplug::detail
