// SPDX-License-Identifier: Apache-2.0
// ELF reading for the doctor (see elf_file.hpp). Only the native class and byte order are
// parsed in depth: anything else cannot be loaded by this process anyway.
#include "elf_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

namespace devplug::tools {
namespace {

#if defined(__x86_64__)
constexpr int kHostMachine = EM_X86_64;
constexpr const char* kHostMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr int kHostMachine = EM_AARCH64;
constexpr const char* kHostMachineName = "aarch64";
#else
#error "devplug-info: add this architecture's ELF machine"
#endif

// A read-only mapping of a whole file, unmapped when it goes out of scope.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const unsigned char*>(p);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }
  // Whether [offset, offset + length) lies inside the file.
  bool holds(uint64_t offset, uint64_t length) const { return offset <= size_ && length <= size_ - offset; }

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

template <typename T>
bool read_at(const MappedFile& file, uint64_t offset, T* out) {
  if (!file.holds(offset, sizeof(T))) return false;
  std::memcpy(out, file.data() + offset, sizeof(T));
  return true;
}

// A NUL-terminated string at `offset`, or "" when it runs off the file.
std::string string_at(const MappedFile& file, uint64_t offset) {
  if (offset >= file.size()) return "";
  const char* begin = reinterpret_cast<const char*>(file.data() + offset);
  const void* end = std::memchr(begin, '\0', file.size() - offset);
  return end ? std::string(begin, static_cast<const char*>(end)) : std::string();
}

std::vector<std::string> split_paths(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ':'))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string describe_start(const MappedFile& file) {
  size_t printable = 0;
  const size_t n = file.size() < 64 ? file.size() : 64;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = file.data()[i];
    if (c == '\n' || c == '\t' || c == '\r' || (c >= 0x20 && c < 0x7f)) ++printable;
  }
  return (n > 0 && printable == n) ? "it looks like a text file" : "its first bytes are not \\x7fELF";
}

// Maps a virtual address from the dynamic section to a file offset through the PT_LOADs.
bool vaddr_to_offset(const std::vector<Elf64_Phdr>& loads, uint64_t vaddr, uint64_t* out) {
  for (const Elf64_Phdr& ph : loads) {
    if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
      *out = vaddr - ph.p_vaddr + ph.p_offset;
      return true;
    }
  }
  return false;
}

void read_dynamic(const MappedFile& file, const Elf64_Ehdr& eh, ElfInfo* info) {
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  bool has_dynamic = false;
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!read_at(file, eh.e_phoff + uint64_t{i} * eh.e_phentsize, &ph)) break;
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) {
      dynamic = ph;
      has_dynamic = true;
    }
  }
  if (!has_dynamic) return;
  std::vector<uint64_t> needed_offsets;
  uint64_t strtab_vaddr = 0, runpath = 0, rpath = 0;
  bool has_runpath = false, has_rpath = false;
  for (uint64_t at = dynamic.p_offset; at + sizeof(Elf64_Dyn) <= dynamic.p_offset + dynamic.p_filesz;
       at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn dyn{};
    if (!read_at(file, at, &dyn) || dyn.d_tag == DT_NULL) break;
    if (dyn.d_tag == DT_NEEDED) needed_offsets.push_back(dyn.d_un.d_val);
    if (dyn.d_tag == DT_STRTAB) strtab_vaddr = dyn.d_un.d_ptr;
    if (dyn.d_tag == DT_RUNPATH) {
      runpath = dyn.d_un.d_val;
      has_runpath = true;
    }
    if (dyn.d_tag == DT_RPATH) {
      rpath = dyn.d_un.d_val;
      has_rpath = true;
    }
    if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE) != 0)
      info->problem = "a position-independent executable, not a shared library";
  }
  uint64_t strtab = 0;
  if (!vaddr_to_offset(loads, strtab_vaddr, &strtab)) return;
  for (uint64_t offset : needed_offsets) info->needed.push_back(string_at(file, strtab + offset));
  // The loader ignores RPATH when RUNPATH is present.
  if (has_runpath)
    info->runpath = split_paths(string_at(file, strtab + runpath));
  else if (has_rpath)
    info->runpath = split_paths(string_at(file, strtab + rpath));
}

void read_dynsym(const MappedFile& file, const Elf64_Ehdr& eh, ElfInfo* info) {
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh{};
    if (!read_at(file, eh.e_shoff + uint64_t{i} * eh.e_shentsize, &sh)) return;
    if (sh.sh_type != SHT_DYNSYM || sh.sh_entsize < sizeof(Elf64_Sym)) continue;
    Elf64_Shdr strings{};
    if (!read_at(file, eh.e_shoff + uint64_t{sh.sh_link} * eh.e_shentsize, &strings)) return;
    info->has_dynsym = true;
    for (uint64_t at = sh.sh_offset; at + sh.sh_entsize <= sh.sh_offset + sh.sh_size; at += sh.sh_entsize) {
      Elf64_Sym sym{};
      if (!read_at(file, at, &sym)) return;
      const int binding = ELF64_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK)) continue;
      if (ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) continue;
      info->exported.push_back(string_at(file, strings.sh_offset + sym.st_name));
    }
    return;
  }
}

}  // namespace

ElfInfo read_elf(const std::string& path) {
  ElfInfo info;
  MappedFile file(path);
  if (file.data() == nullptr) {
    info.problem = "the file is empty or cannot be mapped";
    return info;
  }
  if (file.size() < EI_NIDENT || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0) {
    info.problem = "not an ELF file: " + describe_start(file);
    return info;
  }
  info.is_elf = true;
  const unsigned char elf_class = file.data()[EI_CLASS];
  const unsigned char elf_data = file.data()[EI_DATA];
  if (elf_class != ELFCLASS64) {
    info.problem = "a 32-bit ELF file; this process is 64-bit";
    return info;
  }
  if (elf_data != ELFDATA2LSB) {
    info.problem = "a big-endian ELF file; this process is little-endian";
    return info;
  }
  Elf64_Ehdr eh{};
  if (!read_at(file, 0, &eh)) {
    info.problem = "a truncated ELF file (no complete header)";
    return info;
  }
  if (eh.e_type == ET_EXEC)
    info.problem = "an executable, not a shared library";
  else if (eh.e_type == ET_REL)
    info.problem = "an object file (.o), not a linked shared library";
  else if (eh.e_type == ET_CORE)
    info.problem = "a core dump, not a shared library";
  else if (eh.e_type != ET_DYN)
    info.problem = "an ELF file of unknown type";
  else if (eh.e_machine != kHostMachine)
    info.problem = "built for ELF machine " + std::to_string(eh.e_machine) + ", not for " + kHostMachineName;
  if (!info.problem.empty()) return info;
  info.kind = std::string("64-bit shared object for ") + kHostMachineName;
  read_dynamic(file, eh, &info);
  if (!info.problem.empty()) return info;
  read_dynsym(file, eh, &info);
  return info;
}

bool is_loadable_elf(const std::string& path) {
  const ElfInfo info = read_elf(path);
  return info.is_elf && info.problem.empty();
}

}  // namespace devplug::tools
