// SPDX-License-Identifier: Apache-2.0
// Convolution and pooling on devplug's conv2d, max_pool2d, avg_pool2d composites and their
// backward ops. A 1-d convolution runs as a 2-d one of height 1, a 3-d pooling input
// [C, H, W] as a batch of one, adaptive average pooling whose output divides the input as
// avg_pool2d and other sizes (and 3-d) as a matrix product per dim. max_unpool2d and
// max_unpool3d scatter into zeros. Transposed and 3-d convolutions and the dtypes the
// composites do not take (integer convolution and pooling) run on the CPU (counted).
#include <ATen/Functions.h>
#include <ATen/native/Pool.h>
#include <c10/util/accumulate.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "fallback.hpp"
#include "ops/elementwise.hpp"
#include "ops/ops.hpp"
#include "ops/resample.hpp"

namespace devplug::bridge {
namespace {

int64_t pick(at::IntArrayRef v, size_t i, int64_t fallback) {
  if (v.empty()) return fallback;
  return v.size() == 1 ? v[0] : v[i];
}

// ---- convolution ---------------------------------------------------------------------------

// A 1-d convolution runs as a 2-d one of height 1.
at::Tensor as_2d(const at::Tensor& t) { return t.dim() == 3 ? t.unsqueeze(2) : t; }
std::vector<int64_t> as_2d(at::IntArrayRef v, int64_t fill) {
  if (v.size() == 1) return {fill, v[0]};
  return v.vec();
}

// conv2d's attributes and output size for [N, C, H, W] input and [O, C/g, kh, kw] weight,
// with torch's messages for what does not fit.
struct Conv2d {
  devplug_conv2d_attrs_t attrs;
  int64_t oh, ow;
};
Conv2d conv_geometry(const at::Tensor& x4, const at::Tensor& w4, at::IntArrayRef stride,
                     at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  Conv2d g{};
  g.attrs.struct_size = sizeof(g.attrs);
  for (size_t i = 0; i < 2; ++i) {
    g.attrs.stride[i] = pick(stride, i, 1);
    g.attrs.padding[i] = pick(padding, i, 0);
    g.attrs.dilation[i] = pick(dilation, i, 1);
  }
  g.attrs.groups = groups;
  const int64_t c = x4.size(1), o = w4.size(0);
  TORCH_CHECK(groups > 0 && c % groups == 0 && o % groups == 0 && w4.size(1) == c / groups,
              "devplug: convolution of ", c, " input channels with weight ", w4.sizes(), " and ", groups,
              " groups does not fit");
  auto out_size = [&](size_t i) {
    const int64_t k = w4.size(2 + i), in = x4.size(2 + i);
    return (in + 2 * g.attrs.padding[i] - g.attrs.dilation[i] * (k - 1) - 1) / g.attrs.stride[i] + 1;
  };
  g.oh = out_size(0);
  g.ow = out_size(1);
  TORCH_CHECK(g.oh > 0 && g.ow > 0, "devplug: convolution output size is too small: (", g.oh, ", ", g.ow,
              ")");
  return g;
}
Conv2d conv_geometry_nd(const at::Tensor& input, const at::Tensor& weight, at::IntArrayRef stride,
                        at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  if (input.dim() == 4) return conv_geometry(input, weight, stride, padding, dilation, groups);
  return conv_geometry(as_2d(input), as_2d(weight), as_2d(stride, 1), as_2d(padding, 0), as_2d(dilation, 1),
                       groups);
}

// The CPU route for what conv2d does not cover (transposed, 3-d, integers). It calls
// at::convolution itself: the aten op reached here, convolution_overrideable, has no CPU
// kernel for the boxed fallback to run.
bool on_cpu(const at::Tensor& input, bool transposed) {
  return transposed || (input.dim() != 3 && input.dim() != 4) ||
         !op_allows(DEVPLUG_OP_conv2d, input.scalar_type());
}

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight,
                       const std::optional<at::Tensor>& bias, at::IntArrayRef stride, at::IntArrayRef padding,
                       at::IntArrayRef dilation, bool transposed, at::IntArrayRef output_padding,
                       int64_t groups) {
  if (on_cpu(input, transposed)) {
    note_fallback("aten::convolution_overrideable (transposed, 3-d or integer)");
    std::optional<at::Tensor> cpu_bias;
    if (given(bias)) cpu_bias = bias->cpu();
    return at::convolution(input.cpu(), weight.cpu(), cpu_bias, stride, padding, dilation, transposed,
                           output_padding, groups)
        .to(input.device());
  }
  TORCH_CHECK(input.scalar_type() == weight.scalar_type(), "Input type (", input.scalar_type(),
              ") and weight type (", weight.scalar_type(), ") should be the same");
  const Conv2d g = conv_geometry_nd(input, weight, stride, padding, dilation, groups);
  const at::Tensor x4 = as_2d(input), w4 = as_2d(weight);
  Dev dev = Dev::of({&input, &weight});
  at::Tensor out4 = empty_torch(dev, {x4.size(0), w4.size(0), g.oh, g.ow}, input.scalar_type());
  if (out4.numel() > 0) {
    OptDTensor b;
    if (given(bias)) b = dev.cast(dev.operand(*bias), view_of(x4).dtype());
    dev.composite(DEVPLUG_OP_conv2d, {view_of(x4), view_of(w4), b}, {view_of(out4)}, &g.attrs);
  }
  return input.dim() == 3 ? out4.squeeze(2) : out4;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight, at::IntArrayRef stride,
    at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed, at::IntArrayRef output_padding,
    int64_t groups, std::array<bool, 3> output_mask) {
  if (on_cpu(input, transposed)) {
    note_fallback("aten::convolution_backward_overrideable (transposed, 3-d or integer)");
    auto [gi, gw, gb] =
        at::convolution_backward(grad_output.cpu(), input.cpu(), weight.cpu(), std::nullopt, stride, padding,
                                 dilation, transposed, output_padding, groups, output_mask);
    auto back = [&](const at::Tensor& t) { return t.defined() ? t.to(input.device()) : t; };
    return {back(gi), back(gw), back(gb)};
  }
  const Conv2d g = conv_geometry_nd(input, weight, stride, padding, dilation, groups);
  const at::Tensor x4 = as_2d(input), w4 = as_2d(weight), g4 = as_2d(grad_output);
  Dev dev = Dev::of({&grad_output, &input, &weight});
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = at::empty_like(input, at::MemoryFormat::Contiguous);
  if (output_mask[1]) grad_weight = at::empty_like(weight, at::MemoryFormat::Contiguous);
  if (output_mask[2]) grad_bias = empty_torch(dev, {w4.size(0)}, grad_output.scalar_type());
  auto slot = [](const at::Tensor& t) { return t.defined() ? OptDTensor(view_of(as_2d(t))) : std::nullopt; };
  if (grad_output.numel() > 0 && input.numel() > 0) {
    dev.composite(DEVPLUG_OP_conv2d_backward, {view_of(g4), view_of(x4), view_of(w4)},
                  {slot(grad_input), slot(grad_weight),
                   grad_bias.defined() ? OptDTensor(view_of(grad_bias)) : std::nullopt},
                  &g.attrs);
  } else {
    for (const at::Tensor* t : {&grad_input, &grad_weight, &grad_bias})
      if (t->defined() && t->numel() > 0) dev.fill(view_of(*t), 0);
  }
  return {grad_input, grad_weight, grad_bias};
}

// ---- pooling ----------------------------------------------------------------------------------

// pool2d attributes and output size of a [N, C, H, W] or [C, H, W] input, with torch's checks.
struct Pool2d {
  devplug_pool2d_attrs_t attrs;
  int64_t oh, ow;
};
Pool2d pool_geometry(const at::Tensor& input, at::IntArrayRef kernel, at::IntArrayRef stride,
                     at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode, const char* what) {
  TORCH_CHECK(input.dim() == 3 || input.dim() == 4, what, ": expected a 3-d or 4-d input, got ", input.dim(),
              "-d");
  TORCH_CHECK(kernel.size() == 1 || kernel.size() == 2, what, ": kernel_size must be one int or two");
  Pool2d g{};
  devplug_pool2d_attrs_t& a = g.attrs;
  a.struct_size = sizeof(a);
  for (size_t i = 0; i < 2; ++i) {
    a.kernel[i] = pick(kernel, i, 1);
    a.stride[i] = stride.empty() ? a.kernel[i] : pick(stride, i, 1);
    a.padding[i] = pick(padding, i, 0);
    a.dilation[i] = pick(dilation, i, 1);
  }
  a.flags = ceil_mode ? DEVPLUG_POOL_CEIL_MODE : 0u;
  TORCH_CHECK(a.padding[0] <= a.kernel[0] / 2 && a.padding[1] <= a.kernel[1] / 2, what,
              ": pad should be at most half of effective kernel size");
  g.oh = at::native::pooling_output_shape<int64_t>(input.size(-2), a.kernel[0], a.padding[0], a.stride[0],
                                                   a.dilation[0], ceil_mode);
  g.ow = at::native::pooling_output_shape<int64_t>(input.size(-1), a.kernel[1], a.padding[1], a.stride[1],
                                                   a.dilation[1], ceil_mode);
  TORCH_CHECK(g.oh > 0 && g.ow > 0, what, ": output size is too small");
  return g;
}

at::Tensor as_4d(const at::Tensor& t) { return t.dim() == 3 ? t.unsqueeze(0) : t; }
// A pooled torch tensor of `input`'s rank.
at::Tensor new_pooled(const Dev& dev, const at::Tensor& input, const Pool2d& g, at::ScalarType dtype) {
  std::vector<int64_t> shape = input.sizes().vec();
  shape[shape.size() - 2] = g.oh;
  shape.back() = g.ow;
  return empty_torch(dev, shape, dtype);
}

std::tuple<at::Tensor, at::Tensor> max_pool2d_with_indices(const at::Tensor& self, at::IntArrayRef kernel,
                                                           at::IntArrayRef stride, at::IntArrayRef padding,
                                                           at::IntArrayRef dilation, bool ceil_mode) {
  const Pool2d g = pool_geometry(self, kernel, stride, padding, dilation, ceil_mode, "max_pool2d");
  fallback_unless_allowed(DEVPLUG_OP_max_pool2d, self.scalar_type());
  Dev dev = Dev::of(self);
  at::Tensor out = new_pooled(dev, self, g, self.scalar_type());
  at::Tensor indices = new_pooled(dev, self, g, at::kLong);
  if (out.numel() > 0)
    dev.composite(DEVPLUG_OP_max_pool2d, {view_of(as_4d(self))},
                  {view_of(as_4d(out)), view_of(as_4d(indices))}, &g.attrs);
  return {out, indices};
}

at::Tensor max_pool2d_with_indices_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                            at::IntArrayRef kernel, at::IntArrayRef stride,
                                            at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode,
                                            const at::Tensor& indices) {
  const Pool2d g = pool_geometry(self, kernel, stride, padding, dilation, ceil_mode, "max_pool2d_backward");
  Dev dev = Dev::of({&grad_output, &self, &indices});
  at::Tensor grad_input = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (grad_input.numel() == 0) return grad_input;
  dev.composite(DEVPLUG_OP_max_pool2d_backward,
                {view_of(as_4d(grad_output)), view_of(as_4d(self)), view_of(as_4d(indices))},
                {view_of(as_4d(grad_input))}, &g.attrs);
  return grad_input;
}

