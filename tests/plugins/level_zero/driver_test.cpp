// SPDX-License-Identifier: Apache-2.0
// The CPU test driver's own tests, through Debian's real Level Zero loader (ctest points
// ZE_ENABLE_ALT_DRIVERS at libze_devplug_cpu.so): queries, memory, modules from SPIR-V and
// from native binaries, argument capture at append time, a host-signalled event gating a
// launch, event and fence ordering within and across queues, specialization constants, and
// bad handles and bad SPIR-V answered with Level Zero's error codes.
#include <gtest/gtest.h>
#include <level_zero/ze_api.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "ze_result_names.hpp"

namespace {

using devplug::level_zero::ze_result_text;

#define EXPECT_ZE(expected, call) EXPECT_EQ(ze_result_text(call), ze_result_text(expected)) << #call
#define ASSERT_ZE(expected, call) ASSERT_EQ(ze_result_text(call), ze_result_text(expected)) << #call

// A Level Zero struct with its type set and every other field zero.
template <typename T>
T typed(ze_structure_type_t type) {
  T value{};
  value.stype = type;
  return value;
}

// Whether the driver's test knob `name` is set to `value` in this process's environment.
bool knob_is(const char* name, const char* value) {
  const char* set = std::getenv(name);
  return set != nullptr && std::strcmp(set, value) == 0;
}

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// zeInit once, the driver's device, and a context. Opened by the first test's SetUp, not by
// SetUpTestSuite: GoogleTest reports a suite whose SetUpTestSuite fails as skipped, and CTest
// counts a skip as no failure, so a driver that stopped loading would pass CI unnoticed.
class Driver : public ::testing::Test {
 protected:
  void SetUp() override {
    if (context_ == nullptr) {
      ASSERT_NO_FATAL_FAILURE(open_driver());
    }
  }
  static void open_driver() {
    ASSERT_ZE(ZE_RESULT_SUCCESS, zeInit(0));
    uint32_t count = 1;
    ASSERT_ZE(ZE_RESULT_SUCCESS, zeDriverGet(&count, &driver_));
    ASSERT_EQ(count, 1u) << "ZE_ENABLE_ALT_DRIVERS should name exactly the CPU test driver";
    count = 1;
    ASSERT_ZE(ZE_RESULT_SUCCESS, zeDeviceGet(driver_, &count, &device_));
    ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    ASSERT_ZE(ZE_RESULT_SUCCESS, zeContextCreate(driver_, &desc, &context_));
  }
  static void TearDownTestSuite() {
    if (context_ != nullptr) zeContextDestroy(context_);
  }

  void* device_alloc(size_t size) {
    ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
    void* p = nullptr;
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeMemAllocDevice(context_, &desc, size, 64, device_, &p));
    allocations_.push_back(p);
    return p;
  }
  void TearDown() override {
    for (void* p : allocations_) zeMemFree(context_, p);
    for (ze_kernel_handle_t k : kernels_) zeKernelDestroy(k);
    for (ze_module_handle_t m : modules_) zeModuleDestroy(m);
  }

