// SPDX-License-Identifier: Apache-2.0
// The driver's state: zeInit finds PoCL's CPU device through OpenCL once, and the registry
// of live handles.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "driver.hpp"

namespace ze_cpu {

ze_result_t result_of_cl(cl_int status) {
  switch (status) {
    case CL_SUCCESS:
      return ZE_RESULT_SUCCESS;
    case CL_OUT_OF_HOST_MEMORY:
      return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
      return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    default:
      return ZE_RESULT_ERROR_DEVICE_LOST;
  }
}

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

Runtime& runtime() {
  static Runtime state;
  return state;
}

namespace {

std::string device_string(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  if (clGetDeviceInfo(device, what, size, text.data(), nullptr) != CL_SUCCESS) return "";
  text.resize(std::strlen(text.c_str()));
  return text;
}

template <typename T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  if (clGetDeviceInfo(device, what, sizeof value, &value, nullptr) != CL_SUCCESS) return T{};
  return value;
}

// The first OpenCL CPU device with fine-grained SVM (PoCL's), as this driver's device.
std::shared_ptr<Device> find_device() {
  cl_uint platform_count = 0;
  if (clGetPlatformIDs(0, nullptr, &platform_count) != CL_SUCCESS || platform_count == 0) return nullptr;
  std::vector<cl_platform_id> platforms(platform_count);
  if (clGetPlatformIDs(platform_count, platforms.data(), nullptr) != CL_SUCCESS) return nullptr;
  for (cl_platform_id platform : platforms) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 0, nullptr, &count) != CL_SUCCESS || count == 0)
      continue;
    std::vector<cl_device_id> ids(count);
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, count, ids.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id id : ids) {
      const auto svm = device_value<cl_device_svm_capabilities>(id, CL_DEVICE_SVM_CAPABILITIES);
      if ((svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) == 0) continue;
      auto device = std::make_shared<Device>();
      device->platform = platform;
      device->id = id;
      device->cl_name = device_string(id, CL_DEVICE_NAME);
      device->cl_version = device_string(id, CL_DRIVER_VERSION);
      device->name = "devplug CPU test driver (Level Zero on OpenCL: " + device->cl_name + ")";
      const std::string extensions = device_string(id, CL_DEVICE_EXTENSIONS);
      device->fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
      // ZE_DEVPLUG_CPU_FP64=0 hides double support, as on GPUs without it (tests).
      if (const char* fp64 = std::getenv("ZE_DEVPLUG_CPU_FP64"); fp64 && std::strcmp(fp64, "0") == 0)
        device->fp64 = false;
      // ZE_DEVPLUG_CPU_TYPE=gpu reports an (integrated) GPU, so the plugin takes the paths it
      // takes on one, such as GPU-shaped reductions (tests); =discrete_gpu a GPU that is not
      // integrated, whose device memory a host does not address. The name still says what it is.
      if (const char* type = std::getenv("ZE_DEVPLUG_CPU_TYPE")) {
        if (std::strcmp(type, "gpu") == 0) device->type = ZE_DEVICE_TYPE_GPU;
        if (std::strcmp(type, "discrete_gpu") == 0) {
          device->type = ZE_DEVICE_TYPE_GPU;
          device->integrated = false;
        }
      }
      device->compute_units = std::max<cl_uint>(1, device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS));
      device->global_memory = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
      device->max_allocation = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
      device->max_group_size =
          static_cast<uint32_t>(std::max<size_t>(1, device_value<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE)));
      size_t dims[3] = {1, 1, 1};
      clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dims, dims, nullptr);
      for (int d = 0; d < 3; ++d)
        device->max_group_dims[d] = static_cast<uint32_t>(std::max<size_t>(1, dims[d]));
      device->local_memory = device_value<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
      cl_int status = CL_SUCCESS;
      device->cl_context_handle = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status);
      if (status != CL_SUCCESS) continue;
      // A stable uuid from the OpenCL device's name and version.
      const std::string identity = "devplug-ze-cpu/" + device->cl_name + "/" + device->cl_version;
      uint64_t hash = 14695981039346656037ull;
      for (unsigned char c : identity) hash = (hash ^ c) * 1099511628211ull;
      std::memcpy(device->uuid.id, &hash, sizeof hash);
      std::memcpy(device->uuid.id + 8, "devplugCPU", 8);
      return device;
    }
  }
  return nullptr;
}

}  // namespace

ze_result_t initialize(ze_init_flags_t flags) {
  static std::once_flag once;
  std::call_once(once, [flags] {
    Runtime& rt = runtime();
    // A CPU driver has no GPU or VPU: asked for those only, it has no devices.
    if (flags & (ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY)) {
      rt.init_result = ZE_RESULT_ERROR_UNINITIALIZED;
      return;
    }
    if (const char* system = std::getenv("ZE_DEVPLUG_CPU_SYSTEM_MEMORY");
        system && std::strcmp(system, "0") == 0)
      rt.system_memory = false;
    std::shared_ptr<Device> device = find_device();
    if (!device) {
      rt.init_result = ZE_RESULT_ERROR_UNINITIALIZED;
      return;
    }
    auto driver = std::make_shared<Driver>();
    std::memcpy(driver->uuid.id, "devplug-ze-cpu-1", 16);
    driver->version = 1;
    driver->device = device;
    register_object(driver);
    register_object(device);
    rt.driver = driver;
    rt.init_result = ZE_RESULT_SUCCESS;
  });
  return runtime().init_result;
}

Device& the_device() {
  Runtime& rt = runtime();
  check(rt.init_result == ZE_RESULT_SUCCESS && rt.driver, ZE_RESULT_ERROR_UNINITIALIZED);
  return *rt.driver->device;
}

// ---- registry ----

namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<void*, std::shared_ptr<Object>> objects;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: queue threads may outlive statics
  return *r;
}

}  // namespace

void register_object(const std::shared_ptr<Object>& object) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.objects[object.get()] = object;
}

bool unregister_object(void* handle) {
  std::shared_ptr<Object> keep;  // destroyed outside the lock
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.objects.find(handle);
  if (it == r.objects.end()) return false;
  keep = std::move(it->second);
  r.objects.erase(it);
  return true;
}

std::shared_ptr<Object> find_object(void* handle, Kind kind) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.objects.find(handle);
  if (it == r.objects.end() || it->second->kind != kind) return nullptr;
  return it->second;
}

}  // namespace ze_cpu
