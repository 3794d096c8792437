// SPDX-License-Identifier: Apache-2.0
// zeInit, the driver and device queries, and contexts.
#include <algorithm>
#include <cstring>

#include "api.hpp"

namespace ze_cpu::api {

namespace {

// Level Zero's "pCount" protocol: with no array, report how many; with one, fill up to
// *count entries and report how many were written.
template <typename T, typename Fill>
void answer_count(uint32_t* count, T* out, uint32_t available, Fill fill) {
  check_pointer(count);
  if (out == nullptr || *count == 0) {
    *count = available;
    return;
  }
  const uint32_t n = std::min(*count, available);
  for (uint32_t i = 0; i < n; ++i) fill(out[i], i);
  *count = n;
}

void copy_name(char* dst, size_t capacity, const std::string& text) {
  const size_t n = std::min(capacity - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

}  // namespace

ze_result_t Init(ze_init_flags_t flags) {
  return guarded([&] {
    check((flags & ~(ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY)) == 0,
          ZE_RESULT_ERROR_INVALID_ENUMERATION);
    const ze_result_t result = initialize(flags);
    check(result == ZE_RESULT_SUCCESS, result);
  });
}

ze_result_t DriverGet(uint32_t* pCount, ze_driver_handle_t* phDrivers) {
  return guarded([&] {
    require_init();
    answer_count(pCount, phDrivers, 1, [](ze_driver_handle_t& h, uint32_t) {
      h = reinterpret_cast<ze_driver_handle_t>(runtime().driver.get());
    });
  });
}

ze_result_t DriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t* version) {
  return guarded([&] {
    require_init();
    check_driver(hDriver);
    check_pointer(version);
    *version = ZE_API_VERSION_1_4;
  });
}

ze_result_t DriverGetProperties(ze_driver_handle_t hDriver, ze_driver_properties_t* p) {
  return guarded([&] {
    require_init();
    check_driver(hDriver);
    check_pointer(p);
    p->uuid = runtime().driver->uuid;
    p->driverVersion = runtime().driver->version;
    // Extension structures chained behind it.
    for (auto* ext = static_cast<ze_base_properties_t*>(p->pNext); ext != nullptr;
         ext = static_cast<ze_base_properties_t*>(ext->pNext)) {
      if (ext->stype == ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES)
        reinterpret_cast<ze_driver_memory_free_ext_properties_t*>(ext)->freePolicies =
            ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE |
            ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
    }
  });
}

ze_result_t DriverGetIpcProperties(ze_driver_handle_t hDriver, ze_driver_ipc_properties_t* p) {
  return guarded([&] {
    require_init();
    check_driver(hDriver);
    check_pointer(p);
    p->flags = 0;  // no IPC
  });
}

ze_result_t DriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t* pCount,
                                         ze_driver_extension_properties_t* pExtensionProperties) {
  return guarded([&] {
    require_init();
    check_driver(hDriver);
    answer_count(pCount, pExtensionProperties, 1, [](ze_driver_extension_properties_t& e, uint32_t) {
      copy_name(e.name, sizeof e.name, ZE_MEMORY_FREE_POLICIES_EXT_NAME);
      e.version = ZE_MEMORY_FREE_POLICIES_EXT_VERSION_CURRENT;
    });
  });
}

ze_result_t DriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char* name, void** address) {
  return guarded([&] {
    require_init();
    check_driver(hDriver);
    check_pointer(name);
    check_pointer(address);
    *address = nullptr;
    fail(ZE_RESULT_ERROR_INVALID_ARGUMENT);  // no extension functions
  });
}

ze_result_t DeviceGet(ze_driver_handle_t hDriver, uint32_t* pCount, ze_device_handle_t* phDevices) {
  return guarded([&] {
    require_init();
    check_driver(hDriver);
    answer_count(pCount, phDevices, 1, [](ze_device_handle_t& h, uint32_t) {
      h = reinterpret_cast<ze_device_handle_t>(runtime().driver->device.get());
    });
  });
}

ze_result_t DeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t* pCount,
                                ze_device_handle_t* phSubdevices) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    answer_count(pCount, phSubdevices, 0, [](ze_device_handle_t&, uint32_t) {});
  });
}