  ze_module_handle_t module(const std::vector<uint8_t>& spirv,
                            const ze_module_constants_t* constants = nullptr) {
    ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                          nullptr,
                          ZE_MODULE_FORMAT_IL_SPIRV,
                          spirv.size(),
                          spirv.data(),
                          "-ze-opt-level=2 -cl-fp32-correctly-rounded-divide-sqrt",
                          constants};
    ze_module_handle_t m = nullptr;
    ze_module_build_log_handle_t log = nullptr;
    const ze_result_t r = zeModuleCreate(context_, device_, &desc, &m, &log);
    EXPECT_ZE(ZE_RESULT_SUCCESS, r) << build_log(log);
    if (log != nullptr) zeModuleBuildLogDestroy(log);
    if (m != nullptr) modules_.push_back(m);
    return m;
  }
  ze_module_handle_t kernels_module() {
    static const std::vector<uint8_t> spirv = read_file(DEVPLUG_ZE_TEST_KERNELS);
    return module(spirv);
  }
  ze_kernel_handle_t kernel(ze_module_handle_t m, const char* name) {
    ze_kernel_desc_t desc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, name};
    ze_kernel_handle_t k = nullptr;
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeKernelCreate(m, &desc, &k));
    if (k != nullptr) kernels_.push_back(k);
    return k;
  }
  static std::string build_log(ze_module_build_log_handle_t log) {
    if (log == nullptr) return "";
    size_t size = 0;
    zeModuleBuildLogGetString(log, &size, nullptr);
    std::string text(size, '\0');
    zeModuleBuildLogGetString(log, &size, text.data());
    return text.c_str();
  }
  ze_command_list_handle_t immediate(ze_command_queue_mode_t mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS) {
    ze_command_queue_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0, mode,
                                 ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = nullptr;
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeCommandListCreateImmediate(context_, device_, &desc, &list));
    return list;
  }
  ze_command_queue_handle_t queue() {
    ze_command_queue_desc_t desc{
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t q = nullptr;
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueCreate(context_, device_, &desc, &q));
    return q;
  }
  ze_command_list_handle_t regular() {
    ze_command_list_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
    ze_command_list_handle_t list = nullptr;
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeCommandListCreate(context_, device_, &desc, &list));
    return list;
  }
  ze_event_pool_handle_t pool(uint32_t count) {
    ze_event_pool_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                              ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, count};
    ze_event_pool_handle_t p = nullptr;
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeEventPoolCreate(context_, &desc, 1, &device_, &p));
    return p;
  }
  static ze_event_handle_t event(ze_event_pool_handle_t p, uint32_t index) {
    ze_event_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, index, ZE_EVENT_SCOPE_FLAG_HOST,
                         ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t e = nullptr;
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeEventCreate(p, &desc, &e));
    return e;
  }
  template <typename T>
  static void set_arg(ze_kernel_handle_t k, uint32_t index, const T& value) {
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeKernelSetArgumentValue(k, index, sizeof value, &value));
  }

  static ze_driver_handle_t driver_;
  static ze_device_handle_t device_;
  static ze_context_handle_t context_;
  std::vector<void*> allocations_;
  std::vector<ze_kernel_handle_t> kernels_;
  std::vector<ze_module_handle_t> modules_;
};

ze_driver_handle_t Driver::driver_ = nullptr;
ze_device_handle_t Driver::device_ = nullptr;
ze_context_handle_t Driver::context_ = nullptr;

TEST_F(Driver, SaysWhatItIsAndWhatItCan) {
  auto p = typed<ze_device_properties_t>(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeDeviceGetProperties(device_, &p));
  // The test knobs (level_zero_driver.gpu_without_doubles sets both) change only these.
  const bool discrete = knob_is("ZE_DEVPLUG_CPU_TYPE", "discrete_gpu");
  EXPECT_EQ(p.type,
            knob_is("ZE_DEVPLUG_CPU_TYPE", "gpu") || discrete ? ZE_DEVICE_TYPE_GPU : ZE_DEVICE_TYPE_CPU);
  EXPECT_EQ((p.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0, !discrete);
  EXPECT_NE(std::string(p.name).find("devplug CPU test driver"), std::string::npos) << p.name;
  EXPECT_GT(p.maxMemAllocSize, 0u);
  // The timer is the host's in nanoseconds: 1 ns per cycle for API 1.0 callers, 10^9 cycles
  // per second for those asking with the 1.2 structure type.
  EXPECT_EQ(p.timerResolution, 1u);
  EXPECT_EQ(p.kernelTimestampValidBits, 64u);
  auto p12 = typed<ze_device_properties_t>(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeDeviceGetProperties(device_, &p12));
  EXPECT_EQ(p12.timerResolution, 1000000000u);
  auto m = typed<ze_device_module_properties_t>(ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeDeviceGetModuleProperties(device_, &m));
  EXPECT_EQ((m.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0, !knob_is("ZE_DEVPLUG_CPU_FP64", "0"));
  EXPECT_EQ(m.fp16flags, 0u);  // PoCL has no cl_khr_fp16
  uint32_t groups = 0;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeDeviceGetCommandQueueGroupProperties(device_, &groups, nullptr));
  ASSERT_EQ(groups, 1u);
  auto g = typed<ze_command_queue_group_properties_t>(ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeDeviceGetCommandQueueGroupProperties(device_, &groups, &g));
  EXPECT_TRUE(g.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
  auto free_props =
      typed<ze_driver_memory_free_ext_properties_t>(ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES);
  auto d = typed<ze_driver_properties_t>(ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES);
  d.pNext = &free_props;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeDriverGetProperties(driver_, &d));
  EXPECT_TRUE(free_props.freePolicies & ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE);
  uint32_t extensions = 0;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeDriverGetExtensionProperties(driver_, &extensions, nullptr));
  EXPECT_EQ(extensions, 1u);
}

