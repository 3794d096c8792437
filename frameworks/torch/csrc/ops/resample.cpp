// SPDX-License-Identifier: Apache-2.0
// Resampling along each of the last one to three dims. Ops that pick the input element an index
// names: reflection and replication padding, and nearest upsampling (upsample_nearest and
// _upsample_nearest_exact), 1-d to 3-d, with their backward ops. Forward is one index_select
// per dim; backward is one scatter_add of the gradient into zeros at each element's flat input
// index (in float32 for 16-bit dtypes). The index vectors are computed on the device from iota
// (no host data, so the ops can be captured in a graph), with torch's CPU formulas: reflection
// (n - 1) - |(n - 1) - |j - l||, replication clamp(j - l, 0, n - 1), nearest j (same size),
// j / 2 (twice the size) or min(floor(j * scale), n - 1) with scale in float32, nearest-exact
// min(floor(float((j + 0.5) * scale)), n - 1).
//
// Linear, bilinear, trilinear and bicubic upsampling (floating inputs) are one matrix product
// per dim, x · Mᵀ, with M built on the device from torch's CPU formulas (UpSample.h): the
// source coordinate scale · j (align_corners) or scale · (j + 0.5) - 0.5 in float32 (float64
// for float64), the linear modes' clamp at 0, index min(floor(src), n - 1) and weight
// clamp(src - index, 0, 1), cubic convolution with A = -0.75 over 4 inputs clamped to the dim,
// weights rounded to the input's dtype as torch stores them; the products run in float32
// (float64) and round once. Backward multiplies by M.
#include <ATen/native/Resize.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ops/ops.hpp"
#include "ops/resample.hpp"