Pool2d avg_geometry(const at::Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                    at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const char* what) {
  TORCH_CHECK(!divisor_override.has_value() || *divisor_override != 0, "divisor must be not zero");
  Pool2d g = pool_geometry(self, kernel, stride, padding, {}, ceil_mode, what);
  if (count_include_pad) g.attrs.flags |= DEVPLUG_POOL_COUNT_INCLUDE_PAD;
  g.attrs.divisor_override = divisor_override.value_or(0);
  return g;
}

// torch divides by a divisor_override of either sign; devplug's pooling takes positive ones.
// x / -d is -(x / d) exactly (and after rounding), so a negative one pools with d and negates.
bool negative(std::optional<int64_t>& divisor_override) {
  if (!divisor_override.has_value() || *divisor_override >= 0) return false;
  divisor_override = -*divisor_override;
  return true;
}

at::Tensor avg_pool2d_fn(const at::Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                         at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
  const bool negate = negative(divisor_override);
  const Pool2d g = avg_geometry(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
                                "avg_pool2d");
  fallback_unless_allowed(DEVPLUG_OP_avg_pool2d, self.scalar_type());
  Dev dev = Dev::of(self);
  at::Tensor out = new_pooled(dev, self, g, self.scalar_type());
  if (out.numel() > 0) {
    DTensor o = view_of(as_4d(out));
    dev.composite(DEVPLUG_OP_avg_pool2d, {view_of(as_4d(self))}, {o}, &g.attrs);
    if (negate) dev.ew_into(DEVPLUG_OP_neg, {o}, o);
  }
  return out;
}

