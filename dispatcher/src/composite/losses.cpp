// SPDX-License-Identifier: Apache-2.0
// Decompositions of the losses (nll_loss, cross_entropy, mse_loss) and their backward ops.
// cross_entropy goes through the log_softmax composite (a plugin's native one when it has
// it); ignored targets take class 0 for the gather and are masked out afterwards.
#include "common.hpp"

namespace devplug::detail::composite {
namespace {

// What the class losses share: the class dim, which targets count, the targets made safe to
// gather with, and each target's weight (0 where ignored).
struct Targets {
  int32_t class_dim;
  int64_t classes;
  Tensor valid;          // bool, the target's shape
  Tensor safe;           // int64 targets, ignored ones replaced by 0
  Tensor weight;         // weight[target] or 1, 0 where ignored; the computation dtype
  Tensor class_weights;  // weight viewed to broadcast along the class dim, or NULL
};

Targets targets(Prims& p, const Call& c, const Tensor& x, size_t target_input, size_t weight_input) {
  const auto& a = c.attrs_as<devplug_loss_attrs_t>();
  Targets t;
  const int32_t rank = x->layout.rank;
  t.class_dim = rank == 1 ? 0 : 1;
  t.classes = x->layout.shape[t.class_dim];
  const Tensor target = input(c, target_input);
  t.valid =
      p.binary(DEVPLUG_OP_ne, target, p.scalar(DEVPLUG_DTYPE_INT64, devplug_scalar_t{0.0, a.ignore_index}));
  t.safe = p.where(t.valid, target, p.scalar(DEVPLUG_DTYPE_INT64, 0.0));
  const devplug_dtype_t d = x->layout.dtype;
  const Tensor zero = p.scalar(d, 0.0);
  if (const Tensor w = input_c(p, c, weight_input)) {
    const Shape shape = shape_of(*target);
    const Tensor picked = p.reshape(p.index_select(w, 0, p.reshape(t.safe, {numel(shape)})), shape);
    t.weight = p.where(t.valid, picked, zero);
    Shape view(static_cast<size_t>(rank - t.class_dim), 1);
    view[0] = t.classes;
    t.class_weights = p.reshape(w, view);
  } else {
    t.weight = p.where(t.valid, p.scalar(d, 1.0), zero);
  }
  return t;
}

// input[.., target, ..] along the class dim, shaped like the target.
Tensor at_target(Prims& p, const Tensor& values, const Targets& t) {
  return p.squeeze(p.gather(values, t.class_dim, p.unsqueeze(t.safe, t.class_dim)), t.class_dim);
}

// The loss reduced as attrs.reduction says: none, sum, or sum / `denominator`.
Tensor reduced(Prims& p, const Call& c, const Tensor& loss, const Tensor& denominator) {
  const int32_t reduction = c.attrs_as<devplug_loss_attrs_t>().reduction;
  if (reduction == DEVPLUG_REDUCTION_NONE) return loss;
  Tensor sum = p.reshape(p.reduce(DEVPLUG_OP_sum, loss, dims_from(0, loss->layout.rank)), {});
  if (reduction == DEVPLUG_REDUCTION_SUM) return sum;
  return p.binary(DEVPLUG_OP_div, sum, denominator);
}

// Sum of all elements as a 0-d tensor.
Tensor total(Prims& p, const Tensor& t) {
  return p.reshape(p.reduce(DEVPLUG_OP_sum, t, dims_from(0, t->layout.rank)), {});
}

// The grad each loss element sees: grad itself (none), or the 0-d grad (sum), divided by
// `denominator` (mean).
Tensor element_grad(Prims& p, const Call& c, const Tensor& grad, const Tensor& denominator) {
  if (c.attrs_as<devplug_loss_attrs_t>().reduction == DEVPLUG_REDUCTION_MEAN)
    return p.binary(DEVPLUG_OP_div, grad, denominator);
  return grad;
}

// `v` (the target's shape) with a size-1 class dim, to broadcast along the classes.
Tensor along_classes(Prims& p, const Tensor& v, const Targets& t) { return p.unsqueeze(v, t.class_dim); }

// A zero tensor like `x` with `v` (the target's shape) at each target class.
Tensor one_hot_scaled(Prims& p, const Tensor& x, const Targets& t, const Tensor& v) {
  return p.scatter_add(p.full(x->layout.dtype, shape_of(*x), 0.0), t.class_dim,
                       p.unsqueeze(t.safe, t.class_dim), along_classes(p, v, t));
}

Tensor log_softmax_of(Prims& p, const Tensor& x, int32_t class_dim,
                      devplug_op_t op = DEVPLUG_OP_log_softmax) {
  Tensor out = p.empty(x->layout.dtype, shape_of(*x));
  devplug_dim_attrs_t attrs{sizeof(attrs), class_dim};
  p.run(op, {x}, {out}, &attrs);
  return out;
}

}  // namespace

// -weight[t] input[t] for counted targets, 0 for ignored ones; mean divides by the weights
// taken.
void decompose_nll_loss(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0);
  const Targets t = targets(p, c, x, 1, 2);
  const Tensor loss =
      p.where(t.valid, p.unary(DEVPLUG_OP_neg, p.binary(DEVPLUG_OP_mul, at_target(p, x, t), t.weight)),
              p.scalar(x->layout.dtype, 0.0));
  store(p, c, 0, reduced(p, c, loss, total(p, t.weight)));
}

