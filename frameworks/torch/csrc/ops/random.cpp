// SPDX-License-Identifier: Apache-2.0
// Random numbers on devplug's counter-based Philox prims, with the device's PhiloxGenerator
// (generator.hpp): each op reserves the words it reads, so the numbers depend only on the
// seed and the sequence of calls, never on the plugin.
//
// Uniforms (and so bernoulli, dropout and random_) are exact by construction and identical
// on every plugin; dropout is devplug's composite, on the same Philox words. Normals are Box-Muller, whose log and cos each device rounds its own way;
// so float32 (and 16-bit) normals are made in float64 and rounded once, which gives the same
// bits everywhere unless two devices' float64 results straddle a float32 rounding boundary
// (about 2^-29 per element). A device without float64 makes them in the dtype itself, as
// does float64 (equal to within an ulp across plugins).
#include <ATen/Functions.h>
#include <ATen/native/Resize.h>

#include <limits>
#include <mutex>

#include "generator.hpp"
#include "ops/elementwise.hpp"
#include "ops/ops.hpp"

namespace devplug::bridge {
namespace {

// Reserves `words` 32-bit words of `generator` (or the device's default generator).
devplug_philox_attrs_t reserve(const Dev& dev, uint64_t words,
                               const std::optional<at::Generator>& generator) {
  PhiloxGenerator* gen = generator_or_default(generator, dev.index());
  std::lock_guard<std::mutex> lock(gen->mutex_);
  return gen->reserve(words);
}

// Fills devplug tensor `out` with random op `op` (philox_uniform / philox_normal /
// philox_bits), reading `words_per_element` words per element from `gen`.
void philox(const Dev& dev, devplug_op_t op, const DTensor& out, uint64_t words_per_element,
            const std::optional<at::Generator>& generator) {
  const devplug_philox_attrs_t attrs =
      reserve(dev, static_cast<uint64_t>(out.numel()) * words_per_element, generator);
  dev.call(op, {}, {out}, &attrs);
}

uint64_t words_of(devplug_op_t op, devplug_dtype_t dtype) {
  if (dtype == DEVPLUG_DTYPE_FLOAT64) return op == DEVPLUG_OP_philox_normal ? 4 : 2;
  if (dtype == DEVPLUG_DTYPE_INT64) return 2;
  return op == DEVPLUG_OP_philox_normal ? 2 : 1;
}

// Standard normals of `dtype` and `shape` (see the top of this file for the float64 detour).
DTensor standard_normal(const Dev& dev, devplug_dtype_t dtype, const Shape& shape,
                        const std::optional<at::Generator>& generator) {
  devplug_dtype_t make = dtype;
  if (dtype != DEVPLUG_DTYPE_FLOAT64 && dev.supports(DEVPLUG_OP_philox_normal, DEVPLUG_DTYPE_FLOAT64))
    make = DEVPLUG_DTYPE_FLOAT64;
  DTensor values = dev.empty(make, shape);
  philox(dev, DEVPLUG_OP_philox_normal, values, words_of(DEVPLUG_OP_philox_normal, make), generator);
  return dev.cast(values, dtype);
}

DTensor standard_uniform(const Dev& dev, devplug_dtype_t dtype, const Shape& shape,
                         const std::optional<at::Generator>& generator) {
  DTensor values = dev.empty(dtype, shape);
  philox(dev, DEVPLUG_OP_philox_uniform, values, words_of(DEVPLUG_OP_philox_uniform, dtype), generator);
  return values;
}

void check_floating(const at::Tensor& self, const char* what) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), what, " expects a floating point tensor, got ",
              self.scalar_type());
}

at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator) {
  check_floating(self, "normal_");
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.numel() == 0) return self;
  Dev dev = Dev::of(self);
  DTensor target = view_of(self);
  DTensor z = standard_normal(dev, target.dtype(), target.shape(), generator);
  if (mean == 0.0 && std == 1.0) {
    dev.copy(z, target);
  } else {
    dev.ew_into(DEVPLUG_OP_add,
                {dev.ew(DEVPLUG_OP_mul, {z, dev.scalar(z.dtype(), std)}), dev.scalar(z.dtype(), mean)},
                target);
  }
  return self;
}

at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator) {
  check_floating(self, "uniform_");
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  if (self.numel() == 0) return self;
  Dev dev = Dev::of(self);
  DTensor target = view_of(self);
  DTensor u = standard_uniform(dev, target.dtype(), target.shape(), generator);
  if (from == 0.0 && to == 1.0) {
    dev.copy(u, target);
  } else {
    dev.ew_into(DEVPLUG_OP_add,
                {dev.ew(DEVPLUG_OP_mul, {u, dev.scalar(u.dtype(), to - from)}), dev.scalar(u.dtype(), from)},
                target);
  }
  return self;
}

