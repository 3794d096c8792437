// SPDX-License-Identifier: Apache-2.0
// Reductions and scans (ops.def REDUCE and SCAN). A reduction splits the input into kept
// dims (one result each) and reduced dims; each result is a block tree over its elements,
// and when few results are long, several blocks share one result and a second pass combines
// their partials in a fixed order (deterministic, no atomics). float16, bfloat16 and float32
// accumulate in float32, float64 in float64, integers in uint64 (wrapping, exact modulo the
// width). var is two-pass: the mean first, then the centred sum of squares. Scans run one
// block per row (a shared-memory block scan per chunk carrying the prefix), or one thread per
// row for short rows.
#include <cmath>
#include <limits>
#include <type_traits>

#include "device_math.cuh"
#include "elementwise.cuh"
#include "gpu_ops.hpp"

namespace devplug::gpu {
namespace {

// The accumulator type of sums and products.
template <typename T>
using acc_t =
    std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<is_float_v<T>, float, uint64_t>>;

template <typename T>
GPU_D inline acc_t<T> to_acc(T v) {
  if constexpr (is_float_v<T>)
    return to_compute(v);
  else
    return static_cast<uint64_t>(static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(v));
}

template <typename T>
GPU_D inline T from_acc(acc_t<T> a) {
  if constexpr (is_float_v<T>)
    return from_compute<T>(a);
  else
    return static_cast<T>(a);
}

// ---- reduction policies: init, load(x, r, o), combine, finish(acc, o) --------------------

template <typename T>
struct SumPolicy {
  using Acc = acc_t<T>;
  using Out = T;
  GPU_D Acc init() const { return Acc(0); }
  GPU_D Acc load(T x, int64_t, int64_t) const { return to_acc(x); }
  GPU_D Acc combine(Acc a, Acc b) const { return a + b; }
  GPU_D Out finish(Acc a, int64_t) const { return from_acc<T>(a); }
};

template <typename T>
struct ProdPolicy {
  using Acc = acc_t<T>;
  using Out = T;
  GPU_D Acc init() const { return Acc(1); }
  GPU_D Acc load(T x, int64_t, int64_t) const { return to_acc(x); }
  GPU_D Acc combine(Acc a, Acc b) const { return a * b; }
  GPU_D Out finish(Acc a, int64_t) const { return from_acc<T>(a); }
};

// Sum divided by the length: the mean, kept in the accumulator type for var's second pass.
template <typename T>
struct MeanPolicy {
  using Acc = acc_t<T>;
  using Out = Acc;
  int64_t length;
  GPU_D Acc init() const { return Acc(0); }
  GPU_D Acc load(T x, int64_t, int64_t) const { return to_acc(x); }
  GPU_D Acc combine(Acc a, Acc b) const { return a + b; }
  GPU_D Out finish(Acc a, int64_t) const { return a / static_cast<Acc>(length); }
};

template <typename T>
struct CentredSquaresPolicy {
  using Acc = acc_t<T>;
  using Out = T;
  const Acc* means;
  Acc divisor;  // max(0, n - correction)
  GPU_D Acc init() const { return Acc(0); }
  GPU_D Acc load(T x, int64_t, int64_t o) const {
    const Acc d = to_acc(x) - means[o];
    return d * d;
  }
  GPU_D Acc combine(Acc a, Acc b) const { return a + b; }
  GPU_D Out finish(Acc a, int64_t) const { return from_acc<T>(a / divisor); }
};

template <typename T, bool kMax>
struct ExtremePolicy {
  using Acc = compute_t<T>;
  using Out = T;
  GPU_D Acc init() const {
    if constexpr (std::is_same_v<T, bool>)
      return !kMax;
    else if constexpr (is_float_v<T>)
      return kMax ? -static_cast<Acc>(INFINITY) : static_cast<Acc>(INFINITY);
    else
      return kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  GPU_D Acc load(T x, int64_t, int64_t) const { return to_compute(x); }
  GPU_D Acc combine(Acc a, Acc b) const {
    if constexpr (is_float_v<T>) {
      if (m_isnan(a)) return a;
      if (m_isnan(b)) return b;
    }
    return kMax ? (b > a ? b : a) : (b < a ? b : a);
  }
  GPU_D Out finish(Acc a, int64_t) const { return from_compute<T>(a); }
};

template <typename C>
struct ArgAcc {
  C value;
  int64_t index;  // -1: no element yet
};

// First index on ties; the first NaN beats everything.
template <typename T, bool kMax>
struct ArgPolicy {
  using C = compute_t<T>;
  using Acc = ArgAcc<C>;
  using Out = int64_t;
  GPU_D Acc init() const { return Acc{C(0), -1}; }
  GPU_D Acc load(T x, int64_t r, int64_t) const { return Acc{to_compute(x), r}; }
  GPU_D Acc combine(Acc a, Acc b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool first_a = a.index < b.index;
    if constexpr (is_float_v<T>) {
      const bool nan_a = m_isnan(a.value), nan_b = m_isnan(b.value);
      if (nan_a && nan_b) return first_a ? a : b;
      if (nan_a) return a;
      if (nan_b) return b;
    }
    if (a.value == b.value) return first_a ? a : b;
    return (kMax ? a.value > b.value : a.value < b.value) ? a : b;
  }
  GPU_D Out finish(Acc a, int64_t) const { return a.index; }
};

template <typename T, bool kAll>
struct LogicalPolicy {
  using Acc = bool;
  using Out = bool;
  GPU_D Acc init() const { return kAll; }
  GPU_D Acc load(T x, int64_t, int64_t) const { return to_compute(x) != 0; }
  GPU_D Acc combine(Acc a, Acc b) const { return kAll ? (a && b) : (a || b); }
  GPU_D Out finish(Acc a, int64_t) const { return a; }
};

// ---- the two-pass reduction engine -----------------------------------------------------------

struct ReduceGeometry {
  Layout outer;      // kept dims with the input's strides
  Layout out;        // kept dims with the output's strides
  Layout inner;      // reduced dims with the input's strides
  bool inner_dense;  // inner is one dim of stride 1
};

constexpr int kMaxReduceThreads = 256;

template <typename Policy>
GPU_D inline typename Policy::Acc block_reduce(const Policy& p, typename Policy::Acc acc) {
  using Acc = typename Policy::Acc;
  __shared__ unsigned char raw[kMaxReduceThreads * sizeof(Acc)] __attribute__((aligned(16)));
  Acc* sh = reinterpret_cast<Acc*>(raw);
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = p.combine(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  const Acc result = sh[0];
  __syncthreads();
  return result;
}

// Folds elements [begin, end) of a dense row into acc, thread t taking every blockDim-th one:
// 16-byte vector loads over the aligned middle, four in flight per thread (element-wide loads
// left a GPU's memory idle: sum float32 at 0.59 of the copy's bandwidth on an H200), the
// unaligned head and the tail element by element.
template <typename Policy, typename Index, typename T>
GPU_D inline typename Policy::Acc fold_dense(const Policy& p, typename Policy::Acc acc, const T* row,
                                             Index begin, Index end, Index o) {
  constexpr Index V = 16 / sizeof(T);
  const uintptr_t address = reinterpret_cast<uintptr_t>(row + begin);
  Index body = end;  // where the vectors start; no vectors unless elements are aligned
  if (address % sizeof(T) == 0) {
    const Index skip = static_cast<Index>((16 - address % 16) % 16 / sizeof(T));
    body = skip < end - begin ? begin + skip : end;
  }
  for (Index r = begin + threadIdx.x; r < body; r += blockDim.x) acc = p.combine(acc, p.load(row[r], r, o));
  const Index vectors = (end - body) / V;
  const Vec<T, V>* vec = reinterpret_cast<const Vec<T, V>*>(row + body);
#pragma unroll 4
  for (Index v = threadIdx.x; v < vectors; v += blockDim.x) {
    const Vec<T, V> w = vec[v];
#pragma unroll
    for (Index k = 0; k < V; ++k) acc = p.combine(acc, p.load(w.v[k], body + v * V + k, o));
  }
  for (Index r = body + vectors * V + threadIdx.x; r < end; r += blockDim.x)
    acc = p.combine(acc, p.load(row[r], r, o));
  return acc;
}

// Pass 1: block (o, split) reduces elements [begin, end) of result o. With splits == 1 it
// writes the final result, else a partial.
template <typename Policy, typename Index, typename T>
__global__ void reduce_kernel(const T* in, typename Policy::Out* out, typename Policy::Acc* partials,
                              ReduceGeometry g, Index outputs, Index length, uint32_t splits, Policy p) {
  using Acc = typename Policy::Acc;
  const Index per_split = (length + splits - 1) / splits;
  const Index begin = static_cast<Index>(blockIdx.y) * per_split;
  const Index end = begin + per_split < length ? begin + per_split : length;
  for (Index o = blockIdx.x; o < outputs; o += gridDim.x) {
    const Index base = offset_of<Index>(g.outer, o);
    Acc acc = p.init();
    if (g.inner_dense) {
      acc = fold_dense(p, acc, in + base, begin, end, o);
    } else {
      for (Index r = begin + threadIdx.x; r < end; r += blockDim.x)
        acc = p.combine(acc, p.load(in[base + offset_of<Index>(g.inner, r)], r, o));
    }
    acc = block_reduce(p, acc);
    if (threadIdx.x == 0) {
      if (splits == 1)
        out[offset_of<Index>(g.out, o)] = p.finish(acc, o);
      else
        partials[static_cast<int64_t>(o) * splits + blockIdx.y] = acc;
    }
  }
}

// Short rows: thread o folds result o alone, in element order.
template <typename Policy, typename Index, typename T>
__global__ void reduce_rows_kernel(const T* in, typename Policy::Out* out, ReduceGeometry g, Index outputs,
                                   Index length, Policy p) {
  using Acc = typename Policy::Acc;
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index o = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; o < outputs; o += stride) {
    const Index base = offset_of<Index>(g.outer, o);
    Acc acc = p.init();
    for (Index r = 0; r < length; ++r)
      acc = p.combine(acc, p.load(in[base + (g.inner_dense ? r : offset_of<Index>(g.inner, r))], r, o));
    out[offset_of<Index>(g.out, o)] = p.finish(acc, o);
  }
}

// Pass 2: block o combines the partials of result o in split order.
template <typename Policy, typename Index>
__global__ void combine_kernel(typename Policy::Out* out, const typename Policy::Acc* partials,
                               ReduceGeometry g, Index outputs, uint32_t splits, Policy p) {
  using Acc = typename Policy::Acc;
  for (Index o = blockIdx.x; o < outputs; o += gridDim.x) {
    Acc acc = p.init();
    for (uint32_t s = threadIdx.x; s < splits; s += blockDim.x)
      acc = p.combine(acc, partials[static_cast<int64_t>(o) * splits + s]);
    acc = block_reduce(p, acc);
    if (threadIdx.x == 0) out[offset_of<Index>(g.out, o)] = p.finish(acc, o);
  }
}

// Splits `in` by `dims_mask` into kept and reduced dims (out_strides: the result's strides).
inline ReduceGeometry reduce_geometry(const devplug_tensor_desc_t& in, const int64_t* out_strides,
                                      uint32_t dims_mask) {
  ReduceGeometry g{};
  for (int32_t d = 0; d < in.rank; ++d) {
    if (dims_mask & (1u << d)) {
      g.inner.shape[g.inner.rank] = in.shape[d];
      g.inner.strides[g.inner.rank++] = in.strides[d];
    } else {
      g.outer.shape[g.outer.rank] = in.shape[d];
      g.outer.strides[g.outer.rank++] = in.strides[d];
      g.out.shape[g.out.rank] = in.shape[d];
      g.out.strides[g.out.rank++] = out_strides[d];
    }
  }
  Layout pair[2] = {g.outer, g.out};
  coalesce(pair, 2);
  g.outer = pair[0];
  g.out = pair[1];
  coalesce(&g.inner, 1);
  g.inner_dense = g.inner.rank == 0 || (g.inner.rank == 1 && g.inner.strides[0] == 1);
  return g;
}

// Enqueues the reduction of `in` by policy `p` into `out` (the Out type's elements at the
// kept-dims layout of g.out). `partials` must hold outputs * plan.splits accumulators.
template <typename Policy, typename T>
void launch_reduce(devplug_stream_handle_t* s, const T* in, typename Policy::Out* out,
                   const ReduceGeometry& g, const ReducePlan& plan, typename Policy::Acc* partials,
                   const Policy& p, const char* what) {
  Layout all[3] = {g.outer, g.out, g.inner};
  const bool small = fits_int32(all, 3) && plan.outputs * plan.length < kInt32Limit - kGridStrideRoom;
  if (plan.serial) {
    const LaunchConfig c = launch_1d(plan.outputs, plan.threads);
    if (small) {
      launch(what, reduce_rows_kernel<Policy, int32_t, T>, c.blocks, c.threads, s->stream, in, out, g,
             static_cast<int32_t>(plan.outputs), static_cast<int32_t>(plan.length), p);
    } else {
      launch(what, reduce_rows_kernel<Policy, int64_t, T>, c.blocks, c.threads, s->stream, in, out, g,
             plan.outputs, plan.length, p);
    }
    return;
  }
  const uint32_t grid_x = static_cast<uint32_t>(plan.outputs < (1 << 20) ? plan.outputs : (1 << 20));
  const dim3 grid(grid_x, plan.splits);
  if (small) {
    launch(what, reduce_kernel<Policy, int32_t, T>, grid, plan.threads, s->stream, in, out, partials, g,
           plan.outputs, plan.length, plan.splits, p);
  } else {
    launch(what, reduce_kernel<Policy, int64_t, T>, grid, plan.threads, s->stream, in, out, partials, g,
           plan.outputs, plan.length, plan.splits, p);
  }
  if (plan.splits > 1) {
    uint32_t threads = 32;
    while (threads < 256 && threads < plan.splits) threads *= 2;
    if (small) {
      launch(what, combine_kernel<Policy, int32_t>, grid_x, threads, s->stream, out, partials, g,
             plan.outputs, plan.splits, p);
    } else {
      launch(what, combine_kernel<Policy, int64_t>, grid_x, threads, s->stream, out, partials, g,
             plan.outputs, plan.splits, p);
    }
  }
}

template <typename T, typename Policy>
void reduce_with(devplug_stream_handle_t* s, const devplug_op_call_t& call, const Policy& p) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const auto* a = static_cast<const devplug_reduce_attrs_t*>(call.attrs);
  const ReduceGeometry g = reduce_geometry(in, out.strides, a->dims_mask);
  const ReducePlan plan = plan_reduce(layout_numel(g.outer), layout_numel(g.inner));
  if (plan.outputs == 0) return;
  use_device(s->device);
  using Acc = typename Policy::Acc;
  Acc* partials = plan.splits > 1 ? static_cast<Acc*>(stream_scratch(
                                        s, static_cast<uint64_t>(plan.outputs) * plan.splits * sizeof(Acc)))
                                  : nullptr;
  launch_reduce(s, static_cast<const T*>(tensor_data(in)),
                static_cast<typename Policy::Out*>(tensor_data(out)), g, plan, partials, p,
                devplug_op_name(call.op));
}

template <typename T>
void run_var(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const auto* a = static_cast<const devplug_reduce_attrs_t*>(call.attrs);
  const ReduceGeometry g = reduce_geometry(in, out.strides, a->dims_mask);
  const ReducePlan plan = plan_reduce(layout_numel(g.outer), layout_numel(g.inner));
  if (plan.outputs == 0) return;
  use_device(s->device);
  using Acc = acc_t<T>;
  // Scratch: the means (one per result, dense), then the partials of either pass.
  const uint64_t means_bytes = (static_cast<uint64_t>(plan.outputs) * sizeof(Acc) + 255) / 256 * 256;
  char* scratch = static_cast<char*>(
      stream_scratch(s, means_bytes + static_cast<uint64_t>(plan.outputs) * plan.splits * sizeof(Acc)));
  Acc* means = reinterpret_cast<Acc*>(scratch);
  Acc* partials = reinterpret_cast<Acc*>(scratch + means_bytes);
  ReduceGeometry dense_means = g;
  dense_means.out.rank = g.outer.rank;
  for (int32_t d = 0; d < g.outer.rank; ++d) dense_means.out.shape[d] = g.outer.shape[d];
  int64_t stride = 1;
  for (int32_t d = g.outer.rank - 1; d >= 0; --d) {
    dense_means.out.strides[d] = stride;
    stride *= g.outer.shape[d];
  }
  const T* data = static_cast<const T*>(tensor_data(in));
  launch_reduce(s, data, means, dense_means, plan, partials, MeanPolicy<T>{plan.length}, "var (mean)");
  const double n_minus = static_cast<double>(plan.length) - a->correction;
  const Acc divisor = static_cast<Acc>(n_minus > 0 ? n_minus : 0.0);
  launch_reduce(s, data, static_cast<T*>(tensor_data(out)), g, plan, partials,
                CentredSquaresPolicy<T>{means, divisor}, "var");
}

// ---- scans -----------------------------------------------------------------------------------

struct ScanGeometry {
  Layout rows_in;   // every dim but `dim`, input strides
  Layout rows_out;  // every dim but `dim`, output strides
  int64_t length, in_stride, out_stride;
};

template <typename T, bool kProd>
GPU_D inline acc_t<T> scan_combine(acc_t<T> a, acc_t<T> b) {
  if constexpr (kProd)
    return a * b;
  else
    return a + b;
}

template <typename T, bool kProd>
__global__ void scan_rows_serial_kernel(const T* in, T* out, ScanGeometry g, int64_t rows) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride) {
    const T* x = in + offset_of<int64_t>(g.rows_in, row);
    T* y = out + offset_of<int64_t>(g.rows_out, row);
    acc_t<T> acc = kProd ? acc_t<T>(1) : acc_t<T>(0);
    for (int64_t i = 0; i < g.length; ++i) {
      acc = scan_combine<T, kProd>(acc, to_acc(x[i * g.in_stride]));
      y[i * g.out_stride] = from_acc<T>(acc);
    }
  }
}

