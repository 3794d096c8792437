// SPDX-License-Identifier: Apache-2.0
// Reference kernels for indexing (index_select, gather, scatter, scatter_add) and shape ops
// (cat, flip, constant_pad).
//
// Index tensors are int64; every index value is checked against [0, size) before anything
// is written, so a bad index gives INVALID_ARGUMENT and leaves the output untouched.
// scatter and scatter_add build the result in a temporary first, so an output that shares
// memory with an input still sees the original input values.
//
// scatter_add defines its float order: each target is
//   round(input + src_1 + src_2 + ...)   with the srcs in row-major order of `index`,
// summed in double (16-bit floats, float32) or long double (float64) and rounded once.
// Integer targets wrap.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "structured_common.hpp"

namespace devplug::reference {
namespace {

using namespace structured;

int32_t checked_dim(const devplug_op_call_t& call, int32_t rank) {
  const int32_t dim = attrs_of<devplug_dim_attrs_t>(call).dim;
  if (dim < 0 || dim >= rank)
    invalid(std::string(devplug_op_name(call.op)) + ": dim " + std::to_string(dim) + " is outside [0, " +
            std::to_string(rank) + ")");
  return dim;
}

// Throws unless every value of the int64 `index` lies in [0, size).
void check_index_values(const devplug_op_call_t& call, const devplug_tensor_desc_t& index, int64_t size) {
  check_dtype(index, DEVPLUG_DTYPE_INT64, "index");
  check_fits(index, "index");
  const int64_t* values = tensor_base<const int64_t>(index);
  sdk::for_each_offset<1>(index.rank, index.shape, {index.strides}, [&](const std::array<int64_t, 1>& at) {
    const int64_t v = values[at[0]];
    if (v < 0 || v >= size)
      invalid(std::string(devplug_op_name(call.op)) + ": index value " + std::to_string(v) +
              " is outside [0, " + std::to_string(size) + ")");
  });
}

// ---- index_select ------------------------------------------------------------------------

template <typename T>
void index_select(const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& index = *call.inputs[1];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const int32_t dim = checked_dim(call, in.rank);
  check_dtype(out, in.dtype, "output");
  if (index.rank != 1) invalid("index_select: index must be 1-D");
  bool shape_ok = out.rank == in.rank;
  for (int32_t d = 0; shape_ok && d < in.rank; ++d)
    shape_ok = out.shape[d] == (d == dim ? index.shape[0] : in.shape[d]);
  if (!shape_ok) invalid("index_select: output shape " + shape_string(out) + " is wrong");
  check_fits(in, "input");
  check_fits(out, "output");
  check_index_values(call, index, in.shape[dim]);
  const T* src = tensor_base<const T>(in);
  const int64_t* picks = tensor_base<const int64_t>(index);
  T* dst = tensor_base<T>(out);
  sdk::for_each_index(out.rank, out.shape, [&](const int64_t* i) {
    int64_t from[DEVPLUG_MAX_RANK];
    for (int32_t d = 0; d < in.rank; ++d) from[d] = i[d];
    from[dim] = picks[i[dim] * index.strides[0]];
    dst[offset_of(out.rank, i, out.strides)] = src[offset_of(in.rank, from, in.strides)];
  });
}

// ---- gather --------------------------------------------------------------------------------

template <typename T>
void gather(const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& index = *call.inputs[1];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const int32_t dim = checked_dim(call, in.rank);
  check_dtype(out, in.dtype, "output");
  if (index.rank != in.rank) invalid("gather: index must have the input's rank");
  if (!same_shape(out, index)) invalid("gather: output must have index's shape");
  for (int32_t d = 0; d < in.rank; ++d)
    if (d != dim && index.shape[d] > in.shape[d])
      invalid("gather: index is larger than the input in dim " + std::to_string(d));
  check_fits(in, "input");
  check_fits(out, "output");
  check_index_values(call, index, in.shape[dim]);
  const T* src = tensor_base<const T>(in);
  const int64_t* picks = tensor_base<const int64_t>(index);
  T* dst = tensor_base<T>(out);
  sdk::for_each_index(out.rank, out.shape, [&](const int64_t* i) {
    int64_t from[DEVPLUG_MAX_RANK];
    for (int32_t d = 0; d < in.rank; ++d) from[d] = i[d];
    from[dim] = picks[offset_of(index.rank, i, index.strides)];
    dst[offset_of(out.rank, i, out.strides)] = src[offset_of(in.rank, from, in.strides)];
  });
}

// ---- scatter and scatter_add -----------------------------------------------------------------

// Row-major position of multi-index `i` in a dense tensor of `shape`.
int64_t linear_of(int32_t rank, const int64_t* i, const int64_t* shape) {
  int64_t k = 0;
  for (int32_t d = 0; d < rank; ++d) k = k * shape[d] + i[d];
  return k;
}

template <typename T, bool kAdd>
void scatter(const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& index = *call.inputs[1];
  const devplug_tensor_desc_t& src = *call.inputs[2];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const char* name = devplug_op_name(call.op);
  const int32_t dim = checked_dim(call, in.rank);
  check_dtype(out, in.dtype, "output");
  check_dtype(src, in.dtype, "src");
  if (!same_shape(out, in)) invalid(std::string(name) + ": output must have the input's shape");
  if (index.rank != in.rank || src.rank != in.rank)
    invalid(std::string(name) + ": index and src must have the input's rank");
  for (int32_t d = 0; d < in.rank; ++d) {
    if (index.shape[d] > src.shape[d])
      invalid(std::string(name) + ": index is larger than src in dim " + std::to_string(d));
    if (d != dim && index.shape[d] > in.shape[d])
      invalid(std::string(name) + ": index is larger than the input in dim " + std::to_string(d));
  }
  check_fits(in, "input");
  check_fits(src, "src");
  check_fits(out, "output");
  check_index_values(call, index, in.shape[dim]);

  // The result in row-major order: exact accumulators for scatter_add, elements otherwise
  // (scatter runs on Storage<T>, so never on bool, which std::vector would pack).
  using Acc = std::conditional_t<!kAdd, T, std::conditional_t<sdk::is_floating_v<T>, wide_t<T>, uint64_t>>;
  auto widen = [](T v) -> Acc {
    if constexpr (!kAdd)
      return static_cast<Acc>(v);
    else if constexpr (sdk::is_floating_v<T>)
      return to_wide(v);
    else
      return to_bits(v);
  };
  std::vector<Acc> result;
  result.reserve(static_cast<size_t>(sdk::numel(in)));
  const T* in_data = tensor_base<const T>(in);
  sdk::for_each_offset<1>(in.rank, in.shape, {in.strides},
                          [&](const std::array<int64_t, 1>& at) { result.push_back(widen(in_data[at[0]])); });

  const T* src_data = tensor_base<const T>(src);
  const int64_t* targets = tensor_base<const int64_t>(index);
  sdk::for_each_index(index.rank, index.shape, [&](const int64_t* i) {
    int64_t to[DEVPLUG_MAX_RANK];
    for (int32_t d = 0; d < in.rank; ++d) to[d] = i[d];
    to[dim] = targets[offset_of(index.rank, i, index.strides)];
    Acc& slot = result[static_cast<size_t>(linear_of(in.rank, to, in.shape))];
    const Acc value = widen(src_data[offset_of(src.rank, i, src.strides)]);
    if constexpr (kAdd)
      slot += value;
    else
      slot = value;
  });

  T* dst = tensor_base<T>(out);
  size_t k = 0;
  sdk::for_each_offset<1>(out.rank, out.shape, {out.strides}, [&](const std::array<int64_t, 1>& at) {
    const Acc v = result[k++];
    if constexpr (!kAdd)
      dst[at[0]] = static_cast<T>(v);
    else if constexpr (sdk::is_floating_v<T>)
      dst[at[0]] = from_wide<T>(v);
    else
      dst[at[0]] = from_bits<T>(v);
  });
}

// ---- cat -----------------------------------------------------------------------------------

template <typename T>
void cat(const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const int32_t dim = checked_dim(call, out.rank);
  int64_t total = 0;
  for (size_t n = 0; n < call.n_inputs; ++n) {
    const devplug_tensor_desc_t& in = *call.inputs[n];
    check_dtype(in, out.dtype, "every input");
    if (in.rank != out.rank) invalid("cat: every input must have the output's rank");
    for (int32_t d = 0; d < out.rank; ++d)
      if (d != dim && in.shape[d] != out.shape[d])
        invalid("cat: input " + std::to_string(n) + " " + shape_string(in) + " does not match the output " +
                shape_string(out) + " outside dim");
    check_fits(in, "input");
    total += in.shape[dim];
  }
  if (total != out.shape[dim]) invalid("cat: output size along dim is not the inputs' sum");
  check_fits(out, "output");
  T* dst = tensor_base<T>(out);
  int64_t start = 0;  // where the current input begins along dim
  for (size_t n = 0; n < call.n_inputs; ++n) {
    const devplug_tensor_desc_t& in = *call.inputs[n];
    const T* src = tensor_base<const T>(in);
    const int64_t base = start * out.strides[dim];
    sdk::for_each_offset<2>(in.rank, in.shape, {in.strides, out.strides},
                            [&](const std::array<int64_t, 2>& at) { dst[base + at[1]] = src[at[0]]; });
    start += in.shape[dim];
  }
}

// ---- flip ----------------------------------------------------------------------------------

// Reads the input through a view that starts at the last element of each flipped dim and
// walks it backwards.
template <typename T>
void flip(const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const uint32_t mask = attrs_of<devplug_flip_attrs_t>(call).dims_mask;
  check_dtype(out, in.dtype, "output");
  if (!same_shape(in, out)) invalid("flip: output shape must equal input shape");
  if (in.rank < 32 && (mask >> in.rank) != 0) invalid("flip: dims_mask names a dim >= rank");
  check_fits(in, "input");
  check_fits(out, "output");
  if (sdk::numel(in) == 0) return;
  int64_t strides[DEVPLUG_MAX_RANK];
  int64_t base = 0;
  for (int32_t d = 0; d < in.rank; ++d) {
    const bool flipped = (mask >> d) & 1u;
    strides[d] = flipped ? -in.strides[d] : in.strides[d];
    if (flipped) base += (in.shape[d] - 1) * in.strides[d];
  }
  const T* src = tensor_base<const T>(in) + base;
  T* dst = tensor_base<T>(out);
  sdk::for_each_offset<2>(in.rank, in.shape, {static_cast<const int64_t*>(strides), out.strides},
                          [&](const std::array<int64_t, 2>& at) { dst[at[1]] = src[at[0]]; });
}

// ---- constant_pad --------------------------------------------------------------------------

template <typename T>
void constant_pad(const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& in = *call.inputs[0];
  const devplug_tensor_desc_t& out = *call.outputs[0];
  const devplug_pad_attrs_t& pad = attrs_of<devplug_pad_attrs_t>(call);
  check_dtype(out, in.dtype, "output");
  if (out.rank != in.rank) invalid("constant_pad: output rank must equal input rank");
  for (int32_t d = 0; d < in.rank; ++d) {
    // __int128: before/after come from the caller and may be anything.
    const __int128 size = static_cast<__int128>(in.shape[d]) + pad.before[d] + pad.after[d];
    if (size < 0 || size != out.shape[d])
      invalid("constant_pad: output dim " + std::to_string(d) + " must be input + before + after >= 0");
  }
  check_fits(in, "input");
  check_fits(out, "output");
  const Storage<T> value = scalar_as<T>(pad.value);
  const Storage<T>* src = tensor_base<const Storage<T>>(in);
  Storage<T>* dst = tensor_base<Storage<T>>(out);
  sdk::for_each_index(out.rank, out.shape, [&](const int64_t* i) {
    int64_t from[DEVPLUG_MAX_RANK];
    bool inside = true;
    for (int32_t d = 0; d < in.rank; ++d) {
      const __int128 at = static_cast<__int128>(i[d]) - pad.before[d];  // before may be huge
      inside = inside && at >= 0 && at < in.shape[d];
      from[d] = inside ? static_cast<int64_t>(at) : 0;
    }
    dst[offset_of(out.rank, i, out.strides)] = inside ? src[offset_of(in.rank, from, in.strides)] : value;
  });
}

// These move elements without reading their values, so they run on Storage<T>: a bool's byte
// moves as it is (buffer.hpp), and only constant_pad's scalar is taken as T.
DEVPLUG_STRUCTURED_KERNEL(index_select_kernel, DEVPLUG_OP_index_select, (index_select<Storage<T>>(c)))
DEVPLUG_STRUCTURED_KERNEL(gather_kernel, DEVPLUG_OP_gather, (gather<Storage<T>>(c)))
DEVPLUG_STRUCTURED_KERNEL(scatter_kernel, DEVPLUG_OP_scatter, (scatter<Storage<T>, false>(c)))
DEVPLUG_STRUCTURED_KERNEL(scatter_add_kernel, DEVPLUG_OP_scatter_add, (scatter<T, true>(c)))
DEVPLUG_STRUCTURED_KERNEL(cat_kernel, DEVPLUG_OP_cat, (cat<Storage<T>>(c)))
DEVPLUG_STRUCTURED_KERNEL(flip_kernel, DEVPLUG_OP_flip, (flip<Storage<T>>(c)))
DEVPLUG_STRUCTURED_KERNEL(constant_pad_kernel, DEVPLUG_OP_constant_pad, (constant_pad<T>(c)))

}  // namespace

void register_index_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_index_select, &index_select_kernel);
  add_kernel(table, DEVPLUG_OP_gather, &gather_kernel);
  add_kernel(table, DEVPLUG_OP_scatter, &scatter_kernel);
  add_kernel(table, DEVPLUG_OP_scatter_add, &scatter_add_kernel);
  add_kernel(table, DEVPLUG_OP_cat, &cat_kernel);
  add_kernel(table, DEVPLUG_OP_flip, &flip_kernel);
  add_kernel(table, DEVPLUG_OP_constant_pad, &constant_pad_kernel);
}

}  // namespace devplug::reference
