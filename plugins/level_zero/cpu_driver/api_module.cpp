// SPDX-License-Identifier: Apache-2.0
// Modules, build logs and kernels. A module from SPIR-V is translated to SPIR 1.2 bitcode
// (translate.cpp) and built by OpenCL; its native binary is the driver's own format: the
// device's fingerprint, what the driver knows about each kernel, and the SPIR bitcode. Not
// OpenCL's program binary: asking PoCL for one makes it generate code for every kernel of the
// program for any launch size (about a third of a cold module's cost), and PoCL's own kernel
// cache already keeps what it compiled, keyed by the bitcode and the options, so building
// the bitcode of a native binary again finds it there (a few ms).
//
// Build flags: the -ze-* flags of the Level Zero specification (optimisation hints for
// Intel's compiler) and -g are accepted and have no effect here; -cl-* flags go to
// clBuildProgram; anything else fails the build with a log naming the flag.
#include <algorithm>
#include <cstring>
#include <sstream>

#include "api.hpp"
#include "translate.hpp"

namespace ze_cpu {

Module::~Module() {
  if (program != nullptr) clReleaseProgram(program);
}

Kernel::~Kernel() {
  if (cl_kernel_handle != nullptr) clReleaseKernel(cl_kernel_handle);
}

namespace {

constexpr char kNativeMagic[8] = {'D', 'P', 'Z', 'E', 'C', 'P', 'U', '2'};

// What a native binary must match: the OpenCL device and driver, and this driver's version.
uint64_t fingerprint() {
  const Device& d = the_device();
  const std::string identity =
      d.cl_name + "/" + d.cl_version + "/" + std::to_string(runtime().driver->version);
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : identity) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

// The OpenCL options for `flags`; false (and `log`) for a flag the driver does not know.
bool cl_options(const char* flags, std::string& options, std::string& log) {
  options = "-x spir -spir-std=1.2";
  if (flags == nullptr) return true;
  std::istringstream in(flags);
  for (std::string flag; in >> flag;) {
    if (flag.rfind("-ze-", 0) == 0 || flag == "-g") continue;
    if (flag.rfind("-cl-", 0) == 0) {
      options += " " + flag;
      continue;
    }
    log = "unknown build flag '" + flag + "' (this driver takes -ze-*, -g and -cl-* flags)";
    return false;
  }
  return true;
}

std::string program_log(cl_program program) {
  const cl_device_id device = the_device().id;
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS ||
      size == 0)
    return "";
  std::string text(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, text.data(), nullptr) != CL_SUCCESS)
    return "";
  text.resize(std::strlen(text.c_str()));
  return text;
}

// Builds `binary` (SPIR bitcode) with `options`.
cl_program build_program(const std::vector<unsigned char>& binary, const std::string& options,
                         std::string& log) {
  const Device& d = the_device();
  const unsigned char* data = binary.data();
  const size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
  cl_program program =
      clCreateProgramWithBinary(d.cl_context_handle, 1, &d.id, &size, &data, &binary_status, &status);
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
    if (program != nullptr) clReleaseProgram(program);
    log = "the OpenCL driver refuses the program binary (" + std::to_string(status) + ")";
    return nullptr;
  }
  status = clBuildProgram(program, 1, &d.id, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    log = "OpenCL build failed (" + std::to_string(status) + "):\n" + program_log(program);
    clReleaseProgram(program);
    return nullptr;
  }
  log = program_log(program);
  return program;
}

// ---- the native format ----

