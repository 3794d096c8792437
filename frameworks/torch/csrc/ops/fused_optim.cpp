// SPDX-License-Identifier: Apache-2.0
// torch.optim.Adam, AdamW and SGD with fused=True on devplug devices (_fused_adam_,
// _fused_adamw_, _fused_sgd_):
// one fused program (devplug_fused_program_run) per parameter, which a plugin with the
// fused_programs extension runs as one kernel (the OpenCL plugin) and the dispatcher runs op by
// op elsewhere.
//
// The program is the step of torch's foreach path (torch.optim.adam._multi_tensor_adam with
// capturable=False, torch.optim.sgd._multi_tensor_sgd) as devplug runs it, node for node: the same prims, in the same order, on
// the parameter's dtype, with each number made on the device as the foreach kernels make it
// (foreach.cpp: a Python number of a mul, div or add as a wrapped scalar; lerp's weight,
// addcmul's and addcdiv's values and add's alpha as Dev::scalar). So fused=True gives the
// foreach results bit for bit, in one launch per parameter instead of a dozen. The bias
// corrections come from each step's value, read on the host once per call (as the foreach
// path reads them), in double as Python computes them.
//
// As torch's CUDA kernels: the steps are already counted when the kernel runs; with
// `found_inf` set to a nonzero value the step changes nothing; with `grad_scale` each
// gradient is divided by it (in float32) and written back unscaled before the step uses it.
// The lr tensor of the tensor_lr overloads is read on the host.
#include <ATen/ATen.h>

#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "devplug/sdk/fused_program.hpp"
#include "kernel.hpp"
#include "ops/ops.hpp"
#include "storage.hpp"

