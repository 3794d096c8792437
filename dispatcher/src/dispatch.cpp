// SPDX-License-Identifier: Apache-2.0
// devplug_op_call's engine: validate, look the kernel up in the plugin's dense table, run it
// (materializing dense operands when it asks), fall back to the CPU when it cannot, trace.
// A composite op runs the device's native kernel when there is one, else its decomposition
// (composite/decompose.hpp); it never falls back to the CPU itself.
#include "dispatch.hpp"

#include <string>
#include <vector>

#include "api_guard.hpp"
#include "composite/decompose.hpp"
#include "context.hpp"
#include "copy.hpp"
#include "device.hpp"
#include "fallback.hpp"
#include "kernel_call.hpp"
#include "plugin_record.hpp"
#include "trace.hpp"
#include "validate.hpp"

namespace devplug::detail {
namespace {

// "[2,3] [2,3] -> [2,3]": the shapes of a call, for the trace.
std::string shapes_text(const OpCall& call) {
  std::string text;
  auto add = [&](const devplug_tensor_t* t) {
    if (t == nullptr) {  // an absent optional tensor
      text += '-';
      return;
    }
    text += '[';
    for (int32_t d = 0; d < t->layout.rank; ++d) {
      if (d > 0) text += ',';
      text += std::to_string(t->layout.shape[d]);
    }
    text += ']';
  };
  for (size_t i = 0; i < call.n_inputs; ++i) {
    if (i > 0) text += ' ';
    add(call.inputs[i]);
  }
  text += " -> ";
  for (size_t i = 0; i < call.n_outputs; ++i) {
    if (i > 0) text += ' ';
    add(call.outputs[i]);
  }
  return text;
}

void check_devices(const devplug_stream_t& stream, const devplug_tensor_t* const* tensors, size_t n,
                   const char* what) {
  for (size_t i = 0; i < n; ++i)
    if (tensors[i] != nullptr && &tensors[i]->device() != stream.device)
      invalid_argument(std::string(what) + "[" + std::to_string(i) + "] is on device " +
                       std::to_string(tensors[i]->device().index) + " of plugin " +
                       tensors[i]->plugin().name + ", not on the stream's device " +
                       std::to_string(stream.device->index) + " of plugin " + stream.device->plugin->name);
}

void validate(const OpCall& call) {
  const size_t n_inputs = call.n_inputs, n_outputs = call.n_outputs;
  CallTensor in_stack[kStackTensors];
  CallTensor out_stack[kStackTensors];
  std::vector<CallTensor> in_heap, out_heap;
  CallTensor* in = in_stack;
  CallTensor* out = out_stack;
  if (n_inputs > kStackTensors) {
    in_heap.resize(n_inputs);
    in = in_heap.data();
  }
  if (n_outputs > kStackTensors) {
    out_heap.resize(n_outputs);
    out = out_heap.data();
  }
  auto call_tensor = [](const devplug_tensor_t* t) {
    return t == nullptr ? CallTensor{nullptr, nullptr} : CallTensor{&t->layout, t->storage};
  };
  for (size_t i = 0; i < n_inputs; ++i) in[i] = call_tensor(call.inputs[i]);
  for (size_t i = 0; i < n_outputs; ++i) out[i] = call_tensor(call.outputs[i]);
  Problem problem = validate_call(call.op, in, n_inputs, out, n_outputs, call.attrs);
  if (!problem.empty()) invalid_argument(problem);
}

bool needs_dense(const KernelSlot& slot, const OpCall& call) {
  if (slot.flags & DEVPLUG_KERNEL_DENSE_INPUTS)
    for (size_t i = 0; i < call.n_inputs; ++i)
      if (call.inputs[i] != nullptr && !is_contiguous(call.inputs[i]->layout)) return true;
  if (slot.flags & DEVPLUG_KERNEL_DENSE_OUTPUTS)
    for (size_t i = 0; i < call.n_outputs; ++i)
      if (call.outputs[i] != nullptr && !is_contiguous(call.outputs[i]->layout)) return true;
  return false;
}

// Runs a kernel that wants dense operands: non-contiguous inputs are copied into dense
// temporaries first (the plugin's copy_strided, else through the host); non-contiguous
// outputs are computed into dense temporaries and copied back afterwards.
devplug_error_t* call_dense(devplug_stream_t& stream, const KernelSlot& slot, const OpCall& call) {
  std::vector<TensorPtr> temps;
  std::vector<const devplug_tensor_t*> in(call.inputs, call.inputs + call.n_inputs);
  std::vector<const devplug_tensor_t*> out(call.outputs, call.outputs + call.n_outputs);
  if (slot.flags & DEVPLUG_KERNEL_DENSE_INPUTS) {
    for (auto& t : in) {
      if (t == nullptr || is_contiguous(t->layout)) continue;
      const Layout& l = t->layout;
      temps.emplace_back(new_tensor(*stream.device, contiguous_layout(l.dtype, l.rank, l.shape)));
      copy_tensor(stream, *temps.back(), *t);
      t = temps.back().get();
    }
  }
  std::vector<size_t> copied_back;
  if (slot.flags & DEVPLUG_KERNEL_DENSE_OUTPUTS) {
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] == nullptr || is_contiguous(out[i]->layout)) continue;
      const Layout& l = out[i]->layout;
      temps.emplace_back(new_tensor(*stream.device, contiguous_layout(l.dtype, l.rank, l.shape)));
      out[i] = temps.back().get();
      copied_back.push_back(i);
    }
  }
  devplug_error_t* error = call_kernel(
      stream, slot.fn, OpCall{call.op, in.data(), in.size(), out.data(), out.size(), call.attrs, call.dtype});
  if (error != nullptr) return error;
  for (size_t i : copied_back) copy_tensor(stream, *call.outputs[i], *out[i]);
  return nullptr;
}

