// SPDX-License-Identifier: Apache-2.0
// Composite conformance cases (see composite_cases.hpp). One small function per op family;
// each states its shapes and attributes, and the output specs come from the op's own shape
// rule, so a case can never disagree with what the dispatcher validates.
#include "harness/composite_cases.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "devplug/sdk/composite.hpp"
#include "harness/elements.hpp"
#include "harness/generate.hpp"
#include "harness/values.hpp"

namespace devplug::conform {
namespace {

using Shape = std::vector<int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string shape_text(const Shape& shape) {
  if (shape.empty()) return "0d";
  std::string s;
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? "x" : "") + std::to_string(shape[k]);
  return s;
}

// What one case adds beyond its inputs: output views, outputs left out, labels.
struct Extra {
  View out_view = View::Dense;  // output 0's view
  uint32_t skip_outputs = 0;    // optional outputs not asked for (bit k)
  ValueClass values = ValueClass::Random;
  std::string values_label;  // "random" / "special" unless set
  int64_t rows = 0;          // embedding_backward: rows of grad_weight
};

class Gen {
 public:
  Gen(const devplug_op_info_t& info, devplug_dtype_t d, uint64_t seed)
      : info_(info), d_(d), rng_(seed ^ hash_name(std::string(info.name) + devplug_dtype_name(d))) {}

  devplug_dtype_t dtype() const { return d_; }
  bool is_float() const { return conform::is_float(d_); }
  std::mt19937_64& rng() { return rng_; }
  std::vector<Case>& cases() { return cases_; }

  TensorSpec of(devplug_dtype_t d, Shape shape, View view = View::Dense) const {
    TensorSpec t;
    t.dtype = d;
    t.shape = std::move(shape);
    t.view = view;
    return t;
  }
  TensorSpec data(Shape shape, View view = View::Dense) const { return of(d_, std::move(shape), view); }
  TensorSpec acc(Shape shape, View view = View::Dense) const {
    return of(sdk::acc_dtype(d_), std::move(shape), view);
  }
  TensorSpec index(Shape shape, int64_t bound, View view = View::Dense) const {
    TensorSpec t = of(DEVPLUG_DTYPE_INT64, std::move(shape), view);
    t.role = Role::Index;
    t.index_bound = bound;
    return t;
  }
  TensorSpec fixed(devplug_dtype_t d, Shape shape, std::vector<double> values,
                   View view = View::Dense) const {
    TensorSpec t = of(d, std::move(shape), view);
    t.role = Role::Fixed;
    t.fixed = std::move(values);
    return t;
  }
  // Values drawn uniformly from [lo, hi), as many as `shape` holds.
  std::vector<double> uniform(const Shape& shape, double lo, double hi) {
    std::vector<double> v(static_cast<size_t>(numel(shape)));
    for (double& x : v) x = std::uniform_real_distribution<double>(lo, hi)(rng_);
    return v;
  }
  // Class targets in [0, classes) with every third one (from the second) ignore_index.
  TensorSpec targets(const Shape& shape, int64_t classes, int64_t ignore, bool all_ignored = false) {
    std::vector<double> v(static_cast<size_t>(numel(shape)));
    for (size_t k = 0; k < v.size(); ++k)
      v[k] = all_ignored || k % 3 == 1 ? static_cast<double>(ignore)
                                       : static_cast<double>(rng_() % static_cast<uint64_t>(classes));
    return fixed(DEVPLUG_DTYPE_INT64, shape, v);
  }
  static TensorSpec absent() {
    TensorSpec t;
    t.absent = true;
    return t;
  }

  // Adds a case with these inputs and attributes; its outputs follow the op's shape rule.
  template <typename A>
  void add(const std::string& layout, std::vector<TensorSpec> inputs, const A* attrs, int64_t length,
           const Extra& extra = Extra()) {
    Case c;
    c.op = info_.id;
    c.dtype = d_;
    c.dtype_label = devplug_dtype_name(d_);
    c.layout = layout;
    c.value_class = extra.values;
    c.values = !extra.values_label.empty()          ? extra.values_label
               : extra.values == ValueClass::Random ? "random"
                                                    : "special";
    c.name = std::string(info_.name) + "_" + c.dtype_label + "_" + layout + "_" + c.values;
    c.inputs = std::move(inputs);
    c.reduction_length = std::max<int64_t>(length, 1);
    if (attrs != nullptr) {
      c.attrs.kind = conform::Attrs::Raw;
      c.attrs.raw.assign((sizeof(*attrs) + 7) / 8, 0);
      std::memcpy(c.attrs.raw.data(), attrs, sizeof(*attrs));
    }
    make_outputs(&c, attrs, extra);
    cases_.push_back(std::move(c));
  }
  void add(const std::string& layout, std::vector<TensorSpec> inputs, std::nullptr_t, int64_t length,
           const Extra& extra = Extra()) {
    add<devplug_none_attrs_t>(layout, std::move(inputs), nullptr, length, extra);
  }

