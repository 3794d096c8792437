// SPDX-License-Identifier: Apache-2.0
// The ELF look before dlopen (see elf_check.hpp). Every offset and size comes from the file
// and is checked before use, in unsigned 64-bit arithmetic that cannot wrap.
#include "elf_check.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace devplug::detail {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
constexpr const char* kMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
constexpr const char* kMachineName = "aarch64";
#else
#error "elf_check: add this architecture's ELF machine"
#endif

// More program headers than any linker writes for a shared object; refusing more keeps
// the read small.
constexpr uint16_t kMaxProgramHeaders = 512;

// Whether [offset, offset + length) lies inside `size` bytes.
bool inside(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

std::string header_problem(const unsigned char* data, size_t size) {
  if (size < SELFMAG || std::memcmp(data, ELFMAG, SELFMAG) != 0)
    return "not an ELF file (no \\x7fELF at its start)";
  if (size < sizeof(Elf64_Ehdr))
    return "a truncated ELF file (" + std::to_string(size) + " bytes, no complete header)";
  if (data[EI_CLASS] != ELFCLASS64) return "not a 64-bit ELF file";
  if (data[EI_DATA] != ELFDATA2LSB) return "not a little-endian ELF file";
  if (data[EI_VERSION] != EV_CURRENT)
    return "an ELF file of unknown version " + std::to_string(data[EI_VERSION]);
  return "";
}

}  // namespace

std::string elf_load_problem(const unsigned char* data, size_t size, size_t file_size) {
  std::string problem = header_problem(data, size);
  if (!problem.empty()) return problem;
  Elf64_Ehdr eh;
  std::memcpy(&eh, data, sizeof eh);
  if (eh.e_type != ET_DYN) return "not a shared object (ELF type " + std::to_string(eh.e_type) + ")";
  if (eh.e_machine != kMachine)
    return "built for ELF machine " + std::to_string(eh.e_machine) + ", not for " + kMachineName;
  if (eh.e_ehsize != sizeof(Elf64_Ehdr)) return "an ELF header of " + std::to_string(eh.e_ehsize) + " bytes";
  if (eh.e_phnum == 0 || eh.e_phnum > kMaxProgramHeaders)
    return std::to_string(eh.e_phnum) + " program headers";
  if (eh.e_phentsize != sizeof(Elf64_Phdr))
    return "program headers of " + std::to_string(eh.e_phentsize) + " bytes";
  const uint64_t table = uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  if (!inside(eh.e_phoff, table, file_size)) return "the program headers reach past the end of the file";
  if (!inside(eh.e_phoff, table, size)) return "the program headers were not read";
  bool has_load = false, has_dynamic = false;
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, data + eh.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr), sizeof ph);
    const std::string which = "program header " + std::to_string(i);
    if (ph.p_type == PT_LOAD) {
      if (!inside(ph.p_offset, ph.p_filesz, file_size))
        return which + " (PT_LOAD) reaches past the end of the file";
      if (ph.p_filesz > ph.p_memsz) return which + " (PT_LOAD) has more file bytes than memory bytes";
      if (ph.p_align > 1 &&
          ((ph.p_align & (ph.p_align - 1)) != 0 || (ph.p_vaddr - ph.p_offset) % ph.p_align != 0))
        return which + " (PT_LOAD) is misaligned";
      if (ph.p_vaddr > (uint64_t{1} << 47) || ph.p_memsz > (uint64_t{1} << 47) - ph.p_vaddr)
        return which + " (PT_LOAD) maps outside the user address space";
      has_load = true;
      loads.push_back(ph);
    } else if (ph.p_type == PT_DYNAMIC) {
      if (has_dynamic) return "two PT_DYNAMIC program headers";
      if (!inside(ph.p_offset, ph.p_filesz, file_size))
        return which + " (PT_DYNAMIC) reaches past the end of the file";
      has_dynamic = true;
      dynamic = ph;
    }
  }
  if (!has_load) return "no PT_LOAD program header (nothing to map)";
  if (!has_dynamic) return "no PT_DYNAMIC program header (not a dynamic shared object)";
  if (dynamic.p_filesz < sizeof(Elf64_Dyn) || dynamic.p_filesz % sizeof(Elf64_Dyn) != 0)
    return "a PT_DYNAMIC of " + std::to_string(dynamic.p_filesz) + " bytes";
  for (const Elf64_Phdr& load : loads)
    if (dynamic.p_vaddr >= load.p_vaddr && dynamic.p_vaddr - load.p_vaddr <= load.p_filesz &&
        dynamic.p_filesz <= load.p_filesz - (dynamic.p_vaddr - load.p_vaddr))
      return "";
  return "the dynamic section lies outside every PT_LOAD";
}

std::string elf_load_problem(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::string("cannot open it: ") + std::strerror(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return "not a regular file";
  }
  const size_t file_size = static_cast<size_t>(st.st_size);
  // The header first, then as much as the program headers need.
  std::vector<unsigned char> bytes(sizeof(Elf64_Ehdr) < file_size ? sizeof(Elf64_Ehdr) : file_size);
  ssize_t got = bytes.empty() ? 0 : ::pread(fd, bytes.data(), bytes.size(), 0);
  std::string problem;
  if (got < 0 || static_cast<size_t>(got) != bytes.size()) {
    problem = "cannot read it";
  } else {
    problem = header_problem(bytes.data(), bytes.size());
    if (problem.empty()) {
      Elf64_Ehdr eh;
      std::memcpy(&eh, bytes.data(), sizeof eh);
      const uint64_t table = uint64_t{eh.e_phnum} * eh.e_phentsize;
      if (eh.e_phnum <= kMaxProgramHeaders && eh.e_phentsize == sizeof(Elf64_Phdr) &&
          inside(eh.e_phoff, table, file_size) && eh.e_phoff + table > bytes.size()) {
        const uint64_t end = eh.e_phoff + table;
        bytes.resize(static_cast<size_t>(end));
        got = ::pread(fd, bytes.data(), bytes.size(), 0);
        if (got < 0 || static_cast<size_t>(got) != bytes.size()) problem = "cannot read its program headers";
      }
      if (problem.empty()) problem = elf_load_problem(bytes.data(), bytes.size(), file_size);
    }
  }
  ::close(fd);
  return problem;
}

}  // namespace devplug::detail