ze_result_t DeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t* p) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_pointer(p);
    const Device& d = the_device();
    p->type = d.type;
    p->vendorId = 0;  // not a PCI device
    p->deviceId = 0;
    p->flags = d.integrated ? ZE_DEVICE_PROPERTY_FLAG_INTEGRATED : 0;
    p->subdeviceId = 0;
    p->coreClockRate = 0;
    p->maxMemAllocSize = d.max_allocation;
    p->maxHardwareContexts = 64;
    p->maxCommandQueuePriority = 0;
    p->numThreadsPerEU = 1;
    p->physicalEUSimdWidth = 8;
    p->numEUsPerSubslice = 1;
    p->numSubslicesPerSlice = 1;
    p->numSlices = d.compute_units;
    // The timer is the host's steady clock in nanoseconds (now_ns): 1 ns per cycle, or, for a
    // caller of API 1.2 and later (stype DEVICE_PROPERTIES_1_2), 10^9 cycles per second.
    p->timerResolution = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000000u : 1u;
    p->timestampValidBits = 64;
    p->kernelTimestampValidBits = 64;
    p->uuid = d.uuid;
    copy_name(p->name, sizeof p->name, d.name);
  });
}

ze_result_t DeviceGetComputeProperties(ze_device_handle_t hDevice, ze_device_compute_properties_t* p) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_pointer(p);
    const Device& d = the_device();
    p->maxTotalGroupSize = d.max_group_size;
    p->maxGroupSizeX = d.max_group_dims[0];
    p->maxGroupSizeY = d.max_group_dims[1];
    p->maxGroupSizeZ = d.max_group_dims[2];
    p->maxGroupCountX = UINT32_MAX;
    p->maxGroupCountY = UINT32_MAX;
    p->maxGroupCountZ = UINT32_MAX;
    p->maxSharedLocalMemory = static_cast<uint32_t>(std::min<uint64_t>(d.local_memory, UINT32_MAX));
    p->numSubGroupSizes = 0;  // PoCL 3.1 has no sub-groups
  });
}

ze_result_t DeviceGetModuleProperties(ze_device_handle_t hDevice, ze_device_module_properties_t* p) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_pointer(p);
    const Device& d = the_device();
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 2);
    p->flags = ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS | (d.fp64 ? ZE_DEVICE_MODULE_FLAG_FP64 : 0);
    p->fp16flags = 0;  // no cl_khr_fp16: half is storage only
    const ze_device_fp_flags_t ieee = ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN |
                                      ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST | ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO |
                                      ZE_DEVICE_FP_FLAG_ROUND_TO_INF | ZE_DEVICE_FP_FLAG_FMA;
    p->fp32flags = ieee | ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT;
    p->fp64flags = d.fp64 ? ieee : 0;
    p->maxArgumentsSize = 4096;
    p->printfBufferSize = 0;
    std::memset(&p->nativeKernelSupported, 0, sizeof p->nativeKernelSupported);
    std::memcpy(p->nativeKernelSupported.id, d.uuid.id, sizeof p->nativeKernelSupported.id);
  });
}

ze_result_t DeviceGetCommandQueueGroupProperties(ze_device_handle_t hDevice, uint32_t* pCount,
                                                 ze_command_queue_group_properties_t* props) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    answer_count(pCount, props, 1, [](ze_command_queue_group_properties_t& g, uint32_t) {
      g.flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
      g.maxMemoryFillPatternSize = 128;
      g.numQueues = 64;
    });
  });
}

ze_result_t DeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t* pCount,
                                      ze_device_memory_properties_t* props) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    answer_count(pCount, props, 1, [](ze_device_memory_properties_t& m, uint32_t) {
      m.flags = 0;
      m.maxClockRate = 0;
      m.maxBusWidth = 0;
      m.totalSize = the_device().global_memory;
      copy_name(m.name, sizeof m.name, "host memory");
    });
  });
}

ze_result_t DeviceGetMemoryAccessProperties(ze_device_handle_t hDevice,
                                            ze_device_memory_access_properties_t* p) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_pointer(p);
    const ze_memory_access_cap_flags_t rw =
        ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT;
    p->hostAllocCapabilities = rw;
    p->deviceAllocCapabilities = rw;
    p->sharedSingleDeviceAllocCapabilities = rw;
    p->sharedCrossDeviceAllocCapabilities = 0;
    // The device is the CPU: it reads and writes any host memory (unless a test turns that off).
    p->sharedSystemAllocCapabilities = runtime().system_memory ? rw : 0;
  });
}