TEST_F(Driver, MemoryAllocationsAreTrackedAndChecked) {
  ze_device_mem_alloc_desc_t ddesc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  ze_host_mem_alloc_desc_t hdesc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void *d = nullptr, *h = nullptr, *s = nullptr;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemAllocDevice(context_, &ddesc, 1000, 256, device_, &d));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemAllocHost(context_, &hdesc, 64, 0, &h));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemAllocShared(context_, &ddesc, &hdesc, 64, 0, device_, &s));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 256, 0u);
  auto props = typed<ze_memory_allocation_properties_t>(ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES);
  ASSERT_ZE(ZE_RESULT_SUCCESS,
            zeMemGetAllocProperties(context_, static_cast<char*>(d) + 10, &props, nullptr));
  EXPECT_EQ(props.type, ZE_MEMORY_TYPE_DEVICE);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemGetAllocProperties(context_, h, &props, nullptr));
  EXPECT_EQ(props.type, ZE_MEMORY_TYPE_HOST);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemGetAllocProperties(context_, s, &props, nullptr));
  EXPECT_EQ(props.type, ZE_MEMORY_TYPE_SHARED);
  void* base = nullptr;
  size_t size = 0;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemGetAddressRange(context_, static_cast<char*>(d) + 999, &base, &size));
  EXPECT_EQ(base, d);
  EXPECT_EQ(size, 1000u);
  int on_stack = 0;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemGetAllocProperties(context_, &on_stack, &props, nullptr));
  EXPECT_EQ(props.type, ZE_MEMORY_TYPE_UNKNOWN);
  // Bad requests are answered, not crashed on.
  void* p = nullptr;
  EXPECT_ZE(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, zeMemAllocDevice(context_, &ddesc, 64, 3, device_, &p));
  auto dp = typed<ze_device_properties_t>(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  zeDeviceGetProperties(device_, &dp);
  EXPECT_ZE(ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
            zeMemAllocDevice(context_, &ddesc, dp.maxMemAllocSize + 1, 0, device_, &p));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeMemFree(context_, &on_stack));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT,
            zeMemFree(context_, static_cast<char*>(d) + 8));  // not the start
  EXPECT_ZE(ZE_RESULT_SUCCESS, zeMemFree(context_, d));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeMemFree(context_, d));  // twice
  EXPECT_ZE(ZE_RESULT_SUCCESS, zeMemFree(context_, h));
  ze_memory_free_ext_desc_t free_desc{ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, nullptr,
                                      ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE};
  EXPECT_ZE(ZE_RESULT_SUCCESS, zeMemFreeExt(context_, &free_desc, s));
}

TEST_F(Driver, CopiesAndFillsRunInOrderAndAreChecked) {
  ze_command_list_handle_t list = immediate(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  char* d = static_cast<char*>(device_alloc(256));
  std::vector<uint8_t> host(256, 0);
  const uint32_t pattern = 0xA1B2C3D4;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendMemoryFill(list, d, &pattern, 4, 256, nullptr, 0, nullptr));
  const uint8_t one = 7;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendMemoryFill(list, d + 8, &one, 1, 3, nullptr, 0, nullptr));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendMemoryCopy(list, host.data(), d, 256, nullptr, 0, nullptr));
  uint32_t first;
  std::memcpy(&first, host.data(), 4);
  EXPECT_EQ(first, pattern);
  EXPECT_EQ(host[8], 7);
  EXPECT_EQ(host[10], 7);
  EXPECT_EQ(host[11], 0xA1);
  // Overlap, a range past the allocation, bad pattern sizes.
  EXPECT_ZE(ZE_RESULT_ERROR_OVERLAPPING_REGIONS,
            zeCommandListAppendMemoryCopy(list, d, d + 4, 8, nullptr, 0, nullptr));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT,
            zeCommandListAppendMemoryCopy(list, host.data(), d + 200, 100, nullptr, 0, nullptr));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_SIZE,
            zeCommandListAppendMemoryFill(list, d, &pattern, 3, 12, nullptr, 0, nullptr));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_SIZE,
            zeCommandListAppendMemoryFill(list, d, &pattern, 4, 10, nullptr, 0, nullptr));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
            zeCommandListAppendMemoryCopy(list, nullptr, d, 4, nullptr, 0, nullptr));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_SIZE,
            zeCommandListAppendMemoryCopy(list, host.data(), d, 4, nullptr, 2, nullptr));
  EXPECT_ZE(ZE_RESULT_SUCCESS, zeCommandListDestroy(list));
}