namespace devplug::bridge {
namespace {

// What decides a step's program.
struct AdamKind {
  devplug_dtype_t dtype;  // the parameters' (and the program's arithmetic)
  bool decoupled;         // AdamW: the weight decay scales the parameter
  bool amsgrad, maximize;
  bool weight_decay;  // weight_decay != 0
  bool unit_decay;    // Adam with weight_decay == 1: the gradient adds the parameter unscaled
  bool unscale;       // grad_scale given
  bool low_weight;    // |1 - beta1| < 0.5: lerp's first form
  using Key = std::tuple<devplug_dtype_t, bool, bool, bool, bool, bool, bool, bool>;
  Key key() const {
    return {dtype, decoupled, amsgrad, maximize, weight_decay, unit_decay, unscale, low_weight};
  }
};

// The gradient a step uses, as nodes of `p`: the gradient input `grad`, divided by the scale
// `scale` in float32 and rounded back (when `unscale`; `*unscaled` gets that value, the
// gradient written back, else `grad`), negated (`maximize`: _foreach_neg), plus the parameter
// times `decay` (`weight_decay`: _foreach_add(grads, params, alpha=wd), the parameter unscaled
// when `unit_decay`).
devplug_fused_value_t step_gradient(sdk::FusedProgram& p, devplug_dtype_t c, devplug_fused_value_t param,
                                    devplug_fused_value_t grad, bool unscale, devplug_fused_value_t scale,
                                    bool maximize, bool weight_decay, bool unit_decay,
                                    devplug_fused_value_t decay, devplug_fused_value_t* unscaled) {
  const devplug_dtype_t f32 = DEVPLUG_DTYPE_FLOAT32;
  devplug_fused_value_t g = grad;
  if (unscale) {
    const devplug_fused_value_t wide = c == f32 ? grad : p.node(DEVPLUG_OP_convert_element_type, f32, {grad});
    const devplug_fused_value_t divided = p.node(DEVPLUG_OP_div, f32, {wide, scale});
    g = c == f32 ? divided : p.node(DEVPLUG_OP_convert_element_type, c, {divided});
  }
  *unscaled = g;
  if (maximize) g = p.node(DEVPLUG_OP_neg, c, {g});
  if (weight_decay)
    g = p.node(DEVPLUG_OP_add, c, {g, unit_decay ? param : p.node(DEVPLUG_OP_mul, c, {param, decay})});
  return g;
}

// The program of `k`. Inputs: param, grad, exp_avg, exp_avg_sq, [max_exp_avg_sq], then the
// numbers: [grad_scale (float32)], [1 - lr * wd (AdamW) or wd (Adam, unless 1)], lerp's weight
// (w or 1 - w), beta2, 1 - beta2, sqrt(bias_correction2), eps, step_size. Outputs: param,
// exp_avg, exp_avg_sq, [max_exp_avg_sq], [grad].
sdk::FusedProgram adam_program(const AdamKind& k) {
  using sdk::FusedProgram;
  const devplug_dtype_t c = k.dtype, f32 = DEVPLUG_DTYPE_FLOAT32;
  FusedProgram p;
  p.inputs = {c, c, c, c};
  if (k.amsgrad) p.inputs.push_back(c);
  const devplug_fused_value_t param = 0, grad = 1, exp_avg = 2, exp_avg_sq = 3, max_sq = 4;
  devplug_fused_value_t next = static_cast<devplug_fused_value_t>(p.inputs.size());
  auto number = [&](devplug_dtype_t dtype) {
    p.inputs.push_back(dtype);
    return next++;
  };
  const devplug_fused_value_t scale = k.unscale ? number(f32) : 0;
  const devplug_fused_value_t decay = k.weight_decay && !k.unit_decay ? number(c) : 0;
  const devplug_fused_value_t weight = number(c), beta2 = number(c), one_minus_beta2 = number(c),
                              bc2_sqrt = number(c), eps = number(c), step_size = number(c);
  auto node = [&](devplug_op_t op, devplug_dtype_t dtype, std::initializer_list<devplug_fused_value_t> args) {
    return p.node(op, dtype, args);
  };

  devplug_fused_value_t unscaled = grad;
  const devplug_fused_value_t g =
      step_gradient(p, c, param, grad, k.unscale, scale, k.maximize, k.weight_decay && !k.decoupled,
                    k.unit_decay, decay, &unscaled);
  // AdamW: _foreach_mul_(params, 1 - lr * wd)
  const devplug_fused_value_t w =
      k.weight_decay && k.decoupled ? node(DEVPLUG_OP_mul, c, {param, decay}) : param;
  // _foreach_lerp_(exp_avgs, grads, 1 - beta1) (lerp_scalar_out's two forms)
  const devplug_fused_value_t diff = node(DEVPLUG_OP_sub, c, {g, exp_avg});
  const devplug_fused_value_t m =
      k.low_weight ? node(DEVPLUG_OP_add, c, {exp_avg, node(DEVPLUG_OP_mul, c, {weight, diff})})
                   : node(DEVPLUG_OP_sub, c, {g, node(DEVPLUG_OP_mul, c, {diff, weight})});
  // _foreach_mul_(exp_avg_sqs, beta2); _foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
  const devplug_fused_value_t decayed = node(DEVPLUG_OP_mul, c, {exp_avg_sq, beta2});
  const devplug_fused_value_t scaled = node(DEVPLUG_OP_mul, c, {one_minus_beta2, g});
  const devplug_fused_value_t v = node(DEVPLUG_OP_add, c, {decayed, node(DEVPLUG_OP_mul, c, {scaled, g})});
  // [_foreach_maximum_(max_exp_avg_sqs, exp_avg_sqs)]; sqrt; div_(bc2_sqrt); add_(eps)
  const devplug_fused_value_t vmax = k.amsgrad ? node(DEVPLUG_OP_maximum, c, {max_sq, v}) : v;
  const devplug_fused_value_t root = node(DEVPLUG_OP_sqrt, c, {vmax});
  const devplug_fused_value_t denom =
      node(DEVPLUG_OP_add, c, {node(DEVPLUG_OP_div, c, {root, bc2_sqrt}), eps});
  // _foreach_addcdiv_(params, exp_avgs, denom, step_size)
  const devplug_fused_value_t step =
      node(DEVPLUG_OP_div, c, {node(DEVPLUG_OP_mul, c, {step_size, m}), denom});
  const devplug_fused_value_t updated = node(DEVPLUG_OP_add, c, {w, step});
  p.outputs = {updated, m, v};
  if (k.amsgrad) p.outputs.push_back(vmax);
  if (k.unscale) p.outputs.push_back(unscaled);
  return p;
}

// The program `make(kind, &flag)` builds, made once per device and kind for the process, and
// the flag `make` gave with it (SGD: whether the momentum buffer is an output).
template <typename Kind, typename Make>
std::pair<devplug_fused_program_t*, bool> program_on(const Dev& dev, const Kind& kind, const Make& make) {
  static std::mutex mutex;
  static std::map<std::tuple<c10::DeviceIndex, typename Kind::Key>, std::pair<devplug_fused_program_t*, bool>>
      programs;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, made] =
      programs.emplace(std::make_tuple(dev.index(), kind.key()), std::make_pair(nullptr, false));
  if (made) {
    const sdk::FusedProgram p = make(kind, &it->second.second);
    const devplug_fused_program_desc_t desc = p.desc();
    try {
      api_detail::check(devplug_fused_program_create(dev.device().handle(), &desc, &it->second.first));
    } catch (...) {
      programs.erase(it);
      throw;
    }
  }
  return it->second;
}

// Runs `program` on `dev`'s current stream over `in` and `out`.
void run_program(const Dev& dev, devplug_fused_program_t* program, const std::vector<DTensor>& in,
                 const std::vector<DTensor>& out) {
  std::vector<devplug_tensor_t*> in_handles, out_handles;
  for (const DTensor& t : in) in_handles.push_back(t.handle());
  for (const DTensor& t : out) out_handles.push_back(t.handle());
  api_detail::check(devplug_fused_program_run(dev.stream().handle(), program, in_handles.data(),
                                              in_handles.size(), out_handles.data(), out_handles.size()));
}

// The values of `steps` (tensors of one element) on the host, read with one copy, as the
// foreach path's step.item() reads each.
std::vector<double> step_values(at::TensorList steps) {
  std::vector<at::Tensor> flat;
  for (const at::Tensor& s : steps) {
    TORCH_CHECK(s.numel() == 1, "devplug: a fused Adam step's state_steps hold one element each, got ",
                s.sizes());
    flat.push_back(s.reshape({1}));
  }
  const at::Tensor host = at::cat(flat).cpu().to(at::kDouble);
  const double* data = host.data_ptr<double>();
  return std::vector<double>(data, data + host.numel());
}

void fused_adam_step(bool decoupled, at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                     at::TensorList exp_avg_sqs, at::TensorList max_exp_avg_sqs, at::TensorList state_steps,
                     double lr, double beta1, double beta2, double weight_decay, double eps, bool amsgrad,
                     bool maximize, const std::optional<at::Tensor>& grad_scale,
                     const std::optional<at::Tensor>& found_inf) {
  const char* name = decoupled ? "_fused_adamw_" : "_fused_adam_";
  const size_t n = params.size();
  TORCH_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n &&
                  state_steps.size() == n && (!amsgrad || max_exp_avg_sqs.size() == n),
              "devplug: ", name, ": the tensor lists must be as long as the parameters (", n, ")");
  if (n == 0) return;
  if (found_inf.has_value() && found_inf->defined() && found_inf->item<double>() != 0) return;
  for (size_t i = 0; i < n; ++i) {
    const at::Tensor& p = params[i];
    TORCH_CHECK(at::isFloatingType(p.scalar_type()), "devplug: ", name, " takes floating parameters, got ",
                p.scalar_type());
    for (const at::Tensor* t : {&grads[i], &exp_avgs[i], &exp_avg_sqs[i], amsgrad ? &max_exp_avg_sqs[i] : &p})
      TORCH_CHECK(t->defined() && t->scalar_type() == p.scalar_type() && t->sizes() == p.sizes() &&
                      t->device() == p.device(),
                  "devplug: ", name, ": parameter ", i, "'s gradient and states must have its dtype (",
                  p.scalar_type(), "), shape ", p.sizes(), " and device ", p.device());
  }
  const std::vector<double> steps = step_values(state_steps);
  const double w = 1 - beta1;
  // One set of numbers per step value (usually one for the call) and device.
  std::map<std::tuple<c10::DeviceIndex, at::ScalarType, double>, std::vector<DTensor>> numbers;
  for (size_t i = 0; i < n; ++i) {
    const at::Tensor& param = params[i];
    Dev dev = Dev::of(param);
    const devplug_dtype_t c = require_dtype(param.scalar_type(), "the parameter's dtype");
    AdamKind kind{c,
                  decoupled,
                  amsgrad,
                  maximize,
                  weight_decay != 0,
                  !decoupled && weight_decay == 1,
                  grad_scale.has_value() && grad_scale->defined(),
                  std::abs(w) < 0.5};
    devplug_fused_program_t* program =
        program_on(dev, kind, [](const AdamKind& k, bool*) { return adam_program(k); }).first;
    auto [entry, made] =
        numbers.emplace(std::make_tuple(dev.index(), param.scalar_type(), steps[i]), std::vector<DTensor>{});
    std::vector<DTensor>& values = entry->second;
    if (made) {
      // As the foreach kernels make them: a number of mul, div or add as a wrapped scalar
      // (Dev::operand), lerp's weight, addcmul's and addcdiv's values and add's alpha as
      // Dev::scalar.
      auto wrapped = [&](double x) { return dev.operand(wrap_scalar(x), c); };
      const double bias_correction1 = 1 - std::pow(beta1, steps[i]);
      const double bias_correction2 = 1 - std::pow(beta2, steps[i]);
      if (kind.unscale) values.push_back(dev.cast(dev.operand(*grad_scale), DEVPLUG_DTYPE_FLOAT32));
      if (kind.weight_decay && !kind.unit_decay)
        values.push_back(decoupled ? wrapped(1 - lr * weight_decay) : dev.scalar(c, weight_decay));
      values.push_back(dev.scalar(c, kind.low_weight ? w : 1.0 - w));
      values.push_back(wrapped(beta2));
      values.push_back(dev.scalar(c, 1 - beta2));
      values.push_back(wrapped(std::pow(bias_correction2, 0.5)));
      values.push_back(wrapped(eps));
      values.push_back(dev.scalar(c, (lr / bias_correction1) * -1));
    }
    const std::vector<int64_t> shape = param.sizes().vec();
    std::vector<DTensor> in = {view_of(param), view_of(grads[i]), view_of(exp_avgs[i]),
                               view_of(exp_avg_sqs[i])};
    if (amsgrad) in.push_back(view_of(max_exp_avg_sqs[i]));
    for (const DTensor& v : values) in.push_back(v.expand(shape));
    std::vector<DTensor> out = {in[0], in[2], in[3]};
    if (amsgrad) out.push_back(in[4]);
    if (kind.unscale) out.push_back(in[1]);
    run_program(dev, program, in, out);
  }
}

