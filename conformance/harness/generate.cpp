// SPDX-License-Identifier: Apache-2.0
// Case generation from ops.def (see generate.hpp). One small builder per category; every
// builder covers the layout classes that make sense for its category.
#include "harness/generate.hpp"

#include <random>
#include <string>

#include "devplug/sdk/kernels.hpp"
#include "harness/composite_cases.hpp"
#include "harness/domains.hpp"
#include "harness/elements.hpp"
#include "harness/values.hpp"

namespace devplug::conform {

uint64_t hash_name(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

using Shape = std::vector<int64_t>;

std::string shape_text(const Shape& shape) {
  if (shape.empty()) return "0d";
  std::string s;
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? "x" : "") + std::to_string(shape[k]);
  return s;
}

// Large cases (>= 1M elements) cost time: only for one float and one integer dtype.
bool large_dtype(devplug_dtype_t d) { return d == DEVPLUG_DTYPE_FLOAT32 || d == DEVPLUG_DTYPE_INT32; }

// Elementwise-like ops share one launch scheme per plugin, so 1M elements are run for one
// op of each kind; every op gets `long_4099` instead (many work-groups, no multiple of a
// vector width), which exercises the same indexing at a few thousandths of the cost.
bool large_elementwise(const devplug_op_info_t* info) {
  const devplug_op_t op = info->id;
  return op == DEVPLUG_OP_exp || op == DEVPLUG_OP_add || op == DEVPLUG_OP_lt || op == DEVPLUG_OP_where ||
         op == DEVPLUG_OP_copy_strided || op == DEVPLUG_OP_fill || op == DEVPLUG_OP_iota ||
         op == DEVPLUG_OP_philox_uniform || op == DEVPLUG_OP_bitwise_not;
}

const Shape kOdd = {7, 13};
const Shape kLarge = {1024, 1024};
// Above 2^24 (float32 stops counting), a little: for one op of a family, one dtype.
constexpr int64_t kHuge = (int64_t{1} << 24) + 3;

// A layout class of an elementwise-like case: a shape and the views of inputs and output.
struct LayoutClass {
  std::string label;
  Shape shape;
  View in_view;
  View out_view;
  bool large = false;
};

std::vector<LayoutClass> elementwise_layouts() {
  return {
      {"scalar", {}, View::Dense, View::Dense},
      {"empty", {0, 5}, View::Dense, View::Dense},
      {"one", {1}, View::Dense, View::Dense},
      {"contiguous", kOdd, View::Dense, View::Dense},
      {"long", {4099}, View::Dense, View::Dense},
      {"large", kLarge, View::Dense, View::Dense, true},
      {"transposed", kOdd, View::Transposed, View::Transposed},
      {"sliced", kOdd, View::Sliced, View::Sliced},
      {"negstride", kOdd, View::Negative, View::Negative},
      {"broadcast", kOdd, View::Broadcast, View::Dense},
      {"overlap", kOdd, View::Overlap, View::Dense},
      {"offset", kOdd, View::Offset, View::Offset},
      {"rank1", {31}, View::Sliced, View::Dense},
      {"rank3", {3, 1, 5}, View::Transposed, View::Dense},
      {"rank4", {2, 3, 1, 4}, View::Negative, View::Negative},
      {"rank5", {2, 1, 3, 2, 3}, View::Dense, View::Transposed},
      {"rank6", {2, 1, 2, 3, 1, 2}, View::Broadcast, View::Offset},
  };
}

class Builder {
 public:
  Builder(const ClaimFn& claimed, bool allow_fallback, uint64_t seed)
      : claimed_(claimed), allow_fallback_(allow_fallback), rng_(seed ^ 0xC0FFEEull) {}

  std::vector<Case> run() {
    for (devplug_op_t op : sdk::all_ops()) {
      const devplug_op_info_t* info = devplug_op_info(op);
      for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
        if (!(info->dtypes & DEVPLUG_DTYPE_BIT(d))) continue;
        const bool claimed = claimed_(op, d);
        // A composite always runs: natively where claimed, else through its decomposition.
        const bool composite = info->category == DEVPLUG_CATEGORY_composite;
        if (!claimed && !allow_fallback_ && !composite) continue;
        fallback_ = !claimed && !composite;
        decomposed_ = composite && !claimed;
        op_cases(info, d);
      }
    }
    return std::move(cases_);
  }