// Device spans for the trace: two events recorded around an op's work on `stream`, when the
// stream's plugin measures events (the event_timestamps extension). Any failure gives an
// empty span (no device time for that op), never an error.
void drop_event(const devplug_plugin_t& plugin, devplug_event_handle_t* event) noexcept {
  if (event != nullptr) drop_plugin_error(plugin, plugin.api->event_destroy(event));
}

devplug_event_handle_t* recorded_event(const devplug_stream_t& stream) noexcept {
  const devplug_plugin_t& plugin = *stream.device->plugin;
  devplug_event_handle_t* event = nullptr;
  devplug_device_handle_t* device = stream.device->native.load(std::memory_order_acquire);
  if (devplug_error_t* e = plugin.api->event_create(device, &event)) {
    drop_plugin_error(plugin, e);
    return nullptr;
  }
  if (devplug_error_t* e = plugin.api->event_record(event, stream.native)) {
    drop_plugin_error(plugin, e);
    drop_event(plugin, event);
    return nullptr;
  }
  return event;
}

Trace::DeviceSpan begin_span(const devplug_stream_t& stream) noexcept {
  const devplug_plugin_t& plugin = *stream.device->plugin;
  Trace::DeviceSpan span;
  if (plugin.event_timestamps == nullptr) return span;
  span.api = plugin.api;
  span.timestamps = plugin.event_timestamps;
  span.start = recorded_event(stream);
  return span;
}

// Ends `span` on `stream`; a span of work that fell back (ran elsewhere) is dropped.
Trace::DeviceSpan end_span(const devplug_stream_t& stream, Trace::DeviceSpan span, bool ran_here) noexcept {
  const devplug_plugin_t& plugin = *stream.device->plugin;
  if (span.start == nullptr) return {};
  if (ran_here) span.end = recorded_event(stream);
  if (span.end == nullptr) {
    drop_event(plugin, span.start);
    return {};
  }
  return span;
}

// A validated composite call: the device's native kernel unless the context decomposes
// every composite (or the kernel answers UNIMPLEMENTED), else the decomposition.
void run_composite(devplug_stream_t& stream, const OpCall& call) {
  const devplug_context_t& context = *stream.device->plugin->context;
  Trace* trace = context.trace.get();
  const uint64_t start = trace != nullptr ? trace_now_ns() : 0;
  Trace::DeviceSpan span = trace != nullptr ? begin_span(stream) : Trace::DeviceSpan{};
  bool native = false;
  try {
    native = !context.decompose && run_on_device(stream, call);
    if (!native) run_decomposition(stream, call);
  } catch (...) {
    end_span(stream, span, false);  // drops the span's event
    throw;
  }
  if (trace != nullptr)
    trace->record(call.op, call.dtype, shapes_text(call), stream.device->plugin->name,
                  native ? "native" : "decomposed", start, trace_now_ns(), end_span(stream, span, native));
}

