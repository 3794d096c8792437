// SPDX-License-Identifier: Apache-2.0
// The driver's exports: the DDI table getters the Level Zero loader asks for in zeInit.
// Loader 1.8 asks for every ze, zet and zes table; a driver that lacks one of the non-Exp
// getters is not loaded. Tables the driver does not implement (tools, sysman, images,
// samplers, virtual memory, experimental) are handed out empty: the loader answers their
// calls with ZE_RESULT_ERROR_UNSUPPORTED_FEATURE.
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#include "api.hpp"

#define ZE_CPU_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

ze_result_t check_version(ze_api_version_t version, const void* table) {
  if (table == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (ZE_MAJOR_VERSION(version) != ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT))
    return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
  return ZE_RESULT_SUCCESS;
}

}  // namespace

using namespace ze_cpu::api;

// Tables handed out empty.
#define ZE_CPU_EMPTY_TABLE(getter, type)                                               \
  ZE_CPU_EXPORT ze_result_t ZE_APICALL getter(ze_api_version_t version, type* table) { \
    const ze_result_t result = check_version(version, table);                          \
    if (result == ZE_RESULT_SUCCESS) *table = type{};                                  \
    return result;                                                                     \
  }
ZE_CPU_EMPTY_TABLE(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetImageProcAddrTable, ze_image_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetSamplerProcAddrTable, ze_sampler_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t)
ZE_CPU_EMPTY_TABLE(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetDeviceProcAddrTable, zet_device_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetContextProcAddrTable, zet_context_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetCommandListProcAddrTable, zet_command_list_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetModuleProcAddrTable, zet_module_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetKernelProcAddrTable, zet_kernel_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetMetricProcAddrTable, zet_metric_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t)
ZE_CPU_EMPTY_TABLE(zetGetDebugProcAddrTable, zet_debug_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetDriverProcAddrTable, zes_driver_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetDeviceProcAddrTable, zes_device_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetPowerProcAddrTable, zes_power_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetEngineProcAddrTable, zes_engine_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetStandbyProcAddrTable, zes_standby_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetMemoryProcAddrTable, zes_memory_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetPsuProcAddrTable, zes_psu_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetFanProcAddrTable, zes_fan_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetLedProcAddrTable, zes_led_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetRasProcAddrTable, zes_ras_dditable_t)
ZE_CPU_EMPTY_TABLE(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t)

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetGlobalProcAddrTable(ze_api_version_t version,
                                                              ze_global_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnInit = Init;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetDriverProcAddrTable(ze_api_version_t version,
                                                              ze_driver_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnGet = DriverGet;
  t->pfnGetApiVersion = DriverGetApiVersion;
  t->pfnGetProperties = DriverGetProperties;
  t->pfnGetIpcProperties = DriverGetIpcProperties;
  t->pfnGetExtensionProperties = DriverGetExtensionProperties;
  t->pfnGetExtensionFunctionAddress = DriverGetExtensionFunctionAddress;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetDeviceProcAddrTable(ze_api_version_t version,
                                                              ze_device_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnGet = DeviceGet;
  t->pfnGetSubDevices = DeviceGetSubDevices;
  t->pfnGetProperties = DeviceGetProperties;
  t->pfnGetComputeProperties = DeviceGetComputeProperties;
  t->pfnGetModuleProperties = DeviceGetModuleProperties;
  t->pfnGetCommandQueueGroupProperties = DeviceGetCommandQueueGroupProperties;
  t->pfnGetMemoryProperties = DeviceGetMemoryProperties;
  t->pfnGetMemoryAccessProperties = DeviceGetMemoryAccessProperties;
  t->pfnGetCacheProperties = DeviceGetCacheProperties;
  t->pfnGetImageProperties = DeviceGetImageProperties;
  t->pfnGetExternalMemoryProperties = DeviceGetExternalMemoryProperties;
  t->pfnGetP2PProperties = DeviceGetP2PProperties;
  t->pfnCanAccessPeer = DeviceCanAccessPeer;
  t->pfnGetStatus = DeviceGetStatus;
  t->pfnGetGlobalTimestamps = DeviceGetGlobalTimestamps;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetContextProcAddrTable(ze_api_version_t version,
                                                               ze_context_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnCreate = ContextCreate;
  t->pfnDestroy = ContextDestroy;
  t->pfnGetStatus = ContextGetStatus;
  t->pfnSystemBarrier = ContextSystemBarrier;
  t->pfnMakeMemoryResident = ContextMakeMemoryResident;
  t->pfnEvictMemory = ContextEvictMemory;
  t->pfnCreateEx = ContextCreateEx;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetCommandQueueProcAddrTable(ze_api_version_t version,
                                                                    ze_command_queue_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnCreate = CommandQueueCreate;
  t->pfnDestroy = CommandQueueDestroy;
  t->pfnExecuteCommandLists = CommandQueueExecuteCommandLists;
  t->pfnSynchronize = CommandQueueSynchronize;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetCommandListProcAddrTable(ze_api_version_t version,
                                                                   ze_command_list_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnCreate = CommandListCreate;
  t->pfnCreateImmediate = CommandListCreateImmediate;
  t->pfnDestroy = CommandListDestroy;
  t->pfnClose = CommandListClose;
  t->pfnReset = CommandListReset;
  t->pfnAppendWriteGlobalTimestamp = CommandListAppendWriteGlobalTimestamp;
  t->pfnAppendBarrier = CommandListAppendBarrier;
  t->pfnAppendMemoryRangesBarrier = CommandListAppendMemoryRangesBarrier;
  t->pfnAppendMemoryCopy = CommandListAppendMemoryCopy;
  t->pfnAppendMemoryFill = CommandListAppendMemoryFill;
  t->pfnAppendMemoryPrefetch = CommandListAppendMemoryPrefetch;
  t->pfnAppendMemAdvise = CommandListAppendMemAdvise;
  t->pfnAppendSignalEvent = CommandListAppendSignalEvent;
  t->pfnAppendWaitOnEvents = CommandListAppendWaitOnEvents;
  t->pfnAppendEventReset = CommandListAppendEventReset;
  t->pfnAppendLaunchKernel = CommandListAppendLaunchKernel;
  t->pfnAppendLaunchCooperativeKernel = CommandListAppendLaunchCooperativeKernel;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetFenceProcAddrTable(ze_api_version_t version,
                                                             ze_fence_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnCreate = FenceCreate;
  t->pfnDestroy = FenceDestroy;
  t->pfnHostSynchronize = FenceHostSynchronize;
  t->pfnQueryStatus = FenceQueryStatus;
  t->pfnReset = FenceReset;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetEventPoolProcAddrTable(ze_api_version_t version,
                                                                 ze_event_pool_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnCreate = EventPoolCreate;
  t->pfnDestroy = EventPoolDestroy;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetEventProcAddrTable(ze_api_version_t version,
                                                             ze_event_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnCreate = EventCreate;
  t->pfnDestroy = EventDestroy;
  t->pfnHostSignal = EventHostSignal;
  t->pfnHostSynchronize = EventHostSynchronize;
  t->pfnQueryStatus = EventQueryStatus;
  t->pfnHostReset = EventHostReset;
  t->pfnQueryKernelTimestamp = EventQueryKernelTimestamp;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetModuleProcAddrTable(ze_api_version_t version,
                                                              ze_module_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnCreate = ModuleCreate;
  t->pfnDestroy = ModuleDestroy;
  t->pfnDynamicLink = ModuleDynamicLink;
  t->pfnGetNativeBinary = ModuleGetNativeBinary;
  t->pfnGetGlobalPointer = ModuleGetGlobalPointer;
  t->pfnGetKernelNames = ModuleGetKernelNames;
  t->pfnGetProperties = ModuleGetProperties;
  t->pfnGetFunctionPointer = ModuleGetFunctionPointer;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetModuleBuildLogProcAddrTable(ze_api_version_t version,
                                                                      ze_module_build_log_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnDestroy = ModuleBuildLogDestroy;
  t->pfnGetString = ModuleBuildLogGetString;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetKernelProcAddrTable(ze_api_version_t version,
                                                              ze_kernel_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnCreate = KernelCreate;
  t->pfnDestroy = KernelDestroy;
  t->pfnSetCacheConfig = KernelSetCacheConfig;
  t->pfnSetGroupSize = KernelSetGroupSize;
  t->pfnSuggestGroupSize = KernelSuggestGroupSize;
  t->pfnSuggestMaxCooperativeGroupCount = KernelSuggestMaxCooperativeGroupCount;
  t->pfnSetArgumentValue = KernelSetArgumentValue;
  t->pfnSetIndirectAccess = KernelSetIndirectAccess;
  t->pfnGetIndirectAccess = KernelGetIndirectAccess;
  t->pfnGetSourceAttributes = KernelGetSourceAttributes;
  t->pfnGetProperties = KernelGetProperties;
  t->pfnGetName = KernelGetName;
  return result;
}

ZE_CPU_EXPORT ze_result_t ZE_APICALL zeGetMemProcAddrTable(ze_api_version_t version, ze_mem_dditable_t* t) {
  const ze_result_t result = check_version(version, t);
  if (result != ZE_RESULT_SUCCESS) return result;
  *t = {};
  t->pfnAllocShared = MemAllocShared;
  t->pfnAllocDevice = MemAllocDevice;
  t->pfnAllocHost = MemAllocHost;
  t->pfnFree = MemFree;
  t->pfnGetAllocProperties = MemGetAllocProperties;
  t->pfnGetAddressRange = MemGetAddressRange;
  t->pfnFreeExt = MemFreeExt;
  return result;
}
