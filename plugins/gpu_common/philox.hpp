// SPDX-License-Identifier: Apache-2.0
// Philox4x32-10 and devplug's mapping from a logical element index to Philox words
// (COMMON_BRIEF / docs/random.md): word w comes from counter block offset + w / 4 (uint64,
// wrapping), counter (lo, hi, 0, 0), key (lo(seed), hi(seed)), output word w % 4. Host and
// device share this code, so the host unit test proves the bits the kernels produce.
#pragma once

#include <cstdint>

#include "gpu_port.hpp"

namespace devplug::gpu {

struct PhiloxBlock {
  uint32_t w[4];
};

GPU_HD inline PhiloxBlock philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0,
                                        uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n1 = static_cast<uint32_t>(p1);
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    const uint32_t n3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += kW0;
    k1 += kW1;
  }
  return PhiloxBlock{{c0, c1, c2, c3}};
}

// The counter block `block` (already offset) for `seed`.
GPU_HD inline PhiloxBlock philox_block(uint64_t seed, uint64_t block) {
  return philox4x32_10(static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0,
                       static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// Word `w` of the stream for (seed, offset).
GPU_HD inline uint32_t philox_word(uint64_t seed, uint64_t offset, uint64_t w) {
  return philox_block(seed, offset + w / 4).w[w % 4];
}

}  // namespace devplug::gpu
