// SPDX-License-Identifier: Apache-2.0
// Host side of matmul: the plugin's tuned library where it has one and the call suits it
// (backend.hpp library_matmul: CLBlast on OpenCL), else the tiled kernel (kernels/matmul.cl).
#include "devplug/sdk/strided.hpp"
#include "ops.hpp"
#include "launch.hpp"
#include "variants.hpp"

namespace devplug::clc {

namespace {

constexpr size_t kTile = kMatmulTile;
constexpr size_t kWorkPerThread = kMatmulWorkPerThread;

devplug_error_t* matmul_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& a = *call->inputs[0];
    const devplug_tensor_desc_t& b = *call->inputs[1];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    require_dtype(stream, a.dtype, "matmul");
    const int32_t rank = out.rank;
    sdk::check_argument(rank >= 2 && a.rank == rank && b.rank == rank, "matmul: operands need one rank >= 2");
    const int64_t M = a.shape[rank - 2], K = a.shape[rank - 1], N = b.shape[rank - 1];
    sdk::check_argument(b.shape[rank - 2] == K && out.shape[rank - 2] == M && out.shape[rank - 1] == N,
                        "matmul: shapes do not chain");
    const View out_view = view_of(out), a_view = view_of(a), b_view = view_of(b);
    const Geometry batch = make_geometry(rank - 2, out.shape, {&out_view, &a_view, &b_view});
    if (batch.numel == 0 || M == 0 || N == 0) return;
    if (K == 0) {
      const devplug_scalar_t zero{0.0, 0};
      run_fill(stream, out.dtype, out.rank, out.shape, out_view, zero);
      return;
    }
    if (library_matmul(stream, a, b, out)) return;
    const size_t threads = kTile / kWorkPerThread;
    const size_t global[3] = {(static_cast<size_t>(N) + kTile - 1) / kTile * threads,
                              (static_cast<size_t>(M) + kTile - 1) / kTile * threads,
                              static_cast<size_t>(batch.numel)};
    const size_t local[3] = {threads, threads, 1};
    const std::string options = matmul_defines(a.dtype, out.dtype);
    Launch(stream, "matmul", options, "matmul", "matmul")
        .arg(batch)
        .mem(out_view.mem)
        .mem(a_view.mem)
        .mem(b_view.mem)
        .arg<int64_t>(M)
        .arg<int64_t>(N)
        .arg<int64_t>(K)
        .arg<int64_t>(a.strides[rank - 2])
        .arg<int64_t>(a.strides[rank - 1])
        .arg<int64_t>(b.strides[rank - 2])
        .arg<int64_t>(b.strides[rank - 1])
        .arg<int64_t>(out.strides[rank - 2])
        .arg<int64_t>(out.strides[rank - 1])
        .run(3, global, local);
  });
}

}  // namespace

void register_linalg_kernels(sdk::KernelTable& table, devplug_dtype_mask_t dtypes) {
  table.add_all({DEVPLUG_OP_matmul}, dtypes, 0, &matmul_kernel);
}

}  // namespace devplug::clc
