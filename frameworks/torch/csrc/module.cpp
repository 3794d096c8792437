// SPDX-License-Identifier: Apache-2.0
// torch_devplug._C: the Python side's handle on the bridge (devices, fallback counts,
// strict mode, the op table, default generators). Importing it registers the allocator,
// device guard, hooks, fallback and kernels (static registrations in the other files).
#include <torch/csrc/Generator.h>
#include <torch/extension.h>

#include "fallback.hpp"
#include "generator.hpp"
#include "ops/ops.hpp"
#include "runtime.hpp"
#include "storage.hpp"

namespace py = pybind11;
using namespace devplug::bridge;

namespace {

template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const devplug::Error& e) {
    throw_torch_error(e);
  }
}

py::list devices() {
  return guarded([] {
    py::list out;
    Runtime& runtime = Runtime::get();
    for (c10::DeviceIndex i = 0; i < runtime.device_count(); ++i) {
      const DeviceSlot& slot = runtime.slot(i);
      const devplug_device_properties_t p = slot.device.properties();
      py::dict d;
      d["index"] = static_cast<int>(i);
      d["plugin"] = slot.plugin;
      d["name"] = slot.name;
      d["vendor"] = std::string(p.vendor);
      d["memory_bytes"] = p.memory_bytes;
      out.append(d);
    }
    return out;
  });
}

py::dict devplug_fallback_counts() {
  return guarded([] {
    py::dict out;
    devplug::Context& context = Runtime::get().context();
    for (int op = 1; op < DEVPLUG_OP_END_; ++op) {
      const char* name = devplug_op_name(op);
      if (name == nullptr) continue;
      const uint64_t n = context.fallback_count(op);
      if (n > 0) out[py::str(name)] = n;
    }
    return out;
  });
}

py::list native_ops() {
  py::list out;
  for (const OpRow& row : op_rows()) out.append(py::make_tuple(row.aten, impl_name(row.impl), row.via));
  return out;
}

py::object python_default_generator(int index) {
  const at::Generator& g = default_generator(static_cast<c10::DeviceIndex>(index));
  return py::reinterpret_steal<py::object>(THPGenerator_initDefaultGenerator(g));
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "torch_devplug's C++ bridge: PyTorch's PrivateUse1 backend over devplug's host API";
  m.def("_version", [] { return devplug::version(); });
  m.def("_device_count", [] { return static_cast<int>(Runtime::get().device_count()); });
  m.def("_runtime_exists", [] { return Runtime::exists(); });
  m.def("_no_device_reason", [] { return Runtime::get().no_device_reason(); });
  m.def("_devices", &devices);
  m.def("_current_device", [] { return static_cast<int>(current_device()); });
  m.def("_set_device", [](int index) { set_current_device(static_cast<c10::DeviceIndex>(index)); });
  m.def("_synchronize", [](int index) {
    guarded([&] { Runtime::get().device(static_cast<c10::DeviceIndex>(index)).synchronize(); });
  });
  m.def("_fallback_counts", [] {
    py::dict out;
    for (const auto& [op, n] : fallback_counts()) out[py::str(op)] = n;
    return out;
  });
  m.def("_reset_fallback_counts", &reset_fallback_counts);
  m.def("_devplug_fallback_counts", &devplug_fallback_counts);
  m.def("_strict", &strict);
  m.def("_set_strict", &set_strict);
  m.def("_context_strict", [] { return Runtime::get().context_strict(); });
  m.def("_native_ops", &native_ops);
  m.def("_default_generator", &python_default_generator);
  m.def("_manual_seed_all", [](uint64_t seed) { manual_seed_all(seed); });
}
