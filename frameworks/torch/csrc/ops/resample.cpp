// SPDX-License-Identifier: Apache-2.0
// Ops that pick, along each of the last one to three dims, the input element an index names:
// reflection and replication padding, and nearest upsampling (upsample_nearest and
// _upsample_nearest_exact), 1-d to 3-d, with their backward ops. Forward is one index_select
// per dim; backward is one scatter_add of the gradient into zeros at each element's flat input
// index (in float32 for 16-bit dtypes). The index vectors are computed on the device from iota
// (no host data, so the ops can be captured in a graph), with torch's CPU formulas: reflection
// (n - 1) - |(n - 1) - |j - l||, replication clamp(j - l, 0, n - 1), nearest j (same size),
// j / 2 (twice the size) or min(floor(j * scale), n - 1) with scale in float32, nearest-exact
// min(floor(float((j + 0.5) * scale)), n - 1).
#include <ATen/native/Resize.h>

#include <optional>
#include <string>
#include <vector>

#include "ops/ops.hpp"

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

}  // namespace

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
}

}  // namespace devplug::bridge
