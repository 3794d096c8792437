// SPDX-License-Identifier: Apache-2.0
// Running a prim: validation, the dense kernel table lookup, dense materialization for
// kernels that ask for it, the CPU fallback and tracing.
#pragma once

#include "op_call.hpp"
#include "stream_event.hpp"
#include "tensor.hpp"

namespace devplug::detail {

// Runs `call` (a prim or a composite) on `stream` as devplug_op_call promises: every tensor
// must live on the stream's device; the call is validated (INVALID_ARGUMENT naming the
// argument); the plugin's kernel runs, or the CPU fallback when the plugin has none or
// answers UNIMPLEMENTED (unless the context is strict or has no fallback). Throws on error.
void dispatch_op(devplug_stream_t& stream, const OpCall& call);

// Runs a validated call (its dtype set) on `stream`'s plugin only (materializing dense
// operands when its kernel asks). Returns false when the plugin has no kernel or answers
// UNIMPLEMENTED; throws any other error.
bool run_on_device(devplug_stream_t& stream, const OpCall& call);

}  // namespace devplug::detail