// self = (u < p), u uniform in [0, 1) in float32 (p broadcast to self's shape).
void bernoulli_into(const Dev& dev, const at::Tensor& self, const DTensor& p,
                    const std::optional<at::Generator>& generator) {
  DTensor target = view_of(self);
  DTensor u = standard_uniform(dev, DEVPLUG_DTYPE_FLOAT32, target.shape(), generator);
  DTensor hit = dev.ew(DEVPLUG_OP_lt, {u, p});
  dev.copy(dev.cast(hit, target.dtype()), target);
}

at::Tensor& bernoulli_float_(at::Tensor& self, double p, std::optional<at::Generator> generator) {
  TORCH_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (self.numel() == 0) return self;
  Dev dev = Dev::of(self);
  bernoulli_into(dev, self, dev.scalar(DEVPLUG_DTYPE_FLOAT32, p), generator);
  return self;
}

at::Tensor& bernoulli_tensor_(at::Tensor& self, const at::Tensor& p, std::optional<at::Generator> generator) {
  if (self.numel() == 0) return self;
  Dev dev = Dev::of({&self, &p});
  DTensor probability = dev.operand(p);
  if (!(DEVPLUG_DTYPE_BIT(probability.dtype()) & DEVPLUG_DTYPES_FLOAT))
    probability = dev.cast(probability, DEVPLUG_DTYPE_FLOAT32);
  bernoulli_into(dev, self, probability.expand(self.sizes().vec()), generator);
  return self;
}

at::Tensor& bernoulli_out(const at::Tensor& self, std::optional<at::Generator> generator, at::Tensor& out) {
  prepare_out(out, self.sizes());
  return bernoulli_tensor_(out, self, generator);
}