 private:
  template <typename A>
  void make_outputs(Case* c, const A* attrs, const Extra& extra) {
    const sdk::CompositeSignature* sig = sdk::composite_signature(info_.id);
    if (sig == nullptr) throw std::logic_error(std::string(info_.name) + " has no signature");
    std::vector<devplug_tensor_desc_t> descs(c->inputs.size());
    std::vector<const devplug_tensor_desc_t*> in(c->inputs.size(), nullptr);
    for (size_t k = 0; k < c->inputs.size(); ++k) {
      if (c->inputs[k].absent) continue;
      descs[k].struct_size = sizeof(devplug_tensor_desc_t);
      descs[k].dtype = c->inputs[k].dtype;
      descs[k].rank = static_cast<int32_t>(c->inputs[k].shape.size());
      for (size_t d = 0; d < c->inputs[k].shape.size(); ++d) descs[k].shape[d] = c->inputs[k].shape[d];
      in[k] = &descs[k];
    }
    devplug_tensor_desc_t free_out{};
    free_out.rank = 1;
    free_out.shape[0] = extra.rows;
    const devplug_tensor_desc_t* outs[sdk::kMaxCompositeArgs] = {&free_out};
    sdk::CompositeShapes shapes;
    const std::string problem = sdk::composite_shapes(info_.id, in.data(), outs, attrs, &shapes);
    if (!problem.empty()) throw std::logic_error("composite case " + c->name + ": " + problem);
    for (int k = 0; k < sig->n_outputs; ++k) {
      const sdk::OutputRule& rule = shapes.outputs[k];
      if (rule.presence == sdk::Presence::Forbidden || ((extra.skip_outputs >> k) & 1u)) {
        c->outputs.push_back(absent());
        continue;
      }
      Shape shape(rule.dims.d, rule.dims.d + rule.dims.rank);
      c->outputs.push_back(
          of(sdk::expected_dtype(sig->outputs[k], d_), shape, k == 0 ? extra.out_view : View::Dense));
    }
  }

