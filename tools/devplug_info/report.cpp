// SPDX-License-Identifier: Apache-2.0
// Text and JSON output of devplug-info (see report.hpp).
//
// JSON shape (fields are only ever added):
//   {"devplug": {"version", "abi": {"major", "minor"}, "opset"},
//    "plugins": [{"name", "path", "version", "abi": {"major", "minor"}, "opset",
//                 "device_count", "device_note" (string or null),
//                 "devices": [{"index", "name", "vendor", "driver_version", "memory_bytes",
//                              "compute_units", "capabilities": ["fp64", ...],
//                              "dtypes": ["float32", ...] (the device's claims)}],
//                 "kernels": [{"op", "id", "dtypes": ["float32", ...], "flags": [...]}],
//                 "composites": {"native": ["softmax", ...], "decomposed": ["conv2d", ...]},
//                 "extensions": ["event_timestamps", ...]}],
//    "failed": [{"path", "reason"}]}
#include "report.hpp"

#include <cstdio>
#include <iomanip>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace devplug::tools {
namespace {

// The dtypes of a claims mask (0, a 1.0 plugin's, is every dtype).
std::vector<std::string> dtype_names(devplug_dtype_mask_t mask) {
  std::vector<std::string> names;
  for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
    if (mask == 0 || (mask & DEVPLUG_DTYPE_BIT(d)) != 0) names.push_back(devplug_dtype_name(d));
  return names;
}

std::vector<std::string> capability_names(uint32_t bits) {
  std::vector<std::string> names;
  if (bits & DEVPLUG_DEVICE_FP64) names.push_back("fp64");
  if (bits & DEVPLUG_DEVICE_FP16) names.push_back("fp16");
  if (bits & DEVPLUG_DEVICE_BF16) names.push_back("bf16");
  if (bits & DEVPLUG_DEVICE_UNIFIED_MEMORY) names.push_back("unified_memory");
  return names;
}

std::vector<std::string> kernel_flag_names(uint32_t bits) {
  std::vector<std::string> names;
  if (bits & DEVPLUG_KERNEL_DENSE_INPUTS) names.push_back("dense_inputs");
  if (bits & DEVPLUG_KERNEL_DENSE_OUTPUTS) names.push_back("dense_outputs");
  return names;
}

std::string join(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : separator) + w;
  return text;
}

std::string bytes_text(uint64_t bytes) {
  if (bytes == 0) return "memory unknown";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buffer;
}

// The composite ops the plugin declares a kernel for (native) and those the dispatcher runs
// through their decomposition on it (every other composite).
void split_composites(const PluginReport& plugin, std::vector<std::string>* native,
                      std::vector<std::string>* decomposed) {
  for (devplug_op_t op = 1; op < DEVPLUG_OP_END_; ++op) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (info == nullptr || info->category != DEVPLUG_CATEGORY_composite) continue;
    bool declared = false;
    for (const KernelSupport& k : plugin.kernels) declared = declared || k.op == op;
    (declared ? native : decomposed)->push_back(info->name);
  }
}

// Short column heads for the op x dtype matrix, in dtype order.
const char* const kDtypeHeads[DEVPLUG_DTYPE_COUNT] = {"bool", "u8",  "i8",   "i16", "i32",
                                                      "i64",  "f16", "bf16", "f32", "f64"};

void print_kernel_matrix(const PluginReport& plugin, std::ostream& out) {
  size_t pairs = 0;
  for (const KernelSupport& k : plugin.kernels) pairs += k.dtypes.size();
  out << "  kernels: " << plugin.kernels.size() << " ops, " << pairs
      << " (op, dtype) pairs  [x declared, . allowed by ops.def but not declared, D needs dense "
         "inputs]\n";
  if (plugin.kernels.empty()) return;
  out << "    " << std::left << std::setw(24) << "op";
  for (const char* head : kDtypeHeads) out << std::setw(5) << head;
  out << "\n";
  for (const KernelSupport& k : plugin.kernels) {
    const devplug_op_info_t* info = devplug_op_info(k.op);
    out << "    " << std::setw(24) << info->name;
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      bool declared = false;
      for (devplug_dtype_t have : k.dtypes) declared = declared || have == d;
      const char* mark = " ";
      if (declared)
        mark = (k.flags & DEVPLUG_KERNEL_DENSE_INPUTS) ? "D" : "x";
      else if (info->dtypes & DEVPLUG_DTYPE_BIT(d))
        mark = ".";
      out << std::setw(5) << mark;
    }
    out << "\n";
  }
  out << std::right;
  std::vector<std::string> native, decomposed;
  split_composites(plugin, &native, &decomposed);
  out << "  composites: " << native.size() << " native (above), " << decomposed.size()
      << " run through their decomposition into prims"
      << (decomposed.empty() ? "" : ": " + join(decomposed, ", ")) << "\n";
}

}  // namespace

