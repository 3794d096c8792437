// Convolution and pooling through sliding-window views: a window of every output position is
// an as_strided view of the (padded) input, [N, C, kh, kw, OH, OW] for convolution (im2col,
// materialized once and multiplied by the weights on devplug's matmul) and [N, C, OH, OW,
// kh, kw] for pooling (reduced over the window). The backward ops add each window offset's
// contribution back into a strided view of the padded gradient (col2im), one elementwise
// add per kernel offset. Transposed and 3-d convolutions run on the CPU (counted).
#include <ATen/Functions.h>
#include <ATen/native/Pool.h>

#include "fallback.hpp"
#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// Geometry of a 2-d window op over [N, C, H, W].
struct Window2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t h, w, oh, ow;
};

// `x` (rank 4) padded by ph/pw before and as much after as the windows reach (negative:
// cropped), filled with `value`; a fresh dense tensor, so its storage offset is 0.
DTensor pad_for_windows(const Dev& dev, const DTensor& x, const Window2d& g, const c10::Scalar& value) {
  const int64_t need_h = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  const int64_t need_w = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  devplug_pad_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.before[2] = g.ph;
  attrs.before[3] = g.pw;
  attrs.after[2] = need_h - g.h - g.ph;
  attrs.after[3] = need_w - g.w - g.pw;
  const double f = value.toDouble();
  attrs.value.f = f;
  attrs.value.i = std::isfinite(f) ? static_cast<int64_t>(f) : (f > 0 ? INT64_MAX : INT64_MIN);
  Shape shape = x.shape();
  shape[2] = need_h;
  shape[3] = need_w;
  DTensor out = dev.empty(x.dtype(), shape);
  dev.call(DEVPLUG_OP_constant_pad, {x}, {out}, &attrs);
  return out;
}

// The window view of padded `xp` [N, C, Hp, Wp] (dense): [N, C, kh, kw, OH, OW] when
// `kernel_first`, else [N, C, OH, OW, kh, kw].
DTensor windows(const DTensor& xp, const Window2d& g, bool kernel_first) {
  const Shape s = xp.shape();
  const int64_t sw1 = 1, sh1 = s[3], sc = s[2] * s[3], sn = s[1] * sc;
  if (kernel_first)
    return xp.as_strided({s[0], s[1], g.kh, g.kw, g.oh, g.ow},
                         {sn, sc, sh1 * g.dh, sw1 * g.dw, sh1 * g.sh, sw1 * g.sw}, 0);
  return xp.as_strided({s[0], s[1], g.oh, g.ow, g.kh, g.kw}, {sn, sc, sh1 * g.sh, sw1 * g.sw, sh1 * g.dh, sw1 * g.dw}, 0);
}

// Adds `cols` [N, C, kh, kw, OH, OW] back into a zero padded gradient and returns its
// unpadded [N, C, H, W] part (col2im).
DTensor col2im(const Dev& dev, const DTensor& cols, const Window2d& g, int64_t n, int64_t c) {
  const int64_t hp = std::max(g.h + 2 * g.ph, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1);
  const int64_t wp = std::max(g.w + 2 * g.pw, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1);
  DTensor gxp = dev.full(cols.dtype(), {n, c, hp, wp}, 0);
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      DTensor target = gxp.slice(2, i * g.dh, i * g.dh + (g.oh - 1) * g.sh + 1, g.sh)
                           .slice(3, j * g.dw, j * g.dw + (g.ow - 1) * g.sw + 1, g.sw);
      DTensor part = cols.slice(2, i, i + 1).slice(3, j, j + 1).reshape({n, c, g.oh, g.ow});
      dev.ew_into(DEVPLUG_OP_add, {target, part}, target);
    }
  }
  return gxp.slice(2, g.ph, g.ph + g.h).slice(3, g.pw, g.pw + g.w);
}

int64_t pick(at::IntArrayRef v, size_t i, int64_t fallback) {
  if (v.empty()) return fallback;
  return v.size() == 1 ? v[0] : v[i];
}