  const devplug_op_info_t& info_;
  devplug_dtype_t d_;
  std::mt19937_64 rng_;
  std::vector<Case> cases_;
};

// ---- pointwise ----------------------------------------------------------------------------

// The layouts of a one-input pointwise composite; `attrs` applies to all.
template <typename A>
void pointwise(Gen& g, const A* attrs, const std::string& tag) {
  const Shape odd = {7, 13};
  struct L {
    const char* label;
    Shape shape;
    View in, out;
  };
  const L layouts[] = {{"scalar", {}, View::Dense, View::Dense},
                       {"empty", {0, 5}, View::Dense, View::Dense},
                       {"contiguous", odd, View::Dense, View::Dense},
                       {"transposed", odd, View::Transposed, View::Transposed},
                       {"negstride", odd, View::Negative, View::Negative},
                       {"broadcast", odd, View::Broadcast, View::Dense},
                       {"offset", odd, View::Offset, View::Offset},
                       {"mlp", {8, 256}, View::Dense, View::Dense}};
  for (const L& l : layouts) {
    Extra e;
    e.out_view = l.out;
    g.add(tag + l.label + "_" + shape_text(l.shape), {g.data(l.shape, l.in)}, attrs, 1, e);
  }
  const int64_t n = special_count(g.dtype());
  Extra e;
  e.values = ValueClass::Special;
  g.add(tag + "contiguous_" + shape_text({n, n}), {g.data({n, n})}, attrs, 1, e);
}

// grad and a saved tensor of one shape. sigmoid_backward's saved tensor is a sigmoid's
// output: values in [0, 1], its edges (0, -0, 1, the smallest subnormal, 1 - eps) for the
// special case.
template <typename A>
void pointwise_backward(Gen& g, const A* attrs, const std::string& tag, bool unit_interval = false) {
  auto saved = [&](const Shape& shape, View view) {
    if (!unit_interval) return g.data(shape, view);
    return g.fixed(g.dtype(), shape, g.uniform(shape, 0.0, 1.0), view);
  };
  const Shape odd = {7, 13};
  g.add(tag + "contiguous_7x13", {g.data(odd), saved(odd, View::Dense)}, attrs, 1);
  g.add(tag + "transposed_7x13", {g.data(odd, View::Transposed), saved(odd, View::Transposed)}, attrs, 1);
  g.add(tag + "broadcast_7x13", {g.data(odd, View::Broadcast), saved(odd, View::Sliced)}, attrs, 1);
  g.add(tag + "offset_2x3x16", {g.data({2, 3, 16}, View::Offset), saved({2, 3, 16}, View::Negative)}, attrs,
        1);
  g.add(tag + "empty_0x5", {g.data({0, 5}), saved({0, 5}, View::Dense)}, attrs, 1);
  const int64_t n = special_count(g.dtype());
  Extra e;
  e.values = ValueClass::Special;
  TensorSpec second = g.data({n, n});
  if (unit_interval) {
    // Each row of grad specials meets one edge of [0, 1].
    const double edges[] = {0.0,  -0.0, 1.0, 0.5, std::ldexp(1.0, -149), 1.0 - std::ldexp(1.0, -11),
                            0.25, 0.75};
    std::vector<double> v(static_cast<size_t>(n * n));
    for (size_t k = 0; k < v.size(); ++k) v[k] = edges[(k / static_cast<size_t>(n)) % 8];
    second = g.fixed(g.dtype(), {n, n}, v);
  }
  g.add(tag + "contiguous_" + shape_text({n, n}), {g.data({n, n}), second}, attrs, 1, e);
}

void activations(Gen& g, devplug_op_t op) {
  switch (op) {
    case DEVPLUG_OP_relu:
    case DEVPLUG_OP_silu:
    case DEVPLUG_OP_sigmoid:
      return pointwise(g, static_cast<const devplug_none_attrs_t*>(nullptr), "");
    case DEVPLUG_OP_gelu:
      for (int32_t form : {DEVPLUG_GELU_NONE, DEVPLUG_GELU_TANH}) {
        const devplug_gelu_attrs_t a{sizeof(a), form};
        pointwise(g, &a, form == DEVPLUG_GELU_TANH ? "tanh_" : "erf_");
      }
      return;
    case DEVPLUG_OP_softplus: {
      const devplug_softplus_attrs_t a{sizeof(a), 1.0, 20.0}, b{sizeof(b), 2.0, 3.0};
      pointwise(g, &a, "");
      pointwise(g, &b, "beta2_thr3_");
      return;
    }
    case DEVPLUG_OP_leaky_relu: {
      const devplug_leaky_relu_attrs_t a{sizeof(a), 0.01}, b{sizeof(b), 0.2};
      pointwise(g, &a, "");
      pointwise(g, &b, "slope0.2_");
      return;
    }
    case DEVPLUG_OP_clamp: {
      const bool f = g.is_float(), u = g.dtype() == DEVPLUG_DTYPE_UINT8;
      // `.i` of a NaN bound is 0: converting NaN to an integer is undefined (found by UBSan in
      // the asan tree, where every test of the generator runs).
      auto scalar = [&](double v) {
        return devplug_scalar_t{v, std::isnan(v) ? 0 : static_cast<int64_t>(v)};
      };
      const devplug_clamp_attrs_t both{sizeof(both), DEVPLUG_CLAMP_MIN | DEVPLUG_CLAMP_MAX,
                                       scalar(f   ? -1.5
                                              : u ? 20
                                                  : -7),
                                       scalar(f   ? 2.25
                                              : u ? 200
                                                  : 9)};
      pointwise(g, &both, "");
      const devplug_clamp_attrs_t lo{sizeof(lo), DEVPLUG_CLAMP_MIN, scalar(f ? 0.5 : 3), scalar(0)};
      const devplug_clamp_attrs_t hi{sizeof(hi), DEVPLUG_CLAMP_MAX, scalar(0),
                                     scalar(f   ? -0.5
                                            : u ? 100
                                                : -3)};
      const devplug_clamp_attrs_t crossed{sizeof(crossed), DEVPLUG_CLAMP_MIN | DEVPLUG_CLAMP_MAX, scalar(3),
                                          scalar(1)};
      const devplug_clamp_attrs_t none{sizeof(none), 0, scalar(0), scalar(0)};
      g.add("min_contiguous_7x13", {g.data({7, 13})}, &lo, 1);
      g.add("max_transposed_7x13", {g.data({7, 13}, View::Transposed)}, &hi, 1);
      g.add("crossed_contiguous_7x13", {g.data({7, 13})}, &crossed, 1);
      g.add("none_contiguous_7x13", {g.data({7, 13})}, &none, 1);
      if (f) {
        const devplug_clamp_attrs_t nan{sizeof(nan), DEVPLUG_CLAMP_MIN, scalar(std::nan("")), scalar(0)};
        g.add("nanbound_contiguous_7x13", {g.data({7, 13})}, &nan, 1);
      }
      return;
    }
    case DEVPLUG_OP_dropout: {
      for (double p : {0.0, 0.1, 0.5, 1.0}) {
        const devplug_dropout_attrs_t a{sizeof(a), p, g.rng()(), g.rng()() % 1000};
        const std::string tag = "p" + std::to_string(static_cast<int>(p * 100)) + "_";
        g.add(tag + "contiguous_7x13", {g.data({7, 13})}, &a, 1);
      }
      const devplug_dropout_attrs_t a{sizeof(a), 0.25, g.rng()(), 3};
      Extra t;
      t.out_view = View::Transposed;
      g.add("p25_transposed_16x33", {g.data({16, 33}, View::Transposed)}, &a, 1, t);
      g.add("p25_scalar_0d", {g.data({})}, &a, 1);
      g.add("p25_empty_0x5", {g.data({0, 5})}, &a, 1);
      g.add("p25_mlp_8x256", {g.data({8, 256}, View::Negative)}, &a, 1);
      return;
    }
    case DEVPLUG_OP_relu_backward:
    case DEVPLUG_OP_silu_backward:
    case DEVPLUG_OP_sigmoid_backward:
      return pointwise_backward(g, static_cast<const devplug_none_attrs_t*>(nullptr), "",
                                op == DEVPLUG_OP_sigmoid_backward);
    case DEVPLUG_OP_gelu_backward:
      for (int32_t form : {DEVPLUG_GELU_NONE, DEVPLUG_GELU_TANH}) {
        const devplug_gelu_attrs_t a{sizeof(a), form};
        pointwise_backward(g, &a, form == DEVPLUG_GELU_TANH ? "tanh_" : "erf_");
      }
      return;
    default:
      return;
  }
}

// ---- reductions and softmax -----------------------------------------------------------------

void reductions(Gen& g, devplug_op_t op) {
  auto reduce = [&](const std::string& label, const Shape& shape, View view, uint32_t mask) {
    const devplug_reduce_attrs_t a{sizeof(a), mask, 0.0};
    int64_t n = 1;
    for (size_t k = 0; k < shape.size(); ++k)
      if (mask & (1u << k)) n *= shape[k];
    g.add(label + "_" + shape_text(shape), {g.data(shape, view)}, &a, n);
  };
  reduce("dim1", {7, 13}, View::Dense, 2);
  reduce("dim0_transposed", {7, 13}, View::Transposed, 1);
  reduce("all_negstride", {7, 13}, View::Negative, 3);
  reduce("none_offset", {7, 13}, View::Offset, 0);
  reduce("several_broadcast", {3, 5, 7}, View::Broadcast, 5);
  reduce("scalar", {}, View::Dense, 0);
  reduce("emptydim", {0, 5}, View::Dense, 1);
  reduce("rows", {16, 512}, View::Dense, 2);
  const int64_t n = special_count(g.dtype());
  const devplug_reduce_attrs_t a{sizeof(a), 2u, 0.0};
  Extra e;
  e.values = ValueClass::Special;
  g.add("dim1_" + shape_text({n, n}), {g.data({n, n})}, &a, n, e);
  (void)op;
}

// Lines with -Inf, all -Inf, +Inf and NaN, for softmax and log_softmax.
std::vector<double> infinite_rows() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {1,     2,     3,     4,     5,     6,       // ordinary
          -kInf, -kInf, -kInf, -kInf, -kInf, -kInf,   // all -Inf: NaN
          -kInf, 0.5,   -kInf, -1,    2,     -kInf,   // some -Inf: 0 there
          1,     kInf,  2,     3,     4,     5,       // +Inf: NaN
          nan,   1,     2,     3,     4,     5,       // NaN: NaN
          -1000, -1001, -999,  -998,  -1002, -1000};  // far below 0: no underflow after the shift
}