at::Tensor avg_pool2d_backward_fn(const at::Tensor& grad_output, const at::Tensor& self,
                                  at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                                  bool ceil_mode, bool count_include_pad,
                                  std::optional<int64_t> divisor_override) {
  const bool negate = negative(divisor_override);
  const Pool2d g = avg_geometry(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
                                "avg_pool2d_backward");
  Dev dev = Dev::of({&grad_output, &self});
  at::Tensor grad_input = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (grad_input.numel() == 0) return grad_input;
  DTensor gi = view_of(as_4d(grad_input));
  dev.composite(DEVPLUG_OP_avg_pool2d_backward, {view_of(as_4d(grad_output)), view_of(as_4d(self))}, {gi},
                &g.attrs);
  if (negate) dev.ew_into(DEVPLUG_OP_neg, {gi}, gi);
  return grad_input;
}

// Adaptive average pooling whose output divides the input evenly is avg_pool2d with
// kernel = stride = input / output. Other 2-d sizes and every 3-d one pool a floating input as
// one matrix product per spatial dim: row i of a dim's matrix averages the inputs
// [⌊i·in/out⌋, ⌈(i+1)·in/out⌉) (torch's windows), in float32 (float64 for float64), rounded
// once at the end; the backward multiplies by the transposed matrices. Integer inputs and the
// calls torch refuses (empty sizes) run on the CPU (counted).
// [out, in], computed on the device (no host data, so a graph can capture it): the mask of
// each row's window divided by the window's length.
at::Tensor window_means(int64_t in, int64_t out, at::ScalarType acc, const at::Device& device) {
  const at::TensorOptions i64 = at::TensorOptions().dtype(at::kLong).device(device);
  const at::Tensor i = at::arange(out, i64).unsqueeze(1), k = at::arange(in, i64);
  const at::Tensor start = at::div(i * in, out, "floor"),
                   end = at::div((i + 1) * in + (out - 1), out, "floor");
  return at::logical_and(k >= start, k < end).to(acc).div((end - start).to(acc));
}

