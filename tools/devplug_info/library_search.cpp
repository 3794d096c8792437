// SPDX-License-Identifier: Apache-2.0
// Library search and fix hints for the doctor (see library_search.hpp).
#include "library_search.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "elf_file.hpp"

namespace devplug::tools {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string expand_origin(std::string entry, const std::string& origin) {
  for (const char* token : {"${ORIGIN}", "$ORIGIN"}) {
    size_t at;
    while ((at = entry.find(token)) != std::string::npos) entry.replace(at, std::strlen(token), origin);
  }
  return entry;
}

bool usable(const std::string& candidate) {
  return ::access(candidate.c_str(), R_OK) == 0 && is_loadable_elf(candidate);
}

// Every library path in /etc/ld.so.cache registered under `soname` (glibc's
// "glibc-ld.so.cache1.1" format; string offsets count from that header).
std::vector<std::string> ld_cache_lookup(const std::string& soname) {
  std::vector<std::string> hits;
  std::ifstream in("/etc/ld.so.cache", std::ios::binary);
  const std::string cache((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const char kMagic[] = "glibc-ld.so.cache1.1";
  const size_t start = cache.find(kMagic);  // an old-format cache may come first
  if (start == std::string::npos) return hits;
  const size_t header_size = 20 + 4 + 4 + 4 + 4 + 12;  // magic+version, nlibs, strings, flags, ext, unused
  const size_t entry_size = 4 + 4 + 4 + 4 + 8;         // flags, key, value, osversion, hwcap
  if (cache.size() < start + header_size) return hits;
  uint32_t nlibs = 0;
  std::memcpy(&nlibs, cache.data() + start + 20, 4);
  for (uint32_t i = 0; i < nlibs; ++i) {
    const size_t at = start + header_size + size_t{i} * entry_size;
    if (at + entry_size > cache.size()) break;
    uint32_t key = 0, value = 0;
    std::memcpy(&key, cache.data() + at + 4, 4);
    std::memcpy(&value, cache.data() + at + 8, 4);
    if (start + key >= cache.size() || start + value >= cache.size()) continue;
    if (soname == cache.c_str() + start + key) hits.emplace_back(cache.c_str() + start + value);
  }
  return hits;
}

bool contains(const std::string& text, const char* needle) { return text.find(needle) != std::string::npos; }

}  // namespace

std::string find_library(const std::string& soname, const std::string& object_path,
                         const std::vector<std::string>& runpath) {
  if (soname.find('/') != std::string::npos) return usable(soname) ? soname : "";
  std::vector<std::string> folders;
  if (const char* env = std::getenv("LD_LIBRARY_PATH")) folders = split(env, ':');
  const std::string origin = folder_of(object_path);
  for (const std::string& entry : runpath) folders.push_back(expand_origin(entry, origin));
  for (const std::string& folder : folders)
    if (usable(folder + "/" + soname)) return folder + "/" + soname;
  for (const std::string& hit : ld_cache_lookup(soname))
    if (usable(hit)) return hit;
  for (const char* folder :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}) {
    const std::string candidate = std::string(folder) + "/" + soname;
    if (usable(candidate)) return candidate;
  }
  return "";
}

std::string missing_library_fix(const std::string& soname) {
  if (contains(soname, "libOpenCL"))
    return "install an OpenCL ICD loader and a driver (Debian: ocl-icd-libopencl1, plus "
           "pocl-opencl-icd for the CPU or the GPU vendor's ICD)";
  if (contains(soname, "libcuda.so"))
    return "install the NVIDIA driver (libcuda.so.1 ships with the driver, not the CUDA toolkit)";
  if (contains(soname, "libcudart") || contains(soname, "libcublas") || contains(soname, "libnvrtc"))
    return "install the CUDA runtime libraries, or add their folder (e.g. /usr/local/cuda/lib64) "
           "to LD_LIBRARY_PATH";
  if (contains(soname, "libamdhip64") || contains(soname, "libhsa-runtime"))
    return "install the ROCm/HIP runtime (Debian: libamdhip64-5), or add its folder to LD_LIBRARY_PATH";
  if (contains(soname, "libze_loader"))
    return "install the Level Zero loader (Debian: libze1) and a Level Zero GPU driver";
  if (contains(soname, "libstdc++") || contains(soname, "libgcc_s"))
    return "install the C++ runtime the plugin was built with (Debian: libstdc++6)";
  if (contains(soname, "libdevplug"))
    return "put " + soname +
           " next to the plugin or in LD_LIBRARY_PATH, or rebuild the plugin "
           "without that dependency (a plugin should need only the SDK headers)";
  return "install the package that provides " + soname +
         ", or add the folder holding it to LD_LIBRARY_PATH (or the plugin's RUNPATH)";
}

std::string no_device_fix(const std::string& note) {
  if (contains(note, "template plugin"))
    return "this is the unmodified SDK template: implement device_count and the device entries";
  if (contains(note, "libze_loader"))
    return "install the Level Zero loader (Debian: libze1) and a Level Zero driver (intel-level-zero-gpu for "
           "Intel GPUs)";
  if (contains(note, "ZE_") || contains(note, "zeInit") || contains(note, "Level Zero"))
    return "install a Level Zero driver: intel-level-zero-gpu for Intel GPUs, then check ZE_AFFINITY_MASK; "
           "devplug's tests use its CPU test driver: ZE_ENABLE_ALT_DRIVERS="
           "<build>/plugins/level_zero/cpu_driver/libze_devplug_cpu.so";
  if (contains(note, "libOpenCL") || contains(note, "PLATFORM_NOT_FOUND") || contains(note, "-1001") ||
      contains(note, "OpenCL"))
    return "install an OpenCL driver (ICD): pocl-opencl-icd for the CPU or the GPU vendor's ICD; "
           "`clinfo` should list a device";
  if (contains(note, "InsufficientDriver") || contains(note, "libcuda"))
    return "install or update the NVIDIA driver to one that supports the CUDA version the plugin "
           "was built with (`nvidia-smi` shows the driver's CUDA version)";
  if (contains(note, "cudaErrorNoDevice") || contains(note, "CUDA_ERROR_NO_DEVICE"))
    return "no NVIDIA GPU is visible: check `nvidia-smi` and CUDA_VISIBLE_DEVICES";
  if (contains(note, "hip") || contains(note, "HIP") || contains(note, "amdhip"))
    return "no AMD GPU is visible: check `rocminfo`, HIP_VISIBLE_DEVICES and that this user may "
           "open /dev/kfd and /dev/dri (groups render and video)";
  return "install the device's driver and check that the device is visible to this user";
}

std::string load_error_fix(const std::string& loader_message) {
  if (contains(loader_message, "undefined symbol"))
    return "the plugin uses a symbol no loaded library provides (built against another version "
           "of a library, or a missing link): rebuild it; devplug_add_plugin links with "
           "--no-undefined to catch this at build time";
  if (contains(loader_message, "version `GLIBC"))
    return "the plugin was built against a newer C or C++ runtime than this system has: rebuild "
           "it on (or for) the oldest system you support";
  if (contains(loader_message, "wrong ELF class"))
    return "32/64-bit mismatch: build the plugin for this architecture";
  if (contains(loader_message, "cannot open shared object file"))
    return "a library the plugin needs (named above) is not found: install it or add its folder "
           "to LD_LIBRARY_PATH";
  if (contains(loader_message, "invalid ELF header") || contains(loader_message, "file too short"))
    return "the file is not a shared library: rebuild the plugin with devplug_add_plugin()";
  return "see the loader's message above";
}

}  // namespace devplug::tools