TEST_F(Driver, KernelsRunWithValuePointerAndLocalArguments) {
  ze_module_handle_t m = kernels_module();
  ASSERT_NE(m, nullptr);
  uint32_t count = 0;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeModuleGetKernelNames(m, &count, nullptr));
  EXPECT_EQ(count, 7u);
  ze_command_list_handle_t list = immediate(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);

  // scale: two pointers, a float and a long.
  constexpr int n = 256;
  float* in = static_cast<float*>(device_alloc(n * 4));
  float* out = static_cast<float*>(device_alloc(n * 4));
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) values[i] = static_cast<float>(i);
  ASSERT_ZE(ZE_RESULT_SUCCESS,
            zeCommandListAppendMemoryCopy(list, in, values.data(), n * 4, nullptr, 0, nullptr));
  ze_kernel_handle_t scale = kernel(m, "scale");
  auto kp = typed<ze_kernel_properties_t>(ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelGetProperties(scale, &kp));
  EXPECT_EQ(kp.numKernelArgs, 4u);
  set_arg(scale, 0, out);
  set_arg(scale, 1, in);
  set_arg(scale, 2, 2.0f);
  set_arg(scale, 3, int64_t{3});
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSetGroupSize(scale, 64, 1, 1));
  ze_group_count_t groups{n / 64, 1, 1};
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, scale, &groups, nullptr, 0, nullptr));
  ASSERT_ZE(ZE_RESULT_SUCCESS,
            zeCommandListAppendMemoryCopy(list, values.data(), out, n * 4, nullptr, 0, nullptr));
  for (int i = 0; i < n; ++i) ASSERT_EQ(values[i], 2.0f * i + 3.0f) << i;

  // group_sum: a __local argument sized at launch.
  int* ints = static_cast<int*>(device_alloc(n * 4));
  int* sums = static_cast<int*>(device_alloc(4 * 4));
  std::vector<int> ones(n, 1);
  ASSERT_ZE(ZE_RESULT_SUCCESS,
            zeCommandListAppendMemoryCopy(list, ints, ones.data(), n * 4, nullptr, 0, nullptr));
  ze_kernel_handle_t sum = kernel(m, "group_sum");
  set_arg(sum, 0, ints);
  set_arg(sum, 1, sums);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSetArgumentValue(sum, 2, 64 * sizeof(int), nullptr));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSetGroupSize(sum, 64, 1, 1));
  ze_group_count_t four{4, 1, 1};
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, sum, &four, nullptr, 0, nullptr));
  int result[4] = {};
  ASSERT_ZE(ZE_RESULT_SUCCESS,
            zeCommandListAppendMemoryCopy(list, result, sums, sizeof result, nullptr, 0, nullptr));
  for (int r : result) EXPECT_EQ(r, 64);

  // Three-dimensional group counts.
  int* grid = static_cast<int*>(device_alloc(4 * 3 * 2 * 4));
  ze_kernel_handle_t where = kernel(m, "where_am_i");
  set_arg(where, 0, grid);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSetGroupSize(where, 2, 1, 1));
  ze_group_count_t three_d{2, 3, 2};
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, where, &three_d, nullptr, 0, nullptr));
  std::vector<int> cells(24);
  ASSERT_ZE(ZE_RESULT_SUCCESS,
            zeCommandListAppendMemoryCopy(list, cells.data(), grid, 96, nullptr, 0, nullptr));
  EXPECT_EQ(cells[(1 * 3 + 2) * 4 + 3], 3 + 20 + 100);

  // A fixed group size is reported and enforced.
  ze_kernel_handle_t fixed = kernel(m, "fixed_group");
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelGetProperties(fixed, &kp));
  EXPECT_EQ(kp.requiredGroupSizeX, 4u);
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, zeKernelSetGroupSize(fixed, 8, 1, 1));
  uint32_t gx = 0, gy = 0, gz = 0;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSuggestGroupSize(fixed, 64, 1, 1, &gx, &gy, &gz));
  EXPECT_EQ(gx, 4u);
  EXPECT_ZE(ZE_RESULT_SUCCESS, zeCommandListDestroy(list));
}