bool pools_as_products(const at::Tensor& self, size_t spatial, at::IntArrayRef out) {
  const int64_t rank = self.dim(), k = static_cast<int64_t>(spatial);
  if (!c10::isFloatingType(self.scalar_type()) || (rank != k + 1 && rank != k + 2) || out.size() != spatial)
    return false;
  for (int64_t d = rank - k - 1; d < rank; ++d)
    if (self.size(d) == 0) return false;
  return std::all_of(out.begin(), out.end(), [](int64_t v) { return v > 0; });
}

// `x` (self's sizes in the last dims, or the pooled ones with `backward`) mapped through the
// window matrices between self's spatial sizes and `out`, in the accumulation dtype.
at::Tensor pool_by_products(const at::Tensor& x, const at::Tensor& self, at::IntArrayRef out, bool backward) {
  const at::ScalarType acc = self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const int64_t k = static_cast<int64_t>(out.size());
  std::vector<at::Tensor> maps;
  for (int64_t j = 0; j < k; ++j) {
    const at::Tensor m = window_means(self.size(self.dim() - k + j), out[j], acc, self.device());
    maps.push_back(backward ? m.t() : m);
  }
  return map_last_dims(x.to(acc), maps).to(self.scalar_type()).contiguous(self.suggest_memory_format());
}

