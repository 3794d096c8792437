// SPDX-License-Identifier: Apache-2.0
// Losses: nll_loss (cross_entropy is torch's log_softmax + nll_loss; nll_loss2d is the same
// op on [N, C, H, W]) with class weights, ignore_index and every reduction, and mse_loss,
// on devplug's composites; binary_cross_entropy and smooth_l1_loss, which devplug has no
// composites for, composed in the bridge from prims.
#include <ATen/Functions.h>
#include <ATen/core/Reduction.h>

#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// Throws torch's error for a class index outside [0, classes) that is not ignore_index.
// In a graph capture the host cannot wait, so the check is left out there: a bad target is
// then not torch's IndexError but, in the composite's decomposition, an index value outside
// its dim of gather, which devplug reports at the next wait for the stream (ops.def).
void check_targets(const Dev& dev, const DTensor& target, const DTensor& kept, int64_t classes) {
  if (target.numel() == 0 || dev.stream().capturing()) return;
  DTensor bad =
      dev.ew(DEVPLUG_OP_bitwise_and,
             {kept, dev.ew(DEVPLUG_OP_bitwise_or,
                           {dev.ew(DEVPLUG_OP_lt, {target, dev.scalar(DEVPLUG_DTYPE_INT64, 0)}),
                            dev.ew(DEVPLUG_OP_ge, {target, dev.scalar(DEVPLUG_DTYPE_INT64, classes)})})});
  DTensor any = dev.reduce(DEVPLUG_OP_any, bad, (1u << bad.rank()) - 1u);
  uint8_t flag = 0;
  any.reshape({}).copy_to_host(&flag, 1, &dev.stream());
  TORCH_CHECK_INDEX(flag == 0, "Target out of bounds: every target must lie in [0, ", classes,
                    ") or be ignore_index");
}

// The shape of a loss of elementwise `shape`: itself without reduction, else a scalar.
at::IntArrayRef loss_shape(at::IntArrayRef shape, int64_t reduction) {
  return reduction == at::Reduction::None ? shape : at::IntArrayRef{};
}

struct NllParts {
  DTensor target;  // int64 [N, d..] (or []), as the composite takes it
  DTensor weight;  // per-target weight, flat [M]: class weight, 0 where ignored
};

// self: [N, C, d..] or [C]; target: [N, d..] or []. Checks the targets on the device
// (torch promises an IndexError) and gives each target's weight, whose sum is torch's
// total_weight.
NllParts nll_parts(const Dev& dev, const at::Tensor& self, const at::Tensor& target,
                   const std::optional<at::Tensor>& weight, int64_t ignore_index) {
  TORCH_CHECK(self.dim() > 0, "input tensor should be 1D or more");
  const int64_t classes = self.size(self.dim() == 1 ? 0 : 1);
  std::vector<int64_t> want = self.sizes().vec();
  want.erase(want.begin() + (self.dim() == 1 ? 0 : 1));
  TORCH_CHECK(target.sizes().equals(want), "size mismatch (got input: ", self.sizes(),
              ", target: ", target.sizes(), ")");
  TORCH_CHECK(target.scalar_type() == at::kLong || target.scalar_type() == at::kByte ||
                  target.scalar_type() == at::kInt,
              "expected scalar type Long but found ", target.scalar_type());
  const devplug_dtype_t c = require_dtype(self.scalar_type(), "the loss input");
  DTensor t = dev.cast(dev.operand(target), DEVPLUG_DTYPE_INT64);
  DTensor flat = dev.contiguous(t).reshape({t.numel()});
  DTensor kept = dev.ew(DEVPLUG_OP_ne, {flat, dev.scalar(DEVPLUG_DTYPE_INT64, ignore_index)});
  check_targets(dev, flat, kept, classes);
  DTensor w = dev.cast(kept, c);
  if (given(weight)) {
    TORCH_CHECK(weight->numel() == classes, "weight tensor should be defined either for all ", classes,
                " classes or no classes but got weight tensor of shape: ", weight->sizes());
    DTensor safe = dev.ew(DEVPLUG_OP_where, {kept, flat, dev.scalar(DEVPLUG_DTYPE_INT64, 0)});
    DTensor class_w = dev.empty(c, {flat.numel()});
    const devplug_dim_attrs_t attrs = dim_attrs(0);
    dev.call(DEVPLUG_OP_index_select, {dev.cast(dev.operand(*weight), c).reshape({classes}), safe}, {class_w},
             &attrs);
    w = dev.ew(DEVPLUG_OP_mul, {w, class_w});
  }
  return NllParts{t, w};
}

