// Losses and embedding's backward, composed in the bridge from devplug prims: nll_loss
// (cross_entropy is torch's log_softmax + nll_loss) with class weights, ignore_index and
// every reduction; mse_loss; smooth_l1_loss; binary_cross_entropy; and embedding_dense_backward, the
// gradient of embedding rows as one scatter_add.
#include <ATen/Functions.h>
#include <ATen/core/Reduction.h>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// Throws torch's error for a class index outside [0, classes) that is not ignore_index.
void check_targets(const Dev& dev, const DTensor& target, const DTensor& kept, int64_t classes) {
  if (target.numel() == 0) return;
  DTensor bad = dev.ew(DEVPLUG_OP_bitwise_and,
                       {kept, dev.ew(DEVPLUG_OP_bitwise_or, {dev.ew(DEVPLUG_OP_lt, {target, dev.scalar(DEVPLUG_DTYPE_INT64, 0)}),
                                                             dev.ew(DEVPLUG_OP_ge, {target, dev.scalar(DEVPLUG_DTYPE_INT64, classes)})})});
  DTensor any = dev.reduce(DEVPLUG_OP_any, bad, (1u << bad.rank()) - 1u);
  uint8_t flag = 0;
  any.reshape({}).copy_to_host(&flag, 1, &dev.stream());
  TORCH_CHECK_INDEX(flag == 0, "Target out of bounds: every target must lie in [0, ", classes, ") or be ignore_index");
}

struct NllParts {
  DTensor target;  // int64 [N], ignored entries replaced by 0
  DTensor weight;  // per-sample weight [N]: class weight, 0 where ignored
};

// self: [N, C] or [C]; target: [N] or [].
NllParts nll_parts(const Dev& dev, const at::Tensor& self, const at::Tensor& target,
                   const std::optional<at::Tensor>& weight, int64_t ignore_index) {
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "input tensor should be 1D or 2D");
  TORCH_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  const int64_t n = self.dim() == 2 ? self.size(0) : 1, classes = self.size(-1);
  TORCH_CHECK(target.numel() == n, "size mismatch (got input: ", self.sizes(), ", target: ", target.sizes(), ")");
  TORCH_CHECK(target.scalar_type() == at::kLong || target.scalar_type() == at::kByte || target.scalar_type() == at::kInt,
              "expected scalar type Long but found ", target.scalar_type());
  const devplug_dtype_t c = require_dtype(self.scalar_type(), "the loss input");
  DTensor t = dev.cast(dev.operand(target), DEVPLUG_DTYPE_INT64).reshape({n});
  DTensor kept = dev.ew(DEVPLUG_OP_ne, {t, dev.scalar(DEVPLUG_DTYPE_INT64, ignore_index)});
  check_targets(dev, t, kept, classes);
  DTensor safe = dev.ew(DEVPLUG_OP_where, {kept, t, dev.scalar(DEVPLUG_DTYPE_INT64, 0)});
  DTensor w = dev.cast(kept, c);
  if (weight.has_value() && weight->defined()) {
    TORCH_CHECK(weight->numel() == classes, "weight tensor should be defined either for all ", classes,
                " classes or no classes but got weight tensor of shape: ", weight->sizes());
    DTensor class_w = dev.empty(c, {n});
    devplug_dim_attrs_t attrs{};
    attrs.struct_size = sizeof(attrs);
    attrs.dim = 0;
    dev.call(DEVPLUG_OP_index_select, {dev.cast(dev.operand(*weight), c).reshape({classes}), safe}, {class_w}, &attrs);
    w = dev.ew(DEVPLUG_OP_mul, {w, class_w});
  }
  return NllParts{safe, w};
}

