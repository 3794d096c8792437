// SPDX-License-Identifier: Apache-2.0
// The elementwise engine: out[i] = f(in0[i], in1[i], ...) over tensors of one shape with any
// strides. Dims that are contiguous in every tensor are merged first; a fully dense call runs
// the vectorised kernel (16-byte loads and stores, grid-stride), the rest the strided kernel
// with 32-bit index arithmetic when every offset fits and 64-bit otherwise. Element k is
// always logical row-major element k, whatever the launch geometry.
#pragma once

#include <cstdint>
#include <utility>

#include "device_types.cuh"
#include "gpu_runtime.hpp"
#include "launch.cuh"
#include "pack.hpp"

namespace devplug::gpu {

template <int N>
struct Layouts {
  Layout l[N];
};

template <int N>
struct Pointers {
  char* p[N];
};

template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// Elements per thread on the dense path: each access at most 16 bytes.
template <typename Out, typename... In>
GPU_HD constexpr int vector_width() {
  size_t largest = sizeof(Out);
  ((largest = sizeof(In) > largest ? sizeof(In) : largest), ...);
  return static_cast<int>(16 / largest) > 0 ? static_cast<int>(16 / largest) : 1;
}

// Offsets of row-major element `i` in each of N layouts of one shape.
template <typename Index, int N>
GPU_D inline void offsets_of(const Layouts<N>& ls, Index i, Index (&off)[N]) {
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int32_t d = ls.l[0].rank - 1; d >= 0; --d) {
    const Index size = static_cast<Index>(ls.l[0].shape[d]);
    const Index c = i % size;
    i /= size;
    for (int k = 0; k < N; ++k) off[k] += c * static_cast<Index>(ls.l[k].strides[d]);
  }
}

// Calls f on the inputs at the given offsets and stores into the output (tensor 0).
template <typename Out, typename... In, typename F, typename Index, size_t... K>
GPU_D inline void map_one(const Pointers<sizeof...(In) + 1>& ptrs, const Index* off, const F& f,
                          std::index_sequence<K...>) {
  Out* out = reinterpret_cast<Out*>(ptrs.p[0]);
  out[off[0]] = f(reinterpret_cast<const In*>(ptrs.p[K + 1])[off[K + 1]]...);
}

template <typename F, typename Index, typename Out, typename... In>
__global__ void map_strided_kernel(Pointers<sizeof...(In) + 1> ptrs, Layouts<sizeof...(In) + 1> ls, Index n,
                                   F f) {
  constexpr int N = sizeof...(In) + 1;
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index off[N];
    offsets_of<Index, N>(ls, i, off);
    map_one<Out, In...>(ptrs, off, f, std::index_sequence_for<In...>{});
  }
}

template <typename Out, typename... In, typename F, size_t... K>
GPU_D inline void map_vector(const Pointers<sizeof...(In) + 1>& ptrs, int64_t v, const F& f,
                             std::index_sequence<K...>) {
  constexpr int V = vector_width<Out, In...>();
  Vec<Out, V> o;
  // Each input vector is one 16-byte (or narrower) load; the compiler keeps it in registers.
#pragma unroll
  for (int j = 0; j < V; ++j) o.v[j] = f(reinterpret_cast<const Vec<In, V>*>(ptrs.p[K + 1])[v].v[j]...);
  reinterpret_cast<Vec<Out, V>*>(ptrs.p[0])[v] = o;
}

// Dense and 16-byte aligned: thread t handles vectors t, t + grid, ...; the tail that does
// not fill a vector runs scalar.
template <typename F, typename Out, typename... In>
__global__ void map_dense_kernel(Pointers<sizeof...(In) + 1> ptrs, int64_t n, F f) {
  constexpr int V = vector_width<Out, In...>();
  const int64_t vectors = n / V;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t v = first; v < vectors; v += stride)
    map_vector<Out, In...>(ptrs, v, f, std::index_sequence_for<In...>{});
  for (int64_t i = vectors * V + first; i < n; i += stride) {
    int64_t offs[sizeof...(In) + 1];
    for (size_t k = 0; k < sizeof...(In) + 1; ++k) offs[k] = i;
    map_one<Out, In...>(ptrs, offs, f, std::index_sequence_for<In...>{});
  }
}

// Enqueues out = f(ins...) elementwise. `out` and every input have the same shape; their
// element types are Out and In... (checked by the caller's dispatch).
template <typename Out, typename... In, typename F>
void launch_map(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& out,
                const devplug_tensor_desc_t* const* ins, F f, const char* what) {
  constexpr int N = sizeof...(In) + 1;
  Pointers<N> ptrs;
  Layouts<N> ls;
  ptrs.p[0] = static_cast<char*>(tensor_data(out));
  ls.l[0] = pack_layout(out);
  for (int k = 1; k < N; ++k) {
    ptrs.p[k] = static_cast<char*>(tensor_data(*ins[k - 1]));
    ls.l[k] = pack_layout(*ins[k - 1]);
    ls.l[k].rank = out.rank;  // one shape: the output's
    for (int32_t d = 0; d < out.rank; ++d) ls.l[k].shape[d] = out.shape[d];
  }
  const int64_t n = layout_numel(ls.l[0]);
  if (n == 0) return;
  use_device(stream->device);
  coalesce(ls.l, N);
  bool dense = true;
  for (int k = 0; k < N; ++k)
    dense = dense && (ls.l[k].rank == 0 || (ls.l[k].rank == 1 && ls.l[k].strides[0] == 1));
  constexpr int V = vector_width<Out, In...>();
  const size_t sizes[N] = {sizeof(Out), sizeof(In)...};
  for (int k = 0; k < N; ++k) dense = dense && reinterpret_cast<uintptr_t>(ptrs.p[k]) % (sizes[k] * V) == 0;
  if (dense) {
    const LaunchConfig c = launch_1d((n + V - 1) / V);
    launch(what, map_dense_kernel<F, Out, In...>, c.blocks, c.threads, stream->stream, ptrs, n, f);
  } else if (fits_int32(ls.l, N)) {
    const LaunchConfig c = launch_1d(n);
    launch(what, map_strided_kernel<F, int32_t, Out, In...>, c.blocks, c.threads, stream->stream, ptrs, ls, n,
           f);
  } else {
    const LaunchConfig c = launch_1d(n);
    launch(what, map_strided_kernel<F, int64_t, Out, In...>, c.blocks, c.threads, stream->stream, ptrs, ls, n,
           f);
  }
}

}  // namespace devplug::gpu