void softmaxes(Gen& g, devplug_op_t op) {
  const bool backward = op == DEVPLUG_OP_softmax_backward || op == DEVPLUG_OP_log_softmax_backward;
  auto add = [&](const std::string& label, const Shape& shape, View view, int32_t dim,
                 View out_view = View::Dense) {
    const devplug_dim_attrs_t a{sizeof(a), dim};
    Extra e;
    e.out_view = out_view;
    std::vector<TensorSpec> in = {g.data(shape, view)};
    if (backward) in.push_back(g.data(shape, view == View::Broadcast ? View::Dense : view));
    g.add(label + "_" + shape_text(shape), in, &a, shape.empty() ? 1 : shape[static_cast<size_t>(dim)], e);
  };
  add("dim1", {7, 13}, View::Dense, 1);
  // The softmax dim strided (13 and 7 elements apart), and the input's step apart from the
  // output's: the layouts above all put that dim at stride +-1 (a kernel that ignored the
  // step passed them; found by the mutation check).
  add("dim0", {7, 13}, View::Dense, 0);
  add("dim1_transposed", {7, 13}, View::Transposed, 1);
  add("dim0_transposed", {7, 13}, View::Transposed, 0, View::Transposed);
  add("dim2_negstride", {2, 5, 16}, View::Negative, 2);
  add("dim1_broadcast", {3, 17}, View::Broadcast, 1);
  add("dim1_offset", {5, 9}, View::Offset, 1, View::Offset);
  add("scalar", {}, View::Dense, 0);
  add("empty", {0, 5}, View::Dense, 1);
  add("one", {1}, View::Dense, 0);
  add("heads", {2, 4, 16, 64}, View::Dense, 3);  // attention scores of 4 heads
  if (g.dtype() == DEVPLUG_DTYPE_FLOAT32) add("large", {256, 1024}, View::Dense, 1);
  const int64_t n = special_count(g.dtype());
  const devplug_dim_attrs_t a{sizeof(a), 1};
  Extra e;
  e.values = ValueClass::Special;
  std::vector<TensorSpec> in = {g.data({n, n})};
  if (backward) in.push_back(g.data({n, n}));
  g.add("dim1_" + shape_text({n, n}), in, &a, n, e);
  if (!backward) {
    Extra inf;
    inf.values_label = "infinite";
    g.add("dim1_6x6", {g.fixed(g.dtype(), {6, 6}, infinite_rows())}, &a, 6, inf);
  }
}

// ---- normalizations ---------------------------------------------------------------------------