std::tuple<at::Tensor&, at::Tensor&> nll_loss_forward_out(const at::Tensor& self, const at::Tensor& target,
                                                          const std::optional<at::Tensor>& weight, int64_t reduction,
                                                          int64_t ignore_index, at::Tensor& output,
                                                          at::Tensor& total_weight) {
  Dev dev = Dev::of({&self, &target, &output, &total_weight});
  NllParts p = nll_parts(dev, self, target, weight, ignore_index);
  const int64_t n = p.target.numel();
  DTensor x = view_of(self).reshape({n, self.size(-1)});
  DTensor picked = dev.empty(x.dtype(), {n, 1});
  devplug_dim_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.dim = 1;
  dev.call(DEVPLUG_OP_gather, {x, p.target.reshape({n, 1})}, {picked}, &attrs);
  DTensor losses = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_neg, {picked.reshape({n})}), p.weight});
  prepare_out(total_weight, {});
  DTensor total = dev.reduce(DEVPLUG_OP_sum, p.weight, 1u).reshape({});
  dev.copy(dev.cast(total, view_of(total_weight).dtype()), view_of(total_weight));
  if (reduction == at::Reduction::None && self.dim() == 2) {
    prepare_out(output, {n});
    dev.copy(losses, view_of(output));
    return {output, total_weight};
  }
  prepare_out(output, {});
  DTensor sum = dev.reduce(DEVPLUG_OP_sum, losses, 1u).reshape({});
  DTensor result = reduction == at::Reduction::Mean ? dev.ew(DEVPLUG_OP_div, {sum, total}) : sum;
  if (reduction == at::Reduction::None) result = losses.reshape({});
  dev.copy(result, view_of(output));
  return {output, total_weight};
}
std::tuple<at::Tensor, at::Tensor> nll_loss_forward(const at::Tensor& self, const at::Tensor& target,
                                                    const std::optional<at::Tensor>& weight, int64_t reduction,
                                                    int64_t ignore_index) {
  Dev dev = Dev::of({&self, &target});
  at::Tensor output = empty_torch(dev, {}, self.scalar_type());
  at::Tensor total_weight = empty_torch(dev, {}, self.scalar_type());
  nll_loss_forward_out(self, target, weight, reduction, ignore_index, output, total_weight);
  return {output, total_weight};
}

// grad_input[i, target_i] = -weight_i * g_i (g / total_weight for the mean), 0 elsewhere.
at::Tensor& nll_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                                  const std::optional<at::Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                  const at::Tensor& total_weight, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad_output, &self, &target, &total_weight, &grad_input});
  NllParts p = nll_parts(dev, self, target, weight, ignore_index);
  const int64_t n = p.target.numel(), classes = self.size(-1);
  prepare_out(grad_input, self.sizes());
  const devplug_dtype_t c = p.weight.dtype();
  DTensor g = dev.cast(view_of(grad_output), c);
  if (reduction == at::Reduction::None && self.dim() == 2) {
    g = g.reshape({n});
  } else {
    g = g.reshape({});
    if (reduction == at::Reduction::Mean) g = dev.ew(DEVPLUG_OP_div, {g, dev.cast(view_of(total_weight), c).reshape({})});
  }
  DTensor src = dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_neg, {p.weight}), g}).reshape({n, 1});
  DTensor zeros = dev.full(c, {n, classes}, 0);
  DTensor result = dev.empty(c, {n, classes});
  devplug_dim_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.dim = 1;
  dev.call(DEVPLUG_OP_scatter, {zeros, p.target.reshape({n, 1}), src}, {result}, &attrs);
  DTensor target_view = view_of(grad_input);
  dev.copy(dev.cast(result.reshape(target_view.shape()), target_view.dtype()), target_view);
  return grad_input;
}
at::Tensor nll_loss_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                             const std::optional<at::Tensor>& weight, int64_t reduction, int64_t ignore_index,
                             const at::Tensor& total_weight) {
  at::Tensor grad_input = at::empty_like(self, at::MemoryFormat::Contiguous);
  return nll_loss_backward_out(grad_output, self, target, weight, reduction, ignore_index, total_weight, grad_input);
}

// ---- mse_loss ----------------------------------------------------------------------------------

at::Tensor& mse_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction, at::Tensor& out) {
  Dev dev = Dev::of({&self, &target, &out});
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), target.sizes());
  DTensor d = dev.ew(DEVPLUG_OP_sub, {dev.operand(self), dev.operand(target)});
  DTensor sq = dev.ew(DEVPLUG_OP_mul, {d, d});
  if (reduction == at::Reduction::None) {
    prepare_out(out, shape);
    if (out.numel() > 0) dev.copy(dev.cast(sq, view_of(out).dtype()), view_of(out));
    return out;
  }
  prepare_out(out, {});
  const uint32_t all = sq.rank() == 0 ? 0u : (1u << sq.rank()) - 1u;
  DTensor s = dev.reduce(DEVPLUG_OP_sum, sq, all).reshape({});
  if (reduction == at::Reduction::Mean) s = dev.ew(DEVPLUG_OP_div, {s, dev.scalar(s.dtype(), sq.numel())});
  dev.copy(dev.cast(s, view_of(out).dtype()), view_of(out));
  return out;
}
at::Tensor mse_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction) {
  Dev dev = Dev::of({&self, &target});
  at::Tensor out = empty_torch(dev, {}, at::result_type(self, target));
  return mse_loss_out(self, target, reduction, out);
}
// norm * (self - target) * grad, norm = 2 / numel for the mean, else 2.
at::Tensor& mse_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                                  int64_t reduction, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad_output, &self, &target, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  const double norm = reduction == at::Reduction::Mean ? 2.0 / static_cast<double>(self.numel()) : 2.0;
  DTensor d = dev.ew(DEVPLUG_OP_sub, {dev.operand(self), dev.operand(target)});
  DTensor scaled = dev.ew(DEVPLUG_OP_mul, {dev.scalar(d.dtype(), norm), d});
  dev.ew_into(DEVPLUG_OP_mul, {scaled, dev.operand(grad_output)}, view_of(grad_input));
  return grad_input;
}
at::Tensor mse_loss_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                             int64_t reduction) {
  at::Tensor grad_input = at::empty_like(self);
  return mse_loss_backward_out(grad_output, self, target, reduction, grad_input);
}

