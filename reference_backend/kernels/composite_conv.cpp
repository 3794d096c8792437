// SPDX-License-Identifier: Apache-2.0
// Reference kernels of conv2d, avg_pool2d, max_pool2d and their backward ops: the direct
// loops over every output position and window element (PyTorch's CPU algorithms for the
// pools, including their divisor, NaN and all -Inf rules), on dense [N, C, H, W] copies in
// the wide type.
#include "composite_common.hpp"
#include "kernels.hpp"

namespace devplug::reference {
namespace {

using namespace composite;

struct Image {
  int64_t N, C, H, W;
};

Image image_of(const devplug_tensor_desc_t& t) {
  return Image{t.shape[0], t.shape[1], t.shape[2], t.shape[3]};
}

size_t at(const Image& s, int64_t n, int64_t c, int64_t h, int64_t w) {
  return static_cast<size_t>(((n * s.C + c) * s.H + h) * s.W + w);
}

// ---- conv2d ------------------------------------------------------------------------------

// Calls f(n, o, oh, ow, ci, i, j, h, w) for every product term of conv2d whose input
// position (h, w) lies inside the input (zero padding adds nothing).
template <typename F>
void for_each_term(const Image& x, const devplug_tensor_desc_t& weight, const Image& y,
                   const devplug_conv2d_attrs_t& a, F&& f) {
  const int64_t O = weight.shape[0], Cg = weight.shape[1], kh = weight.shape[2], kw = weight.shape[3];
  const int64_t Og = O / a.groups;
  for (int64_t n = 0; n < x.N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < y.H; ++oh)
        for (int64_t ow = 0; ow < y.W; ++ow)
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t h = oh * a.stride[0] - a.padding[0] + i * a.dilation[0];
                const int64_t w = ow * a.stride[1] - a.padding[1] + j * a.dilation[1];
                if (h < 0 || h >= x.H || w < 0 || w >= x.W) continue;
                f(n, o, oh, ow, (o / Og) * Cg + c, c, i, j, h, w);
              }
}

size_t weight_at(const devplug_tensor_desc_t& wt, int64_t o, int64_t c, int64_t i, int64_t j) {
  return static_cast<size_t>(((o * wt.shape[1] + c) * wt.shape[2] + i) * wt.shape[3] + j);
}

template <typename W>
void conv2d(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_conv2d_attrs_t>(c);
  const Image xs = image_of(*c.inputs[0]), ys = image_of(*c.outputs[0]);
  const std::vector<W> x = load<W>(c.inputs[0]), w = load<W>(c.inputs[1]), b = load<W>(c.inputs[2]);
  std::vector<W> y(static_cast<size_t>(ys.N * ys.C * ys.H * ys.W), W(0));
  for (int64_t n = 0; n < ys.N; ++n)
    for (int64_t o = 0; o < ys.C; ++o)
      for (int64_t oh = 0; oh < ys.H; ++oh)
        for (int64_t ow = 0; ow < ys.W; ++ow)
          y[at(ys, n, o, oh, ow)] = b.empty() ? W(0) : b[static_cast<size_t>(o)];
  for_each_term(xs, *c.inputs[1], ys, a,
                [&](int64_t n, int64_t o, int64_t oh, int64_t ow, int64_t ci, int64_t cg, int64_t i,
                    int64_t j, int64_t h, int64_t wpos) {
                  y[at(ys, n, o, oh, ow)] +=
                      x[at(xs, n, ci, h, wpos)] * w[weight_at(*c.inputs[1], o, cg, i, j)];
                });
  store(c.outputs[0], y);
}

template <typename W>
void conv2d_backward(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_conv2d_attrs_t>(c);
  const Image ys = image_of(*c.inputs[0]), xs = image_of(*c.inputs[1]);
  const devplug_tensor_desc_t& wt = *c.inputs[2];
  const std::vector<W> g = load<W>(c.inputs[0]), x = load<W>(c.inputs[1]), w = load<W>(c.inputs[2]);
  std::vector<W> gi(x.size(), W(0)), gw(w.size(), W(0)), gb(static_cast<size_t>(ys.C), W(0));
  for_each_term(xs, wt, ys, a,
                [&](int64_t n, int64_t o, int64_t oh, int64_t ow, int64_t ci, int64_t cg, int64_t i,
                    int64_t j, int64_t h, int64_t wpos) {
                  const W go = g[at(ys, n, o, oh, ow)];
                  gi[at(xs, n, ci, h, wpos)] += go * w[weight_at(wt, o, cg, i, j)];
                  gw[weight_at(wt, o, cg, i, j)] += go * x[at(xs, n, ci, h, wpos)];
                });
  for (size_t e = 0; e < g.size(); ++e)
    gb[(e / static_cast<size_t>(ys.H * ys.W)) % static_cast<size_t>(ys.C)] += g[e];
  store(c.outputs[0], gi);
  store(c.outputs[1], gw);
  store(c.outputs[2], gb);
}

// ---- pools (PyTorch's CPU algorithms) ------------------------------------------------------

// One window of a pool: its rows [h0, h1) and columns [w0, w1) inside the input, stepping
// by the dilation, and avg_pool2d's divisor.
struct Window {
  int64_t h0, h1, w0, w1;
  int64_t divisor;
};

Window window_at(const Image& x, const devplug_pool2d_attrs_t& a, int64_t oh, int64_t ow, bool is_max) {
  int64_t hs = oh * a.stride[0] - a.padding[0], ws = ow * a.stride[1] - a.padding[1];
  Window win{};
  if (is_max) {
    win.h1 = std::min(hs + (a.kernel[0] - 1) * a.dilation[0] + 1, x.H);
    win.w1 = std::min(ws + (a.kernel[1] - 1) * a.dilation[1] + 1, x.W);
    while (hs < 0) hs += a.dilation[0];
    while (ws < 0) ws += a.dilation[1];
    win.h0 = hs;
    win.w0 = ws;
    return win;
  }
  int64_t he = std::min(hs + a.kernel[0], x.H + a.padding[0]),
          we = std::min(ws + a.kernel[1], x.W + a.padding[1]);
  const int64_t pool_size = (he - hs) * (we - ws);
  win.h0 = std::max<int64_t>(hs, 0);
  win.w0 = std::max<int64_t>(ws, 0);
  win.h1 = std::min(he, x.H);
  win.w1 = std::min(we, x.W);
  if (a.divisor_override > 0)
    win.divisor = a.divisor_override;
  else if (a.flags & DEVPLUG_POOL_COUNT_INCLUDE_PAD)
    win.divisor = pool_size;
  else
    win.divisor = (win.h1 - win.h0) * (win.w1 - win.w0);
  return win;
}

// Calls f(n, c, oh, ow, window) for every output position.
template <typename F>
void for_each_window(const Image& x, const Image& y, const devplug_pool2d_attrs_t& a, bool is_max, F&& f) {
  for (int64_t n = 0; n < y.N; ++n)
    for (int64_t ch = 0; ch < y.C; ++ch)
      for (int64_t oh = 0; oh < y.H; ++oh)
        for (int64_t ow = 0; ow < y.W; ++ow) f(n, ch, oh, ow, window_at(x, a, oh, ow, is_max));
}

template <typename W>
void avg_pool2d(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_pool2d_attrs_t>(c);
  const Image xs = image_of(*c.inputs[0]), ys = image_of(*c.outputs[0]);
  const std::vector<W> x = load<W>(c.inputs[0]);
  std::vector<W> y(static_cast<size_t>(ys.N * ys.C * ys.H * ys.W));
  for_each_window(xs, ys, a, false, [&](int64_t n, int64_t ch, int64_t oh, int64_t ow, const Window& win) {
    W sum = 0;
    for (int64_t h = win.h0; h < win.h1; ++h)
      for (int64_t w = win.w0; w < win.w1; ++w) sum += x[at(xs, n, ch, h, w)];
    y[at(ys, n, ch, oh, ow)] = sum / static_cast<W>(win.divisor);
  });
  store(c.outputs[0], y);
}

template <typename W>
void avg_pool2d_backward(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_pool2d_attrs_t>(c);
  const Image ys = image_of(*c.inputs[0]), xs = image_of(*c.inputs[1]);
  const std::vector<W> g = load<W>(c.inputs[0]);
  std::vector<W> gi(static_cast<size_t>(xs.N * xs.C * xs.H * xs.W), W(0));
  for_each_window(xs, ys, a, false, [&](int64_t n, int64_t ch, int64_t oh, int64_t ow, const Window& win) {
    const W share = g[at(ys, n, ch, oh, ow)] / static_cast<W>(win.divisor);
    for (int64_t h = win.h0; h < win.h1; ++h)
      for (int64_t w = win.w0; w < win.w1; ++w) gi[at(xs, n, ch, h, w)] += share;
  });
  store(c.outputs[0], gi);
}

// The first maximum, the last NaN, and the first position in the input for a window of
// -Inf: `if (val > max || isnan(val))` from an initial -Inf at the window's first position.
template <typename W>
void max_pool2d(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_pool2d_attrs_t>(c);
  const Image xs = image_of(*c.inputs[0]), ys = image_of(*c.outputs[0]);
  const std::vector<W> x = load<W>(c.inputs[0]);
  const size_t n_out = static_cast<size_t>(ys.N * ys.C * ys.H * ys.W);
  std::vector<W> y(n_out);
  std::vector<int64_t> index(n_out);
  for_each_window(xs, ys, a, true, [&](int64_t n, int64_t ch, int64_t oh, int64_t ow, const Window& win) {
    W best = -INFINITY;
    int64_t best_index = win.h0 * xs.W + win.w0;
    for (int64_t h = win.h0; h < win.h1; h += a.dilation[0])
      for (int64_t w = win.w0; w < win.w1; w += a.dilation[1]) {
        const W v = x[at(xs, n, ch, h, w)];
        if (v > best || std::isnan(v)) {
          best = v;
          best_index = h * xs.W + w;
        }
      }
    y[at(ys, n, ch, oh, ow)] = best;
    index[at(ys, n, ch, oh, ow)] = best_index;
  });
  store(c.outputs[0], y);
  store_integers(c.outputs[1], index);
}

template <typename W>
void max_pool2d_backward(const devplug_op_call_t& c) {
  const Image xs = image_of(*c.inputs[1]);
  const std::vector<W> g = load<W>(c.inputs[0]);
  const std::vector<int64_t> index = load_integers(c.inputs[2]);
  const int64_t plane = xs.H * xs.W;
  const size_t per_plane = g.size() / static_cast<size_t>(std::max<int64_t>(1, xs.N * xs.C));
  std::vector<W> gi(static_cast<size_t>(xs.N * xs.C * plane), W(0));
  for (size_t e = 0; e < g.size(); ++e) {
    const int64_t i = index[e];
    if (i < 0 || i >= plane)
      invalid("max_pool2d_backward: index " + std::to_string(i) + " is outside the input plane");
    gi[(e / per_plane) * static_cast<size_t>(plane) + static_cast<size_t>(i)] += g[e];
  }
  store(c.outputs[0], gi);
}

DEVPLUG_COMPOSITE_KERNEL(conv2d_kernel, conv2d)
DEVPLUG_COMPOSITE_KERNEL(conv2d_backward_kernel, conv2d_backward)
DEVPLUG_COMPOSITE_KERNEL(avg_pool2d_kernel, avg_pool2d)
DEVPLUG_COMPOSITE_KERNEL(avg_pool2d_backward_kernel, avg_pool2d_backward)
DEVPLUG_COMPOSITE_KERNEL(max_pool2d_kernel, max_pool2d)
DEVPLUG_COMPOSITE_KERNEL(max_pool2d_backward_kernel, max_pool2d_backward)

}  // namespace

void register_composite_conv_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_conv2d, &conv2d_kernel);
  add_kernel(table, DEVPLUG_OP_conv2d_backward, &conv2d_backward_kernel);
  add_kernel(table, DEVPLUG_OP_avg_pool2d, &avg_pool2d_kernel);
  add_kernel(table, DEVPLUG_OP_avg_pool2d_backward, &avg_pool2d_backward_kernel);
  add_kernel(table, DEVPLUG_OP_max_pool2d, &max_pool2d_kernel);
  add_kernel(table, DEVPLUG_OP_max_pool2d_backward, &max_pool2d_backward_kernel);
}

}  // namespace devplug::reference