template <bool Decoupled>
void fused_adam(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                at::TensorList exp_avg_sqs, at::TensorList max_exp_avg_sqs, at::TensorList state_steps,
                double lr, double beta1, double beta2, double weight_decay, double eps, bool amsgrad,
                bool maximize, const std::optional<at::Tensor>& grad_scale,
                const std::optional<at::Tensor>& found_inf) {
  fused_adam_step(Decoupled, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1,
                  beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);
}
template <bool Decoupled>
void fused_adam_tensor_lr(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                          at::TensorList exp_avg_sqs, at::TensorList max_exp_avg_sqs,
                          at::TensorList state_steps, const at::Tensor& lr, double beta1, double beta2,
                          double weight_decay, double eps, bool amsgrad, bool maximize,
                          const std::optional<at::Tensor>& grad_scale,
                          const std::optional<at::Tensor>& found_inf) {
  TORCH_CHECK(lr.numel() == 1, "devplug: the lr tensor of a fused Adam step has one element, got ",
              lr.sizes());
  fused_adam_step(Decoupled, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                  lr.item<double>(), beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale,
                  found_inf);
}

// ---- SGD ----------------------------------------------------------------------------------

// What decides an SGD step's program (torch.optim.sgd._multi_tensor_sgd's branches).
struct SgdKind {
  devplug_dtype_t dtype;
  bool maximize;
  bool weight_decay, unit_decay;  // weight_decay != 0; == 1 (the gradient adds the parameter)
  bool momentum;                  // momentum != 0: a buffer
  bool fresh_buffer;              // the first step: the buffer is the gradient
  bool unit_dampening;            // 1 - dampening == 1: the buffer adds the gradient unscaled
  bool nesterov, unit_nesterov;   // nesterov; momentum == 1 (the gradient adds the buffer)
  bool unit_lr;                   // -lr == 1
  bool unscale;
  using Key = std::tuple<devplug_dtype_t, bool, bool, bool, bool, bool, bool, bool, bool, bool, bool>;
  Key key() const {
    return {dtype,          maximize, weight_decay,  unit_decay, momentum, fresh_buffer,
            unit_dampening, nesterov, unit_nesterov, unit_lr,    unscale};
  }
};

