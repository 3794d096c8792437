// SPDX-License-Identifier: Apache-2.0
// The shape rule of every composite op: what its inputs and attributes must satisfy and the
// shape of each output (and whether an optional output must or must not be passed). One
// case per op, in ops.def order; check_composite (composite.hpp) applies them.
//
// Shapes are strict, as for prims: per-channel vectors are [C], masks are [B.., L, S], loss
// targets have the input's shape without the class dim; the host broadcasts with views.
// Pure and thread-safe; nothing allocates unless a problem is reported.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "devplug/ops.h"

namespace devplug::sdk {

// The most tensors on one side of a composite call.
constexpr int kMaxCompositeArgs = 8;

struct Dims {
  int32_t rank = 0;
  int64_t d[DEVPLUG_MAX_RANK] = {};
};

enum class Presence { Optional, Required, Forbidden };

struct OutputRule {
  Dims dims;
  Presence presence = Presence::Required;
  const char* why = "";  // why Required or Forbidden, for the message
};

struct CompositeShapes {
  OutputRule outputs[kMaxCompositeArgs];
};

// The output size of a pooling or convolution window along one dim, PyTorch's formula
// (ceil_mode: a last window may start in the right padding but not past it). Negative when
// no window fits.
inline int64_t window_output_size(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                                  bool ceil_mode) {
  const int64_t span = size + 2 * pad - dilation * (kernel - 1) - 1;
  if (span < 0) return -1;
  int64_t out = (span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  if (ceil_mode && (out - 1) * stride >= size + pad) --out;
  return out;
}

namespace composite_detail {

inline Dims dims_of(const devplug_tensor_desc_t& t) {
  Dims s;
  s.rank = t.rank;
  for (int32_t d = 0; d < t.rank; ++d) s.d[d] = t.shape[d];
  return s;
}

inline Dims make_dims(std::initializer_list<int64_t> list) {
  Dims s;
  for (int64_t v : list) s.d[s.rank++] = v;
  return s;
}

inline bool same(const Dims& a, const Dims& b) {
  if (a.rank != b.rank) return false;
  for (int32_t d = 0; d < a.rank; ++d)
    if (a.d[d] != b.d[d]) return false;
  return true;
}

inline std::string text(const Dims& s) {
  std::string t = "[";
  for (int32_t d = 0; d < s.rank; ++d) t += (d ? ", " : "") + std::to_string(s.d[d]);
  return t + "]";
}

// `what` (inputs[k]) must have shape `want` when it is given.
inline std::string expect(const devplug_tensor_desc_t* t, const char* what, const Dims& want,
                          const char* rule) {
  if (t == nullptr) return "";
  const Dims got = dims_of(*t);
  if (same(got, want)) return "";
  return std::string(what) + " has shape " + text(got) + ", expected " + text(want) + " (" + rule + ")";
}

// The input's shape with dims >= `from` set to 1: per-row statistics of the last dims.
inline Dims stat_dims(const Dims& in, int32_t from) {
  Dims s = in;
  for (int32_t d = from; d < s.rank; ++d) s.d[d] = 1;
  return s;
}

inline Dims tail_dims(const Dims& in, int32_t from) {
  Dims s;
  for (int32_t d = from; d < in.rank; ++d) s.d[s.rank++] = in.d[d];
  return s;
}

inline int64_t product(const Dims& s) {
  int64_t n = 1;
  for (int32_t d = 0; d < s.rank; ++d) n *= s.d[d];
  return n;
}

template <typename Attrs>
const Attrs& attrs_as(const void* attrs) {
  return *static_cast<const Attrs*>(attrs);
}

inline std::string check_norm(const devplug_norm_attrs_t& a, int32_t rank) {
  if (a.normalized_rank < 0 || a.normalized_rank > rank)
    return "attrs.normalized_rank is " + std::to_string(a.normalized_rank) + ", expected [0, " +
           std::to_string(rank) + "] for the input's rank";
  if (!(std::isfinite(a.eps) && a.eps >= 0))
    return "attrs.eps is " + std::to_string(a.eps) + ", expected finite >= 0";
  return "";
}

inline std::string check_dim(int32_t dim, int32_t rank) {
  const int32_t extent = rank == 0 ? 1 : rank;
  if (dim >= 0 && dim < extent) return "";
  return "attrs.dim is " + std::to_string(dim) + ", expected [0, " + std::to_string(extent) + ")";
}

inline std::string check_reduce_mask(uint32_t mask, int32_t rank) {
  const uint32_t allowed = rank >= 32 ? ~0u : ((1u << rank) - 1u);
  if ((mask & ~allowed) == 0) return "";
  return "attrs.dims_mask names a dim at or past the input's rank " + std::to_string(rank);
}

// The pooled [N, C, Ho, Wo] of a [N, C, H, W] input, or a problem.
inline std::string pool_dims(const devplug_tensor_desc_t& in, const devplug_pool2d_attrs_t& a, bool is_max,
                             Dims* out) {
  if (in.rank != 4) return "inputs[0] has rank " + std::to_string(in.rank) + ", expected 4 ([N, C, H, W])";
  if (a.flags & ~(DEVPLUG_POOL_CEIL_MODE | DEVPLUG_POOL_COUNT_INCLUDE_PAD))
    return "attrs.flags has unknown bits";
  if (!is_max && a.divisor_override < 0) return "attrs.divisor_override is negative";
  *out = dims_of(in);
  for (int k = 0; k < 2; ++k) {
    if (a.kernel[k] < 1 || a.stride[k] < 1 || a.padding[k] < 0 || a.dilation[k] < 1)
      return "attrs: kernel, stride and dilation must be >= 1 and padding >= 0";
    if (!is_max && a.dilation[k] != 1) return "attrs.dilation must be 1 for avg_pool2d";
    const int64_t effective = a.dilation[k] * (a.kernel[k] - 1) + 1;
    if (2 * a.padding[k] > effective)
      return "attrs.padding[" + std::to_string(k) + "] = " + std::to_string(a.padding[k]) +
             " is more than half the window (" + std::to_string(effective) + ")";
    const int64_t size = window_output_size(in.shape[2 + k], a.kernel[k], a.stride[k], a.padding[k],
                                            a.dilation[k], (a.flags & DEVPLUG_POOL_CEIL_MODE) != 0);
    if (size < 1) return "the window does not fit the input (output size " + std::to_string(size) + ")";
    out->d[2 + k] = size;
  }
  return "";
}

// The [N, O, Ho, Wo] of conv2d on `in` and `weight`, or a problem.
inline std::string conv_dims(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& w,
                             const devplug_conv2d_attrs_t& a, Dims* out) {
  if (in.rank != 4) return "input has rank " + std::to_string(in.rank) + ", expected 4 ([N, C, H, W])";
  if (w.rank != 4)
    return "weight has rank " + std::to_string(w.rank) + ", expected 4 ([O, C/groups, kh, kw])";
  if (a.groups < 1) return "attrs.groups is " + std::to_string(a.groups) + ", expected >= 1";
  if (in.shape[1] % a.groups != 0 || w.shape[0] % a.groups != 0)
    return "channels in (" + std::to_string(in.shape[1]) + ") and out (" + std::to_string(w.shape[0]) +
           ") must be multiples of attrs.groups (" + std::to_string(a.groups) + ")";
  if (w.shape[1] * a.groups != in.shape[1])
    return "weight.shape[1] is " + std::to_string(w.shape[1]) +
           ", expected C / groups = " + std::to_string(in.shape[1] / a.groups);
  *out = make_dims({in.shape[0], w.shape[0], 0, 0});
  for (int k = 0; k < 2; ++k) {
    if (a.stride[k] < 1 || a.padding[k] < 0 || a.dilation[k] < 1)
      return "attrs: stride and dilation must be >= 1 and padding >= 0";
    if (w.shape[2 + k] < 1) return "the kernel is empty";
    const int64_t size =
        window_output_size(in.shape[2 + k], w.shape[2 + k], a.stride[k], a.padding[k], a.dilation[k], false);
    if (size < 1) return "the kernel does not fit the padded input";
    out->d[2 + k] = size;
  }
  return "";
}

// The loss output for `input` [N, C, d..] (or [C]) and `target` [N, d..] (or []).
inline std::string class_loss_dims(const devplug_tensor_desc_t& in, const devplug_tensor_desc_t& target,
                                   const devplug_tensor_desc_t* weight, const devplug_loss_attrs_t& a,
                                   bool smoothing, Dims* out) {
  if (a.reduction < DEVPLUG_REDUCTION_NONE || a.reduction > DEVPLUG_REDUCTION_SUM)
    return "attrs.reduction is " + std::to_string(a.reduction) + ", expected none (0), mean (1) or sum (2)";
  if (smoothing ? !(a.label_smoothing >= 0 && a.label_smoothing <= 1) : a.label_smoothing != 0)
    return smoothing ? "attrs.label_smoothing must be in [0, 1]"
                     : "attrs.label_smoothing must be 0 for nll_loss";
  if (in.rank < 1) return "input is 0-d; expected [C] or [N, C, d..]";
  const Dims input = dims_of(in);
  const int32_t class_dim = in.rank == 1 ? 0 : 1;
  if (input.d[class_dim] == 0) return "the class dim of input is empty: no target can be valid";
  Dims want;
  for (int32_t d = 0; d < in.rank; ++d)
    if (d != class_dim) want.d[want.rank++] = input.d[d];
  std::string p = expect(&target, "target", want, "the input's shape without the class dim");
  if (p.empty()) p = expect(weight, "weight", make_dims({input.d[class_dim]}), "one weight per class");
  if (!p.empty()) return p;
  *out = a.reduction == DEVPLUG_REDUCTION_NONE ? want : Dims{};
  return "";
}

inline std::string sdpa_dims(const devplug_tensor_desc_t* const* in, const devplug_sdpa_attrs_t& a,
                             Dims* out) {
  const devplug_tensor_desc_t &q = *in[0], &k = *in[1], &v = *in[2];
  if (a.flags & ~(DEVPLUG_SDPA_CAUSAL | DEVPLUG_SDPA_SCALE)) return "attrs.flags has unknown bits";
  if ((a.flags & DEVPLUG_SDPA_SCALE) && !std::isfinite(a.scale)) return "attrs.scale is not finite";
  if ((a.flags & DEVPLUG_SDPA_CAUSAL) && in[3] != nullptr)
    return "a mask and the causal flag were both given (PyTorch refuses this too)";
  const int32_t r = q.rank;
  if (r < 2 || k.rank != r || v.rank != r) return "query, key and value need one rank >= 2";
  for (int32_t d = 0; d < r - 2; ++d)
    if (k.shape[d] != q.shape[d] || v.shape[d] != q.shape[d])
      return "query, key and value have different batch dims";
  if (k.shape[r - 1] != q.shape[r - 1]) return "key's last dim differs from query's (E)";
  if (v.shape[r - 2] != k.shape[r - 2]) return "value's length differs from key's (S)";
  Dims mask = dims_of(q);
  mask.d[r - 1] = k.shape[r - 2];
  std::string p = expect(in[3], "mask", mask, "[B.., L, S]; broadcast it with a view");
  if (!p.empty()) return p;
  *out = dims_of(q);
  out->d[r - 1] = v.shape[r - 1];
  return "";
}

}  // namespace composite_detail

// Applies the shape rule of composite `op`: checks its inputs (NULL where absent) and
// attributes and fills `out` with each output's shape and presence rule. `outputs` is read
// only where an output's shape is free (embedding_backward's number of rows). Returns "" or
// the problem. The caller has checked the frame, dtypes and that required inputs are there.
inline std::string composite_shapes(devplug_op_t op, const devplug_tensor_desc_t* const* in,
                                    const devplug_tensor_desc_t* const* outputs, const void* attrs,
                                    CompositeShapes* out) {
  using namespace composite_detail;
  const devplug_op_info_t* info = devplug_op_info(op);
  if (info == nullptr) return "unknown op";
  for (int k = 0; k < kMaxCompositeArgs; ++k) {
    out->outputs[k] = OutputRule{};
    out->outputs[k].presence = (info->optional_outputs >> k) & 1u ? Presence::Optional : Presence::Required;
    out->outputs[k].why = "it is not optional";
  }
  auto set = [&](int k, const Dims& dims) { out->outputs[k].dims = dims; };
  const Dims x = dims_of(*in[0]);
  std::string p;
  switch (op) {
    case DEVPLUG_OP_relu:
    case DEVPLUG_OP_silu:
    case DEVPLUG_OP_sigmoid:
      set(0, x);
      return "";
    case DEVPLUG_OP_gelu:
      if (attrs_as<devplug_gelu_attrs_t>(attrs).approximate != DEVPLUG_GELU_NONE &&
          attrs_as<devplug_gelu_attrs_t>(attrs).approximate != DEVPLUG_GELU_TANH)
        return "attrs.approximate must be DEVPLUG_GELU_NONE or DEVPLUG_GELU_TANH";
      set(0, x);
      return "";
    case DEVPLUG_OP_softplus: {
      const auto& a = attrs_as<devplug_softplus_attrs_t>(attrs);
      if (!std::isfinite(a.beta) || a.beta == 0 || std::isnan(a.threshold))
        return "attrs.beta must be finite and non-zero, attrs.threshold not NaN";
      set(0, x);
      return "";
    }
    case DEVPLUG_OP_clamp:
      if (attrs_as<devplug_clamp_attrs_t>(attrs).flags & ~(DEVPLUG_CLAMP_MIN | DEVPLUG_CLAMP_MAX))
        return "attrs.flags has unknown bits";
      set(0, x);
      return "";
    case DEVPLUG_OP_leaky_relu:
      set(0, x);
      return "";
    case DEVPLUG_OP_mean:
    case DEVPLUG_OP_logsumexp: {
      const uint32_t mask = attrs_as<devplug_reduce_attrs_t>(attrs).dims_mask;
      p = check_reduce_mask(mask, x.rank);
      Dims o = x;
      for (int32_t d = 0; d < x.rank; ++d)
        if ((mask >> d) & 1u) o.d[d] = 1;
      set(0, o);
      return p;
    }
    case DEVPLUG_OP_softmax:
    case DEVPLUG_OP_log_softmax:
      set(0, x);
      return check_dim(attrs_as<devplug_dim_attrs_t>(attrs).dim, x.rank);
    case DEVPLUG_OP_layer_norm:
    case DEVPLUG_OP_rms_norm: {
      const auto& a = attrs_as<devplug_norm_attrs_t>(attrs);
      if (!(p = check_norm(a, x.rank)).empty()) return p;
      const int32_t from = x.rank - a.normalized_rank;
      const Dims tail = tail_dims(x, from);
      if (!(p = expect(in[1], "weight", tail, "the normalized dims of the input")).empty()) return p;
      if (op == DEVPLUG_OP_layer_norm &&
          !(p = expect(in[2], "bias", tail, "the normalized dims of the input")).empty())
        return p;
      set(0, x);
      set(1, stat_dims(x, from));
      if (op == DEVPLUG_OP_layer_norm) set(2, stat_dims(x, from));
      return "";
    }
    case DEVPLUG_OP_batch_norm:
    case DEVPLUG_OP_batch_norm_training: {
      const auto& a = attrs_as<devplug_batch_norm_attrs_t>(attrs);
      if (!(std::isfinite(a.eps) && a.eps >= 0 && std::isfinite(a.momentum)))
        return "attrs.eps must be finite >= 0 and attrs.momentum finite";
      if (x.rank < 2) return "input has rank " + std::to_string(x.rank) + ", expected [N, C, ...]";
      const Dims c = make_dims({x.d[1]});
      for (int k = 1; k < 5; ++k)
        if (!(p = expect(in[k], "a per-channel input", c, "[C], C = input.shape[1]")).empty()) return p;
      set(0, x);
      if (op == DEVPLUG_OP_batch_norm) return "";
      if ((in[3] == nullptr) != (in[4] == nullptr))
        return "running_mean and running_var come together or not at all";
      if (x.d[1] > 0 && product(x) / x.d[1] < 2)
        return "a channel has fewer than 2 values; training statistics need more (as PyTorch)";
      for (int k = 1; k < 5; ++k) set(k, c);
      for (int k = 3; k < 5; ++k) {
        out->outputs[k].presence = in[3] != nullptr ? Presence::Required : Presence::Forbidden;
        out->outputs[k].why =
            in[3] != nullptr ? "running statistics were given" : "no running statistics were given";
      }
      return "";
    }
    case DEVPLUG_OP_linear: {
      if (x.rank < 1) return "input is 0-d; expected [.., K]";
      const devplug_tensor_desc_t& w = *in[1];
      if (w.rank != 2 || w.shape[1] != x.d[x.rank - 1])
        return "weight has shape " + text(dims_of(w)) + ", expected [N, " + std::to_string(x.d[x.rank - 1]) +
               "]";
      if (!(p = expect(in[2], "bias", make_dims({w.shape[0]}), "[N]")).empty()) return p;
      Dims o = x;
      o.d[o.rank - 1] = w.shape[0];
      set(0, o);
      return "";
    }
    case DEVPLUG_OP_scaled_dot_product_attention: {
      Dims o;
      if (!(p = sdpa_dims(in, attrs_as<devplug_sdpa_attrs_t>(attrs), &o)).empty()) return p;
      set(0, o);
      return "";
    }
    case DEVPLUG_OP_conv2d: {
      Dims o;
      if (!(p = conv_dims(*in[0], *in[1], attrs_as<devplug_conv2d_attrs_t>(attrs), &o)).empty()) return p;
      if (!(p = expect(in[2], "bias", make_dims({in[1]->shape[0]}), "[O]")).empty()) return p;
      set(0, o);
      return "";
    }
    case DEVPLUG_OP_avg_pool2d:
    case DEVPLUG_OP_max_pool2d: {
      Dims o;
      if (!(p = pool_dims(*in[0], attrs_as<devplug_pool2d_attrs_t>(attrs), op == DEVPLUG_OP_max_pool2d, &o))
               .empty())
        return p;
      set(0, o);
      set(1, o);
      return "";
    }
    case DEVPLUG_OP_embedding: {
      const Dims w = x, idx = dims_of(*in[1]);
      if (w.rank < 1) return "weight is 0-d; expected [V, D..]";
      if (idx.rank + w.rank - 1 > DEVPLUG_MAX_RANK)
        return "indices and weight together pass the rank limit 8";
      Dims o = idx;
      for (int32_t d = 1; d < w.rank; ++d) o.d[o.rank++] = w.d[d];
      set(0, o);
      return "";
    }
    case DEVPLUG_OP_nll_loss:
    case DEVPLUG_OP_cross_entropy: {
      Dims o;
      if (!(p = class_loss_dims(*in[0], *in[1], in[2], attrs_as<devplug_loss_attrs_t>(attrs),
                                op == DEVPLUG_OP_cross_entropy, &o))
               .empty())
        return p;
      set(0, o);
      return "";
    }
    case DEVPLUG_OP_mse_loss: {
      const auto& a = attrs_as<devplug_loss_attrs_t>(attrs);
      if (a.reduction < DEVPLUG_REDUCTION_NONE || a.reduction > DEVPLUG_REDUCTION_SUM)
        return "attrs.reduction must be none (0), mean (1) or sum (2)";
      if (!(p = expect(in[1], "target", x, "the input's shape")).empty()) return p;
      set(0, a.reduction == DEVPLUG_REDUCTION_NONE ? x : Dims{});
      return "";
    }
    case DEVPLUG_OP_dropout: {
      const double prob = attrs_as<devplug_dropout_attrs_t>(attrs).p;
      if (!(prob >= 0 && prob <= 1)) return "attrs.p must be in [0, 1]";
      set(0, x);
      set(1, x);
      return "";
    }

    // ---- backward: grad (and the saved tensors) in, gradients out ----------------------
    case DEVPLUG_OP_relu_backward:
    case DEVPLUG_OP_gelu_backward:
    case DEVPLUG_OP_silu_backward:
    case DEVPLUG_OP_sigmoid_backward:
    case DEVPLUG_OP_softmax_backward:
    case DEVPLUG_OP_log_softmax_backward: {
      if (!(p = expect(in[1], "inputs[1]", x, "grad's shape")).empty()) return p;
      if (op == DEVPLUG_OP_gelu_backward &&
          attrs_as<devplug_gelu_attrs_t>(attrs).approximate != DEVPLUG_GELU_NONE &&
          attrs_as<devplug_gelu_attrs_t>(attrs).approximate != DEVPLUG_GELU_TANH)
        return "attrs.approximate must be DEVPLUG_GELU_NONE or DEVPLUG_GELU_TANH";
      if (op == DEVPLUG_OP_softmax_backward || op == DEVPLUG_OP_log_softmax_backward)
        if (!(p = check_dim(attrs_as<devplug_dim_attrs_t>(attrs).dim, x.rank)).empty()) return p;
      set(0, x);
      return "";
    }
    case DEVPLUG_OP_layer_norm_backward:
    case DEVPLUG_OP_rms_norm_backward: {
      const auto& a = attrs_as<devplug_norm_attrs_t>(attrs);
      const bool layer = op == DEVPLUG_OP_layer_norm_backward;
      if (!(p = expect(in[1], "input", x, "grad's shape")).empty()) return p;
      if (!(p = check_norm(a, x.rank)).empty()) return p;
      const int32_t from = x.rank - a.normalized_rank;
      const Dims stat = stat_dims(x, from), tail = tail_dims(x, from);
      if (!(p = expect(in[2], layer ? "mean" : "rstd", stat, "the forward's statistics")).empty()) return p;
      if (layer && !(p = expect(in[3], "rstd", stat, "the forward's statistics")).empty()) return p;
      if (!(p = expect(in[layer ? 4 : 3], "weight", tail, "the normalized dims of the input")).empty())
        return p;
      set(0, x);
      set(1, tail);
      set(2, tail);
      return "";
    }
    case DEVPLUG_OP_batch_norm_backward: {
      const auto& a = attrs_as<devplug_batch_norm_attrs_t>(attrs);
      if (!(std::isfinite(a.eps) && a.eps >= 0)) return "attrs.eps must be finite >= 0";
      if (x.rank < 2) return "grad has rank " + std::to_string(x.rank) + ", expected [N, C, ...]";
      if (!(p = expect(in[1], "input", x, "grad's shape")).empty()) return p;
      const Dims c = make_dims({x.d[1]});
      for (int k = 2; k < 5; ++k)
        if (!(p = expect(in[k], "a per-channel input", c, "[C], C = input.shape[1]")).empty()) return p;
      set(0, x);
      set(1, c);
      set(2, c);
      return "";
    }
    case DEVPLUG_OP_linear_backward: {
      const Dims input = dims_of(*in[1]), w = dims_of(*in[2]);
      if (input.rank < 1 || w.rank != 2 || w.d[1] != input.d[input.rank - 1])
        return "input [.., K] and weight [N, K] do not match";
      Dims g = input;
      g.d[g.rank - 1] = w.d[0];
      if (!(p = expect(in[0], "grad", g, "[.., N]: the forward output's shape")).empty()) return p;
      set(0, input);
      set(1, w);
      set(2, make_dims({w.d[0]}));
      return "";
    }
    case DEVPLUG_OP_scaled_dot_product_attention_backward: {
      Dims o;
      if (!(p = sdpa_dims(in + 1, attrs_as<devplug_sdpa_attrs_t>(attrs), &o)).empty()) return p;
      if (!(p = expect(in[0], "grad", o, "the forward output's shape")).empty()) return p;
      for (int k = 0; k < 3; ++k) set(k, dims_of(*in[1 + k]));
      return "";
    }
    case DEVPLUG_OP_conv2d_backward: {
      Dims o;
      if (!(p = conv_dims(*in[1], *in[2], attrs_as<devplug_conv2d_attrs_t>(attrs), &o)).empty()) return p;
      if (!(p = expect(in[0], "grad", o, "the forward output's shape")).empty()) return p;
      set(0, dims_of(*in[1]));
      set(1, dims_of(*in[2]));
      set(2, make_dims({in[2]->shape[0]}));
      return "";
    }
    case DEVPLUG_OP_avg_pool2d_backward:
    case DEVPLUG_OP_max_pool2d_backward: {
      Dims o;
      const bool is_max = op == DEVPLUG_OP_max_pool2d_backward;
      if (!(p = pool_dims(*in[1], attrs_as<devplug_pool2d_attrs_t>(attrs), is_max, &o)).empty()) return p;
      if (!(p = expect(in[0], "grad", o, "the forward output's shape")).empty()) return p;
      if (is_max && !(p = expect(in[2], "indices", o, "the forward output's shape")).empty()) return p;
      set(0, dims_of(*in[1]));
      return "";
    }
    case DEVPLUG_OP_embedding_backward: {
      const Dims idx = dims_of(*in[1]);
      if (x.rank < idx.rank) return "grad has a lower rank than indices";
      for (int32_t d = 0; d < idx.rank; ++d)
        if (x.d[d] != idx.d[d]) return "grad's leading dims must be the indices' shape";
      Dims w;
      w.d[w.rank++] = outputs[0] != nullptr && outputs[0]->rank >= 1 ? outputs[0]->shape[0] : 0;  // V: free
      for (int32_t d = idx.rank; d < x.rank; ++d) w.d[w.rank++] = x.d[d];
      const int64_t pad = attrs_as<devplug_embedding_attrs_t>(attrs).padding_idx;
      if (pad >= 0 && pad >= w.d[0]) return "attrs.padding_idx is past the number of rows";
      set(0, w);
      return "";
    }
    case DEVPLUG_OP_nll_loss_backward:
    case DEVPLUG_OP_cross_entropy_backward: {
      Dims o;
      if (!(p = class_loss_dims(*in[1], *in[2], in[3], attrs_as<devplug_loss_attrs_t>(attrs),
                                op == DEVPLUG_OP_cross_entropy_backward, &o))
               .empty())
        return p;
      if (!(p = expect(in[0], "grad", o, "the loss's shape")).empty()) return p;
      set(0, dims_of(*in[1]));
      return "";
    }
    case DEVPLUG_OP_mse_loss_backward: {
      const auto& a = attrs_as<devplug_loss_attrs_t>(attrs);
      if (a.reduction < DEVPLUG_REDUCTION_NONE || a.reduction > DEVPLUG_REDUCTION_SUM)
        return "attrs.reduction must be none (0), mean (1) or sum (2)";
      const Dims input = dims_of(*in[1]);
      if (!(p = expect(in[2], "target", input, "the input's shape")).empty()) return p;
      if (!(p = expect(in[0], "grad", a.reduction == DEVPLUG_REDUCTION_NONE ? input : Dims{},
                       "the loss's shape"))
               .empty())
        return p;
      set(0, input);
      return "";
    }
    default:
      return std::string("op ") + info->name + " has no composite shape rule";
  }
}

}  // namespace devplug::sdk
