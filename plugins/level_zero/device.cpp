// SPDX-License-Identifier: Apache-2.0
// Device enumeration: every device of every Level Zero driver with a compute engine (GPU,
// CPU, FPGA, VPU alike), with honest properties read from the driver.
//
// zeInit runs once per process with no type filter. When it fails the list is empty and the
// note names its result; zeDriverGet is never called after a failed zeInit (with a broken
// driver installed it can crash inside the loader).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "objects.hpp"
#include "ze_status.hpp"

namespace devplug::level_zero {

namespace {

void copy_text(char* dst, size_t capacity, const std::string& text) {
  const size_t n = std::min(capacity - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

std::string hex(const uint8_t* bytes, size_t n) {
  std::string out;
  char digits[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(digits, sizeof digits, "%02x", bytes[i]);
    out += digits;
  }
  return out;
}

std::string vendor_name(uint32_t vendor_id) {
  if (vendor_id == 0x8086) return "Intel";
  char text[32];
  std::snprintf(text, sizeof text, "vendor 0x%04x", vendor_id);
  return text;
}

// Why zeInit failed, for the device note (the doctor turns it into a fix).
std::string init_failure(ze_result_t result) {
  std::string note = "zeInit: " + ze_result_text(result);
  if (result == ZE_RESULT_ERROR_UNINITIALIZED)
    note += ": the Level Zero loader found no driver (no Level Zero driver is installed, or none loaded)";
  return note;
}

// Learns what the plugin needs about `device`; false when it has no compute engine.
bool describe(ze_driver_handle_t driver, ze_device_handle_t device, ze_api_version_t api_version,
              const ze_driver_properties_t& driver_props, uint32_t free_policies, DeviceInfo& info) {
  const ZeLibrary& lib = ze_library();
  // From API 1.2 on, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 gives timerResolution in cycles
  // per second (exact for timers such as 19.2 MHz); before, it is whole nanoseconds per cycle.
  const bool frequency = api_version >= ZE_API_VERSION_1_2;
  ze_device_properties_t props{};
  props.stype = frequency ? ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 : ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  if (lib.zeDeviceGetProperties(device, &props) != ZE_RESULT_SUCCESS) return false;

  uint32_t groups = 0;
  if (lib.zeDeviceGetCommandQueueGroupProperties(device, &groups, nullptr) != ZE_RESULT_SUCCESS ||
      groups == 0)
    return false;
  std::vector<ze_command_queue_group_properties_t> group_props(groups);
  for (auto& g : group_props) g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  if (lib.zeDeviceGetCommandQueueGroupProperties(device, &groups, group_props.data()) != ZE_RESULT_SUCCESS)
    return false;
  bool compute = false;
  for (uint32_t g = 0; g < groups && !compute; ++g) {
    if (group_props[g].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
      info.compute_ordinal = g;
      compute = true;
    }
  }
  if (!compute) return false;

  ze_device_compute_properties_t compute_props{};
  compute_props.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  lib.zeDeviceGetComputeProperties(device, &compute_props);
  ze_device_module_properties_t module_props{};
  module_props.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  lib.zeDeviceGetModuleProperties(device, &module_props);
  ze_device_memory_access_properties_t access{};
  access.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES;
  lib.zeDeviceGetMemoryAccessProperties(device, &access);
  uint64_t memory_bytes = 0;
  uint32_t memories = 0;
  if (lib.zeDeviceGetMemoryProperties(device, &memories, nullptr) == ZE_RESULT_SUCCESS && memories > 0) {
    std::vector<ze_device_memory_properties_t> memory_props(memories);
    for (auto& m : memory_props) m.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
    if (lib.zeDeviceGetMemoryProperties(device, &memories, memory_props.data()) == ZE_RESULT_SUCCESS)
      for (uint32_t m = 0; m < memories; ++m) memory_bytes += memory_props[m].totalSize;
  }

  info.driver = driver;
  info.device = device;
  info.name = props.name;
  info.fp64 = (module_props.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;
  info.fp16 = (module_props.flags & ZE_DEVICE_MODULE_FLAG_FP16) != 0;
  info.system_memory = (access.sharedSystemAllocCapabilities & ZE_MEMORY_ACCESS_CAP_FLAG_RW) != 0;
  info.free_policies = free_policies;
  info.max_allocation = props.maxMemAllocSize;
  if (props.timerResolution != 0)
    info.ns_per_tick = frequency ? 1e9 / static_cast<double>(props.timerResolution)
                                 : static_cast<double>(props.timerResolution);
  info.kernel_timestamp_bits = props.kernelTimestampValidBits;
  char version[16];
  std::snprintf(version, sizeof version, "%u", driver_props.driverVersion);
  info.identity = hex(driver_props.uuid.id, ZE_MAX_DRIVER_UUID_SIZE) + "/" + version + "/" +
                  hex(props.uuid.id, ZE_MAX_DEVICE_UUID_SIZE) + "/" + info.name;

  // float16 and bfloat16 are stored as 16 bits and computed in float32 on every device
  // (DESIGN: at least float32, rounded once); float64 needs double support in kernels.
  // Devices with doubles run the float transcendentals in double (WIDE_MATH): the Level Zero
  // devices that have them (data-centre GPUs, CPUs) run double at full or half rate.
  info.caps.fp64 = info.fp64;
  info.caps.wide_math = info.fp64;
  info.caps.cpu = props.type == ZE_DEVICE_TYPE_CPU;
  info.caps.max_work_group =
      std::max<uint32_t>(1, std::min(compute_props.maxTotalGroupSize, compute_props.maxGroupSizeX));
  info.caps.name = info.name;

  devplug_device_properties_t& p = info.properties;
  p.struct_size = sizeof p;
  copy_text(p.name, sizeof p.name, info.name);
  copy_text(p.vendor, sizeof p.vendor, vendor_name(props.vendorId));
  copy_text(p.driver_version, sizeof p.driver_version, version);
  p.memory_bytes = memory_bytes;
  p.compute_units = static_cast<int32_t>(
      std::max<uint32_t>(1, props.numSlices * props.numSubslicesPerSlice * props.numEUsPerSubslice));
  info.unified_memory =
      props.type == ZE_DEVICE_TYPE_CPU || (props.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;
  p.capabilities = (info.fp64 ? DEVPLUG_DEVICE_FP64 : 0u) | (info.fp16 ? DEVPLUG_DEVICE_FP16 : 0u) |
                   (info.unified_memory ? DEVPLUG_DEVICE_UNIFIED_MEMORY : 0u);
  p.dtypes = DEVPLUG_DTYPES_ALL & ~(info.fp64 ? 0u : DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64));
  return true;
}

DeviceList enumerate() {
  DeviceList list;
  const ZeLibrary& lib = ze_library();
  if (!lib.loaded) {
    list.note = lib.failure;
    return list;
  }
  const ze_result_t init = lib.zeInit(0);  // every device type
  if (init != ZE_RESULT_SUCCESS) {
    list.note = init_failure(init);
    return list;
  }
  uint32_t driver_count = 0;
  ze_result_t result = lib.zeDriverGet(&driver_count, nullptr);
  if (result != ZE_RESULT_SUCCESS || driver_count == 0) {
    list.note = "no Level Zero driver";
    if (result != ZE_RESULT_SUCCESS) list.note += " (zeDriverGet: " + ze_result_text(result) + ")";
    return list;
  }
  std::vector<ze_driver_handle_t> drivers(driver_count);
  if (lib.zeDriverGet(&driver_count, drivers.data()) != ZE_RESULT_SUCCESS) {
    list.note = "no Level Zero driver (zeDriverGet failed)";
    return list;
  }
  size_t without_compute = 0;
  for (ze_driver_handle_t driver : drivers) {
    ze_driver_memory_free_ext_properties_t free_props{};
    free_props.stype = ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES;
    ze_driver_properties_t driver_props{};
    driver_props.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
    driver_props.pNext = &free_props;
    if (lib.zeDriverGetProperties(driver, &driver_props) != ZE_RESULT_SUCCESS) continue;
    // The free policies are an extension: trust them only when the driver says it has it.
    uint32_t free_policies = 0;
    uint32_t extension_count = 0;
    if (lib.zeMemFreeExt != nullptr &&
        lib.zeDriverGetExtensionProperties(driver, &extension_count, nullptr) == ZE_RESULT_SUCCESS) {
      std::vector<ze_driver_extension_properties_t> extensions(extension_count);
      if (lib.zeDriverGetExtensionProperties(driver, &extension_count, extensions.data()) ==
          ZE_RESULT_SUCCESS)
        for (const auto& e : extensions)
          if (std::strcmp(e.name, ZE_MEMORY_FREE_POLICIES_EXT_NAME) == 0)
            free_policies = free_props.freePolicies;
    }
    ze_api_version_t api_version = ZE_API_VERSION_1_0;
    if (lib.zeDriverGetApiVersion(driver, &api_version) != ZE_RESULT_SUCCESS)
      api_version = ZE_API_VERSION_1_0;
    uint32_t device_count = 0;
    if (lib.zeDeviceGet(driver, &device_count, nullptr) != ZE_RESULT_SUCCESS || device_count == 0) continue;
    std::vector<ze_device_handle_t> devices(device_count);
    if (lib.zeDeviceGet(driver, &device_count, devices.data()) != ZE_RESULT_SUCCESS) continue;
    for (ze_device_handle_t device : devices) {
      DeviceInfo info;
      if (describe(driver, device, api_version, driver_props, free_policies, info)) {
        list.devices.push_back(std::move(info));
      } else {
        ++without_compute;
      }
    }
  }
  if (list.devices.empty())
    list.note = "no Level Zero device with a compute engine on " + std::to_string(driver_count) +
                " driver(s)" +
                (without_compute ? " (" + std::to_string(without_compute) + " device(s) without one)" : "");
  return list;
}

}  // namespace

const DeviceList& device_list() {
  static const DeviceList list = enumerate();
  return list;
}

}  // namespace devplug::level_zero