// ---- convolution ---------------------------------------------------------------------------

Window2d conv_geometry(const at::Tensor& input4, const at::Tensor& weight4, at::IntArrayRef stride,
                       at::IntArrayRef padding, at::IntArrayRef dilation) {
  Window2d g{};
  g.kh = weight4.size(2);
  g.kw = weight4.size(3);
  g.sh = pick(stride, 0, 1);
  g.sw = stride.size() > 1 ? stride[1] : 1;
  g.ph = pick(padding, 0, 0);
  g.pw = padding.size() > 1 ? padding[1] : 0;
  g.dh = pick(dilation, 0, 1);
  g.dw = dilation.size() > 1 ? dilation[1] : 1;
  g.h = input4.size(2);
  g.w = input4.size(3);
  g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  TORCH_CHECK(g.oh > 0 && g.ow > 0, "devplug: convolution output size is too small: (", g.oh, ", ", g.ow, ")");
  return g;
}

// A 1-d convolution runs as a 2-d one of height 1.
at::Tensor as_2d(const at::Tensor& t) { return t.dim() == 3 ? t.unsqueeze(2) : t; }
std::vector<int64_t> as_2d(at::IntArrayRef v, int64_t fill) {
  if (v.size() == 1) return {fill, v[0]};
  return v.vec();
}