at::Tensor adaptive_avg_pool2d(const at::Tensor& self, at::IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  const int64_t h = self.size(-2), w = self.size(-1);
  if (output_size[0] > 0 && output_size[1] > 0 && h % output_size[0] == 0 && w % output_size[1] == 0) {
    const int64_t kh = h / output_size[0], kw = w / output_size[1];
    return avg_pool2d_fn(self, {kh, kw}, {kh, kw}, {0, 0}, false, true, std::nullopt);
  }
  if (!pools_as_products(self, 2, output_size)) {
    note_fallback("aten::_adaptive_avg_pool2d (integer or empty)");
    return at::_adaptive_avg_pool2d(self.cpu(), output_size).to(self.device());
  }
  return pool_by_products(self, self, output_size, false);
}

at::Tensor adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  const int64_t h = self.size(-2), w = self.size(-1), oh = grad_output.size(-2), ow = grad_output.size(-1);
  if (oh > 0 && ow > 0 && h % oh == 0 && w % ow == 0) {
    const int64_t kh = h / oh, kw = w / ow;
    return avg_pool2d_backward_fn(grad_output, self, {kh, kw}, {kh, kw}, {0, 0}, false, true, std::nullopt);
  }
  if (!pools_as_products(self, 2, {oh, ow}) || grad_output.scalar_type() != self.scalar_type()) {
    note_fallback("aten::_adaptive_avg_pool2d_backward (integer or empty)");
    return at::_adaptive_avg_pool2d_backward(grad_output.cpu(), self.cpu()).to(self.device());
  }
  return pool_by_products(grad_output, self, {oh, ow}, true);
}

// float16 and bfloat16 3-d pooling stays on the CPU: torch's CPU sums those in the 16-bit
// dtype itself (its 2-d kernel sums in float32), and on OpInfo's samples that differs from a
// sum rounded once by more than OpInfo's tolerance (bfloat16: up to 0.021 where rounding once
// is within 0.0036; measured against float64).
bool sums_in_float(const at::Tensor& t) {
  return t.scalar_type() == at::kFloat || t.scalar_type() == at::kDouble;
}

at::Tensor adaptive_avg_pool3d(const at::Tensor& self, at::IntArrayRef output_size) {
  if (!sums_in_float(self) || !pools_as_products(self, 3, output_size)) throw OnCpu{};
  return pool_by_products(self, self, output_size, false);
}

at::Tensor adaptive_avg_pool3d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  const std::vector<int64_t> out(grad_output.sizes().end() - 3, grad_output.sizes().end());
  if (!sums_in_float(self) || grad_output.dim() != self.dim() || !pools_as_products(self, 3, out) ||
      grad_output.scalar_type() != self.scalar_type())
    throw OnCpu{};
  return pool_by_products(grad_output, self, out, true);
}

// ---- max_unpool2d, max_unpool3d ---------------------------------------------------------------

