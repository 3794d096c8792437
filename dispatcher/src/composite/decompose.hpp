// SPDX-License-Identifier: Apache-2.0
// Running a composite op through its decomposition into prims (one function per composite,
// in dispatcher/src/composite/*.cpp, found through a table generated from ops.def).
#pragma once

#include "../op_call.hpp"
#include "../stream_event.hpp"
#include "../tensor.hpp"

namespace devplug::detail {

// Runs the decomposition of composite `op` on `stream`: a validated call whose absent
// optional tensors are NULL. Its prims (and any composite it uses) go through dispatch_op,
// so the device's kernels run them. Throws on error.
void run_decomposition(devplug_stream_t& stream, const OpCall& call);

}  // namespace devplug::detail