void print_text(const Inventory& inventory, std::ostream& out) {
  uint32_t major = 0, minor = 0;
  devplug_abi_version(&major, &minor);
  out << "devplug " << devplug_version_string() << " (ABI " << major << "." << minor << ", op set "
      << DEVPLUG_OPSET_VERSION << "): " << inventory.plugins.size() << " plugin(s) loaded, "
      << inventory.failed.size() << " failed\n";
  for (const PluginReport& p : inventory.plugins) {
    out << "\nplugin " << p.name << " " << p.version << " (ABI " << p.abi_major << "." << p.abi_minor
        << ", op set " << p.opset << ")\n";
    out << "  path: " << p.path << "\n";
    out << "  devices: " << p.device_count;
    if (p.has_note) out << " (" << p.device_note << ")";
    out << "\n";
    for (size_t i = 0; i < p.devices.size(); ++i) {
      const devplug_device_properties_t& d = p.devices[i];
      out << "    [" << i << "] " << d.name << " | vendor " << d.vendor << " | driver " << d.driver_version
          << " | " << bytes_text(d.memory_bytes) << " | " << d.compute_units << " compute units | "
          << join(capability_names(d.capabilities), " ") << "\n        claims: "
          << (d.dtypes == 0 || d.dtypes == DEVPLUG_DTYPES_ALL ? std::string("every dtype")
                                                              : join(dtype_names(d.dtypes), " "))
          << "\n";
    }
    out << "  extensions: " << (p.extensions.empty() ? "none" : join(p.extensions, ", ")) << "\n";
    print_kernel_matrix(p, out);
  }
  if (!inventory.failed.empty()) {
    out << "\nfailed to load (run `devplug-info --check PATH` for a diagnosis):\n";
    for (const FailureReport& f : inventory.failed) out << "  " << f.path << "\n    " << f.reason << "\n";
  }
}

void print_json(const Inventory& inventory, std::ostream& out) {
  using json = nlohmann::ordered_json;  // keys in the documented order
  uint32_t major = 0, minor = 0;
  devplug_abi_version(&major, &minor);
  json root;
  root["devplug"] = {{"version", devplug_version_string()},
                     {"abi", {{"major", major}, {"minor", minor}}},
                     {"opset", DEVPLUG_OPSET_VERSION}};
  root["plugins"] = json::array();
  for (const PluginReport& p : inventory.plugins) {
    json plugin = {{"name", p.name},
                   {"path", p.path},
                   {"version", p.version},
                   {"abi", {{"major", p.abi_major}, {"minor", p.abi_minor}}},
                   {"opset", p.opset},
                   {"device_count", p.device_count},
                   {"device_note", p.has_note ? json(p.device_note) : json(nullptr)}};
    plugin["devices"] = json::array();
    for (size_t i = 0; i < p.devices.size(); ++i) {
      const devplug_device_properties_t& d = p.devices[i];
      plugin["devices"].push_back({{"index", i},
                                   {"name", d.name},
                                   {"vendor", d.vendor},
                                   {"driver_version", d.driver_version},
                                   {"memory_bytes", d.memory_bytes},
                                   {"compute_units", d.compute_units},
                                   {"capabilities", capability_names(d.capabilities)},
                                   {"dtypes", dtype_names(d.dtypes)}});
    }
    plugin["kernels"] = json::array();
    for (const KernelSupport& k : p.kernels) {
      std::vector<std::string> dtypes;
      for (devplug_dtype_t d : k.dtypes) dtypes.push_back(devplug_dtype_name(d));
      plugin["kernels"].push_back({{"op", devplug_op_name(k.op)},
                                   {"id", k.op},
                                   {"dtypes", dtypes},
                                   {"flags", kernel_flag_names(k.flags)}});
    }
    std::vector<std::string> native, decomposed;
    split_composites(p, &native, &decomposed);
    plugin["composites"] = {{"native", native}, {"decomposed", decomposed}};
    plugin["extensions"] = p.extensions;
    root["plugins"].push_back(std::move(plugin));
  }
  root["failed"] = json::array();
  for (const FailureReport& f : inventory.failed)
    root["failed"].push_back({{"path", f.path}, {"reason", f.reason}});
  // Plugin and driver strings are not guaranteed UTF-8: replace bad bytes, never throw.
  out << root.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace devplug::tools
