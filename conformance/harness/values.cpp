// SPDX-License-Identifier: Apache-2.0
// Input values for conformance cases (see values.hpp).
#include "harness/values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "harness/domains.hpp"
#include "harness/elements.hpp"
#include "harness/generate.hpp"

namespace devplug::conform {
namespace {

// One value before it is stored: floats use `f`, integers and bool use `i`.
struct Value {
  double f = 0;
  int64_t i = 0;
};

std::vector<Value> specials(devplug_dtype_t d) {
  std::vector<Value> v;
  if (d == DEVPLUG_DTYPE_BOOL) return {{0, 0}, {1, 1}};
  if (!is_float(d)) {
    const int64_t lo = int_min(d), hi = int_max(d), w = bit_width(d);
    for (int64_t x : {lo, hi, int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{-2}, lo + 1, hi - 1,
                      int64_t{7}, w - 1, w, int64_t{-7}, int64_t{100}})
      v.push_back({static_cast<double>(x), x});
    return v;
  }
  const int mant = d == DEVPLUG_DTYPE_FLOAT16    ? 10
                   : d == DEVPLUG_DTYPE_BFLOAT16 ? 7
                   : d == DEVPLUG_DTYPE_FLOAT32  ? 23
                                                 : 52;
  const int min_exp = d == DEVPLUG_DTYPE_FLOAT16 ? -14 : d == DEVPLUG_DTYPE_FLOAT64 ? -1022 : -126;
  const int max_exp = d == DEVPLUG_DTYPE_FLOAT16 ? 15 : d == DEVPLUG_DTYPE_FLOAT64 ? 1023 : 127;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double min_sub = std::ldexp(1.0, min_exp - mant);
  const double min_normal = std::ldexp(1.0, min_exp);
  const double max = std::ldexp(2.0 - std::ldexp(1.0, -mant), max_exp);
  for (double x : {nan,  -nan, inf,  -inf, 0.0,  -0.0, min_sub, -min_sub, min_normal, max,
                   -max, 1.0,  -1.0, 0.5,  -0.5, 2.5,  -1.5,    2.0,      -2.0,       3.0})
    v.push_back({x, 0});
  if (d == DEVPLUG_DTYPE_FLOAT64) {
    // Just above a float16 / bfloat16 tie: rounding through float32 first lands on the tie
    // and then goes to even, a double-rounding error a single rounding never makes.
    v.push_back({1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30), 0});
    v.push_back({1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), 0});
  }
  return v;
}

// Accumulation format of a reduction over floats of dtype `d`: float32 for the 16-bit
// formats (they accumulate in float32) and float32, float64 for float64.
int accumulation_mant(devplug_dtype_t d) { return d == DEVPLUG_DTYPE_FLOAT64 ? 52 : 23; }