// The program of `k`. Inputs: param, grad, [buffer], then the numbers: [grad_scale (float32)],
// [wd], [momentum (the buffer's mul)], [1 - dampening], [momentum (nesterov's alpha)], [-lr].
// Outputs: param, [buffer, unless it is the gradient input itself], [grad]. With a fresh buffer
// the buffer is the step's gradient: written by the program when that is a node's value, else
// copied from the gradient before the program runs (fused_sgd_step), and read as an input.
sdk::FusedProgram sgd_program(const SgdKind& k, bool* buffer_written) {
  using sdk::FusedProgram;
  const devplug_dtype_t c = k.dtype, f32 = DEVPLUG_DTYPE_FLOAT32;
  FusedProgram p;
  p.inputs = {c, c};
  if (k.momentum) p.inputs.push_back(c);
  const devplug_fused_value_t param = 0, grad = 1, buffer = 2;
  devplug_fused_value_t next = static_cast<devplug_fused_value_t>(p.inputs.size());
  auto number = [&](bool wanted, devplug_dtype_t dtype) -> devplug_fused_value_t {
    if (!wanted) return 0;
    p.inputs.push_back(dtype);
    return next++;
  };
  const bool keeps_buffer = k.momentum && !k.fresh_buffer;
  const devplug_fused_value_t scale = number(k.unscale, f32);
  const devplug_fused_value_t decay = number(k.weight_decay && !k.unit_decay, c);
  const devplug_fused_value_t momentum = number(keeps_buffer, c);
  const devplug_fused_value_t dampening = number(keeps_buffer && !k.unit_dampening, c);
  const devplug_fused_value_t nesterov = number(k.momentum && k.nesterov && !k.unit_nesterov, c);
  const devplug_fused_value_t lr = number(!k.unit_lr, c);
  auto node = [&](devplug_op_t op, devplug_dtype_t dtype, std::initializer_list<devplug_fused_value_t> args) {
    return p.node(op, dtype, args);
  };

  devplug_fused_value_t unscaled = grad;
  devplug_fused_value_t g = step_gradient(p, c, param, grad, k.unscale, scale, k.maximize, k.weight_decay,
                                          k.unit_decay, decay, &unscaled);
  devplug_fused_value_t buf = buffer;
  *buffer_written = false;
  if (keeps_buffer) {  // _foreach_mul_(bufs, momentum); _foreach_add_(bufs, grads, alpha=1 - dampening)
    const devplug_fused_value_t decayed = node(DEVPLUG_OP_mul, c, {buffer, momentum});
    buf = node(DEVPLUG_OP_add, c, {decayed, k.unit_dampening ? g : node(DEVPLUG_OP_mul, c, {g, dampening})});
    *buffer_written = true;
  } else if (k.momentum && g != grad) {  // the first step: the buffer is a clone of the gradient
    buf = g;
    *buffer_written = true;
  }
  if (k.momentum)  // nesterov: _foreach_add_(grads, bufs, alpha=momentum); else the buffers
    g = k.nesterov
            ? node(DEVPLUG_OP_add, c, {g, k.unit_nesterov ? buf : node(DEVPLUG_OP_mul, c, {buf, nesterov})})
            : buf;
  // _foreach_add_(params, grads, alpha=-lr)
  const devplug_fused_value_t updated =
      node(DEVPLUG_OP_add, c, {param, k.unit_lr ? g : node(DEVPLUG_OP_mul, c, {g, lr})});
  p.outputs = {updated};
  if (*buffer_written) p.outputs.push_back(buf);
  if (k.unscale) p.outputs.push_back(unscaled);
  return p;
}

