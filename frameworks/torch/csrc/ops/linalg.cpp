// SPDX-License-Identifier: Apache-2.0
// The matmul family on devplug's batched, strided matmul prim: transposed and sliced
// operands go in as views (no copies), batch dims broadcast as stride-0 views. Integer
// matrices, which the prim does not take, are products summed on the device (Dev::matmul);
// bool ones go to the CPU fallback (counted), as torch's CPU refuses most of them anyway.
#include <ATen/Functions.h>
#include <ATen/native/Resize.h>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

void check_same_dtype(const at::Tensor& a, const at::Tensor& b, const char* what) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "expected ", what,
              " to have the same dtype, but got: ", a.scalar_type(), " != ", b.scalar_type());
}

// out = beta * self + alpha * (a @ b), with out of the product's shape; `self` may be
// undefined (no bias). beta == 0 ignores self entirely (NaN included), as torch does.
void gemm_into(const Dev& dev, const DTensor& a, const DTensor& b, const at::Tensor* self,
               const at::Scalar& beta, const at::Scalar& alpha, const at::Tensor& out) {
  DTensor target = view_of(out);
  DTensor product = dev.matmul(a, b);
  if (!alpha.equal(1)) product = dev.ew(DEVPLUG_OP_mul, {product, dev.scalar(product.dtype(), alpha)});
  if (self != nullptr && !beta.equal(0)) {
    DTensor bias = dev.operand(*self);
    if (!beta.equal(1)) bias = dev.ew(DEVPLUG_OP_mul, {bias, dev.scalar(bias.dtype(), beta)});
    dev.ew_into(DEVPLUG_OP_add, {product, bias}, target);
  } else {
    dev.copy(product, target);
  }
}

at::Tensor& mm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  TORCH_CHECK(self.dim() == 2, "self must be a matrix");
  TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TORCH_CHECK(self.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", self.size(0), "x",
              self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  check_same_dtype(self, mat2, "self and mat2");
  fallback_unless_matmul(self.scalar_type());
  Dev dev = Dev::of({&self, &mat2, &out});
  prepare_out(out, {self.size(0), mat2.size(1)});
  if (out.numel() == 0) return out;
  gemm_into(dev, view_of(self), view_of(mat2), nullptr, 0, 1, out);
  return out;
}
at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2) {
  at::Tensor out = empty_torch(Dev::of({&self, &mat2}), {self.size(0), mat2.size(1)}, self.scalar_type());
  return mm_out(self, mat2, out);
}

at::Tensor& bmm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  TORCH_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1),
              "Expected size for first two dimensions of "
              "batch2 tensor to be: [",
              self.size(0), ", ", self.size(2), "] but got: [", mat2.size(0), ", ", mat2.size(1), "].");
  check_same_dtype(self, mat2, "self and mat2");
  fallback_unless_matmul(self.scalar_type());
  Dev dev = Dev::of({&self, &mat2, &out});
  prepare_out(out, {self.size(0), self.size(1), mat2.size(2)});
  if (out.numel() == 0) return out;
  gemm_into(dev, view_of(self), view_of(mat2), nullptr, 0, 1, out);
  return out;
}
at::Tensor bmm(const at::Tensor& self, const at::Tensor& mat2) {
  at::Tensor out =
      empty_torch(Dev::of({&self, &mat2}), {self.size(0), self.size(1), mat2.size(2)}, self.scalar_type());
  return bmm_out(self, mat2, out);
}

