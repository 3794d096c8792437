// SPDX-License-Identifier: Apache-2.0
// The CPU fallback through the reference plugin (see fallback.hpp).
#include "fallback.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "api_guard.hpp"
#include "context.hpp"
#include "copy.hpp"
#include "device.hpp"
#include "devplug/sdk/fault.hpp"
#include "dispatch.hpp"
#include "plugin_record.hpp"

namespace devplug::detail {
namespace {

[[noreturn]] void unimplemented(const std::string& message) {
  throw Error(DEVPLUG_CODE_UNIMPLEMENTED, message);
}

std::string op_text(devplug_op_t op, devplug_dtype_t dtype) {
  return std::string(devplug_op_name(op)) + " (" + devplug_dtype_name(dtype) + ")";
}

// The reference plugin: a loaded plugin named "reference", else the install folder's
// libdevplug_reference.so loaded for the fallback alone. Throws UNIMPLEMENTED with the
// reason when neither can be had (remembered, so later calls do not retry the load).
devplug_plugin_t& reference_plugin(devplug_context_t& context, const std::string& what) {
  if (devplug_plugin_t* found = context.reference.load(std::memory_order_acquire)) return *found;
  std::lock_guard<std::mutex> lock(context.mutex);
  if (devplug_plugin_t* found = context.reference.load(std::memory_order_relaxed)) return *found;
  for (const auto& plugin : context.plugins) {
    if (plugin->name == "reference" && !plugin->devices.empty()) {
      context.reference.store(plugin.get(), std::memory_order_release);
      return *plugin;
    }
  }
  if (context.reference_problem.empty()) {
    const std::string folder = install_plugin_folder();
    const std::string path = (std::filesystem::path(folder) / "libdevplug_reference.so").string();
    try {
      if (folder.empty()) throw LoadError("the folder of libdevplug is unknown");
      auto record = make_plugin_record(&context, load_library(canonical_plugin_path(path)));
      if (record->devices.empty()) throw LoadError("it reports no device");
      context.fallback_plugin = std::move(record);
      context.reference.store(context.fallback_plugin.get(), std::memory_order_release);
      return *context.fallback_plugin;
    } catch (const LoadError& e) {
      context.reference_problem = "the CPU reference backend " + path + " cannot be loaded: " + e.what();
    }
  }
  unimplemented(what + "; " + context.reference_problem);
}

// When the plugin declares the kernel but this device does not run a dtype of the call (a
// per-device claim): " on device 1 ('name'), which does not run float64"; when the device has
// a claims hook (ABI 1.2), which may have declined the call, that. Else "".
std::string device_claim_note(const devplug_device_t& device, const OpCall& call) {
  if (device.plugin->kernel(call.op, call.dtype).fn == nullptr) return "";
  devplug_dtype_mask_t missing = 0;
  for (size_t i = 0; i < call.n_inputs; ++i) missing |= DEVPLUG_DTYPE_BIT(call.inputs[i]->layout.dtype);
  for (size_t i = 0; i < call.n_outputs; ++i) missing |= DEVPLUG_DTYPE_BIT(call.outputs[i]->layout.dtype);
  missing &= ~device.dtypes;
  if (missing == 0 && device.supports != nullptr)
    return " on device " + std::to_string(device.index) + " ('" + device.properties.name +
           "'): its claims hook declined the call, or the kernel does not cover it";
  if (missing == 0) return "";
  std::string names;
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
    if (missing & DEVPLUG_DTYPE_BIT(d))
      names += std::string(names.empty() ? "" : ", ") + devplug_dtype_name(d);
  return " on device " + std::to_string(device.index) + " ('" + device.properties.name +
         "'), which does not run " + names;
}

}  // namespace

void run_fallback(devplug_stream_t& stream, const OpCall& call) {
  const devplug_op_t op = call.op;
  const devplug_tensor_t* const* inputs = call.inputs;
  const devplug_tensor_t* const* outputs = call.outputs;
  devplug_plugin_t& plugin = *stream.device->plugin;
  devplug_context_t& context = *plugin.context;
  const std::string what = op_text(op, call.dtype) + " is not implemented by plugin " + plugin.name +
                           device_claim_note(*stream.device, call);
  if (context.no_fallback) unimplemented(what + " (the context has no CPU fallback)");
  if (context.strict)
    unimplemented(what + " (strict mode, DEVPLUG_STRICT=1 or DEVPLUG_CONTEXT_STRICT: no CPU fallback)");
  if (plugin.name == "reference") unimplemented(what + " (it is the reference backend itself)");
  devplug_plugin_t& reference = reference_plugin(context, what);
  if (&reference == &plugin) unimplemented(what + " (it is the reference backend itself)");

  if (!context.fallback_warned[op].exchange(true))
    std::fprintf(stderr, "devplug: warning: %s; running it on the CPU reference backend\n", what.c_str());

  devplug_device_t& ref_device = *reference.devices[0];
  devplug_stream_t& ref_stream = *ref_device.default_stream();
  std::vector<TensorPtr> ref_inputs, ref_outputs;
  std::vector<const devplug_tensor_t*> in, out;
  std::vector<unsigned char> staging;
  for (size_t i = 0; i < call.n_inputs; ++i) {
    const Layout& l = inputs[i]->layout;
    ref_inputs.emplace_back(new_tensor(ref_device, contiguous_layout(l.dtype, l.rank, l.shape)));
    sdk::allocation_fault_point("host staging");
    staging.resize(dense_bytes(l));
    copy_to_host(stream, *inputs[i], staging.data(), staging.size());
    copy_from_host(ref_stream, *ref_inputs.back(), staging.data(), staging.size(), /*blocking=*/true);
    in.push_back(ref_inputs.back().get());
  }
  for (size_t i = 0; i < call.n_outputs; ++i) {
    const Layout& l = outputs[i]->layout;
    ref_outputs.emplace_back(new_tensor(ref_device, contiguous_layout(l.dtype, l.rank, l.shape)));
    out.push_back(ref_outputs.back().get());
  }
  if (!run_on_device(ref_stream,
                     OpCall{op, in.data(), in.size(), out.data(), out.size(), call.attrs, call.dtype}))
    unimplemented(what + ", nor by the CPU reference backend");
  for (size_t i = 0; i < call.n_outputs; ++i) {
    staging.resize(dense_bytes(outputs[i]->layout));
    copy_to_host(ref_stream, *out[i], staging.data(), staging.size());
    copy_from_host(stream, *outputs[i], staging.data(), staging.size(), /*blocking=*/true);
  }
  context.fallback_counts[op].fetch_add(1, std::memory_order_relaxed);
}

}  // namespace devplug::detail
