// SPDX-License-Identifier: Apache-2.0
// Reference kernels of the pointwise composites (relu, gelu, silu, sigmoid, softplus,
// clamp, leaky_relu, dropout) and their backward ops, each from its definition in the wide
// type and rounded once (relu and clamp are exact in the dtype itself, integers included).
#include <cstring>

#include "composite_common.hpp"
#include "kernels.hpp"

namespace devplug::reference {
namespace {

using namespace composite;

// out[k] = f(in0[k], in1[k], ...) for floating operands of one shape.
template <typename W, typename F>
void pointwise(const devplug_op_call_t& c, F&& f) {
  std::vector<std::vector<W>> in;
  for (size_t k = 0; k < c.n_inputs; ++k) in.push_back(load<W>(c.inputs[k]));
  std::vector<W> out(in[0].size());
  for (size_t e = 0; e < out.size(); ++e) {
    if (c.n_inputs == 1)
      out[e] = f(in[0][e], W(0));
    else
      out[e] = f(in[0][e], in[1][e]);
  }
  store(c.outputs[0], out);
}

constexpr long double kPi = 3.141592653589793238462643383279502884L;
constexpr long double kGeluKappa = 0.044715L;

template <typename W>
W sigmoid(W z) {
  return W(1) / (W(1) + std::exp(-z));
}

// 2u of the tanh form: 2 sqrt(2/pi) (x + 0.044715 x^3).
template <typename W>
W gelu_two_u(W x) {
  return W(2) * std::sqrt(W(2) / W(kPi)) * (x + W(kGeluKappa) * x * x * x);
}

template <typename W>
void gelu(const devplug_op_call_t& c) {
  const bool tanh_form = attrs_of<devplug_gelu_attrs_t>(c).approximate == DEVPLUG_GELU_TANH;
  pointwise<W>(c, [&](W x, W) {
    if (tanh_form) return x / (W(1) + std::exp(-gelu_two_u(x)));  // 0.5 x (1 + tanh(u))
    return W(0.5) * x * std::erfc(-x / std::sqrt(W(2)));          // x Phi(x)
  });
}

template <typename W>
void silu(const devplug_op_call_t& c) {
  pointwise<W>(c, [](W x, W) { return x / (W(1) + std::exp(-x)); });
}

template <typename W>
void sigmoid_kernel(const devplug_op_call_t& c) {
  pointwise<W>(c, [](W x, W) { return sigmoid(x); });
}

template <typename W>
void softplus(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_softplus_attrs_t>(c);
  const devplug_dtype_t d = c.inputs[0]->dtype;
  const W beta = in_compute_dtype<W>(d, a.beta), threshold = in_compute_dtype<W>(d, a.threshold);
  pointwise<W>(c, [&](W x, W) {
    // The branch is taken on beta x as the computation dtype holds it.
    if (in_compute_dtype<W>(d, static_cast<double>(x * beta)) > threshold) return x;
    return std::log1p(std::exp(x * beta)) / beta;
  });
}

template <typename W>
void leaky_relu(const devplug_op_call_t& c) {
  const W slope =
      in_compute_dtype<W>(c.inputs[0]->dtype, attrs_of<devplug_leaky_relu_attrs_t>(c).negative_slope);
  pointwise<W>(c, [&](W x, W) { return x > 0 ? x : x * slope; });
}

// Element k is kept when philox_uniform's float32 element k, (word(k) >> 8) 2^-24, is at
// least p rounded to float32; kept elements are scaled by 1 / (1 - p) in the computation dtype.
template <typename W>
void dropout(const devplug_op_call_t& c) {
  const auto& a = attrs_of<devplug_dropout_attrs_t>(c);
  const std::vector<W> x = load<W>(c.inputs[0]);
  std::vector<uint32_t> words(x.size());
  philox_words(a.seed, a.offset, words.size(), words.data());
  const double p32 = static_cast<float>(a.p);
  const W scale = in_compute_dtype<W>(c.inputs[0]->dtype, 1.0 / (1.0 - a.p));
  std::vector<W> out(x.size());
  std::vector<int64_t> mask(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    mask[k] = std::ldexp(static_cast<double>(words[k] >> 8), -24) >= p32;
    out[k] = mask[k] ? x[k] * scale : W(0);
  }
  store(c.outputs[0], out);
  store_integers(c.outputs[1], mask);
}

template <typename W>
void relu_backward(const devplug_op_call_t& c) {
  pointwise<W>(c, [](W g, W x) { return x <= 0 ? W(0) : g; });
}

template <typename W>
void gelu_backward(const devplug_op_call_t& c) {
  const bool tanh_form = attrs_of<devplug_gelu_attrs_t>(c).approximate == DEVPLUG_GELU_TANH;
  pointwise<W>(c, [&](W g, W x) {
    if (tanh_form) {
      // d/dx x sigmoid(2u) = s + x s (1 - s) 2u'.
      const W two_u = gelu_two_u(x);
      const W s = sigmoid(two_u), one_minus_s = sigmoid(-two_u);
      const W du = W(2) * std::sqrt(W(2) / W(kPi)) * (W(1) + W(3) * W(kGeluKappa) * x * x);
      return g * (s + x * s * one_minus_s * du);
    }
    const W cdf = W(0.5) * std::erfc(-x / std::sqrt(W(2)));
    const W pdf = std::exp(W(-0.5) * x * x) / std::sqrt(W(2) * W(kPi));
    return g * (cdf + x * pdf);
  });
}

template <typename W>
void silu_backward(const devplug_op_call_t& c) {
  pointwise<W>(c, [](W g, W x) {
    const W s = sigmoid(x);
    return g * s * (W(1) + x * (W(1) - s));
  });
}

template <typename W>
void sigmoid_backward(const devplug_op_call_t& c) {
  pointwise<W>(c, [](W g, W y) { return g * y * (W(1) - y); });
}

DEVPLUG_COMPOSITE_KERNEL(gelu_kernel, gelu)
DEVPLUG_COMPOSITE_KERNEL(silu_kernel, silu)
DEVPLUG_COMPOSITE_KERNEL(sigmoid_kernel_fn, sigmoid_kernel)
DEVPLUG_COMPOSITE_KERNEL(softplus_kernel, softplus)
DEVPLUG_COMPOSITE_KERNEL(leaky_relu_kernel, leaky_relu)
DEVPLUG_COMPOSITE_KERNEL(dropout_kernel, dropout)
DEVPLUG_COMPOSITE_KERNEL(relu_backward_kernel, relu_backward)
DEVPLUG_COMPOSITE_KERNEL(gelu_backward_kernel, gelu_backward)
DEVPLUG_COMPOSITE_KERNEL(silu_backward_kernel, silu_backward)
DEVPLUG_COMPOSITE_KERNEL(sigmoid_backward_kernel, sigmoid_backward)

// ---- relu and clamp: exact in the dtype, integers too ------------------------------------

// maximum / minimum as the prims define them: NaN if either is NaN; the larger (smaller)
// of -0.0 and +0.0 is +0.0 (-0.0).
template <typename T>
T extreme(T a, T b, bool larger) {
  if constexpr (sdk::is_floating_v<T>) {
    const double x = sdk::to_double(a), y = sdk::to_double(b);
    if (std::isnan(x)) return a;
    if (std::isnan(y)) return b;
    if (x == y) return (std::signbit(x) != larger) ? a : b;  // pick +0.0 for max, -0.0 for min
    return (x > y) == larger ? a : b;
  } else {
    return (a > b) == larger ? a : b;
  }
}

// A clamp bound as fill would store it in T.
template <typename T>
T bound(const devplug_scalar_t& s) {
  return scalar_as<T>(s);
}

template <typename Body>
void for_each_pair(const devplug_op_call_t& c, Body&& body) {
  const devplug_tensor_desc_t &in = *c.inputs[0], &out = *c.outputs[0];
  check_fits(in, "input");
  check_fits(out, "output");
  sdk::visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      const T* src = tensor_base<const T>(in);
      T* dst = tensor_base<T>(out);
      sdk::for_each_offset<2>(out.rank, out.shape, {in.strides, out.strides},
                              [&](const std::array<int64_t, 2>& at) { dst[at[1]] = body(src[at[0]]); });
    } else {
      invalid("bool is not a dtype of this op");
    }
  });
}

