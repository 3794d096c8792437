// SPDX-License-Identifier: Apache-2.0
// The layout of the SPIR-V archive embedded in the level_zero plugin: written at build time by
// build_spirv.cpp, read by the plugin (spirv_archive.cpp). Little-endian, 8-byte aligned.
//
//   Header   magic "DPSPIRV1", module count, reserved
//   Entry[]  one per module variant: where its key and its SPIR-V are, and the SPIR-V's hash
//   ...      keys ("<family>|<defines>") and SPIR-V words; identical modules share one copy
#pragma once

#include <cstdint>
#include <string>

namespace devplug::level_zero::spirv {

constexpr char kMagic[8] = {'D', 'P', 'S', 'P', 'I', 'R', 'V', '1'};

struct Header {
  char magic[8];
  uint32_t count;
  uint32_t reserved;
};

struct Entry {
  uint32_t key_offset;  // from the start of the archive
  uint32_t key_size;
  uint32_t data_offset;  // 4-byte aligned
  uint32_t data_size;    // a multiple of 4
  uint64_t hash;         // FNV-1a of the SPIR-V bytes (the module's identity in the disk cache)
};

static_assert(sizeof(Header) == 16 && sizeof(Entry) == 24, "archive layout");

// The key of the module of `family` built with `defines` (module_defines of clc_common).
inline std::string module_key(const std::string& family, const std::string& defines) {
  return family + "|" + defines;
}

}  // namespace devplug::level_zero::spirv
