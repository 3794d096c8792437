// SPDX-License-Identifier: Apache-2.0
// Tensor metadata as GPU kernels take it, and the pure host logic that prepares it: packing a
// devplug_tensor_desc_t into a small by-value struct, choosing 32- or 64-bit indexing, spotting the
// dense fast path, and sizing a launch. No GPU calls here, so it is unit-tested on any host.
#pragma once

#include <cstdint>

#include "devplug/types.h"
#include "gpu_port.hpp"

namespace devplug::gpu {

// Shape and strides (in elements) of one tensor, passed to kernels by value.
struct Layout {
  int32_t rank;
  int64_t shape[DEVPLUG_MAX_RANK];
  int64_t strides[DEVPLUG_MAX_RANK];
};

inline Layout pack_layout(const devplug_tensor_desc_t& t) {
  Layout l{};
  l.rank = t.rank;
  for (int32_t d = 0; d < t.rank; ++d) {
    l.shape[d] = t.shape[d];
    l.strides[d] = t.strides[d];
  }
  return l;
}

inline int64_t layout_numel(const Layout& l) {
  int64_t n = 1;
  for (int32_t d = 0; d < l.rank; ++d) n *= l.shape[d];
  return n;
}

// Whether `l` is dense row-major (size-1 dims may have any stride).
inline bool layout_is_contiguous(const Layout& l) {
  int64_t expected = 1;
  for (int32_t d = l.rank - 1; d >= 0; --d) {
    if (l.shape[d] == 1) continue;
    if (l.strides[d] != expected) return false;
    expected *= l.shape[d];
  }
  return true;
}

// The largest |element offset| reachable from the first element, plus one: a 32-bit index
// is safe when this and the element count stay below 2^31.
inline int64_t layout_extent(const Layout& l) {
  int64_t lo = 0, hi = 0;
  for (int32_t d = 0; d < l.rank; ++d) {
    if (l.shape[d] == 0) return 0;
    const int64_t span = (l.shape[d] - 1) * l.strides[d];
    if (span > 0)
      hi += span;
    else
      lo += span;
  }
  return (hi > -lo ? hi : -lo) + 1;
}

constexpr int64_t kInt32Limit = int64_t{1} << 31;

// Grid-stride loops (`for (i = first; i < n; i += gridDim.x * blockDim.x)`) step past the
// count by up to one grid of threads before they stop; a 32-bit count must leave that much
// room below 2^31 or the last step overflows int32 and wraps to a negative index. A grid
// of launch_1d has at most 65535 * 8 blocks of 256 threads (2^27), a reduction at most 2^20
// blocks along x.
constexpr int64_t kGridStrideRoom = int64_t{1} << 28;

// True when every offset and the element count of these layouts fit in int32, the count
// with room for the grid stride.
inline bool fits_int32(const Layout* layouts, int count) {
  for (int i = 0; i < count; ++i) {
    if (layout_numel(layouts[i]) >= kInt32Limit - kGridStrideRoom) return false;
    if (layout_extent(layouts[i]) >= kInt32Limit) return false;
  }
  return true;
}

// Collapses adjacent dims that are contiguous with each other in every layout (same shape
// for all), dropping size-1 dims: fewer divisions per element in the strided kernels.
// All layouts must have the same shape. Keeps the element order row-major.
inline void coalesce(Layout* layouts, int count) {
  if (count <= 0) return;
  const int32_t rank = layouts[0].rank;
  Layout out[8];
  for (int i = 0; i < count; ++i) out[i] = Layout{};
  int32_t r = 0;
  for (int32_t d = 0; d < rank; ++d) {
    const int64_t size = layouts[0].shape[d];
    if (size == 1) continue;
    bool merge = r > 0;
    for (int i = 0; merge && i < count; ++i) merge = out[i].strides[r - 1] == layouts[i].strides[d] * size;
    for (int i = 0; i < count; ++i) {
      if (merge) {
        out[i].shape[r - 1] *= size;
        out[i].strides[r - 1] = layouts[i].strides[d];
      } else {
        out[i].shape[r] = size;
        out[i].strides[r] = layouts[i].strides[d];
      }
    }
    if (!merge) ++r;
  }
  for (int i = 0; i < count; ++i) {
    out[i].rank = r;
    layouts[i] = out[i];
  }
}

// Element offset of row-major logical index `linear` in `l`.
template <typename Index>
GPU_HD inline Index offset_of(const Layout& l, Index linear) {
  Index offset = 0;
  for (int32_t d = l.rank - 1; d >= 0; --d) {
    const Index size = static_cast<Index>(l.shape[d]);
    const Index i = linear % size;
    linear /= size;
    offset += i * static_cast<Index>(l.strides[d]);
  }
  return offset;
}

// A 1-D launch: blocks of `threads` covering `work` items with at most `max_blocks` blocks
// (the kernels loop grid-stride over the rest).
struct LaunchConfig {
  uint32_t blocks;
  uint32_t threads;
};

inline LaunchConfig launch_1d(int64_t work, uint32_t threads = 256, uint32_t max_blocks = 65535u * 8) {
  LaunchConfig c{1, threads};
  if (work <= 0) return LaunchConfig{0, threads};
  const int64_t blocks = (work + threads - 1) / threads;
  c.blocks = static_cast<uint32_t>(blocks < max_blocks ? blocks : max_blocks);
  return c;
}

// Rows this short are folded by one thread each: a block of 32 threads and a shared-memory
// tree per output would leave most of its threads idle (max_pool2d's 2x2 windows reduce 4).
constexpr int64_t kSerialReduceLength = 16;

// How a reduction splits: `outputs` results, each over `length` elements, with `splits`
// blocks per output when a second pass combines partials, or one thread per output
// (`serial`, `threads` per block) when rows are at most kSerialReduceLength long.
struct ReducePlan {
  int64_t outputs;
  int64_t length;
  uint32_t threads;
  uint32_t splits;
  bool serial = false;
};

inline ReducePlan plan_reduce(int64_t outputs, int64_t length, uint32_t target_blocks = 1024) {
  if (length <= kSerialReduceLength) return ReducePlan{outputs, length, 128, 1, true};
  ReducePlan p{outputs, length, 32, 1};
  while (p.threads < 256 && p.threads < length) p.threads *= 2;
  // Enough blocks to fill the device when few outputs are long; at least 4 elements per thread.
  if (outputs < target_blocks && length > 4 * int64_t{p.threads}) {
    int64_t splits = target_blocks / (outputs > 0 ? outputs : 1);
    const int64_t useful = length / (4 * int64_t{p.threads});
    if (splits > useful) splits = useful;
    if (splits > 65535) splits = 65535;
    p.splits = static_cast<uint32_t>(splits < 1 ? 1 : splits);
  }
  return p;
}

}  // namespace devplug::gpu