// torch's CPU max_unpool over the last `spatial` dims: zeros of the output size, and each
// input value written at the flat position its index names in its channel's output plane
// (duplicate indices, which max pooling gives only for equal values, write one of them). An
// index outside the plane is torch's error naming the first such index; the check reads one
// flag back. Floating dtypes only, as torch's CPU: the others run there for its error.
at::Tensor& max_unpool_out(const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef output_size,
                           at::Tensor& out, size_t spatial) {
  const char* what = spatial == 2 ? "max_unpooling2d" : "max_unpooling3d";
  const std::vector<int64_t> plane(output_size.begin(), output_size.end());
  TORCH_CHECK(
      std::all_of(plane.begin(), plane.end(), [](int64_t v) { return v >= 0; }), what,
      "(): output_size must contain non-negative spatial dimensions, but got output_size=", output_size);
  const int64_t rank = self.dim();
  for (int64_t i = 1; i < rank; ++i)
    TORCH_CHECK(
        self.size(i) > 0, what,
        "_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, but input has "
        "sizes ",
        self.sizes(), " with dimension ", i, " being empty");
  if (!c10::isFloatingType(self.scalar_type())) throw OnCpu{};
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "expected scalar type ", self.scalar_type(),
              " but found ", out.scalar_type());
  Dev dev = Dev::of({&self, &indices, &out});
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - static_cast<int64_t>(spatial));
  const int64_t planes = c10::multiply_integers(shape);
  const int64_t area = c10::multiply_integers(plane);
  const int64_t per_plane = planes == 0 ? 0 : self.numel() / planes;
  shape.insert(shape.end(), plane.begin(), plane.end());
  out.resize_(shape, self.suggest_memory_format());
  if (out.numel() == 0) return out;
  DTensor index = dev.contiguous(view_of(indices)).reshape({planes, per_plane});
  DTensor outside =
      dev.ew(DEVPLUG_OP_bitwise_or, {dev.ew(DEVPLUG_OP_lt, {index, dev.scalar(DEVPLUG_DTYPE_INT64, 0)}),
                                     dev.ew(DEVPLUG_OP_ge, {index, dev.scalar(DEVPLUG_DTYPE_INT64, area)})});
  uint8_t bad = 0;
  dev.reduce(DEVPLUG_OP_any, outside, 3u).reshape({}).copy_to_host(&bad, 1, &dev.stream());
  if (bad != 0) {
    const at::Tensor host = indices.contiguous().cpu().reshape({-1});
    const int64_t* v = host.const_data_ptr<int64_t>();
    const int64_t* first =
        std::find_if(v, v + host.numel(), [area](int64_t i) { return i < 0 || i >= area; });
    std::ostringstream size;
    for (size_t d = 0; d < plane.size(); ++d) size << (d > 0 ? "x" : "") << plane[d];
    TORCH_CHECK(false, "Found an invalid max index: ", *first, " (output volumes are of size ", size.str(),
                ")");
  }
  const DTensor target = view_of(out);
  DTensor values = dev.empty(target.dtype(), {planes, area});
  const devplug_dim_attrs_t attrs = dim_attrs(1);
  dev.call(DEVPLUG_OP_scatter,
           {dev.full(target.dtype(), {planes, area}, 0), index,
            dev.contiguous(view_of(self)).reshape({planes, per_plane})},
           {values}, &attrs);
  dev.copy(values.reshape(shape), target);
  return out;
}

at::Tensor& max_unpool2d_out(const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef output_size,
                             at::Tensor& out) {
  TORCH_CHECK(indices.scalar_type() == at::kLong,
              "elements in indices should be type int64 but got: ", indices.scalar_type());
  TORCH_CHECK(output_size.size() == 2,
              "There should be exactly two elements (height, width) in output_size, but got ",
              output_size.size(), " elements.");
  TORCH_CHECK(self.dim() == 3 || self.dim() == 4,
              "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with ", self.dim(),
              " dimensions.");
  TORCH_CHECK(self.sizes() == indices.sizes(),
              "Expected shape of indices to be same as that of the input tensor (", self.sizes(),
              ") but got indices tensor with shape: ", indices.sizes());
  return max_unpool_out(self, indices, output_size, out, 2);
}
at::Tensor max_unpool2d(const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef output_size) {
  at::Tensor out = empty_torch(Dev::of({&self, &indices}), {0}, self.scalar_type());
  return max_unpool2d_out(self, indices, output_size, out);
}