ze_result_t DeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t* pCount,
                                     ze_device_cache_properties_t* props) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    answer_count(pCount, props, 0, [](ze_device_cache_properties_t&, uint32_t) {});
  });
}

ze_result_t DeviceGetImageProperties(ze_device_handle_t hDevice, ze_device_image_properties_t* p) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_pointer(p);
    p->maxImageDims1D = p->maxImageDims2D = p->maxImageDims3D = 0;  // no images
    p->maxImageBufferSize = 0;
    p->maxImageArraySlices = 0;
    p->maxSamplers = 0;
    p->maxReadImageArgs = p->maxWriteImageArgs = 0;
  });
}

ze_result_t DeviceGetExternalMemoryProperties(ze_device_handle_t hDevice,
                                              ze_device_external_memory_properties_t* p) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_pointer(p);
    p->memoryAllocationImportTypes = p->memoryAllocationExportTypes = 0;
    p->imageImportTypes = p->imageExportTypes = 0;
  });
}

ze_result_t DeviceGetP2PProperties(ze_device_handle_t hDevice, ze_device_handle_t hPeer,
                                   ze_device_p2p_properties_t* p) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_device(hPeer);
    check_pointer(p);
    p->flags = ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS;
  });
}

ze_result_t DeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeer, ze_bool_t* value) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_device(hPeer);
    check_pointer(value);
    *value = 1;
  });
}

ze_result_t DeviceGetStatus(ze_device_handle_t hDevice) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
  });
}

ze_result_t DeviceGetGlobalTimestamps(ze_device_handle_t hDevice, uint64_t* host, uint64_t* device) {
  return guarded([&] {
    require_init();
    check_device(hDevice);
    check_pointer(host);
    check_pointer(device);
    *host = *device = now_ns();
  });
}

// ---- contexts ----

ze_result_t ContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t* desc,
                          ze_context_handle_t* phContext) {
  return guarded([&] {
    require_init();
    check_driver(hDriver);
    check_pointer(desc);
    check_pointer(phContext);
    check((desc->flags & ~ZE_CONTEXT_FLAG_TBD) == 0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    auto context = std::make_shared<Context>();
    register_object(context);
    *phContext = reinterpret_cast<ze_context_handle_t>(context.get());
  });
}

ze_result_t ContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t* desc, uint32_t numDevices,
                            ze_device_handle_t* phDevices, ze_context_handle_t* phContext) {
  return guarded([&] {
    require_init();
    check(numDevices == 0 || phDevices != nullptr, ZE_RESULT_ERROR_INVALID_SIZE);
    for (uint32_t i = 0; i < numDevices; ++i) check_device(phDevices[i]);
    const ze_result_t result = ContextCreate(hDriver, desc, phContext);
    check(result == ZE_RESULT_SUCCESS, result);
  });
}

ze_result_t ContextDestroy(ze_context_handle_t hContext) {
  return guarded([&] {
    require_init();
    lookup<Context>(hContext, Kind::context);
    unregister_object(hContext);
  });
}

ze_result_t ContextGetStatus(ze_context_handle_t hContext) {
  return guarded([&] {
    require_init();
    lookup<Context>(hContext, Kind::context);
  });
}

ze_result_t ContextSystemBarrier(ze_context_handle_t hContext, ze_device_handle_t hDevice) {
  return guarded([&] {
    require_init();
    lookup<Context>(hContext, Kind::context);
    check_device(hDevice);
    for (const std::shared_ptr<Queue>& q : live_queues()) {
      uint64_t last;
      {
        std::lock_guard<std::mutex> lock(q->mutex);
        last = q->submitted;
      }
      wait_for(*q, last, UINT64_MAX);
    }
  });
}

ze_result_t ContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice, void* ptr,
                                      size_t size) {
  return guarded([&] {
    require_init();
    lookup<Context>(hContext, Kind::context);
    check_device(hDevice);
    check_pointer(ptr);
    check(find_allocation(ptr, size) != nullptr, ZE_RESULT_ERROR_INVALID_ARGUMENT);
  });
}

ze_result_t ContextEvictMemory(ze_context_handle_t hContext, ze_device_handle_t hDevice, void* ptr,
                               size_t size) {
  return ContextMakeMemoryResident(hContext, hDevice, ptr, size);
}

}  // namespace ze_cpu::api
