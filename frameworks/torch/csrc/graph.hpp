// SPDX-License-Identifier: Apache-2.0
// torch.accelerator.Graph on devplug devices (graph.cpp).
#pragma once

namespace devplug::bridge {

// Registers devplug's graph implementation with torch under the PrivateUse1 backend's
// current name; call after the backend is renamed. Idempotent.
void register_graph_impl();

}  // namespace devplug::bridge
