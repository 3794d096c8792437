// SPDX-License-Identifier: Apache-2.0
// Scaled dot product attention on devplug's composite and its backward. torch's
// scaled_dot_product_attention asks the device's _fused_sdp_choice which kernel to use; the
// bridge answers "overrideable" for the calls the composite covers and where it is the faster
// route, so torch runs _scaled_dot_product_fused_attention_overrideable, and autograd its
// backward (torch's own derivative of that op), both devplug composites. Other calls (dropout,
// grouped-query attention, a mask that needs a gradient, batch dims that broadcast, training
// on a plugin without a native attention backward) get torch's math decomposition (matmul,
// softmax, ...: the devplug ops those run as).
#include <ATen/Functions.h>
#include <ATen/core/grad_mode.h>
#include <ATen/native/transformers/attention.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

bool same_batch(const at::Tensor& a, const at::Tensor& b) {
  return a.dim() == b.dim() && a.sizes().slice(0, a.dim() - 2).equals(b.sizes().slice(0, b.dim() - 2));
}

// Whether the composite computes this call exactly as torch's math route would.
bool composite_covers(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                      const std::optional<at::Tensor>& mask, double dropout_p, bool is_causal,
                      bool enable_gqa) {
  if (dropout_p > 0 || enable_gqa || q.dim() < 3 || !same_batch(q, k) || !same_batch(q, v)) return false;
  if (!c10::isFloatingType(q.scalar_type()) || k.scalar_type() != q.scalar_type() ||
      v.scalar_type() != q.scalar_type())
    return false;
  if (k.size(-1) != q.size(-1) || v.size(-2) != k.size(-2)) return false;
  if (given(mask)) {
    if (is_causal || mask->requires_grad() || mask->dim() > q.dim()) return false;
    if (mask->scalar_type() != at::kBool && mask->scalar_type() != q.scalar_type()) return false;
  }
  return true;
}

// Whether the composite is the faster route (benchmarks/composites.py; README): for inference
// always (the plugin's native forward kernel, or a decomposition that measured 1.1-1.2x torch's
// math route); for training only where the plugin also has a native backward kernel, since the
// decomposed backward recomputes the attention weights, which torch's math route keeps
// (measured 0.73-0.95x of it).
bool composite_pays(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const bool training =
      at::GradMode::is_enabled() && (q.requires_grad() || k.requires_grad() || v.requires_grad());
  if (!training) return true;
  // From the tensor's metadata alone: under torch.compile the tensors are fake (no storage).
  const std::optional<devplug_dtype_t> dtype = devplug_dtype(q.scalar_type());
  return dtype && Dev::of(q).supports(DEVPLUG_OP_scaled_dot_product_attention_backward, *dtype);
}

int64_t fused_sdp_choice(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                         const std::optional<at::Tensor>& mask, double dropout_p, bool is_causal,
                         std::optional<double> /*scale*/, bool enable_gqa) {
  const bool composite =
      composite_covers(q, k, v, mask, dropout_p, is_causal, enable_gqa) && composite_pays(q, k, v);
  return static_cast<int64_t>(composite ? at::SDPBackend::overrideable : at::SDPBackend::math);
}

devplug_sdpa_attrs_t sdpa_attrs(bool is_causal, std::optional<double> scale) {
  devplug_sdpa_attrs_t attrs{sizeof(attrs), is_causal ? DEVPLUG_SDPA_CAUSAL : 0u, scale.value_or(0.0)};
  if (scale.has_value()) attrs.flags |= DEVPLUG_SDPA_SCALE;
  return attrs;
}

// The mask as the composite takes it: [B.., L, S], broadcast with a view.
OptDTensor mask_operand(const at::Tensor& mask, const at::Tensor& q, const at::Tensor& k) {
  if (!mask.defined()) return std::nullopt;
  std::vector<int64_t> shape = q.sizes().vec();
  shape.back() = k.size(-2);
  return view_of(mask.expand(shape));
}