OptDTensor class_weight(const Dev& dev, const std::optional<at::Tensor>& weight, devplug_dtype_t dtype) {
  if (!given(weight)) return std::nullopt;
  return dev.cast(dev.operand(*weight), dtype).reshape({weight->numel()});
}

// The nll_loss composite; total_weight is the sum of the targets' weights (what torch's
// backward gets back; the composite's own backward recomputes it).
std::tuple<at::Tensor&, at::Tensor&> nll_loss_forward_out(const at::Tensor& self, const at::Tensor& target,
                                                          const std::optional<at::Tensor>& weight,
                                                          int64_t reduction, int64_t ignore_index,
                                                          at::Tensor& output, at::Tensor& total_weight) {
  Dev dev = Dev::of({&self, &target, &output, &total_weight});
  NllParts p = nll_parts(dev, self, target, weight, ignore_index);
  prepare_out(total_weight, {});
  DTensor total = dev.reduce(DEVPLUG_OP_sum, p.weight, 1u).reshape({});
  dev.copy(dev.cast(total, view_of(total_weight).dtype()), view_of(total_weight));
  prepare_out(output, loss_shape(target.sizes(), reduction));
  if (output.numel() == 0) return {output, total_weight};
  DTensor x = view_of(self);
  devplug_loss_attrs_t attrs{sizeof(attrs), static_cast<int32_t>(reduction), ignore_index, 0.0};
  dev.composite_into(DEVPLUG_OP_nll_loss, {x, p.target, class_weight(dev, weight, x.dtype())},
                     view_of(output), &attrs);
  return {output, total_weight};
}
std::tuple<at::Tensor, at::Tensor> nll_loss_forward(const at::Tensor& self, const at::Tensor& target,
                                                    const std::optional<at::Tensor>& weight,
                                                    int64_t reduction, int64_t ignore_index) {
  Dev dev = Dev::of({&self, &target});
  at::Tensor output = empty_torch(dev, loss_shape(target.sizes(), reduction), self.scalar_type());
  at::Tensor total_weight = empty_torch(dev, {}, self.scalar_type());
  nll_loss_forward_out(self, target, weight, reduction, ignore_index, output, total_weight);
  return {output, total_weight};
}

// The nll_loss_backward composite (the forward checked the targets).
at::Tensor& nll_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                  const at::Tensor& target, const std::optional<at::Tensor>& weight,
                                  int64_t reduction, int64_t ignore_index, const at::Tensor& /*total_weight*/,
                                  at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad_output, &self, &target, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  DTensor x = view_of(self);
  DTensor t = dev.cast(dev.operand(target), DEVPLUG_DTYPE_INT64);
  DTensor g = dev.cast(dev.operand(grad_output), x.dtype());
  if (reduction != at::Reduction::None) g = g.reshape({});
  devplug_loss_attrs_t attrs{sizeof(attrs), static_cast<int32_t>(reduction), ignore_index, 0.0};
  dev.composite_into(DEVPLUG_OP_nll_loss_backward, {g, x, t, class_weight(dev, weight, x.dtype())},
                     view_of(grad_input), &attrs);
  return grad_input;
}
at::Tensor nll_loss_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                             const std::optional<at::Tensor>& weight, int64_t reduction, int64_t ignore_index,
                             const at::Tensor& total_weight) {
  at::Tensor grad_input = at::empty_like(self, at::MemoryFormat::Contiguous);
  return nll_loss_backward_out(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                               grad_input);
}