void norms(Gen& g, devplug_op_t op) {
  const bool rms = op == DEVPLUG_OP_rms_norm || op == DEVPLUG_OP_rms_norm_backward;
  const bool backward = op == DEVPLUG_OP_layer_norm_backward || op == DEVPLUG_OP_rms_norm_backward;
  auto add = [&](const std::string& label, const Shape& shape, int32_t nr, bool weight, bool bias, View view,
                 uint32_t skip = 0) {
    const devplug_norm_attrs_t a{sizeof(a), nr, rms ? 1e-6 : 1e-5};
    const Shape tail(shape.end() - nr, shape.end());
    Shape stat = shape;
    for (size_t d = shape.size() - static_cast<size_t>(nr); d < shape.size(); ++d) stat[d] = 1;
    const int64_t length = numel(tail);
    std::vector<TensorSpec> in;
    if (!backward) {
      in = {g.data(shape, view), weight ? g.data(tail) : Gen::absent()};
      if (!rms) in.push_back(bias ? g.data(tail, View::Negative) : Gen::absent());
    } else {
      in = {g.data(shape, view), g.data(shape)};
      if (!rms) in.push_back(g.fixed(sdk::acc_dtype(g.dtype()), stat, g.uniform(stat, -0.5, 0.5)));
      in.push_back(g.fixed(sdk::acc_dtype(g.dtype()), stat, g.uniform(stat, 0.5, 2.0)));
      in.push_back(weight ? g.data(tail) : Gen::absent());
    }
    Extra e;
    e.skip_outputs = skip;
    g.add(label + "_" + shape_text(shape), in, &a, length + numel(shape) / std::max<int64_t>(length, 1), e);
  };
  add("affine_last", {4, 32}, 1, true, true, View::Dense);
  add("weight_last2", {2, 8, 16}, 2, true, false, View::Dense);
  add("plain_transposed", {16, 24}, 1, false, false, View::Transposed);
  add("affine_broadcast", {5, 33}, 1, true, true, View::Broadcast);
  add("affine_offset", {3, 7, 10}, 1, true, true, View::Offset);
  add("nr0", {3, 5}, 0, true, true, View::Dense);
  add("one_row", {1, 9}, 1, true, true, View::Negative);
  add("empty_rows", {0, 8}, 1, true, true, View::Dense);
  add("transformer", {2, 16, 256}, 1, true, true, View::Dense);
  if (backward) {
    add("gradinput_only", {4, 32}, 1, true, true, View::Dense, 6u);
    add("params_only", {4, 32}, 1, true, true, View::Dense, 1u);
  }
  const int64_t n = special_count(g.dtype());
  const devplug_norm_attrs_t a{sizeof(a), 1, 1e-5};
  Extra e;
  e.values = ValueClass::Special;
  if (!backward) {
    std::vector<TensorSpec> in = {g.data({n, n}), g.data({n})};
    if (!rms) in.push_back(g.data({n}));
    g.add("affine_last_" + shape_text({n, n}), in, &a, n, e);
  }
}

void batch_norms(Gen& g, devplug_op_t op) {
  const devplug_batch_norm_attrs_t a{sizeof(a), 1e-5, 0.1};
  auto add = [&](const std::string& label, const Shape& shape, bool affine, bool running, View view,
                 uint32_t skip = 0) {
    const Shape c = {shape[1]};
    const int64_t n = numel(shape) / std::max<int64_t>(shape[1], 1);
    auto var = [&]() { return g.fixed(g.dtype(), c, g.uniform(c, 0.25, 2.0)); };
    std::vector<TensorSpec> in;
    if (op == DEVPLUG_OP_batch_norm) {
      in = {g.data(shape, view), g.data(c), var(), affine ? g.data(c) : Gen::absent(),
            affine ? g.data(c) : Gen::absent()};
    } else if (op == DEVPLUG_OP_batch_norm_training) {
      in = {g.data(shape, view), affine ? g.data(c) : Gen::absent(), affine ? g.data(c) : Gen::absent(),
            running ? g.data(c) : Gen::absent(), running ? var() : Gen::absent()};
    } else {  // batch_norm_backward: grad, input, weight?, mean, rstd
      in = {g.data(shape, view), g.data(shape), affine ? g.data(c) : Gen::absent(),
            g.fixed(sdk::acc_dtype(g.dtype()), c, g.uniform(c, -0.5, 0.5)),
            g.fixed(sdk::acc_dtype(g.dtype()), c, g.uniform(c, 0.5, 2.0))};
    }
    Extra e;
    e.skip_outputs = skip;
    g.add(label + "_" + shape_text(shape), in, &a, n, e);
  };
  add("affine_running", {4, 3, 5, 5}, true, true, View::Dense);
  add("plain", {4, 3, 5, 5}, false, false, View::Transposed);
  add("affine_rank2", {8, 16}, true, true, View::Negative);
  add("affine_offset", {2, 6, 7}, true, false, View::Offset);
  add("conv_stem", {8, 32, 8, 8}, true, true, View::Dense);
  if (op == DEVPLUG_OP_batch_norm_backward) add("gradinput_only", {4, 3, 5, 5}, true, false, View::Dense, 6u);
}

// ---- linear algebra -----------------------------------------------------------------------------

void linears(Gen& g, devplug_op_t op) {
  const bool backward = op == DEVPLUG_OP_linear_backward;
  auto add = [&](const std::string& label, const Shape& x, int64_t N, bool bias, View xv, View wv,
                 uint32_t skip = 0) {
    const int64_t K = x.back();
    Shape y = x;
    y.back() = N;
    std::vector<TensorSpec> in;
    if (!backward)
      in = {g.data(x, xv), g.data({N, K}, wv), bias ? g.data({N}) : Gen::absent()};
    else
      in = {g.data(y, xv), g.data(x), g.data({N, K}, wv)};
    Extra e;
    e.skip_outputs = skip;
    g.add(label + "_" + shape_text(x) + "_" + std::to_string(N), in, nullptr,
          std::max<int64_t>(K, numel(x) / std::max<int64_t>(K, 1)), e);
  };
  add("bias", {8, 64}, 32, true, View::Dense, View::Dense);
  add("batched", {2, 5, 16}, 12, false, View::Dense, View::Transposed);
  add("negstride", {7, 13}, 9, true, View::Negative, View::Dense);
  add("offset", {3, 11}, 6, true, View::Offset, View::Sliced);
  add("k0", {3, 0}, 4, true, View::Dense, View::Dense);
  add("vector", {17}, 5, true, View::Dense, View::Dense);
  add("mlp", {16, 256}, 128, true, View::Dense, View::Dense);
  if (backward) {
    add("input_only", {8, 64}, 32, false, View::Dense, View::Dense, 6u);
    add("weight_only", {8, 64}, 32, false, View::Dense, View::Dense, 5u);
  }
}

