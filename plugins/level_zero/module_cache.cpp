// SPDX-License-Identifier: Apache-2.0
// Module building from embedded SPIR-V with an in-process map and an on-disk cache of native
// binaries.
#include "module_cache.hpp"

#include <cstdlib>
#include <vector>

#include "spirv_archive.hpp"
#include "ze_status.hpp"

namespace devplug::level_zero {

namespace {

std::string build_log_text(ze_module_build_log_handle_t log) {
  if (log == nullptr) return "(no build log)";
  size_t size = 0;
  if (ze().zeModuleBuildLogGetString(log, &size, nullptr) != ZE_RESULT_SUCCESS || size == 0)
    return "(no build log)";
  std::string text(size, '\0');
  if (ze().zeModuleBuildLogGetString(log, &size, text.data()) != ZE_RESULT_SUCCESS) return "(no build log)";
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
  return text;
}

ze_module_desc_t module_desc(ze_module_format_t format, const unsigned char* data, size_t size) {
  ze_module_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  desc.format = format;
  desc.inputSize = size;
  desc.pInputModule = data;
  desc.pBuildFlags = kModuleBuildFlags;
  return desc;
}

}  // namespace

ModuleCache::~ModuleCache() {
  for (auto& [key, kernel] : kernels_) ze().zeKernelDestroy(kernel);
  for (auto& [key, module] : modules_) ze().zeModuleDestroy(module);
}

ze_kernel_handle_t ModuleCache::kernel(const char* family, const std::string& defines, const char* name) {
  ze_module_handle_t mod = module(family, defines);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find({mod, name});
  if (it != kernels_.end()) return it->second;
  ze_kernel_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
  desc.pKernelName = name;
  ze_kernel_handle_t kernel = nullptr;
  DEVPLUG_ZE_CALL(zeKernelCreate, (mod, &desc, &kernel), std::string("creating kernel ") + name);
  kernels_.emplace(std::make_pair(mod, std::string(name)), kernel);
  return kernel;
}

ze_module_handle_t ModuleCache::module(const char* family, const std::string& defines) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_pair(std::string(family), defines);
  auto it = modules_.find(key);
  if (it != modules_.end()) return it->second;
  ze_module_handle_t mod = load(key.first, key.second);
  modules_.emplace(std::move(key), mod);
  return mod;
}

ze_module_handle_t ModuleCache::load(const std::string& family, const std::string& defines) {
  const SpirvModule* spirv = find_spirv(family, defines);
  if (spirv == nullptr)
    sdk::fail(DEVPLUG_CODE_INTERNAL,
              "no embedded SPIR-V for kernels/" + family + ".cl with '" + defines + "' (" +
                  std::to_string(spirv_module_count()) +
                  " modules embedded): plugins/clc_common/variants.cpp does not list it");
  const ze_context_handle_t context = device_->context;
  const ze_device_handle_t device = device_->info.device;
  uint64_t hash = clc::fnv1a(clc::kFnvStart, &spirv->hash, sizeof spirv->hash);
  hash = clc::fnv1a(hash, kModuleBuildFlags);
  hash = clc::fnv1a(hash, device_->info.identity);
  const std::string key = clc::hex_key(hash);

  // A native binary from disk, when one is there and the driver accepts it.
  auto from_disk = [&]() -> ze_module_handle_t {
    const std::vector<unsigned char> binary = disk_.read(key);
    if (binary.empty()) return nullptr;
    const ze_module_desc_t desc = module_desc(ZE_MODULE_FORMAT_NATIVE, binary.data(), binary.size());
    ze_module_handle_t mod = nullptr;
    if (ze().zeModuleCreate(context, device, &desc, &mod, nullptr) != ZE_RESULT_SUCCESS) return nullptr;
    disk_.log("disk", key);
    return mod;
  };
  if (ze_module_handle_t mod = from_disk()) return mod;
  // Processes that need this module at once (devplug-conform's workers) build it once: the
  // others wait for the lock and find the binary.
  const clc::DiskCache::Lock lock(disk_, key);
  if (ze_module_handle_t mod = from_disk()) return mod;

  std::vector<unsigned char> broken;  // test hook: every build fails with the driver's log
  const unsigned char* data = spirv->data;
  size_t size = spirv->size;
  if (const char* bad = std::getenv("DEVPLUG_LEVEL_ZERO_TEST_BREAK_SPIRV"); bad && *bad == '1') {
    broken.assign(spirv->data, spirv->data + spirv->size);
    for (size_t i = 20; i < broken.size(); ++i) broken[i] ^= 0x5a;  // keep the header, garble the rest
    data = broken.data();
  }
  const ze_module_desc_t desc = module_desc(ZE_MODULE_FORMAT_IL_SPIRV, data, size);
  ze_module_handle_t mod = nullptr;
  ze_module_build_log_handle_t log = nullptr;
  const ze_result_t result = ze().zeModuleCreate(context, device, &desc, &mod, &log);
  if (result != ZE_RESULT_SUCCESS) {
    const std::string text = build_log_text(log);
    if (log != nullptr) ze().zeModuleBuildLogDestroy(log);
    fail_ze("zeModuleCreate", result,
            "building kernels/" + family + ".cl with '" + defines + "' from SPIR-V; build log:\n" + text,
            __FILE__, __LINE__);
  }
  if (log != nullptr) ze().zeModuleBuildLogDestroy(log);
  disk_.log("compile", key);

  size_t native_size = 0;
  if (ze().zeModuleGetNativeBinary(mod, &native_size, nullptr) == ZE_RESULT_SUCCESS && native_size > 0) {
    std::vector<unsigned char> native(native_size);
    if (ze().zeModuleGetNativeBinary(mod, &native_size, native.data()) == ZE_RESULT_SUCCESS) {
      native.resize(native_size);
      disk_.write(key, native);
    }
  }
  return mod;
}

}  // namespace devplug::level_zero
