// SPDX-License-Identifier: Apache-2.0
// matmul by a portable shared-memory tiled kernel: the HIP plugin's matmul (hipBLAS is not
// packaged for Debian 12), and on CUDA an opt-in alternative to cuBLASLt
// (DEVPLUG_CUDA_MATMUL=tiled) so the shared kernel can be proven on an NVIDIA GPU. Operands
// are read through their strides (transposed, sliced and stride-0 batch views need no copy);
// float16/bfloat16/float32 accumulate in float32, float64 in float64.
#include "elementwise.cuh"
#include "gpu_ops.hpp"

namespace devplug::gpu {
namespace {

constexpr int kTile = 16;

struct MatmulGeometry {
  Layout batch_a, batch_b, batch_out;  // batch dims (shape shared), each operand's strides
  int64_t m, n, k, batches;
  int64_t a_row, a_col, b_row, b_col, out_row, out_col;
};

template <typename T>
__global__ void matmul_tiled_kernel(const T* a, const T* b, T* out, MatmulGeometry g) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  __shared__ Acc tile_a[kTile][kTile + 1];
  __shared__ Acc tile_b[kTile][kTile + 1];
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + threadIdx.y;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
  for (int64_t batch = blockIdx.z; batch < g.batches; batch += gridDim.z) {
    const T* pa = a + offset_of<int64_t>(g.batch_a, batch);
    const T* pb = b + offset_of<int64_t>(g.batch_b, batch);
    Acc acc = 0;
    for (int64_t k0 = 0; k0 < g.k; k0 += kTile) {
      const int64_t ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
      tile_a[threadIdx.y][threadIdx.x] =
          (row < g.m && ka < g.k) ? Acc(to_compute(pa[row * g.a_row + ka * g.a_col])) : Acc(0);
      tile_b[threadIdx.y][threadIdx.x] =
          (kb < g.k && col < g.n) ? Acc(to_compute(pb[kb * g.b_row + col * g.b_col])) : Acc(0);
      __syncthreads();
#pragma unroll
      for (int j = 0; j < kTile; ++j) acc += tile_a[threadIdx.y][j] * tile_b[j][threadIdx.x];
      __syncthreads();
    }
    if (row < g.m && col < g.n)
      out[offset_of<int64_t>(g.batch_out, batch) + row * g.out_row + col * g.out_col] =
          from_compute<T>(static_cast<compute_t<T>>(acc));
  }
}

}  // namespace

void run_matmul_tiled(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& a = *call.inputs[0];
  const devplug_tensor_desc_t& b = *call.inputs[1];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const int32_t r = out.rank;
  sdk::check_argument(r >= 2 && a.rank == r && b.rank == r, "matmul: operands need one rank >= 2");
  sdk::check_argument(a.dtype == out.dtype && b.dtype == out.dtype, "matmul: dtypes differ");
  MatmulGeometry g{};
  g.m = out.shape[r - 2];
  g.n = out.shape[r - 1];
  g.k = a.shape[r - 1];
  sdk::check_argument(a.shape[r - 2] == g.m && b.shape[r - 2] == g.k && b.shape[r - 1] == g.n,
                      "matmul: shapes do not chain");
  g.a_row = a.strides[r - 2];
  g.a_col = a.strides[r - 1];
  g.b_row = b.strides[r - 2];
  g.b_col = b.strides[r - 1];
  g.out_row = out.strides[r - 2];
  g.out_col = out.strides[r - 1];
  g.batch_a.rank = g.batch_b.rank = g.batch_out.rank = r - 2;
  for (int32_t d = 0; d < r - 2; ++d) {
    g.batch_a.shape[d] = g.batch_b.shape[d] = g.batch_out.shape[d] = out.shape[d];
    g.batch_a.strides[d] = a.strides[d];
    g.batch_b.strides[d] = b.strides[d];
    g.batch_out.strides[d] = out.strides[d];
  }
  g.batches = layout_numel(g.batch_out);
  if (g.batches == 0 || g.m == 0 || g.n == 0) return;
  use_device(s->device);
  const dim3 threads(kTile, kTile);
  const dim3 grid(static_cast<uint32_t>((g.n + kTile - 1) / kTile),
                  static_cast<uint32_t>((g.m + kTile - 1) / kTile),
                  static_cast<uint32_t>(g.batches < 65535 ? g.batches : 65535));
  sdk::check_argument((g.m + kTile - 1) / kTile <= 65535, "matmul: M too large for the tiled kernel");
  visit(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      launch("matmul", matmul_tiled_kernel<T>, grid, threads, s->stream,
             static_cast<const T*>(tensor_data(a)), static_cast<const T*>(tensor_data(b)),
             static_cast<T*>(tensor_data(out)), g);
    } else {
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "matmul: dtype not allowed");
    }
  });
}

}  // namespace devplug::gpu
