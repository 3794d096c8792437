// SPDX-License-Identifier: Apache-2.0
// Reads what the doctor needs from a shared object without loading it: the ELF header,
// the libraries it needs (DT_NEEDED), its RUNPATH/RPATH and whether it exports a symbol.
// Every offset in the file is bounds-checked: the input may be truncated or not ELF at all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace devplug::tools {

struct ElfInfo {
  bool is_elf = false;
  std::string problem;               // why the file is unusable here ("not an ELF file", "32-bit"), or ""
  std::string kind;                  // "64-bit shared object for x86-64"
  std::vector<std::string> needed;   // DT_NEEDED sonames, in order
  std::vector<std::string> runpath;  // DT_RUNPATH entries (or DT_RPATH when no RUNPATH)
  bool has_dynsym = false;
  std::vector<std::string> exported;  // defined, default-visibility dynamic symbols
};

// Reads `path`. Never throws for bad content; `problem` says what is wrong.
ElfInfo read_elf(const std::string& path);

// Whether `path` is an ELF shared object this process could load (class, data, machine).
bool is_loadable_elf(const std::string& path);

}  // namespace devplug::tools
