// Input values for conformance cases (see values.hpp).
#include "harness/values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

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
    for (int64_t x : {lo, hi, int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{-2}, lo + 1,
                      hi - 1, int64_t{7}, w - 1, w, int64_t{-7}, int64_t{100}})
      v.push_back({static_cast<double>(x), x});
    return v;
  }
  const int mant = d == DEVPLUG_DTYPE_FLOAT16 ? 10 : d == DEVPLUG_DTYPE_BFLOAT16 ? 7
                   : d == DEVPLUG_DTYPE_FLOAT32 ? 23 : 52;
  const int min_exp = d == DEVPLUG_DTYPE_FLOAT16 ? -14 : d == DEVPLUG_DTYPE_FLOAT64 ? -1022 : -126;
  const int max_exp = d == DEVPLUG_DTYPE_FLOAT16 ? 15 : d == DEVPLUG_DTYPE_FLOAT64 ? 1023 : 127;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double min_sub = std::ldexp(1.0, min_exp - mant);
  const double min_normal = std::ldexp(1.0, min_exp);
  const double max = std::ldexp(2.0 - std::ldexp(1.0, -mant), max_exp);
  for (double x : {nan, -nan, inf, -inf, 0.0, -0.0, min_sub, -min_sub, min_normal, max, -max, 1.0,
                   -1.0, 0.5, -0.5, 2.5, -1.5, 2.0, -2.0, 3.0})
    v.push_back({x, 0});
  if (d == DEVPLUG_DTYPE_FLOAT64) {
    // Just above a float16 / bfloat16 tie: rounding through float32 first lands on the tie
    // and then goes to even, a double-rounding error a single rounding never makes.
    v.push_back({1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30), 0});
    v.push_back({1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), 0});
  }
  return v;
}

// The interval random floats are drawn from, per op and input (the op's domain).
struct Domain {
  double lo = -4, hi = 4;
};

Domain float_domain(const std::string& op, size_t input) {
  if (op == "log" || op == "log2" || op == "log10" || op == "sqrt" || op == "rsqrt") return {0.01, 100};
  if (op == "log1p") return {-0.99, 50};
  if (op == "asin" || op == "acos" || op == "atanh" || op == "erfinv") return {-0.999, 0.999};
  if (op == "acosh") return {1, 50};
  if (op == "exp" || op == "exp2" || op == "expm1" || op == "sinh" || op == "cosh") return {-10, 10};
  if (op == "tan") return {-1.5, 1.5};
  if (op == "lgamma" || op == "digamma") return {0.1, 20};
  if (op == "prod" || op == "cumprod") return {0.5, 1.5};
  if (op == "pow") return input == 0 ? Domain{0.1, 4} : Domain{-4, 4};
  if (op == "convert_element_type") return {-300, 300};
  if (op == "matmul" || op == "var") return {-1, 1};
  return {};
}

class Drawer {
 public:
  Drawer(const Case& c, size_t input, uint64_t seed)
      : case_(c), input_(input), rng_(hash_name(c.name) ^ seed ^ (0x9E3779B97F4A7C15ull * (input + 1))) {
    // Decided once per input: these run for every element.
    const std::string op = devplug_op_name(c.op);
    domain_ = float_domain(op, input);
    shift_count_ = (op == "shift_left" || op == "shift_right_arithmetic" || op == "shift_right_logical") && input == 1;
    pow_ = op == "pow";
    divisor_ = (op == "div" || op == "remainder" || op == "fmod") && input == 1;
  }

  Value random_value(devplug_dtype_t d) {
    if (d == DEVPLUG_DTYPE_BOOL) return {0, static_cast<int64_t>(rng_() & 1)};
    if (is_float(d)) return {std::uniform_real_distribution<double>(domain_.lo, domain_.hi)(rng_), 0};
    const int w = bit_width(d);
    int64_t x = static_cast<int64_t>(rng_());
    if (shift_count_)
      x = static_cast<int64_t>(rng_() % static_cast<uint64_t>(w));
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

  Value value_at(devplug_dtype_t d, int64_t logical_index) {
    if (case_.value_class == ValueClass::Random) return random_value(d);
    const std::vector<Value> s = specials(d);
    const int64_t n = static_cast<int64_t>(s.size());
    // Input k takes special (index / n^k) % n, so all pairs of inputs 0 and 1 meet.
    int64_t div = 1;
    for (size_t k = 0; k < input_ && k < 2; ++k) div *= n;
    if (input_ >= 2) div = 1 + static_cast<int64_t>(input_);
    return s[static_cast<size_t>((logical_index / div) % n)];
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  const Case& case_;
  size_t input_;
  std::mt19937_64 rng_;
  Domain domain_;
  bool shift_count_ = false, pow_ = false, divisor_ = false;
};

void store_value(devplug_dtype_t d, uint8_t* p, const Value& v) {
  if (is_float(d)) store_float(d, p, v.f); else store_int(d, p, v.i);
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
      store_value(spec.dtype, &storage[static_cast<size_t>(at) * es], Value{v, std::isfinite(v) ? static_cast<int64_t>(v) : 0});
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
  const std::string op = devplug_op_name(c.op);
  if (c.inputs.empty() || numel(c.inputs[0].shape) != n) return mask;
  const devplug_dtype_t d = c.inputs[0].dtype;
  const size_t es = devplug_dtype_size(d);
  const bool int_division = !is_float(d) && (op == "div" || op == "remainder" || op == "fmod");
  const bool int_pow = !is_float(d) && op == "pow";
  const bool to_int = op == "convert_element_type" && is_float(d) && !is_float(out.dtype) &&
                      out.dtype != DEVPLUG_DTYPE_BOOL;
  if (!int_division && !int_pow && !to_int) return mask;
  for (int64_t e = 0; e < n; ++e) {
    const uint8_t* a = &in[0][static_cast<size_t>(e) * es];
    if (int_division && load_int(d, &in[1][static_cast<size_t>(e) * es]) == 0)
      mask[static_cast<size_t>(e)] = 1;
    if (int_pow && load_int(d, a) == 0 &&
        load_int(d, &in[1][static_cast<size_t>(e) * es]) < 0)
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