class Drawer {
 public:
  Drawer(const Case& c, size_t input, uint64_t seed)
      : case_(c), input_(input), rng_(hash_name(c.name) ^ seed ^ (0x9E3779B97F4A7C15ull * (input + 1))) {
    // Decided once per input: these run for every element.
    const devplug_op_t op = c.op;
    domain_ = random_interval(op, input, c.reduction_length);
    shift_count_ = (op == DEVPLUG_OP_shift_left || op == DEVPLUG_OP_shift_right_arithmetic ||
                    op == DEVPLUG_OP_shift_right_logical) &&
                   input == 1;
    pow_ = op == DEVPLUG_OP_pow;
    divisor_ = (op == DEVPLUG_OP_div || op == DEVPLUG_OP_remainder || op == DEVPLUG_OP_fmod) && input == 1;
    if (c.value_class == ValueClass::Edges)
      edges_ = edge_values(op, static_cast<int>(c.inputs.size()), c.inputs[0].dtype, c.outputs[0].dtype);
    // Ill-conditioned data goes into input 0; other inputs (matmul's b) stay random.
    conditioned_ =
        input == 0 && (c.value_class == ValueClass::BigMean || c.value_class == ValueClass::Cancel ||
                       c.value_class == ValueClass::Runs || c.value_class == ValueClass::Magnitudes);
    if (c.value_class == ValueClass::BigMean) {
      // Mean M with spread U(-1, 1): the condition number of var is about M, and
      // n eps_acc kappa^2 stays near 1/64 so that the two-pass bound is not loosened by it,
      // while one-pass (textbook or Welford) updates lose digits in proportion to M.
      const double n = static_cast<double>(std::max<int64_t>(c.reduction_length, 1));
      big_mean_ = std::ldexp(
          1.0, static_cast<int>(std::floor((accumulation_mant(c.inputs[0].dtype) - std::log2(n)) / 2 - 3)));
    }
    if (c.value_class == ValueClass::Magnitudes && is_float(c.inputs[0].dtype))
      max_scale_ = static_cast<int>(0.4 * format_of(c.inputs[0].dtype).max_exp);
    if (c.value_class == ValueClass::Runs && !c.inputs.empty()) {
      // Five values that every run picks from: ties within and between runs.
      const devplug_dtype_t d = c.inputs[0].dtype;
      for (int k = 0; k < 5; ++k)
        run_values_[k] = is_float(d)
                             ? Value{std::uniform_real_distribution<double>(domain_.lo, domain_.hi)(rng_), 0}
                         : d == DEVPLUG_DTYPE_BOOL ? Value{0, k % 2}
                                                   : Value{static_cast<double>(k - 2), k - 2};
    }
  }

  Value random_value(devplug_dtype_t d) {
    if (d == DEVPLUG_DTYPE_BOOL) return {0, static_cast<int64_t>(rng_() & 1)};
    if (is_float(d)) return {std::uniform_real_distribution<double>(domain_.lo, domain_.hi)(rng_), 0};
    const int w = bit_width(d);
    int64_t x = static_cast<int64_t>(rng_());
    if (shift_count_) x = static_cast<int64_t>(rng_() % static_cast<uint64_t>(w));
    if (pow_) x = input_ == 0 ? static_cast<int64_t>(rng_() % 21) - 10 : static_cast<int64_t>(rng_() % 8);
    if (divisor_) {
      // Integer division by zero is unspecified: keep random divisors non-zero.
      int64_t stored = 0;
      uint8_t buf[8];
      do {
        x = static_cast<int64_t>(rng_());
        store_int(d, buf, x);
        stored = load_int(d, buf);
      } while (stored == 0);
    }
    return {0, x};
  }