constexpr int kScanThreads = 256;

template <typename T, bool kProd>
__global__ void scan_rows_block_kernel(const T* in, T* out, ScanGeometry g, int64_t rows) {
  using Acc = acc_t<T>;
  __shared__ Acc sh[kScanThreads];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + offset_of<int64_t>(g.rows_in, row);
    T* y = out + offset_of<int64_t>(g.rows_out, row);
    Acc carry = kProd ? Acc(1) : Acc(0);
    for (int64_t start = 0; start < g.length; start += kScanThreads) {
      const int64_t i = start + threadIdx.x;
      Acc v = i < g.length ? to_acc(x[i * g.in_stride]) : (kProd ? Acc(1) : Acc(0));
      sh[threadIdx.x] = v;
      __syncthreads();
      // Hillis-Steele inclusive scan over the chunk.
      for (int step = 1; step < kScanThreads; step <<= 1) {
        const Acc other =
            threadIdx.x >= static_cast<unsigned>(step) ? sh[threadIdx.x - step] : (kProd ? Acc(1) : Acc(0));
        __syncthreads();
        v = scan_combine<T, kProd>(other, v);
        sh[threadIdx.x] = v;
        __syncthreads();
      }
      const Acc total = scan_combine<T, kProd>(carry, v);
      if (i < g.length) y[i * g.out_stride] = from_acc<T>(total);
      carry = scan_combine<T, kProd>(carry, sh[kScanThreads - 1]);
      __syncthreads();
    }
  }
}