void attention(Gen& g, devplug_op_t op) {
  const bool backward = op == DEVPLUG_OP_scaled_dot_product_attention_backward;
  auto add = [&](const std::string& label, Shape q, int64_t S, int64_t Ev, uint32_t flags, double scale,
                 int mask, View qv = View::Dense, uint32_t skip = 0, std::vector<double> mask_values = {}) {
    const devplug_sdpa_attrs_t a{sizeof(a), flags, scale};
    const size_t r = q.size();
    Shape k = q, v = q, m = q, o = q;
    k[r - 2] = S;
    v[r - 2] = S;
    v[r - 1] = Ev;
    m[r - 1] = S;
    o[r - 1] = Ev;
    TensorSpec mask_spec = Gen::absent();
    if (mask == 1)
      mask_spec =
          mask_values.empty() ? g.of(DEVPLUG_DTYPE_BOOL, m) : g.fixed(DEVPLUG_DTYPE_BOOL, m, mask_values);
    if (mask == 2) mask_spec = g.data(m);
    std::vector<TensorSpec> in;
    if (backward) in.push_back(g.data(o));
    in.insert(in.end(), {g.data(q, qv), g.data(k), g.data(v, View::Transposed), mask_spec});
    Extra e;
    e.skip_outputs = skip;
    g.add(label + "_" + shape_text(q) + "_s" + std::to_string(S), in, &a, S + q[r - 1], e);
  };
  add("plain", {2, 4, 16, 8}, 16, 8, 0, 0, 0);
  add("causal", {2, 4, 16, 8}, 16, 8, DEVPLUG_SDPA_CAUSAL, 0, 0);
  add("boolmask", {2, 5, 8}, 7, 6, 0, 0, 1);
  add("addmask", {2, 5, 8}, 7, 6, 0, 0, 2);
  add("scaled_transposed", {3, 6, 4}, 9, 4, DEVPLUG_SDPA_SCALE, 0.5, 0, View::Transposed);
  add("causal_rect", {2, 5, 8}, 7, 8, DEVPLUG_SDPA_CAUSAL, 0, 0, View::Negative);
  // Query 1 has every key masked: its output row is 0.
  std::vector<double> masked(2 * 3 * 4, 1);
  for (int j = 0; j < 4; ++j) masked[static_cast<size_t>(4 + j)] = 0;
  masked[static_cast<size_t>(12 + 2)] = 0;
  add("masked_row", {2, 3, 8}, 4, 8, 0, 0, 1, View::Dense, 0, masked);
  add("nokeys", {1, 2, 4}, 0, 4, 0, 0, 0);
  add("heads", {1, 8, 32, 16}, 32, 16, DEVPLUG_SDPA_CAUSAL, 0, 0);
  if (backward) add("value_grad_only", {2, 5, 8}, 7, 6, 0, 0, 1, View::Dense, 3u);
}

// ---- convolution and pooling ---------------------------------------------------------------

void convs(Gen& g, devplug_op_t op) {
  const bool backward = op == DEVPLUG_OP_conv2d_backward;
  auto add = [&](const std::string& label, const Shape& x, const Shape& w, int64_t stride, int64_t pad,
                 int64_t dil, int64_t groups, bool bias, View xv, uint32_t skip = 0) {
    const devplug_conv2d_attrs_t a{sizeof(a), {stride, stride}, {pad, pad}, {dil, dil}, groups};
    std::vector<TensorSpec> in;
    if (!backward) {
      in = {g.data(x, xv), g.data(w), bias ? g.data({w[0]}) : Gen::absent()};
    } else {
      Shape y = {x[0], w[0], 0, 0};
      for (int k = 0; k < 2; ++k)
        y[2 + static_cast<size_t>(k)] = sdk::window_output_size(
            x[2 + static_cast<size_t>(k)], w[2 + static_cast<size_t>(k)], stride, pad, dil, false);
      in = {g.data(y, xv), g.data(x), g.data(w)};
    }
    Extra e;
    e.skip_outputs = skip;
    g.add(label + "_" + shape_text(x) + "_" + shape_text(w), in, &a,
          w[1] * w[2] * w[3] * (backward ? x[0] * 4 : 1), e);
  };
  add("same_bias", {2, 3, 9, 9}, {4, 3, 3, 3}, 1, 1, 1, 1, true, View::Dense);
  add("stride2", {2, 3, 9, 8}, {5, 3, 3, 2}, 2, 0, 1, 1, false, View::Transposed);
  add("dilated", {1, 2, 10, 10}, {3, 2, 3, 3}, 1, 2, 2, 1, true, View::Negative);
  add("groups2", {2, 4, 7, 7}, {6, 2, 3, 3}, 1, 1, 1, 2, true, View::Offset);
  add("depthwise", {1, 4, 6, 6}, {4, 1, 3, 3}, 2, 1, 1, 4, true, View::Dense);
  add("pointwise", {2, 8, 5, 5}, {4, 8, 1, 1}, 1, 0, 1, 1, true, View::Broadcast);
  add("stem", {2, 3, 32, 32}, {16, 3, 3, 3}, 2, 1, 1, 1, true, View::Dense);
  if (backward) {
    add("input_only", {2, 3, 9, 9}, {4, 3, 3, 3}, 1, 1, 1, 1, false, View::Dense, 6u);
    add("weight_bias_only", {2, 4, 7, 7}, {6, 2, 3, 3}, 2, 1, 1, 2, false, View::Dense, 1u);
  }
}

