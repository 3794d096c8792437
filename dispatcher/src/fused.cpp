// SPDX-License-Identifier: Apache-2.0
// Fused programs (see fused.hpp).
#include "fused.hpp"

#include <memory>
#include <mutex>

#include "api_guard.hpp"
#include "composite/prims.hpp"
#include "device.hpp"
#include "devplug/sdk/checks.hpp"
#include "dispatch.hpp"
#include "layout.hpp"
#include "live_list.hpp"
#include "plugin_record.hpp"
#include "stream_event.hpp"
#include "tensor.hpp"

namespace devplug::detail {
namespace {

// Every program create_fused_program handed out and nobody destroyed yet.
LiveSet<devplug_fused_program_t> live_programs;

// The plugin's program (if any) destroyed, then the host object.
devplug_error_t* delete_program(devplug_fused_program_t* program) noexcept {
  devplug_error_t* error = nullptr;
  if (program->native != nullptr)
    error = program->device->plugin->fused_programs->fused_program_destroy(program->native);
  program->magic = 0;
  delete program;
  return error;
}

std::string dtype_text(devplug_dtype_t dtype) { return dtype_name_or(dtype); }

std::string shape_text(int32_t rank, const int64_t* shape) {
  std::string s = "[";
  for (int32_t d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

}  // namespace

devplug_fused_program_t* create_fused_program(devplug_device_t& device,
                                              const devplug_fused_program_desc_t& desc) {
  const char* entry = "devplug_fused_program_create";
  if (desc.struct_size < DEVPLUG_FUSED_PROGRAM_DESC_MIN_SIZE)
    invalid_argument("desc->struct_size is " + std::to_string(desc.struct_size) + ", at least " +
                     std::to_string(DEVPLUG_FUSED_PROGRAM_DESC_MIN_SIZE) + " expected");
  devplug::sdk::detail::checks::fused_program(DEVPLUG_CODE_INVALID_ARGUMENT, entry, &desc);

  auto program = std::make_unique<devplug_fused_program_t>();
  devplug_fused_program_t& p = *program;
  p.device = &device;
  p.program = devplug::sdk::FusedProgram::copy_of(desc);
  devplug_dtype_mask_t used = 0;
  for (devplug_dtype_t d : p.program.inputs) used |= DEVPLUG_DTYPE_BIT(d);
  for (const devplug_fused_node_t& n : p.program.nodes) used |= DEVPLUG_DTYPE_BIT(n.dtype);

  devplug_plugin_t& plugin = *device.plugin;
  if (plugin.fused_programs == nullptr) {
    p.why_op_by_op = "plugin " + plugin.name + " offers no fused_programs extension";
  } else if ((used & ~device.dtypes) != 0) {
    p.why_op_by_op = "the program has a dtype device " + std::to_string(device.index) + " does not claim";
  } else {
    const devplug_fused_program_desc_t copy = p.program.desc();
    devplug_error_t* error = plugin.fused_programs->fused_program_create(device.open(), &copy, &p.native);
    if (error != nullptr &&
        (error->code == DEVPLUG_CODE_UNIMPLEMENTED || error->code == DEVPLUG_CODE_RESOURCE_EXHAUSTED)) {
      p.why_op_by_op = std::string("plugin ") + plugin.name +
                       " did not build it: " + (error->message != nullptr ? error->message : "(no message)");
      p.native = nullptr;
      drop_plugin_error(plugin, error);
    } else {
      check_plugin(plugin, error, "fused_program_create");
    }
  }
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    device.programs.insert(&p);
  }
  live_programs.add(&p);
  return program.release();
}

devplug_fused_program_t* require_fused_program(devplug_fused_program_t* program, const char* what) {
  if (forked_after_init()) refuse_forked();
  require_not_null(program, what);
  if (!live_programs.contains(program))
    invalid_argument(std::string(what) + " is not a live fused program handle");
  return program;
}

void run_fused_program(devplug_stream_t& stream, const devplug_fused_program_t& p,
                       devplug_tensor_t* const* inputs, size_t n_inputs, devplug_tensor_t* const* outputs,
                       size_t n_outputs) {
  if (p.device != stream.device) invalid_argument("program was made for another device than the stream's");
  const devplug::sdk::FusedProgram& program = p.program;
  if (n_inputs != program.inputs.size() || n_outputs != program.outputs.size())
    invalid_argument(std::to_string(n_inputs) + " inputs and " + std::to_string(n_outputs) +
                     " outputs, the program takes " + std::to_string(program.inputs.size()) + " and " +
                     std::to_string(program.outputs.size()));
  if (inputs == nullptr || outputs == nullptr) invalid_argument("inputs or outputs is NULL");
  auto check = [&](devplug_tensor_t* t, const std::string& what) -> const devplug_tensor_t& {
    require_handle(t, what.c_str());
    if (&t->device() != stream.device) invalid_argument(what + " is on another device than the stream");
    return *t;
  };
  const Layout& first = check(inputs[0], "inputs[0]").layout;
  const int32_t rank = first.rank;
  const uint32_t tail_start = program.tail_start();
  const uint32_t tail_mask = program.tail_mask();
  int64_t reduced[DEVPLUG_MAX_RANK] = {};
  for (int32_t d = 0; d < rank; ++d) reduced[d] = (tail_mask >> d) & 1u ? 1 : first.shape[d];
  const uint32_t n_in = static_cast<uint32_t>(program.inputs.size());
  if (!program.tail_fits(rank))
    invalid_argument("the reduction tail's dims_mask " + std::to_string(tail_mask) +
                     " does not name trailing dims of the inputs' rank " + std::to_string(rank));
  auto expect = [&](const devplug_tensor_t& t, const std::string& what, devplug_dtype_t dtype,
                    const int64_t* shape) {
    if (t.layout.dtype != dtype)
      invalid_argument(what + " has dtype " + dtype_text(t.layout.dtype) + ", the program gives it " +
                       dtype_text(dtype));
    bool same = t.layout.rank == rank;
    for (int32_t d = 0; same && d < rank; ++d) same = t.layout.shape[d] == shape[d];
    if (!same)
      invalid_argument(what + " has shape " + shape_text(t.layout.rank, t.layout.shape) +
                       ", the program gives it " + shape_text(rank, shape));
  };
  for (size_t i = 0; i < n_inputs; ++i) {
    const std::string what = "inputs[" + std::to_string(i) + "]";
    expect(check(inputs[i], what), what, program.inputs[i], first.shape);
  }
  for (size_t j = 0; j < n_outputs; ++j) {
    const std::string what = "outputs[" + std::to_string(j) + "]";
    const devplug_tensor_t& out = check(outputs[j], what);
    const bool tail = program.outputs[j] >= n_in + tail_start;
    expect(out, what, program.dtype_of(program.outputs[j]), tail ? reduced : first.shape);
    // Outputs are written whole: no output overlaps itself or another output, and one that
    // shares memory with an input is exactly that input's view (read element for element).
    if (overlaps_itself(out.layout)) invalid_argument(what + " overlaps itself");
    for (size_t k = 0; k < j; ++k)
      if (outputs[k]->storage == out.storage && may_overlap(outputs[k]->layout, out.layout))
        invalid_argument(what + " may overlap outputs[" + std::to_string(k) + "]");
    for (size_t i = 0; i < n_inputs; ++i)
      if (inputs[i]->storage == out.storage && may_overlap(inputs[i]->layout, out.layout) &&
          !(same_view(inputs[i]->layout, out.layout) && !tail))
        invalid_argument(what + " may overlap inputs[" + std::to_string(i) + "] without being its view");
  }

  devplug_plugin_t& plugin = *stream.device->plugin;
  if (p.native != nullptr && stream.capture == nullptr) {
    std::vector<const devplug_tensor_desc_t*> in(n_inputs), out(n_outputs);
    for (size_t i = 0; i < n_inputs; ++i) in[i] = &inputs[i]->desc;
    for (size_t j = 0; j < n_outputs; ++j) out[j] = &outputs[j]->desc;
    check_plugin(plugin,
                 plugin.fused_programs->fused_program_launch(stream.native, p.native, in.data(), in.size(),
                                                             out.data(), out.size()),
                 "fused_program_launch");
    return;
  }

  // Op by op: each node into a temporary of its dtype through dispatch_op (the plugin's
  // kernel, or the fallback where it has none), then the outputs, written last.
  composite::Prims prims(stream);
  std::vector<composite::Tensor> values;
  for (size_t i = 0; i < n_inputs; ++i) values.push_back(composite::Prims::borrow(inputs[i]));
  const composite::Shape full(first.shape, first.shape + rank);
  const composite::Shape tail_shape(reduced, reduced + rank);
  for (uint32_t k = 0; k < program.nodes.size(); ++k) {
    const devplug_fused_node_t& n = program.nodes[k];
    const devplug_op_info_t* info = devplug_op_info(n.op);
    composite::Tensor result = prims.empty(n.dtype, k >= tail_start ? tail_shape : full);
    const devplug_tensor_t* args[3] = {};
    for (int32_t a = 0; a < info->n_inputs; ++a) args[a] = values[n.args[a]].get();
    const devplug_tensor_t* outs[1] = {result.get()};
    dispatch_op(stream, OpCall{n.op, args, static_cast<size_t>(info->n_inputs), outs, 1, n.attrs});
    values.push_back(std::move(result));
  }
  for (size_t j = 0; j < n_outputs; ++j) {
    const devplug_tensor_t* from[1] = {values[program.outputs[j]].get()};
    const devplug_tensor_t* to[1] = {outputs[j]};
    dispatch_op(stream, OpCall{DEVPLUG_OP_convert_element_type, from, 1, to, 1, nullptr});
  }
}

void destroy_fused_program(devplug_fused_program_t* program) {
  live_programs.remove(program);
  devplug_device_t& device = *program->device;
  {
    std::lock_guard<std::mutex> lock(device.mutex);
    device.programs.remove(program);
  }
  check_plugin(*device.plugin, delete_program(program), "fused_program_destroy");
}

void free_fused_program(devplug_fused_program_t* program) noexcept {
  live_programs.remove(program);
  devplug_plugin_t& plugin = *program->device->plugin;
  drop_plugin_error(plugin, delete_program(program));
}

}  // namespace devplug::detail
