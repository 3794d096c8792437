// Reference kernel for matmul: [B.., M, K] x [B.., K, N] -> [B.., M, N], any strides.
//
// Exactness: float16, bfloat16 and float32 elements are widened to double, where their
// products are exact (at most 2 x 24 significant bits), and summed in double; float64 is
// multiplied and summed in long double. Each output element is rounded once. (ops.def lets
// devices accumulate 16-bit dtypes in float32; the reference is the more exact of the two.)
//
// Speed: for each batch the operands are copied once into dense row-major arrays of the
// wide type, and each output row is accumulated as row += a[i][k] * b[k][:], a loop that
// walks memory in order (i-k-j). The summation order for element (i, j) is still k = 0,
// 1, ..., K-1, the same as a plain dot product.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "structured_common.hpp"

namespace devplug::reference {
namespace {

using namespace structured;

template <typename T>
void matmul(const devplug_op_call_t& call) {
  using W = wide_t<T>;
  const devplug_tensor_t& a = *call.inputs[0];
  const devplug_tensor_t& b = *call.inputs[1];
  const devplug_tensor_t& out = *call.outputs[0];
  check_dtype(b, a.dtype, "b");
  check_dtype(out, a.dtype, "output");
  const int32_t rank = a.rank;
  if (rank < 2 || b.rank != rank || out.rank != rank)
    invalid("matmul: a, b and the output need one rank >= 2");
  const int32_t batch_rank = rank - 2;
  for (int32_t d = 0; d < batch_rank; ++d)
    if (a.shape[d] != b.shape[d] || a.shape[d] != out.shape[d])
      invalid("matmul: batch dims differ: a " + shape_string(a) + ", b " + shape_string(b) +
              ", output " + shape_string(out));
  const int64_t M = a.shape[rank - 2], K = a.shape[rank - 1], N = b.shape[rank - 1];
  if (b.shape[rank - 2] != K || out.shape[rank - 2] != M || out.shape[rank - 1] != N)
    invalid("matmul: shapes do not chain: a " + shape_string(a) + ", b " + shape_string(b) +
            ", output " + shape_string(out));
  check_fits(a, "a");
  check_fits(b, "b");
  check_fits(out, "output");

  const int64_t a_row = a.strides[rank - 2], a_col = a.strides[rank - 1];
  const int64_t b_row = b.strides[rank - 2], b_col = b.strides[rank - 1];
  const int64_t o_row = out.strides[rank - 2], o_col = out.strides[rank - 1];
  const T* a_data = tensor_base<const T>(a);
  const T* b_data = tensor_base<const T>(b);
  T* o_data = tensor_base<T>(out);
  std::vector<W> a_dense(static_cast<size_t>(M * K)), b_dense(static_cast<size_t>(K * N));
  std::vector<W> row(static_cast<size_t>(N));

  sdk::for_each_offset<3>(batch_rank, a.shape, {a.strides, b.strides, out.strides},
                          [&](const std::array<int64_t, 3>& at) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k)
        a_dense[i * K + k] = to_wide(a_data[at[0] + i * a_row + k * a_col]);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j)
        b_dense[k * N + j] = to_wide(b_data[at[1] + k * b_row + j * b_col]);
    for (int64_t i = 0; i < M; ++i) {
      W* acc = row.data();
      for (int64_t j = 0; j < N; ++j) acc[j] = 0;
      for (int64_t k = 0; k < K; ++k) {
        const W aik = a_dense[i * K + k];
        const W* b_k = b_dense.data() + k * N;
        for (int64_t j = 0; j < N; ++j) acc[j] += aik * b_k[j];
      }
      for (int64_t j = 0; j < N; ++j) o_data[at[2] + i * o_row + j * o_col] = from_wide<T>(acc[j]);
    }
  });
}

DEVPLUG_STRUCTURED_KERNEL(matmul_kernel, DEVPLUG_OP_matmul, (matmul<T>(c)))

}  // namespace

void register_linalg_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_matmul, &matmul_kernel);
}

}  // namespace devplug::reference