void pools(Gen& g, devplug_op_t op) {
  const bool is_max = op == DEVPLUG_OP_max_pool2d || op == DEVPLUG_OP_max_pool2d_backward;
  const bool backward = op == DEVPLUG_OP_max_pool2d_backward || op == DEVPLUG_OP_avg_pool2d_backward;
  auto add = [&](const std::string& label, const Shape& x, int64_t k, int64_t s, int64_t p, int64_t dil,
                 uint32_t flags, int64_t divisor, View xv, ValueClass values = ValueClass::Random,
                 std::vector<double> fixed = {}) {
    const devplug_pool2d_attrs_t a{sizeof(a), {k, k}, {s, s}, {p, p}, {dil, dil}, flags, divisor};
    Shape y = x;
    for (int i = 0; i < 2; ++i)
      y[2 + static_cast<size_t>(i)] = sdk::window_output_size(x[2 + static_cast<size_t>(i)], k, s, p, dil,
                                                              (flags & DEVPLUG_POOL_CEIL_MODE) != 0);
    TensorSpec input = fixed.empty() ? g.data(x, xv) : g.fixed(g.dtype(), x, fixed, xv);
    std::vector<TensorSpec> in;
    if (!backward)
      in = {input};
    else
      in = {g.data(y), input};
    if (op == DEVPLUG_OP_max_pool2d_backward) in.push_back(g.index(y, x[2] * x[3]));
    Extra e;
    e.values = values;
    if (!fixed.empty()) e.values_label = "neginf";
    g.add(label + "_" + shape_text(x), in, &a, k * k * (backward ? 4 : 1), e);
  };
  add("k2s2", {2, 3, 8, 8}, 2, 2, 0, 1, 0, 0, View::Dense);
  add("k3s2p1", {2, 3, 9, 9}, 3, 2, 1, 1, DEVPLUG_POOL_COUNT_INCLUDE_PAD, 0, View::Transposed);
  add("k3s2p1_nopadcount", {2, 3, 9, 9}, 3, 2, 1, 1, 0, 0, View::Negative);
  add("ceil", {1, 2, 7, 7}, 2, 2, 0, 1, DEVPLUG_POOL_CEIL_MODE, 0, View::Offset);
  add("ceil_pad", {1, 2, 8, 8}, 3, 2, 1, 1, DEVPLUG_POOL_CEIL_MODE | DEVPLUG_POOL_COUNT_INCLUDE_PAD, 0,
      View::Dense);
  add("k3s1p1", {2, 4, 6, 6}, 3, 1, 1, 1, 0, 0, View::Broadcast);
  if (is_max) {
    add("dilated", {1, 2, 9, 9}, 3, 1, 2, 2, 0, 0, View::Dense);
    const int64_t n = std::min<int64_t>(special_count(g.dtype()), 12);
    add("k3s1p1", {1, 2, n, n}, 3, 1, 1, 1, 0, 0, View::Dense, ValueClass::Special);
    if (!backward) {
      // Windows of -Inf only, some ending in a NaN: the index rules of PyTorch.
      std::vector<double> v(4 * 4, -kInf);
      v[5] = std::numeric_limits<double>::quiet_NaN();
      v[6] = std::numeric_limits<double>::quiet_NaN();
      v[15] = 1;
      add("k2s1p1", {1, 1, 4, 4}, 2, 1, 1, 1, 0, 0, View::Dense, ValueClass::Random, v);
    }
  } else {
    add("divisor", {2, 3, 8, 8}, 3, 2, 1, 1, 0, 3, View::Dense);
  }
}

// ---- embedding ---------------------------------------------------------------------------------

void embeddings(Gen& g, devplug_op_t op) {
  if (op == DEVPLUG_OP_embedding) {
    const devplug_embedding_attrs_t a{sizeof(a), -1, 0};
    g.add("rows_10x6", {g.data({10, 6}), g.index({4, 5}, 10)}, &a, 1);
    g.add("transposed_12x7", {g.data({12, 7}, View::Transposed), g.index({9}, 12, View::Negative)}, &a, 1);
    g.add("scalar_index_5x3", {g.data({5, 3}, View::Offset), g.index({}, 5)}, &a, 1);
    g.add("vector_weight_8", {g.data({8}), g.index({3, 2}, 8)}, &a, 1);
    g.add("empty_index_6x4", {g.data({6, 4}), g.index({0}, 6)}, &a, 1);
    g.add("vocab_1000x64", {g.data({1000, 64}), g.index({8, 16}, 1000)}, &a, 1);
    return;
  }
  auto add = [&](const std::string& label, int64_t pad, uint32_t flags) {
    const devplug_embedding_attrs_t a{sizeof(a), pad, flags};
    Extra e;
    e.rows = 10;
    g.add(label + "_10x6", {g.data({4, 5, 6}), g.index({4, 5}, 10)}, &a, 20, e);
  };
  add("plain", -1, 0);
  add("padding_idx", 2, 0);
  add("by_freq", -1, DEVPLUG_EMBEDDING_SCALE_GRAD_BY_FREQ);
  add("padding_by_freq", 0, DEVPLUG_EMBEDDING_SCALE_GRAD_BY_FREQ);
}

// ---- losses --------------------------------------------------------------------------------------

