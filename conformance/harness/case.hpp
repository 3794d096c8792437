// SPDX-License-Identifier: Apache-2.0
// What one conformance case is: an op, the dtypes and layouts of its tensors, how its input
// values are drawn and its attributes. Cases are plain data, made by generate.cpp in the
// coordinating process and executed by value in a forked worker (worker.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devplug/ops.h"

namespace devplug::conform {

// How a tensor is laid out inside its storage. Every kind is made with one as_strided view
// of a flat storage tensor, so the plugin sees exactly the strides named here.
enum class View {
  Dense,       // row-major
  Transposed,  // column-major (all strides reversed)
  Sliced,      // every other element of the last dim (step 2)
  Negative,    // last dim walked backwards (negative stride)
  Broadcast,   // dim 0 has stride 0 (inputs only)
  Overlap,     // sliding windows: dims rank-2 and rank-1 both have stride 1 (inputs only)
  Offset,      // row-major, starting 3 elements into the storage (odd byte offset)
};
const char* view_name(View view);

// How an input's values are drawn.
enum class Role {
  Data,   // values of the op's domain (or specials)
  Index,  // int64 indices in [0, index_bound)
  Fixed,  // the values in `fixed`, in row-major order (composite targets, masks, variances)
};

struct TensorSpec {
  devplug_dtype_t dtype = DEVPLUG_DTYPE_FLOAT32;
  std::vector<int64_t> shape;
  View view = View::Dense;
  Role role = Role::Data;
  int64_t index_bound = 0;        // Role::Index: values in [0, index_bound)
  bool unique_along_dim = false;  // Role::Index: no two indices of one line along index_dim agree
  int32_t index_dim = 0;
  std::vector<double> fixed;  // Role::Fixed
  bool absent = false;        // an optional tensor of a composite left out: passed as NULL
};

// Where a view lies in its flat storage (elements).
struct Placement {
  int64_t storage_elems = 0;
  int64_t offset = 0;
  std::vector<int64_t> strides;
};
// Places `spec` with `guard` spare elements before and after everything it reaches.
Placement place(const TensorSpec& spec, int64_t guard);
int64_t numel(const std::vector<int64_t>& shape);

// How input values are drawn (harness/values.cpp): random in the op's domain; the special
// values of the dtype, every pair meeting; the op's edges (domains.hpp); or, for
// reductions, scans and matmul, ill-conditioned data: a large mean with a small spread,
// alternating signs that cancel, long runs of one value, values spanning many magnitudes.
enum class ValueClass { Random, Special, Edges, BigMean, Cancel, Runs, Magnitudes };
const char* value_class_name(ValueClass v);

// The attribute struct of a case; `kind` says which member is passed.
struct Attrs {
  enum Kind { None, Reduce, Dim, Flip, Pad, Fill, Iota, Matmul, Philox, Raw } kind = None;
  devplug_reduce_attrs_t reduce{sizeof(devplug_reduce_attrs_t), 0, 0.0};
  devplug_dim_attrs_t dim{sizeof(devplug_dim_attrs_t), 0};
  devplug_flip_attrs_t flip{sizeof(devplug_flip_attrs_t), 0};
  devplug_pad_attrs_t pad{};
  devplug_fill_attrs_t fill{};
  devplug_iota_attrs_t iota{};
  devplug_matmul_attrs_t matmul{sizeof(devplug_matmul_attrs_t), 0};
  devplug_philox_attrs_t philox{sizeof(devplug_philox_attrs_t), 0, 0};
  std::vector<uint64_t> raw;  // Raw: the bytes of any attribute struct (composite cases)
  const void* pointer() const;
};

struct Case {
  std::string name;  // <op>_<dtype>_<layout>_<values>
  devplug_op_t op = DEVPLUG_OP_INVALID;
  devplug_dtype_t dtype = DEVPLUG_DTYPE_FLOAT32;  // the dispatch dtype
  std::string dtype_label;                        // "float32" or "float64_to_float16"
  std::string layout;                             // "transposed_7x13"
  std::string values;                             // "random", "special"
  ValueClass value_class = ValueClass::Random;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  Attrs attrs;
  int64_t reduction_length = 1;   // terms behind one output element (tolerance bounds)
  bool through_fallback = false;  // the plugin does not claim it; runs only with --allow-fallback
  bool decomposed = false;        // a composite the device has no native kernel for: its decomposition runs
};

// What happened to a case. Kept apart as benchdnn does: unsupported is not failed.
enum class Status { Pass, Fail, Crash, Timeout, Unsupported, Xfail, Xpass, Fallback };
const char* status_name(Status status);
inline bool is_failure(Status s) {
  return s == Status::Fail || s == Status::Crash || s == Status::Timeout || s == Status::Xpass;
}

struct Result {
  Status status = Status::Pass;
  double max_ulp = 0, max_abs = 0, max_rel = 0;
  double seconds = 0;
  std::string message;  // why it failed: first bad elements, tolerance row and its reason
};

}  // namespace devplug::conform
