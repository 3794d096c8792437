// SPDX-License-Identifier: Apache-2.0
// View metadata of host tensors: shape checks, bounds, overlap and the view builders
// (reshape, permute, transpose, expand, slice, squeeze, unsqueeze, diagonal, as_strided).
//
// Pure, thread-safe functions in namespace devplug::detail: no plugin calls, no globals.
// They allocate only to build an error message. A `Problem` is empty on success, otherwise
// the full message of an INVALID_ARGUMENT error naming the argument ("shape[1] is -3").
// Semantics follow devplug.h and PyTorch; dims may be negative and count from the end.
#ifndef DEVPLUG_DISPATCHER_LAYOUT_HPP_
#define DEVPLUG_DISPATCHER_LAYOUT_HPP_

#include <cstdint>
#include <string>

#include "devplug/ops.h"
#include "devplug/types.h"

namespace devplug::detail {

// A view's metadata; the identity of its storage is kept elsewhere. Strides and offset
// count elements. Entries past `rank` are zero.
struct Layout {
  devplug_dtype_t dtype = DEVPLUG_DTYPE_FLOAT32;
  int32_t rank = 0;
  int64_t shape[DEVPLUG_MAX_RANK] = {};
  int64_t strides[DEVPLUG_MAX_RANK] = {};  // elements
  int64_t offset = 0;                      // storage offset, elements
};

// Empty when all is well, otherwise the message of an INVALID_ARGUMENT error.
using Problem = std::string;

// Builds a Problem from a printf format (messages up to 511 bytes); called only on failure,
// so the valid paths never allocate. Shared by layout.cpp and validate.cpp.
Problem problem(const char* format, ...) __attribute__((format(printf, 1, 2)));

// The dtype's name, or "unknown" for a value outside the enum (for messages).
const char* dtype_name_or(devplug_dtype_t dtype);

// Checks a shape a tensor is made with: rank in [0, DEVPLUG_MAX_RANK], `shape` non-null
// when rank > 0, every dim >= 0, a known dtype, and numel and numel * element size fit in
// int64. `what` names the argument in the message ("shape").
Problem check_shape(int32_t rank, const int64_t* shape, devplug_dtype_t dtype, const char* what);

// Returns the row-major contiguous layout of `shape` with offset 0. The shape must have
// passed check_shape.
Layout contiguous_layout(devplug_dtype_t dtype, int32_t rank, const int64_t* shape);

// Returns the product of the shape (1 for rank 0).
int64_t numel(const Layout& l);

// True when the layout is row-major dense: strides of contiguous_layout, ignoring the
// strides of size-1 dims (PyTorch's definition). An empty view is contiguous.
bool is_contiguous(const Layout& l);

// Writes the smallest and largest storage element index the view reaches (offset
// included). Returns false, writing nothing, when the view is empty. The view must lie in
// its storage (check_in_storage), which keeps the arithmetic in range.
bool element_range(const Layout& l, int64_t* out_lo, int64_t* out_hi);

// Checks that every reachable element of `l` lies inside a storage of `storage_bytes`
// bytes. The arithmetic cannot overflow, whatever the shape, strides and offset. An
// empty view always passes. `what` names the tensor in the message.
Problem check_in_storage(const Layout& l, uint64_t storage_bytes, const char* what);

// True when two distinct indices of `l` reach one element. Exact for layouts whose dims,
// sorted by |stride|, each step over everything the smaller dims reach (all ordinary
// views); says true when unsure.
bool overlaps_itself(const Layout& l);

// True when two views of one storage could share a byte (their byte ranges intersect).
// Empty views share nothing.
bool may_overlap(const Layout& a, const Layout& b);

// True when dtype, rank, shape, strides (of the first `rank` dims) and offset all match.
bool same_view(const Layout& a, const Layout& b);

// The view builders. Each writes `*out` only on success and returns the Problem
// otherwise; `in` must lie in its storage. `out` may be `&in`.

// Reshapes to `shape` (one dim may be -1, inferred) when the strides allow a view, as
// PyTorch's view(): contiguous chunks of dims can be merged and split; otherwise asks for
// a copy.
Problem view_reshape(const Layout& in, int32_t rank, const int64_t* shape, Layout* out);
// Reorders the dims: out dim k is in dim dims[k]; `dims` is a permutation of [0, rank).
Problem view_permute(const Layout& in, const int32_t* dims, Layout* out);
// Swaps two dims.
Problem view_transpose(const Layout& in, int32_t dim0, int32_t dim1, Layout* out);
// Broadcasts to `shape` (PyTorch expand): new dims are prepended with stride 0, size-1
// dims get stride 0, -1 keeps a dim, other dims must match.
Problem view_expand(const Layout& in, int32_t rank, const int64_t* shape, Layout* out);
// Elements start, start+step, ... before stop along `dim`, Python slice rules (negative
// start/stop count from the end, then clamp). A negative step walks backward from start
// and gives a negative stride. step != 0.
Problem view_slice(const Layout& in, int32_t dim, int64_t start, int64_t stop, int64_t step, Layout* out);
// Removes `dim`, which must have size 1.
Problem view_squeeze(const Layout& in, int32_t dim, Layout* out);
// Inserts a size-1 dim before position `dim` in [-rank-1, rank]; its stride is
// shape[dim] * strides[dim] of the dim after it (1 at the end), as PyTorch.
Problem view_unsqueeze(const Layout& in, int32_t dim, Layout* out);
// The diagonal of dims dim0 != dim1 with `offset` (above the main diagonal when > 0):
// both dims are removed and the diagonal, with stride s0 + s1, is appended last.
Problem view_diagonal(const Layout& in, int64_t offset, int32_t dim0, int32_t dim1, Layout* out);
// Any view of the storage: `shape` (dims >= 0), `strides` (elements; zero or negative
// allowed) and `storage_offset` (elements, >= 0); every reachable element must lie in
// `storage_bytes`. The dtype is kept.
Problem view_as_strided(const Layout& in, int32_t rank, const int64_t* shape, const int64_t* strides,
                        int64_t storage_offset, uint64_t storage_bytes, Layout* out);

}  // namespace devplug::detail

#endif  // DEVPLUG_DISPATCHER_LAYOUT_HPP_
