// SPDX-License-Identifier: Apache-2.0
// Device enumeration: every platform and device the ICD loader reports, with honest
// properties read from clGetDeviceInfo.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "objects.hpp"
#include "opencl_status.hpp"

namespace devplug::opencl {

namespace {

// The text an OpenCL info query answers; `query(size, value, size_ret)` is clGetDeviceInfo or
// clGetPlatformInfo bound to its object and parameter. Empty when the query fails.
template <typename Query>
std::string info_string(Query query) {
  size_t size = 0;
  if (query(0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  if (query(size, text.data(), nullptr) != CL_SUCCESS) return "";
  text.resize(std::strlen(text.c_str()));
  return text;
}

std::string device_string(cl_device_id device, cl_device_info what) {
  return info_string([&](size_t size, void* value, size_t* size_ret) {
    return cl().clGetDeviceInfo(device, what, size, value, size_ret);
  });
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  return info_string([&](size_t size, void* value, size_t* size_ret) {
    return cl().clGetPlatformInfo(platform, what, size, value, size_ret);
  });
}

template <typename T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  if (cl().clGetDeviceInfo(device, what, sizeof value, &value, nullptr) != CL_SUCCESS) return T{};
  return value;
}

void copy_text(char* dst, size_t capacity, const std::string& text) {
  const size_t n = std::min(capacity - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

// PoCL keeps every program it builds in its own kernel cache (POCL_CACHE_DIR), keyed by the
// source and the options, with the code it generates for each launch configuration; unless
// POCL_KERNEL_CACHE=0 turns that off.
bool is_caching_pocl(cl_platform_id platform) {
  if (platform_string(platform, CL_PLATFORM_NAME) != "Portable Computing Language") return false;
  const char* cache = std::getenv("POCL_KERNEL_CACHE");
  return cache == nullptr || std::strcmp(cache, "0") != 0;
}

bool has_extension(const std::string& extensions, const char* name) {
  const std::string needle(name);
  size_t at = 0;
  while ((at = extensions.find(needle, at)) != std::string::npos) {
    const size_t end = at + needle.size();
    if ((at == 0 || extensions[at - 1] == ' ') && (end == extensions.size() || extensions[end] == ' '))
      return true;
    at = end;
  }
  return false;
}

DeviceInfo describe(cl_platform_id platform, cl_device_id id) {
  DeviceInfo info;
  info.platform = platform;
  info.id = id;
  info.name = device_string(id, CL_DEVICE_NAME);
  info.driver_version = device_string(id, CL_DRIVER_VERSION);
  info.driver_caches_programs = is_caching_pocl(platform);
  const std::string extensions = device_string(id, CL_DEVICE_EXTENSIONS);
  info.fp64 = has_extension(extensions, "cl_khr_fp64");
  info.fp16 = has_extension(extensions, "cl_khr_fp16");
  info.is_cpu = (device_value<cl_device_type>(id, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) != 0;
  info.profiling = (device_value<cl_command_queue_properties>(id, CL_DEVICE_QUEUE_PROPERTIES) &
                    CL_QUEUE_PROFILING_ENABLE) != 0;
  info.max_work_group = std::max<size_t>(1, device_value<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  info.max_parameter_size = device_value<size_t>(id, CL_DEVICE_MAX_PARAMETER_SIZE);
  info.local_memory = device_value<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
  info.max_allocation = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.caps.fp64 = info.fp64;
  // CPUs run double as fast as float per element (WIDE_MATH, see clc_common/variants.cpp).
  info.caps.wide_math = info.fp64 && info.is_cpu;
  info.caps.cpu = info.is_cpu;
  info.caps.max_work_group = info.max_work_group;
  info.caps.name = info.name;
  devplug_device_properties_t& p = info.properties;
  p.struct_size = sizeof p;
  copy_text(p.name, sizeof p.name, info.name);
  copy_text(p.vendor, sizeof p.vendor, device_string(id, CL_DEVICE_VENDOR));
  copy_text(p.driver_version, sizeof p.driver_version, info.driver_version);
  p.memory_bytes = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
  p.compute_units = static_cast<int32_t>(device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS));
  p.capabilities =
      (info.fp64 ? DEVPLUG_DEVICE_FP64 : 0u) | (info.fp16 ? DEVPLUG_DEVICE_FP16 : 0u) |
      (device_value<cl_bool>(id, CL_DEVICE_HOST_UNIFIED_MEMORY) ? DEVPLUG_DEVICE_UNIFIED_MEMORY : 0u);
  // float16 and bfloat16 are stored as 16 bits and computed in float32 everywhere; float64
  // needs cl_khr_fp64, so a device without it claims every dtype but float64.
  p.dtypes = DEVPLUG_DTYPES_ALL & ~(info.fp64 ? 0u : DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64));
  return info;
}

DeviceList enumerate() {
  DeviceList list;
  const ClLibrary& lib = cl_library();
  if (!lib.loaded) {
    list.note = lib.failure;
    return list;
  }
  cl_uint platform_count = 0;
  cl_int status = lib.clGetPlatformIDs(0, nullptr, &platform_count);
  if (status != CL_SUCCESS || platform_count == 0) {
    list.note = "no OpenCL platform";
    if (status != CL_SUCCESS) list.note += std::string(" (clGetPlatformIDs: ") + cl_error_name(status) + ")";
    return list;
  }
  std::vector<cl_platform_id> platforms(platform_count);
  if (lib.clGetPlatformIDs(platform_count, platforms.data(), nullptr) != CL_SUCCESS) {
    list.note = "no OpenCL platform (clGetPlatformIDs failed)";
    return list;
  }
  for (cl_platform_id platform : platforms) {
    cl_uint device_count = 0;
    if (lib.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count) != CL_SUCCESS ||
        device_count == 0)
      continue;
    std::vector<cl_device_id> ids(device_count);
    if (lib.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, ids.data(), nullptr) != CL_SUCCESS)
      continue;
    for (cl_device_id id : ids) list.devices.push_back(describe(platform, id));
  }
  if (list.devices.empty())
    list.note = "no OpenCL device on " + std::to_string(platform_count) + " platform(s)";
  return list;
}

}  // namespace

const DeviceList& device_list() {
  static const DeviceList list = enumerate();
  return list;
}

}  // namespace devplug::opencl
