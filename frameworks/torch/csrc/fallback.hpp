// SPDX-License-Identifier: Apache-2.0
// The ops that run on torch's CPU instead of a devplug device, counted per op.
//
// An aten op with no devplug kernel reaches the boxed CPU fallback registered for the
// devplug dispatch key: its tensors are copied to the CPU, the CPU kernel runs, results are
// copied back. Each op warns once and every call is counted, so a model can be brought up
// op by op; strict mode (TORCH_DEVPLUG_STRICT=1 or DEVPLUG_STRICT=1 at start, or
// set_strict) turns a fallback into a NotImplementedError naming the op. Kernels that
// handle some cases natively and send the rest to the CPU themselves (transposed
// convolution, say) count through note_fallback, so the report is complete.
//
// Thread-safe.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <cstdint>
#include <map>
#include <string>

namespace devplug::bridge {

// The boxed CPU fallback itself: counts, warns, and runs the op on torch's CPU. Kernels
// that handle only some cases call it for the rest through at::native::call_fallback_fn.
void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);
// Records one CPU fallback of `op` ("aten::name.overload"); throws in strict mode.
void note_fallback(const std::string& op);
// Calls of each op that fell back since the last reset.
std::map<std::string, uint64_t> fallback_counts();
void reset_fallback_counts();
bool strict();
void set_strict(bool on);

}  // namespace devplug::bridge
