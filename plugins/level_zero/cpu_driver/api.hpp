// SPDX-License-Identifier: Apache-2.0
// Helpers of the entry points (api_*.cpp): the guard every entry runs in, so that no C++
// exception crosses into the application and every failure is a ze_result_t, and the
// declarations of the entry points the DDI tables (ddi.cpp) point at.
#pragma once

#include <new>

#include "driver.hpp"

namespace ze_cpu {

// Runs `body` (returning void) and answers its failure with a result.
template <typename Body>
ze_result_t guarded(Body&& body) noexcept {
  try {
    body();
    return ZE_RESULT_SUCCESS;
  } catch (const ZeError& e) {
    return e.result;
  } catch (const std::bad_alloc&) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  } catch (...) {
    return ZE_RESULT_ERROR_UNKNOWN;
  }
}

// The entry points need zeInit first.
inline void require_init() {
  check(runtime().init_result == ZE_RESULT_SUCCESS, ZE_RESULT_ERROR_UNINITIALIZED);
}

inline void check_pointer(const void* p) { check(p != nullptr, ZE_RESULT_ERROR_INVALID_NULL_POINTER); }

// The device handle must be this driver's device.
inline void check_device(ze_device_handle_t device) {
  check(device != nullptr, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  check(device == static_cast<void*>(runtime().driver->device.get()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

inline void check_driver(ze_driver_handle_t driver) {
  check(driver != nullptr, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  check(driver == static_cast<void*>(runtime().driver.get()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

// Resolves the wait list and signal event of an append (INVALID_SIZE for a count without a
// list, as the specification says).
void resolve_events(Command& command, ze_event_handle_t signal, uint32_t wait_count,
                    ze_event_handle_t* wait_list);

}  // namespace ze_cpu

// ---- entry points, one per row of the DDI tables the driver fills ----
namespace ze_cpu::api {

ze_result_t Init(ze_init_flags_t flags);

ze_result_t DriverGet(uint32_t* pCount, ze_driver_handle_t* phDrivers);
ze_result_t DriverGetApiVersion(ze_driver_handle_t, ze_api_version_t*);
ze_result_t DriverGetProperties(ze_driver_handle_t, ze_driver_properties_t*);
ze_result_t DriverGetIpcProperties(ze_driver_handle_t, ze_driver_ipc_properties_t*);
ze_result_t DriverGetExtensionProperties(ze_driver_handle_t, uint32_t*, ze_driver_extension_properties_t*);
ze_result_t DriverGetExtensionFunctionAddress(ze_driver_handle_t, const char*, void**);

ze_result_t DeviceGet(ze_driver_handle_t, uint32_t*, ze_device_handle_t*);
ze_result_t DeviceGetSubDevices(ze_device_handle_t, uint32_t*, ze_device_handle_t*);
ze_result_t DeviceGetProperties(ze_device_handle_t, ze_device_properties_t*);
ze_result_t DeviceGetComputeProperties(ze_device_handle_t, ze_device_compute_properties_t*);
ze_result_t DeviceGetModuleProperties(ze_device_handle_t, ze_device_module_properties_t*);
ze_result_t DeviceGetCommandQueueGroupProperties(ze_device_handle_t, uint32_t*,
                                                 ze_command_queue_group_properties_t*);
ze_result_t DeviceGetMemoryProperties(ze_device_handle_t, uint32_t*, ze_device_memory_properties_t*);
ze_result_t DeviceGetMemoryAccessProperties(ze_device_handle_t, ze_device_memory_access_properties_t*);
ze_result_t DeviceGetCacheProperties(ze_device_handle_t, uint32_t*, ze_device_cache_properties_t*);
ze_result_t DeviceGetImageProperties(ze_device_handle_t, ze_device_image_properties_t*);
ze_result_t DeviceGetExternalMemoryProperties(ze_device_handle_t, ze_device_external_memory_properties_t*);
ze_result_t DeviceGetP2PProperties(ze_device_handle_t, ze_device_handle_t, ze_device_p2p_properties_t*);
ze_result_t DeviceCanAccessPeer(ze_device_handle_t, ze_device_handle_t, ze_bool_t*);
ze_result_t DeviceGetStatus(ze_device_handle_t);
ze_result_t DeviceGetGlobalTimestamps(ze_device_handle_t, uint64_t*, uint64_t*);

ze_result_t ContextCreate(ze_driver_handle_t, const ze_context_desc_t*, ze_context_handle_t*);
ze_result_t ContextCreateEx(ze_driver_handle_t, const ze_context_desc_t*, uint32_t, ze_device_handle_t*,
                            ze_context_handle_t*);
ze_result_t ContextDestroy(ze_context_handle_t);
ze_result_t ContextGetStatus(ze_context_handle_t);
ze_result_t ContextSystemBarrier(ze_context_handle_t, ze_device_handle_t);
ze_result_t ContextMakeMemoryResident(ze_context_handle_t, ze_device_handle_t, void*, size_t);
ze_result_t ContextEvictMemory(ze_context_handle_t, ze_device_handle_t, void*, size_t);

ze_result_t MemAllocShared(ze_context_handle_t, const ze_device_mem_alloc_desc_t*,
                           const ze_host_mem_alloc_desc_t*, size_t, size_t, ze_device_handle_t, void**);
ze_result_t MemAllocDevice(ze_context_handle_t, const ze_device_mem_alloc_desc_t*, size_t, size_t,
                           ze_device_handle_t, void**);
ze_result_t MemAllocHost(ze_context_handle_t, const ze_host_mem_alloc_desc_t*, size_t, size_t, void**);
ze_result_t MemFree(ze_context_handle_t, void*);
ze_result_t MemFreeExt(ze_context_handle_t, const ze_memory_free_ext_desc_t*, void*);
ze_result_t MemGetAllocProperties(ze_context_handle_t, const void*, ze_memory_allocation_properties_t*,
                                  ze_device_handle_t*);
ze_result_t MemGetAddressRange(ze_context_handle_t, const void*, void**, size_t*);

ze_result_t CommandQueueCreate(ze_context_handle_t, ze_device_handle_t, const ze_command_queue_desc_t*,
                               ze_command_queue_handle_t*);
ze_result_t CommandQueueDestroy(ze_command_queue_handle_t);
ze_result_t CommandQueueExecuteCommandLists(ze_command_queue_handle_t, uint32_t, ze_command_list_handle_t*,
                                            ze_fence_handle_t);
ze_result_t CommandQueueSynchronize(ze_command_queue_handle_t, uint64_t);

ze_result_t CommandListCreate(ze_context_handle_t, ze_device_handle_t, const ze_command_list_desc_t*,
                              ze_command_list_handle_t*);
ze_result_t CommandListCreateImmediate(ze_context_handle_t, ze_device_handle_t,
                                       const ze_command_queue_desc_t*, ze_command_list_handle_t*);
ze_result_t CommandListDestroy(ze_command_list_handle_t);
ze_result_t CommandListClose(ze_command_list_handle_t);
ze_result_t CommandListReset(ze_command_list_handle_t);
ze_result_t CommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t, uint64_t*, ze_event_handle_t,
                                                  uint32_t, ze_event_handle_t*);
ze_result_t CommandListAppendBarrier(ze_command_list_handle_t, ze_event_handle_t, uint32_t,
                                     ze_event_handle_t*);
ze_result_t CommandListAppendMemoryRangesBarrier(ze_command_list_handle_t, uint32_t, const size_t*,
                                                 const void**, ze_event_handle_t, uint32_t,
                                                 ze_event_handle_t*);
ze_result_t CommandListAppendMemoryCopy(ze_command_list_handle_t, void*, const void*, size_t,
                                        ze_event_handle_t, uint32_t, ze_event_handle_t*);
ze_result_t CommandListAppendMemoryFill(ze_command_list_handle_t, void*, const void*, size_t, size_t,
                                        ze_event_handle_t, uint32_t, ze_event_handle_t*);
ze_result_t CommandListAppendMemoryPrefetch(ze_command_list_handle_t, const void*, size_t);
ze_result_t CommandListAppendMemAdvise(ze_command_list_handle_t, ze_device_handle_t, const void*, size_t,
                                       ze_memory_advice_t);
ze_result_t CommandListAppendSignalEvent(ze_command_list_handle_t, ze_event_handle_t);
ze_result_t CommandListAppendWaitOnEvents(ze_command_list_handle_t, uint32_t, ze_event_handle_t*);
ze_result_t CommandListAppendEventReset(ze_command_list_handle_t, ze_event_handle_t);
ze_result_t CommandListAppendLaunchKernel(ze_command_list_handle_t, ze_kernel_handle_t,
                                          const ze_group_count_t*, ze_event_handle_t, uint32_t,
                                          ze_event_handle_t*);
ze_result_t CommandListAppendLaunchCooperativeKernel(ze_command_list_handle_t, ze_kernel_handle_t,
                                                     const ze_group_count_t*, ze_event_handle_t, uint32_t,
                                                     ze_event_handle_t*);

ze_result_t FenceCreate(ze_command_queue_handle_t, const ze_fence_desc_t*, ze_fence_handle_t*);
ze_result_t FenceDestroy(ze_fence_handle_t);
ze_result_t FenceHostSynchronize(ze_fence_handle_t, uint64_t);
ze_result_t FenceQueryStatus(ze_fence_handle_t);
ze_result_t FenceReset(ze_fence_handle_t);

ze_result_t EventPoolCreate(ze_context_handle_t, const ze_event_pool_desc_t*, uint32_t, ze_device_handle_t*,
                            ze_event_pool_handle_t*);
ze_result_t EventPoolDestroy(ze_event_pool_handle_t);
ze_result_t EventCreate(ze_event_pool_handle_t, const ze_event_desc_t*, ze_event_handle_t*);
ze_result_t EventDestroy(ze_event_handle_t);
ze_result_t EventHostSignal(ze_event_handle_t);
ze_result_t EventHostSynchronize(ze_event_handle_t, uint64_t);
ze_result_t EventQueryStatus(ze_event_handle_t);
ze_result_t EventHostReset(ze_event_handle_t);
ze_result_t EventQueryKernelTimestamp(ze_event_handle_t, ze_kernel_timestamp_result_t*);

ze_result_t ModuleCreate(ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t*,
                         ze_module_handle_t*, ze_module_build_log_handle_t*);
ze_result_t ModuleDestroy(ze_module_handle_t);
ze_result_t ModuleDynamicLink(uint32_t, ze_module_handle_t*, ze_module_build_log_handle_t*);
ze_result_t ModuleGetNativeBinary(ze_module_handle_t, size_t*, uint8_t*);
ze_result_t ModuleGetGlobalPointer(ze_module_handle_t, const char*, size_t*, void**);
ze_result_t ModuleGetKernelNames(ze_module_handle_t, uint32_t*, const char**);
ze_result_t ModuleGetProperties(ze_module_handle_t, ze_module_properties_t*);
ze_result_t ModuleGetFunctionPointer(ze_module_handle_t, const char*, void**);
ze_result_t ModuleBuildLogDestroy(ze_module_build_log_handle_t);
ze_result_t ModuleBuildLogGetString(ze_module_build_log_handle_t, size_t*, char*);

ze_result_t KernelCreate(ze_module_handle_t, const ze_kernel_desc_t*, ze_kernel_handle_t*);
ze_result_t KernelDestroy(ze_kernel_handle_t);
ze_result_t KernelSetCacheConfig(ze_kernel_handle_t, ze_cache_config_flags_t);
ze_result_t KernelSetGroupSize(ze_kernel_handle_t, uint32_t, uint32_t, uint32_t);
ze_result_t KernelSuggestGroupSize(ze_kernel_handle_t, uint32_t, uint32_t, uint32_t, uint32_t*, uint32_t*,
                                   uint32_t*);
ze_result_t KernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t, uint32_t*);
ze_result_t KernelSetArgumentValue(ze_kernel_handle_t, uint32_t, size_t, const void*);
ze_result_t KernelSetIndirectAccess(ze_kernel_handle_t, ze_kernel_indirect_access_flags_t);
ze_result_t KernelGetIndirectAccess(ze_kernel_handle_t, ze_kernel_indirect_access_flags_t*);
ze_result_t KernelGetSourceAttributes(ze_kernel_handle_t, uint32_t*, char**);
ze_result_t KernelGetProperties(ze_kernel_handle_t, ze_kernel_properties_t*);
ze_result_t KernelGetName(ze_kernel_handle_t, size_t*, char*);

}  // namespace ze_cpu::api