// ---- mse_loss ----------------------------------------------------------------------------------

// The mse_loss composites take input and target of one shape and floating dtype (what
// torch.nn.functional passes); other calls are composed here.
bool mse_composite(const at::Tensor& self, const at::Tensor& target) {
  return self.sizes().equals(target.sizes()) && self.scalar_type() == target.scalar_type() &&
         c10::isFloatingType(self.scalar_type()) && target.device() == self.device();
}

at::Tensor& mse_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                         at::Tensor& out) {
  Dev dev = Dev::of({&self, &target, &out});
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), target.sizes());
  if (mse_composite(self, target)) {
    prepare_out(out, loss_shape(shape, reduction));
    devplug_loss_attrs_t attrs{sizeof(attrs), static_cast<int32_t>(reduction), -100, 0.0};
    if (out.numel() > 0)
      dev.composite_into(DEVPLUG_OP_mse_loss, {view_of(self), view_of(target)}, view_of(out), &attrs);
    return out;
  }
  DTensor d = dev.ew(DEVPLUG_OP_sub, {dev.operand(self), dev.operand(target)});
  DTensor sq = dev.ew(DEVPLUG_OP_mul, {d, d});
  if (reduction == at::Reduction::None) {
    prepare_out(out, shape);
    if (out.numel() > 0) dev.copy(dev.cast(sq, view_of(out).dtype()), view_of(out));
    return out;
  }
  prepare_out(out, {});
  const uint32_t all = sq.rank() == 0 ? 0u : (1u << sq.rank()) - 1u;
  DTensor s = dev.reduce(DEVPLUG_OP_sum, dev.cast(sq, opmath(sq.dtype())), all).reshape({});
  if (reduction == at::Reduction::Mean) s = dev.ew(DEVPLUG_OP_div, {s, dev.scalar(s.dtype(), sq.numel())});
  dev.copy(dev.cast(s, view_of(out).dtype()), view_of(out));
  return out;
}
at::Tensor mse_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction) {
  Dev dev = Dev::of({&self, &target});
  at::Tensor out = empty_torch(dev, loss_shape(at::infer_size(self.sizes(), target.sizes()), reduction),
                               at::result_type(self, target));
  return mse_loss_out(self, target, reduction, out);
}
// norm * (self - target) * grad, norm = 2 / numel for the mean, else 2.
at::Tensor& mse_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                  const at::Tensor& target, int64_t reduction, at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad_output, &self, &target, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  if (mse_composite(self, target)) {
    devplug_loss_attrs_t attrs{sizeof(attrs), static_cast<int32_t>(reduction), -100, 0.0};
    DTensor x = view_of(self);
    dev.composite_into(DEVPLUG_OP_mse_loss_backward,
                       {dev.cast(dev.operand(grad_output), x.dtype()), x, view_of(target)},
                       view_of(grad_input), &attrs);
    return grad_input;
  }
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
  TORCH_CHECK(self.sizes() == target.sizes(), "Using a target size (", target.sizes(),
              ") that is different to the "
              "input size (",
              self.sizes(), ") is deprecated. Please ensure they have the same size.");
  DTensor x = view_of(self), t = dev.operand(target);
  const devplug_dtype_t c = x.dtype();
  DTensor one = dev.scalar(c, 1), floor = dev.scalar(c, -100);
  DTensor log_x = dev.ew(DEVPLUG_OP_maximum, {dev.ew(DEVPLUG_OP_log, {x}), floor});
  DTensor log_1mx =
      dev.ew(DEVPLUG_OP_maximum, {dev.ew(DEVPLUG_OP_log, {dev.ew(DEVPLUG_OP_sub, {one, x})}), floor});
  DTensor l =
      dev.ew(DEVPLUG_OP_neg,
             {dev.ew(DEVPLUG_OP_add, {dev.ew(DEVPLUG_OP_mul, {t, log_x}),
                                      dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {one, t}), log_1mx})})});
  if (given(weight)) l = dev.ew(DEVPLUG_OP_mul, {l, dev.operand(*weight)});
  if (reduction == at::Reduction::None) {
    prepare_out(out, self.sizes());
    if (out.numel() > 0) dev.copy(l, view_of(out));
    return out;
  }
  prepare_out(out, {});
  const uint32_t all = l.rank() == 0 ? 0u : (1u << l.rank()) - 1u;
  DTensor s = dev.reduce(DEVPLUG_OP_sum, dev.cast(l, opmath(c)), all).reshape({});
  if (reduction == at::Reduction::Mean) s = dev.ew(DEVPLUG_OP_div, {s, dev.scalar(s.dtype(), l.numel())});
  dev.copy(dev.cast(s, c), view_of(out));
  return out;
}
at::Tensor bce(const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight,
               int64_t reduction) {
  at::Tensor out = empty_torch(Dev::of({&self, &target}), {}, self.scalar_type());
  return bce_out(self, target, weight, reduction, out);
}
// g * w * (x - t) / max((1 - x) * x, 1e-12), divided by numel for the mean.
at::Tensor& bce_backward_out(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                             const std::optional<at::Tensor>& weight, int64_t reduction,
                             at::Tensor& grad_input) {
  Dev dev = Dev::of({&grad_output, &self, &target, &grad_input});
  prepare_out(grad_input, self.sizes());
  if (self.numel() == 0) return grad_input;
  DTensor x = view_of(self), t = dev.operand(target), g = dev.operand(grad_output);
  const devplug_dtype_t c = x.dtype();
  DTensor denom = dev.ew(
      DEVPLUG_OP_maximum,
      {dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_sub, {dev.scalar(c, 1), x}), x}), dev.scalar(c, 1e-12)});
  DTensor r = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_mul, {g, dev.ew(DEVPLUG_OP_sub, {x, t})}), denom});
  if (given(weight)) r = dev.ew(DEVPLUG_OP_mul, {r, dev.operand(*weight)});
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
  DTensor z =
      dev.ew(DEVPLUG_OP_abs, {dev.ew(DEVPLUG_OP_sub, {dev.operand(self, c), dev.operand(target, c)})});
  DTensor b = dev.scalar(c, beta);
  DTensor quad = dev.ew(DEVPLUG_OP_div,
                        {dev.ew(DEVPLUG_OP_mul, {dev.ew(DEVPLUG_OP_mul, {dev.scalar(c, 0.5), z}), z}), b});
  DTensor lin = dev.ew(DEVPLUG_OP_sub, {z, dev.scalar(c, 0.5 * beta)});
  return dev.ew(DEVPLUG_OP_where, {dev.ew(DEVPLUG_OP_lt, {z, b}), quad, lin});
}
at::Tensor& smooth_l1_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                               double beta, at::Tensor& out) {
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
  DTensor s = dev.reduce(DEVPLUG_OP_sum, dev.cast(l, opmath(l.dtype())), all).reshape({});
  if (reduction == at::Reduction::Mean) s = dev.ew(DEVPLUG_OP_div, {s, dev.scalar(s.dtype(), l.numel())});
  dev.copy(dev.cast(s, view_of(out).dtype()), view_of(out));
  return out;
}
at::Tensor smooth_l1_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double beta) {
  Dev dev = Dev::of({&self, &target});
  at::Tensor out = empty_torch(dev, loss_shape(at::infer_size(self.sizes(), target.sizes()), reduction),
                               at::result_type(self, target));
  return smooth_l1_loss_out(self, target, reduction, beta, out);
}
// d = x - t: d <= -beta ? -norm * g : d >= beta ? norm * g : norm * d * g / beta, with
// norm = 1 / numel for the mean, else 1 (torch's CPU kernel).
at::Tensor& smooth_l1_loss_backward_out(const at::Tensor& grad_output, const at::Tensor& self,
                                        const at::Tensor& target, int64_t reduction, double beta,
                                        at::Tensor& grad_input) {
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
at::Tensor smooth_l1_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                   const at::Tensor& target, int64_t reduction, double beta) {
  at::Tensor grad_input = at::empty_like(self);
  return smooth_l1_loss_backward_out(grad_output, self, target, reduction, beta, grad_input);
}

}  // namespace