namespace devplug::bridge {
namespace {

constexpr devplug_dtype_t kI64 = DEVPLUG_DTYPE_INT64;

// ---- index vectors -----------------------------------------------------------------------------

// Output position j of a dim of size n padded by l before and r after reads input position idx[j].
DTensor pad_index(const Dev& dev, int64_t n, int64_t l, int64_t r, bool reflect) {
  DTensor t = dev.iota(kI64, {n + l + r}, -l, 1);
  if (!reflect) return dev.ew_scalar(DEVPLUG_OP_minimum, dev.ew_scalar(DEVPLUG_OP_maximum, t, 0), n - 1);
  DTensor folded = dev.ew(DEVPLUG_OP_abs, {t});
  DTensor back = dev.ew(DEVPLUG_OP_abs, {dev.ew_scalar(DEVPLUG_OP_sub, folded, n - 1)});
  return dev.ew_scalar(DEVPLUG_OP_add, dev.ew(DEVPLUG_OP_neg, {back}), n - 1);
}

// torch's compute_scales_value<float>: 1 / scale when given and positive, else in / out.
float nearest_scale(std::optional<double> scale, int64_t in, int64_t out) {
  return scale.has_value() && *scale > 0. ? static_cast<float>(1.0 / *scale)
                                          : static_cast<float>(in) / static_cast<float>(out);
}

// Output position j of a dim resized from `in` to `out` reads input position idx[j].
DTensor nearest_index(const Dev& dev, int64_t in, int64_t out, std::optional<double> scale, bool exact) {
  if (!exact && out == in) return dev.iota(kI64, {out}, 0, 1);
  if (!exact && out == 2 * in) return dev.ew_scalar(DEVPLUG_OP_div, dev.iota(kI64, {out}, 0, 1), 2);
  const float s = nearest_scale(scale, in, out);
  // exact: (j + 0.5) * scale in double, rounded to float before floorf; else j * scale in float
  const DTensor position =
      exact ? dev.cast(dev.ew_scalar(DEVPLUG_OP_mul, dev.iota(DEVPLUG_DTYPE_FLOAT64, {out}, 0.5, 1.0),
                                     static_cast<double>(s)),
                       DEVPLUG_DTYPE_FLOAT32)
            : dev.ew_scalar(DEVPLUG_OP_mul, dev.iota(DEVPLUG_DTYPE_FLOAT32, {out}, 0, 1), s);
  DTensor index = dev.cast(dev.ew(DEVPLUG_OP_floor, {position}), kI64);
  return dev.ew_scalar(DEVPLUG_OP_minimum, index, in - 1);
}

// ---- moving along the last dims -------------------------------------------------------------

// x with each of its last index.size() dims replaced by the elements index[k] names.
DTensor pick(const Dev& dev, DTensor x, const std::vector<DTensor>& index) {
  const int64_t first = x.rank() - static_cast<int64_t>(index.size());
  for (size_t k = 0; k < index.size(); ++k) {
    const int64_t dim = first + static_cast<int64_t>(k);
    Shape shape = x.shape();
    shape[dim] = index[k].numel();
    DTensor out = dev.empty(x.dtype(), shape);
    const devplug_dim_attrs_t attrs = dim_attrs(dim);
    dev.call(DEVPLUG_OP_index_select, {x, index[k]}, {out}, &attrs);
    x = out;
  }
  return x;
}

// The gradient of pick: g's elements summed into zeros of `in_shape` where index sent them, in
// one scatter_add over each leading-dims plane, so that each input element sums its gradients
// in the row-major order of the output, as torch's CPU does (16-bit sums depend on the order).
DTensor unpick(const Dev& dev, const DTensor& g, const Shape& in_shape, const std::vector<DTensor>& index) {
  const size_t n = index.size();
  const size_t lead = in_shape.size() - n;
  int64_t planes = 1, in_plane = 1, out_plane = 1;
  for (size_t d = 0; d < lead; ++d) planes *= in_shape[d];
  for (size_t k = 0; k < n; ++k) {
    in_plane *= in_shape[lead + k];
    out_plane *= index[k].numel();
  }
  // flat[j0, j1, ..] = sum_k index[k][jk] * (the input plane's stride of dim k)
  Shape plane_shape;
  for (size_t k = 0; k < n; ++k) plane_shape.push_back(index[k].numel());
  DTensor flat = dev.full(kI64, plane_shape, 0);
  int64_t stride = in_plane;
  for (size_t k = 0; k < n; ++k) {
    stride /= in_shape[lead + k];
    Shape spread(n, 1);
    spread[k] = index[k].numel();
    flat = dev.ew(DEVPLUG_OP_add, {flat, dev.ew_scalar(DEVPLUG_OP_mul, index[k].reshape(spread), stride)});
  }
  DTensor where = dev.contiguous(flat.reshape({1, out_plane}).expand({planes, out_plane}));
  DTensor out = dev.empty(g.dtype(), {planes, in_plane});
  const devplug_dim_attrs_t attrs = dim_attrs(1);
  dev.call(
      DEVPLUG_OP_scatter_add,
      {dev.full(g.dtype(), {planes, in_plane}, 0), where, dev.contiguous(g).reshape({planes, out_plane})},
      {out}, &attrs);
  return out.reshape(in_shape);
}

bool is_16_bit(devplug_dtype_t d) { return d == DEVPLUG_DTYPE_FLOAT16 || d == DEVPLUG_DTYPE_BFLOAT16; }

// How out= tensors are laid out: a fresh one (a functional call's) in `format`, a given one
// kept as torch's resize_output keeps it.
struct Layout {
  bool fresh;
  at::MemoryFormat format = at::MemoryFormat::Contiguous;
};

void resize(at::Tensor& out, at::IntArrayRef shape, const Layout& layout) {
  if (layout.fresh)
    out.resize_(shape, layout.format);
  else
    at::native::resize_output(out, shape);
}

// Writes pick(self) (forward) into out, resized to the picked shape.
void pick_into(const Dev& dev, const at::Tensor& self, const std::vector<DTensor>& index, at::Tensor& out,
               const Layout& layout) {
  fallback_unless_allowed(DEVPLUG_OP_index_select, self.scalar_type());
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "expected out of dtype ", self.scalar_type(), ", got ",
              out.scalar_type());
  std::vector<int64_t> shape = self.sizes().vec();
  for (size_t k = 0; k < index.size(); ++k) shape[shape.size() - index.size() + k] = index[k].numel();
  resize(out, shape, layout);
  if (out.numel() == 0) return;
  dev.copy(pick(dev, view_of(self), index), view_of(out));
}

// Writes unpick(grad_output) into grad_input, resized to `in_shape`. 16-bit gradients are summed
// in float32 and rounded once, as torch's CPU upsampling backward does; its padding backward
// adds them one by one in the 16-bit dtype, which scatter_add cannot follow, so 16-bit padding
// gradients may differ from the CPU's in the last bit, nearer the exact sum (an OpInfo xfail).
void unpick_into(const Dev& dev, const at::Tensor& grad_output, at::IntArrayRef in_shape,
                 const std::vector<DTensor>& index, at::Tensor& grad_input, const Layout& layout) {
  fallback_unless_allowed(DEVPLUG_OP_scatter_add, grad_output.scalar_type());
  resize(grad_input, in_shape, layout);
  if (grad_input.numel() == 0) return;
  DTensor g = view_of(grad_output);
  const devplug_dtype_t dtype = g.dtype();
  if (is_16_bit(dtype)) g = dev.cast(g, DEVPLUG_DTYPE_FLOAT32);
  if (grad_output.numel() == 0) {
    dev.fill(view_of(grad_input), 0);
    return;
  }
  dev.copy(dev.cast(unpick(dev, g, Shape(in_shape.begin(), in_shape.end()), index), dtype),
           view_of(grad_input));
}

// ---- padding -----------------------------------------------------------------------------

// The index vectors of reflection or replication padding of `self`'s last padding.size() / 2
// dims, after torch's checks.
std::vector<DTensor> pad_indices(const Dev& dev, const at::Tensor& self, at::IntArrayRef padding,
                                 bool reflect) {
  const int64_t dims = static_cast<int64_t>(padding.size()) / 2;
  const char* name = reflect ? "reflection" : "replication";
  TORCH_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, "Expected ", dims + 1, "D or ", dims + 2,
              "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but "
              "got: ",
              self.sizes());
  std::vector<DTensor> index;
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = self.dim() - dims + k;
    // padding lists the last dim first: (left, right, top, bottom, front, back)
    const int64_t l = padding[2 * (dims - 1 - k)], r = padding[2 * (dims - 1 - k) + 1];
    const int64_t n = self.size(dim);
    TORCH_CHECK(n > 0 || (self.dim() == dims + 2 && dim == 0), name, "_pad", dims,
                "d(): input of size 0 along dim ", dim);
    if (reflect)
      TORCH_CHECK(l < n && r < n,
                  "Argument #4: Padding size should be less than the corresponding input "
                  "dimension, but got: padding (",
                  l, ", ", r, ") at dimension ", dim, " of input ", self.sizes());
    TORCH_CHECK(n + l + r >= 1, "input (", self.sizes(), ") is too small. Calculated output size ", n + l + r,
                " at dimension ", dim, " is less than 1");
    index.push_back(pad_index(dev, n, l, r, reflect));
  }
  return index;
}

