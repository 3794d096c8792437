// SPDX-License-Identifier: Apache-2.0
// The bounds-checked ELF reader (see elf_reader.hpp): the walks over the dynamic section,
// a symbol table and the string tables.
#include "elf_reader.hpp"

namespace devplug::elf {

std::vector<Elf64_Dyn> Reader::dynamic_entries(const Elf64_Phdr& dynamic) const {
  std::vector<Elf64_Dyn> entries;
  for (uint64_t at = dynamic.p_offset; at + sizeof(Elf64_Dyn) <= dynamic.p_offset + dynamic.p_filesz;
       at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn dyn{};
    if (!read(at, &dyn) || dyn.d_tag == DT_NULL) break;
    entries.push_back(dyn);
  }
  return entries;
}

std::vector<Elf64_Sym> Reader::symbols(const Elf64_Shdr& table) const {
  std::vector<Elf64_Sym> symbols;
  if (table.sh_entsize == 0) return symbols;
  for (uint64_t at = table.sh_offset; at + table.sh_entsize <= table.sh_offset + table.sh_size;
       at += table.sh_entsize) {
    Elf64_Sym sym{};
    if (!read(at, &sym)) break;
    symbols.push_back(sym);
  }
  return symbols;
}

std::string Reader::string_at(uint64_t offset) const {
  if (offset >= size_) return "";
  const char* begin = reinterpret_cast<const char*>(data_ + offset);
  const void* end = std::memchr(begin, '\0', size_ - offset);
  return end ? std::string(begin, static_cast<const char*>(end)) : std::string();
}

bool vaddr_to_offset(const std::vector<Elf64_Phdr>& loads, uint64_t vaddr, uint64_t* out) {
  for (const Elf64_Phdr& ph : loads) {
    if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
      *out = vaddr - ph.p_vaddr + ph.p_offset;
      return true;
    }
  }
  return false;
}

}  // namespace devplug::elf
