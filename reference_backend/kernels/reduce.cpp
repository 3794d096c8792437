// SPDX-License-Identifier: Apache-2.0
// Reference kernels for reductions (sum, prod, amax, amin, argmax, argmin, var, all, any)
// and scans (cumsum, cumprod).
//
// Exactness over speed: floating values are accumulated in double (float16, bfloat16,
// float32) or long double (float64) and rounded once into the output; integer sums and
// products wrap through uint64_t. A scan keeps its running value in that wide type too and
// rounds each output element once from it (PyTorch also carries the running value in an
// accumulate type wider than 16-bit dtypes).
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels.hpp"
#include "kernels/math.hpp"
#include "structured_common.hpp"

namespace devplug::reference {
namespace {

using namespace structured;

// The input split into the kept dims (the output's shape) and the reduced sub-space.
struct ReducePlan {
  int32_t inner_rank = 0;
  int64_t inner_shape[DEVPLUG_MAX_RANK] = {};
  int64_t inner_strides[DEVPLUG_MAX_RANK] = {};
  int64_t inner_count = 1;  // elements per reduction
};

ReducePlan plan_reduce(const devplug_op_call_t& call, devplug_dtype_t out_dtype) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const uint32_t mask = attrs_of<devplug_reduce_attrs_t>(call).dims_mask;
  const char* name = devplug_op_name(call.op);
  check_dtype(out, out_dtype, "output");
  if (in.rank < 32 && (mask >> in.rank) != 0)
    invalid(std::string(name) + ": dims_mask names a dim >= rank " + std::to_string(in.rank));
  if (out.rank != in.rank) invalid(std::string(name) + ": output rank must equal input rank");
  ReducePlan plan;
  for (int32_t d = 0; d < in.rank; ++d) {
    const bool reduced = (mask >> d) & 1u;
    if (out.shape[d] != (reduced ? 1 : in.shape[d]))
      invalid(std::string(name) + ": output shape " + shape_string(out) + " does not match input " +
              shape_string(in) + " reduced over the mask");
    if (reduced) {
      plan.inner_shape[plan.inner_rank] = in.shape[d];
      plan.inner_strides[plan.inner_rank] = in.strides[d];
      ++plan.inner_rank;
      plan.inner_count *= in.shape[d];
    }
  }
  check_fits(in, "input");
  check_fits(out, "output");
  return plan;
}

// Runs `reduce(input offset of the group's first element)` for each output element and
// stores what it returns; `reduce` visits its group with walk_group.
template <typename Out, typename Reduce>
void for_each_group(const devplug_op_call_t& call, Reduce&& reduce) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  Out* dst = tensor_base<Out>(out);
  sdk::for_each_offset<2>(out.rank, out.shape, {in.strides, out.strides},
                          [&](const std::array<int64_t, 2>& at) { dst[at[1]] = reduce(at[0]); });
}

// Calls `f(element)` for each element of one group, in row-major order of the reduced dims.
template <typename T, typename F>
void walk_group(const T* src, int64_t base, const ReducePlan& plan, F&& f) {
  sdk::for_each_offset<1>(plan.inner_rank, plan.inner_shape, {plan.inner_strides},
                          [&](const std::array<int64_t, 1>& at) { f(src[base + at[0]]); });
}

// ---- sum and prod ------------------------------------------------------------------------

template <typename T, bool kProduct>
void sum_or_prod(const devplug_op_call_t& call) {
  const ReducePlan plan = plan_reduce(call, sdk::dtype_of<T>());
  const T* src = tensor_base<const T>(*call.inputs[0]);
  for_each_group<T>(call, [&](int64_t base) {
    if constexpr (sdk::is_floating_v<T>) {
      // -0.0 is the IEEE additive identity: a sum of -0.0s stays -0.0; an empty sum is +0.0.
      wide_t<T> acc = kProduct ? 1 : (plan.inner_count > 0 ? -0.0 : 0.0);
      walk_group(src, base, plan, [&](T v) {
        if constexpr (kProduct)
          acc *= to_wide(v);
        else
          acc += to_wide(v);
      });
      return from_wide<T>(acc);
    } else {
      uint64_t acc = kProduct ? 1 : 0;
      walk_group(src, base, plan, [&](T v) {
        if constexpr (kProduct)
          acc *= to_bits(v);
        else
          acc += to_bits(v);
      });
      return from_bits<T>(acc);
    }
  });
}

// ---- amax and amin -------------------------------------------------------------------------

// Whether `a` beats `b` for amax (kMax) or amin. NaN is handled by the caller. Signed zeros
// are ordered (-0.0 < +0.0) so the result does not depend on the order of the elements.
template <bool kMax>
bool beats(double a, double b) {
  if (a == b && a == 0.0)
    return kMax ? (!std::signbit(a) && std::signbit(b)) : (std::signbit(a) && !std::signbit(b));
  return kMax ? a > b : a < b;
}

