// SPDX-License-Identifier: Apache-2.0
// Decompositions of conv2d (im2col) and the 2-D pools, and their backward ops. Windows are
// strided views of a padded copy of the input (overlapping strides, which prims accept as
// inputs); the backward ops add each kernel offset's contribution into a strided view of a
// padded gradient, in place, and crop the padding at the end.
#include "common.hpp"

namespace devplug::detail::composite {
namespace {

// Geometry of a 2-D window op over a padded [N, C, Hp, Wp] buffer.
struct Windows {
  int64_t N, C, H, W;      // input
  int64_t Ho, Wo;          // output
  int64_t kh, kw;          // kernel
  int64_t sh, sw, dh, dw;  // stride, dilation
  int64_t ph, pw;          // padding before
  int64_t Hp, Wp;          // padded size, including the ceil_mode overhang
};

Windows windows(const Tensor& x, const Shape& out, const int64_t* kernel, const int64_t* stride,
                const int64_t* padding, const int64_t* dilation) {
  Windows g{};
  g.N = x->layout.shape[0];
  g.C = x->layout.shape[1];
  g.H = x->layout.shape[2];
  g.W = x->layout.shape[3];
  g.Ho = out[2];
  g.Wo = out[3];
  g.kh = kernel[0];
  g.kw = kernel[1];
  g.sh = stride[0];
  g.sw = stride[1];
  g.dh = dilation[0];
  g.dw = dilation[1];
  g.ph = padding[0];
  g.pw = padding[1];
  // Enough room for every window (ceil_mode's last window may pass the right padding).
  g.Hp = std::max(g.H + 2 * g.ph, (g.Ho - 1) * g.sh + (g.kh - 1) * g.dh + 1);
  g.Wp = std::max(g.W + 2 * g.pw, (g.Wo - 1) * g.sw + (g.kw - 1) * g.dw + 1);
  return g;
}

// `x` [N, C, H, W] padded with `value` to [N, C, Hp, Wp].
Tensor padded(Prims& p, const Tensor& x, const Windows& g, double value) {
  return p.pad(x, {0, 0, g.ph, g.pw}, {0, 0, g.Hp - g.H - g.ph, g.Wp - g.W - g.pw}, value);
}

// The windows of a contiguous padded [N, C, Hp, Wp] tensor as [N, C, Ho, Wo, kh, kw];
// `reversed` walks each window backwards (for the last NaN).
Tensor window_view(Prims& p, const Tensor& xp, const Windows& g, bool reversed = false) {
  const int64_t plane = g.Hp * g.Wp;
  const int64_t base = xp->layout.offset + (reversed ? (g.kh - 1) * g.dh * g.Wp + (g.kw - 1) * g.dw : 0);
  const int64_t s = reversed ? -1 : 1;
  return p.as_strided(xp, {xp->layout.shape[0], g.C, g.Ho, g.Wo, g.kh, g.kw},
                      {g.C * plane, plane, g.sh * g.Wp, g.sw, s * g.dh * g.Wp, s * g.dw}, base);
}

// The view of a padded [N, C, Hp, Wp] tensor that kernel offset (i, j) of every window
// reaches, as [N, C, Ho, Wo].
Tensor offset_view(Prims& p, const Tensor& xp, const Windows& g, int64_t i, int64_t j) {
  const int64_t plane = g.Hp * g.Wp;
  return p.as_strided(xp, {g.N, g.C, g.Ho, g.Wo}, {g.C * plane, plane, g.sh * g.Wp, g.sw},
                      xp->layout.offset + i * g.dh * g.Wp + j * g.dw);
}

// The [N, C, H, W] inside of a padded gradient.
Tensor cropped(Prims& p, const Tensor& gp, const Windows& g) {
  return p.slice(p.slice(gp, 2, g.ph, g.ph + g.H), 3, g.pw, g.pw + g.W);
}

// Sums over the window dims of a [.., Ho, Wo, kh, kw] view, as [.., Ho, Wo].
Tensor window_reduce(Prims& p, devplug_op_t op, const Tensor& win) {
  const int32_t r = win->layout.rank;
  Shape shape = shape_of(*win);
  shape.resize(shape.size() - 2);
  return p.reshape(p.reduce(op, win, (1u << (r - 1)) | (1u << (r - 2))), shape);
}

// avg_pool2d's divisor of every window, [Ho, Wo] (or a 0-d divisor_override).
Tensor pool_divisor(Prims& p, const devplug_pool2d_attrs_t& a, const Windows& g, devplug_dtype_t d) {
  if (a.divisor_override > 0) return p.scalar(d, static_cast<double>(a.divisor_override));
  // Ones where a window element counts: the input, and with count_include_pad the padding
  // too (but never ceil_mode's overhang past it).
  Tensor counted = p.full(d, {1, 1, g.H, g.W}, 1.0);
  Windows one = g;
  one.N = 1;
  one.C = 1;
  if (a.flags & DEVPLUG_POOL_COUNT_INCLUDE_PAD) {
    counted = p.pad(counted, {0, 0, g.ph, g.pw}, {0, 0, g.ph, g.pw}, 1.0);
    counted = p.pad(counted, {0, 0, 0, 0}, {0, 0, g.Hp - g.H - 2 * g.ph, g.Wp - g.W - 2 * g.pw}, 0.0);
  } else {
    counted = padded(p, counted, one, 0.0);
  }
  return p.reshape(window_reduce(p, DEVPLUG_OP_sum, window_view(p, counted, one)), {g.Ho, g.Wo});
}

// Window-order index r (row-major over kh x kw) to the flat input index h * W + w.
Tensor flat_index(Prims& p, const Tensor& r, const Windows& g, bool reversed) {
  const devplug_dtype_t i64 = DEVPLUG_DTYPE_INT64;
  Tensor ki = p.binary(DEVPLUG_OP_div, r, p.scalar(i64, static_cast<double>(g.kw)));
  Tensor kj =
      p.binary(DEVPLUG_OP_sub, r, p.binary(DEVPLUG_OP_mul, ki, p.scalar(i64, static_cast<double>(g.kw))));
  if (reversed) {
    ki = p.binary(DEVPLUG_OP_sub, p.scalar(i64, static_cast<double>(g.kh - 1)), ki);
    kj = p.binary(DEVPLUG_OP_sub, p.scalar(i64, static_cast<double>(g.kw - 1)), kj);
  }
  const Tensor oh = p.reshape(p.arange(i64, g.Ho), {g.Ho, 1});
  const Tensor ow = p.reshape(p.arange(i64, g.Wo), {1, g.Wo});
  auto affine = [&](const Tensor& o, int64_t s, const Tensor& k, int64_t dil, int64_t pad) {
    const Tensor at =
        p.binary(DEVPLUG_OP_add, p.binary(DEVPLUG_OP_mul, o, p.scalar(i64, static_cast<double>(s))),
                 p.binary(DEVPLUG_OP_mul, k, p.scalar(i64, static_cast<double>(dil))));
    return p.binary(DEVPLUG_OP_sub, at, p.scalar(i64, static_cast<double>(pad)));
  };
  const Tensor h = affine(oh, g.sh, ki, g.dh, g.ph), w = affine(ow, g.sw, kj, g.dw, g.pw);
  return p.binary(DEVPLUG_OP_add, p.binary(DEVPLUG_OP_mul, h, p.scalar(i64, static_cast<double>(g.W))), w);
}

// im2col columns of `x` for conv2d: [N, groups, C/groups * kh * kw, Ho * Wo].
Tensor columns(Prims& p, const Tensor& x, const Windows& g, int64_t groups) {
  const Tensor win = window_view(p, padded(p, x, g, 0.0), g);            // [N, C, Ho, Wo, kh, kw]
  const Tensor cols = p.contiguous(p.permute(win, {0, 1, 4, 5, 2, 3}));  // [N, C, kh, kw, Ho, Wo]
  return p.reshape(cols, {g.N, groups, g.C / groups * g.kh * g.kw, g.Ho * g.Wo});
}

Windows conv_windows(const Tensor& x, const Tensor& w, const Shape& out, const devplug_conv2d_attrs_t& a) {
  const int64_t kernel[2] = {w->layout.shape[2], w->layout.shape[3]};
  return windows(x, out, kernel, a.stride, a.padding, a.dilation);
}

}  // namespace

// out[n, g] = weight[g] (as [O/g, C/g kh kw]) x columns[n, g] (+ bias).
void decompose_conv2d(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_conv2d_attrs_t>();
  const Tensor x = input_c(p, c, 0), w = input_c(p, c, 1), b = input_c(p, c, 2);
  const Shape out = shape_of(*output(c, 0));
  if (numel(out) == 0) return;
  const Windows g = conv_windows(x, w, out, a);
  const int64_t O = out[1], K = g.C / a.groups * g.kh * g.kw;
  const Tensor wg = p.reshape(w, {a.groups, O / a.groups, K});
  const Tensor y = p.reshape(p.matmul(wg, columns(p, x, g, a.groups)), out);
  if (b != nullptr)
    finish(p, c, 0, DEVPLUG_OP_add, {y, p.reshape(b, {O, 1, 1})});
  else
    store(p, c, 0, y);
}

// grad_bias = sum(grad); grad_weight = sum over n of grad[n, g] x columns[n, g]^T;
// grad_input: weight^T x grad gives each kernel offset's columns, added back (col2im).
void decompose_conv2d_backward(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_conv2d_attrs_t>();
  const Tensor gr = input_c(p, c, 0), x = input_c(p, c, 1), w = input_c(p, c, 2);
  const Shape out = shape_of(*gr);
  const int64_t O = out[1];
  if (wants(c, 2)) store(p, c, 2, p.reshape(p.reduce(DEVPLUG_OP_sum, gr, 0xdu), {O}));
  const Windows g = conv_windows(x, w, out, a);
  const int64_t Og = O / a.groups, Cg = g.C / a.groups, K = Cg * g.kh * g.kw;
  const Tensor grad = p.reshape(gr, {g.N, a.groups, Og, g.Ho * g.Wo});
  if (wants(c, 1)) {
    const Tensor cols = columns(p, x, g, a.groups);
    const Tensor per_n = p.matmul(grad, p.transpose(cols, 2, 3));  // [N, groups, Og, K]
    store(p, c, 1, p.reshape(p.reduce(DEVPLUG_OP_sum, per_n, 1u), shape_of(*w)));
  }
  if (!wants(c, 0)) return;
  const Tensor wt = p.transpose(p.reshape(w, {a.groups, Og, K}), 1, 2);  // [groups, K, Og]
  const Tensor col_grad = p.reshape(p.matmul(wt, grad), {g.N, g.C, g.kh, g.kw, g.Ho, g.Wo});
  const Tensor gp = p.full(gr->layout.dtype, {g.N, g.C, g.Hp, g.Wp}, 0.0);
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      const Tensor part = p.squeeze(p.squeeze(p.slice(p.slice(col_grad, 2, i, i + 1), 3, j, j + 1), 3), 2);
      const Tensor target = offset_view(p, gp, g, i, j);
      p.map_into(target, DEVPLUG_OP_add, {target, part});
    }
  store(p, c, 0, cropped(p, gp, g));
}

