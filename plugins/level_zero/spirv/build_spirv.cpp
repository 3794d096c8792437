// SPDX-License-Identifier: Apache-2.0
// devplug-clc-spirv: compiles every module variant of the OpenCL C kernels to SPIR-V at build
// time and writes the archive the level_zero plugin embeds. Run by the build, not installed.
//
// The variants are those the shared host code can ask for (clc_common/variants.cpp), for a
// device with double support (HAS_FP64, WIDE_MATH) and one without. Each is compiled from
// the OpenCL plugin's kernel source, unchanged, after the prelude every OpenCL program starts
// with (--prelude: plugins/device_common/special_double.h, as the opencl plugin does):
//
//   clang-14 -cl-std=CL1.2 -target spir64 -O2 -Xclang -disable-llvm-passes -emit-llvm -c
//            -include <prelude> -include common.cl <family>.cl <defines>
//   opt-14 -passes=...             inline everything, drop the C99 `inline` bodies, tidy
//   llvm-spirv-14 --spirv-max-version=1.0
//   spirv-val --target-env opencl1.2
//
// Why opt: the kernel source uses C99 `inline` helpers, which clang emits as
// available_externally bodies plus external references; unoptimised, they become SPIR-V
// functions with Import linkage that no driver can resolve (and spirv-val rejects them as
// definitions). Clang's own -O2 pipeline cannot be used either: it emits `freeze`, which
// llvm-spirv 14 and 15 cannot translate. So clang runs no LLVM passes and opt runs a short
// pipeline that inlines every call and cleans up, leaving the heavy optimisation to the
// driver's compiler, as SPIR-V consumers expect.
//
// Each module is cached in the work folder under a hash of its inputs (sources, defines,
// tool names), so a rebuild recompiles only what changed. Modules compile in parallel.
//
// Usage: devplug-clc-spirv --kernels DIR --prelude FILE --work DIR --archive FILE --embed FILE.cpp
//                          [--jobs N] [--clang X] [--opt X] [--llvm-spirv X] [--spirv-val X]
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "archive_format.hpp"
#include "disk_cache.hpp"
#include "variants.hpp"

extern char** environ;

namespace fs = std::filesystem;
using devplug::clc::fnv1a;
using devplug::clc::hex_key;
using devplug::clc::kFnvStart;

namespace {

struct Options {
  fs::path kernels, prelude, work, archive, embed;
  unsigned jobs = 0;
  std::string clang = "clang-14", opt = "opt-14", llvm_spirv = "llvm-spirv-14", spirv_val = "spirv-val";
};

// The passes opt runs: inline every call (OpenCL C has no recursion), drop the inlined C99
// `inline` bodies and dead helpers, promote locals to registers, tidy the control flow.
// Not instcombine: it narrows integers to widths SPIR-V has no type for (i2). lowerswitch
// last: llvm-spirv 14 writes a switch whose cases share a target as an OpPhi that names one
// predecessor twice, which spirv-val rejects.
const char* kOptPasses =
    "cgscc(inline),elim-avail-extern,globaldce,sroa,early-cse,simplifycfg,instsimplify,lowerswitch";
// Both thresholds: a call on a path the inliner deems cold (digamma's x < 0 branch) is judged
// by the cold-callsite threshold (45), not -inline-threshold, and would stay a call to an
// Import-linkage function that no driver can resolve.
const char* kOptInlineThreshold = "-inline-threshold=100000";
const char* kOptColdInlineThreshold = "-inline-cold-callsite-threshold=100000";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<unsigned char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_if_changed(const fs::path& path, const std::string& content) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    const std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (old == content) return;
  }
  const fs::path temp = path.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) throw std::runtime_error("cannot write " + temp.string());
  }
  fs::rename(temp, path);
}

