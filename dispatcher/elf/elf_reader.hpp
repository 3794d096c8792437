// SPDX-License-Identifier: Apache-2.0
// One reader of ELF bytes for the two places that look at a shared object without loading
// it: the loader's check before dlopen (dispatcher/src/elf_check.cpp) and devplug-info's
// doctor (tools/devplug_info/elf_file.cpp). It reads the native class and byte order only
// (64-bit little-endian: anything else cannot be loaded by this process) and says nothing
// about what it reads: which fields are checked, and with which message, stays with each
// user. Every read is bounds-checked against the bytes it was given, in unsigned 64-bit
// arithmetic that cannot wrap, so the input may be truncated, corrupted or not ELF at all.
//
// Why a folder and target of its own (devplug_elf, a static library that is not installed):
// libdevplug exports only its C API, so devplug-info cannot call code inside it, and the
// tool must not compile sources out of dispatcher/src. The reader depends on nothing but
// <elf.h>; it lives under dispatcher/ because the loader's check is the use that must never
// be wrong, and devplug-info, which sits above the dispatcher, links it too.
//
// A Reader does not own its bytes; it is a view, valid while they are. Pure and thread-safe.
#pragma once

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace devplug::elf {

#if defined(__x86_64__)
inline constexpr uint16_t kHostMachine = EM_X86_64;
inline constexpr const char* kHostMachineName = "x86-64";
#elif defined(__aarch64__)
inline constexpr uint16_t kHostMachine = EM_AARCH64;
inline constexpr const char* kHostMachineName = "aarch64";
#else
#error "elf_reader: add this architecture's ELF machine"
#endif

// Whether [offset, offset + length) lies inside `size` bytes.
constexpr bool inside(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

// The first `size` bytes of an ELF file (all of it, or only its start: a read past them
// fails as a read past the end of the file does).
class Reader {
 public:
  Reader(const unsigned char* data, size_t size) : data_(data), size_(size) {}

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }
  // Whether [offset, offset + length) lies inside the bytes.
  bool holds(uint64_t offset, uint64_t length) const { return inside(offset, length, size_); }

  // Whether the bytes start with \x7fELF.
  bool has_magic() const { return size_ >= SELFMAG && std::memcmp(data_, ELFMAG, SELFMAG) == 0; }

  // Copies the `T` at `offset` into `*out`; false, leaving `*out` alone, when it is not all
  // inside the bytes.
  template <typename T>
  bool read(uint64_t offset, T* out) const {
    if (!holds(offset, sizeof(T))) return false;
    std::memcpy(out, data_ + offset, sizeof(T));
    return true;
  }

  // The ELF header.
  bool header(Elf64_Ehdr* out) const { return read(0, out); }
  // Program header `index`, at e_phoff + index * e_phentsize.
  bool program_header(const Elf64_Ehdr& eh, uint64_t index, Elf64_Phdr* out) const {
    return read(eh.e_phoff + index * eh.e_phentsize, out);
  }
  // Section header `index`, at e_shoff + index * e_shentsize.
  bool section_header(const Elf64_Ehdr& eh, uint64_t index, Elf64_Shdr* out) const {
    return read(eh.e_shoff + index * eh.e_shentsize, out);
  }

  // The entries of the PT_DYNAMIC segment `dynamic`, in order, up to DT_NULL (not included),
  // the end of the segment, or the first entry not inside the bytes.
  std::vector<Elf64_Dyn> dynamic_entries(const Elf64_Phdr& dynamic) const;

  // The symbols of the symbol table section `table` (SHT_DYNSYM or SHT_SYMTAB, entries
  // sh_entsize apart; the caller checks that sh_entsize holds an Elf64_Sym), in order, up to
  // the end of the section or the first symbol not inside the bytes.
  std::vector<Elf64_Sym> symbols(const Elf64_Shdr& table) const;

  // The NUL-terminated string at `offset`, or "" when it runs past the bytes.
  std::string string_at(uint64_t offset) const;

 private:
  const unsigned char* data_;
  size_t size_;
};

// Maps the virtual address `vaddr` (from the dynamic section) to a file offset through the
// PT_LOAD program headers `loads`; false when none maps it from the file.
bool vaddr_to_offset(const std::vector<Elf64_Phdr>& loads, uint64_t vaddr, uint64_t* out);

}  // namespace devplug::elf