// The CPU route for what the window code does not cover (transposed, 3-d).
at::Tensor convolution_on_cpu(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                              at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                              at::IntArrayRef output_padding, int64_t groups) {
  note_fallback("aten::convolution_overrideable (transposed or 3-d)");
  std::optional<at::Tensor> cpu_bias;
  if (bias.has_value() && bias->defined()) cpu_bias = bias->cpu();
  at::Tensor out = at::convolution(input.cpu(), weight.cpu(), cpu_bias, stride, padding, dilation, transposed,
                                   output_padding, groups);
  return out.to(input.device());
}

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                       at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                       at::IntArrayRef output_padding, int64_t groups) {
  if (transposed || (input.dim() != 3 && input.dim() != 4))
    return convolution_on_cpu(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  TORCH_CHECK(c10::isFloatingType(input.scalar_type()), "devplug: convolution needs floating point input");
  TORCH_CHECK(input.scalar_type() == weight.scalar_type(), "Input type (", input.scalar_type(),
              ") and weight type (", weight.scalar_type(), ") should be the same");
  const bool one_d = input.dim() == 3;
  const at::Tensor x4 = as_2d(input), w4 = as_2d(weight);
  const Window2d g = conv_geometry(x4, w4, one_d ? as_2d(stride, 1) : stride.vec(),
                                   one_d ? as_2d(padding, 0) : padding.vec(), one_d ? as_2d(dilation, 1) : dilation.vec());
  const int64_t n = x4.size(0), c = x4.size(1), o = w4.size(0);
  TORCH_CHECK(groups > 0 && c % groups == 0 && o % groups == 0 && w4.size(1) == c / groups, "devplug: convolution of ",
              c, " input channels with weight ", weight.sizes(), " and ", groups, " groups does not fit");
  Dev dev = Dev::of({&input, &weight});
  at::Tensor out4 = empty_torch(dev, {n, o, g.oh, g.ow}, input.scalar_type());
  if (out4.numel() > 0) {
    const int64_t k = (c / groups) * g.kh * g.kw, l = g.oh * g.ow;
    DTensor xp = pad_for_windows(dev, view_of(x4), g, 0);
    DTensor cols = dev.contiguous(windows(xp, g, true)).reshape({n, groups, k, l});
    DTensor wm = dev.contiguous(view_of(w4)).reshape({groups, o / groups, k});
    DTensor y = dev.matmul(wm.expand({n, groups, o / groups, k}), cols).reshape({n, o, g.oh, g.ow});
    if (bias.has_value() && bias->defined()) y = dev.ew(DEVPLUG_OP_add, {y, dev.operand(*bias).reshape({1, o, 1, 1})});
    dev.copy(y, view_of(out4));
  }
  return one_d ? out4.squeeze(2) : out4;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight, at::IntArrayRef stride,
    at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed, at::IntArrayRef output_padding, int64_t groups,
    std::array<bool, 3> output_mask) {
  if (transposed || (input.dim() != 3 && input.dim() != 4)) {
    note_fallback("aten::convolution_backward_overrideable (transposed or 3-d)");
    auto [gi, gw, gb] = at::convolution_backward(grad_output.cpu(), input.cpu(), weight.cpu(), std::nullopt, stride,
                                                 padding, dilation, transposed, output_padding, groups, output_mask);
    auto back = [&](const at::Tensor& t) { return t.defined() ? t.to(input.device()) : t; };
    return {back(gi), back(gw), back(gb)};
  }
  const bool one_d = input.dim() == 3;
  const at::Tensor x4 = as_2d(input), w4 = as_2d(weight), g4 = as_2d(grad_output);
  const Window2d g = conv_geometry(x4, w4, one_d ? as_2d(stride, 1) : stride.vec(),
                                   one_d ? as_2d(padding, 0) : padding.vec(), one_d ? as_2d(dilation, 1) : dilation.vec());
  const int64_t n = x4.size(0), c = x4.size(1), o = w4.size(0);
  const int64_t cg = c / groups, og = o / groups, k = cg * g.kh * g.kw, l = g.oh * g.ow;
  Dev dev = Dev::of({&grad_output, &input, &weight});
  DTensor go = dev.contiguous(view_of(g4)).reshape({n, groups, og, l});
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = at::empty_like(input, at::MemoryFormat::Contiguous);
    if (grad_input.numel() > 0) {
      DTensor wm = dev.contiguous(view_of(w4)).reshape({groups, og, k}).transpose(1, 2);  // [g, k, og]
      DTensor gcols = dev.matmul(wm.expand({n, groups, k, og}), go).reshape({n, c, g.kh, g.kw, g.oh, g.ow});
      DTensor gx = col2im(dev, gcols, g, n, c);
      dev.copy(gx, view_of(as_2d(grad_input)));
    }
  }
  if (output_mask[1]) {
    grad_weight = at::empty_like(weight, at::MemoryFormat::Contiguous);
    if (grad_weight.numel() > 0) {
      DTensor xp = pad_for_windows(dev, view_of(x4), g, 0);
      DTensor cols = dev.contiguous(windows(xp, g, true)).reshape({n, groups, k, l});
      DTensor per_sample = dev.matmul(go, cols.transpose(2, 3));  // [n, g, og, k]
      DTensor gw = dev.reduce(DEVPLUG_OP_sum, per_sample, 1u).reshape(w4.sizes().vec());
      dev.copy(gw, view_of(as_2d(grad_weight)));
    }
  }
  if (output_mask[2]) {
    grad_bias = empty_torch(dev, {o}, grad_output.scalar_type());
    DTensor gb = dev.reduce(DEVPLUG_OP_sum, view_of(g4), 0b1101u).reshape({o});
    dev.copy(gb, view_of(grad_bias));
  }
  return {grad_input, grad_weight, grad_bias};
}

// ---- pooling ----------------------------------------------------------------------------------

Window2d pool_geometry(const at::Tensor& input, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                       at::IntArrayRef dilation, bool ceil_mode, const char* what) {
  TORCH_CHECK(input.dim() == 3 || input.dim() == 4, what, ": expected a 3-d or 4-d input, got ", input.dim(), "-d");
  TORCH_CHECK(kernel.size() == 1 || kernel.size() == 2, what, ": kernel_size must be one int or two");
  Window2d g{};
  g.kh = kernel[0];
  g.kw = kernel.size() == 1 ? g.kh : kernel[1];
  g.sh = stride.empty() ? g.kh : stride[0];
  g.sw = stride.empty() ? g.kw : (stride.size() == 1 ? g.sh : stride[1]);
  g.ph = padding[0];
  g.pw = padding.size() == 1 ? g.ph : padding[1];
  g.dh = dilation.empty() ? 1 : dilation[0];
  g.dw = dilation.size() < 2 ? g.dh : dilation[1];
  TORCH_CHECK(g.ph <= g.kh / 2 && g.pw <= g.kw / 2, what, ": pad should be at most half of effective kernel size");
  g.h = input.size(-2);
  g.w = input.size(-1);
  g.oh = at::native::pooling_output_shape<int64_t>(g.h, g.kh, g.ph, g.sh, g.dh, ceil_mode);
  g.ow = at::native::pooling_output_shape<int64_t>(g.w, g.kw, g.pw, g.sw, g.dw, ceil_mode);
  TORCH_CHECK(g.oh > 0 && g.ow > 0, what, ": output size is too small");
  return g;
}

