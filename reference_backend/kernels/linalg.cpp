// SPDX-License-Identifier: Apache-2.0
// Reference kernel for matmul: [B.., M, K] x [B.., K, N] -> [B.., M, N], any strides.
//
// Exactness: float16, bfloat16 and float32 elements are widened to double, where their
// products are exact (at most 2 x 24 significant bits), and summed in double; float64 is
// multiplied and summed in long double. Each output element is rounded once. (ops.def lets
// devices accumulate 16-bit dtypes in float32; the reference is the more exact of the two.)
// The summation order for element (i, j) is k = 0, 1, ..., K-1, a plain dot product.
//
// Speed: for each batch the operands are first copied into dense arrays. Double sums walk
// memory in order, row_i += a[i][k] * b[k][:] (i-k-j), a loop the compiler vectorizes. Long
// double sums keep four outputs' accumulators in x87 registers and read a transposed copy
// of b, because a long double accumulator array in memory costs a slow 80-bit load and
// store per multiply-add.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels.hpp"
#include "structured_common.hpp"

namespace devplug::reference {
namespace {

using namespace structured;

// out(i, j, sum_k a[i][k] * bt[j][k]) for every (i, j), each sum in long double in order
// k = 0..K-1. Four columns at a time, so that their accumulators stay in registers.
template <typename Out>
void dot_products_long_double(const double* a, const double* bt, int64_t M, int64_t N, int64_t K, Out&& out) {
  for (int64_t i = 0; i < M; ++i) {
    const double* a_i = a + i * K;
    int64_t j = 0;
    for (; j + 4 <= N; j += 4) {
      const double *b0 = bt + j * K, *b1 = b0 + K, *b2 = b1 + K, *b3 = b2 + K;
      long double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (int64_t k = 0; k < K; ++k) {
        const long double x = a_i[k];
        s0 += x * b0[k];
        s1 += x * b1[k];
        s2 += x * b2[k];
        s3 += x * b3[k];
      }
      out(i, j, s0);
      out(i, j + 1, s1);
      out(i, j + 2, s2);
      out(i, j + 3, s3);
    }
    for (; j < N; ++j) {
      const double* b_j = bt + j * K;
      long double s = 0;
      for (int64_t k = 0; k < K; ++k) s += static_cast<long double>(a_i[k]) * b_j[k];
      out(i, j, s);
    }
  }
}

template <typename T>
void matmul(const devplug_op_call_t& call) {
  using W = wide_t<T>;
  const devplug_tensor_desc_t& a = *call.inputs[0];
  const devplug_tensor_desc_t& b = *call.inputs[1];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  check_dtype(b, a.dtype, "b");
  check_dtype(out, a.dtype, "output");
  const int32_t rank = a.rank;
  if (rank < 2 || b.rank != rank || out.rank != rank)
    invalid("matmul: a, b and the output need one rank >= 2");
  const int32_t batch_rank = rank - 2;
  for (int32_t d = 0; d < batch_rank; ++d)
    if (a.shape[d] != b.shape[d] || a.shape[d] != out.shape[d])
      invalid("matmul: batch dims differ: a " + shape_string(a) + ", b " + shape_string(b) + ", output " +
              shape_string(out));
  const int64_t M = a.shape[rank - 2], K = a.shape[rank - 1], N = b.shape[rank - 1];
  if (b.shape[rank - 2] != K || out.shape[rank - 2] != M || out.shape[rank - 1] != N)
    invalid("matmul: shapes do not chain: a " + shape_string(a) + ", b " + shape_string(b) + ", output " +
            shape_string(out));
  check_fits(a, "a");
  check_fits(b, "b");
  check_fits(out, "output");

  const int64_t a_row = a.strides[rank - 2], a_col = a.strides[rank - 1];
  const int64_t b_row = b.strides[rank - 2], b_col = b.strides[rank - 1];
  const int64_t o_row = out.strides[rank - 2], o_col = out.strides[rank - 1];
  const T* a_data = tensor_base<const T>(a);
  const T* b_data = tensor_base<const T>(b);
  T* o_data = tensor_base<T>(out);
  std::vector<double> a_dense(static_cast<size_t>(M * K)), b_dense(static_cast<size_t>(K * N));
  std::vector<double> row(static_cast<size_t>(N));
  const bool transposed_b = std::is_same_v<W, long double>;  // b_dense[j][k] instead of [k][j]

  sdk::for_each_offset<3>(
      batch_rank, a.shape, {a.strides, b.strides, out.strides}, [&](const std::array<int64_t, 3>& at) {
        for (int64_t i = 0; i < M; ++i)
          for (int64_t k = 0; k < K; ++k)
            a_dense[i * K + k] = static_cast<double>(to_wide(a_data[at[0] + i * a_row + k * a_col]));
        for (int64_t k = 0; k < K; ++k)
          for (int64_t j = 0; j < N; ++j)
            b_dense[transposed_b ? j * K + k : k * N + j] =
                static_cast<double>(to_wide(b_data[at[1] + k * b_row + j * b_col]));
        T* o_batch = o_data + at[2];
        if constexpr (std::is_same_v<W, long double>) {
          dot_products_long_double(
              a_dense.data(), b_dense.data(), M, N, K,
              [&](int64_t i, int64_t j, long double v) { o_batch[i * o_row + j * o_col] = from_wide<T>(v); });
        } else {
          for (int64_t i = 0; i < M; ++i) {
            double* acc = row.data();
            for (int64_t j = 0; j < N; ++j) acc[j] = 0;
            for (int64_t k = 0; k < K; ++k) {
              const double aik = a_dense[i * K + k];
              const double* b_k = b_dense.data() + k * N;
              for (int64_t j = 0; j < N; ++j) acc[j] += aik * b_k[j];
            }
            for (int64_t j = 0; j < N; ++j) o_batch[i * o_row + j * o_col] = from_wide<T>(acc[j]);
          }
        }
      });
}

DEVPLUG_STRUCTURED_KERNEL(matmul_kernel, DEVPLUG_OP_matmul, (matmul<T>(c)))

}  // namespace

void register_linalg_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_matmul, &matmul_kernel);
}

}  // namespace devplug::reference