template <typename T>
void put(std::vector<unsigned char>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

std::vector<unsigned char> write_native(const std::vector<KernelInfo>& kernels,
                                        const std::vector<unsigned char>& bitcode) {
  std::vector<unsigned char> out(kNativeMagic, kNativeMagic + sizeof kNativeMagic);
  put(out, fingerprint());
  put(out, static_cast<uint32_t>(kernels.size()));
  for (const KernelInfo& k : kernels) {
    put(out, static_cast<uint32_t>(k.name.size()));
    out.insert(out.end(), k.name.begin(), k.name.end());
    put(out, static_cast<uint32_t>(k.argument_types.size()));
    for (size_t i = 0; i < k.argument_types.size(); ++i) {
      put(out, static_cast<uint8_t>(k.argument_types[i]));
      put(out, k.argument_sizes[i]);
    }
    for (uint32_t g : k.required_group_size) put(out, g);
  }
  put(out, static_cast<uint64_t>(bitcode.size()));
  out.insert(out.end(), bitcode.begin(), bitcode.end());
  return out;
}

// Reads a native binary; false when it is damaged or made for another device or driver.
class NativeReader {
 public:
  NativeReader(const unsigned char* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  bool get(T& value) {
    if (size_ - at_ < sizeof value) return false;
    std::memcpy(&value, data_ + at_, sizeof value);
    at_ += sizeof value;
    return true;
  }
  bool bytes(size_t n, const unsigned char*& p) {
    if (size_ - at_ < n) return false;
    p = data_ + at_;
    at_ += n;
    return true;
  }
  bool done() const { return at_ == size_; }

 private:
  const unsigned char* data_;
  size_t size_;
  size_t at_ = 0;
};

bool read_native(const unsigned char* data, size_t size, std::vector<KernelInfo>& kernels,
                 std::vector<unsigned char>& bitcode) {
  NativeReader r(data, size);
  const unsigned char* magic = nullptr;
  if (!r.bytes(sizeof kNativeMagic, magic) || std::memcmp(magic, kNativeMagic, sizeof kNativeMagic) != 0)
    return false;
  uint64_t print = 0;
  uint32_t count = 0;
  if (!r.get(print) || print != fingerprint() || !r.get(count) || count > 100000) return false;
  for (uint32_t i = 0; i < count; ++i) {
    KernelInfo k;
    uint32_t name_size = 0, args = 0;
    const unsigned char* name = nullptr;
    if (!r.get(name_size) || !r.bytes(name_size, name) || !r.get(args) || args > 4096) return false;
    k.name.assign(reinterpret_cast<const char*>(name), name_size);
    for (uint32_t a = 0; a < args; ++a) {
      uint8_t type = 0;
      uint32_t arg_size = 0;
      if (!r.get(type) || !r.get(arg_size) || type > static_cast<uint8_t>(KernelArgument::Type::local))
        return false;
      k.argument_types.push_back(static_cast<KernelArgument::Type>(type));
      k.argument_sizes.push_back(arg_size);
    }
    for (uint32_t& g : k.required_group_size)
      if (!r.get(g)) return false;
    kernels.push_back(std::move(k));
  }
  uint64_t bitcode_size = 0;
  const unsigned char* bytes = nullptr;
  if (!r.get(bitcode_size) || bitcode_size > size || !r.bytes(static_cast<size_t>(bitcode_size), bytes) ||
      !r.done())
    return false;
  bitcode.assign(bytes, bytes + bitcode_size);
  return true;
}

std::shared_ptr<BuildLog> new_log(ze_module_build_log_handle_t* out, const std::string& text) {
  if (out == nullptr) return nullptr;
  auto log = std::make_shared<BuildLog>();
  log->text = text;
  register_object(log);
  *out = reinterpret_cast<ze_module_build_log_handle_t>(log.get());
  return log;
}

}  // namespace

namespace api {

ze_result_t ModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                         const ze_module_desc_t* desc, ze_module_handle_t* phModule,
                         ze_module_build_log_handle_t* phBuildLog) {
  return guarded([&] {
    require_init();
    if (phBuildLog != nullptr) *phBuildLog = nullptr;
    std::shared_ptr<Context> context = lookup<Context>(hContext, Kind::context);
    check_device(hDevice);
    check_pointer(desc);
    check_pointer(phModule);
    *phModule = nullptr;
    check(desc->format == ZE_MODULE_FORMAT_IL_SPIRV || desc->format == ZE_MODULE_FORMAT_NATIVE,
          ZE_RESULT_ERROR_INVALID_ENUMERATION);
    check(desc->inputSize > 0, ZE_RESULT_ERROR_INVALID_SIZE);
    check_pointer(desc->pInputModule);

    std::string options, log;
    if (!cl_options(desc->pBuildFlags, options, log)) {
      new_log(phBuildLog, log);
      fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    }
    // The options of every build of SPIR bitcode, so that PoCL's cache serves a native binary.
    options += " -cl-kernel-arg-info";
    auto module = std::make_shared<Module>();
    module->context = context;
    if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
      std::vector<unsigned char> bitcode;
      if (!read_native(desc->pInputModule, desc->inputSize, module->kernels, bitcode))
        fail(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
      module->program = build_program(bitcode, options, log);
      if (module->program == nullptr) {
        new_log(phBuildLog, log);
        fail(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
      }
      module->native.assign(desc->pInputModule, desc->pInputModule + desc->inputSize);
    } else {
      std::map<uint32_t, const void*> constants;
      if (const ze_module_constants_t* c = desc->pConstants; c != nullptr && c->numConstants > 0) {
        check(c->pConstantIds != nullptr && c->pConstantValues != nullptr,
              ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        for (uint32_t i = 0; i < c->numConstants; ++i) {
          check_pointer(c->pConstantValues[i]);
          constants[c->pConstantIds[i]] = c->pConstantValues[i];
        }
      }
      Translation t = translate_spirv(desc->pInputModule, desc->inputSize, constants, the_device().fp64);
      if (!t.ok) {
        new_log(phBuildLog, t.log);
        fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
      }
      module->program = build_program(t.bitcode, options, log);
      if (module->program == nullptr) {
        new_log(phBuildLog, log);
        fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
      }
      module->kernels = std::move(t.kernels);
      module->native = write_native(module->kernels, t.bitcode);
    }
    for (const KernelInfo& k : module->kernels) module->names.push_back(k.name);
    for (const std::string& n : module->names) module->name_pointers.push_back(n.c_str());
    new_log(phBuildLog, log);
    register_object(module);
    *phModule = reinterpret_cast<ze_module_handle_t>(module.get());
  });
}

ze_result_t ModuleDestroy(ze_module_handle_t hModule) {
  return guarded([&] {
    require_init();
    lookup<Module>(hModule, Kind::module);
    unregister_object(hModule);  // kernels made from it keep it alive
  });
}

ze_result_t ModuleDynamicLink(uint32_t numModules, ze_module_handle_t* phModules,
                              ze_module_build_log_handle_t* phLinkLog) {
  return guarded([&] {
    require_init();
    if (phLinkLog != nullptr) *phLinkLog = nullptr;
    check(numModules == 0 || phModules != nullptr, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    for (uint32_t i = 0; i < numModules; ++i) lookup<Module>(phModules[i], Kind::module);
    // Modules here never import symbols from each other: there is nothing to link.
    new_log(phLinkLog, "");
  });
}

ze_result_t ModuleGetNativeBinary(ze_module_handle_t hModule, size_t* pSize, uint8_t* pModuleNativeBinary) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Module> module = lookup<Module>(hModule, Kind::module);
    check_pointer(pSize);
    if (pModuleNativeBinary == nullptr) {
      *pSize = module->native.size();
      return;
    }
    check(*pSize >= module->native.size(), ZE_RESULT_ERROR_INVALID_SIZE);
    std::memcpy(pModuleNativeBinary, module->native.data(), module->native.size());
    *pSize = module->native.size();
  });
}

ze_result_t ModuleGetGlobalPointer(ze_module_handle_t hModule, const char* pGlobalName, size_t*, void**) {
  return guarded([&] {
    require_init();
    lookup<Module>(hModule, Kind::module);
    check_pointer(pGlobalName);
    fail(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);  // program-scope globals are not exposed
  });
}

ze_result_t ModuleGetKernelNames(ze_module_handle_t hModule, uint32_t* pCount, const char** pNames) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Module> module = lookup<Module>(hModule, Kind::module);
    check_pointer(pCount);
    const uint32_t available = static_cast<uint32_t>(module->name_pointers.size());
    if (pNames == nullptr || *pCount == 0) {
      *pCount = available;
      return;
    }
    const uint32_t n = std::min(*pCount, available);
    for (uint32_t i = 0; i < n; ++i) pNames[i] = module->name_pointers[i];
    *pCount = n;
  });
}

