// SPDX-License-Identifier: Apache-2.0
// Data kernels of the reference backend (category DATA of ops.def): convert_element_type,
// copy_strided, fill and iota. Every value is rounded once to the output dtype.
//
// Casts devplug leaves unspecified are defined here without undefined behaviour: a float to
// integer cast truncates toward zero, sends NaN to 0 and saturates values outside the
// integer's range to its minimum or maximum; integer to integer casts wrap (keep the low
// bits); to bool is x != 0 (NaN is true).
#include <cmath>
#include <string>

#include "kernels/elementwise.hpp"
#include "kernels/kernels.hpp"
#include "kernels/math.hpp"

namespace devplug::reference {
namespace {

// One element of dtype From (storage type, bool as a byte) converted to To.
template <typename From, typename To>
Storage<To> convert_one(Storage<From> x) {
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (sdk::is_floating_v<From>)
      return BoolByte(value_of(x) != 0);  // NaN != 0
    else
      return BoolByte(x != 0);
  } else if constexpr (std::is_same_v<From, bool>) {
    const int v = x != 0 ? 1 : 0;
    if constexpr (sdk::is_floating_v<To>)
      return round_to<To>(static_cast<double>(v));
    else
      return static_cast<To>(v);
  } else if constexpr (std::is_integral_v<To>) {
    if constexpr (sdk::is_floating_v<From>)
      return math::float_to_int<To>(value_of(x));
    else
      return math::wrap<To>(
          static_cast<uint64_t>(static_cast<int64_t>(x)));  // sign-extend, then keep the low bits
  } else if constexpr (sdk::is_floating_v<From>) {
    return round_to<To>(value_of(x));  // exact widening, or one rounding
  } else if constexpr (sdk::is_float16_v<To> && std::is_same_v<From, int64_t>) {
    return math::int64_to_bits16<To>(x);  // double would round first
  } else if constexpr (sdk::is_float16_v<To>) {
    return round_to<To>(static_cast<double>(x));  // exact in double, rounded once
  } else {
    return static_cast<To>(x);  // the hardware conversion rounds once
  }
}

devplug_error_t* convert_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    check_in_buffers(*call);
    const devplug_op_info_t& info = *devplug_op_info(call->op);
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    check_same_shape(in, out, info.name);
    sdk::visit_dtype(in.dtype, [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      sdk::visit_dtype(out.dtype, [&](auto to_tag) {
        using To = typename decltype(to_tag)::type;
        map1<Storage<From>, Storage<To>>(in, out, [](Storage<From> x) { return convert_one<From, To>(x); });
      });
    });
  });
}

devplug_error_t* copy_strided_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    check_in_buffers(*call);
    const devplug_op_info_t& info = *devplug_op_info(call->op);
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& out = *call->outputs[0];
    check_same_shape(in, out, info.name);
    check_dtype(out, in.dtype, info.name, "the output");
    sdk::visit_dtype(in.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>)
        map1<BoolByte, BoolByte>(in, out, [](BoolByte x) { return BoolByte(x != 0); });
      else
        map1<T, T>(in, out, [](T x) { return x; });
    });
  });
}

// Writes `value(k)` to element k (row-major) of `out`.
template <typename T, typename F>
void generate(const devplug_tensor_desc_t& out, F&& value) {
  Storage<T>* dst = tensor_base<Storage<T>>(out);
  uint64_t k = 0;
  sdk::for_each_offset<1>(out.rank, out.shape, {out.strides},
                          [&](const std::array<int64_t, 1>& at) { dst[at[0]] = value(k++); });
}

// A scalar attribute as an element of T: `f` rounded once for floats, `i` wrapped for
// integers, i != 0 for bool.
template <typename T>
Storage<T> scalar_as(const devplug_scalar_t& s) {
  if constexpr (sdk::is_floating_v<T>)
    return round_to<T>(s.f);
  else if constexpr (std::is_same_v<T, bool>)
    return BoolByte(s.i != 0);
  else
    return math::wrap<T>(static_cast<uint64_t>(s.i));
}

devplug_error_t* fill_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    check_in_buffers(*call);
    const auto& attrs = *static_cast<const devplug_fill_attrs_t*>(call->attrs);
    const devplug_tensor_desc_t& out = *call->outputs[0];
    sdk::visit_dtype(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const Storage<T> v = scalar_as<T>(attrs.value);
      generate<T>(out, [&](uint64_t) { return v; });
    });
  });
}

// Element k = start + k * step. Integers wrap in 64 bits, then to the dtype. Floats: k * step
// is exact in binary128 (113 bits hold a 53-bit step times any k below 2^60, far beyond any
// buffer), the sum is rounded to binary128 and then once to the dtype.
devplug_error_t* iota_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<KernelTraits>(stream, call, [&] {
    check_in_buffers(*call);
    const auto& attrs = *static_cast<const devplug_iota_attrs_t*>(call->attrs);
    const devplug_tensor_desc_t& out = *call->outputs[0];
    sdk::visit_dtype(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "iota: bool is not allowed");
      } else if constexpr (sdk::is_floating_v<T>) {
        const double start_d = attrs.start.f, step_d = attrs.step.f;
        const __float128 start = start_d, step = step_d;
        generate<T>(out, [&](uint64_t k) {
          // Fast path: when k * step and the sum are exact in double (fma and two-sum show
          // a zero error), the double is the exact value and is rounded once.
          const double kd = static_cast<double>(k);
          const double p = kd * step_d;
          if (std::fma(kd, step_d, -p) == 0) {
            const double sum = start_d + p, back = sum - start_d;
            if ((start_d - (sum - back)) + (p - back) == 0 && std::isfinite(sum)) return round_to<T>(sum);
          }
          const __float128 q = start + static_cast<__float128>(k) * step;
          if constexpr (sdk::is_float16_v<T>) {
            const double nearest = static_cast<double>(q);  // q - nearest is exact in binary128
            return round_to<T>(math::round_to_odd(nearest, q - static_cast<__float128>(nearest)));
          } else
            return static_cast<T>(q);
        });
      } else {
        const uint64_t start = static_cast<uint64_t>(attrs.start.i),
                       step = static_cast<uint64_t>(attrs.step.i);
        generate<T>(out, [&](uint64_t k) { return math::wrap<T>(start + k * step); });
      }
    });
  });
}

}  // namespace

void register_data_kernels(sdk::KernelTable& table) {
  // Each data op has its own kernel; the table's rows come from ops.def, so a data op added
  // there without a kernel here is reported by the coverage test.
  for (devplug_op_t op : sdk::ops_in_category(DEVPLUG_CATEGORY_data)) {
    devplug_kernel_fn fn = nullptr;
    switch (op) {
      case DEVPLUG_OP_convert_element_type:
        fn = &convert_kernel;
        break;
      case DEVPLUG_OP_copy_strided:
        fn = &copy_strided_kernel;
        break;
      case DEVPLUG_OP_fill:
        fn = &fill_kernel;
        break;
      case DEVPLUG_OP_iota:
        fn = &iota_kernel;
        break;
      default:
        continue;
    }
    table.add(op, devplug_op_info(op)->dtypes, 0, fn);
  }
}

}  // namespace devplug::reference