at::Tensor& addmm_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                      const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  TORCH_CHECK(mat1.dim() == 2 && mat2.dim() == 2, "mat1 and mat2 must be matrices");
  TORCH_CHECK(mat1.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", mat1.size(0), "x",
              mat1.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  check_same_dtype(mat1, mat2, "mat1 and mat2");
  check_same_dtype(self, mat1, "self and mat2");
  fallback_unless_matmul(mat1.scalar_type());
  Dev dev = Dev::of({&self, &mat1, &mat2, &out});
  const std::vector<int64_t> shape{mat1.size(0), mat2.size(1)};
  TORCH_CHECK(at::is_expandable_to(self.sizes(), shape), "addmm: self of shape ", self.sizes(),
              " does not broadcast to the product's shape ", at::IntArrayRef(shape));
  if (out.is_same(self)) {
    TORCH_CHECK(self.sizes().vec() == shape, "addmm_: self must have the product's shape");
    at::Tensor tmp = empty_torch(dev, shape, out.scalar_type());
    gemm_into(dev, view_of(mat1), view_of(mat2), &self, beta, alpha, tmp);
    dev.copy(view_of(tmp), view_of(out));
    return out;
  }
  prepare_out(out, shape);
  if (out.numel() == 0) return out;
  gemm_into(dev, view_of(mat1), view_of(mat2), &self, beta, alpha, out);
  return out;
}
at::Tensor addmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                 const at::Scalar& beta, const at::Scalar& alpha) {
  at::Tensor out =
      empty_torch(Dev::of({&self, &mat1, &mat2}), {mat1.size(0), mat2.size(1)}, mat1.scalar_type());
  return addmm_out(self, mat1, mat2, beta, alpha, out);
}
at::Tensor& addmm_(at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2, const at::Scalar& beta,
                   const at::Scalar& alpha) {
  return addmm_out(self, mat1, mat2, beta, alpha, self);
}

at::Tensor& baddbmm_out(const at::Tensor& self, const at::Tensor& b1, const at::Tensor& b2,
                        const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  TORCH_CHECK(b1.dim() == 3 && b2.dim() == 3, "batch1 and batch2 must be 3D tensors");
  TORCH_CHECK(b1.size(0) == b2.size(0) && b1.size(2) == b2.size(1),
              "baddbmm: batch shapes do not fit: ", b1.sizes(), " and ", b2.sizes());
  check_same_dtype(b1, b2, "batch1 and batch2");
  fallback_unless_matmul(b1.scalar_type());
  Dev dev = Dev::of({&self, &b1, &b2, &out});
  const std::vector<int64_t> shape{b1.size(0), b1.size(1), b2.size(2)};
  if (out.is_same(self)) {
    at::Tensor tmp = empty_torch(dev, shape, out.scalar_type());
    gemm_into(dev, view_of(b1), view_of(b2), &self, beta, alpha, tmp);
    dev.copy(view_of(tmp), view_of(out));
    return out;
  }
  prepare_out(out, shape);
  if (out.numel() == 0) return out;
  gemm_into(dev, view_of(b1), view_of(b2), &self, beta, alpha, out);
  return out;
}
at::Tensor baddbmm(const at::Tensor& self, const at::Tensor& b1, const at::Tensor& b2, const at::Scalar& beta,
                   const at::Scalar& alpha) {
  at::Tensor out =
      empty_torch(Dev::of({&self, &b1, &b2}), {b1.size(0), b1.size(1), b2.size(2)}, b1.scalar_type());
  return baddbmm_out(self, b1, b2, beta, alpha, out);
}
at::Tensor& baddbmm_(at::Tensor& self, const at::Tensor& b1, const at::Tensor& b2, const at::Scalar& beta,
                     const at::Scalar& alpha) {
  return baddbmm_out(self, b1, b2, beta, alpha, self);
}