template <bool Reflect>
at::Tensor& pad_into(const at::Tensor& self, at::IntArrayRef padding, at::Tensor& out, const Layout& layout) {
  Dev dev = Dev::of({&self, &out});
  pick_into(dev, self, pad_indices(dev, self, padding, Reflect), out, layout);
  return out;
}

template <bool Reflect>
at::Tensor& pad_out(const at::Tensor& self, at::IntArrayRef padding, at::Tensor& out) {
  return pad_into<Reflect>(self, padding, out, {false});
}

template <bool Reflect>
at::Tensor pad(const at::Tensor& self, at::IntArrayRef padding) {
  at::Tensor out = at::empty({0}, self.options());
  return pad_into<Reflect>(self, padding, out, {true});
}

template <bool Reflect>
at::Tensor& pad_backward_into(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef padding,
                              at::Tensor& grad_input, const Layout& layout) {
  Dev dev = Dev::of({&grad_output, &self, &grad_input});
  std::vector<DTensor> index = pad_indices(dev, self, padding, Reflect);
  for (size_t k = 0; k < index.size(); ++k) {
    const int64_t dim = self.dim() - static_cast<int64_t>(index.size()) + static_cast<int64_t>(k);
    TORCH_CHECK(grad_output.size(dim) == index[k].numel(), "grad_output size along dim ", dim, " is ",
                grad_output.size(dim), ", expected ", index[k].numel());
  }
  unpick_into(dev, grad_output, self.sizes(), index, grad_input, layout);
  return grad_input;
}

template <bool Reflect>
at::Tensor& pad_backward_out(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef padding,
                             at::Tensor& grad_input) {
  return pad_backward_into<Reflect>(grad_output, self, padding, grad_input, {false});
}

template <bool Reflect>
at::Tensor pad_backward(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef padding) {
  at::Tensor grad_input = at::empty({0}, self.options());
  return pad_backward_into<Reflect>(grad_output, self, padding, grad_input, {true});
}

// ---- nearest upsampling --------------------------------------------------------------------

