// SPDX-License-Identifier: Apache-2.0
// Placement of views in their storage, and the names of views and statuses.
#include "harness/case.hpp"

#include <algorithm>

namespace devplug::conform {

const char* view_name(View view) {
  switch (view) {
    case View::Dense:
      return "contiguous";
    case View::Transposed:
      return "transposed";
    case View::Sliced:
      return "sliced";
    case View::Negative:
      return "negstride";
    case View::Broadcast:
      return "broadcast";
    case View::Overlap:
      return "overlap";
    case View::Offset:
      return "offset";
  }
  return "?";
}

const char* value_class_name(ValueClass v) {
  switch (v) {
    case ValueClass::Random:
      return "random";
    case ValueClass::Special:
      return "special";
    case ValueClass::Edges:
      return "edges";
    case ValueClass::BigMean:
      return "bigmean";
    case ValueClass::Cancel:
      return "cancel";
    case ValueClass::Runs:
      return "runs";
    case ValueClass::Magnitudes:
      return "magnitudes";
  }
  return "?";
}

const char* status_name(Status status) {
  switch (status) {
    case Status::Pass:
      return "pass";
    case Status::Fail:
      return "fail";
    case Status::Crash:
      return "crash";
    case Status::Timeout:
      return "timeout";
    case Status::Unsupported:
      return "unsupported";
    case Status::Xfail:
      return "xfail";
    case Status::Xpass:
      return "xpass";
    case Status::Fallback:
      return "fallback";
  }
  return "?";
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// Row-major strides of `shape` (elements).
static std::vector<int64_t> dense_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  int64_t step = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = step;
    step *= std::max<int64_t>(shape[k], 1);
  }
  return strides;
}

Placement place(const TensorSpec& spec, int64_t guard) {
  const std::vector<int64_t>& shape = spec.shape;
  const size_t rank = shape.size();
  Placement p;
  p.strides = dense_strides(shape);
  int64_t extra = 0;
  switch (rank == 0 ? View::Dense : spec.view) {
    case View::Dense:
      break;
    case View::Offset:
      extra = 3;
      break;
    case View::Transposed: {
      int64_t step = 1;
      for (size_t k = 0; k < rank; ++k) {
        p.strides[k] = step;
        step *= std::max<int64_t>(shape[k], 1);
      }
      break;
    }
    case View::Sliced: {
      std::vector<int64_t> wide = shape;
      wide.back() *= 2;
      p.strides = dense_strides(wide);
      p.strides.back() = 2;
      break;
    }
    case View::Negative:
      p.strides.back() = -1;
      break;
    case View::Broadcast:
      p.strides[0] = 0;
      break;
    case View::Overlap: {
      if (rank < 2) {
        p.strides.back() = 1;
        break;
      }
      // (.., i, j) sits at i + j within a block of shape[-2] + shape[-1] - 1 elements.
      int64_t step = std::max<int64_t>(shape[rank - 2] + shape[rank - 1] - 1, 1);
      p.strides[rank - 1] = 1;
      p.strides[rank - 2] = 1;
      for (size_t k = rank - 2; k-- > 0;) {
        p.strides[k] = step;
        step *= std::max<int64_t>(shape[k], 1);
      }
      break;
    }
  }
  int64_t lo = 0, hi = 0;  // reach relative to the first element
  for (size_t k = 0; k < rank; ++k) {
    const int64_t span = (std::max<int64_t>(shape[k], 1) - 1) * p.strides[k];
    if (span < 0)
      lo += span;
    else
      hi += span;
  }
  p.offset = guard + extra - lo;
  p.storage_elems = p.offset + hi + 1 + guard;
  return p;
}

const void* Attrs::pointer() const {
  switch (kind) {
    case None:
      return nullptr;
    case Reduce:
      return &reduce;
    case Dim:
      return &dim;
    case Flip:
      return &flip;
    case Pad:
      return &pad;
    case Fill:
      return &fill;
    case Iota:
      return &iota;
    case Matmul:
      return &matmul;
    case Philox:
      return &philox;
    case Raw:
      return raw.data();
  }
  return nullptr;
}

}  // namespace devplug::conform
