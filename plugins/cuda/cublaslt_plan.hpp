// SPDX-License-Identifier: Apache-2.0
// How a devplug matmul maps onto one cuBLASLt call: which operand goes first, whether each
// is transposed, leading dimensions and strided-batch strides, and which tensors must be
// materialized densely first because no (ld, transpose, batch stride) describes them. Pure
// host logic with no CUDA types, unit-tested without a GPU.
#pragma once

#include <cstdint>

namespace devplug::cuda {

// A 2-D operand as cuBLAS sees it: stored column-major with `rows` x `cols` and leading
// dimension `ld`; `transposed` asks cuBLAS to use its transpose.
struct LtMatrix {
  int64_t rows = 0, cols = 0, ld = 0;
  bool transposed = false;
  int64_t batch_stride = 0;
};

// One view of a [batch.., R, C] operand: whether memory is row-major (col stride 1) or
// column-major (row stride 1) with a usable leading dimension.
struct MatrixView {
  bool ok = false;
  bool row_major = false;
  int64_t ld = 0;
};

inline MatrixView choose_view(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  const int64_t c1 = cols > 1 ? cols : 1, r1 = rows > 1 ? rows : 1;
  if ((cols <= 1 || col_stride == 1) && (rows <= 1 || row_stride >= c1))
    return MatrixView{true, true, rows <= 1 ? c1 : row_stride};
  if ((rows <= 1 || row_stride == 1) && (cols <= 1 || col_stride >= r1))
    return MatrixView{true, false, cols <= 1 ? r1 : col_stride};
  return MatrixView{};
}

// The batch dims of one operand as a single (stride) over `count` matrices, when they
// collapse (size-1 dims ignored; stride 0 broadcasts).
struct BatchView {
  bool ok = false;
  int64_t stride = 0;
};

inline BatchView collapse_batch(int32_t rank, const int64_t* shape, const int64_t* strides) {
  BatchView v{true, 0};
  bool have = false;
  int64_t expected = 0;
  for (int32_t d = rank - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    if (!have) {
      v.stride = strides[d];
      expected = strides[d] * shape[d];
      have = true;
    } else if (strides[d] == expected) {
      expected *= shape[d];
    } else {
      return BatchView{};
    }
  }
  return v;
}

// The cuBLASLt call for out[M,N] = a[M,K] b[K,N] (per batch), given each tensor's 2-D
// strides. Column-major cuBLAS computes D = op(first) op(second); a row-major output is
// computed as its transpose, out^T = b^T a^T, so the operands swap.
struct LtPlan {
  bool ok = false;  // false: some tensor needs materializing (see need_* flags)
  bool need_dense_a = false, need_dense_b = false, need_dense_out = false;
  bool swap = false;  // first operand is b (row-major output)
  LtMatrix first, second, d;
};

struct Operand2d {
  int64_t rows, cols, row_stride, col_stride;
};

inline LtMatrix lt_from_view(const MatrixView& v, const Operand2d& x, bool want_transposed_product) {
  // Column-major storage of x is x itself; row-major storage is x^T. cuBLAS needs op(stored)
  // to equal x (want_transposed_product false) or x^T (true).
  LtMatrix m;
  if (v.row_major) {
    m.rows = x.cols;
    m.cols = x.rows;
    m.transposed = !want_transposed_product;
  } else {
    m.rows = x.rows;
    m.cols = x.cols;
    m.transposed = want_transposed_product;
  }
  m.ld = v.ld;
  return m;
}

inline LtPlan plan_lt(const Operand2d& a, const Operand2d& b, const Operand2d& out) {
  LtPlan p;
  const MatrixView va = choose_view(a.rows, a.cols, a.row_stride, a.col_stride);
  const MatrixView vb = choose_view(b.rows, b.cols, b.row_stride, b.col_stride);
  const MatrixView vo = choose_view(out.rows, out.cols, out.row_stride, out.col_stride);
  p.need_dense_a = !va.ok;
  p.need_dense_b = !vb.ok;
  p.need_dense_out = !vo.ok;
  if (!va.ok || !vb.ok || !vo.ok) return p;
  p.ok = true;
  if (vo.row_major) {
    // out^T (N x M, column-major, ld) = b^T (N x K) * a^T (K x M)
    p.swap = true;
    p.first = lt_from_view(vb, b, true);
    p.second = lt_from_view(va, a, true);
    p.d = LtMatrix{out.cols, out.rows, vo.ld, false, 0};
  } else {
    p.swap = false;
    p.first = lt_from_view(va, a, false);
    p.second = lt_from_view(vb, b, false);
    p.d = LtMatrix{out.rows, out.cols, vo.ld, false, 0};
  }
  return p;
}

}  // namespace devplug::cuda