std::vector<DTensor> nearest_indices(const Dev& dev, at::IntArrayRef input_size, at::IntArrayRef output_size,
                                     const std::vector<std::optional<double>>& scales, bool exact) {
  const size_t dims = output_size.size();
  TORCH_CHECK(input_size.size() == dims + 2, "It is expected input_size equals to ", dims + 2,
              ", but got size ", input_size.size());
  std::vector<DTensor> index;
  for (size_t k = 0; k < dims; ++k) {
    const int64_t in = input_size[2 + k], out = output_size[k];
    TORCH_CHECK(in > 0 && out > 0, "Input and output sizes should be greater than 0, but got input (",
                input_size, ") and output (", output_size, ")");
    index.push_back(nearest_index(dev, in, out, scales[k], exact));
  }
  return index;
}

// Forward into `out`: a fresh one in the input's memory format (channels-last stays so), as
// torch's meta function lays it out.
template <bool Exact>
at::Tensor& nearest_out(const at::Tensor& self, at::IntArrayRef output_size,
                        const std::vector<std::optional<double>>& scales, at::Tensor& out,
                        bool fresh = false) {
  TORCH_CHECK(self.dim() == static_cast<int64_t>(output_size.size()) + 2, "Expected a ",
              output_size.size() + 2, "D input tensor, got ", self.sizes());
  Dev dev = Dev::of({&self, &out});
  pick_into(dev, self, nearest_indices(dev, self.sizes(), output_size, scales, Exact), out,
            {fresh, self.suggest_memory_format()});
  return out;
}

template <bool Exact>
at::Tensor& nearest_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                 at::IntArrayRef input_size, const std::vector<std::optional<double>>& scales,
                                 at::Tensor& grad_input, bool fresh = false) {
  Dev dev = Dev::of({&grad_output, &grad_input});
  std::vector<DTensor> index = nearest_indices(dev, input_size, output_size, scales, Exact);
  std::vector<int64_t> expected(input_size.begin(), input_size.begin() + 2);
  expected.insert(expected.end(), output_size.begin(), output_size.end());
  TORCH_CHECK(grad_output.sizes().equals(expected), "Expected grad_output of size ",
              at::IntArrayRef(expected), ", got ", grad_output.sizes());
  unpick_into(dev, grad_output, input_size, index, grad_input, {fresh, grad_output.suggest_memory_format()});
  return grad_input;
}

// The aten signatures, 1-d to 3-d, forward and backward, functional and out=.
template <bool Exact>
at::Tensor& nearest1d_out(const at::Tensor& self, at::IntArrayRef size, std::optional<double> s,
                          at::Tensor& out) {
  return nearest_out<Exact>(self, size, {s}, out);
}
template <bool Exact>
at::Tensor nearest1d(const at::Tensor& self, at::IntArrayRef size, std::optional<double> s) {
  at::Tensor out = at::empty({0}, self.options());
  return nearest_out<Exact>(self, size, {s}, out, true);
}
template <bool Exact>
at::Tensor& nearest2d_out(const at::Tensor& self, at::IntArrayRef size, std::optional<double> h,
                          std::optional<double> w, at::Tensor& out) {
  return nearest_out<Exact>(self, size, {h, w}, out);
}
template <bool Exact>
at::Tensor nearest2d(const at::Tensor& self, at::IntArrayRef size, std::optional<double> h,
                     std::optional<double> w) {
  at::Tensor out = at::empty({0}, self.options());
  return nearest_out<Exact>(self, size, {h, w}, out, true);
}
template <bool Exact>
at::Tensor& nearest3d_out(const at::Tensor& self, at::IntArrayRef size, std::optional<double> d,
                          std::optional<double> h, std::optional<double> w, at::Tensor& out) {
  return nearest_out<Exact>(self, size, {d, h, w}, out);
}
template <bool Exact>
at::Tensor nearest3d(const at::Tensor& self, at::IntArrayRef size, std::optional<double> d,
                     std::optional<double> h, std::optional<double> w) {
  at::Tensor out = at::empty({0}, self.options());
  return nearest_out<Exact>(self, size, {d, h, w}, out, true);
}
template <bool Exact>
at::Tensor& nearest1d_backward_out(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in,
                                   std::optional<double> s, at::Tensor& out) {
  return nearest_backward_out<Exact>(g, size, in, {s}, out);
}
template <bool Exact>
at::Tensor nearest1d_backward(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in,
                              std::optional<double> s) {
  at::Tensor out = at::empty({0}, g.options());
  return nearest_backward_out<Exact>(g, size, in, {s}, out, true);
}
template <bool Exact>
at::Tensor& nearest2d_backward_out(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in,
                                   std::optional<double> h, std::optional<double> w, at::Tensor& out) {
  return nearest_backward_out<Exact>(g, size, in, {h, w}, out);
}
template <bool Exact>
at::Tensor nearest2d_backward(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in,
                              std::optional<double> h, std::optional<double> w) {
  at::Tensor out = at::empty({0}, g.options());
  return nearest_backward_out<Exact>(g, size, in, {h, w}, out, true);
}
template <bool Exact>
at::Tensor& nearest3d_backward_out(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in,
                                   std::optional<double> d, std::optional<double> h, std::optional<double> w,
                                   at::Tensor& out) {
  return nearest_backward_out<Exact>(g, size, in, {d, h, w}, out);
}
template <bool Exact>
at::Tensor nearest3d_backward(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in,
                              std::optional<double> d, std::optional<double> h, std::optional<double> w) {
  at::Tensor out = at::empty({0}, g.options());
  return nearest_backward_out<Exact>(g, size, in, {d, h, w}, out, true);
}

