// SPDX-License-Identifier: Apache-2.0
// Program building with an in-process map and an on-disk binary cache.
#include "program_cache.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "opencl_status.hpp"

namespace devplug::opencl {

namespace {

// The source of kernel family `family`: kernels/<family>.cl as embedded at build time, or,
// when DEVPLUG_OPENCL_KERNEL_DIR names a folder, <folder>/<family>.cl read at run time (for
// kernel work and the mutation check in tools/mutation: an edited kernel needs no C++
// rebuild; the cache keys hash the text, so no stale binary is ever reused).
std::string family_source(const char* family) {
  if (const char* dir = std::getenv("DEVPLUG_OPENCL_KERNEL_DIR"); dir && *dir) {
    const std::filesystem::path path = std::filesystem::path(dir) / (std::string(family) + ".cl");
    std::ifstream in(path, std::ios::binary);
    if (!in) sdk::fail(DEVPLUG_CODE_INTERNAL, "DEVPLUG_OPENCL_KERNEL_DIR: cannot read " + path.string());
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  const char* text = kernel_source(family);
  if (text == nullptr)
    sdk::fail(DEVPLUG_CODE_INTERNAL, std::string("no embedded kernel source named ") + family);
  return text;
}

// The prelude every program starts with, ahead of common.cl: the device-common header
// plugins/device_common/special_double.h (lgamma and digamma in double, one source with the
// CUDA/HIP kernels), as embedded, or DEVPLUG_OPENCL_KERNEL_DIR's copy of it when that folder
// holds one (tools/mutation copies only the .cl files, and so runs the embedded one). It is
// part of the program's source, and so of its cache key.
std::string prelude_source() {
  if (const char* dir = std::getenv("DEVPLUG_OPENCL_KERNEL_DIR"); dir && *dir) {
    const std::filesystem::path path = std::filesystem::path(dir) / "special_double.h";
    std::ifstream in(path, std::ios::binary);
    if (in) return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  const char* text = kernel_source("special_double");
  if (text == nullptr) sdk::fail(DEVPLUG_CODE_INTERNAL, "no embedded kernel source named special_double");
  return text;
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (cl().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS)
    return "(no build log)";
  std::string text(size, '\0');
  if (cl().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, text.data(), nullptr) !=
      CL_SUCCESS)
    return "(no build log)";
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
  return text;
}

}  // namespace

ProgramCache::~ProgramCache() {
  for (auto& [key, kernel] : kernels_) cl().clReleaseKernel(kernel);
  for (auto& [key, program] : programs_) cl().clReleaseProgram(program);
}

cl_kernel ProgramCache::kernel(const char* family, const std::string& options, const char* name) {
  cl_program prog = program(family, options);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find({prog, name});
  if (it != kernels_.end()) return it->second;
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = cl().clCreateKernel(prog, name, &status);
  DEVPLUG_CL_STATUS(clCreateKernel, status, name);
  kernels_.emplace(std::make_pair(prog, std::string(name)), kernel);
  return kernel;
}

cl_program ProgramCache::program(const char* family, const std::string& options) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_pair(std::string(family), options);
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  const auto generated = generated_.find(family);
  std::string source = prelude_source() + "\n" + family_source("common") + "\n" +
                       (generated != generated_.end() ? generated->second : family_source(family));
  if (const char* bad = std::getenv("DEVPLUG_OPENCL_TEST_BREAK_SOURCE"); bad && *bad == '1')
    source += "\nthis is not OpenCL C;\n";  // test hook: every build fails with a log
  cl_program prog = build(source, options);
  if (generated != generated_.end()) {  // its text is not needed again: a family has one text
    built_generated_.insert(family);
    generated_.erase(generated);
  }
  programs_.emplace(std::move(key), prog);
  return prog;
}

void ProgramCache::define_family(const std::string& family, std::string source) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (built_generated_.count(family) == 0) generated_.emplace(family, std::move(source));
}

std::string ProgramCache::source_of(const char* family) { return family_source(family); }

bool ProgramCache::binary_cache_wanted(const DeviceInfo& info) {
  const char* mode = std::getenv("DEVPLUG_OPENCL_BINARY_CACHE");
  if (mode != nullptr && std::strcmp(mode, "1") == 0) return true;
  if (mode != nullptr && std::strcmp(mode, "0") == 0) return false;
  return !info.driver_caches_programs;
}

cl_program ProgramCache::build(const std::string& source, const std::string& options) {
  const cl_device_id dev = device_->info.id;
  const cl_context ctx = device_->context;
  uint64_t hash = clc::kFnvStart;
  hash = clc::fnv1a(hash, source);
  hash = clc::fnv1a(hash, options);
  hash = clc::fnv1a(hash, device_->info.name);
  hash = clc::fnv1a(hash, device_->info.driver_version);
  const std::string key = clc::hex_key(hash);

  // A binary from disk, when one is there and the driver accepts it.
  auto from_disk = [&]() -> cl_program {
    std::vector<unsigned char> binary = disk_.read(key);
    if (binary.empty()) return nullptr;
    const unsigned char* data = binary.data();
    const size_t size = binary.size();
    cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
    cl_program prog = cl().clCreateProgramWithBinary(ctx, 1, &dev, &size, &data, &binary_status, &status);
    if (status == CL_SUCCESS && binary_status == CL_SUCCESS &&
        cl().clBuildProgram(prog, 1, &dev, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
      disk_.log("disk", key);
      return prog;
    }
    if (prog != nullptr) cl().clReleaseProgram(prog);
    return nullptr;
  };
  if (binaries_)
    if (cl_program prog = from_disk()) return prog;
  // Processes that need this program at once (devplug-conform's workers: the copy program of
  // a dtype serves cat, flip, the scatters...) build it once: the others wait for the lock and
  // find the binary, ours or the driver's cache's.
  const clc::DiskCache::Lock lock(disk_, key);
  if (binaries_)
    if (cl_program prog = from_disk()) return prog;

  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program prog = cl().clCreateProgramWithSource(ctx, 1, &text, &length, &status);
  DEVPLUG_CL_STATUS(clCreateProgramWithSource, status, "creating a program");
  status = cl().clBuildProgram(prog, 1, &dev, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    const std::string log = build_log(prog, dev);
    cl().clReleaseProgram(prog);
    const std::string context = "building kernels with options '" + options + "'; build log:\n" + log;
    fail_cl("clBuildProgram", status, context.c_str(), __FILE__, __LINE__);
  }
  if (!binaries_) {
    disk_.log("driver", key);
    return prog;
  }
  disk_.log("compile", key);
  size_t binary_size = 0;
  if (cl().clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof binary_size, &binary_size, nullptr) ==
          CL_SUCCESS &&
      binary_size > 0) {
    std::vector<unsigned char> binary(binary_size);
    unsigned char* out = binary.data();
    if (cl().clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof out, &out, nullptr) == CL_SUCCESS)
      disk_.write(key, binary);
  }
  return prog;
}

}  // namespace devplug::opencl
