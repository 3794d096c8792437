// SPDX-License-Identifier: Apache-2.0
// Indexing and shape ops (ops.def INDEX and SHAPE): index_select, gather, scatter,
// scatter_add, cat, flip and constant_pad. cat and flip are copies between views (flip reads
// the input through negated strides); the others walk the output (or the index) in row-major
// order. An index outside [0, size) cannot reach memory: gathers read 0 and scatters skip it,
// and the kernel records it in the stream's index status block (sdk/index_status.hpp), which
// the plugin reports as INVALID_ARGUMENT at the stream's next synchronize.
#include <type_traits>

#include "elementwise.cuh"
#include "gpu_ops.hpp"

namespace devplug::gpu {
namespace {

// Records a bad index in the status block: the first thread to claim the block by a
// compare-and-swap of its 32-bit `op` word writes the value and size.
GPU_D inline void report_bad_index(int64_t* status, int32_t op, int64_t value, int64_t size) {
  if (atomicCAS(reinterpret_cast<int*>(status), 0, static_cast<int>(op)) == 0) {
    status[1] = value;
    status[2] = size;
  }
}

struct GatherGeometry {
  Layout out;    // the output: shape and strides
  Layout in;     // input strides over out's dims (dim's stride applied to the index value)
  Layout index;  // index strides over out's dims (index_select: only `dim` non-zero)
  int32_t dim;
  int32_t op;        // reported with a bad index
  int64_t dim_size;  // input.shape[dim]
};

template <typename T, typename Index>
__global__ void gather_kernel(T* out, const T* in, const int64_t* index, GatherGeometry g, Index n,
                              int64_t* status) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index k = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    Index rest = k, o = 0, x = 0, ix = 0;
    for (int32_t d = g.out.rank - 1; d >= 0; --d) {
      const Index size = static_cast<Index>(g.out.shape[d]);
      const Index c = rest % size;
      rest /= size;
      o += c * static_cast<Index>(g.out.strides[d]);
      ix += c * static_cast<Index>(g.index.strides[d]);
      if (d != g.dim) x += c * static_cast<Index>(g.in.strides[d]);
    }
    const int64_t i = index[ix];
    const bool valid = i >= 0 && i < g.dim_size;
    if (!valid) report_bad_index(status, g.op, i, g.dim_size);
    out[o] = valid ? in[x + static_cast<Index>(i) * static_cast<Index>(g.in.strides[g.dim])] : T{};
  }
}

struct ScatterGeometry {
  Layout index;  // index shape and strides
  Layout src;    // src strides over index's dims
  Layout out;    // out strides over index's dims (dim's stride applied to the index value)
  int32_t dim;
  int32_t op;        // reported with a bad index
  int64_t dim_size;  // out.shape[dim]
};

// Adds `v` to *addr atomically. float goes through a compare-and-swap on its bits, because
// NVIDIA's float atomicAdd flushes subnormal inputs and results to zero (PTX atom.add.f32);
// double, int32 and int64 use atomicAdd; 8- and 16-bit integers a compare-and-swap on the
// aligned 32-bit word around them, which stays inside the buffer because buffers are
// allocated in whole 32-bit words (gpu_runtime.cpp). Integers wrap.
template <typename T>
GPU_D inline void atomic_add(T* addr, T v) {
  if constexpr (std::is_same_v<T, float>) {
    unsigned int* word = reinterpret_cast<unsigned int*>(addr);
    unsigned old = gpu_load_relaxed(word), assumed;
    do {
      assumed = old;
      old = atomicCAS(word, assumed, float_bits(bits_float(assumed) + v));
    } while (assumed != old);
  } else if constexpr (std::is_same_v<T, double>) {
    atomicAdd(addr, v);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    atomicAdd(reinterpret_cast<int*>(addr), static_cast<int>(v));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  } else {
    static_assert(is_int_v<T> && sizeof(T) <= 2, "16-bit floats are added in float32");
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    unsigned int* word = reinterpret_cast<unsigned int*>(a & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(a & 3u) * 8u;
    const unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned old = gpu_load_relaxed(word), assumed;
    do {
      assumed = old;
      const unsigned sum = ((assumed & mask) >> shift) + static_cast<unsigned>(v);  // wraps in the field
      old = atomicCAS(word, assumed, (assumed & ~mask) | ((sum << shift) & mask));
    } while (assumed != old);
  }
}

// scatter stores src into out, scatter_add adds it. `out` holds Acc: T itself, or float32
// for scatter_add of float16/bfloat16, which adds into a float32 copy of the output and
// rounds once at the end, as every 16-bit float op does.
template <typename T, typename Acc, bool kAdd>
__global__ void scatter_kernel(Acc* out, const T* src, const int64_t* index, ScatterGeometry g, int64_t n,
                               int64_t* status) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    int64_t rest = k, ix = 0, sx = 0, o = 0;
    for (int32_t d = g.index.rank - 1; d >= 0; --d) {
      const int64_t c = rest % g.index.shape[d];
      rest /= g.index.shape[d];
      ix += c * g.index.strides[d];
      sx += c * g.src.strides[d];
      if (d != g.dim) o += c * g.out.strides[d];
    }
    const int64_t i = index[ix];
    if (i < 0 || i >= g.dim_size) {
      report_bad_index(status, g.op, i, g.dim_size);
      continue;
    }
    o += i * g.out.strides[g.dim];
    if constexpr (kAdd)
      atomic_add(out + o, static_cast<Acc>(to_compute(src[sx])));
    else
      out[o] = src[sx];
  }
}