TEST_F(Driver, KernelArgumentsAreCapturedWhenTheLaunchIsAppended) {
  ze_module_handle_t m = kernels_module();
  ASSERT_NE(m, nullptr);
  ze_kernel_handle_t fill = kernel(m, "fill_value");
  int* a = static_cast<int*>(device_alloc(64 * 4));
  int* b = static_cast<int*>(device_alloc(64 * 4));
  ze_command_list_handle_t list = regular();
  ze_group_count_t groups{1, 1, 1};
  // Launch 1: a <- 1 with 64 items; launch 2: b <- 2 with 32 items. The kernel's state is
  // changed between the appends and again after them, before the list runs.
  set_arg(fill, 0, a);
  set_arg(fill, 1, 1);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSetGroupSize(fill, 64, 1, 1));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, fill, &groups, nullptr, 0, nullptr));
  set_arg(fill, 0, b);
  set_arg(fill, 1, 2);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSetGroupSize(fill, 32, 1, 1));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, fill, &groups, nullptr, 0, nullptr));
  set_arg(fill, 1, 99);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListClose(list));
  ze_command_queue_handle_t q = queue();
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueExecuteCommandLists(q, 1, &list, nullptr));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueSynchronize(q, UINT64_MAX));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(a[i], 1) << i;
  for (int i = 0; i < 32; ++i) ASSERT_EQ(b[i], 2) << i;
  // A list runs again as recorded.
  std::memset(a, 0, 64 * 4);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueExecuteCommandLists(q, 1, &list, nullptr));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueSynchronize(q, UINT64_MAX));
  EXPECT_EQ(a[63], 1);
  // Appending to a closed list, executing an open one, an immediate list on a queue.
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT,
            zeCommandListAppendLaunchKernel(list, fill, &groups, nullptr, 0, nullptr));
  ze_command_list_handle_t open = regular();
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeCommandQueueExecuteCommandLists(q, 1, &open, nullptr));
  ze_command_list_handle_t imm = immediate();
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
            zeCommandQueueExecuteCommandLists(q, 1, &imm, nullptr));
  zeCommandListDestroy(imm);
  zeCommandListDestroy(open);
  zeCommandListDestroy(list);
  zeCommandQueueDestroy(q);
}

TEST_F(Driver, AHostSignalledEventGatesALaunch) {
  ze_module_handle_t m = kernels_module();
  ASSERT_NE(m, nullptr);
  ze_kernel_handle_t add = kernel(m, "add_one");
  int* data = static_cast<int*>(device_alloc(16 * 4));
  std::memset(data, 0, 16 * 4);
  set_arg(add, 0, data);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSetGroupSize(add, 16, 1, 1));
  ze_event_pool_handle_t p = pool(2);
  ze_event_handle_t gate = event(p, 0), done = event(p, 1);
  ze_command_list_handle_t list = immediate();
  ze_group_count_t groups{1, 1, 1};
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, add, &groups, done, 1, &gate));
  // Nothing runs until the host signals the gate.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_ZE(ZE_RESULT_NOT_READY, zeEventQueryStatus(done));
  EXPECT_ZE(ZE_RESULT_NOT_READY, zeEventHostSynchronize(done, 1000000));  // 1 ms
  EXPECT_EQ(data[0], 0);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeEventHostSignal(gate));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeEventHostSynchronize(done, UINT64_MAX));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(data[i], 1);
  ze_kernel_timestamp_result_t ts{};
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeEventQueryKernelTimestamp(done, &ts));
  EXPECT_LE(ts.global.kernelStart, ts.global.kernelEnd);
  // Reset, and the gate closes again.
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeEventHostReset(gate));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeEventHostReset(done));
  EXPECT_ZE(ZE_RESULT_NOT_READY, zeEventQueryStatus(gate));
  zeCommandListDestroy(list);
  zeEventDestroy(gate);
  zeEventDestroy(done);
  EXPECT_ZE(ZE_RESULT_SUCCESS, zeEventPoolDestroy(p));
}

