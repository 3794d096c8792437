// SPDX-License-Identifier: Apache-2.0
// C entry points: views. Each builds a Layout with dispatcher-metadata's view_* functions
// and returns a new tensor sharing the storage; no plugin is reached.
#include "api_guard.hpp"
#include "tensor.hpp"

using namespace devplug::detail;

namespace {

// Checks the handles, builds the layout with `build(in, &out)` and makes the view.
template <typename Build>
devplug_error_t* make_view(const devplug_tensor_t* tensor, devplug_tensor_t** out_view, Build&& build) {
  return guard([&] {
    require_not_null(out_view, "out_view");
    *out_view = nullptr;
    require_handle(tensor, "tensor");
    Layout layout;
    Problem problem = build(tensor->layout, &layout);
    if (!problem.empty()) invalid_argument(problem);
    *out_view = new_view(*tensor, layout);
  });
}

}  // namespace

extern "C" {

DEVPLUG_API devplug_error_t* devplug_tensor_reshape(const devplug_tensor_t* tensor, int32_t rank,
                                                    const int64_t* shape, devplug_tensor_t** out_view) {
  return make_view(tensor, out_view,
                   [&](const Layout& in, Layout* out) { return view_reshape(in, rank, shape, out); });
}

DEVPLUG_API devplug_error_t* devplug_tensor_permute(const devplug_tensor_t* tensor, const int32_t* dims,
                                                    devplug_tensor_t** out_view) {
  return make_view(tensor, out_view,
                   [&](const Layout& in, Layout* out) { return view_permute(in, dims, out); });
}

DEVPLUG_API devplug_error_t* devplug_tensor_transpose(const devplug_tensor_t* tensor, int32_t dim0,
                                                      int32_t dim1, devplug_tensor_t** out_view) {
  return make_view(tensor, out_view,
                   [&](const Layout& in, Layout* out) { return view_transpose(in, dim0, dim1, out); });
}

DEVPLUG_API devplug_error_t* devplug_tensor_expand(const devplug_tensor_t* tensor, int32_t rank,
                                                   const int64_t* shape, devplug_tensor_t** out_view) {
  return make_view(tensor, out_view,
                   [&](const Layout& in, Layout* out) { return view_expand(in, rank, shape, out); });
}

DEVPLUG_API devplug_error_t* devplug_tensor_slice(const devplug_tensor_t* tensor, int32_t dim, int64_t start,
                                                  int64_t stop, int64_t step, devplug_tensor_t** out_view) {
  return make_view(tensor, out_view, [&](const Layout& in, Layout* out) {
    return view_slice(in, dim, start, stop, step, out);
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_squeeze(const devplug_tensor_t* tensor, int32_t dim,
                                                    devplug_tensor_t** out_view) {
  return make_view(tensor, out_view,
                   [&](const Layout& in, Layout* out) { return view_squeeze(in, dim, out); });
}

DEVPLUG_API devplug_error_t* devplug_tensor_unsqueeze(const devplug_tensor_t* tensor, int32_t dim,
                                                      devplug_tensor_t** out_view) {
  return make_view(tensor, out_view,
                   [&](const Layout& in, Layout* out) { return view_unsqueeze(in, dim, out); });
}

DEVPLUG_API devplug_error_t* devplug_tensor_diagonal(const devplug_tensor_t* tensor, int64_t offset,
                                                     int32_t dim0, int32_t dim1,
                                                     devplug_tensor_t** out_view) {
  return make_view(tensor, out_view,
                   [&](const Layout& in, Layout* out) { return view_diagonal(in, offset, dim0, dim1, out); });
}

DEVPLUG_API devplug_error_t* devplug_tensor_as_strided(const devplug_tensor_t* tensor, int32_t rank,
                                                       const int64_t* shape, const int64_t* strides,
                                                       int64_t storage_offset, devplug_tensor_t** out_view) {
  return make_view(tensor, out_view, [&](const Layout& in, Layout* out) {
    return view_as_strided(in, rank, shape, strides, storage_offset, tensor->storage->bytes, out);
  });
}

DEVPLUG_API devplug_error_t* devplug_tensor_as_strided_dtype(const devplug_tensor_t* tensor,
                                                             devplug_dtype_t dtype, int32_t rank,
                                                             const int64_t* shape, const int64_t* strides,
                                                             int64_t storage_offset,
                                                             devplug_tensor_t** out_view) {
  return make_view(tensor, out_view, [&](const Layout& in, Layout* out) {
    if (devplug_dtype_size(dtype) == 0)
      return problem("dtype %d is not a devplug dtype", static_cast<int>(dtype));
    Layout typed = in;
    typed.dtype = dtype;
    return view_as_strided(typed, rank, shape, strides, storage_offset, tensor->storage->bytes, out);
  });
}

}  // extern "C"