// ---- binary_cross_entropy -------------------------------------------------------------------------

// -w * (t * max(log x, -100) + (1 - t) * max(log(1 - x), -100))
at::Tensor& bce_out(const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight,
                    int64_t reduction, at::Tensor& out) {
  Dev dev = Dev::of({&self, &target, &out});
  TORCH_CHECK(self.sizes() == target.sizes(), "Using a target size (", target.sizes(), ") that is different to the "
              "input size (", self.sizes(), ") is deprecated. Please ensure they have the same size.");
  DTensor x = view_of(self), t = dev.operand(target);
  const devplug_dtype_t c = x.dtype();
  DTensor one = dev.scalar(c, 1), floor = dev.scalar(c, -100);
  DTensor log_x = dev.ew(DEVPLUG_OP_maximum, {dev.ew(DEVPLUG_OP_log, {x}), floor});
  DTensor log_1mx = dev.ew(DEVPLUG_OP_maximum, {dev.ew(DEVPLUG_OP_log, {dev.ew(DEVPLUG_OP_sub, {one, x})}), floor});
  DTensor l = dev.ew(DEVPLUG_OP_neg, {dev.ew(DEVPLUG_OP_add, {dev.ew(DEVPLUG_OP_mul, {t, log_x}),
                                                              dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {one, t}), log_1mx})})});
  if (weight.has_value() && weight->defined()) l = dev.ew(DEVPLUG_OP_mul, {l, dev.operand(*weight)});
  if (reduction == at::Reduction::None) {
    prepare_out(out, self.sizes());
    if (out.numel() > 0) dev.copy(l, view_of(out));
    return out;
  }
  prepare_out(out, {});
  const uint32_t all = l.rank() == 0 ? 0u : (1u << l.rank()) - 1u;
  DTensor s = dev.reduce(DEVPLUG_OP_sum, l, all).reshape({});
  if (reduction == at::Reduction::Mean) s = dev.ew(DEVPLUG_OP_div, {s, dev.scalar(c, l.numel())});
  dev.copy(s, view_of(out));
  return out;
}
at::Tensor bce(const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight,
               int64_t reduction) {
  at::Tensor out = empty_torch(Dev::of({&self, &target}), {}, self.scalar_type());
  return bce_out(self, target, weight, reduction, out);
}
// g * w * (x - t) / max((1 - x) * x, 1e-12), divided by numel for the mean.
at::Tensor& bce_backward_out(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                             const std::optional<at::Tensor>& weight, int64_t reduction, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad_output, &self, &target, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  DTensor x = view_of(self), t = dev.operand(target), g = dev.operand(grad_output);
  const devplug_dtype_t c = x.dtype();
  DTensor denom = dev.ew(DEVPLUG_OP_maximum, {dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {dev.scalar(c, 1), x}), x}),
                                              dev.scalar(c, 1e-12)});
  DTensor r = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {g, dev.ew(DEVPLUG_OP_sub, {x, t})}), denom});
  if (weight.has_value() && weight->defined()) r = dev.ew(DEVPLUG_OP_mul, {r, dev.operand(*weight)});
  if (reduction == at::Reduction::Mean) r = dev.ew(DEVPLUG_OP_div, {r, dev.scalar(c, self.numel())});
  dev.copy(r.expand(x.shape()), view_of(grad_input));
  return grad_input;
}
at::Tensor bce_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                        const std::optional<at::Tensor>& weight, int64_t reduction) {
  at::Tensor grad_input = at::empty_like(self);
  return bce_backward_out(grad_output, self, target, weight, reduction, grad_input);
}