// addbmm: beta self + alpha sum over the batch of b1[i] @ b2[i]. One addmm of the batches laid
// side by side ([n, b m] @ [b m, p]). For float16 and bfloat16, torch's CPU runs one addmm per
// batch into the result, each computing beta c + alpha (b1[i] @ b2[i]) in float32 and rounding
// once to the dtype; so does this, in float32 on the device. In place, self takes the
// product's shape first, as on the CPU.
at::Tensor& addbmm_out(const at::Tensor& self, const at::Tensor& b1, const at::Tensor& b2,
                       const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  TORCH_CHECK(b1.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(b2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(b1.size(0) == b2.size(0), "batch1 and batch2 must have same number of batches, got ",
              b1.size(0), " and ", b2.size(0));
  TORCH_CHECK(b1.size(2) == b2.size(1), "Incompatible matrix sizes for bmm (", b1.size(1), "x", b1.size(2),
              " and ", b2.size(1), "x", b2.size(2), ")");
  check_same_dtype(b1, b2, "batch1 and batch2");
  check_same_dtype(self, b1, "self and batch1");
  fallback_unless_matmul(b1.scalar_type());
  const std::vector<int64_t> shape{b1.size(1), b2.size(2)};
  TORCH_CHECK(at::is_expandable_to(self.sizes(), shape), "addbmm: self of shape ", self.sizes(),
              " does not broadcast to the product's shape ", at::IntArrayRef(shape));
  Dev dev = Dev::of({&self, &b1, &b2, &out});
  if (out.is_same(self)) {
    at::Tensor result = empty_torch(dev, shape, self.scalar_type());
    addbmm_out(self, b1, b2, beta, alpha, result);
    if (out.sizes() != result.sizes()) out.resize_(shape);
    dev.copy(view_of(result), view_of(out));
    return out;
  }
  const int64_t batches = b1.size(0);
  if (batches == 0 || !c10::isReducedFloatingType(b1.scalar_type())) {
    const at::Tensor m1 = b1.transpose(0, 1).reshape({b1.size(1), batches * b1.size(2)});
    const at::Tensor m2 = b2.reshape({batches * b2.size(1), b2.size(2)});
    return addmm_out(self, m1, m2, beta, alpha, out);
  }
  prepare_out(out, shape);
  if (out.numel() == 0) return out;
  const devplug_dtype_t dtype = require_dtype(b1.scalar_type(), "addbmm");
  constexpr devplug_dtype_t f32 = DEVPLUG_DTYPE_FLOAT32;
  DTensor sum = beta.toDouble() == 0
                    ? dev.full(f32, shape, 0)
                    : dev.ew_scalar(DEVPLUG_OP_mul, dev.cast(view_of(self), f32).expand(shape), beta);
  for (int64_t i = 0; i < batches; ++i) {
    DTensor product =
        dev.matmul(dev.cast(view_of(b1.select(0, i)), f32), dev.cast(view_of(b2.select(0, i)), f32));
    DTensor rounded =
        dev.cast(dev.ew(DEVPLUG_OP_add, {sum, dev.ew_scalar(DEVPLUG_OP_mul, product, alpha)}), dtype);
    sum = i + 1 < batches ? dev.cast(rounded, f32) : rounded;
  }
  dev.copy(sum, view_of(out));
  return out;
}
at::Tensor addbmm(const at::Tensor& self, const at::Tensor& b1, const at::Tensor& b2, const at::Scalar& beta,
                  const at::Scalar& alpha) {
  at::Tensor out = empty_torch(Dev::of({&self, &b1, &b2}), {0}, b1.scalar_type());
  return addbmm_out(self, b1, b2, beta, alpha, out);
}
at::Tensor& addbmm_(at::Tensor& self, const at::Tensor& b1, const at::Tensor& b2, const at::Scalar& beta,
                    const at::Scalar& alpha) {
  return addbmm_out(self, b1, b2, beta, alpha, self);
}

// addmv: the vector as an [n, 1] matrix.
at::Tensor& addmv_out(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                      const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  TORCH_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got ", self.dim(), ", ",
              mat.dim(), ", ", vec.dim());
  TORCH_CHECK(mat.size(1) == vec.size(0), "size mismatch, got input (", self.size(0), "), mat (", mat.size(0),
              "x", mat.size(1), "), vec (", vec.size(0), ")");
  check_same_dtype(mat, vec, "mat and vec");
  fallback_unless_matmul(mat.scalar_type());
  Dev dev = Dev::of({&self, &mat, &vec, &out});
  const int64_t n = mat.size(0);
  at::Tensor tmp = empty_torch(dev, {n, 1}, out.scalar_type());
  at::Tensor bias = self.dim() == 1 ? self.unsqueeze(1) : self;
  gemm_into(dev, view_of(mat), view_of(vec).unsqueeze(1), &bias, beta, alpha, tmp);
  prepare_out(out, {n});
  if (n > 0) dev.copy(view_of(tmp).reshape({n}), view_of(out));
  return out;
}
at::Tensor addmv(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec, const at::Scalar& beta,
                 const at::Scalar& alpha) {
  at::Tensor out = empty_torch(Dev::of({&self, &mat, &vec}), {mat.size(0)}, mat.scalar_type());
  return addmv_out(self, mat, vec, beta, alpha, out);
}
at::Tensor& addmv_(at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec, const at::Scalar& beta,
                   const at::Scalar& alpha) {
  return addmv_out(self, mat, vec, beta, alpha, self);
}

at::Tensor dot(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              other.dim(), "D tensors");
  TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(),
              " and ", other.numel(), " elements respectively");
  check_same_dtype(self, other, "both vectors");
  fallback_unless_matmul(self.scalar_type());
  Dev dev = Dev::of({&self, &other});
  at::Tensor out = empty_torch(dev, {}, self.scalar_type());
  DTensor product = dev.matmul(view_of(self).unsqueeze(0), view_of(other).unsqueeze(1));
  dev.copy(product.reshape({}), view_of(out));
  return out;
}

