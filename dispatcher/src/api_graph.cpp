// SPDX-License-Identifier: Apache-2.0
// C entry points: graph capture on a stream, launch and destruction (graph.hpp).
#include <cstddef>

#include "api_guard.hpp"
#include "graph.hpp"
#include "stream_event.hpp"

using namespace devplug::detail;

extern "C" {

DEVPLUG_API devplug_error_t* devplug_stream_begin_capture(devplug_stream_t* stream) {
  return guard([&] {
    require_handle(stream, "stream");
    begin_capture(*stream);
  });
}

DEVPLUG_API devplug_error_t* devplug_stream_end_capture(devplug_stream_t* stream,
                                                        devplug_graph_t** out_graph) {
  return guard([&] {
    require_not_null(out_graph, "out_graph");
    *out_graph = nullptr;
    require_handle(stream, "stream");
    *out_graph = end_capture(*stream);
  });
}

DEVPLUG_API devplug_error_t* devplug_stream_is_capturing(devplug_stream_t* stream, bool* out_capturing) {
  return guard([&] {
    require_not_null(out_capturing, "out_capturing");
    *out_capturing = false;
    require_handle(stream, "stream");
    *out_capturing = stream->capture != nullptr;
  });
}

DEVPLUG_API devplug_error_t* devplug_graph_get_info(const devplug_graph_t* graph,
                                                    devplug_graph_info_t* out_info) {
  return guard([&] {
    require_graph(graph, "graph");
    require_not_null(out_info, "out_info");
    if (out_info->struct_size < sizeof(devplug_graph_info_t))
      invalid_argument("out_info->struct_size is " + std::to_string(out_info->struct_size) +
                       ", smaller than " + std::to_string(sizeof(devplug_graph_info_t)));
    devplug_graph_info_t info{};
    info.struct_size = sizeof(info);
    for (const GraphNode& node : graph->nodes) ++(node.fn != nullptr ? info.kernel_nodes : info.copy_nodes);
    info.temporaries = graph->temporaries;
    info.pool_buffers = graph->pool.size();
    for (const PoolBuffer& b : graph->pool) info.pool_bytes += b.bytes;
    info.temporary_bytes = graph->temporary_bytes;
    info.philox_blocks = graph->philox_blocks;
    info.launches = graph->launches;
    *out_info = info;
  });
}

DEVPLUG_API devplug_error_t* devplug_graph_launch(devplug_graph_t* graph, devplug_stream_t* stream,
                                                  const devplug_graph_launch_options_t* options) {
  return guard([&] {
    require_graph(graph, "graph");
    require_handle(stream, "stream");
    launch_graph(*graph, *stream, options);
  });
}

DEVPLUG_API devplug_error_t* devplug_graph_destroy(devplug_graph_t* graph) {
  return guard([&] {
    if (graph == nullptr) return;
    require_graph(graph, "graph");
    destroy_graph(graph);
  });
}

}  // extern "C"