std::vector<std::string> split_defines(const std::string& defines) {
  std::vector<std::string> out;
  std::istringstream in(defines);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// Runs argv with stdout and stderr appended to `log`; returns the exit status (or -1).
int run(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    std::ofstream(log, std::ios::app) << "cannot run " << argv[0] << ": " << std::strerror(spawned) << "\n";
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The functions a SPIR-V module imports (an OpFunction decorated LinkageAttributes ...
// Import; built-in variables are imported too, and are fine). spirv-val accepts such a
// module, but no driver can resolve the import: a helper the inliner left as a call. A
// kernel module must import no function.
std::vector<std::string> imported_functions(const std::vector<unsigned char>& bytes) {
  constexpr uint32_t kOpDecorate = 71, kOpFunction = 54, kLinkageAttributes = 41, kImport = 1;
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  std::map<uint32_t, std::string> imported;  // id -> linkage name
  std::vector<std::string> out;
  for (size_t i = 5; i < words.size();) {  // past the 5-word header
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size()) break;
    if (opcode == kOpDecorate && count >= 5 && words[i + 2] == kLinkageAttributes &&
        words[i + count - 1] == kImport) {
      const char* name = reinterpret_cast<const char*>(&words[i + 3]);
      imported[words[i + 1]] = std::string(name, strnlen(name, (count - 4) * 4));
    }
    if (opcode == kOpFunction && count >= 3 && imported.count(words[i + 2]))
      out.push_back(imported[words[i + 2]]);
    i += count;
  }
  return out;
}

struct Module {
  devplug::clc::ModuleVariant variant;
  std::string key;  // family|defines
  fs::path spirv;   // the cached result
  bool reused = false;
};

// Compiles one module into `m.spirv`; on failure returns the log of the failing step.
std::string compile(const Options& o, Module& m) {
  std::error_code ec;
  if (fs::exists(m.spirv, ec)) {
    m.reused = true;
    return "";
  }
  const std::string stem = m.spirv.stem().string();
  const fs::path bc = o.work / (stem + ".bc"), inlined = o.work / (stem + ".opt.bc"),
                 spv = o.work / (stem + ".spv.tmp"), log = o.work / (stem + ".log");
  fs::remove(log, ec);
  std::vector<std::string> clang = {o.clang,
                                    "-cl-std=CL1.2",
                                    "-target",
                                    "spir64",
                                    "-O2",
                                    "-Xclang",
                                    "-disable-llvm-passes",
                                    "-emit-llvm",
                                    "-c",
                                    "-Wno-everything",
                                    "-include",
                                    o.prelude.string(),
                                    "-include",
                                    (o.kernels / "common.cl").string(),
                                    (o.kernels / (m.variant.family + ".cl")).string(),
                                    "-o",
                                    bc.string()};
  for (const std::string& d : split_defines(m.variant.defines)) clang.push_back(d);
  const std::vector<std::vector<std::string>> steps = {
      clang,
      {o.opt, kOptInlineThreshold, kOptColdInlineThreshold, std::string("-passes=") + kOptPasses, bc.string(),
       "-o", inlined.string()},
      {o.llvm_spirv, "--spirv-max-version=1.0", inlined.string(), "-o", spv.string()},
      {o.spirv_val, "--target-env", "opencl1.2", spv.string()},
  };
  for (const auto& step : steps) {
    if (run(step, log) != 0) {
      std::string command;
      for (const std::string& a : step) command += a + " ";
      std::string text = "module " + m.key + "\n  step failed: " + command + "\n";
      std::error_code read_ec;
      if (fs::exists(log, read_ec)) text += read_text(log);
      return text;
    }
  }
  const std::vector<std::string> imports = imported_functions(read_bytes(spv));
  if (!imports.empty()) {
    std::string text = "module " + m.key + "\n  imports functions no driver can resolve (not inlined):";
    for (const std::string& name : imports) text += " " + name;
    return text + "\n";
  }
  fs::rename(spv, m.spirv);
  fs::remove(bc, ec);
  fs::remove(inlined, ec);
  fs::remove(log, ec);
  return "";
}

void append(std::string& out, const void* data, size_t size) {
  out.append(static_cast<const char*>(data), size);
}

void pad_to(std::string& out, size_t alignment) {
  while (out.size() % alignment != 0) out.push_back('\0');
}

// The archive: header, entries, keys, then SPIR-V (identical modules stored once).
std::string make_archive(const std::vector<Module>& modules, size_t* unique) {
  using namespace devplug::level_zero::spirv;
  std::vector<Entry> entries(modules.size());
  std::string keys, data;
  std::map<std::pair<uint64_t, size_t>, uint32_t> stored;  // (hash, size) -> offset in data
  for (size_t i = 0; i < modules.size(); ++i) {
    const std::vector<unsigned char> spirv = read_bytes(modules[i].spirv);
    if (spirv.empty() || spirv.size() % 4 != 0)
      throw std::runtime_error("bad SPIR-V file " + modules[i].spirv.string());
    const uint64_t hash = fnv1a(kFnvStart, spirv.data(), spirv.size());
    auto [it, inserted] = stored.try_emplace({hash, spirv.size()}, static_cast<uint32_t>(data.size()));
    if (inserted) append(data, spirv.data(), spirv.size());
    entries[i].key_offset = static_cast<uint32_t>(keys.size());
    entries[i].key_size = static_cast<uint32_t>(modules[i].key.size());
    entries[i].data_offset = it->second;
    entries[i].data_size = static_cast<uint32_t>(spirv.size());
    entries[i].hash = hash;
    keys += modules[i].key;
  }
  *unique = stored.size();
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.count = static_cast<uint32_t>(entries.size());
  const size_t keys_at = sizeof(Header) + entries.size() * sizeof(Entry);
  size_t data_at = keys_at + keys.size();
  data_at = (data_at + 7) / 8 * 8;
  for (Entry& e : entries) {
    e.key_offset += static_cast<uint32_t>(keys_at);
    e.data_offset += static_cast<uint32_t>(data_at);
  }
  std::string out;
  append(out, &header, sizeof header);
  append(out, entries.data(), entries.size() * sizeof(Entry));
  out += keys;
  pad_to(out, 8);
  out += data;
  return out;
}

// The C++ file that embeds the archive; it names the archive's hash so that a compiler cache
// (which does not see .incbin) recompiles it whenever the archive changes.
std::string make_embed(const fs::path& archive, uint64_t hash) {
  std::string path = fs::absolute(archive).string();
  std::string text =
      "// Generated by devplug-clc-spirv. Do not edit.\n"
      "// Embeds " +
      path + "\n";
  text += "#include <cstddef>\n\nnamespace devplug::level_zero::spirv {\n\n";
  text += "extern \"C\" const unsigned char devplug_ze_spirv_begin[];\n";
  text += "extern \"C\" const unsigned char devplug_ze_spirv_end[];\n";
  text += "asm(\".pushsection .rodata\\n\"\n";
  text += "    \".balign 16\\n\"\n";
  text += "    \".hidden devplug_ze_spirv_begin\\n.hidden devplug_ze_spirv_end\\n\"\n";
  text += "    \"devplug_ze_spirv_begin:\\n\"\n";
  text += "    \".incbin \\\"" + path + "\\\"\\n\"\n";
  text += "    \"devplug_ze_spirv_end:\\n\"\n";
  text += "    \".popsection\\n\");\n\n";
  text += "// The archive's FNV-1a hash: " + hex_key(hash) + "\n";
  text += "extern const unsigned long long kArchiveHash = 0x" + hex_key(hash) + "ull;\n";
  text += "const unsigned char* archive_begin() { return devplug_ze_spirv_begin; }\n";
  text +=
      "size_t archive_size() { return static_cast<size_t>(devplug_ze_spirv_end - devplug_ze_spirv_begin); "
      "}\n";
  text += "\n}  // namespace devplug::level_zero::spirv\n";
  return text;
}

int usage() {
  std::cerr
      << "usage: devplug-clc-spirv --kernels DIR --prelude FILE --work DIR --archive FILE --embed FILE.cpp\n"
         "                         [--jobs N] [--clang X] [--opt X] [--llvm-spirv X] [--spirv-val X]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string v = argv[++i];
    if (a == "--kernels")
      o.kernels = v;
    else if (a == "--prelude")
      o.prelude = v;
    else if (a == "--work")
      o.work = v;
    else if (a == "--archive")
      o.archive = v;
    else if (a == "--embed")
      o.embed = v;
    else if (a == "--jobs")
      o.jobs = static_cast<unsigned>(std::stoul(v));
    else if (a == "--clang")
      o.clang = v;
    else if (a == "--opt")
      o.opt = v;
    else if (a == "--llvm-spirv")
      o.llvm_spirv = v;
    else if (a == "--spirv-val")
      o.spirv_val = v;
    else
      return usage();
  }
  if (o.kernels.empty() || o.prelude.empty() || o.work.empty() || o.archive.empty() || o.embed.empty())
    return usage();
  if (o.jobs == 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
  try {
    fs::create_directories(o.work);
    // Inputs every module depends on: the prelude, the kernel sources and the tool chain's names.
    uint64_t inputs = kFnvStart;
    inputs = fnv1a(inputs, read_text(o.prelude));
    inputs = fnv1a(inputs, read_text(o.kernels / "common.cl"));
    inputs = fnv1a(inputs, o.clang + " " + o.opt + " " + o.llvm_spirv + " " + kOptPasses +
                               kOptInlineThreshold + kOptColdInlineThreshold);
    std::map<std::string, uint64_t> family_hash;

    // Every variant for a device with doubles (and wide math) and one without.
    std::vector<Module> modules;
    std::map<std::string, size_t> seen;
    for (bool fp64 : {true, false}) {
      devplug::clc::DeviceCaps caps;
      caps.fp64 = fp64;
      caps.wide_math = fp64;
      for (devplug::clc::ModuleVariant& v : devplug::clc::all_variants(caps)) {
        Module m;
        m.key = devplug::level_zero::spirv::module_key(v.family, v.defines);
        if (seen.count(m.key)) continue;
        if (!family_hash.count(v.family))
          family_hash[v.family] = fnv1a(inputs, read_text(o.kernels / (v.family + ".cl")));
        m.spirv = o.work / (hex_key(fnv1a(family_hash[v.family], v.defines)) + ".spv");
        m.variant = std::move(v);
        seen[m.key] = modules.size();
        modules.push_back(std::move(m));
      }
    }

    std::atomic<size_t> next{0};
    std::mutex failures_mutex;
    std::vector<std::string> failures;
    std::vector<std::thread> workers;
    for (unsigned j = 0; j < o.jobs; ++j)
      workers.emplace_back([&] {
        for (size_t i; (i = next++) < modules.size();) {
          std::string failure = compile(o, modules[i]);
          if (!failure.empty()) {
            std::lock_guard<std::mutex> lock(failures_mutex);
            failures.push_back(std::move(failure));
            next = modules.size();  // stop early
          }
        }
      });
    for (std::thread& t : workers) t.join();
    if (!failures.empty()) {
      for (const std::string& f : failures) std::cerr << "devplug-clc-spirv: " << f << "\n";
      return 1;
    }

    size_t unique = 0, reused = 0;
    for (const Module& m : modules) reused += m.reused ? 1 : 0;
    const std::string archive = make_archive(modules, &unique);
    write_if_changed(o.archive, archive);
    write_if_changed(o.embed, make_embed(o.archive, fnv1a(kFnvStart, archive.data(), archive.size())));
    std::cout << "devplug-clc-spirv: " << modules.size() << " module variants (" << unique
              << " distinct SPIR-V modules, " << archive.size() / 1024 << " KiB), " << modules.size() - reused
              << " compiled, " << reused << " reused, validated by spirv-val\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "devplug-clc-spirv: " << e.what() << "\n";
    return 1;
  }
}
