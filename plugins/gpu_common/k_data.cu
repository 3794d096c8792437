// SPDX-License-Identifier: Apache-2.0
// Data and random ops (ops.def DATA and RANDOM): convert_element_type between every pair of
// dtypes, copy_strided, fill, iota and the three Philox generators. Made outputs (fill,
// iota, philox_*) are written through a generator indexed by the logical row-major element
// number, so the results never depend on launch geometry.
#include <cmath>
#include <limits>
#include <type_traits>

#include "elementwise.cuh"
#include "gpu_ops.hpp"
#include "philox.hpp"

namespace devplug::gpu {
namespace {

// ---- convert_element_type ----------------------------------------------------------------

template <typename Out, typename In>
struct Convert {
  GPU_D Out operator()(In v) const {
    if constexpr (std::is_same_v<Out, In>) {
      return v;
    } else if constexpr (std::is_same_v<Out, bool>) {
      return to_compute(v) != 0;  // NaN != 0 is true
    } else if constexpr (std::is_same_v<In, bool>) {
      if constexpr (is_half_v<Out>)
        return from_compute<Out>(v ? 1.0f : 0.0f);
      else
        return static_cast<Out>(v ? 1 : 0);
    } else if constexpr (is_half_v<Out>) {
      // One rounding: doubles (and integers, exact in double up to 2^53) go through the
      // round-to-odd float; float32 and 16-bit values are exact in float.
      if constexpr (std::is_same_v<In, double> || is_int_v<In>)
        return float_from_double<Out>(static_cast<double>(v));
      else
        return from_compute<Out>(static_cast<float>(to_compute(v)));
    } else if constexpr (std::is_floating_point_v<Out>) {
      return static_cast<Out>(to_compute(v));
    } else if constexpr (is_float_v<In>) {
      // Float to integer truncates. ops.def leaves NaN and out-of-range unspecified; like the
      // reference backend, NaN gives 0 and out-of-range saturates.
      using C = decltype(to_compute(v));
      const C x = to_compute(v);
      if (x != x) return Out(0);
      if (x <= static_cast<C>(std::numeric_limits<Out>::lowest())) return std::numeric_limits<Out>::lowest();
      if (x >= static_cast<C>(std::numeric_limits<Out>::max())) return std::numeric_limits<Out>::max();
      return static_cast<Out>(x);
    } else {
      return static_cast<Out>(v);  // integer to integer wraps
    }
  }
};

template <typename T>
struct Identity {
  GPU_D T operator()(T v) const { return v; }
};

// ---- generators for made outputs -----------------------------------------------------------

template <typename F, typename Index, typename Out>
__global__ void generate_kernel(Out* out, Layout l, Index n, F f) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index k = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    out[offset_of<Index>(l, k)] = f(static_cast<uint64_t>(k));
}

template <typename F, typename Out>
__global__ void generate_dense_kernel(Out* out, int64_t n, F f) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    out[k] = f(static_cast<uint64_t>(k));
}

// Enqueues out[k] = f(k) for every logical row-major element k of `out`.
template <typename Out, typename F>
void launch_generate(devplug_stream_handle_t* s, const devplug_tensor_desc_t& out, F f, const char* what) {
  Layout l = pack_layout(out);
  const int64_t n = layout_numel(l);
  if (n == 0) return;
  use_device(s->device);
  Out* data = static_cast<Out*>(tensor_data(out));
  const LaunchConfig c = launch_1d(n);
  if (layout_is_contiguous(l)) {
    launch(what, generate_dense_kernel<F, Out>, c.blocks, c.threads, s->stream, data, n, f);
  } else if (fits_int32(&l, 1)) {
    launch(what, generate_kernel<F, int32_t, Out>, c.blocks, c.threads, s->stream, data, l, n, f);
  } else {
    launch(what, generate_kernel<F, int64_t, Out>, c.blocks, c.threads, s->stream, data, l, n, f);
  }
}

template <typename T>
struct Fill {
  T value;
  GPU_D T operator()(uint64_t) const { return value; }
};

template <typename T>
struct Iota {
  double start_f, step_f;
  uint64_t start_i, step_i;
  GPU_D T operator()(uint64_t k) const {
    if constexpr (is_float_v<T>)
      return float_from_double<T>(fma(static_cast<double>(k), step_f, start_f));
    else
      return static_cast<T>(start_i + k * step_i);  // uint64 wrap, then to the width
  }
};

template <typename T>
struct PhiloxBits {
  uint64_t seed, offset;
  GPU_D T operator()(uint64_t k) const {
    if constexpr (sizeof(T) == 4)
      return static_cast<T>(philox_word(seed, offset, k));
    else {
      const PhiloxBlock b = philox_block(seed, offset + (2 * k) / 4);
      const int j = static_cast<int>((2 * k) % 4);
      return static_cast<T>(static_cast<uint64_t>(b.w[j]) | static_cast<uint64_t>(b.w[j + 1]) << 32);
    }
  }
};