void fused_sgd_step(at::TensorList params, at::TensorList grads, at::TensorList buffers, double weight_decay,
                    double momentum, double lr, double dampening, bool nesterov, bool maximize,
                    bool is_first_step, const std::optional<at::Tensor>& grad_scale,
                    const std::optional<at::Tensor>& found_inf) {
  const size_t n = params.size();
  TORCH_CHECK(grads.size() == n && (momentum == 0 || buffers.size() == n),
              "devplug: _fused_sgd_: the tensor lists must be as long as the parameters (", n, ")");
  if (n == 0) return;
  if (found_inf.has_value() && found_inf->defined() && found_inf->item<double>() != 0) return;
  for (size_t i = 0; i < n; ++i) {
    const at::Tensor& p = params[i];
    TORCH_CHECK(at::isFloatingType(p.scalar_type()), "devplug: _fused_sgd_ takes floating parameters, got ",
                p.scalar_type());
    for (const at::Tensor* t : {&grads[i], momentum != 0 ? &buffers[i] : &p})
      TORCH_CHECK(t->defined() && t->scalar_type() == p.scalar_type() && t->sizes() == p.sizes() &&
                      t->device() == p.device(),
                  "devplug: _fused_sgd_: parameter ", i,
                  "'s gradient and momentum buffer must have its dtype (", p.scalar_type(), "), shape ",
                  p.sizes(), " and device ", p.device());
  }
  std::map<std::tuple<c10::DeviceIndex, at::ScalarType>, std::vector<DTensor>> numbers;
  for (size_t i = 0; i < n; ++i) {
    const at::Tensor& param = params[i];
    Dev dev = Dev::of(param);
    const devplug_dtype_t c = require_dtype(param.scalar_type(), "the parameter's dtype");
    const bool unscale = grad_scale.has_value() && grad_scale->defined();
    SgdKind kind{c,
                 maximize,
                 weight_decay != 0,
                 weight_decay == 1,
                 momentum != 0,
                 is_first_step,
                 1 - dampening == 1,
                 nesterov,
                 momentum == 1,
                 -lr == 1,
                 unscale};
    const auto [program, buffer_written] = program_on(dev, kind, sgd_program);
    auto [entry, made] =
        numbers.emplace(std::make_tuple(dev.index(), param.scalar_type()), std::vector<DTensor>{});
    std::vector<DTensor>& values = entry->second;
    if (made) {  // as the foreach kernels make them: mul's number wrapped, add's alpha Dev::scalar
      const bool keeps_buffer = kind.momentum && !kind.fresh_buffer;
      if (unscale) values.push_back(dev.cast(dev.operand(*grad_scale), DEVPLUG_DTYPE_FLOAT32));
      if (kind.weight_decay && !kind.unit_decay) values.push_back(dev.scalar(c, weight_decay));
      if (keeps_buffer) values.push_back(dev.operand(wrap_scalar(momentum), c));
      if (keeps_buffer && !kind.unit_dampening) values.push_back(dev.scalar(c, 1 - dampening));
      if (kind.momentum && nesterov && !kind.unit_nesterov) values.push_back(dev.scalar(c, momentum));
      if (!kind.unit_lr) values.push_back(dev.scalar(c, -lr));
    }
    const std::vector<int64_t> shape = param.sizes().vec();
    std::vector<DTensor> in = {view_of(param), view_of(grads[i])};
    if (kind.momentum) {
      in.push_back(view_of(buffers[i]));
      if (kind.fresh_buffer && !buffer_written)
        dev.copy(in[1], in[2]);  // the buffer: a clone of the gradient
    }
    for (const DTensor& v : values) in.push_back(v.expand(shape));
    std::vector<DTensor> out = {in[0]};
    if (buffer_written) out.push_back(in[2]);
    if (unscale) out.push_back(in[1]);
    run_program(dev, program, in, out);
  }
}