at::Tensor& max_unpool3d_out(const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef output_size,
                             at::IntArrayRef stride, at::IntArrayRef padding, at::Tensor& out) {
  TORCH_CHECK(indices.scalar_type() == at::kLong,
              "elements in indices should be type int64 but got: ", indices.scalar_type());
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5,
              "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with ", self.dim(),
              " dimensions.");
  TORCH_CHECK(output_size.size() == 3,
              "There should be exactly three elements (depth, height, width) in output_size, but got ",
              output_size.size(), " elements.");
  TORCH_CHECK(stride.size() == 3,
              "There should be exactly three elements (depth, height, width) in stride, but got: ",
              stride.size(), " elements.");
  TORCH_CHECK(padding.size() == 3,
              "There should be exactly three elements (depth, height, width) in padding, but got: ",
              padding.size(), " elements.");
  TORCH_CHECK(self.sizes() == indices.sizes(),
              "Expected shape of indices to be same as that of the input tensor (", self.sizes(),
              ") but got indices tensor with shape: ", indices.sizes());
  TORCH_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0,
              "strides should be greater than zero, but got stride: ", stride);
  return max_unpool_out(self, indices, output_size, out, 3);
}
at::Tensor max_unpool3d(const at::Tensor& self, const at::Tensor& indices, at::IntArrayRef output_size,
                        at::IntArrayRef stride, at::IntArrayRef padding) {
  at::Tensor out = empty_torch(Dev::of({&self, &indices}), {0}, self.scalar_type());
  return max_unpool3d_out(self, indices, output_size, stride, padding, out);
}

}  // namespace

void register_conv_ops(Table& t) {
  const auto C = Impl::composite;
  t.add("convolution_overrideable", C, "conv2d", DEVPLUG_KERNEL(convolution));
  t.add("convolution_backward_overrideable", C, "conv2d_backward", DEVPLUG_KERNEL(convolution_backward));
  t.add("max_pool2d_with_indices", C, "max_pool2d", DEVPLUG_KERNEL(max_pool2d_with_indices));
  t.add("max_pool2d_with_indices_backward", C, "max_pool2d_backward",
        DEVPLUG_KERNEL(max_pool2d_with_indices_backward));
  t.add("avg_pool2d", C, "avg_pool2d; a negative divisor_override: also neg", DEVPLUG_KERNEL(avg_pool2d_fn));
  t.add("avg_pool2d_backward", C, "avg_pool2d_backward; a negative divisor_override: also neg",
        DEVPLUG_KERNEL(avg_pool2d_backward_fn));
  // The window matrices and the product per dim (uneven 2-d sizes, every 3-d one).
  const std::string products =
      "iota, mul, add, div, floor, ge, lt, bitwise_and, convert_element_type, matmul";
  const std::string uneven = products + " (uneven windows)";
  t.add("_adaptive_avg_pool2d", C, ("avg_pool2d; " + uneven).c_str(), DEVPLUG_KERNEL(adaptive_avg_pool2d));
  t.add("_adaptive_avg_pool2d_backward", C, ("avg_pool2d_backward; " + uneven).c_str(),
        DEVPLUG_KERNEL(adaptive_avg_pool2d_backward));
  t.add("_adaptive_avg_pool3d", Impl::bridge, products.c_str(), DEVPLUG_KERNEL(adaptive_avg_pool3d));
  t.add("_adaptive_avg_pool3d_backward", Impl::bridge, products.c_str(),
        DEVPLUG_KERNEL(adaptive_avg_pool3d_backward));
  t.add("max_unpool2d", Impl::bridge, "lt, ge, any, fill, scatter", DEVPLUG_KERNEL(max_unpool2d));
  t.add("max_unpool2d.out", Impl::bridge, "lt, ge, any, fill, scatter", DEVPLUG_KERNEL(max_unpool2d_out));
  t.add("max_unpool3d", Impl::bridge, "lt, ge, any, fill, scatter", DEVPLUG_KERNEL(max_unpool3d));
  t.add("max_unpool3d.out", Impl::bridge, "lt, ge, any, fill, scatter", DEVPLUG_KERNEL(max_unpool3d_out));
}

}  // namespace devplug::bridge