template <typename T, bool kMax>
void extreme(const devplug_op_call_t& call) {
  const ReducePlan plan = plan_reduce(call, sdk::dtype_of<T>());
  if (plan.inner_count == 0)
    invalid(std::string(devplug_op_name(call.op)) + ": an empty reduction has no extreme");
  const Storage<T>* src = tensor_base<const Storage<T>>(*call.inputs[0]);
  for_each_group<T>(call, [&](int64_t base) {
    bool have = false;
    T best{};
    walk_group(src, base, plan, [&](Storage<T> stored) {
      const T v = stored_value<T>(stored);
      if (!have) {
        best = v;
        have = true;
      } else if constexpr (sdk::is_floating_v<T>) {
        const double b = sdk::to_double(best), x = sdk::to_double(v);
        if (b != b) return;  // NaN propagates: the first NaN stays
        if (x != x || beats<kMax>(x, b)) best = v;
      } else {
        if (kMax ? v > best : v < best) best = v;
      }
    });
    return best;
  });
}

// ---- argmax and argmin ---------------------------------------------------------------------

template <typename T, bool kMax>
void arg_extreme(const devplug_op_call_t& call) {
  const ReducePlan plan = plan_reduce(call, DEVPLUG_DTYPE_INT64);
  if (plan.inner_count == 0)
    invalid(std::string(devplug_op_name(call.op)) + ": an empty reduction has no extreme");
  const T* src = tensor_base<const T>(*call.inputs[0]);
  for_each_group<int64_t>(call, [&](int64_t base) {
    int64_t k = 0, best_k = 0;
    T best{};
    bool done = false;  // a NaN was found: it wins
    walk_group(src, base, plan, [&](T v) {
      const int64_t here = k++;
      if (done) return;
      if (here == 0) {
        best = v;
      } else if constexpr (sdk::is_floating_v<T>) {
        const double x = sdk::to_double(v), b = sdk::to_double(best);
        if (x != x || (kMax ? x > b : x < b)) {  // strict: the first of equals stays
          best = v;
          best_k = here;
        }
      } else if (kMax ? v > best : v < best) {
        best = v;
        best_k = here;
      }
      if constexpr (sdk::is_floating_v<T>) {
        const double b = sdk::to_double(best);
        if (b != b) done = true;
      }
    });
    return best_k;
  });
}

// ---- var -----------------------------------------------------------------------------------

// Two passes in long double: the mean, then the sum of squared deviations, divided by
// max(0, n - correction); a zero divisor gives Inf or NaN as IEEE arithmetic does.
template <typename T>
void variance(const devplug_op_call_t& call) {
  const ReducePlan plan = plan_reduce(call, sdk::dtype_of<T>());
  const long double correction = attrs_of<devplug_reduce_attrs_t>(call).correction;
  const T* src = tensor_base<const T>(*call.inputs[0]);
  const long double n = static_cast<long double>(plan.inner_count);
  for_each_group<T>(call, [&](int64_t base) {
    long double sum = 0;
    walk_group(src, base, plan, [&](T v) { sum += sdk::to_double(v); });
    const long double mean = sum / n;
    long double squares = 0;
    walk_group(src, base, plan, [&](T v) {
      const long double d = static_cast<long double>(sdk::to_double(v)) - mean;
      squares += d * d;
    });
    const long double divisor = n - correction > 0 ? n - correction : 0.0L;
    const long double result = squares / divisor;
    // Rounded once: directly for float32 and float64; for the 16-bit formats through a
    // double rounded to odd, which keeps the final rounding correct (double has more than
    // p + 2 bits), where a rounding to nearest could land on a tie of the 16-bit format.
    if constexpr (std::is_floating_point_v<T>)
      return static_cast<T>(result);
    else {
      const double nearest = static_cast<double>(result);
      return sdk::from_double<T>(math::round_to_odd(nearest, result - nearest));
    }
  });
}

// ---- all and any ---------------------------------------------------------------------------

template <typename T, bool kAll>
void all_or_any(const devplug_op_call_t& call) {
  const ReducePlan plan = plan_reduce(call, DEVPLUG_DTYPE_BOOL);
  const Storage<T>* src = tensor_base<const Storage<T>>(*call.inputs[0]);
  for_each_group<bool>(call, [&](int64_t base) {
    bool result = kAll;  // empty: all is true, any is false
    walk_group(src, base, plan, [&](Storage<T> v) {
      if (is_nonzero(v) != kAll) result = !kAll;
    });
    return result;
  });
}

// ---- cumsum and cumprod --------------------------------------------------------------------

