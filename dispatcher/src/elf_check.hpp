// SPDX-License-Identifier: Apache-2.0
// The look at a plugin file before dlopen sees it: a file that is not a well-formed ELF
// shared object for this machine is refused with the reason, so that a truncated, corrupted
// or foreign file never reaches the system loader (which trusts what it maps, and can crash
// on a malformed one). A file that passes is trusted as code, as any shared library is:
// loading it runs its constructors.
//
// Pure and thread-safe; reads at most the ELF header and the program headers.
#pragma once

#include <cstddef>
#include <string>

namespace devplug::detail {

// "" when the bytes of a file of `file_size` bytes, whose first `size` bytes are `data`,
// look like an ELF shared object this process can load; otherwise why not ("not an ELF
// file", "built for ELF machine 183, not for x86-64", "program header 3 (PT_LOAD) reaches
// past the end of the file"). `data` must hold at least the header and the program headers
// when the file has them (elf_load_problem(path) reads that much).
std::string elf_load_problem(const unsigned char* data, size_t size, size_t file_size);

// The same for the file at `path` ("" when it looks loadable; a file that cannot be read
// gives the reason).
std::string elf_load_problem(const std::string& path);

}  // namespace devplug::detail