void losses(Gen& g, devplug_op_t op) {
  const bool backward = op == DEVPLUG_OP_nll_loss_backward || op == DEVPLUG_OP_cross_entropy_backward ||
                        op == DEVPLUG_OP_mse_loss_backward;
  const bool smoothing = op == DEVPLUG_OP_cross_entropy || op == DEVPLUG_OP_cross_entropy_backward;
  const char* names[] = {"none", "mean", "sum"};
  if (op == DEVPLUG_OP_mse_loss || op == DEVPLUG_OP_mse_loss_backward) {
    for (int32_t r = 0; r < 3; ++r) {
      const devplug_loss_attrs_t a{sizeof(a), r, -100, 0.0};
      auto add = [&](const std::string& label, const Shape& x, View xv) {
        std::vector<TensorSpec> in = {g.data(x, xv), g.data(x, View::Transposed)};
        if (backward) in.insert(in.begin(), g.data(r == 0 ? x : Shape{}));
        g.add(std::string(names[r]) + "_" + label + "_" + shape_text(x), in, &a, numel(x));
      };
      add("contiguous", {7, 13}, View::Dense);
      add("broadcast", {3, 2, 5}, View::Broadcast);
      add("empty", {0, 5}, View::Dense);
    }
    return;
  }
  auto add = [&](const std::string& label, const Shape& x, int32_t r, bool weight, double s, View xv,
                 bool all_ignored = false) {
    const devplug_loss_attrs_t a{sizeof(a), r, -100, s};
    const int64_t C = x.size() == 1 ? x[0] : x[1];
    Shape t = x;
    t.erase(t.begin() + (x.size() == 1 ? 0 : 1));
    std::vector<TensorSpec> in = {
        g.data(x, xv), g.targets(t, C, -100, all_ignored),
        weight ? g.fixed(g.dtype(), {C}, g.uniform({C}, 0.25, 2.0)) : Gen::absent()};
    if (backward) in.insert(in.begin(), g.data(r == 0 ? t : Shape{}));
    std::string tag = std::string(names[r]) + (weight ? "_weighted" : "") + (s > 0 ? "_smooth" : "") + "_";
    g.add(tag + label + "_" + shape_text(x), in, &a, C + numel(t));
  };
  for (int32_t r = 0; r < 3; ++r) {
    add("batch", {8, 5}, r, false, 0, View::Dense);
    add("batch", {8, 5}, r, true, 0, View::Transposed);
    add("spatial", {2, 5, 3, 4}, r, r == 1, 0, View::Negative);
    if (smoothing) {
      add("batch", {8, 5}, r, false, 0.1, View::Dense);
      add("batch", {8, 5}, r, true, 0.2, View::Offset);
    }
  }
  add("single", {5}, 1, true, smoothing ? 0.1 : 0, View::Dense);
  add("ignored", {4, 3}, 1, false, 0, View::Dense, true);  // mean of nothing: NaN
  add("empty", {0, 4}, 0, false, 0, View::Dense);
  add("classifier", {32, 100}, 1, false, smoothing ? 0.1 : 0, View::Dense);
}

}  // namespace

std::vector<Case> composite_cases(const devplug_op_info_t& info, devplug_dtype_t dtype, uint64_t seed) {
  Gen g(info, dtype, seed);
  switch (info.id) {
    case DEVPLUG_OP_mean:
    case DEVPLUG_OP_logsumexp:
      reductions(g, info.id);
      break;
    case DEVPLUG_OP_softmax:
    case DEVPLUG_OP_log_softmax:
    case DEVPLUG_OP_softmax_backward:
    case DEVPLUG_OP_log_softmax_backward:
      softmaxes(g, info.id);
      break;
    case DEVPLUG_OP_layer_norm:
    case DEVPLUG_OP_rms_norm:
    case DEVPLUG_OP_layer_norm_backward:
    case DEVPLUG_OP_rms_norm_backward:
      norms(g, info.id);
      break;
    case DEVPLUG_OP_batch_norm:
    case DEVPLUG_OP_batch_norm_training:
    case DEVPLUG_OP_batch_norm_backward:
      batch_norms(g, info.id);
      break;
    case DEVPLUG_OP_linear:
    case DEVPLUG_OP_linear_backward:
      linears(g, info.id);
      break;
    case DEVPLUG_OP_scaled_dot_product_attention:
    case DEVPLUG_OP_scaled_dot_product_attention_backward:
      attention(g, info.id);
      break;
    case DEVPLUG_OP_conv2d:
    case DEVPLUG_OP_conv2d_backward:
      convs(g, info.id);
      break;
    case DEVPLUG_OP_avg_pool2d:
    case DEVPLUG_OP_max_pool2d:
    case DEVPLUG_OP_avg_pool2d_backward:
    case DEVPLUG_OP_max_pool2d_backward:
      pools(g, info.id);
      break;
    case DEVPLUG_OP_embedding:
    case DEVPLUG_OP_embedding_backward:
      embeddings(g, info.id);
      break;
    case DEVPLUG_OP_nll_loss:
    case DEVPLUG_OP_cross_entropy:
    case DEVPLUG_OP_mse_loss:
    case DEVPLUG_OP_nll_loss_backward:
    case DEVPLUG_OP_cross_entropy_backward:
    case DEVPLUG_OP_mse_loss_backward:
      losses(g, info.id);
      break;
    default:
      activations(g, info.id);
      break;
  }
  if (g.cases().empty())
    throw std::logic_error(std::string("no conformance cases for composite ") + info.name);
  return std::move(g.cases());
}

}  // namespace devplug::conform
