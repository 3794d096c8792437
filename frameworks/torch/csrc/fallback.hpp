// SPDX-License-Identifier: Apache-2.0
// The ops that run on torch's CPU instead of a devplug device, counted per op.
//
// An aten op with no devplug kernel reaches the boxed CPU fallback registered for the
// devplug dispatch key: its tensors are copied to the CPU, the CPU kernel runs, results are
// copied back. Each op warns once and every call is counted, so a model can be brought up
// op by op; strict mode (TORCH_DEVPLUG_STRICT=1 or DEVPLUG_STRICT=1 at start, or
// set_strict) turns a fallback into a NotImplementedError naming the op. A kernel that
// handles some calls natively leaves the rest to the CPU by throwing OnCpu (a dtype its
// devplug op does not allow, say), which its registration wrapper turns into this same
// fallback of the same op; kernels that run another op on the CPU themselves (transposed
// convolution, whose aten op has no CPU kernel) count through note_fallback, so the report
// is complete.
//
// Thread-safe.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <cstdint>
#include <map>
#include <string>

namespace devplug::bridge {

// The boxed CPU fallback itself: counts, warns, and runs the op on torch's CPU.
void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// Thrown by a kernel, before it has written anything, for a call it leaves to torch's CPU:
// a dtype outside its devplug op's dtype set (integer matmul, bool scatter_add, ...). The
// kernel's registration wrapper (DEVPLUG_KERNEL, kernel.hpp) catches it and runs the same
// aten op through cpu_fallback: counted, warned once and refused in strict mode like any op
// without a devplug kernel. Throw it from the registered kernel or a helper it calls
// directly: a kernel reached through torch's dispatcher falls back on its own.
struct OnCpu {};
// The operator torch registered as `aten`, in a registration's spelling ("mm.out").
c10::OperatorHandle aten_op(const std::string& aten);
// Records one CPU fallback of `op` ("aten::name.overload"); throws in strict mode.
void note_fallback(const std::string& op);
// Calls of each op that fell back since the last reset.
std::map<std::string, uint64_t> fallback_counts();
void reset_fallback_counts();
bool strict();
void set_strict(bool on);

}  // namespace devplug::bridge