devplug_error_t* relu_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_call_t& c = *call;
    const std::string problem = sdk::check_composite(c);
    if (!problem.empty()) invalid(problem);
    for_each_pair(c, [](auto x) {
      using T = decltype(x);
      T zero{};
      if constexpr (sdk::is_floating_v<T>) zero = sdk::from_double<T>(0.0);
      return extreme(x, zero, true);
    });
  });
}

devplug_error_t* clamp_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_op_call_t& c = *call;
    const std::string problem = sdk::check_composite(c);
    if (!problem.empty()) invalid(problem);
    const auto& a = attrs_of<devplug_clamp_attrs_t>(c);
    for_each_pair(c, [&](auto x) {
      using T = decltype(x);
      if (a.flags & DEVPLUG_CLAMP_MIN) x = extreme(x, bound<T>(a.min), true);
      if (a.flags & DEVPLUG_CLAMP_MAX) x = extreme(x, bound<T>(a.max), false);
      return x;
    });
  });
}

}  // namespace

void register_composite_pointwise_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_relu, &relu_kernel);
  add_kernel(table, DEVPLUG_OP_gelu, &gelu_kernel);
  add_kernel(table, DEVPLUG_OP_silu, &silu_kernel);
  add_kernel(table, DEVPLUG_OP_sigmoid, &sigmoid_kernel_fn);
  add_kernel(table, DEVPLUG_OP_softplus, &softplus_kernel);
  add_kernel(table, DEVPLUG_OP_clamp, &clamp_kernel);
  add_kernel(table, DEVPLUG_OP_leaky_relu, &leaky_relu_kernel);
  add_kernel(table, DEVPLUG_OP_dropout, &dropout_kernel);
  add_kernel(table, DEVPLUG_OP_relu_backward, &relu_backward_kernel);
  add_kernel(table, DEVPLUG_OP_gelu_backward, &gelu_backward_kernel);
  add_kernel(table, DEVPLUG_OP_silu_backward, &silu_backward_kernel);
  add_kernel(table, DEVPLUG_OP_sigmoid_backward, &sigmoid_backward_kernel);
}

}  // namespace devplug::reference