ze_result_t ModuleGetProperties(ze_module_handle_t hModule, ze_module_properties_t* p) {
  return guarded([&] {
    require_init();
    lookup<Module>(hModule, Kind::module);
    check_pointer(p);
    p->flags = 0;  // no imports
  });
}

ze_result_t ModuleGetFunctionPointer(ze_module_handle_t hModule, const char* pFunctionName,
                                     void** pfnFunction) {
  return guarded([&] {
    require_init();
    lookup<Module>(hModule, Kind::module);
    check_pointer(pFunctionName);
    check_pointer(pfnFunction);
    fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
  });
}

ze_result_t ModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog) {
  return guarded([&] {
    require_init();
    lookup<BuildLog>(hModuleBuildLog, Kind::build_log);
    unregister_object(hModuleBuildLog);
  });
}

ze_result_t ModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog, size_t* pSize,
                                    char* pBuildLog) {
  return guarded([&] {
    require_init();
    std::shared_ptr<BuildLog> log = lookup<BuildLog>(hModuleBuildLog, Kind::build_log);
    check_pointer(pSize);
    const size_t needed = log->text.size() + 1;
    if (pBuildLog == nullptr) {
      *pSize = needed;
      return;
    }
    check(*pSize >= needed, ZE_RESULT_ERROR_INVALID_SIZE);
    std::memcpy(pBuildLog, log->text.c_str(), needed);
    *pSize = needed;
  });
}