at::Tensor as_4d(const at::Tensor& t) { return t.dim() == 3 ? t.unsqueeze(0) : t; }

std::tuple<at::Tensor, at::Tensor> max_pool2d_with_indices(const at::Tensor& self, at::IntArrayRef kernel,
                                                           at::IntArrayRef stride, at::IntArrayRef padding,
                                                           at::IntArrayRef dilation, bool ceil_mode) {
  const Window2d g = pool_geometry(self, kernel, stride, padding, dilation, ceil_mode, "max_pool2d");
  Dev dev = Dev::of(self);
  const at::Tensor x4 = as_4d(self);
  const int64_t n = x4.size(0), c = x4.size(1);
  at::Tensor out = empty_torch(dev, {n, c, g.oh, g.ow}, self.scalar_type());
  at::Tensor indices = empty_torch(dev, {n, c, g.oh, g.ow}, at::kLong);
  if (out.numel() > 0) {
    const c10::Scalar lowest = c10::isFloatingType(self.scalar_type())
                                   ? c10::Scalar(-std::numeric_limits<double>::infinity())
                                   : c10::Scalar(std::numeric_limits<int64_t>::min());
    DTensor xp = pad_for_windows(dev, view_of(x4), g, lowest);
    DTensor win = windows(xp, g, false);  // [n, c, oh, ow, kh, kw]
    const uint32_t window = (1u << 4) | (1u << 5);
    dev.copy(dev.reduce(DEVPLUG_OP_amax, win, window).reshape({n, c, g.oh, g.ow}), view_of(out));
    // The window's row-major argmax k -> the input's flat index h * W + w.
    DTensor k = dev.reduce(DEVPLUG_OP_argmax, win, window).reshape({n, c, g.oh, g.ow});
    auto i64 = [&](int64_t v) { return dev.scalar(DEVPLUG_DTYPE_INT64, v); };
    DTensor ki = dev.ew(DEVPLUG_OP_div, {k, i64(g.kw)});
    DTensor kj = dev.ew(DEVPLUG_OP_remainder, {k, i64(g.kw)});
    DTensor oh = dev.iota(DEVPLUG_DTYPE_INT64, {g.oh, 1}, 0, g.sh);
    DTensor ow = dev.iota(DEVPLUG_DTYPE_INT64, {1, g.ow}, 0, g.sw);
    DTensor h = dev.ew(DEVPLUG_OP_add, {dev.ew(DEVPLUG_OP_sub, {oh, i64(g.ph)}), dev.ew(DEVPLUG_OP_mul, {ki, i64(g.dh)})});
    DTensor w = dev.ew(DEVPLUG_OP_add, {dev.ew(DEVPLUG_OP_sub, {ow, i64(g.pw)}), dev.ew(DEVPLUG_OP_mul, {kj, i64(g.dw)})});
    dev.ew_into(DEVPLUG_OP_add, {dev.ew(DEVPLUG_OP_mul, {h, i64(g.w)}), w}, view_of(indices));
  }
  if (self.dim() == 3) return {out.squeeze(0), indices.squeeze(0)};
  return {out, indices};
}