// The kernel for a validated call on `stream`'s device, or an empty slot.
const KernelSlot& lookup_kernel(const devplug_stream_t& stream, const OpCall& call) {
  devplug_dtype_mask_t call_dtypes = 0;
  for (size_t i = 0; i < call.n_inputs; ++i)
    if (call.inputs[i] != nullptr) call_dtypes |= DEVPLUG_DTYPE_BIT(call.inputs[i]->layout.dtype);
  for (size_t i = 0; i < call.n_outputs; ++i)
    if (call.outputs[i] != nullptr) call_dtypes |= DEVPLUG_DTYPE_BIT(call.outputs[i]->layout.dtype);
  return stream.device->kernel(call.op, call.dtype, call_dtypes);
}

// A kernel's answer: true on success, false for UNIMPLEMENTED (the caller falls back);
// any other error is thrown.
bool settle(const devplug_stream_t& stream, devplug_error_t* error, devplug_op_t op) {
  if (error == nullptr) return true;
  if (error == declined_error()) return false;  // the claims hook declined it: not the plugin's
  const devplug_plugin_t& plugin = *stream.device->plugin;
  if (error->code == DEVPLUG_CODE_UNIMPLEMENTED) {
    drop_plugin_error(plugin, error);
    return false;
  }
  throw_plugin_error(plugin, error, devplug_op_name(op));
}

// Runs `slot`'s kernel (a non-empty slot); false when it answers UNIMPLEMENTED.
bool run_slot(devplug_stream_t& stream, const KernelSlot& slot, const OpCall& call) {
  devplug_error_t* error =
      needs_dense(slot, call) ? call_dense(stream, slot, call) : call_kernel(stream, slot.fn, call);
  return settle(stream, error, call.op);
}

}  // namespace

bool run_on_device(devplug_stream_t& stream, const OpCall& call) {
  const KernelSlot& slot = lookup_kernel(stream, call);
  return slot.fn != nullptr && run_slot(stream, slot, call);
}

void dispatch_op(devplug_stream_t& stream, const OpCall& call) {
  // The hot path: the same prim call as the last one validated on this stream, whose kernel
  // takes its operands as they are.
  if (const KernelSlot* slot = stream.last_call.match(call)) {
    if (!settle(stream, call_kernel(stream, slot->fn, call), call.op))
      run_fallback(stream, call.with_dtype(stream.last_call.dtype()));
    return;
  }

  check_devices(stream, call.inputs, call.n_inputs, "inputs");
  check_devices(stream, call.outputs, call.n_outputs, "outputs");
  validate(call);
  const devplug_op_info_t& info = *devplug_op_info(call.op);  // validate() knows the op
  // The call with its dispatch dtype: what the kernel lookup, the fallback and the trace use.
  const OpCall typed = call.with_dtype(dispatch_dtype(info, call.inputs, call.outputs));
  if (info.category == DEVPLUG_CATEGORY_composite) {
    run_composite(stream, typed);
    return;
  }

  const KernelSlot& slot = lookup_kernel(stream, typed);
  Trace* trace = stream.device->plugin->context->trace.get();
  if (trace == nullptr) {  // the only cost of tracing when DEVPLUG_TRACE is unset
    // Remembered only when the next identical call can go straight to the kernel; a traced
    // call never is, so every traced call is recorded.
    if (slot.fn != nullptr && !needs_dense(slot, typed)) stream.last_call.remember(info, typed, slot);
    if (slot.fn == nullptr || !run_slot(stream, slot, typed)) run_fallback(stream, typed);
    return;
  }
  const uint64_t start = trace_now_ns();
  Trace::DeviceSpan span = begin_span(stream);
  bool fell_back = false;
  try {
    if (slot.fn == nullptr || !run_slot(stream, slot, typed)) {
      run_fallback(stream, typed);
      fell_back = true;
    }
  } catch (...) {
    end_span(stream, span, false);  // drops the span's event
    throw;
  }
  trace->record(typed.op, typed.dtype, shapes_text(typed), stream.device->plugin->name,
                fell_back ? "fallback" : "kernel", start, trace_now_ns(), end_span(stream, span, !fell_back));
}

}  // namespace devplug::detail