// ---- kernels ----

ze_result_t KernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t* desc,
                         ze_kernel_handle_t* phKernel) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Module> module = lookup<Module>(hModule, Kind::module);
    check_pointer(desc);
    check_pointer(desc->pKernelName);
    check_pointer(phKernel);
    check((desc->flags & ~(ZE_KERNEL_FLAG_FORCE_RESIDENCY | ZE_KERNEL_FLAG_EXPLICIT_RESIDENCY)) == 0,
          ZE_RESULT_ERROR_INVALID_ENUMERATION);
    const KernelInfo* info = nullptr;
    for (const KernelInfo& k : module->kernels)
      if (k.name == desc->pKernelName) info = &k;
    check(info != nullptr, ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    cl_int status = CL_SUCCESS;
    cl_kernel handle = clCreateKernel(module->program, desc->pKernelName, &status);
    check(status == CL_SUCCESS,
          status == CL_INVALID_KERNEL_NAME ? ZE_RESULT_ERROR_INVALID_KERNEL_NAME : result_of_cl(status));
    auto kernel = std::make_shared<Kernel>();
    kernel->module = module;
    kernel->info = info;
    kernel->cl_kernel_handle = handle;
    const size_t n = info->argument_types.size();
    kernel->arguments.resize(n);
    for (size_t i = 0; i < n; ++i) kernel->arguments[i].type = info->argument_types[i];
    kernel->set.assign(n, false);
    if (info->required_group_size[0] != 0)
      kernel->group_size = {info->required_group_size[0], info->required_group_size[1],
                            info->required_group_size[2]};
    register_object(kernel);
    *phKernel = reinterpret_cast<ze_kernel_handle_t>(kernel.get());
  });
}

ze_result_t KernelDestroy(ze_kernel_handle_t hKernel) {
  return guarded([&] {
    require_init();
    lookup<Kernel>(hKernel, Kind::kernel);
    unregister_object(hKernel);  // launches in flight keep it alive
  });
}

ze_result_t KernelSetCacheConfig(ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags) {
  return guarded([&] {
    require_init();
    lookup<Kernel>(hKernel, Kind::kernel);
    check((flags & ~(ZE_CACHE_CONFIG_FLAG_LARGE_SLM | ZE_CACHE_CONFIG_FLAG_LARGE_DATA)) == 0,
          ZE_RESULT_ERROR_INVALID_ENUMERATION);
  });
}

ze_result_t KernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t x, uint32_t y, uint32_t z) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Kernel> kernel = lookup<Kernel>(hKernel, Kind::kernel);
    const Device& d = the_device();
    check(x > 0 && y > 0 && z > 0, ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    check(x <= d.max_group_dims[0] && y <= d.max_group_dims[1] && z <= d.max_group_dims[2],
          ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    check(uint64_t{x} * y * z <= d.max_group_size, ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    const auto& reqd = kernel->info->required_group_size;
    check(reqd[0] == 0 || (reqd[0] == x && reqd[1] == y && reqd[2] == z),
          ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    std::lock_guard<std::mutex> lock(kernel->mutex);
    kernel->group_size = {x, y, z};
  });
}

ze_result_t KernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t globalX, uint32_t globalY,
                                   uint32_t globalZ, uint32_t* groupX, uint32_t* groupY, uint32_t* groupZ) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Kernel> kernel = lookup<Kernel>(hKernel, Kind::kernel);
    check_pointer(groupX);
    check_pointer(groupY);
    check_pointer(groupZ);
    check(globalX > 0 && globalY > 0 && globalZ > 0, ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION);
    const auto& reqd = kernel->info->required_group_size;
    if (reqd[0] != 0) {
      *groupX = reqd[0];
      *groupY = reqd[1];
      *groupZ = reqd[2];
      return;
    }
    // The largest group that divides each global size, within the device's limits.
    const Device& d = the_device();
    uint32_t budget = d.max_group_size;
    auto pick = [&](uint32_t global, uint32_t limit) {
      uint32_t best = 1;
      for (uint32_t g = std::min({global, limit, budget}); g >= 1; --g)
        if (global % g == 0) {
          best = g;
          break;
        }
      budget /= best;
      return best;
    };
    *groupX = pick(globalX, std::min<uint32_t>(d.max_group_dims[0], 256));
    *groupY = pick(globalY, d.max_group_dims[1]);
    *groupZ = pick(globalZ, d.max_group_dims[2]);
  });
}

ze_result_t KernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t hKernel, uint32_t* totalGroupCount) {
  return guarded([&] {
    require_init();
    lookup<Kernel>(hKernel, Kind::kernel);
    check_pointer(totalGroupCount);
    *totalGroupCount = the_device().compute_units;
  });
}