template <typename T>
void run_scan_typed(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const int32_t dim = static_cast<const devplug_dim_attrs_t*>(call.attrs)->dim;
  sdk::check_argument(in.rank == 0 ? dim == 0 : (dim >= 0 && dim < in.rank), "scan: dim out of range");
  ScanGeometry g{};
  g.length = in.rank == 0 ? 1 : in.shape[dim];
  g.in_stride = in.rank == 0 ? 0 : in.strides[dim];
  g.out_stride = in.rank == 0 ? 0 : out.strides[dim];
  for (int32_t d = 0; d < in.rank; ++d) {
    if (d == dim) continue;
    g.rows_in.shape[g.rows_in.rank] = in.shape[d];
    g.rows_in.strides[g.rows_in.rank++] = in.strides[d];
    g.rows_out.shape[g.rows_out.rank] = in.shape[d];
    g.rows_out.strides[g.rows_out.rank++] = out.strides[d];
  }
  const int64_t rows = layout_numel(g.rows_in);
  if (rows == 0 || g.length == 0) return;
  use_device(s->device);
  const T* x = static_cast<const T*>(tensor_data(in));
  T* y = static_cast<T*>(tensor_data(out));
  const bool prod = call.op == DEVPLUG_OP_cumprod;
  const char* what = devplug_op_name(call.op);
  if (g.length <= 64) {
    const LaunchConfig c = launch_1d(rows, 128);
    if (prod)
      launch(what, scan_rows_serial_kernel<T, true>, c.blocks, c.threads, s->stream, x, y, g, rows);
    else
      launch(what, scan_rows_serial_kernel<T, false>, c.blocks, c.threads, s->stream, x, y, g, rows);
  } else {
    const uint32_t blocks = static_cast<uint32_t>(rows < (1 << 20) ? rows : (1 << 20));
    if (prod)
      launch(what, scan_rows_block_kernel<T, true>, blocks, kScanThreads, s->stream, x, y, g, rows);
    else
      launch(what, scan_rows_block_kernel<T, false>, blocks, kScanThreads, s->stream, x, y, g, rows);
  }
}

}  // namespace