TEST_F(Driver, EventsAndFencesOrderWorkAcrossQueues) {
  ze_module_handle_t m = kernels_module();
  ASSERT_NE(m, nullptr);
  ze_kernel_handle_t slow = kernel(m, "slow_mark");
  ze_kernel_handle_t add = kernel(m, "add_one");
  int* data = static_cast<int*>(device_alloc(4));
  *data = 0;
  set_arg(slow, 0, data);
  set_arg(slow, 1, 2000000);  // long enough that the second queue would overtake it
  set_arg(add, 0, data);
  ze_event_pool_handle_t p = pool(2);
  ze_event_handle_t first_done = event(p, 0);
  ze_group_count_t one{1, 1, 1};
  // Queue B's list waits for an event that queue A's list signals; B is submitted first.
  ze_command_list_handle_t a = regular(), b = regular();
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(a, slow, &one, first_done, 0, nullptr));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(b, add, &one, nullptr, 1, &first_done));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListClose(a));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListClose(b));
  ze_command_queue_handle_t qa = queue(), qb = queue();
  ze_fence_desc_t fdesc{ZE_STRUCTURE_TYPE_FENCE_DESC, nullptr, 0};
  ze_fence_handle_t fa = nullptr, fb = nullptr;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeFenceCreate(qa, &fdesc, &fa));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeFenceCreate(qb, &fdesc, &fb));
  EXPECT_ZE(ZE_RESULT_NOT_READY, zeFenceQueryStatus(fb));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueExecuteCommandLists(qb, 1, &b, fb));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeCommandQueueExecuteCommandLists(qa, 1, &a, fb));  // B's fence
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueExecuteCommandLists(qa, 1, &a, fa));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeFenceHostSynchronize(fb, UINT64_MAX));
  // The order is proven by the data; A's fence is signalled after A's event, so B may finish
  // first (a query here failed under ASan on a loaded machine).
  EXPECT_EQ(*data, 2) << "add_one ran before slow_mark had written 1";
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeFenceHostSynchronize(fa, UINT64_MAX));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeFenceReset(fb));
  EXPECT_ZE(ZE_RESULT_NOT_READY, zeFenceQueryStatus(fb));

  // Within one list: a barrier waits for an event signalled by a later-appended host signal.
  ze_event_handle_t gate = event(p, 1);
  ze_command_list_handle_t c = regular();
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendWaitOnEvents(c, 1, &gate));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(c, add, &one, nullptr, 0, nullptr));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendBarrier(c, nullptr, 0, nullptr));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendEventReset(c, gate));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListClose(c));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueExecuteCommandLists(qa, 1, &c, nullptr));
  EXPECT_ZE(ZE_RESULT_NOT_READY, zeCommandQueueSynchronize(qa, 20000000));  // 20 ms: still gated
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeEventHostSignal(gate));
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandQueueSynchronize(qa, UINT64_MAX));
  EXPECT_EQ(*data, 3);
  EXPECT_ZE(ZE_RESULT_NOT_READY, zeEventQueryStatus(gate));  // reset by the list
  for (ze_command_list_handle_t l : {a, b, c}) zeCommandListDestroy(l);
  zeFenceDestroy(fa);
  zeFenceDestroy(fb);
  zeEventDestroy(first_done);
  zeEventDestroy(gate);
  zeEventPoolDestroy(p);
  zeCommandQueueDestroy(qa);
  zeCommandQueueDestroy(qb);
}

TEST_F(Driver, DeferredFreeWaitsForWorkInFlight) {
  ze_module_handle_t m = kernels_module();
  ASSERT_NE(m, nullptr);
  ze_kernel_handle_t add = kernel(m, "add_one");
  ze_device_mem_alloc_desc_t ddesc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  int* data = nullptr;
  ASSERT_ZE(ZE_RESULT_SUCCESS,
            zeMemAllocDevice(context_, &ddesc, 64, 0, device_, reinterpret_cast<void**>(&data)));
  set_arg(add, 0, data);
  ze_event_pool_handle_t p = pool(1);
  ze_event_handle_t gate = event(p, 0);
  ze_command_list_handle_t list = immediate();
  ze_group_count_t one{1, 1, 1};
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, add, &one, nullptr, 1, &gate));
  ze_memory_free_ext_desc_t free_desc{ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, nullptr,
                                      ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE};
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemFreeExt(context_, &free_desc, data));  // returns at once
  auto props = typed<ze_memory_allocation_properties_t>(ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeMemGetAllocProperties(context_, data, &props, nullptr));
  EXPECT_EQ(props.type, ZE_MEMORY_TYPE_UNKNOWN);          // gone for the application
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeEventHostSignal(gate));  // the kernel still runs on valid memory
  zeCommandListDestroy(list);                             // waits for it
  zeEventDestroy(gate);
  zeEventPoolDestroy(p);
}