// The output in the query's dimension order, as torch's meta function allocates it (the
// strides torch.compile's graphs were traced with): the query's own layout when the shapes
// agree, else dense strides filled from the query's smallest stride up (0 strides last).
at::Tensor empty_like_query(const at::Tensor& q, at::IntArrayRef shape) {
  if (q.sizes().equals(shape)) return at::empty_like(q);
  std::vector<int64_t> order(static_cast<size_t>(q.dim()));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  auto key = [&](int64_t d) {
    return q.stride(d) != 0 ? static_cast<uint64_t>(q.stride(d)) : std::numeric_limits<uint64_t>::max();
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
  std::vector<int64_t> strides(order.size());
  int64_t stride = 1;
  for (int64_t d : order) {
    strides[static_cast<size_t>(d)] = stride;
    stride *= shape[static_cast<size_t>(d)];
  }
  return at::empty_strided(shape, strides, q.options());
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, c10::SymInt, c10::SymInt, at::Tensor, at::Tensor,
           at::Tensor>
attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
          const std::optional<at::Tensor>& attn_bias, double dropout_p, bool is_causal,
          bool /*return_debug_mask*/, std::optional<double> scale) {
  TORCH_CHECK(
      composite_covers(q, k, v, attn_bias, dropout_p, is_causal, false),
      "devplug: this scaled_dot_product_attention call needs torch's math route (_fused_sdp_choice sends it "
      "there)");
  Dev dev = Dev::of({&q, &k, &v});
  std::vector<int64_t> shape = q.sizes().vec();
  shape.back() = v.size(-1);
  at::Tensor out = empty_like_query(q, shape);
  const devplug_sdpa_attrs_t attrs = sdpa_attrs(is_causal, scale);
  if (out.numel() > 0)
    dev.composite(DEVPLUG_OP_scaled_dot_product_attention,
                  {view_of(q), view_of(k), view_of(v),
                   mask_operand(given(attn_bias) ? *attn_bias : at::Tensor(), q, k)},
                  {view_of(out)}, &attrs);
  // The composite recomputes the attention weights in its backward and draws no random
  // numbers: the log-sum-exp output has the shape torch's meta function gives it ([B, H, L],
  // float32) and holds NaN (it is not computed), and the RNG seed and offset are 0-dim zeros.
  const int64_t batch = q.dim() == 4 ? q.size(0) : 1;
  at::Tensor logsumexp = at::full({batch, q.size(-3), q.size(-2)}, std::numeric_limits<float>::quiet_NaN(),
                                  q.options().dtype(at::kFloat));
  at::Tensor seed = at::zeros({}, at::TensorOptions().dtype(at::kLong));
  return {out,  logsumexp,    at::Tensor(), at::Tensor(), c10::SymInt(q.size(-2)), c10::SymInt(k.size(-2)),
          seed, seed.clone(), at::Tensor()};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> attention_backward(
    const at::Tensor& grad_out, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const at::Tensor& attn_bias, std::array<bool, 4> grad_input_mask, const at::Tensor& /*out*/,
    const at::Tensor& /*logsumexp*/, const at::Tensor& /*cum_seq_q*/, const at::Tensor& /*cum_seq_k*/,
    c10::SymInt /*max_q*/, c10::SymInt /*max_k*/, double dropout_p, bool is_causal,
    const at::Tensor& /*philox_seed*/, const at::Tensor& /*philox_offset*/, std::optional<double> scale) {
  TORCH_CHECK(!grad_input_mask[3],
              "devplug: scaled_dot_product_attention has no gradient for attn_mask here");
  TORCH_CHECK(dropout_p == 0, "devplug: scaled_dot_product_attention's composite has no dropout");
  Dev dev = Dev::of({&grad_out, &q, &k, &v});
  at::Tensor gq, gk, gv;
  // In the inputs' layouts, as torch's meta function allocates them.
  if (grad_input_mask[0]) gq = at::empty_like(q);
  if (grad_input_mask[1]) gk = at::empty_like(k);
  if (grad_input_mask[2]) gv = at::empty_like(v);
  auto slot = [](const at::Tensor& t) {
    return t.defined() && t.numel() > 0 ? OptDTensor(view_of(t)) : std::nullopt;
  };
  const devplug_sdpa_attrs_t attrs = sdpa_attrs(is_causal, scale);
  if (grad_out.numel() > 0)
    dev.composite(DEVPLUG_OP_scaled_dot_product_attention_backward,
                  {view_of(grad_out), view_of(q), view_of(k), view_of(v), mask_operand(attn_bias, q, k)},
                  {slot(gq), slot(gk), slot(gv)}, &attrs);
  return {gq, gk, gv, at::Tensor()};
}

}  // namespace

void register_attention_ops(Table& t) {
  const auto C = Impl::composite;
  t.add("_fused_sdp_choice", C, "overrideable where the composite covers the call, else math",
        DEVPLUG_KERNEL(fused_sdp_choice));
  t.add("_scaled_dot_product_fused_attention_overrideable", C, "scaled_dot_product_attention",
        DEVPLUG_KERNEL(attention));
  t.add("_scaled_dot_product_fused_attention_overrideable_backward", C,
        "scaled_dot_product_attention_backward", DEVPLUG_KERNEL(attention_backward));
}

}  // namespace devplug::bridge

// What scaled_dot_product_attention asks before it picks a route (a DispatchStub, not an op).
namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &devplug::bridge::fused_sdp_choice)
}  // namespace at::native