// Every output's gradient goes to the input element its index names (scatter_add).
at::Tensor max_pool2d_with_indices_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                            at::IntArrayRef /*kernel*/, at::IntArrayRef /*stride*/,
                                            at::IntArrayRef /*padding*/, at::IntArrayRef /*dilation*/,
                                            bool /*ceil_mode*/, const at::Tensor& indices) {
  Dev dev = Dev::of({&grad_output, &self, &indices});
  const at::Tensor x4 = as_4d(self), g4 = as_4d(grad_output), i4 = as_4d(indices);
  const int64_t n = x4.size(0), c = x4.size(1), hw = x4.size(2) * x4.size(3), l = g4.size(2) * g4.size(3);
  at::Tensor grad_input = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (grad_input.numel() == 0) return grad_input;
  DTensor zeros = dev.full(view_of(g4).dtype(), {n, c, hw}, 0);
  devplug_dim_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.dim = 2;
  DTensor target = view_of(as_4d(grad_input)).reshape({n, c, hw});
  if (l > 0) {
    dev.call(DEVPLUG_OP_scatter_add,
             {zeros, dev.contiguous(view_of(i4)).reshape({n, c, l}), dev.contiguous(view_of(g4)).reshape({n, c, l})},
             {target}, &attrs);
  } else {
    dev.copy(zeros, target);
  }
  return grad_input;
}

// The divisor of each avg_pool2d output position [oh, ow], as torch counts it.
at::Tensor avg_divisors(const Window2d& g, bool count_include_pad, std::optional<int64_t> divisor_override) {
  at::Tensor d = at::empty({g.oh, g.ow}, at::TensorOptions().dtype(at::kDouble));
  double* p = d.data_ptr<double>();
  for (int64_t i = 0; i < g.oh; ++i) {
    for (int64_t j = 0; j < g.ow; ++j) {
      if (divisor_override.has_value()) {
        p[i * g.ow + j] = static_cast<double>(*divisor_override);
        continue;
      }
      int64_t h0 = i * g.sh - g.ph, w0 = j * g.sw - g.pw;
      int64_t h1 = std::min(h0 + g.kh, g.h + g.ph), w1 = std::min(w0 + g.kw, g.w + g.pw);
      const int64_t padded = (h1 - h0) * (w1 - w0);
      h0 = std::max<int64_t>(h0, 0);
      w0 = std::max<int64_t>(w0, 0);
      h1 = std::min(h1, g.h);
      w1 = std::min(w1, g.w);
      p[i * g.ow + j] = static_cast<double>(count_include_pad ? padded : (h1 - h0) * (w1 - w0));
    }
  }
  return d;
}

DTensor upload_divisors(const Dev& dev, const at::Tensor& host, devplug_dtype_t dtype) {
  DTensor d = dev.empty(DEVPLUG_DTYPE_FLOAT64, host.sizes().vec());
  d.copy_from_host(host.const_data_ptr(), host.nbytes(), &dev.stream());
  return dev.cast(d, dtype);
}

at::Tensor avg_pool2d_fn(const at::Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                      bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  TORCH_CHECK(!divisor_override.has_value() || *divisor_override != 0, "divisor must be not zero");
  const Window2d g = pool_geometry(self, kernel, stride, padding, {}, ceil_mode, "avg_pool2d");
  Dev dev = Dev::of(self);
  const at::Tensor x4 = as_4d(self);
  const int64_t n = x4.size(0), c = x4.size(1);
  at::Tensor out = empty_torch(dev, {n, c, g.oh, g.ow}, self.scalar_type());
  if (out.numel() > 0) {
    DTensor xp = pad_for_windows(dev, view_of(x4), g, 0);
    const devplug_dtype_t dtype = xp.dtype();
    DTensor sums = dev.reduce(DEVPLUG_OP_sum, windows(xp, g, false), (1u << 4) | (1u << 5)).reshape({n, c, g.oh, g.ow});
    DTensor divisors = upload_divisors(dev, avg_divisors(g, count_include_pad, divisor_override), dtype);
    dev.ew_into(DEVPLUG_OP_div, {sums, divisors}, view_of(out));
  }
  return self.dim() == 3 ? out.squeeze(0) : out;
}

