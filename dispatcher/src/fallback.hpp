// SPDX-License-Identifier: Apache-2.0
// The CPU fallback: an op the device's plugin lacks (no kernel for the dispatch dtype, or
// UNIMPLEMENTED from its kernel) runs on the reference plugin through host staging: inputs
// are copied to the host and into reference buffers, the reference kernel runs, outputs
// come back the same way. The first fallback of each op prints one warning to stderr;
// every fallback is counted (devplug_context_fallback_count). A strict context
// (DEVPLUG_CONTEXT_STRICT or DEVPLUG_STRICT=1) answers UNIMPLEMENTED instead, and
// DEVPLUG_CONTEXT_NO_FALLBACK disables it. The reference plugin is the loaded plugin named
// "reference", else libdevplug_reference.so from the install's plugin folder, loaded for
// this purpose only (its devices are not listed).
#pragma once

#include "op_call.hpp"
#include "stream_event.hpp"
#include "tensor.hpp"

namespace devplug::detail {

// Runs a validated call (its dtype set) on the reference backend. Throws UNIMPLEMENTED when
// fallback is not allowed or not possible.
void run_fallback(devplug_stream_t& stream, const OpCall& call);

}  // namespace devplug::detail
