// SPDX-License-Identifier: Apache-2.0
// Strided index iteration for plugin authors: walk the elements of one or more tensors of
// the same shape in row-major logical order, tracking each tensor's element offset, so a
// kernel handles zero, negative and overlapping strides without special cases.
//
//   devplug::sdk::for_each_offset<2>(out.rank, out.shape, {in.strides, out.strides},
//       [&](const std::array<int64_t, 2>& at) { dst[at[1]] = f(src[at[0]]); });
//
// Offsets are in elements relative to each tensor's first element (byte_offset). Nothing here
// allocates; everything is reentrant.
#pragma once

#include <array>
#include <cstdint>

#include "devplug/ops.h"
#include "devplug/types.h"

namespace devplug::sdk {

// Number of elements of a shape: the product of its dims, 1 for rank 0.
inline int64_t numel(int32_t rank, const int64_t* shape) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d) n *= shape[d];
  return n;
}
inline int64_t numel(const devplug_tensor_desc_t& t) { return numel(t.rank, t.shape); }

// Whether `t` is dense and row-major (size-1 dims may have any stride).
inline bool is_contiguous(const devplug_tensor_desc_t& t) {
  int64_t expected = 1;
  for (int32_t d = t.rank - 1; d >= 0; --d) {
    if (t.shape[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

// a + b * c in two's complement, without undefined behaviour when it wraps. The walk below
// steps one past the end of a dim before it steps back: with a huge stride on a dim of size 1
// (a valid view) that step leaves int64 although every offset passed to `f` is in range.
inline int64_t wrapping_add_mul(int64_t a, int64_t b, int64_t c) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b) * static_cast<uint64_t>(c));
}

// Calls `f(offsets)` once per element, in row-major order of `shape`, where offsets[k] is the
// element offset of tensor k (sum of index * strides[k]). Does nothing for an empty shape;
// calls once with zero offsets for rank 0.
template <size_t K, typename F>
void for_each_offset(int32_t rank, const int64_t* shape, const std::array<const int64_t*, K>& strides,
                     F&& f) {
  for (int32_t d = 0; d < rank; ++d)
    if (shape[d] == 0) return;
  std::array<int64_t, K> at{};
  if (rank == 0) {
    f(static_cast<const std::array<int64_t, K>&>(at));
    return;
  }
  int64_t index[DEVPLUG_MAX_RANK] = {0};
  const int32_t inner = rank - 1;
  const int64_t inner_size = shape[inner];
  for (;;) {
    // Innermost dim as a tight loop.
    for (int64_t i = 0; i < inner_size; ++i) {
      f(static_cast<const std::array<int64_t, K>&>(at));
      for (size_t k = 0; k < K; ++k) at[k] = wrapping_add_mul(at[k], 1, strides[k][inner]);
    }
    for (size_t k = 0; k < K; ++k) at[k] = wrapping_add_mul(at[k], -inner_size, strides[k][inner]);
    // Odometer carry through the outer dims.
    int32_t d = inner - 1;
    for (; d >= 0; --d) {
      ++index[d];
      for (size_t k = 0; k < K; ++k) at[k] = wrapping_add_mul(at[k], 1, strides[k][d]);
      if (index[d] < shape[d]) break;
      for (size_t k = 0; k < K; ++k) at[k] = wrapping_add_mul(at[k], -shape[d], strides[k][d]);
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Calls `f(index)` once per element in row-major order with the full multi-index (an array
// of `rank` entries). Slower than for_each_offset; for kernels that need coordinates.
template <typename F>
void for_each_index(int32_t rank, const int64_t* shape, F&& f) {
  for (int32_t d = 0; d < rank; ++d)
    if (shape[d] == 0) return;
  int64_t index[DEVPLUG_MAX_RANK] = {0};
  for (;;) {
    f(static_cast<const int64_t*>(index));
    int32_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Whether every element `t` can reach lies in the first `buffer_bytes` bytes of its buffer: the
// byte range its strides span from byte_offset, computed without overflow. A tensor with a zero
// dim reaches nothing; negative dims are the caller's to refuse first.
inline bool fits_buffer(const devplug_tensor_desc_t& t, uint64_t buffer_bytes) {
  const __int128 elem = devplug_dtype_size(t.dtype);
  __int128 lo = 0, hi = 0;  // element offsets reachable, relative to the first element
  for (int32_t d = 0; d < t.rank; ++d) {
    if (t.shape[d] == 0) return true;
    const __int128 span = static_cast<__int128>(t.shape[d] > 0 ? t.shape[d] - 1 : 0) * t.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  const __int128 first = static_cast<__int128>(t.byte_offset) + lo * elem;
  const __int128 end = static_cast<__int128>(t.byte_offset) + (hi + 1) * elem;
  return first >= 0 && end <= static_cast<__int128>(buffer_bytes);
}

// The row-major strides of a contiguous tensor of `shape`.
inline void contiguous_strides(int32_t rank, const int64_t* shape, int64_t* out_strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    out_strides[d] = s;
    s *= shape[d] > 0 ? shape[d] : 1;
  }
}

}  // namespace devplug::sdk