// ---- linear and cubic upsampling --------------------------------------------------------------

enum class Interp { linear, cubic };

// torch's ratio of input to output coordinates along one dim (area_pixel_compute_scale), in T.
template <typename T>
T interp_ratio(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  if (scale.has_value() && *scale > 0) return static_cast<T>(1.0 / *scale);
  return static_cast<T>(in) / static_cast<T>(out);
}

// The [out, in] interpolation matrix of one dim, on the device, in `acc`.
at::Tensor interp_matrix(int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                         Interp mode, at::ScalarType dtype, at::ScalarType acc, const at::Device& device) {
  const at::TensorOptions real = at::TensorOptions().dtype(acc).device(device);
  if (mode == Interp::linear && in == out) return at::eye(in, real);  // torch copies
  const double ratio = acc == at::kDouble
                           ? interp_ratio<double>(in, out, align_corners, scale)
                           : static_cast<double>(interp_ratio<float>(in, out, align_corners, scale));
  const at::Tensor j = at::arange(out, real);
  at::Tensor src = align_corners ? j.mul(ratio) : j.add(0.5).mul(ratio).sub(0.5);
  if (mode == Interp::linear) src = src.clamp_min(0);
  const at::Tensor index = src.floor().to(at::kLong).clamp_max(in - 1).unsqueeze(1);
  const at::Tensor t = src.sub(index.squeeze(1).to(acc)).clamp(0, 1).unsqueeze(1);
  const at::Tensor k = at::arange(in, at::TensorOptions().dtype(at::kLong).device(device));
  const auto stored = [&](const at::Tensor& w) { return w.to(dtype).to(acc); };  // as torch keeps them
  const auto at_input = [&](const at::Tensor& w, const at::Tensor& i) {
    return w * k.eq(i.clamp(0, in - 1));
  };
  if (mode == Interp::linear) {
    const at::Tensor lambda1 = stored(t), lambda0 = stored(lambda1.neg().add(1));
    return at_input(lambda0, index) + at_input(lambda1, index + index.lt(in - 1));
  }
  // Cubic convolution, A = -0.75: ((A + 2) x - (A + 3)) x x + 1 within one of the point and
  // ((A x - 5A) x + 8A) x - 4A from one to two away, in torch's order of operations.
  const auto near = [](const at::Tensor& x) { return x.mul(1.25).sub(2.25).mul(x).mul(x).add(1); };
  const auto far = [](const at::Tensor& x) { return x.mul(-0.75).add(3.75).mul(x).sub(6).mul(x).add(3); };
  const at::Tensor rest = t.neg().add(1);
  return at_input(stored(far(t.add(1))), index - 1) + at_input(stored(near(t)), index) +
         at_input(stored(near(rest)), index + 1) + at_input(stored(far(rest.add(1))), index + 2);
}

