// SPDX-License-Identifier: Apache-2.0
// View metadata: shape checks, storage bounds, overlap tests and the view builders.
//
// Arithmetic that could overflow int64 (products of dims, reach of strides, offsets) is
// done in __int128 and bounded early, so no input can make it wrap.
#include "layout.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace devplug::detail {

Problem problem(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return Problem(text);
}

const char* dtype_name_or(devplug_dtype_t dtype) {
  const char* name = devplug_dtype_name(dtype);
  return name ? name : "unknown";
}

namespace {

using Wide = __int128;

constexpr int64_t kInt64Max = INT64_MAX;
constexpr int64_t kInt64Min = INT64_MIN;

bool fits_int64(Wide v) { return v >= kInt64Min && v <= kInt64Max; }

// Wraps a possibly negative dim into [0, rank); PyTorch lets a 0-d tensor take dim 0 or
// -1 where `scalar_as_one` says so. Returns false when out of range.
bool wrap_dim(int64_t dim, int32_t rank, bool scalar_as_one, int32_t* out) {
  int64_t extent = (rank == 0 && scalar_as_one) ? 1 : rank;
  if (dim < -extent || dim >= extent) return false;
  *out = static_cast<int32_t>(dim < 0 ? dim + extent : dim);
  return true;
}

Problem bad_dim(const char* what, int64_t dim, int32_t rank) {
  return problem("%s is %lld, out of range for rank %d (expected [%d, %d))", what,
                 static_cast<long long>(dim), rank, -rank, rank);
}

// The product of the first `rank` dims (all >= 0), or -1 when it does not fit in int64, or
// when the product of its non-zero dims does not: an empty shape such as [0, 2^62, 8] has
// no element, but its dense strides, and every partial product of its dims, would overflow.
int64_t checked_product(int32_t rank, const int64_t* shape) {
  Wide product = 1;
  bool empty = false;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] == 0)
      empty = true;
    else
      product *= shape[d];
    if (product > kInt64Max) return -1;
  }
  return empty ? 0 : static_cast<int64_t>(product);
}

// Copies the first `rank` dims of shape and strides into `out`, zeroing the rest.
void set_dims(Layout* out, int32_t rank, const int64_t* shape, const int64_t* strides) {
  Layout result;
  result.dtype = out->dtype;
  result.offset = out->offset;
  result.rank = rank;
  for (int32_t d = 0; d < rank; ++d) {
    result.shape[d] = shape[d];
    result.strides[d] = strides[d];
  }
  *out = result;
}

}  // namespace

Problem check_shape(int32_t rank, const int64_t* shape, devplug_dtype_t dtype, const char* what) {
  if (rank < 0 || rank > DEVPLUG_MAX_RANK)
    return problem("%s has rank %d, expected [0, %d]", what, rank, DEVPLUG_MAX_RANK);
  if (rank > 0 && shape == nullptr) return problem("%s is NULL with rank %d", what, rank);
  for (int32_t d = 0; d < rank; ++d)
    if (shape[d] < 0)
      return problem("%s[%d] is %lld, dims must be >= 0", what, d, static_cast<long long>(shape[d]));
  size_t element_size = devplug_dtype_size(dtype);
  if (element_size == 0) return problem("dtype %d is not a known dtype", dtype);
  int64_t count = checked_product(rank, shape);
  if (count < 0)
    return problem("%s: the element count, or the product of its non-zero dims, overflows int64", what);
  if (static_cast<Wide>(count) * static_cast<Wide>(element_size) > kInt64Max)
    return problem("%s: the size in bytes (%lld elements of %s) overflows int64", what,
                   static_cast<long long>(count), dtype_name_or(dtype));
  return Problem();
}

Layout contiguous_layout(devplug_dtype_t dtype, int32_t rank, const int64_t* shape) {
  Layout l;
  l.dtype = dtype;
  l.rank = rank;
  int64_t stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    l.shape[d] = shape[d];
    l.strides[d] = stride;
    // As PyTorch: a size-0 dim does not zero the strides of the dims before it.
    stride *= std::max<int64_t>(shape[d], 1);
  }
  return l;
}

int64_t numel(const Layout& l) {
  int64_t count = 1;
  for (int32_t d = 0; d < l.rank; ++d) count *= l.shape[d];
  return count;
}

bool is_contiguous(const Layout& l) {
  if (numel(l) == 0) return true;
  int64_t expected = 1;
  for (int32_t d = l.rank - 1; d >= 0; --d) {
    if (l.shape[d] == 1) continue;
    if (l.strides[d] != expected) return false;
    expected *= l.shape[d];
  }
  return true;
}