// ---- smooth_l1_loss ----------------------------------------------------------------------------

// Elementwise as torch's CPU kernel: z = |x - t|; z < beta ? 0.5 * z * z / beta : z - 0.5 * beta.
// beta = 0 never reaches here (torch.nn.functional calls l1_loss for it).
DTensor smooth_l1_elements(const Dev& dev, const at::Tensor& self, const at::Tensor& target, double beta) {
  TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  const devplug_dtype_t c = require_dtype(at::result_type(self, target), "the loss input");
  DTensor z = dev.ew(DEVPLUG_OP_abs, {dev.ew(DEVPLUG_OP_sub, {dev.operand(self, c), dev.operand(target, c)})});
  DTensor b = dev.scalar(c, beta);
  DTensor quad = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_mul, {dev.scalar(c, 0.5), z}), z}), b});
  DTensor lin = dev.ew(DEVPLUG_OP_sub, {z, dev.scalar(c, 0.5 * beta)});
  return dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_lt, {z, b}), quad, lin});
}
at::Tensor& smooth_l1_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double beta,
                               at::Tensor& out) {
  Dev dev = Dev::of({&self, &target, &out});
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), target.sizes());
  DTensor l = smooth_l1_elements(dev, self, target, beta);
  if (reduction == at::Reduction::None) {
    prepare_out(out, shape);
    if (out.numel() > 0) dev.copy(dev.cast(l.expand(shape), view_of(out).dtype()), view_of(out));
    return out;
  }
  prepare_out(out, {});
  const uint32_t all = l.rank() == 0 ? 0u : (1u << l.rank()) - 1u;
  DTensor s = dev.reduce(DEVPLUG_OP_sum, l, all).reshape({});
  if (reduction == at::Reduction::Mean) s = dev.ew(DEVPLUG_OP_div, {s, dev.scalar(s.dtype(), l.numel())});
  dev.copy(dev.cast(s, view_of(out).dtype()), view_of(out));
  return out;
}
at::Tensor smooth_l1_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double beta) {
  Dev dev = Dev::of({&self, &target});
  at::Tensor out = empty_torch(dev, {}, at::result_type(self, target));
  return smooth_l1_loss_out(self, target, reduction, beta, out);
}
// d = x - t: d <= -beta ? -norm * g : d >= beta ? norm * g : norm * d * g / beta, with
// norm = 1 / numel for the mean, else 1 (torch's CPU kernel).
at::Tensor& smooth_l1_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                                        int64_t reduction, double beta, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad_output, &self, &target, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  const devplug_dtype_t c = require_dtype(grad_input.scalar_type(), "the loss gradient");
  const double norm = reduction == at::Reduction::Mean ? 1.0 / static_cast<double>(self.numel()) : 1.0;
  DTensor d = dev.ew(DEVPLUG_OP_sub, {dev.operand(self, c), dev.operand(target, c)});
  DTensor g = dev.cast(dev.operand(grad_output, c), c);
  DTensor n = dev.scalar(c, norm), b = dev.scalar(c, beta);
  DTensor pos = dev.ew(DEVPLUG_OP_mul, {n, g});
  DTensor neg = dev.ew(DEVPLUG_OP_mul, {dev.scalar(c, -norm), g});
  DTensor mid = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_mul, {n, d}), g}), b});
  DTensor r = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_ge, {d, b}), pos, mid});
  r = dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_le, {d, dev.scalar(c, -beta)}), neg, r});
  dev.copy(dev.cast(r.expand(grad_input.sizes().vec()), view_of(grad_input).dtype()), view_of(grad_input));
  return grad_input;
}
at::Tensor smooth_l1_loss_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                                   int64_t reduction, double beta) {
  at::Tensor grad_input = at::empty_like(self);
  return smooth_l1_loss_backward_out(grad_output, self, target, reduction, beta, grad_input);
}

// ---- embedding ---------------------------------------------------------------------------------------