 private:
  // A fresh case for (op, dtype); the caller fills tensors and calls add().
  Case start(const devplug_op_info_t* info, devplug_dtype_t d) {
    Case c;
    c.op = info->id;
    c.dtype = d;
    c.dtype_label = devplug_dtype_name(d);
    c.through_fallback = fallback_;
    return c;
  }
  void add(Case c, const std::string& layout, ValueClass values, const std::string& value_label = "") {
    c.layout = layout;
    c.value_class = values;
    c.values = !value_label.empty() ? value_label : value_class_name(values);
    c.name = std::string(devplug_op_name(c.op)) + "_" + c.dtype_label + "_" + c.layout + "_" + c.values;
    cases_.push_back(std::move(c));
  }
  static TensorSpec tensor(devplug_dtype_t d, Shape shape, View view = View::Dense) {
    TensorSpec t;
    t.dtype = d;
    t.shape = std::move(shape);
    t.view = view;
    return t;
  }
  static devplug_dtype_t output_dtype(const devplug_op_info_t* info, devplug_dtype_t d) {
    switch (info->result) {
      case DEVPLUG_RESULT_bool:
        return DEVPLUG_DTYPE_BOOL;
      case DEVPLUG_RESULT_int64:
        return DEVPLUG_DTYPE_INT64;
      default:
        return d;
    }
  }

  void op_cases(const devplug_op_info_t* info, devplug_dtype_t d) {
    switch (info->category) {
      case DEVPLUG_CATEGORY_unary:
      case DEVPLUG_CATEGORY_binary:
      case DEVPLUG_CATEGORY_compare:
      case DEVPLUG_CATEGORY_ternary:
        elementwise(info, d, d, output_dtype(info, d));
        break;
      case DEVPLUG_CATEGORY_data:
        data(info, d);
        break;
      case DEVPLUG_CATEGORY_reduce:
        reduce(info, d);
        break;
      case DEVPLUG_CATEGORY_scan:
        scan(info, d);
        break;
      case DEVPLUG_CATEGORY_index:
        index(info, d);
        break;
      case DEVPLUG_CATEGORY_shape:
        shape(info, d);
        break;
      case DEVPLUG_CATEGORY_linalg:
        matmul(info, d);
        break;
      case DEVPLUG_CATEGORY_random:
        random(info, d);
        break;
      case DEVPLUG_CATEGORY_composite:
        for (Case& c : composite_cases(*info, d, rng_())) {
          c.decomposed = decomposed_;
          cases_.push_back(std::move(c));
        }
        break;
      default:
        break;
    }
  }

  // Inputs of dtype `in` (input 0 of `where` is bool), output of dtype `out`.
  void elementwise(const devplug_op_info_t* info, devplug_dtype_t d, devplug_dtype_t in, devplug_dtype_t out,
                   const std::string& label = "") {
    const int n_in = info->n_inputs;
    auto make = [&](const Shape& shape, View iv, View ov) {
      Case c = start(info, d);
      if (!label.empty()) c.dtype_label = label;
      for (int k = 0; k < n_in; ++k) {
        const bool cond = info->result == DEVPLUG_RESULT_select && k == 0;
        c.inputs.push_back(tensor(cond ? DEVPLUG_DTYPE_BOOL : in, shape, iv));
      }
      c.outputs.push_back(tensor(out, shape, ov));
      return c;
    };
    for (const LayoutClass& l : elementwise_layouts()) {
      if (l.large && !(large_dtype(in) && large_elementwise(info))) continue;
      add(make(l.shape, l.in_view, l.out_view), l.label + "_" + shape_text(l.shape), ValueClass::Random);
    }
    // Specials: a square whose side is the number of specials, so every pair meets.
    const int64_t n = special_count(in);
    add(make({n, n}, View::Dense, View::Dense), "contiguous_" + shape_text({n, n}), ValueClass::Special);
    add(make({n, n}, View::Negative, View::Transposed), "negstride_" + shape_text({n, n}),
        ValueClass::Special);
    // The op's edges (domains.hpp): its hard points, closed in on from both sides.
    if (is_float(in) && info->category != DEVPLUG_CATEGORY_ternary &&
        info->category != DEVPLUG_CATEGORY_data) {
      const int64_t e = edge_count(info, in, out);
      add(make({e}, View::Dense, View::Dense), "contiguous_" + shape_text({e}), ValueClass::Edges);
    }
  }

  static int64_t edge_count(const devplug_op_info_t* info, devplug_dtype_t in, devplug_dtype_t out) {
    return static_cast<int64_t>(edge_values(info->id, info->n_inputs, in, out).size());
  }