// Whether torch's CPU would run this upsampling as devplug does: a floating, non-empty input of
// rank dims + 2 and positive sizes. Anything else (integers, empty sizes, torch's errors) runs
// there, as does bilinear float16 and bfloat16: torch's CPU rounds each product and sum of its
// 2-d kernel to 16 bits, and on OpInfo's samples that differs from rounding once by more than
// OpInfo's tolerance (bfloat16: 6% relative; its linear, bicubic and trilinear kernels agree).
bool interpolates(const at::Tensor& self, at::IntArrayRef input_size, at::IntArrayRef output_size,
                  Interp mode) {
  const size_t dims = output_size.size();
  if (!c10::isFloatingType(self.scalar_type()) || input_size.size() != dims + 2) return false;
  if (mode == Interp::linear && dims == 2 && c10::isReducedFloatingType(self.scalar_type())) return false;
  return std::all_of(input_size.begin() + 1, input_size.end(), [](int64_t v) { return v > 0; }) &&
         input_size[0] > 0 &&
         std::all_of(output_size.begin(), output_size.end(), [](int64_t v) { return v > 0; });
}

// Forward (x is the input) or backward (x is the output's gradient) of one upsampling.
at::Tensor interpolate(const at::Tensor& x, at::IntArrayRef input_size, at::IntArrayRef output_size,
                       bool align_corners, const std::vector<std::optional<double>>& scales, Interp mode,
                       bool backward) {
  const at::ScalarType dtype = x.scalar_type(), acc = dtype == at::kDouble ? at::kDouble : at::kFloat;
  std::vector<at::Tensor> maps;
  for (size_t k = 0; k < output_size.size(); ++k) {
    const at::Tensor m = interp_matrix(input_size[2 + k], output_size[k], align_corners, scales[k], mode,
                                       dtype, acc, x.device());
    maps.push_back(backward ? m.t() : m);
  }
  return map_last_dims(x.to(acc), maps).to(dtype).contiguous(x.suggest_memory_format());
}

at::Tensor& upsample_out(const at::Tensor& self, at::IntArrayRef output_size, bool align_corners,
                         const std::vector<std::optional<double>>& scales, Interp mode, at::Tensor& out) {
  if (!interpolates(self, self.sizes(), output_size, mode) || out.scalar_type() != self.scalar_type())
    throw OnCpu{};
  const at::Tensor result = interpolate(self, self.sizes(), output_size, align_corners, scales, mode, false);
  at::native::resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

at::Tensor& upsample_backward_out(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                  at::IntArrayRef input_size, bool align_corners,
                                  const std::vector<std::optional<double>>& scales, Interp mode,
                                  at::Tensor& grad_input) {
  std::vector<int64_t> expected(input_size.begin(),
                                input_size.begin() + std::min<size_t>(2, input_size.size()));
  expected.insert(expected.end(), output_size.begin(), output_size.end());
  if (!interpolates(grad_output, input_size, output_size, mode) || !grad_output.sizes().equals(expected) ||
      grad_input.scalar_type() != grad_output.scalar_type())
    throw OnCpu{};
  const at::Tensor result =
      interpolate(grad_output, input_size, output_size, align_corners, scales, mode, true);
  at::native::resize_output(grad_input, result.sizes());
  grad_input.copy_(result);
  return grad_input;
}

// The aten signatures: linear (1-d), bilinear and bicubic (2-d), trilinear (3-d), forward and
// backward, functional and out=.
using Scale = std::optional<double>;
template <Interp M>
at::Tensor& up1d_out(const at::Tensor& self, at::IntArrayRef size, bool ac, Scale s, at::Tensor& out) {
  return upsample_out(self, size, ac, {s}, M, out);
}
template <Interp M>
at::Tensor up1d(const at::Tensor& self, at::IntArrayRef size, bool ac, Scale s) {
  at::Tensor out = at::empty({0}, self.options());
  return upsample_out(self, size, ac, {s}, M, out);
}
template <Interp M>
at::Tensor& up2d_out(const at::Tensor& self, at::IntArrayRef size, bool ac, Scale h, Scale w,
                     at::Tensor& out) {
  return upsample_out(self, size, ac, {h, w}, M, out);
}
template <Interp M>
at::Tensor up2d(const at::Tensor& self, at::IntArrayRef size, bool ac, Scale h, Scale w) {
  at::Tensor out = at::empty({0}, self.options());
  return upsample_out(self, size, ac, {h, w}, M, out);
}
template <Interp M>
at::Tensor& up3d_out(const at::Tensor& self, at::IntArrayRef size, bool ac, Scale d, Scale h, Scale w,
                     at::Tensor& out) {
  return upsample_out(self, size, ac, {d, h, w}, M, out);
}
template <Interp M>
at::Tensor up3d(const at::Tensor& self, at::IntArrayRef size, bool ac, Scale d, Scale h, Scale w) {
  at::Tensor out = at::empty({0}, self.options());
  return upsample_out(self, size, ac, {d, h, w}, M, out);
}
template <Interp M>
at::Tensor& up1d_backward_out(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in, bool ac, Scale s,
                              at::Tensor& out) {
  return upsample_backward_out(g, size, in, ac, {s}, M, out);
}
template <Interp M>
at::Tensor up1d_backward(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in, bool ac, Scale s) {
  at::Tensor out = at::empty({0}, g.options());
  return upsample_backward_out(g, size, in, ac, {s}, M, out);
}
template <Interp M>
at::Tensor& up2d_backward_out(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in, bool ac, Scale h,
                              Scale w, at::Tensor& out) {
  return upsample_backward_out(g, size, in, ac, {h, w}, M, out);
}
template <Interp M>
at::Tensor up2d_backward(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in, bool ac, Scale h,
                         Scale w) {
  at::Tensor out = at::empty({0}, g.options());
  return upsample_backward_out(g, size, in, ac, {h, w}, M, out);
}
template <Interp M>
at::Tensor& up3d_backward_out(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in, bool ac, Scale d,
                              Scale h, Scale w, at::Tensor& out) {
  return upsample_backward_out(g, size, in, ac, {d, h, w}, M, out);
}
template <Interp M>
at::Tensor up3d_backward(const at::Tensor& g, at::IntArrayRef size, at::IntArrayRef in, bool ac, Scale d,
                         Scale h, Scale w) {
  at::Tensor out = at::empty({0}, g.options());
  return upsample_backward_out(g, size, in, ac, {d, h, w}, M, out);
}

}  // namespace