void fused_sgd(at::TensorList params, at::TensorList grads, at::TensorList buffers, double weight_decay,
               double momentum, double lr, double dampening, bool nesterov, bool maximize, bool is_first_step,
               const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  fused_sgd_step(params, grads, buffers, weight_decay, momentum, lr, dampening, nesterov, maximize,
                 is_first_step, grad_scale, found_inf);
}
void fused_sgd_tensor_lr(at::TensorList params, at::TensorList grads, at::TensorList buffers,
                         double weight_decay, double momentum, const at::Tensor& lr, double dampening,
                         bool nesterov, bool maximize, bool is_first_step,
                         const std::optional<at::Tensor>& grad_scale,
                         const std::optional<at::Tensor>& found_inf) {
  TORCH_CHECK(lr.numel() == 1, "devplug: the lr tensor of a fused SGD step has one element, got ",
              lr.sizes());
  fused_sgd_step(params, grads, buffers, weight_decay, momentum, lr.item<double>(), dampening, nesterov,
                 maximize, is_first_step, grad_scale, found_inf);
}

}  // namespace

void register_fused_optimizer_ops(Table& t) {
  const char* via = "one fused program per parameter (the foreach step's prims)";
  t.add("_fused_adam_", Impl::bridge, via, DEVPLUG_KERNEL(fused_adam<false>));
  t.add("_fused_adam_.tensor_lr", Impl::bridge, via, DEVPLUG_KERNEL(fused_adam_tensor_lr<false>));
  t.add("_fused_adamw_", Impl::bridge, via, DEVPLUG_KERNEL(fused_adam<true>));
  t.add("_fused_adamw_.tensor_lr", Impl::bridge, via, DEVPLUG_KERNEL(fused_adam_tensor_lr<true>));
  t.add("_fused_sgd_", Impl::bridge, via, DEVPLUG_KERNEL(fused_sgd));
  t.add("_fused_sgd_.tensor_lr", Impl::bridge, via, DEVPLUG_KERNEL(fused_sgd_tensor_lr));
}

}  // namespace devplug::bridge
