// SPDX-License-Identifier: Apache-2.0
// Reads the embedded SPIR-V archive (spirv/archive_format.hpp) once, into a map by key.
#include "spirv_archive.hpp"

#include <cstring>
#include <unordered_map>

#include "spirv/archive_format.hpp"

namespace devplug::level_zero {

namespace spirv {
const unsigned char* archive_begin();  // spirv_embed.cpp, generated at build time
size_t archive_size();
}  // namespace spirv

namespace {

using Index = std::unordered_map<std::string, SpirvModule>;

Index read_archive() {
  Index index;
  const unsigned char* base = spirv::archive_begin();
  const size_t size = spirv::archive_size();
  spirv::Header header;
  if (size < sizeof header) return index;
  std::memcpy(&header, base, sizeof header);
  if (std::memcmp(header.magic, spirv::kMagic, sizeof header.magic) != 0) return index;
  if (header.count > (size - sizeof header) / sizeof(spirv::Entry)) return index;
  for (uint32_t i = 0; i < header.count; ++i) {
    spirv::Entry e;
    std::memcpy(&e, base + sizeof header + i * sizeof e, sizeof e);
    if (e.key_offset > size || e.key_size > size - e.key_offset) return {};
    if (e.data_offset > size || e.data_size > size - e.data_offset) return {};
    const std::string key(reinterpret_cast<const char*>(base + e.key_offset), e.key_size);
    index[key] = SpirvModule{base + e.data_offset, e.data_size, e.hash};
  }
  return index;
}

const Index& archive() {
  static const Index index = read_archive();
  return index;
}

}  // namespace

const SpirvModule* find_spirv(const std::string& family, const std::string& defines) {
  const Index& index = archive();
  auto it = index.find(spirv::module_key(family, defines));
  return it == index.end() ? nullptr : &it->second;
}

size_t spirv_module_count() { return archive().size(); }

}  // namespace devplug::level_zero