template <typename T, bool kProduct>
void scan(const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const int32_t dim = attrs_of<devplug_dim_attrs_t>(call).dim;
  const char* name = devplug_op_name(call.op);
  check_dtype(out, in.dtype, "output");
  if (!same_shape(in, out)) invalid(std::string(name) + ": output shape must equal input shape");
  if (in.rank == 0 ? dim != 0 : (dim < 0 || dim >= in.rank))
    invalid(std::string(name) + ": dim " + std::to_string(dim) + " out of range");
  check_fits(in, "input");
  check_fits(out, "output");
  // Walk every line along `dim`: the outer shape has that dim set to 1.
  int64_t outer_shape[DEVPLUG_MAX_RANK];
  for (int32_t d = 0; d < in.rank; ++d) outer_shape[d] = d == dim ? 1 : in.shape[d];
  const int64_t length = in.rank == 0 ? 1 : in.shape[dim];
  const int64_t in_step = in.rank == 0 ? 0 : in.strides[dim];
  const int64_t out_step = out.rank == 0 ? 0 : out.strides[dim];
  const T* src = tensor_base<const T>(in);
  T* dst = tensor_base<T>(out);
  sdk::for_each_offset<2>(
      in.rank, outer_shape, {in.strides, out.strides}, [&](const std::array<int64_t, 2>& at) {
        if constexpr (sdk::is_floating_v<T>) {
          wide_t<T> acc = kProduct ? 1 : -0.0;  // so that out[0] is exactly in[0], -0.0 included
          for (int64_t i = 0; i < length; ++i) {
            const wide_t<T> v = to_wide(src[at[0] + i * in_step]);
            acc = kProduct ? acc * v : acc + v;
            dst[at[1] + i * out_step] = from_wide<T>(acc);
          }
        } else {
          uint64_t acc = kProduct ? 1 : 0;
          for (int64_t i = 0; i < length; ++i) {
            const uint64_t v = to_bits(src[at[0] + i * in_step]);
            acc = kProduct ? acc * v : acc + v;
            dst[at[1] + i * out_step] = from_bits<T>(acc);
          }
        }
      });
}

// ---- dispatch on dtype ---------------------------------------------------------------------

DEVPLUG_STRUCTURED_KERNEL(sum_kernel, DEVPLUG_OP_sum, (sum_or_prod<T, false>(c)))
DEVPLUG_STRUCTURED_KERNEL(prod_kernel, DEVPLUG_OP_prod, (sum_or_prod<T, true>(c)))
DEVPLUG_STRUCTURED_KERNEL(amax_kernel, DEVPLUG_OP_amax, (extreme<T, true>(c)))
DEVPLUG_STRUCTURED_KERNEL(amin_kernel, DEVPLUG_OP_amin, (extreme<T, false>(c)))
DEVPLUG_STRUCTURED_KERNEL(argmax_kernel, DEVPLUG_OP_argmax, (arg_extreme<T, true>(c)))
DEVPLUG_STRUCTURED_KERNEL(argmin_kernel, DEVPLUG_OP_argmin, (arg_extreme<T, false>(c)))
DEVPLUG_STRUCTURED_KERNEL(var_kernel, DEVPLUG_OP_var, (variance<T>(c)))
DEVPLUG_STRUCTURED_KERNEL(all_kernel, DEVPLUG_OP_all, (all_or_any<T, true>(c)))
DEVPLUG_STRUCTURED_KERNEL(any_kernel, DEVPLUG_OP_any, (all_or_any<T, false>(c)))
DEVPLUG_STRUCTURED_KERNEL(cumsum_kernel, DEVPLUG_OP_cumsum, (scan<T, false>(c)))
DEVPLUG_STRUCTURED_KERNEL(cumprod_kernel, DEVPLUG_OP_cumprod, (scan<T, true>(c)))

}  // namespace

void register_reduce_kernels(sdk::KernelTable& table) {
  auto add = [&](devplug_op_t op, devplug_kernel_fn fn) { add_kernel(table, op, fn); };
  add(DEVPLUG_OP_sum, &sum_kernel);
  add(DEVPLUG_OP_prod, &prod_kernel);
  add(DEVPLUG_OP_amax, &amax_kernel);
  add(DEVPLUG_OP_amin, &amin_kernel);
  add(DEVPLUG_OP_argmax, &argmax_kernel);
  add(DEVPLUG_OP_argmin, &argmin_kernel);
  add(DEVPLUG_OP_var, &var_kernel);
  add(DEVPLUG_OP_all, &all_kernel);
  add(DEVPLUG_OP_any, &any_kernel);
  add(DEVPLUG_OP_cumsum, &cumsum_kernel);
  add(DEVPLUG_OP_cumprod, &cumprod_kernel);
}

}  // namespace devplug::reference