TEST_F(Driver, NativeBinariesRoundTrip) {
  ze_module_handle_t m = kernels_module();
  ASSERT_NE(m, nullptr);
  size_t size = 0;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeModuleGetNativeBinary(m, &size, nullptr));
  std::vector<uint8_t> native(size);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeModuleGetNativeBinary(m, &size, native.data()));
  ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                        nullptr,
                        ZE_MODULE_FORMAT_NATIVE,
                        native.size(),
                        native.data(),
                        "",
                        nullptr};
  ze_module_handle_t again = nullptr;
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeModuleCreate(context_, device_, &desc, &again, nullptr));
  modules_.push_back(again);
  ze_kernel_handle_t fill = kernel(again, "fill_value");
  int* out = static_cast<int*>(device_alloc(8 * 4));
  set_arg(fill, 0, out);
  set_arg(fill, 1, 42);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeKernelSetGroupSize(fill, 8, 1, 1));
  ze_command_list_handle_t list = immediate(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ze_group_count_t one{1, 1, 1};
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, fill, &one, nullptr, 0, nullptr));
  EXPECT_EQ(out[7], 42);
  zeCommandListDestroy(list);
  // A damaged native binary is refused.
  native[native.size() / 2] ^= 0xff;
  native.resize(native.size() - 3);
  desc.inputSize = native.size();
  ze_module_handle_t bad = nullptr;
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, zeModuleCreate(context_, device_, &desc, &bad, nullptr));
  EXPECT_EQ(bad, nullptr);
}

TEST_F(Driver, SpecializationConstantsAreApplied) {
  const std::vector<uint8_t> spirv = read_file(DEVPLUG_ZE_TEST_SPEC_CONSTANT);
  ASSERT_FALSE(spirv.empty());
  int* out = static_cast<int*>(device_alloc(4 * 4));
  ze_command_list_handle_t list = immediate(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  auto run = [&](ze_module_handle_t m) {
    ze_kernel_handle_t k = kernel(m, "spec_value");
    set_arg(k, 0, out);
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeKernelSetGroupSize(k, 4, 1, 1));
    ze_group_count_t one{1, 1, 1};
    EXPECT_ZE(ZE_RESULT_SUCCESS, zeCommandListAppendLaunchKernel(list, k, &one, nullptr, 0, nullptr));
    return out[3];
  };
  EXPECT_EQ(run(module(spirv)), 5);  // the default
  const uint32_t ids[1] = {7};
  const int32_t value = 42;
  const void* values[1] = {&value};
  const ze_module_constants_t constants{1, ids, values};
  EXPECT_EQ(run(module(spirv, &constants)), 42);
  // A SpecId the module does not have fails the build with a log.
  const uint32_t wrong[1] = {8};
  const ze_module_constants_t bad{1, wrong, values};
  ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                        nullptr,
                        ZE_MODULE_FORMAT_IL_SPIRV,
                        spirv.size(),
                        spirv.data(),
                        "",
                        &bad};
  ze_module_handle_t m = nullptr;
  ze_module_build_log_handle_t log = nullptr;
  EXPECT_ZE(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, zeModuleCreate(context_, device_, &desc, &m, &log));
  EXPECT_NE(build_log(log).find("SpecId 8"), std::string::npos) << build_log(log);
  zeModuleBuildLogDestroy(log);
  zeCommandListDestroy(list);
}

TEST_F(Driver, BadSpirvAndBadFlagsFailTheBuildWithALog) {
  const std::vector<uint8_t> good = read_file(DEVPLUG_ZE_TEST_KERNELS);
  auto build = [&](std::vector<uint8_t> spirv, const char* flags, std::string* text) {
    ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                          nullptr,
                          ZE_MODULE_FORMAT_IL_SPIRV,
                          spirv.size(),
                          spirv.data(),
                          flags,
                          nullptr};
    ze_module_handle_t m = nullptr;
    ze_module_build_log_handle_t log = nullptr;
    const ze_result_t r = zeModuleCreate(context_, device_, &desc, &m, &log);
    *text = build_log(log);
    if (log != nullptr) zeModuleBuildLogDestroy(log);
    if (m != nullptr) zeModuleDestroy(m);
    return r;
  };
  std::string log;
  EXPECT_ZE(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, build(std::vector<uint8_t>(64, 0x42), "", &log));
  EXPECT_NE(log.find("magic"), std::string::npos) << log;
  EXPECT_ZE(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
            build(std::vector<uint8_t>(good.begin(), good.begin() + 22), "", &log));
  EXPECT_NE(log.find("4-byte words"), std::string::npos) << log;
  std::vector<uint8_t> garbled = good;
  for (size_t i = 20; i < garbled.size(); i += 7) garbled[i] ^= 0x5a;
  EXPECT_ZE(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, build(garbled, "", &log));
  EXPECT_NE(log.find("validation failed"), std::string::npos) << log;
  std::vector<uint8_t> truncated(good.begin(), good.begin() + static_cast<long>(good.size() / 8 * 4));
  EXPECT_ZE(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, build(truncated, "", &log));
  EXPECT_FALSE(log.empty());
  EXPECT_ZE(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, build(good, "-funroll-everything", &log));
  EXPECT_NE(log.find("'-funroll-everything'"), std::string::npos) << log;
  EXPECT_ZE(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, build(good, "-cl-no-such-option", &log));
  EXPECT_FALSE(log.empty());
  // Argument errors of the call itself.
  ze_module_desc_t desc{
      ZE_STRUCTURE_TYPE_MODULE_DESC, nullptr, ZE_MODULE_FORMAT_IL_SPIRV, 0, good.data(), "", nullptr};
  ze_module_handle_t m = nullptr;
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_SIZE, zeModuleCreate(context_, device_, &desc, &m, nullptr));
  desc.inputSize = good.size();
  desc.format = static_cast<ze_module_format_t>(7);
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ENUMERATION, zeModuleCreate(context_, device_, &desc, &m, nullptr));
}