// The sum of each zero-padded window divided by pool_divisor.
void decompose_avg_pool2d(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_pool2d_attrs_t>();
  const Tensor x = input_c(p, c, 0);
  const Shape out = shape_of(*output(c, 0));
  if (numel(out) == 0) return;
  const Windows g = windows(x, out, a.kernel, a.stride, a.padding, a.dilation);
  const Tensor sums = window_reduce(p, DEVPLUG_OP_sum, window_view(p, padded(p, x, g, 0.0), g));
  finish(p, c, 0, DEVPLUG_OP_div, {sums, pool_divisor(p, a, g, sums->layout.dtype)});
}

// Each window's grad / divisor added to every element of the window.
void decompose_avg_pool2d_backward(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_pool2d_attrs_t>();
  const Tensor gr = input_c(p, c, 0), x = input(c, 1);
  const Windows g = windows(x, shape_of(*gr), a.kernel, a.stride, a.padding, a.dilation);
  const devplug_dtype_t d = gr->layout.dtype;
  const Tensor gp = p.full(d, {g.N, g.C, g.Hp, g.Wp}, 0.0);
  if (numel(shape_of(*gr)) > 0) {
    const Tensor share = p.binary(DEVPLUG_OP_div, gr, pool_divisor(p, a, g, d));
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const Tensor target = offset_view(p, gp, g, i, j);
        p.map_into(target, DEVPLUG_OP_add, {target, share});
      }
  }
  store(p, c, 0, cropped(p, gp, g));
}