void register_loss_ops(Table& t) {
  const auto C = Impl::composite, B = Impl::bridge;
  // The bridge checks the targets and sums their weights (torch's total_weight) itself.
  const char* nll = "nll_loss; ne, where, index_select, any, sum (target check, total_weight)";
  t.add("nll_loss_forward", C, nll, DEVPLUG_KERNEL(nll_loss_forward));
  t.add("nll_loss_forward.output", C, nll, DEVPLUG_KERNEL(nll_loss_forward_out));
  t.add("nll_loss2d_forward", C, nll, DEVPLUG_KERNEL(nll_loss_forward));
  t.add("nll_loss2d_forward.output", C, nll, DEVPLUG_KERNEL(nll_loss_forward_out));
  t.add("nll_loss_backward", C, "nll_loss_backward", DEVPLUG_KERNEL(nll_loss_backward));
  t.add("nll_loss_backward.grad_input", C, "nll_loss_backward", DEVPLUG_KERNEL(nll_loss_backward_out));
  t.add("nll_loss2d_backward", C, "nll_loss_backward", DEVPLUG_KERNEL(nll_loss_backward));
  t.add("nll_loss2d_backward.grad_input", C, "nll_loss_backward", DEVPLUG_KERNEL(nll_loss_backward_out));
  const char* mse = "mse_loss (input and target of one shape and dtype); else sub, mul, sum, div";
  t.add("mse_loss", C, mse, DEVPLUG_KERNEL(mse_loss));
  t.add("mse_loss.out", C, mse, DEVPLUG_KERNEL(mse_loss_out));
  const char* mse_backward = "mse_loss_backward (input and target of one shape and dtype); else sub, mul";
  t.add("mse_loss_backward", C, mse_backward, DEVPLUG_KERNEL(mse_loss_backward));
  t.add("mse_loss_backward.grad_input", C, mse_backward, DEVPLUG_KERNEL(mse_loss_backward_out));
  t.add("binary_cross_entropy", B, "log, maximum, sub, mul, add, neg, sum, div", DEVPLUG_KERNEL(bce));
  t.add("binary_cross_entropy.out", B, "log, maximum, sub, mul, add, neg, sum, div", DEVPLUG_KERNEL(bce_out));
  t.add("binary_cross_entropy_backward", B, "sub, mul, maximum, div", DEVPLUG_KERNEL(bce_backward));
  t.add("binary_cross_entropy_backward.grad_input", B, "sub, mul, maximum, div",
        DEVPLUG_KERNEL(bce_backward_out));
  t.add("smooth_l1_loss", B, "sub, abs, mul, div, lt, where, sum", DEVPLUG_KERNEL(smooth_l1_loss));
  t.add("smooth_l1_loss.out", B, "sub, abs, mul, div, lt, where, sum", DEVPLUG_KERNEL(smooth_l1_loss_out));
  t.add("smooth_l1_loss_backward", B, "sub, mul, div, ge, le, where",
        DEVPLUG_KERNEL(smooth_l1_loss_backward));
  t.add("smooth_l1_loss_backward.grad_input", B, "sub, mul, div, ge, le, where",
        DEVPLUG_KERNEL(smooth_l1_loss_backward_out));
}

}  // namespace devplug::bridge