template <typename T>
struct Widen {
  GPU_D float operator()(T v) const { return to_compute(v); }
};
template <typename T>
struct Narrow {
  GPU_D T operator()(float v) const { return from_compute<T>(v); }
};

struct PadGeometry {
  Layout out;
  Layout in;  // input shape and strides
  int64_t before[DEVPLUG_MAX_RANK];
};

template <typename T>
__global__ void pad_kernel(T* out, const T* in, PadGeometry g, int64_t n, T value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    int64_t rest = k, o = 0, x = 0;
    bool inside = true;
    for (int32_t d = g.out.rank - 1; d >= 0; --d) {
      const int64_t c = rest % g.out.shape[d];
      rest /= g.out.shape[d];
      o += c * g.out.strides[d];
      const int64_t i = c - g.before[d];
      inside = inside && i >= 0 && i < g.in.shape[d];
      x += i * g.in.strides[d];
    }
    out[o] = inside ? in[x] : value;
  }
}

template <typename T>
void run_gather_like(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& index = *call.inputs[1];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  sdk::check_argument(index.dtype == DEVPLUG_DTYPE_INT64, "index tensors must be int64");
  const int32_t dim = static_cast<const devplug_dim_attrs_t*>(call.attrs)->dim;
  sdk::check_argument(dim >= 0 && dim < in.rank && out.rank == in.rank, "index op: dim out of range");
  GatherGeometry g{};
  g.out = pack_layout(out);
  g.in = pack_layout(in);
  g.index = Layout{};
  g.index.rank = out.rank;
  if (call.op == DEVPLUG_OP_index_select) {
    sdk::check_argument(index.rank == 1, "index_select: index must be 1-D");
    g.index.strides[dim] = index.strides[0];
  } else {
    sdk::check_argument(index.rank == out.rank, "gather: index rank differs");
    for (int32_t d = 0; d < out.rank; ++d) g.index.strides[d] = index.strides[d];
  }
  for (int32_t d = 0; d < out.rank; ++d) g.index.shape[d] = out.shape[d];
  g.dim = dim;
  g.op = call.op;
  g.dim_size = in.shape[dim];
  const int64_t n = layout_numel(g.out);
  if (n == 0) return;
  use_device(s->device);
  int64_t* status = index_status(s);
  T* o = static_cast<T*>(tensor_data(out));
  const T* x = static_cast<const T*>(tensor_data(in));
  const int64_t* ix = static_cast<const int64_t*>(tensor_data(index));
  const LaunchConfig c = launch_1d(n);
  Layout all[2] = {g.out, g.index};
  const char* what = devplug_op_name(call.op);
  if (fits_int32(all, 2) && layout_extent(pack_layout(in)) < kInt32Limit)
    launch(what, gather_kernel<T, int32_t>, c.blocks, c.threads, s->stream, o, x, ix, g, n, status);
  else
    launch(what, gather_kernel<T, int64_t>, c.blocks, c.threads, s->stream, o, x, ix, g, n, status);
}

template <typename T>
void run_scatter(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& index = *call.inputs[1];
  const devplug_tensor_desc_t& src = *call.inputs[2];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  sdk::check_argument(index.dtype == DEVPLUG_DTYPE_INT64, "index tensors must be int64");
  const int32_t dim = static_cast<const devplug_dim_attrs_t*>(call.attrs)->dim;
  sdk::check_argument(dim >= 0 && dim < out.rank && index.rank == out.rank && src.rank == out.rank,
                      "scatter: dim or ranks out of range");
  const bool add = call.op == DEVPLUG_OP_scatter_add;
  const char* what = devplug_op_name(call.op);
  ScatterGeometry g{};
  g.index = pack_layout(index);
  g.src = pack_layout(src);
  g.out = pack_layout(out);
  g.dim = dim;
  g.op = call.op;
  g.dim_size = out.shape[dim];
  const int64_t n = layout_numel(g.index);
  const T* x = static_cast<const T*>(tensor_data(src));
  const int64_t* ix = static_cast<const int64_t*>(tensor_data(index));
  if constexpr (is_half_v<T>) {
    if (add) {
      // out = round(float32(in) + the sources), through a dense float32 copy in scratch.
      const int64_t count = layout_numel(g.out);
      if (count == 0) return;
      use_device(s->device);
      devplug_buffer_handle_t scratch{s->device,
                                      stream_scratch(s, static_cast<uint64_t>(count) * sizeof(float)),
                                      static_cast<uint64_t>(count) * sizeof(float)};
      devplug_tensor_desc_t wide = out;
      wide.buffer = &scratch;
      wide.byte_offset = 0;
      wide.dtype = DEVPLUG_DTYPE_FLOAT32;
      for (int64_t d = out.rank - 1, step = 1; d >= 0; step *= out.shape[d], --d) wide.strides[d] = step;
      const devplug_tensor_desc_t* from_in[1] = {&in};
      launch_map<float, T>(s, wide, from_in, Widen<T>{}, what);
      if (n > 0) {
        g.out = pack_layout(wide);
        const LaunchConfig c = launch_1d(n);
        launch(what, scatter_kernel<T, float, true>, c.blocks, c.threads, s->stream,
               static_cast<float*>(scratch.ptr), x, ix, g, n, index_status(s));
      }
      const devplug_tensor_desc_t* from_wide[1] = {&wide};
      return launch_map<T, float>(s, out, from_wide, Narrow<T>{}, what);
    }
  }
  copy_strided(s, in, out);
  if (n == 0) return;
  use_device(s->device);
  const LaunchConfig c = launch_1d(n);
  T* o = static_cast<T*>(tensor_data(out));
  if (add) {
    if constexpr (!std::is_same_v<T, bool> &&
                  !is_half_v<T>)  // (bool has no scatter_add; 16-bit floats above)
      launch(what, scatter_kernel<T, T, true>, c.blocks, c.threads, s->stream, o, x, ix, g, n,
             index_status(s));
  } else {
    launch(what, scatter_kernel<T, T, false>, c.blocks, c.threads, s->stream, o, x, ix, g, n,
           index_status(s));
  }
}