template <typename T>
struct PhiloxUniform {
  uint64_t seed, offset;
  GPU_D T operator()(uint64_t k) const {
    if constexpr (std::is_same_v<T, double>) {
      const PhiloxBlock b = philox_block(seed, offset + (2 * k) / 4);
      const int j = static_cast<int>((2 * k) % 4);
      const uint64_t bits = static_cast<uint64_t>(b.w[j + 1]) << 32 | b.w[j];
      return static_cast<double>(bits >> 11) * 0x1p-53;
    } else {
      const uint32_t w = philox_word(seed, offset, k);
      if constexpr (std::is_same_v<T, float>)
        return static_cast<float>(w >> 8) * 0x1p-24f;
      else if constexpr (std::is_same_v<T, f16>)
        return from_compute<f16>(static_cast<float>(w >> 21) * 0x1p-11f);
      else
        return from_compute<bf16>(static_cast<float>(w >> 24) * 0x1p-8f);
    }
  }
};

template <typename T>
struct PhiloxNormal {
  uint64_t seed, offset;
  GPU_D T operator()(uint64_t k) const {
    if constexpr (std::is_same_v<T, double>) {
      const PhiloxBlock b = philox_block(seed, offset + k);  // words 4k .. 4k+3
      const uint64_t a = static_cast<uint64_t>(b.w[1]) << 32 | b.w[0];
      const uint64_t c = static_cast<uint64_t>(b.w[3]) << 32 | b.w[2];
      const double u1 = static_cast<double>((a >> 11) + 1) * 0x1p-53;
      const double u2 = static_cast<double>(c >> 11) * 0x1p-53;
      return ::sqrt(-2.0 * ::log(u1)) * ::cos(6.283185307179586476925 * u2);
    } else {
      const PhiloxBlock b = philox_block(seed, offset + (2 * k) / 4);
      const int j = static_cast<int>((2 * k) % 4);
      const float u1 = static_cast<float>((b.w[j] >> 8) + 1) * 0x1p-24f;
      const float u2 = static_cast<float>(b.w[j + 1] >> 8) * 0x1p-24f;
      const float z = ::sqrtf(-2.0f * ::logf(u1)) * ::cosf(6.2831853071795864769f * u2);
      return from_compute<T>(z);
    }
  }
};

}  // namespace

void copy_strided(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& src,
                  const devplug_tensor_desc_t& dst) {
  const devplug_tensor_desc_t* ins[1] = {&src};
  visit(dst.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_map<T, T>(stream, dst, ins, Identity<T>{}, "copy_strided");
  });
}

void fill_zero(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& dst) {
  visit(dst.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_generate<T>(stream, dst, Fill<T>{from_scalar<T>(0.0, 0)}, "fill");
  });
}

void run_data(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& out = *call.outputs[0];
  switch (call.op) {
    case DEVPLUG_OP_convert_element_type:
      return visit(call.inputs[0]->dtype, [&](auto in_tag) {
        using In = typename decltype(in_tag)::type;
        visit(out.dtype, [&](auto out_tag) {
          using Out = typename decltype(out_tag)::type;
          launch_map<Out, In>(stream, out, call.inputs, Convert<Out, In>{}, "convert_element_type");
        });
      });
    case DEVPLUG_OP_copy_strided:
      sdk::check_argument(call.inputs[0]->dtype == out.dtype, "copy_strided: dtypes differ");
      return copy_strided(stream, *call.inputs[0], out);
    case DEVPLUG_OP_fill: {
      const auto* a = static_cast<const devplug_fill_attrs_t*>(call.attrs);
      return visit(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        launch_generate<T>(stream, out, Fill<T>{from_scalar<T>(a->value.f, a->value.i)}, "fill");
      });
    }
    case DEVPLUG_OP_iota: {
      const auto* a = static_cast<const devplug_iota_attrs_t*>(call.attrs);
      return visit(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!std::is_same_v<T, bool>)
          launch_generate<T>(stream, out,
                             Iota<T>{a->start.f, a->step.f, static_cast<uint64_t>(a->start.i),
                                     static_cast<uint64_t>(a->step.i)},
                             "iota");
        else
          sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "iota: bool is not allowed");
      });
    }
    default:
      sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(devplug_op_name(call.op)) + ": not a data op");
  }
}

void run_random(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const auto* a = static_cast<const devplug_philox_attrs_t*>(call.attrs);
  const char* what = devplug_op_name(call.op);
  visit(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
      if (call.op == DEVPLUG_OP_philox_bits)
        return launch_generate<T>(stream, out, PhiloxBits<T>{a->seed, a->offset}, what);
    } else if constexpr (is_float_v<T>) {
      if (call.op == DEVPLUG_OP_philox_uniform)
        return launch_generate<T>(stream, out, PhiloxUniform<T>{a->seed, a->offset}, what);
      if (call.op == DEVPLUG_OP_philox_normal)
        return launch_generate<T>(stream, out, PhiloxNormal<T>{a->seed, a->offset}, what);
    }
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + ": dtype not allowed");
  });
}

}  // namespace devplug::gpu