// linalg.cross along dim (size 3): out[i] = a[i + 1] * b[i + 2] - a[i + 2] * b[i + 1], indices
// mod 3, with a and b broadcast, as torch's CPU computes it; integers wrap.
at::Tensor& linalg_cross_out(const at::Tensor& self, const at::Tensor& other, int64_t dim, at::Tensor& out) {
  TORCH_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  TORCH_CHECK(self.size(dim) == 3 && other.size(dim) == 3, "linalg.cross: inputs dimension ", dim,
              " must have length 3. Got ", self.size(dim), " and ", other.size(dim));
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "expected scalar type ", self.scalar_type(),
              " but found ", other.scalar_type());
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ",
              self.scalar_type(), ", but got ", out.scalar_type(), " instead");
  fallback_unless_allowed(DEVPLUG_OP_sub, self.scalar_type());  // bool: torch's CPU refuses it
  Dev dev = Dev::of({&self, &other, &out});
  prepare_out(out, at::infer_size(self.sizes(), other.sizes()));
  if (out.numel() == 0) return out;
  const auto d = static_cast<int32_t>(c10::maybe_wrap_dim(dim, self.dim()));
  const DTensor a = view_of(self), b = view_of(other), target = view_of(out);
  const auto part = [&](const DTensor& t, int64_t i) { return t.slice(d, i % 3, i % 3 + 1); };
  for (int64_t i = 0; i < 3; ++i) {
    DTensor first = dev.ew(DEVPLUG_OP_mul, {part(a, i + 1), part(b, i + 2)});
    DTensor second = dev.ew(DEVPLUG_OP_mul, {part(a, i + 2), part(b, i + 1)});
    dev.ew_into(DEVPLUG_OP_sub, {first, second}, part(target, i));
  }
  return out;
}

}  // namespace

// vdot of real vectors is dot (devplug tensors are never complex).
at::Tensor vdot(const at::Tensor& self, const at::Tensor& other) { return bridge::dot(self, other); }

void register_linalg_ops(Table& t) {
  t.add("mm", Impl::prim, "matmul", DEVPLUG_KERNEL(mm));
  t.add("linalg_cross.out", Impl::bridge, "mul, sub", DEVPLUG_KERNEL(linalg_cross_out));
  t.add("mm.out", Impl::prim, "matmul", DEVPLUG_KERNEL(mm_out));
  t.add("bmm", Impl::prim, "matmul", DEVPLUG_KERNEL(bmm));
  t.add("bmm.out", Impl::prim, "matmul", DEVPLUG_KERNEL(bmm_out));
  t.add("addmm", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addmm));
  t.add("addmm_", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addmm_));
  t.add("addmm.out", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addmm_out));
  t.add("addbmm", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addbmm));
  t.add("addbmm_", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addbmm_));
  t.add("addbmm.out", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addbmm_out));
  t.add("baddbmm", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(baddbmm));
  t.add("baddbmm_", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(baddbmm_));
  t.add("baddbmm.out", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(baddbmm_out));
  t.add("addmv", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addmv));
  t.add("addmv_", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addmv_));
  t.add("addmv.out", Impl::prim, "matmul, mul, add", DEVPLUG_KERNEL(addmv_out));
  t.add("dot", Impl::prim, "matmul", DEVPLUG_KERNEL(dot));
  t.add("vdot", Impl::prim, "matmul", DEVPLUG_KERNEL(vdot));
}

}  // namespace devplug::bridge