ze_result_t KernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize,
                                   const void* pArgValue) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Kernel> kernel = lookup<Kernel>(hKernel, Kind::kernel);
    const KernelInfo& info = *kernel->info;
    check(argIndex < info.argument_types.size(), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    KernelArgument arg;
    arg.type = info.argument_types[argIndex];
    switch (arg.type) {
      case KernelArgument::Type::local:
        check(argSize > 0, ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
        check(pArgValue == nullptr, ZE_RESULT_ERROR_INVALID_ARGUMENT);  // local memory has no value
        check(argSize <= the_device().local_memory, ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
        arg.local_size = argSize;
        break;
      case KernelArgument::Type::global: {
        check(argSize == sizeof(void*), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
        void* pointer = nullptr;
        if (pArgValue != nullptr) std::memcpy(&pointer, pArgValue, sizeof pointer);
        check(pointer == nullptr || device_accessible(pointer, 1), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        arg.bytes.assign(sizeof pointer, 0);
        std::memcpy(arg.bytes.data(), &pointer, sizeof pointer);
        break;
      }
      case KernelArgument::Type::value: {
        check(argSize == info.argument_sizes[argIndex], ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
        check_pointer(pArgValue);
        const auto* bytes = static_cast<const unsigned char*>(pArgValue);
        arg.bytes.assign(bytes, bytes + argSize);
        break;
      }
    }
    std::lock_guard<std::mutex> lock(kernel->mutex);
    kernel->arguments[argIndex] = std::move(arg);
    kernel->set[argIndex] = true;
  });
}

ze_result_t KernelSetIndirectAccess(ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t flags) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Kernel> kernel = lookup<Kernel>(hKernel, Kind::kernel);
    const ze_kernel_indirect_access_flags_t known = ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                                    ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                                    ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED;
    check((flags & ~known) == 0, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    std::lock_guard<std::mutex> lock(kernel->mutex);
    kernel->indirect = flags;
  });
}

ze_result_t KernelGetIndirectAccess(ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t* pFlags) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Kernel> kernel = lookup<Kernel>(hKernel, Kind::kernel);
    check_pointer(pFlags);
    std::lock_guard<std::mutex> lock(kernel->mutex);
    *pFlags = kernel->indirect;
  });
}

ze_result_t KernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t* pSize, char** pString) {
  return guarded([&] {
    require_init();
    lookup<Kernel>(hKernel, Kind::kernel);
    check_pointer(pSize);
    if (pString == nullptr) {
      *pSize = 1;
      return;
    }
    check(*pSize >= 1 && *pString != nullptr, ZE_RESULT_ERROR_INVALID_SIZE);
    (*pString)[0] = '\0';
    *pSize = 1;
  });
}

ze_result_t KernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t* p) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Kernel> kernel = lookup<Kernel>(hKernel, Kind::kernel);
    check_pointer(p);
    const KernelInfo& info = *kernel->info;
    p->numKernelArgs = static_cast<uint32_t>(info.argument_types.size());
    p->requiredGroupSizeX = info.required_group_size[0];
    p->requiredGroupSizeY = info.required_group_size[1];
    p->requiredGroupSizeZ = info.required_group_size[2];
    p->requiredNumSubGroups = 0;
    p->requiredSubgroupSize = 0;
    p->maxSubgroupSize = 1;
    p->maxNumSubgroups = the_device().max_group_size;
    cl_ulong local = 0;
    clGetKernelWorkGroupInfo(kernel->cl_kernel_handle, the_device().id, CL_KERNEL_LOCAL_MEM_SIZE,
                             sizeof local, &local, nullptr);
    p->localMemSize = static_cast<uint32_t>(local);
    p->privateMemSize = 0;
    p->spillMemSize = 0;
    std::memset(&p->uuid, 0, sizeof p->uuid);
  });
}

ze_result_t KernelGetName(ze_kernel_handle_t hKernel, size_t* pSize, char* pName) {
  return guarded([&] {
    require_init();
    std::shared_ptr<Kernel> kernel = lookup<Kernel>(hKernel, Kind::kernel);
    check_pointer(pSize);
    const std::string& name = kernel->info->name;
    if (pName == nullptr) {
      *pSize = name.size() + 1;
      return;
    }
    check(*pSize >= name.size() + 1, ZE_RESULT_ERROR_INVALID_SIZE);
    std::memcpy(pName, name.c_str(), name.size() + 1);
    *pSize = name.size() + 1;
  });
}

}  // namespace api

}  // namespace ze_cpu