  // Called for logical indices 0, 1, 2, ... in order (runs keep state between calls).
  Value value_at(devplug_dtype_t d, int64_t logical_index) {
    switch (case_.value_class) {
      case ValueClass::Random:
        return random_value(d);
      case ValueClass::Special:
        return special_value(d, logical_index);
      case ValueClass::Edges: {
        if (edges_.empty()) return random_value(d);
        const auto& t = edges_[static_cast<size_t>(logical_index) % edges_.size()];
        return {t[std::min<size_t>(input_, 1)], 0};
      }
      default:
        return conditioned_ ? conditioned_value(d, logical_index) : random_value(d);
    }
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  Value special_value(devplug_dtype_t d, int64_t logical_index) {
    const std::vector<Value> s = specials(d);
    const int64_t n = static_cast<int64_t>(s.size());
    // Input k takes special (index / n^k) % n, so all pairs of inputs 0 and 1 meet.
    int64_t div = 1;
    for (size_t k = 0; k < input_ && k < 2; ++k) div *= n;
    if (input_ >= 2) div = 1 + static_cast<int64_t>(input_);
    return s[static_cast<size_t>((logical_index / div) % n)];
  }

  Value conditioned_value(devplug_dtype_t d, int64_t logical_index) {
    std::uniform_real_distribution<double> unit(-1, 1);
    switch (case_.value_class) {
      case ValueClass::BigMean:
        return {big_mean_ + unit(rng_), 0};
      case ValueClass::Cancel: {
        // Alternating signs of nearly equal magnitude: sums are tiny next to sum |x|.
        const double m = 1 + std::ldexp(std::fabs(unit(rng_)), -4);
        return {(logical_index % 2 == 0) ? m : -m, 0};
      }
      case ValueClass::Runs: {
        // Runs of 1 to 32 equal values, each run one of five values of the op's domain
        // ({-2, ..., 2} for integers, {0, 1} for bool): ties everywhere for argmax, argmin,
        // amax and amin, and long stretches of one value for sums and scans.
        if (run_left_ == 0) {
          run_left_ = 1 + static_cast<int64_t>(rng_() % 32);
          run_value_ = run_values_[rng_() % 5];
        }
        --run_left_;
        return run_value_;
      }
      case ValueClass::Magnitudes: {
        // +-U(1, 2) * 2^k with k uniform in [-0.4 emax, 0.4 emax]: one term dominates a
        // sum, products overflow and underflow.
        const int k = static_cast<int>(rng_() % static_cast<uint64_t>(2 * max_scale_ + 1)) - max_scale_;
        const double m = std::ldexp(1.5 + 0.5 * unit(rng_), k);
        return {(rng_() & 1) ? m : -m, 0};
      }
      default:
        return random_value(d);
    }
  }

  const Case& case_;
  size_t input_;
  std::mt19937_64 rng_;
  Interval domain_;
  bool shift_count_ = false, pow_ = false, divisor_ = false, conditioned_ = false;
  std::vector<std::array<double, 2>> edges_;
  double big_mean_ = 0;
  int max_scale_ = 0;
  int64_t run_left_ = 0;
  Value run_value_, run_values_[5];
};

void store_value(devplug_dtype_t d, uint8_t* p, const Value& v) {
  if (is_float(d))
    store_float(d, p, v.f);
  else
    store_int(d, p, v.i);
}

// Calls f(logical index, storage element) for every element of a placed view.
template <typename F>
void for_each_element(const TensorSpec& spec, const Placement& p, F&& f) {
  const size_t rank = spec.shape.size();
  const int64_t n = numel(spec.shape);
  std::vector<int64_t> index(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = p.offset;
    for (size_t k = 0; k < rank; ++k) at += index[k] * p.strides[k];
    f(e, at);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < spec.shape[k]) break;
      index[k] = 0;
    }
  }
}

// Logical int64 indices in [0, bound); unique along `dim` when asked (scatter).
std::vector<int64_t> draw_indices(const TensorSpec& spec, std::mt19937_64& rng) {
  const int64_t n = numel(spec.shape);
  std::vector<int64_t> out(static_cast<size_t>(n), 0);
  if (n == 0 || spec.index_bound <= 0) return out;
  if (!spec.unique_along_dim) {
    for (auto& v : out) v = static_cast<int64_t>(rng() % static_cast<uint64_t>(spec.index_bound));
    return out;
  }
  // Row-major strides of the index shape; walk each line along index_dim.
  const size_t rank = spec.shape.size();
  const size_t dim = static_cast<size_t>(spec.index_dim);
  std::vector<int64_t> stride(rank, 1);
  for (size_t k = rank - 1; k-- > 0;) stride[k] = stride[k + 1] * spec.shape[k + 1];
  for (int64_t e = 0; e < n; ++e) {
    if ((e / stride[dim]) % spec.shape[dim] != 0) continue;  // first element of a line
    std::vector<int64_t> perm(static_cast<size_t>(spec.index_bound));
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int64_t j = 0; j < spec.shape[dim]; ++j)
      out[static_cast<size_t>(e + j * stride[dim])] = perm[static_cast<size_t>(j)];
  }
  return out;
}

}  // namespace

int64_t special_count(devplug_dtype_t d) { return static_cast<int64_t>(specials(d).size()); }