// (1 - s) nll_loss(log_softmax(x)) + s / C * smooth, smooth = -sum_c weight[c] lsm[c] for
// counted targets; reduced like nll_loss, with the same denominator for mean.
void decompose_cross_entropy(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_loss_attrs_t>();
  const Tensor x = input_c(p, c, 0);
  if (numel(shape_of(*x)) == 0 && a.reduction == DEVPLUG_REDUCTION_NONE) return;
  const Targets t = targets(p, c, x, 1, 2);
  const Tensor lsm = log_softmax_of(p, x, t.class_dim);
  const devplug_dtype_t d = x->layout.dtype;
  const Tensor zero = p.scalar(d, 0.0);
  const Tensor nll = p.where(
      t.valid, p.unary(DEVPLUG_OP_neg, p.binary(DEVPLUG_OP_mul, at_target(p, lsm, t), t.weight)), zero);
  const Tensor denominator = total(p, t.weight);
  Tensor loss = reduced(p, c, nll, denominator);
  if (a.label_smoothing > 0) {
    const Tensor weighted = t.class_weights ? p.binary(DEVPLUG_OP_mul, lsm, t.class_weights) : lsm;
    const Tensor smooth =
        p.where(t.valid,
                p.unary(DEVPLUG_OP_neg,
                        p.squeeze(p.reduce(DEVPLUG_OP_sum, weighted, 1u << t.class_dim), t.class_dim)),
                zero);
    loss = p.binary(DEVPLUG_OP_add, p.binary(DEVPLUG_OP_mul, loss, 1.0 - a.label_smoothing),
                    p.binary(DEVPLUG_OP_mul, reduced(p, c, smooth, denominator),
                             a.label_smoothing / static_cast<double>(t.classes)));
  }
  store(p, c, 0, loss);
}

// (x - t)^2, reduced; mean divides by the element count (0 / 0 = NaN when empty).
void decompose_mse_loss(Prims& p, const Call& c) {
  const Tensor x = input_c(p, c, 0), target = input_c(p, c, 1);
  const Tensor diff = p.binary(DEVPLUG_OP_sub, x, target);
  const Tensor sq = p.binary(DEVPLUG_OP_mul, diff, diff);
  store(p, c, 0, reduced(p, c, sq, p.scalar(x->layout.dtype, static_cast<double>(numel(shape_of(*x))))));
}

// ---- backward -------------------------------------------------------------------------

// -weight[t] g at the target class, 0 elsewhere and for ignored targets.
void decompose_nll_loss_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), x = input_c(p, c, 1);
  const Targets t = targets(p, c, x, 2, 3);
  const Tensor ge = element_grad(p, c, g, total(p, t.weight));
  // Ignored targets get nothing, also when the mean's denominator is 0 (grad / 0 is Inf).
  const Tensor v = p.where(t.valid, p.binary(DEVPLUG_OP_mul, p.unary(DEVPLUG_OP_neg, t.weight), ge),
                           p.scalar(x->layout.dtype, 0.0));
  store(p, c, 0, one_hot_scaled(p, x, t, v));
}

// Per counted sample, with sm = softmax(x) and w_t its target's weight:
// (1 - s) (w_t sm - w_t onehot(t)) + s / C (sm sum_c weight[c] - weight), times its grad.
void decompose_cross_entropy_backward(Prims& p, const Call& c) {
  const auto& a = c.attrs_as<devplug_loss_attrs_t>();
  const Tensor g = input_c(p, c, 0), x = input_c(p, c, 1);
  if (numel(shape_of(*x)) == 0) return;
  const Targets t = targets(p, c, x, 2, 3);
  const Tensor sm = log_softmax_of(p, x, t.class_dim, DEVPLUG_OP_softmax);
  const Tensor ge = element_grad(p, c, g, total(p, t.weight));
  const Tensor zero = p.scalar(x->layout.dtype, 0.0);
  const Tensor wg = p.where(t.valid, p.binary(DEVPLUG_OP_mul, t.weight, ge), zero);  // the target's shape
  Tensor grad = p.binary(DEVPLUG_OP_sub, p.binary(DEVPLUG_OP_mul, sm, along_classes(p, wg, t)),
                         one_hot_scaled(p, x, t, wg));
  if (a.label_smoothing > 0) {
    const devplug_dtype_t d = x->layout.dtype;
    const Tensor counted = p.where(t.valid, ge, zero);  // each counted sample's grad
    const Tensor sum_w =
        t.class_weights ? total(p, t.class_weights) : p.scalar(d, static_cast<double>(t.classes));
    const Tensor w = t.class_weights ? t.class_weights : p.scalar(d, 1.0);
    const Tensor smooth =
        p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_sub, p.binary(DEVPLUG_OP_mul, sm, sum_w), w),
                 along_classes(p, counted, t));
    grad = p.binary(DEVPLUG_OP_add, p.binary(DEVPLUG_OP_mul, grad, 1.0 - a.label_smoothing),
                    p.binary(DEVPLUG_OP_mul, smooth, a.label_smoothing / static_cast<double>(t.classes)));
  }
  store(p, c, 0, grad);
}

// 2 (x - t) g, divided by n for mean.
void decompose_mse_loss_backward(Prims& p, const Call& c) {
  const Tensor g = input_c(p, c, 0), x = input_c(p, c, 1), target = input_c(p, c, 2);
  const Tensor ge =
      element_grad(p, c, g, p.scalar(x->layout.dtype, static_cast<double>(numel(shape_of(*x)))));
  finish(p, c, 0, DEVPLUG_OP_mul, {p.binary(DEVPLUG_OP_mul, p.binary(DEVPLUG_OP_sub, x, target), 2.0), ge});
}

}  // namespace devplug::detail::composite