bool element_range(const Layout& l, int64_t* out_lo, int64_t* out_hi) {
  Wide lo = l.offset;
  Wide hi = l.offset;
  for (int32_t d = 0; d < l.rank; ++d) {
    if (l.shape[d] == 0) return false;
    Wide reach = static_cast<Wide>(l.shape[d] - 1) * l.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  *out_lo = static_cast<int64_t>(lo);
  *out_hi = static_cast<int64_t>(hi);
  return true;
}

Problem check_in_storage(const Layout& l, uint64_t storage_bytes, const char* what) {
  size_t element_size = devplug_dtype_size(l.dtype);
  if (element_size == 0) return problem("%s: dtype %d is not a known dtype", what, l.dtype);
  if (l.rank < 0 || l.rank > DEVPLUG_MAX_RANK)
    return problem("%s: rank is %d, expected [0, %d]", what, l.rank, DEVPLUG_MAX_RANK);
  for (int32_t d = 0; d < l.rank; ++d) {
    if (l.shape[d] < 0)
      return problem("%s: shape[%d] is %lld, dims must be >= 0", what, d, static_cast<long long>(l.shape[d]));
    if (l.shape[d] == 0) return Problem();  // an empty view reaches nothing
  }
  // lo only falls and hi only rises, so once either leaves the int64 range (a storage
  // holds fewer than 2^63 bytes) the view is out; stopping there keeps __int128 exact.
  const Wide limit = static_cast<Wide>(kInt64Max);
  Wide lo = l.offset;
  Wide hi = l.offset;
  for (int32_t d = 0; d < l.rank; ++d) {
    Wide reach = static_cast<Wide>(l.shape[d] - 1) * l.strides[d];
    (reach < 0 ? lo : hi) += reach;
    if (lo < -limit || hi > limit) break;
  }
  // hi may be near 2^126 when the loop stopped early: multiply only once it is in range.
  if (lo < 0 || hi > limit || (hi + 1) * static_cast<Wide>(element_size) > static_cast<Wide>(storage_bytes)) {
    return problem(
        "%s: elements %lld..%lld of %s (%zu bytes each) fall outside a storage of %llu "
        "bytes",
        what, static_cast<long long>(lo < -limit ? -limit : lo),
        static_cast<long long>(hi > limit ? limit : hi), dtype_name_or(l.dtype), element_size,
        static_cast<unsigned long long>(storage_bytes));
  }
  return Problem();
}

bool overlaps_itself(const Layout& l) {
  // Dims that take more than one value, sorted by |stride|.
  int64_t sizes[DEVPLUG_MAX_RANK];
  Wide strides[DEVPLUG_MAX_RANK];
  int n = 0;
  for (int32_t d = 0; d < l.rank; ++d) {
    if (l.shape[d] == 0) return false;  // nothing is reached at all
    if (l.shape[d] == 1) continue;
    Wide stride = l.strides[d] < 0 ? -static_cast<Wide>(l.strides[d]) : l.strides[d];
    if (stride == 0) return true;
    int k = n++;
    while (k > 0 && strides[k - 1] > stride) {
      strides[k] = strides[k - 1];
      sizes[k] = sizes[k - 1];
      --k;
    }
    strides[k] = stride;
    sizes[k] = l.shape[d];
  }
  // Each dim must step over everything the smaller dims reach; otherwise two indices may
  // meet (we answer true without proving it, as the contract allows).
  Wide reach = 0;
  const Wide beyond_any_stride = Wide(1) << 64;  // no |stride| reaches this
  for (int k = 0; k < n; ++k) {
    if (strides[k] <= reach) return true;
    reach += strides[k] * (sizes[k] - 1);
    if (reach >= beyond_any_stride) return k + 1 < n;  // stop before __int128 could wrap
  }
  return false;
}

bool may_overlap(const Layout& a, const Layout& b) {
  int64_t a_lo, a_hi, b_lo, b_hi;
  if (!element_range(a, &a_lo, &a_hi) || !element_range(b, &b_lo, &b_hi)) return false;
  Wide a_size = static_cast<Wide>(devplug_dtype_size(a.dtype));
  Wide b_size = static_cast<Wide>(devplug_dtype_size(b.dtype));
  Wide a_begin = a_lo * a_size, a_end = (a_hi + Wide(1)) * a_size;
  Wide b_begin = b_lo * b_size, b_end = (b_hi + Wide(1)) * b_size;
  return a_begin < b_end && b_begin < a_end;
}

bool same_view(const Layout& a, const Layout& b) {
  if (a.dtype != b.dtype || a.rank != b.rank || a.offset != b.offset) return false;
  for (int32_t d = 0; d < a.rank; ++d)
    if (a.shape[d] != b.shape[d] || a.strides[d] != b.strides[d]) return false;
  return true;
}

Problem view_reshape(const Layout& in, int32_t rank, const int64_t* shape, Layout* out) {
  if (rank < 0 || rank > DEVPLUG_MAX_RANK)
    return problem("rank is %d, expected [0, %d]", rank, DEVPLUG_MAX_RANK);
  if (rank > 0 && shape == nullptr) return problem("shape is NULL with rank %d", rank);

  // Infer the -1 dim (at most one), as PyTorch's infer_size.
  const int64_t count = numel(in);
  int64_t new_shape[DEVPLUG_MAX_RANK] = {};
  int32_t inferred = -1;
  Wide known = 1;  // product of the given dims, saturating above int64
  bool has_zero = false;
  for (int32_t d = 0; d < rank; ++d) {
    new_shape[d] = shape[d];
    if (shape[d] == -1) {
      if (inferred >= 0) return problem("shape[%d] and shape[%d] are both -1", inferred, d);
      inferred = d;
    } else if (shape[d] < 0) {
      return problem("shape[%d] is %lld, dims must be >= 0 (or -1 to infer)", d,
                     static_cast<long long>(shape[d]));
    } else if (shape[d] == 0) {
      has_zero = true;
    } else if (known <= kInt64Max) {
      known *= shape[d];
    }
  }
  if (has_zero) known = 0;
  if (inferred >= 0) {
    if (known == 0)
      return problem("shape[%d] is -1 beside a 0 dim: any size fits, so it cannot be inferred", inferred);
    if (known > kInt64Max || count % static_cast<int64_t>(known) != 0)
      return problem("shape does not fit %lld elements for any value of shape[%d]",
                     static_cast<long long>(count), inferred);
    new_shape[inferred] = count / static_cast<int64_t>(known);
    known = count;
  }
  if (known != count)
    return problem("shape has a different element count than the tensor's %lld elements",
                   static_cast<long long>(count));
  if (checked_product(rank, new_shape) < 0)
    return problem("shape: its non-zero dims multiply past int64 (the strides would overflow)");

  // PyTorch's computeStride: walk the old dims from the end in chunks that are contiguous
  // among themselves; each chunk must be made of whole new dims.
  int64_t new_strides[DEVPLUG_MAX_RANK] = {};
  if (in.rank == 0) {
    for (int32_t d = 0; d < rank; ++d) new_strides[d] = 1;
  } else if (count == 0) {
    bool same = in.rank == rank && std::equal(in.shape, in.shape + rank, new_shape);
    if (same) {
      std::copy(in.strides, in.strides + rank, new_strides);
    } else {
      Layout dense = contiguous_layout(in.dtype, rank, new_shape);
      std::copy(dense.strides, dense.strides + rank, new_strides);
    }
  } else {
    int32_t view_d = rank - 1;
    Wide chunk_base_stride = in.strides[in.rank - 1];
    Wide tensor_numel = 1;
    Wide view_numel = 1;
    for (int32_t tensor_d = in.rank - 1; tensor_d >= 0; --tensor_d) {
      tensor_numel *= in.shape[tensor_d];
      bool chunk_ends = tensor_d == 0 || (in.shape[tensor_d - 1] != 1 &&
                                          in.strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
      if (!chunk_ends) continue;
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        Wide stride = view_numel * chunk_base_stride;
        new_strides[view_d] = fits_int64(stride) ? static_cast<int64_t>(stride) : 1;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel)
        return problem("shape cannot be a view of these strides; copy the tensor first");
      if (tensor_d > 0) {
        chunk_base_stride = in.strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
    if (view_d != -1) return problem("shape cannot be a view of these strides; copy the tensor first");
  }
  Layout result = in;
  set_dims(&result, rank, new_shape, new_strides);
  *out = result;
  return Problem();
}

Problem view_permute(const Layout& in, const int32_t* dims, Layout* out) {
  if (in.rank > 0 && dims == nullptr) return problem("dims is NULL with rank %d", in.rank);
  bool seen[DEVPLUG_MAX_RANK] = {};
  int64_t shape[DEVPLUG_MAX_RANK], strides[DEVPLUG_MAX_RANK];
  for (int32_t k = 0; k < in.rank; ++k) {
    int32_t d;
    if (!wrap_dim(dims[k], in.rank, false, &d)) {
      char what[24];
      std::snprintf(what, sizeof(what), "dims[%d]", k);
      return bad_dim(what, dims[k], in.rank);
    }
    if (seen[d]) return problem("dims[%d] is %d, a dim named twice: dims is not a permutation", k, dims[k]);
    seen[d] = true;
    shape[k] = in.shape[d];
    strides[k] = in.strides[d];
  }
  Layout result = in;
  set_dims(&result, in.rank, shape, strides);
  *out = result;
  return Problem();
}

Problem view_transpose(const Layout& in, int32_t dim0, int32_t dim1, Layout* out) {
  int32_t d0, d1;
  if (!wrap_dim(dim0, in.rank, true, &d0)) return bad_dim("dim0", dim0, in.rank);
  if (!wrap_dim(dim1, in.rank, true, &d1)) return bad_dim("dim1", dim1, in.rank);
  Layout result = in;
  if (in.rank > 0) {
    std::swap(result.shape[d0], result.shape[d1]);
    std::swap(result.strides[d0], result.strides[d1]);
  }
  *out = result;
  return Problem();
}

Problem view_expand(const Layout& in, int32_t rank, const int64_t* shape, Layout* out) {
  if (rank < 0 || rank > DEVPLUG_MAX_RANK)
    return problem("rank is %d, expected [0, %d]", rank, DEVPLUG_MAX_RANK);
  if (rank < in.rank)
    return problem("rank is %d, below the tensor's rank %d: expand cannot remove dims", rank, in.rank);
  if (rank > 0 && shape == nullptr) return problem("shape is NULL with rank %d", rank);
  int64_t new_shape[DEVPLUG_MAX_RANK], new_strides[DEVPLUG_MAX_RANK];
  const int32_t added = rank - in.rank;
  for (int32_t d = 0; d < rank; ++d) {
    int64_t target = shape[d];
    if (d < added) {
      if (target < 0)
        return problem("shape[%d] is %lld: a new leading dim needs a size >= 0", d,
                       static_cast<long long>(target));
      new_shape[d] = target;
      new_strides[d] = 0;
      continue;
    }
    int32_t old_d = d - added;
    int64_t size = in.shape[old_d];
    if (target == -1 || target == size) {
      new_shape[d] = size;
      new_strides[d] = in.strides[old_d];
    } else if (target < 0) {
      return problem("shape[%d] is %lld, dims must be >= 0 (or -1 to keep)", d,
                     static_cast<long long>(target));
    } else if (size == 1) {
      new_shape[d] = target;
      new_strides[d] = 0;
    } else {
      return problem(
          "shape[%d] is %lld but the tensor's dim %d has size %lld; only size-1 "
          "dims expand",
          d, static_cast<long long>(target), old_d, static_cast<long long>(size));
    }
  }
  if (checked_product(rank, new_shape) < 0) return problem("shape: the element count overflows int64");
  Layout result = in;
  set_dims(&result, rank, new_shape, new_strides);
  *out = result;
  return Problem();
}

Problem view_slice(const Layout& in, int32_t dim, int64_t start, int64_t stop, int64_t step, Layout* out) {
  int32_t d;
  if (!wrap_dim(dim, in.rank, false, &d)) return bad_dim("dim", dim, in.rank);
  if (step == 0) return problem("step is 0");
  // Python's PySlice_AdjustIndices, in wide arithmetic so INT64_MIN/MAX are fine.
  const Wide length = in.shape[d];
  auto adjust = [&](Wide index) -> Wide {
    if (index < 0) {
      index += length;
      if (index < 0) index = step < 0 ? -1 : 0;
    } else if (index >= length) {
      index = step < 0 ? length - 1 : length;
    }
    return index;
  };
  Wide first = adjust(start);
  Wide last = adjust(stop);
  Wide wide_step = step;
  Wide count = 0;
  if (step < 0) {
    if (last < first) count = (first - last - 1) / -wide_step + 1;
  } else {
    if (first < last) count = (last - first - 1) / wide_step + 1;
  }
  Layout result = in;
  result.shape[d] = static_cast<int64_t>(count);
  Wide stride = static_cast<Wide>(in.strides[d]) * wide_step;
  // A dim of size 0 or 1 never uses its stride, so an unrepresentable one is not kept.
  result.strides[d] = fits_int64(stride) ? static_cast<int64_t>(stride) : in.strides[d];
  Wide offset = in.offset + (first < 0 ? 0 : first) * static_cast<Wide>(in.strides[d]);
  if (fits_int64(offset)) result.offset = static_cast<int64_t>(offset);  // as PyTorch, even when empty
  *out = result;
  return Problem();
}

Problem view_squeeze(const Layout& in, int32_t dim, Layout* out) {
  int32_t d;
  if (!wrap_dim(dim, in.rank, true, &d)) return bad_dim("dim", dim, in.rank);
  if (in.rank == 0) {  // PyTorch: squeezing a 0-d tensor gives it back
    *out = in;
    return Problem();
  }
  if (in.shape[d] != 1)
    return problem("dim %d has size %lld; only a size-1 dim can be squeezed", dim,
                   static_cast<long long>(in.shape[d]));
  int64_t shape[DEVPLUG_MAX_RANK], strides[DEVPLUG_MAX_RANK];
  int32_t k = 0;
  for (int32_t i = 0; i < in.rank; ++i) {
    if (i == d) continue;
    shape[k] = in.shape[i];
    strides[k] = in.strides[i];
    ++k;
  }
  Layout result = in;
  set_dims(&result, in.rank - 1, shape, strides);
  *out = result;
  return Problem();
}

Problem view_unsqueeze(const Layout& in, int32_t dim, Layout* out) {
  if (in.rank >= DEVPLUG_MAX_RANK)
    return problem("the tensor already has rank %d, the most a tensor may have", in.rank);
  int32_t d;
  if (!wrap_dim(dim, in.rank + 1, false, &d)) return bad_dim("dim", dim, in.rank + 1);
  int64_t shape[DEVPLUG_MAX_RANK], strides[DEVPLUG_MAX_RANK];
  for (int32_t i = 0, k = 0; i <= in.rank; ++i) {
    if (i == d) {
      // PyTorch's choice: the stride that keeps the new dim "contiguous" with the next one.
      Wide stride = d >= in.rank ? 1 : static_cast<Wide>(in.shape[d]) * in.strides[d];
      shape[i] = 1;
      strides[i] = fits_int64(stride) ? static_cast<int64_t>(stride) : 1;
    } else {
      shape[i] = in.shape[k];
      strides[i] = in.strides[k];
      ++k;
    }
  }
  Layout result = in;
  set_dims(&result, in.rank + 1, shape, strides);
  *out = result;
  return Problem();
}

Problem view_diagonal(const Layout& in, int64_t offset, int32_t dim0, int32_t dim1, Layout* out) {
  if (in.rank < 2) return problem("the tensor has rank %d; diagonal needs rank >= 2", in.rank);
  int32_t d0, d1;
  if (!wrap_dim(dim0, in.rank, false, &d0)) return bad_dim("dim0", dim0, in.rank);
  if (!wrap_dim(dim1, in.rank, false, &d1)) return bad_dim("dim1", dim1, in.rank);
  if (d0 == d1) return problem("dim0 and dim1 both name dim %d; they must differ", d0);
  const Wide size0 = in.shape[d0], size1 = in.shape[d1], wide_offset = offset;
  Wide length = offset >= 0 ? std::min(size0, size1 - wide_offset) : std::min(size0 + wide_offset, size1);
  if (length < 0) length = 0;
  Wide storage_offset = in.offset;
  if (length > 0) {
    storage_offset += offset >= 0 ? wide_offset * in.strides[d1] : -wide_offset * in.strides[d0];
  }
  Wide stride = static_cast<Wide>(in.strides[d0]) + in.strides[d1];
  int64_t shape[DEVPLUG_MAX_RANK], strides[DEVPLUG_MAX_RANK];
  int32_t k = 0;
  for (int32_t i = 0; i < in.rank; ++i) {
    if (i == d0 || i == d1) continue;
    shape[k] = in.shape[i];
    strides[k] = in.strides[i];
    ++k;
  }
  shape[k] = static_cast<int64_t>(length);
  // In range whenever the diagonal has two or more elements inside the storage.
  strides[k] = fits_int64(stride) ? static_cast<int64_t>(stride) : 1;
  Layout result = in;
  result.offset = static_cast<int64_t>(storage_offset);  // inside the view's own reach
  set_dims(&result, in.rank - 1, shape, strides);
  *out = result;
  return Problem();
}

Problem view_as_strided(const Layout& in, int32_t rank, const int64_t* shape, const int64_t* strides,
                        int64_t storage_offset, uint64_t storage_bytes, Layout* out) {
  Problem p = check_shape(rank, shape, in.dtype, "shape");
  if (!p.empty()) return p;
  if (rank > 0 && strides == nullptr) return problem("strides is NULL with rank %d", rank);
  if (storage_offset < 0)
    return problem("storage_offset is %lld, must be >= 0", static_cast<long long>(storage_offset));
  Layout result = in;
  result.offset = storage_offset;
  set_dims(&result, rank, shape, strides);
  p = check_in_storage(result, storage_bytes, "as_strided view");
  if (!p.empty()) return p;
  *out = result;
  return Problem();
}

}  // namespace devplug::detail