// amax and argmax over windows of the input padded with -Inf. The index is the first
// maximum, the last NaN where the maximum is NaN (argmax over the reversed window), and the
// first position inside the input where every element is -Inf (as PyTorch).
void decompose_max_pool2d(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_pool2d_attrs_t>();
  const Tensor x = input(c, 0);
  const Shape out = shape_of(*output(c, 0));
  if (numel(out) == 0) return;
  const Windows g = windows(x, out, a.kernel, a.stride, a.padding, a.dilation);
  const Tensor xp = padded(p, x, g, -INFINITY);
  const Tensor win = window_view(p, xp, g);
  const Tensor vals = window_reduce(p, DEVPLUG_OP_amax, win);
  p.copy_into(output(c, 0), vals);
  if (!wants(c, 1)) return;
  Tensor index = flat_index(p, window_reduce(p, DEVPLUG_OP_argmax, win), g, false);
  const Tensor last =
      flat_index(p, window_reduce(p, DEVPLUG_OP_argmax, window_view(p, xp, g, true)), g, true);
  index = p.where(p.unary(DEVPLUG_OP_isnan, vals), last, index);
  // Windows with nothing above -Inf: the first position inside the input.
  Windows one = g;
  one.N = 1;
  one.C = 1;
  const Tensor inside = padded(p, p.full(x->layout.dtype, {1, 1, g.H, g.W}, 1.0), one, 0.0);
  const Tensor first =
      flat_index(p, window_reduce(p, DEVPLUG_OP_argmax, window_view(p, inside, one)), g, false);
  const Tensor all_low = p.binary(DEVPLUG_OP_eq, vals, -INFINITY);
  p.map_into(output(c, 1), DEVPLUG_OP_where, {all_low, p.reshape(first, {g.Ho, g.Wo}), index});
}

// grad scatter-added into a zero [N, C, H * W] at the saved indices.
void decompose_max_pool2d_backward(Prims& p, const Call& c) {
  const Tensor gr = input_c(p, c, 0), x = input(c, 1), idx = input(c, 2);
  const int64_t N = x->layout.shape[0], C = x->layout.shape[1], HW = x->layout.shape[2] * x->layout.shape[3];
  const int64_t L = gr->layout.shape[2] * gr->layout.shape[3];
  const Tensor zeros = p.full(gr->layout.dtype, {N, C, HW}, 0.0);
  const Tensor sum = p.scatter_add(zeros, 2, p.reshape(idx, {N, C, L}), p.reshape(gr, {N, C, L}));
  store(p, c, 0, p.reshape(sum, shape_of(*x)));
}

}  // namespace devplug::detail::composite