at::Tensor map_last_dims(const at::Tensor& x, const std::vector<at::Tensor>& maps) {
  const int64_t k = static_cast<int64_t>(maps.size());
  at::Tensor y = x;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t p = y.dim() - k + j;
    y = at::matmul(maps[static_cast<size_t>(j)], y.movedim(p, -2)).movedim(-2, p);
  }
  return y;
}

void register_resample_ops(Table& t) {
  constexpr const char* kPad = "iota, abs, sub, neg, add, minimum, maximum, index_select";
  constexpr const char* kPadBack = "iota, abs, sub, neg, add, minimum, maximum, fill, scatter_add";
  constexpr const char* kNear = "iota, mul, floor, minimum, index_select";
  constexpr const char* kNearBack = "iota, mul, floor, minimum, fill, scatter_add";
  // torch::Library copies the op's name; the rows keep their own copy.
  auto add = [&t](const std::string& aten, const char* via, auto kernel) {
    t.add(aten.c_str(), Impl::bridge, via, kernel);
  };
  for (const char* n : {"1d", "2d", "3d"}) {
    const std::string r = std::string("reflection_pad") + n, p = std::string("replication_pad") + n;
    add(r, kPad, DEVPLUG_KERNEL(pad<true>));
    add(r + ".out", kPad, DEVPLUG_KERNEL(pad_out<true>));
    add(r + "_backward", kPadBack, DEVPLUG_KERNEL(pad_backward<true>));
    add(r + "_backward.grad_input", kPadBack, DEVPLUG_KERNEL(pad_backward_out<true>));
    add(p, kPad, DEVPLUG_KERNEL(pad<false>));
    add(p + ".out", kPad, DEVPLUG_KERNEL(pad_out<false>));
    add(p + "_backward", kPadBack, DEVPLUG_KERNEL(pad_backward<false>));
    add(p + "_backward.grad_input", kPadBack, DEVPLUG_KERNEL(pad_backward_out<false>));
  }
  t.add("upsample_nearest1d", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest1d<false>));
  t.add("upsample_nearest1d.out", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest1d_out<false>));
  t.add("upsample_nearest2d", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest2d<false>));
  t.add("upsample_nearest2d.out", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest2d_out<false>));
  t.add("upsample_nearest3d", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest3d<false>));
  t.add("upsample_nearest3d.out", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest3d_out<false>));
  t.add("_upsample_nearest_exact1d", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest1d<true>));
  t.add("_upsample_nearest_exact1d.out", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest1d_out<true>));
  t.add("_upsample_nearest_exact2d", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest2d<true>));
  t.add("_upsample_nearest_exact2d.out", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest2d_out<true>));
  t.add("_upsample_nearest_exact3d", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest3d<true>));
  t.add("_upsample_nearest_exact3d.out", Impl::bridge, kNear, DEVPLUG_KERNEL(nearest3d_out<true>));
  t.add("upsample_nearest1d_backward", Impl::bridge, kNearBack, DEVPLUG_KERNEL(nearest1d_backward<false>));
  t.add("upsample_nearest1d_backward.grad_input", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest1d_backward_out<false>));
  t.add("upsample_nearest2d_backward", Impl::bridge, kNearBack, DEVPLUG_KERNEL(nearest2d_backward<false>));
  t.add("upsample_nearest2d_backward.grad_input", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest2d_backward_out<false>));
  t.add("upsample_nearest3d_backward", Impl::bridge, kNearBack, DEVPLUG_KERNEL(nearest3d_backward<false>));
  t.add("upsample_nearest3d_backward.grad_input", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest3d_backward_out<false>));
  t.add("_upsample_nearest_exact1d_backward", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest1d_backward<true>));
  t.add("_upsample_nearest_exact1d_backward.grad_input", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest1d_backward_out<true>));
  t.add("_upsample_nearest_exact2d_backward", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest2d_backward<true>));
  t.add("_upsample_nearest_exact2d_backward.grad_input", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest2d_backward_out<true>));
  t.add("_upsample_nearest_exact3d_backward", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest3d_backward<true>));
  t.add("_upsample_nearest_exact3d_backward.grad_input", Impl::bridge, kNearBack,
        DEVPLUG_KERNEL(nearest3d_backward_out<true>));
  constexpr const char* kInterp =
      "iota, add, mul, sub, neg, floor, clamp, lt, eq, convert_element_type, matmul (one product per dim)";
  t.add("upsample_linear1d", Impl::bridge, kInterp, DEVPLUG_KERNEL(up1d<Interp::linear>));
  t.add("upsample_linear1d.out", Impl::bridge, kInterp, DEVPLUG_KERNEL(up1d_out<Interp::linear>));
  t.add("upsample_bilinear2d", Impl::bridge, kInterp, DEVPLUG_KERNEL(up2d<Interp::linear>));
  t.add("upsample_bilinear2d.out", Impl::bridge, kInterp, DEVPLUG_KERNEL(up2d_out<Interp::linear>));
  t.add("upsample_bicubic2d", Impl::bridge, kInterp, DEVPLUG_KERNEL(up2d<Interp::cubic>));
  t.add("upsample_bicubic2d.out", Impl::bridge, kInterp, DEVPLUG_KERNEL(up2d_out<Interp::cubic>));
  t.add("upsample_trilinear3d", Impl::bridge, kInterp, DEVPLUG_KERNEL(up3d<Interp::linear>));
  t.add("upsample_trilinear3d.out", Impl::bridge, kInterp, DEVPLUG_KERNEL(up3d_out<Interp::linear>));
  t.add("upsample_linear1d_backward", Impl::bridge, kInterp, DEVPLUG_KERNEL(up1d_backward<Interp::linear>));
  t.add("upsample_linear1d_backward.grad_input", Impl::bridge, kInterp,
        DEVPLUG_KERNEL(up1d_backward_out<Interp::linear>));
  t.add("upsample_bilinear2d_backward", Impl::bridge, kInterp, DEVPLUG_KERNEL(up2d_backward<Interp::linear>));
  t.add("upsample_bilinear2d_backward.grad_input", Impl::bridge, kInterp,
        DEVPLUG_KERNEL(up2d_backward_out<Interp::linear>));
  t.add("upsample_bicubic2d_backward", Impl::bridge, kInterp, DEVPLUG_KERNEL(up2d_backward<Interp::cubic>));
  t.add("upsample_bicubic2d_backward.grad_input", Impl::bridge, kInterp,
        DEVPLUG_KERNEL(up2d_backward_out<Interp::cubic>));
  t.add("upsample_trilinear3d_backward", Impl::bridge, kInterp,
        DEVPLUG_KERNEL(up3d_backward<Interp::linear>));
  t.add("upsample_trilinear3d_backward.grad_input", Impl::bridge, kInterp,
        DEVPLUG_KERNEL(up3d_backward_out<Interp::linear>));
}

}  // namespace devplug::bridge