void run_reduce(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  visit(call.inputs[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* a = static_cast<const devplug_reduce_attrs_t*>(call.attrs);
    const devplug_tensor_desc_t& in = *call.inputs[0];
    int64_t length = 1;
    for (int32_t d = 0; d < in.rank; ++d)
      if (a->dims_mask & (1u << d)) length *= in.shape[d];
    const bool refuses_empty = call.op == DEVPLUG_OP_amax || call.op == DEVPLUG_OP_amin ||
                               call.op == DEVPLUG_OP_argmax || call.op == DEVPLUG_OP_argmin;
    if (refuses_empty && length == 0 && layout_numel(pack_layout(*call.outputs[0])) > 0)
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(devplug_op_name(call.op)) + ": empty reduction");
    switch (call.op) {
      case DEVPLUG_OP_all:
        return reduce_with<T>(stream, call, LogicalPolicy<T, true>{});
      case DEVPLUG_OP_any:
        return reduce_with<T>(stream, call, LogicalPolicy<T, false>{});
      case DEVPLUG_OP_amax:
        return reduce_with<T>(stream, call, ExtremePolicy<T, true>{});
      case DEVPLUG_OP_amin:
        return reduce_with<T>(stream, call, ExtremePolicy<T, false>{});
      default:
        break;
    }
    if constexpr (!std::is_same_v<T, bool>) {
      switch (call.op) {
        case DEVPLUG_OP_sum:
          return reduce_with<T>(stream, call, SumPolicy<T>{});
        case DEVPLUG_OP_prod:
          return reduce_with<T>(stream, call, ProdPolicy<T>{});
        case DEVPLUG_OP_argmax:
          return reduce_with<T>(stream, call, ArgPolicy<T, true>{});
        case DEVPLUG_OP_argmin:
          return reduce_with<T>(stream, call, ArgPolicy<T, false>{});
        default:
          break;
      }
      if constexpr (is_float_v<T>) {
        if (call.op == DEVPLUG_OP_var) return run_var<T>(stream, call);
      }
    }
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(devplug_op_name(call.op)) + ": dtype not allowed");
  });
}

void run_scan(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  visit(call.inputs[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>)
      run_scan_typed<T>(stream, call);
    else
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "scans do not take bool");
  });
}

}  // namespace devplug::gpu
