// SPDX-License-Identifier: Apache-2.0
// The ELF look before dlopen (see elf_check.hpp), through the ELF reader shared with
// devplug-info (dispatcher/elf/elf_reader.hpp). Every offset and size comes from the file
// and is checked before use, in unsigned 64-bit arithmetic that cannot wrap.
#include "elf_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "elf_reader.hpp"

namespace devplug::detail {
namespace {

using elf::inside;

// More program headers than any linker writes for a shared object; refusing more keeps
// the read small.
constexpr uint16_t kMaxProgramHeaders = 512;

// "" when `file` starts with a complete ELF header of the native class, byte order and
// version (then `*eh` holds it), else why not.
std::string header_problem(const elf::Reader& file, Elf64_Ehdr* eh) {
  if (!file.has_magic()) return "not an ELF file (no \\x7fELF at its start)";
  if (!file.header(eh))
    return "a truncated ELF file (" + std::to_string(file.size()) + " bytes, no complete header)";
  if (eh->e_ident[EI_CLASS] != ELFCLASS64) return "not a 64-bit ELF file";
  if (eh->e_ident[EI_DATA] != ELFDATA2LSB) return "not a little-endian ELF file";
  if (eh->e_ident[EI_VERSION] != EV_CURRENT)
    return "an ELF file of unknown version " + std::to_string(eh->e_ident[EI_VERSION]);
  return "";
}

}  // namespace

std::string elf_load_problem(const unsigned char* data, size_t size, size_t file_size) {
  const elf::Reader file(data, size);
  Elf64_Ehdr eh{};
  std::string problem = header_problem(file, &eh);
  if (!problem.empty()) return problem;
  if (eh.e_type != ET_DYN) return "not a shared object (ELF type " + std::to_string(eh.e_type) + ")";
  if (eh.e_machine != elf::kHostMachine)
    return "built for ELF machine " + std::to_string(eh.e_machine) + ", not for " + elf::kHostMachineName;
  if (eh.e_ehsize != sizeof(Elf64_Ehdr)) return "an ELF header of " + std::to_string(eh.e_ehsize) + " bytes";
  if (eh.e_phnum == 0 || eh.e_phnum > kMaxProgramHeaders)
    return std::to_string(eh.e_phnum) + " program headers";
  if (eh.e_phentsize != sizeof(Elf64_Phdr))
    return "program headers of " + std::to_string(eh.e_phentsize) + " bytes";
  const uint64_t table = uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  if (!inside(eh.e_phoff, table, file_size)) return "the program headers reach past the end of the file";
  if (!file.holds(eh.e_phoff, table)) return "the program headers were not read";
  bool has_load = false, has_dynamic = false;
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!file.program_header(eh, i, &ph)) return "the program headers were not read";  // checked above
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
    Elf64_Ehdr eh{};
    problem = header_problem(elf::Reader(bytes.data(), bytes.size()), &eh);
    if (problem.empty()) {
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
