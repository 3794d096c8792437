// SPDX-License-Identifier: Apache-2.0
// ELF reading for the doctor (see elf_file.hpp), through the ELF reader it shares with the
// loader's check (dispatcher/elf/elf_reader.hpp). Only the native class and byte order are
// parsed in depth: anything else cannot be loaded by this process anyway.
#include "elf_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include "elf_reader.hpp"

namespace devplug::tools {
namespace {

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
  // The whole file, to read.
  elf::Reader reader() const { return elf::Reader(data_, size_); }

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

std::vector<std::string> split_paths(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ':'))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string describe_start(const elf::Reader& file) {
  size_t printable = 0;
  const size_t n = file.size() < 64 ? file.size() : 64;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = file.data()[i];
    if (c == '\n' || c == '\t' || c == '\r' || (c >= 0x20 && c < 0x7f)) ++printable;
  }
  return (n > 0 && printable == n) ? "it looks like a text file" : "its first bytes are not \\x7fELF";
}

void read_dynamic(const elf::Reader& file, const Elf64_Ehdr& eh, ElfInfo* info) {
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  bool has_dynamic = false;
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!file.program_header(eh, i, &ph)) break;
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
  for (const Elf64_Dyn& dyn : file.dynamic_entries(dynamic)) {
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
  if (!elf::vaddr_to_offset(loads, strtab_vaddr, &strtab)) return;
  for (uint64_t offset : needed_offsets) info->needed.push_back(file.string_at(strtab + offset));
  // The loader ignores RPATH when RUNPATH is present.
  if (has_runpath)
    info->runpath = split_paths(file.string_at(strtab + runpath));
  else if (has_rpath)
    info->runpath = split_paths(file.string_at(strtab + rpath));
}

void read_dynsym(const elf::Reader& file, const Elf64_Ehdr& eh, ElfInfo* info) {
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh{};
    if (!file.section_header(eh, i, &sh)) return;
    if (sh.sh_type != SHT_DYNSYM || sh.sh_entsize < sizeof(Elf64_Sym)) continue;
    Elf64_Shdr strings{};
    if (!file.section_header(eh, sh.sh_link, &strings)) return;
    info->has_dynsym = true;
    for (const Elf64_Sym& sym : file.symbols(sh)) {
      const int binding = ELF64_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK)) continue;
      if (ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) continue;
      info->exported.push_back(file.string_at(strings.sh_offset + sym.st_name));
    }
    return;
  }
}

}  // namespace

ElfInfo read_elf(const std::string& path) {
  ElfInfo info;
  const MappedFile mapped(path);
  if (mapped.data() == nullptr) {
    info.problem = "the file is empty or cannot be mapped";
    return info;
  }
  const elf::Reader file = mapped.reader();
  if (file.size() < EI_NIDENT || !file.has_magic()) {
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
  if (!file.header(&eh)) {
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
  else if (eh.e_machine != elf::kHostMachine)
    info.problem =
        "built for ELF machine " + std::to_string(eh.e_machine) + ", not for " + elf::kHostMachineName;
  if (!info.problem.empty()) return info;
  info.kind = std::string("64-bit shared object for ") + elf::kHostMachineName;
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