// Row idx of the weight's gradient is the sum of the gradients of the positions that
// looked it up (scatter_add); padding_idx gets none; scale_grad_by_freq divides each
// position's share by how often its row was used in the batch.
at::Tensor embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices, int64_t num_weights,
                                    int64_t padding_idx, bool scale_grad_by_freq) {
  Dev dev = Dev::of({&grad_output, &indices});
  const int64_t n = indices.numel(), dim = grad_output.size(-1);
  at::Tensor grad_weight = empty_torch(dev, {num_weights, dim}, grad_output.scalar_type());
  DTensor result = view_of(grad_weight);
  dev.fill(result, 0);
  if (n == 0 || dim == 0) return grad_weight;
  DTensor idx = dev.cast(dev.contiguous(dev.operand(indices)), DEVPLUG_DTYPE_INT64).reshape({n});
  DTensor g = dev.contiguous(view_of(grad_output)).reshape({n, dim});
  const devplug_dtype_t c = g.dtype();
  DTensor keep = dev.cast(dev.ew(DEVPLUG_OP_ne, {idx, dev.scalar(DEVPLUG_DTYPE_INT64, padding_idx)}), c);
  DTensor scale = keep;
  devplug_dim_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.dim = 0;
  if (scale_grad_by_freq) {
    DTensor counts = dev.empty(c, {num_weights});
    dev.call(DEVPLUG_OP_scatter_add, {dev.full(c, {num_weights}, 0), idx, dev.full(c, {n}, 1)}, {counts}, &attrs);
    DTensor used = dev.empty(c, {n});
    dev.call(DEVPLUG_OP_index_select, {counts, idx}, {used}, &attrs);
    scale = dev.ew(DEVPLUG_OP_div, {keep, used});
  }
  DTensor src = dev.contiguous(dev.ew(DEVPLUG_OP_mul, {g, scale.reshape({n, 1})}));
  DTensor spread = dev.contiguous(idx.reshape({n, 1}).expand({n, dim}));
  DTensor sum = dev.empty(c, {num_weights, dim});
  dev.call(DEVPLUG_OP_scatter_add, {dev.full(c, {num_weights, dim}, 0), spread, src}, {sum}, &attrs);
  dev.copy(sum, result);
  return grad_weight;
}

}  // namespace

void register_loss_ops(Table& t) {
  t.add("nll_loss_forward", Impl::bridge, "ne, where, gather, index_select, mul, sum, div", DEVPLUG_KERNEL(nll_loss_forward));
  t.add("nll_loss_forward.output", Impl::bridge, "ne, where, gather, index_select, mul, sum, div",
        DEVPLUG_KERNEL(nll_loss_forward_out));
  t.add("nll_loss_backward", Impl::bridge, "ne, where, mul, div, scatter", DEVPLUG_KERNEL(nll_loss_backward));
  t.add("nll_loss_backward.grad_input", Impl::bridge, "ne, where, mul, div, scatter", DEVPLUG_KERNEL(nll_loss_backward_out));
  t.add("mse_loss", Impl::bridge, "sub, mul, sum, div", DEVPLUG_KERNEL(mse_loss));
  t.add("mse_loss.out", Impl::bridge, "sub, mul, sum, div", DEVPLUG_KERNEL(mse_loss_out));
  t.add("mse_loss_backward", Impl::bridge, "sub, mul", DEVPLUG_KERNEL(mse_loss_backward));
  t.add("mse_loss_backward.grad_input", Impl::bridge, "sub, mul", DEVPLUG_KERNEL(mse_loss_backward_out));
  t.add("binary_cross_entropy", Impl::bridge, "log, maximum, sub, mul, add, neg, sum, div", DEVPLUG_KERNEL(bce));
  t.add("binary_cross_entropy.out", Impl::bridge, "log, maximum, sub, mul, add, neg, sum, div", DEVPLUG_KERNEL(bce_out));
  t.add("binary_cross_entropy_backward", Impl::bridge, "sub, mul, maximum, div", DEVPLUG_KERNEL(bce_backward));
  t.add("binary_cross_entropy_backward.grad_input", Impl::bridge, "sub, mul, maximum, div",
        DEVPLUG_KERNEL(bce_backward_out));
  t.add("smooth_l1_loss", Impl::bridge, "sub, abs, mul, div, lt, where, sum", DEVPLUG_KERNEL(smooth_l1_loss));
  t.add("smooth_l1_loss.out", Impl::bridge, "sub, abs, mul, div, lt, where, sum", DEVPLUG_KERNEL(smooth_l1_loss_out));
  t.add("smooth_l1_loss_backward", Impl::bridge, "sub, mul, div, ge, le, where", DEVPLUG_KERNEL(smooth_l1_loss_backward));
  t.add("smooth_l1_loss_backward.grad_input", Impl::bridge, "sub, mul, div, ge, le, where",
        DEVPLUG_KERNEL(smooth_l1_loss_backward_out));
  t.add("embedding_dense_backward", Impl::bridge, "ne, scatter_add, index_select, mul, div",
        DEVPLUG_KERNEL(embedding_dense_backward));
}

}  // namespace devplug::bridge