at::Tensor avg_pool2d_backward_fn(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef kernel,
                               at::IntArrayRef stride, at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                               std::optional<int64_t> divisor_override) {
  const Window2d g = pool_geometry(self, kernel, stride, padding, {}, ceil_mode, "avg_pool2d_backward");
  Dev dev = Dev::of({&grad_output, &self});
  const at::Tensor x4 = as_4d(self), g4 = as_4d(grad_output);
  const int64_t n = x4.size(0), c = x4.size(1);
  at::Tensor grad_input = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (grad_input.numel() == 0) return grad_input;
  DTensor go = view_of(g4);
  DTensor divisors = upload_divisors(dev, avg_divisors(g, count_include_pad, divisor_override), go.dtype());
  DTensor share = dev.ew(DEVPLUG_OP_div, {go, divisors});  // [n, c, oh, ow]
  DTensor cols = share.unsqueeze(2).unsqueeze(3).expand({n, c, g.kh, g.kw, g.oh, g.ow});
  dev.copy(col2im(dev, cols, g, n, c), view_of(as_4d(grad_input)));
  return grad_input;
}

// Adaptive average pooling whose output divides the input evenly is avg_pool2d with
// kernel = stride = input / output; any other size runs on the CPU (counted).
at::Tensor adaptive_avg_pool2d(const at::Tensor& self, at::IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  const int64_t h = self.size(-2), w = self.size(-1);
  if (output_size[0] > 0 && output_size[1] > 0 && h % output_size[0] == 0 && w % output_size[1] == 0) {
    const int64_t kh = h / output_size[0], kw = w / output_size[1];
    return avg_pool2d_fn(self, {kh, kw}, {kh, kw}, {0, 0}, false, true, std::nullopt);
  }
  note_fallback("aten::_adaptive_avg_pool2d (uneven windows)");
  return at::_adaptive_avg_pool2d(self.cpu(), output_size).to(self.device());
}

at::Tensor adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  const int64_t h = self.size(-2), w = self.size(-1), oh = grad_output.size(-2), ow = grad_output.size(-1);
  if (h % oh == 0 && w % ow == 0) {
    const int64_t kh = h / oh, kw = w / ow;
    return avg_pool2d_backward_fn(grad_output, self, {kh, kw}, {kh, kw}, {0, 0}, false, true, std::nullopt);
  }
  note_fallback("aten::_adaptive_avg_pool2d_backward (uneven windows)");
  return at::_adaptive_avg_pool2d_backward(grad_output.cpu(), self.cpu()).to(self.device());
}

}  // namespace

void register_conv_ops(Table& t) {
  t.add("convolution_overrideable", Impl::bridge, "constant_pad, copy_strided (im2col), matmul, add",
        DEVPLUG_KERNEL(convolution));
  t.add("convolution_backward_overrideable", Impl::bridge, "matmul, add (col2im), sum",
        DEVPLUG_KERNEL(convolution_backward));
  t.add("max_pool2d_with_indices", Impl::bridge, "constant_pad, amax, argmax, iota, div, remainder, mul, add",
        DEVPLUG_KERNEL(max_pool2d_with_indices));
  t.add("max_pool2d_with_indices_backward", Impl::bridge, "fill, scatter_add",
        DEVPLUG_KERNEL(max_pool2d_with_indices_backward));
  t.add("avg_pool2d", Impl::bridge, "constant_pad, sum, div", DEVPLUG_KERNEL(avg_pool2d_fn));
  t.add("avg_pool2d_backward", Impl::bridge, "div, add (col2im)", DEVPLUG_KERNEL(avg_pool2d_backward_fn));
  t.add("_adaptive_avg_pool2d", Impl::bridge, "constant_pad, sum, div", DEVPLUG_KERNEL(adaptive_avg_pool2d));
  t.add("_adaptive_avg_pool2d_backward", Impl::bridge, "div, add (col2im)", DEVPLUG_KERNEL(adaptive_avg_pool2d_backward));
}

}  // namespace devplug::bridge