template <typename T>
void run_pad(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const auto* a = static_cast<const devplug_pad_attrs_t*>(call.attrs);
  sdk::check_argument(in.rank == out.rank, "constant_pad: ranks differ");
  PadGeometry g{};
  g.out = pack_layout(out);
  g.in = pack_layout(in);
  for (int32_t d = 0; d < in.rank; ++d) g.before[d] = a->before[d];
  const int64_t n = layout_numel(g.out);
  if (n == 0) return;
  use_device(s->device);
  const LaunchConfig c = launch_1d(n);
  launch("constant_pad", pad_kernel<T>, c.blocks, c.threads, s->stream, static_cast<T*>(tensor_data(out)),
         static_cast<const T*>(tensor_data(in)), g, n, from_scalar<T>(a->value.f, a->value.i));
}

void run_cat(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const int32_t dim = static_cast<const devplug_dim_attrs_t*>(call.attrs)->dim;
  sdk::check_argument(dim >= 0 && dim < out.rank, "cat: dim out of range");
  const uint64_t elem = devplug_dtype_size(out.dtype);
  int64_t at = 0;
  for (size_t i = 0; i < call.n_inputs; ++i) {
    const devplug_tensor_desc_t& in = *call.inputs[i];
    sdk::check_argument(in.dtype == out.dtype && in.rank == out.rank, "cat: inputs differ from the output");
    devplug_tensor_desc_t view = out;
    view.shape[dim] = in.shape[dim];
    view.byte_offset = out.byte_offset + static_cast<uint64_t>(at * out.strides[dim]) * elem;
    if (layout_numel(pack_layout(view)) > 0) copy_strided(s, in, view);
    at += in.shape[dim];
  }
}

void run_flip(devplug_stream_handle_t* s, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  if (layout_numel(pack_layout(out)) == 0) return;
  const uint32_t mask = static_cast<const devplug_flip_attrs_t*>(call.attrs)->dims_mask;
  const int64_t elem = static_cast<int64_t>(devplug_dtype_size(in.dtype));
  devplug_tensor_desc_t view = in;  // the input read backwards along every flipped dim
  for (int32_t d = 0; d < in.rank; ++d) {
    if (!(mask & (1u << d))) continue;
    view.byte_offset = static_cast<uint64_t>(static_cast<int64_t>(view.byte_offset) +
                                             (in.shape[d] - 1) * in.strides[d] * elem);
    view.strides[d] = -in.strides[d];
  }
  copy_strided(s, view, out);
}

}  // namespace

void run_index(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  visit(call.inputs[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (call.op) {
      case DEVPLUG_OP_index_select:
      case DEVPLUG_OP_gather:
        return run_gather_like<T>(stream, call);
      case DEVPLUG_OP_scatter:
        return run_scatter<T>(stream, call);
      case DEVPLUG_OP_scatter_add:
        if constexpr (!std::is_same_v<T, bool>) return run_scatter<T>(stream, call);
        break;
      default:
        break;
    }
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(devplug_op_name(call.op)) + ": dtype not allowed");
  });
}

void run_shape(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  switch (call.op) {
    case DEVPLUG_OP_cat:
      return run_cat(stream, call);
    case DEVPLUG_OP_flip:
      return run_flip(stream, call);
    case DEVPLUG_OP_constant_pad:
      return visit(call.inputs[0]->dtype,
                   [&](auto tag) { run_pad<typename decltype(tag)::type>(stream, call); });
    default:
      sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string(devplug_op_name(call.op)) + ": not a shape op");
  }
}

}  // namespace devplug::gpu