// Integers uniform in [from, to): from + (64 random bits mod (to - from)).
at::Tensor& random_from_(at::Tensor& self, int64_t from, std::optional<int64_t> to,
                         std::optional<at::Generator> generator) {
  if (self.numel() == 0) return self;
  int64_t end = 0;
  if (to.has_value()) {
    end = *to;
  } else if (c10::isFloatingType(self.scalar_type())) {
    end = self.scalar_type() == at::kDouble ? (int64_t{1} << 53) + 1 : (int64_t{1} << 24) + 1;
    if (self.scalar_type() == at::kHalf) end = (1 << 11) + 1;
    if (self.scalar_type() == at::kBFloat16) end = (1 << 8) + 1;
  } else if (self.scalar_type() == at::kBool) {
    end = 2;
  } else {
    end = std::numeric_limits<int64_t>::max();
    switch (self.scalar_type()) {
      case at::kByte:
        end = 256;
        break;
      case at::kChar:
        end = 128;
        break;
      case at::kShort:
        end = 32768;
        break;
      case at::kInt:
        end = int64_t{1} << 31;
        break;
      default:
        break;
    }
  }
  TORCH_CHECK(from < end, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", end);
  Dev dev = Dev::of(self);
  DTensor target = view_of(self);
  DTensor bits = dev.empty(DEVPLUG_DTYPE_INT64, target.shape());
  philox(dev, DEVPLUG_OP_philox_bits, bits, 2, generator);
  const uint64_t range = static_cast<uint64_t>(end) - static_cast<uint64_t>(from);
  TORCH_CHECK(range <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
              "devplug: random_ ranges wider than 2^63 are not supported");
  DTensor value =
      dev.ew(DEVPLUG_OP_remainder, {bits, dev.scalar(DEVPLUG_DTYPE_INT64, static_cast<int64_t>(range))});
  value = dev.ew(DEVPLUG_OP_add, {value, dev.scalar(DEVPLUG_DTYPE_INT64, from)});
  dev.copy(dev.cast(value, target.dtype()), target);
  return self;
}
at::Tensor& random_to_(at::Tensor& self, int64_t to, std::optional<at::Generator> generator) {
  return random_from_(self, 0, to, generator);
}
at::Tensor& random_(at::Tensor& self, std::optional<at::Generator> generator) {
  return random_from_(self, 0, std::nullopt, generator);
}

at::Tensor& exponential_(at::Tensor& self, double lambda, std::optional<at::Generator> generator) {
  check_floating(self, "exponential_");
  TORCH_CHECK(lambda > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambda);
  if (self.numel() == 0) return self;
  Dev dev = Dev::of(self);
  DTensor target = view_of(self);
  DTensor u = standard_uniform(dev, target.dtype(), target.shape(), generator);
  // -log(1 - u) / lambda; 1 - u lies in (0, 1], so the result is finite.
  DTensor one_minus = dev.ew(DEVPLUG_OP_sub, {dev.scalar(u.dtype(), 1), u});
  DTensor e = dev.ew(DEVPLUG_OP_div, {dev.ew(DEVPLUG_OP_neg, {dev.ew(DEVPLUG_OP_log, {one_minus})}),
                                      dev.scalar(u.dtype(), lambda)});
  dev.copy(e, target);
  return self;
}

// ---- dropout: keep each element with probability 1 - p and scale by 1 / (1 - p) -----------

// The dropout composite, with the words of one float32 uniform per element reserved from
// the device's default generator (torch's dropout takes none).
std::tuple<at::Tensor, at::Tensor> native_dropout(const at::Tensor& input, double p,
                                                  std::optional<bool> train) {
  TORCH_CHECK(0 <= p && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  Dev dev = Dev::of(input);
  at::Tensor mask = at::empty_like(input, input.options().dtype(at::kBool));
  if (!train.value_or(true) || p == 0 || input.numel() == 0) {
    if (mask.numel() > 0) dev.fill(view_of(mask), true);
    return {input.clone(), mask};
  }
  at::Tensor output = at::empty_like(input);
  const devplug_philox_attrs_t words = reserve(
      dev, static_cast<uint64_t>(input.numel()) * words_of(DEVPLUG_OP_philox_uniform, DEVPLUG_DTYPE_FLOAT32),
      std::nullopt);
  devplug_dropout_attrs_t attrs{sizeof(attrs), p, words.seed, words.offset};
  dev.composite(DEVPLUG_OP_dropout, {view_of(input)}, {view_of(output), view_of(mask)}, &attrs);
  return {output, mask};
}

at::Tensor native_dropout_backward(const at::Tensor& grad_output, const at::Tensor& mask, double scale) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "Mask should be Bool Scalar Type", mask.scalar_type());
  Dev dev = Dev::of({&grad_output, &mask});
  // torch computes grad * mask * scale: an integer or bool gradient times the double scale
  // gives the default float dtype. grad * mask is grad or 0, so casting first changes nothing.
  const at::ScalarType type = c10::isIntegralType(grad_output.scalar_type(), /*includeBool=*/true)
                                  ? default_float()
                                  : grad_output.scalar_type();
  at::Tensor out = at::empty_like(grad_output, grad_output.options().dtype(type));
  if (out.numel() == 0) return out;
  const devplug_dtype_t dtype = require_dtype(type, "native_dropout_backward's result");
  DTensor g = dev.cast(view_of(grad_output), dtype);
  DTensor kept = dev.ew(DEVPLUG_OP_mul, {g, dev.cast(view_of(mask), dtype)});
  dev.ew_into(DEVPLUG_OP_mul, {kept, dev.scalar(dtype, scale)}, view_of(out));
  return out;
}

}  // namespace

void register_random_ops(Table& t) {
  t.add("normal_", Impl::prim, "philox_normal (float64, rounded once), mul, add", DEVPLUG_KERNEL(normal_));
  t.add("uniform_", Impl::prim, "philox_uniform, mul, add", DEVPLUG_KERNEL(uniform_));
  t.add("bernoulli_.float", Impl::prim, "philox_uniform, lt", DEVPLUG_KERNEL(bernoulli_float_));
  t.add("bernoulli_.Tensor", Impl::prim, "philox_uniform, lt", DEVPLUG_KERNEL(bernoulli_tensor_));
  t.add("bernoulli.out", Impl::prim, "philox_uniform, lt", DEVPLUG_KERNEL(bernoulli_out));
  t.add("random_.from", Impl::prim, "philox_bits, remainder, add", DEVPLUG_KERNEL(random_from_));
  t.add("random_.to", Impl::prim, "philox_bits, remainder, add", DEVPLUG_KERNEL(random_to_));
  t.add("random_", Impl::prim, "philox_bits, remainder, add", DEVPLUG_KERNEL(random_));
  t.add("exponential_", Impl::bridge, "philox_uniform, sub, log, neg, div", DEVPLUG_KERNEL(exponential_));
  t.add("native_dropout", Impl::composite, "dropout", DEVPLUG_KERNEL(native_dropout));
  t.add("native_dropout_backward", Impl::bridge, "convert_element_type, mul",
        DEVPLUG_KERNEL(native_dropout_backward));
}

}  // namespace devplug::bridge