TEST_F(Driver, BadHandlesAndArgumentsAreAnsweredWithErrorCodes) {
  ze_module_handle_t m = kernels_module();
  ASSERT_NE(m, nullptr);
  ze_kernel_handle_t fill = kernel(m, "fill_value");
  // Unknown kernel names and argument misuse.
  ze_kernel_desc_t kdesc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "no_such_kernel"};
  ze_kernel_handle_t k = nullptr;
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_KERNEL_NAME, zeKernelCreate(m, &kdesc, &k));
  int value = 1;
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX,
            zeKernelSetArgumentValue(fill, 2, sizeof value, &value));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, zeKernelSetArgumentValue(fill, 1, 8, &value));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, zeKernelSetArgumentValue(fill, 0, 4, &value));
  int on_stack[4] = {};
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, zeKernelSetGroupSize(fill, 0, 1, 1));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, zeKernelSetGroupSize(fill, 1u << 20, 1, 1));
  // A launch before every argument is set.
  ze_command_list_handle_t list = immediate();
  ze_group_count_t one{1, 1, 1};
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT,
            zeCommandListAppendLaunchKernel(list, fill, &one, nullptr, 0, nullptr));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_NULL_POINTER,
            zeCommandListAppendLaunchKernel(list, fill, nullptr, nullptr, 0, nullptr));

  // NULL handles.
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeKernelSetGroupSize(nullptr, 1, 1, 1));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeEventHostSignal(nullptr));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeCommandListClose(nullptr));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, zeFenceQueryStatus(nullptr));
  // Handles that are not live objects of the driver: a destroyed one, a foreign pointer, one
  // of another kind.
  ze_event_pool_handle_t p = pool(1);
  ze_event_handle_t e = event(p, 0);
  ASSERT_ZE(ZE_RESULT_SUCCESS, zeEventDestroy(e));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeEventHostSignal(e));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeEventDestroy(e));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT,
            zeKernelSetGroupSize(reinterpret_cast<ze_kernel_handle_t>(on_stack), 1, 1, 1));
  EXPECT_ZE(
      ZE_RESULT_ERROR_INVALID_ARGUMENT,
      zeKernelSetGroupSize(reinterpret_cast<ze_kernel_handle_t>(reinterpret_cast<void*>(list)), 1, 1, 1));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT,
            zeCommandListAppendLaunchKernel(list, fill, &one, e, 0, nullptr));
  // An event index in use, or outside the pool; a pool with live events.
  ze_event_handle_t e0 = event(p, 0);
  ze_event_desc_t edesc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0, 0, 0};
  ze_event_handle_t dup = nullptr;
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeEventCreate(p, &edesc, &dup));
  edesc.index = 5;
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeEventCreate(p, &edesc, &dup));
  EXPECT_ZE(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, zeEventPoolDestroy(p));
  zeEventDestroy(e0);
  EXPECT_ZE(ZE_RESULT_SUCCESS, zeEventPoolDestroy(p));
  EXPECT_ZE(ZE_RESULT_SUCCESS, zeCommandListDestroy(list));
  EXPECT_ZE(ZE_RESULT_ERROR_INVALID_ARGUMENT, zeCommandListDestroy(list));
}

}  // namespace
