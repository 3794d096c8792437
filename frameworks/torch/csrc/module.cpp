// SPDX-License-Identifier: Apache-2.0
// torch_devplug._C: the Python side's handle on the bridge (devices, fallback counts,
// strict mode, the op table, default generators). Importing it registers the allocator,
// device guard, hooks, fallback and kernels (static registrations in the other files).
#include <c10/core/CachingDeviceAllocator.h>
#include <torch/csrc/Generator.h>
#include <torch/csrc/Storage.h>
#include <torch/python.h>

#include "dlpack.hpp"
#include "fallback.hpp"
#include "generator.hpp"
#include "graph.hpp"
#include "pinned.hpp"
#include "profiler.hpp"
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
      py::list dtypes;  // the dtypes the device claims; a claim of 0 is every dtype
      for (int k = 0; k < DEVPLUG_DTYPE_COUNT; ++k)
        if (p.dtypes == 0 || (p.dtypes & DEVPLUG_DTYPE_BIT(k)))
          dtypes.append(py::handle(
              reinterpret_cast<PyObject*>(torch::getTHPDtype(torch_dtype(static_cast<devplug_dtype_t>(k))))));
      d["dtypes"] = dtypes;
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

// devplug's allocator statistics of one device, with torch.cuda.memory_stats()'s keys
// ("allocated_bytes.all.current", ...; devplug has one pool, so "all" is the whole story).
py::dict python_memory_stats(int index) {
  const devplug_memory_stats_t s = devplug::bridge::memory_stats(static_cast<c10::DeviceIndex>(index));
  py::dict out;
  auto put = [&](const char* name, const devplug_memory_stat_t& stat) {
    const std::string prefix = std::string(name) + ".all.";
    out[py::str(prefix + "current")] = stat.current;
    out[py::str(prefix + "peak")] = stat.peak;
    out[py::str(prefix + "allocated")] = stat.allocated;
    out[py::str(prefix + "freed")] = stat.freed;
  };
  put("allocated_bytes", s.allocated_bytes);
  put("active_bytes", s.allocated_bytes);
  put("requested_bytes", s.requested_bytes);
  put("reserved_bytes", s.reserved_bytes);
  put("allocation", s.allocations);
  put("active", s.allocations);
  put("segment", s.segments);
  out["num_device_alloc"] = s.plugin_allocations;
  out["num_device_free"] = s.plugin_releases;
  out["num_alloc_retries"] = s.out_of_memory_retries;
  out["num_ooms"] = s.out_of_memory_errors;
  return out;
}

py::object python_default_generator(int index) {
  const at::Generator& g = default_generator(static_cast<c10::DeviceIndex>(index));
  return py::reinterpret_steal<py::object>(THPGenerator_initDefaultGenerator(g));
}

const c10::Storage& unpack_storage(py::handle object) {
  TORCH_CHECK_TYPE(THPStorage_Check(object.ptr()), "devplug: expected a torch.UntypedStorage, got ",
                   py::str(py::type::of(object)).cast<std::string>());
  return THPStorage_Unpack(object.ptr());
}

}  // namespace

namespace devplug::bridge {
void register_distributed(py::module& m);  // distributed.cpp
}  // namespace devplug::bridge

PYBIND11_MODULE(_C, m) {
  m.doc() = "torch_devplug's C++ bridge: PyTorch's PrivateUse1 backend over devplug's host API";
  m.def("_version", [] { return devplug::version(); });
  m.def("_device_count", [] { return static_cast<int>(device_count()); });
  m.def("_runtime_exists", [] { return Runtime::exists(); });
  m.def("_in_bad_fork", &in_bad_fork);
  m.def("_register_graph_impl", &register_graph_impl);
  m.def("_lazy_init", [] { Runtime::get(); });
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
  m.def("_memory_stats", &python_memory_stats);
  m.def("_reset_memory_stats", [](int index, uint32_t what) {
    devplug::bridge::reset_memory_stats(static_cast<c10::DeviceIndex>(index), what);
  });
  m.def("_memory_reset_peaks", [] { return DEVPLUG_MEMORY_RESET_PEAKS; });
  m.def("_memory_reset_totals", [] { return DEVPLUG_MEMORY_RESET_TOTALS; });
  m.def("_host_memory_stats", [] {
    const at::HostStats s = devplug::bridge::pinned_allocator()->get_stats();
    py::dict out;
    out["allocations.current"] = s.allocations.current;
    out["allocations.peak"] = s.allocations.peak;
    out["allocations.allocated"] = s.allocations.allocated;
    out["allocations.freed"] = s.allocations.freed;
    out["allocated_bytes.current"] = s.allocated_bytes.current;
    out["allocated_bytes.peak"] = s.allocated_bytes.peak;
    out["allocated_bytes.allocated"] = s.allocated_bytes.allocated;
    out["allocated_bytes.freed"] = s.allocated_bytes.freed;
    return out;
  });
  m.def("_empty_cache", [] { c10::getDeviceAllocator(c10::DeviceType::PrivateUse1)->emptyCache(); });
  m.def("_manual_seed_all", [](uint64_t seed) { manual_seed_all(seed); });
  m.def("_write_trace", &write_trace);
  // torch.multiprocessing's sharing of devplug storages (_multiprocessing.py).
  m.def("_host_memory_of", [](py::handle storage) -> py::object {
    c10::Storage host = host_memory_of(unpack_storage(storage));
    if (!host) return py::none();
    return py::reinterpret_steal<py::object>(THPStorage_Wrap(std::move(host)));
  });
  m.def("_move_to_host_memory", [](py::handle storage, py::handle host) {
    move_to_host_memory(unpack_storage(storage), unpack_storage(host));
  });
  m.def("_storage_over_host_memory", [](py::handle host, int device) {
    c10::Storage s = storage_over_host_memory(unpack_storage(host), static_cast<c10::DeviceIndex>(device));
    return py::reinterpret_steal<py::object>(THPStorage_Wrap(std::move(s)));
  });
  bind_dlpack(m);
  if (py::module::import("torch.distributed").attr("is_available")().cast<bool>()) register_distributed(m);
}