  void data(const devplug_op_info_t* info, devplug_dtype_t d) {
    const devplug_op_t op = info->id;
    if (op == DEVPLUG_OP_copy_strided) return elementwise(info, d, d, d);
    if (op == DEVPLUG_OP_convert_element_type) {
      for (devplug_dtype_t to = 0; to < DEVPLUG_DTYPE_COUNT; ++to) {
        const std::string label = std::string(devplug_dtype_name(d)) + "_to_" + devplug_dtype_name(to);
        auto make = [&](const Shape& shape, View iv, View ov) {
          Case c = start(info, d);
          c.dtype_label = label;
          c.inputs.push_back(tensor(d, shape, iv));
          c.outputs.push_back(tensor(to, shape, ov));
          return c;
        };
        add(make({}, View::Dense, View::Dense), "scalar_0d", ValueClass::Random);
        add(make({0, 5}, View::Dense, View::Dense), "empty_0x5", ValueClass::Random);
        add(make(kOdd, View::Dense, View::Dense), "contiguous_7x13", ValueClass::Random);
        add(make(kOdd, View::Transposed, View::Dense), "transposed_7x13", ValueClass::Random);
        add(make(kOdd, View::Negative, View::Offset), "negstride_7x13", ValueClass::Random);
        const int64_t n = special_count(d);
        add(make({n, n}, View::Dense, View::Dense), "contiguous_" + shape_text({n, n}), ValueClass::Special);
        if (is_float(d)) {
          const int64_t e = edge_count(info, d, to);
          add(make({e}, View::Dense, View::Dense), "contiguous_" + shape_text({e}), ValueClass::Edges);
        }
        if (d == DEVPLUG_DTYPE_FLOAT32 && to == DEVPLUG_DTYPE_INT32)
          add(make(kLarge, View::Dense, View::Dense), "large_1024x1024", ValueClass::Random);
      }
      return;
    }
    // fill and iota: no inputs, the output's layouts and the attribute values vary.
    const bool fill = op == DEVPLUG_OP_fill;
    auto make = [&](const Shape& shape, View ov, double f, int64_t i, double f2, int64_t i2) {
      Case c = start(info, d);
      c.outputs.push_back(tensor(d, shape, ov));
      if (fill) {
        c.attrs.kind = Attrs::Fill;
        c.attrs.fill = {sizeof(devplug_fill_attrs_t), {f, i}};
      } else {
        c.attrs.kind = Attrs::Iota;
        c.attrs.iota = {sizeof(devplug_iota_attrs_t), {f, i}, {f2, i2}};
      }
      return c;
    };
    std::uniform_real_distribution<double> real(-100, 100);
    for (const LayoutClass& l : elementwise_layouts()) {
      if (l.large && !(large_dtype(d) && large_elementwise(info))) continue;
      if (l.out_view == View::Dense && l.in_view != View::Dense && l.label != "rank1") continue;
      const int64_t i = static_cast<int64_t>(rng_() % 100), i2 = static_cast<int64_t>(rng_() % 7) - 3;
      const double f = is_float(d) ? real(rng_) : static_cast<double>(i);
      const double f2 = is_float(d) ? real(rng_) / 64 : static_cast<double>(i2);
      add(make(l.shape, l.out_view, f, i, f2, i2), l.label + "_" + shape_text(l.shape), ValueClass::Random);
    }
    if (is_float(d)) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      if (fill) {
        add(make(kOdd, View::Dense, nan, 0, 0, 0), "contiguous_7x13", ValueClass::Special, "nan");
        add(make(kOdd, View::Dense, -0.0, 0, 0, 0), "contiguous_7x13", ValueClass::Special, "negzero");
        add(make(kOdd, View::Dense, -1e300, 0, 0, 0), "contiguous_7x13", ValueClass::Special, "overflow");
        add(make(kOdd, View::Dense, 1.0 / 3, 0, 0, 0), "contiguous_7x13", ValueClass::Special, "third");
      } else {
        add(make(kOdd, View::Dense, -0.5, 0, 1.0 / 3, 0), "contiguous_7x13", ValueClass::Special, "third");
        add(make(kOdd, View::Dense, 1e8, 0, 1.0, 0), "contiguous_7x13", ValueClass::Special, "big");
        // Element indices above 2^24 are not float32 values: k * step must not pass through
        // a float32 k. Once, for float32.
        if (d == DEVPLUG_DTYPE_FLOAT32)
          add(make({kHuge}, View::Dense, 0.5, 0, 1.0, 0), "huge_" + shape_text({kHuge}), ValueClass::Special,
              "halves");
      }
    } else {
      const int64_t lo = int_min(d), hi = int_max(d);
      if (fill) {
        add(make(kOdd, View::Dense, 0, hi, 0, 0), "contiguous_7x13", ValueClass::Special, "max");
        add(make(kOdd, View::Dense, 0, lo, 0, 0), "contiguous_7x13", ValueClass::Special, "min");
      } else {
        add(make(kOdd, View::Dense, 0, hi - 5, 0, 1), "contiguous_7x13", ValueClass::Special, "wrap");
        add(make(kOdd, View::Dense, 0, lo + 50, 0, -1), "contiguous_7x13", ValueClass::Special, "down");
      }
    }
  }

  void reduce(const devplug_op_info_t* info, devplug_dtype_t d) {
    const devplug_op_t op = info->id;
    const devplug_dtype_t out = output_dtype(info, d);
    auto make = [&](const Shape& shape, View view, uint32_t mask, double correction) {
      Case c = start(info, d);
      c.inputs.push_back(tensor(d, shape, view));
      Shape oshape = shape;
      int64_t n = 1;
      for (size_t k = 0; k < shape.size(); ++k)
        if (mask & (1u << k)) {
          n *= shape[k];
          oshape[k] = 1;
        }
      c.outputs.push_back(tensor(out, oshape));
      c.attrs.kind = Attrs::Reduce;
      c.attrs.reduce = {sizeof(devplug_reduce_attrs_t), mask, correction};
      c.reduction_length = n;
      return c;
    };
    const double corr = op == DEVPLUG_OP_var ? 1.0 : 0.0;
    const std::string tag = op == DEVPLUG_OP_var ? "corr1_" : "";
    add(make({}, View::Dense, 0, corr), tag + "scalar_0d", ValueClass::Random);
    add(make({0, 5}, View::Dense, 1, corr), tag + "empty_dim0_0x5", ValueClass::Random);
    add(make({1}, View::Dense, 1, corr), tag + "one_1", ValueClass::Random);
    add(make(kOdd, View::Dense, 2, corr), tag + "dim1_7x13", ValueClass::Random);
    add(make(kOdd, View::Transposed, 1, corr), tag + "dim0_transposed_7x13", ValueClass::Random);
    add(make(kOdd, View::Negative, 3, corr), tag + "all_negstride_7x13", ValueClass::Random);
    add(make(kOdd, View::Offset, 0, corr), tag + "none_offset_7x13", ValueClass::Random);
    add(make({3, 5, 7}, View::Broadcast, 5, corr), tag + "several_broadcast_3x5x7", ValueClass::Random);
    add(make({3, 5, 7}, View::Overlap, 6, corr), tag + "several_overlap_3x5x7", ValueClass::Random);
    add(make({2, 1, 3, 2, 1, 3}, View::Transposed, 0x29, corr), tag + "rank6_2x1x3x2x1x3",
        ValueClass::Random);
    if (large_dtype(d))
      add(make(kLarge, View::Dense, 2, corr), tag + "large_dim1_1024x1024", ValueClass::Random);
    const int64_t n = special_count(d);
    add(make({n, n}, View::Dense, 2, corr), tag + "dim1_" + shape_text({n, n}), ValueClass::Special);
    add(make({n, n}, View::Dense, 3, corr), tag + "all_" + shape_text({n, n}), ValueClass::Special);
    if (op == DEVPLUG_OP_var) {
      add(make(kOdd, View::Dense, 2, 0.0), "corr0_dim1_7x13", ValueClass::Random);
      add(make(kOdd, View::Dense, 2, 13.0), "corr13_dim1_7x13", ValueClass::Random);
    }
    // Size classes: each forces a strategy a plugin may choose (one item per output, one
    // work-group per output, several work-groups per output, many outputs), at lengths
    // either side of powers of two and above 2^16.
    for (const SizeClass& z : reduction_sizes())
      add(make(z.shape, View::Dense, z.mask, corr), tag + z.label + "_" + shape_text(z.shape),
          ValueClass::Random);
    // The specials (NaN, infinities, signed zeros, the dtype's extremes) through the
    // single-group and multi-group strategies too: partial results that are NaN or infinite
    // must survive the combine, and CPU paths that load several elements at once see them.
    for (const SizeClass& z : reduction_sizes())
      if (z.conditioned)
        add(make(z.shape, View::Dense, z.mask, corr), tag + z.label + "_" + shape_text(z.shape),
            ValueClass::Special);
    // Ill-conditioned data on the short, single-group and multi-group strategies.
    for (ValueClass v : conditioned_classes(info, d)) {
      for (const SizeClass& z : reduction_sizes()) {
        if (!z.conditioned && !(v == ValueClass::BigMean && z.label == std::string("len63"))) continue;
        add(make(z.shape, View::Dense, z.mask, corr), tag + z.label + "_" + shape_text(z.shape), v);
      }
    }
    // Beyond 2^24 elements (where float32 stops counting), once: float32 sum over several
    // work-groups.
    if (op == DEVPLUG_OP_sum && d == DEVPLUG_DTYPE_FLOAT32)
      add(make({kHuge}, View::Dense, 1, corr), "huge_" + shape_text({kHuge}), ValueClass::Runs);
  }

  struct SizeClass {
    Shape shape;
    uint32_t mask;  // reduced dims (reductions) or 1 << dim (scans)
    const char* label;
    bool conditioned;  // also runs the ill-conditioned value classes
  };
  static const std::vector<SizeClass>& reduction_sizes() {
    static const std::vector<SizeClass> sizes = {
        {{3, 63}, 2, "len63", false},      // below 64: one work item per output
        {{3, 65}, 2, "len65", true},       // above 64: one work-group per output
        {{2, 1025}, 2, "len1025", false},  // above 2^10, every lane of a group busy
        {{4100, 3}, 2, "outputs", false},  // more outputs than 2^12: many per work-group
        {{2, 40000}, 2, "groups", true},   // several work-groups per output, the last partial
        {{65537}, 1, "len65537", false},   // above 2^16, one output
    };
    return sizes;
  }
  // Products of values spanning many magnitudes over- and underflow in an order that
  // depends on the plugin's tree (Inf * 0 = NaN in one order, Inf in another): not for prod
  // and cumprod.
  static std::vector<ValueClass> conditioned_classes(const devplug_op_info_t* info, devplug_dtype_t d) {
    if (!is_float(d)) return {ValueClass::Runs};
    const devplug_op_t op = info->id;
    if (op == DEVPLUG_OP_prod || op == DEVPLUG_OP_cumprod)
      return {ValueClass::BigMean, ValueClass::Cancel, ValueClass::Runs};
    return {ValueClass::BigMean, ValueClass::Cancel, ValueClass::Runs, ValueClass::Magnitudes};
  }

  void scan(const devplug_op_info_t* info, devplug_dtype_t d) {
    auto make = [&](const Shape& shape, View view, int32_t dim) {
      Case c = start(info, d);
      c.inputs.push_back(tensor(d, shape, view));
      c.outputs.push_back(tensor(d, shape, view == View::Transposed ? View::Transposed : View::Dense));
      c.attrs.kind = Attrs::Dim;
      c.attrs.dim = {sizeof(devplug_dim_attrs_t), dim};
      c.reduction_length = shape.empty() ? 1 : shape[static_cast<size_t>(dim)];
      return c;
    };
    add(make({}, View::Dense, 0), "scalar_0d", ValueClass::Random);
    add(make({0, 5}, View::Dense, 1), "empty_dim1_0x5", ValueClass::Random);
    add(make({1}, View::Dense, 0), "one_1", ValueClass::Random);
    add(make(kOdd, View::Dense, 1), "dim1_7x13", ValueClass::Random);
    add(make(kOdd, View::Transposed, 0), "dim0_transposed_7x13", ValueClass::Random);
    add(make(kOdd, View::Negative, 1), "dim1_negstride_7x13", ValueClass::Random);
    add(make(kOdd, View::Broadcast, 0), "dim0_broadcast_7x13", ValueClass::Random);
    add(make({2, 3, 1, 4, 5}, View::Offset, 3), "rank5_2x3x1x4x5", ValueClass::Random);
    if (large_dtype(d)) add(make(kLarge, View::Dense, 1), "large_dim1_1024x1024", ValueClass::Random);
    const int64_t n = special_count(d);
    add(make({n, n}, View::Dense, 1), "dim1_" + shape_text({n, n}), ValueClass::Special);
    // Size classes: many short lines, lines longer than a work-group, a line above 2^16.
    const struct {
      Shape shape;
      int32_t dim;
      const char* label;
    } sizes[] = {{{4100, 3}, 1, "lines"}, {{3, 1025}, 1, "len1025"}, {{65537}, 0, "len65537"}};
    for (const auto& z : sizes)
      add(make(z.shape, View::Dense, z.dim), std::string(z.label) + "_" + shape_text(z.shape),
          ValueClass::Random);
    for (ValueClass v : conditioned_classes(info, d))
      add(make({3, 1025}, View::Dense, 1), "len1025_3x1025", v);
    if (info->id == DEVPLUG_OP_cumsum && d == DEVPLUG_DTYPE_INT32)
      add(make({kHuge}, View::Dense, 0), "huge_" + shape_text({kHuge}), ValueClass::Runs);
  }

  void index(const devplug_op_info_t* info, devplug_dtype_t d) {
    const devplug_op_t op = info->id;
    const bool scatter = op == DEVPLUG_OP_scatter || op == DEVPLUG_OP_scatter_add;
    auto index_spec = [&](Shape shape, int64_t bound, int32_t dim, View view) {
      TensorSpec t = tensor(DEVPLUG_DTYPE_INT64, std::move(shape), view);
      t.role = Role::Index;
      t.index_bound = bound;
      t.index_dim = dim;
      t.unique_along_dim = op == DEVPLUG_OP_scatter;  // duplicate targets are unspecified
      return t;
    };
    // in: input shape; idx: index shape; dim; views of data and index.
    auto make = [&](const Shape& in, const Shape& idx, int32_t dim, View view, View iview) {
      Case c = start(info, d);
      c.inputs.push_back(tensor(d, in, view));
      Shape out = in;
      if (op == DEVPLUG_OP_index_select) {
        c.inputs.push_back(index_spec(idx, in[static_cast<size_t>(dim)], 0, iview));
        out[static_cast<size_t>(dim)] = idx[0];
      } else {
        c.inputs.push_back(index_spec(idx, in[static_cast<size_t>(dim)], dim, iview));
        if (op == DEVPLUG_OP_gather) out = idx;
      }
      if (scatter) c.inputs.push_back(tensor(d, in, view == View::Transposed ? View::Dense : view));
      c.outputs.push_back(tensor(d, out));
      c.attrs.kind = Attrs::Dim;
      c.attrs.dim = {sizeof(devplug_dim_attrs_t), dim};
      // index_select's index is 1-D whatever dim is.
      c.reduction_length =
          idx.empty() ? 1 : idx[op == DEVPLUG_OP_index_select ? 0 : static_cast<size_t>(dim)] + 1;
      return c;
    };
    const bool select = op == DEVPLUG_OP_index_select;
    const Shape idx0 = select ? Shape{5} : Shape{5, 13};
    const Shape idx1 = select ? Shape{4} : Shape{7, 4};
    const Shape empty = select ? Shape{0} : Shape{0, 13};
    for (ValueClass v : {ValueClass::Random, ValueClass::Special}) {
      add(make(kOdd, idx0, 0, View::Dense, View::Dense), "dim0_7x13", v);
      if (v == ValueClass::Special) break;
      add(make(kOdd, idx1, 1, View::Transposed, View::Dense), "dim1_transposed_7x13", v);
      add(make(kOdd, idx0, 0, View::Negative, select ? View::Negative : View::Transposed),
          "dim0_negstride_7x13", v);
      add(make(kOdd, idx1, 1, View::Offset, View::Offset), "dim1_offset_7x13", v);
      add(make(kOdd, empty, 0, View::Dense, View::Dense), "empty_index_7x13", v);
      add(make({3, 4, 5}, select ? Shape{6} : Shape{3, 4, 2}, select ? 1 : 2, View::Broadcast, View::Dense),
          "rank3_broadcast_3x4x5", v);
    }
    if (large_dtype(d))
      add(make(kLarge, select ? Shape{1024} : Shape{1024, 1024}, 0, View::Dense, View::Dense),
          "large_dim0_1024x1024", ValueClass::Random);
  }

  void shape(const devplug_op_info_t* info, devplug_dtype_t d) {
    const devplug_op_t op = info->id;
    const int64_t n = special_count(d);
    if (op == DEVPLUG_OP_cat) {
      auto make = [&](const std::vector<Shape>& parts, int32_t dim, View view) {
        Case c = start(info, d);
        Shape out = parts[0];
        out[static_cast<size_t>(dim)] = 0;
        for (const Shape& p : parts) {
          c.inputs.push_back(tensor(d, p, view));
          out[static_cast<size_t>(dim)] += p[static_cast<size_t>(dim)];
        }
        c.outputs.push_back(tensor(d, out));
        c.attrs.kind = Attrs::Dim;
        c.attrs.dim = {sizeof(devplug_dim_attrs_t), dim};
        return c;
      };
      add(make({{3, 13}, {4, 13}, {1, 13}}, 0, View::Dense), "dim0_3parts_8x13", ValueClass::Random);
      add(make({{7, 2}, {7, 5}, {7, 6}}, 1, View::Transposed), "dim1_transposed_7x13", ValueClass::Random);
      add(make({{3, 13}, {0, 13}, {4, 13}}, 0, View::Negative), "dim0_emptypart_negstride_7x13",
          ValueClass::Random);
      add(make({{7, 13}}, 1, View::Broadcast), "onepart_broadcast_7x13", ValueClass::Random);
      add(make({{2, 3, 4}, {2, 1, 4}}, 1, View::Offset), "rank3_offset_2x4x4", ValueClass::Random);
      add(make({{n, n}, {n, n}}, 0, View::Dense), "dim0_" + shape_text({2 * n, n}), ValueClass::Special);
      if (large_dtype(d))
        add(make({{512, 1024}, {512, 1024}}, 0, View::Dense), "large_1024x1024", ValueClass::Random);
      return;
    }
    if (op == DEVPLUG_OP_flip) {
      auto make = [&](const Shape& shape, View view, uint32_t mask) {
        Case c = start(info, d);
        c.inputs.push_back(tensor(d, shape, view));
        c.outputs.push_back(tensor(d, shape, view == View::Sliced ? View::Sliced : View::Dense));
        c.attrs.kind = Attrs::Flip;
        c.attrs.flip = {sizeof(devplug_flip_attrs_t), mask};
        return c;
      };
      add(make({}, View::Dense, 0), "scalar_0d", ValueClass::Random);
      add(make({0, 5}, View::Dense, 3), "empty_0x5", ValueClass::Random);
      add(make(kOdd, View::Dense, 1), "dim0_7x13", ValueClass::Random);
      add(make(kOdd, View::Transposed, 2), "dim1_transposed_7x13", ValueClass::Random);
      add(make(kOdd, View::Negative, 3), "both_negstride_7x13", ValueClass::Random);
      add(make(kOdd, View::Sliced, 0), "none_sliced_7x13", ValueClass::Random);
      add(make({2, 1, 3, 2, 1, 3}, View::Broadcast, 0x2A), "rank6_broadcast_2x1x3x2x1x3", ValueClass::Random);
      add(make({n, n}, View::Dense, 3), "both_" + shape_text({n, n}), ValueClass::Special);
      if (large_dtype(d)) add(make(kLarge, View::Dense, 2), "large_1024x1024", ValueClass::Random);
      return;
    }
    // constant_pad
    auto make = [&](const Shape& shape, View view, const Shape& before, const Shape& after, double f,
                    int64_t i) {
      Case c = start(info, d);
      c.inputs.push_back(tensor(d, shape, view));
      Shape out = shape;
      c.attrs.kind = Attrs::Pad;
      c.attrs.pad.struct_size = sizeof(devplug_pad_attrs_t);
      for (size_t k = 0; k < shape.size(); ++k) {
        c.attrs.pad.before[k] = before[k];
        c.attrs.pad.after[k] = after[k];
        out[k] += before[k] + after[k];
      }
      c.attrs.pad.value = {f, i};
      c.outputs.push_back(tensor(d, out));
      return c;
    };
    const double fv = is_float(d) ? -2.5 : 0;
    const int64_t iv = d == DEVPLUG_DTYPE_BOOL ? 1 : 3;
    add(make({}, View::Dense, {}, {}, fv, iv), "scalar_0d", ValueClass::Random);
    add(make({0, 5}, View::Dense, {1, 0}, {1, 2}, fv, iv), "empty_0x5", ValueClass::Random);
    add(make(kOdd, View::Dense, {1, 2}, {3, 0}, fv, iv), "grow_7x13", ValueClass::Random);
    add(make(kOdd, View::Transposed, {-1, 0}, {0, -2}, fv, iv), "crop_transposed_7x13", ValueClass::Random);
    add(make(kOdd, View::Negative, {-2, 3}, {1, -4}, fv, iv), "mixed_negstride_7x13", ValueClass::Random);
    add(make({3, 1, 4}, View::Broadcast, {0, 2, 1}, {1, 0, 1}, fv, iv), "rank3_broadcast_3x1x4",
        ValueClass::Random);
    add(make({n, n}, View::Dense, {1, 1}, {1, 1}, is_float(d) ? std::numeric_limits<double>::quiet_NaN() : 0,
             int_min(d)),
        "grow_" + shape_text({n, n}), ValueClass::Special);
    if (large_dtype(d))
      add(make({1022, 1022}, View::Dense, {1, 1}, {1, 1}, fv, iv), "large_1022x1022", ValueClass::Random);
  }

  void matmul(const devplug_op_info_t* info, devplug_dtype_t d) {
    // Batch dims b, then m, k, n. views of a, b and out.
    auto make = [&](const Shape& batch, int64_t m, int64_t k, int64_t n, View va, View vb, View vo) {
      Case c = start(info, d);
      Shape a = batch, b = batch, o = batch;
      a.insert(a.end(), {m, k});
      b.insert(b.end(), {k, n});
      o.insert(o.end(), {m, n});
      c.inputs.push_back(tensor(d, a, va));
      c.inputs.push_back(tensor(d, b, vb));
      c.outputs.push_back(tensor(d, o, vo));
      c.attrs.kind = Attrs::Matmul;
      c.reduction_length = std::max<int64_t>(k, 1);
      return c;
    };
    add(make({}, 1, 17, 5, View::Dense, View::Dense, View::Dense), "1xK_1x17x5", ValueClass::Random);
    add(make({}, 5, 17, 1, View::Dense, View::Dense, View::Dense), "Kx1_5x17x1", ValueClass::Random);
    add(make({}, 7, 13, 9, View::Dense, View::Dense, View::Dense), "square_7x13x9", ValueClass::Random);
    add(make({}, 3, 0, 4, View::Dense, View::Dense, View::Dense), "k0_3x0x4", ValueClass::Random);
    add(make({}, 0, 5, 4, View::Dense, View::Dense, View::Dense), "empty_0x5x4", ValueClass::Random);
    add(make({}, 7, 13, 9, View::Transposed, View::Transposed, View::Transposed), "transposed_7x13x9",
        ValueClass::Random);
    add(make({}, 7, 13, 9, View::Negative, View::Sliced, View::Offset), "negstride_7x13x9",
        ValueClass::Random);
    add(make({2}, 3, 5, 4, View::Dense, View::Dense, View::Dense), "batched_2x3x5x4", ValueClass::Random);
    add(make({3}, 4, 6, 5, View::Broadcast, View::Dense, View::Dense), "bcastbatch_3x4x6x5",
        ValueClass::Random);
    add(make({2, 2}, 3, 4, 5, View::Dense, View::Transposed, View::Dense), "rank4_2x2x3x4x5",
        ValueClass::Random);
    add(make({}, 7, 13, 9, View::Dense, View::Dense, View::Dense), "square_7x13x9", ValueClass::Special);
    if (d == DEVPLUG_DTYPE_FLOAT32)
      add(make({}, 1024, 4, 1024, View::Dense, View::Dense, View::Dense), "large_1024x4x1024",
          ValueClass::Random);
    // Several tiles in every direction, the last ones partial; K far beyond a tile.
    add(make({}, 33, 65, 47, View::Dense, View::Dense, View::Dense), "tiles_33x65x47", ValueClass::Random);
    add(make({}, 33, 65, 47, View::Transposed, View::Dense, View::Transposed), "tiles_transposed_33x65x47",
        ValueClass::Random);
    add(make({}, 2, 1000, 3, View::Dense, View::Dense, View::Dense), "longk_2x1000x3", ValueClass::Random);
    for (ValueClass v : conditioned_classes(info, d))
      add(make({}, 33, 65, 47, View::Dense, View::Dense, View::Dense), "tiles_33x65x47", v);
    // More batches than a GPU grid dimension holds (2^16 - 1), once.
    if (d == DEVPLUG_DTYPE_FLOAT32)
      add(make({65537}, 1, 2, 1, View::Dense, View::Dense, View::Dense), "batches_65537x1x2x1",
          ValueClass::Random);
  }

  void random(const devplug_op_info_t* info, devplug_dtype_t d) {
    auto make = [&](const Shape& shape, View view, uint64_t offset) {
      Case c = start(info, d);
      c.outputs.push_back(tensor(d, shape, view));
      c.attrs.kind = Attrs::Philox;
      c.attrs.philox = {sizeof(devplug_philox_attrs_t), rng_(), offset};
      return c;
    };
    for (const LayoutClass& l : elementwise_layouts()) {
      if (l.large && !(large_dtype(d) && large_elementwise(info))) continue;
      if (l.out_view == View::Dense && l.in_view != View::Dense) continue;
      add(make(l.shape, l.out_view, rng_() % 1000), l.label + "_" + shape_text(l.shape), ValueClass::Random);
    }
    // The 64-bit block counter wraps inside this tensor.
    add(make(kOdd, View::Dense, ~uint64_t{0} - 5), "contiguous_7x13", ValueClass::Special, "wrap");
  }

  const ClaimFn& claimed_;
  bool allow_fallback_;
  bool fallback_ = false;
  bool decomposed_ = false;
  std::mt19937_64 rng_;
  std::vector<Case> cases_;
};

}  // namespace

std::vector<Case> generate_cases(const ClaimFn& claimed, bool allow_fallback, uint64_t seed) {
  return Builder(claimed, allow_fallback, seed).run();
}

}  // namespace devplug::conform