Bytes make_input_storage(const Case& c, size_t k, const Placement& p, uint64_t seed) {
  const TensorSpec& spec = c.inputs[k];
  const size_t es = devplug_dtype_size(spec.dtype);
  Bytes storage(static_cast<size_t>(p.storage_elems) * es, 0);
  Drawer draw(c, k, seed);
  if (spec.role == Role::Fixed) {  // composite cases spell out these values
    for_each_element(spec, p, [&](int64_t e, int64_t at) {
      const double v = spec.fixed[static_cast<size_t>(e)];
      store_value(spec.dtype, &storage[static_cast<size_t>(at) * es],
                  Value{v, std::isfinite(v) ? static_cast<int64_t>(v) : 0});
    });
    return storage;
  }
  if (spec.role == Role::Index) {
    const std::vector<int64_t> idx = draw_indices(spec, draw.rng());
    for_each_element(spec, p, [&](int64_t e, int64_t at) {
      store_int(spec.dtype, &storage[static_cast<size_t>(at) * es], idx[static_cast<size_t>(e)]);
    });
    return storage;
  }
  // Unreached storage gets domain values too, so a plugin that reads the wrong element
  // reads something plausible rather than a marker.
  for (int64_t at = 0; at < p.storage_elems; ++at)
    store_value(spec.dtype, &storage[static_cast<size_t>(at) * es], draw.random_value(spec.dtype));
  if (c.value_class == ValueClass::Random) return storage;  // already random in the domain
  for_each_element(spec, p, [&](int64_t e, int64_t at) {
    store_value(spec.dtype, &storage[static_cast<size_t>(at) * es], draw.value_at(spec.dtype, e));
  });
  return storage;
}

Bytes logical_elements(const Bytes& storage, const TensorSpec& spec, const Placement& p) {
  const size_t es = devplug_dtype_size(spec.dtype);
  Bytes out(static_cast<size_t>(numel(spec.shape)) * es);
  for_each_element(spec, p, [&](int64_t e, int64_t at) {
    std::memcpy(&out[static_cast<size_t>(e) * es], &storage[static_cast<size_t>(at) * es], es);
  });
  return out;
}

std::vector<char> unspecified_mask(const Case& c, const std::vector<Bytes>& in) {
  const TensorSpec& out = c.outputs[0];
  const int64_t n = numel(out.shape);
  std::vector<char> mask(static_cast<size_t>(n), 0);
  const devplug_op_t op = c.op;
  if (c.inputs.empty() || numel(c.inputs[0].shape) != n) return mask;
  const devplug_dtype_t d = c.inputs[0].dtype;
  const size_t es = devplug_dtype_size(d);
  const bool int_division =
      !is_float(d) && (op == DEVPLUG_OP_div || op == DEVPLUG_OP_remainder || op == DEVPLUG_OP_fmod);
  const bool int_pow = !is_float(d) && op == DEVPLUG_OP_pow;
  const bool to_int = op == DEVPLUG_OP_convert_element_type && is_float(d) && !is_float(out.dtype) &&
                      out.dtype != DEVPLUG_DTYPE_BOOL;
  if (!int_division && !int_pow && !to_int) return mask;
  for (int64_t e = 0; e < n; ++e) {
    const uint8_t* a = &in[0][static_cast<size_t>(e) * es];
    if (int_division && load_int(d, &in[1][static_cast<size_t>(e) * es]) == 0)
      mask[static_cast<size_t>(e)] = 1;
    if (int_pow && load_int(d, a) == 0 && load_int(d, &in[1][static_cast<size_t>(e) * es]) < 0)
      mask[static_cast<size_t>(e)] = 1;  // 1 / 0 truncated: ops.def does not define it
    if (to_int) {
      const double x = std::trunc(load_float(d, a));
      const bool in_range = out.dtype == DEVPLUG_DTYPE_INT64
                                ? (x >= -9223372036854775808.0 && x < 9223372036854775808.0)
                                : (x >= static_cast<double>(int_min(out.dtype)) &&
                                   x <= static_cast<double>(int_max(out.dtype)));
      if (std::isnan(x) || !in_range) mask[static_cast<size_t>(e)] = 1;
    }
  }
  return mask;
}

}  // namespace devplug::conform
