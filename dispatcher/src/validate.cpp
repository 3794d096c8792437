// SPDX-License-Identifier: Apache-2.0
// Checks one op call against the contract of ops.def and ops.h before a kernel sees it.
//
// Everything is driven by the op's row (category, arity, result rule, dtypes, attrs
// size); ops are named only where ops.h gives a category per-op shape rules. The valid
// path builds no strings, so it does not allocate.
#include "validate.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "devplug/sdk/composite.hpp"

namespace devplug::detail {
namespace {

using Wide = __int128;

// One tensor of the call with its argument name ("inputs[1]"), built only on failure.
struct Arg {
  const char* group;  // "inputs" or "outputs"
  size_t index;
  const Layout& l;
};

#define ARG_FMT "%s[%zu]"
#define ARG(a) (a).group, (a).index

Arg input(const CallTensor* inputs, size_t i) { return Arg{"inputs", i, *inputs[i].layout}; }
Arg output(const CallTensor* outputs, size_t i) { return Arg{"outputs", i, *outputs[i].layout}; }

bool same_shape(const Layout& a, const Layout& b) {
  if (a.rank != b.rank) return false;
  for (int32_t d = 0; d < a.rank; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

// Formats a shape as "[2, 3]" into `text`, for messages.
const char* shape_text(const Layout& l, char* text, size_t size) {
  size_t used = std::snprintf(text, size, "[");
  for (int32_t d = 0; d < l.rank && used < size; ++d)
    used +=
        std::snprintf(text + used, size - used, d ? ", %lld" : "%lld", static_cast<long long>(l.shape[d]));
  if (used < size) std::snprintf(text + used, size - used, "]");
  return text;
}

Problem shape_mismatch(const Arg& a, const Arg& b, const char* rule) {
  char sa[160], sb[160];
  return problem(ARG_FMT " has shape %s but " ARG_FMT " has shape %s (%s)", ARG(a),
                 shape_text(a.l, sa, sizeof(sa)), ARG(b), shape_text(b.l, sb, sizeof(sb)), rule);
}

Problem check_dtype(const Arg& a, devplug_dtype_t expected, const char* why) {
  if (a.l.dtype == expected) return Problem();
  return problem(ARG_FMT ": dtype %s, expected %s (%s)", ARG(a), dtype_name_or(a.l.dtype),
                 dtype_name_or(expected), why);
}

Problem check_mask(const char* what, uint32_t mask, int32_t rank) {
  uint32_t allowed = rank >= 32 ? ~0u : ((1u << rank) - 1u);
  if ((mask & ~allowed) == 0) return Problem();
  return problem("%s is 0x%x: it names a dim at or past the input's rank %d", what, mask, rank);
}

Problem check_dim(int32_t dim, int32_t rank, bool scalar_dim0) {
  int32_t extent = (rank == 0 && scalar_dim0) ? 1 : rank;
  if (dim >= 0 && dim < extent) return Problem();
  return problem("attrs.dim is %d, expected [0, %d) for the input's rank %d", dim, extent, rank);
}

// ---- per-category shape rules (ops.h) ------------------------------------------------

Problem check_one_shape(const CallTensor* inputs, size_t n_inputs, const CallTensor* outputs) {
  const Arg out = output(outputs, 0);
  for (size_t i = 0; i < n_inputs; ++i) {
    Arg in = input(inputs, i);
    if (!same_shape(in.l, out.l)) return shape_mismatch(in, out, "inputs and output have one shape");
  }
  return Problem();
}

Problem check_reduce(const devplug_op_info_t& info, const Arg& in, const Arg& out,
                     const devplug_reduce_attrs_t& attrs) {
  Problem p = check_mask("attrs.dims_mask", attrs.dims_mask, in.l.rank);
  if (!p.empty()) return p;
  if (info.id == DEVPLUG_OP_var && !(std::isfinite(attrs.correction) && attrs.correction >= 0))
    return problem("attrs.correction is %g, expected a finite value >= 0", attrs.correction);
  if (out.l.rank != in.l.rank)
    return problem(ARG_FMT " has rank %d but the input has rank %d (a reduction keeps the rank)", ARG(out),
                   out.l.rank, in.l.rank);
  // ops.def's summary says which reductions have no value for an empty set ("refused").
  const bool refuses_empty = std::strstr(info.summary, "refused") != nullptr;
  for (int32_t d = 0; d < in.l.rank; ++d) {
    bool reduced = (attrs.dims_mask >> d) & 1u;
    int64_t expected = reduced ? 1 : in.l.shape[d];
    if (out.l.shape[d] != expected)
      return problem(ARG_FMT ".shape[%d] is %lld, expected %lld (%s)", ARG(out), d,
                     static_cast<long long>(out.l.shape[d]), static_cast<long long>(expected),
                     reduced ? "a reduced dim has size 1" : "a kept dim matches the input");
    if (reduced && refuses_empty && in.l.shape[d] == 0)
      return problem("inputs[0].shape[%d] is 0: %s of an empty set has no value", d, info.name);
  }
  return Problem();
}

Problem check_index(const devplug_op_info_t& info, const CallTensor* inputs, size_t n_inputs,
                    const CallTensor* outputs, int32_t dim) {
  const Arg in = input(inputs, 0), index = input(inputs, 1), out = output(outputs, 0);
  if (in.l.rank == 0) return problem("inputs[0] is 0-d: %s needs rank >= 1", info.name);
  Problem p = check_dim(dim, in.l.rank, false);
  if (!p.empty()) return p;
  if (info.id == DEVPLUG_OP_index_select) {
    if (index.l.rank != 1) return problem("inputs[1] (index) has rank %d, expected 1", index.l.rank);
    for (int32_t d = 0; d < in.l.rank; ++d) {
      int64_t expected = d == dim ? index.l.shape[0] : in.l.shape[d];
      if (out.l.rank != in.l.rank || out.l.shape[d] != expected)
        return shape_mismatch(out, in, "index_select: the input's shape with dim = len(index)");
    }
    return Problem();
  }
  if (index.l.rank != in.l.rank)
    return problem("inputs[1] (index) has rank %d, expected the input's rank %d", index.l.rank, in.l.rank);
  for (int32_t d = 0; d < in.l.rank; ++d)
    if (d != dim && index.l.shape[d] > in.l.shape[d])
      return problem("inputs[1].shape[%d] is %lld, above inputs[0].shape[%d] = %lld", d,
                     static_cast<long long>(index.l.shape[d]), d, static_cast<long long>(in.l.shape[d]));
  if (n_inputs == 2) {  // gather
    if (!same_shape(out.l, index.l))
      return shape_mismatch(out, index, "gather: the output has the index's shape");
    return Problem();
  }
  const Arg src = input(inputs, 2);  // scatter, scatter_add
  if (src.l.rank != in.l.rank)
    return problem("inputs[2] (src) has rank %d, expected the input's rank %d", src.l.rank, in.l.rank);
  for (int32_t d = 0; d < in.l.rank; ++d)
    if (index.l.shape[d] > src.l.shape[d])
      return problem("inputs[1].shape[%d] is %lld, above inputs[2].shape[%d] = %lld", d,
                     static_cast<long long>(index.l.shape[d]), d, static_cast<long long>(src.l.shape[d]));
  if (!same_shape(out.l, in.l)) return shape_mismatch(out, in, "scatter: the output has the input's shape");
  return Problem();
}

Problem check_cat(const CallTensor* inputs, size_t n_inputs, const CallTensor* outputs, int32_t dim) {
  const Arg first = input(inputs, 0), out = output(outputs, 0);
  if (first.l.rank == 0) return problem("inputs[0] is 0-d: cat needs rank >= 1");
  Problem p = check_dim(dim, first.l.rank, false);
  if (!p.empty()) return p;
  Wide total = 0;
  for (size_t i = 0; i < n_inputs; ++i) {
    const Arg in = input(inputs, i);
    if (in.l.rank != first.l.rank)
      return problem(ARG_FMT " has rank %d, expected inputs[0]'s rank %d", ARG(in), in.l.rank, first.l.rank);
    for (int32_t d = 0; d < in.l.rank; ++d)
      if (d != dim && in.l.shape[d] != first.l.shape[d])
        return shape_mismatch(in, first, "cat: dims other than attrs.dim must match");
    total += in.l.shape[dim];
  }
  for (int32_t d = 0; d < first.l.rank; ++d) {
    Wide expected = d == dim ? total : first.l.shape[d];
    if (out.l.rank != first.l.rank || out.l.shape[d] != expected)
      return problem("outputs[0] has the wrong shape for cat: dim %d must be %lld", d,
                     static_cast<long long>(expected));
  }
  return Problem();
}

Problem check_pad(const Arg& in, const Arg& out, const devplug_pad_attrs_t& attrs) {
  if (out.l.rank != in.l.rank)
    return problem("outputs[0] has rank %d, expected the input's rank %d", out.l.rank, in.l.rank);
  for (int32_t d = 0; d < in.l.rank; ++d) {
    Wide size = Wide(in.l.shape[d]) + attrs.before[d] + attrs.after[d];
    if (size < 0)
      return problem(
          "attrs.before[%d] + attrs.after[%d] = %lld + %lld crop more than the "
          "%lld elements of dim %d",
          d, d, static_cast<long long>(attrs.before[d]), static_cast<long long>(attrs.after[d]),
          static_cast<long long>(in.l.shape[d]), d);
    if (out.l.shape[d] != size)
      return problem("outputs[0].shape[%d] is %lld, expected %lld (input + before + after)", d,
                     static_cast<long long>(out.l.shape[d]), static_cast<long long>(size));
  }
  return Problem();
}

Problem check_matmul(const CallTensor* inputs, const CallTensor* outputs,
                     const devplug_matmul_attrs_t& attrs) {
  if (attrs.flags & ~DEVPLUG_MATMUL_ALLOW_TF32)
    return problem("attrs.flags is 0x%x: unknown bits set", attrs.flags);
  const Arg a = input(inputs, 0), b = input(inputs, 1), out = output(outputs, 0);
  const int32_t rank = a.l.rank;
  if (rank < 2) return problem("inputs[0] has rank %d; matmul needs rank >= 2", rank);
  if (b.l.rank != rank || out.l.rank != rank)
    return problem(
        "inputs[0], inputs[1] and outputs[0] have ranks %d, %d and %d; matmul "
        "needs one rank (the dispatcher broadcasts batch dims)",
        rank, b.l.rank, out.l.rank);
  for (int32_t d = 0; d < rank - 2; ++d)
    if (b.l.shape[d] != a.l.shape[d] || out.l.shape[d] != a.l.shape[d])
      return problem("batch dim %d differs: inputs[0] %lld, inputs[1] %lld, outputs[0] %lld", d,
                     static_cast<long long>(a.l.shape[d]), static_cast<long long>(b.l.shape[d]),
                     static_cast<long long>(out.l.shape[d]));
  const int64_t m = a.l.shape[rank - 2], k = a.l.shape[rank - 1];
  const int64_t k2 = b.l.shape[rank - 2], n = b.l.shape[rank - 1];
  if (k != k2)
    return problem("inputs[0] has K = %lld columns but inputs[1] has %lld rows", static_cast<long long>(k),
                   static_cast<long long>(k2));
  if (out.l.shape[rank - 2] != m || out.l.shape[rank - 1] != n)
    return problem("outputs[0] is %lld x %lld, expected M x N = %lld x %lld",
                   static_cast<long long>(out.l.shape[rank - 2]),
                   static_cast<long long>(out.l.shape[rank - 1]), static_cast<long long>(m),
                   static_cast<long long>(n));
  return Problem();
}

Problem check_shapes(const devplug_op_info_t& info, const CallTensor* inputs, size_t n_inputs,
                     const CallTensor* outputs, const void* attrs) {
  switch (info.category) {
    case DEVPLUG_CATEGORY_unary:
    case DEVPLUG_CATEGORY_binary:
    case DEVPLUG_CATEGORY_compare:
    case DEVPLUG_CATEGORY_ternary:
    case DEVPLUG_CATEGORY_data:  // convert/copy have one input; fill/iota none
    case DEVPLUG_CATEGORY_random:
      return check_one_shape(inputs, n_inputs, outputs);
    case DEVPLUG_CATEGORY_reduce:
      return check_reduce(info, input(inputs, 0), output(outputs, 0),
                          *static_cast<const devplug_reduce_attrs_t*>(attrs));
    case DEVPLUG_CATEGORY_scan: {
      Problem p =
          check_dim(static_cast<const devplug_dim_attrs_t*>(attrs)->dim, inputs[0].layout->rank, true);
      if (!p.empty()) return p;
      return check_one_shape(inputs, n_inputs, outputs);
    }
    case DEVPLUG_CATEGORY_index:
      return check_index(info, inputs, n_inputs, outputs,
                         static_cast<const devplug_dim_attrs_t*>(attrs)->dim);
    case DEVPLUG_CATEGORY_shape:
      if (info.n_inputs < 0)
        return check_cat(inputs, n_inputs, outputs, static_cast<const devplug_dim_attrs_t*>(attrs)->dim);
      if (info.id == DEVPLUG_OP_flip) {
        Problem p = check_mask("attrs.dims_mask", static_cast<const devplug_flip_attrs_t*>(attrs)->dims_mask,
                               inputs[0].layout->rank);
        if (!p.empty()) return p;
        return check_one_shape(inputs, n_inputs, outputs);
      }
      return check_pad(input(inputs, 0), output(outputs, 0), *static_cast<const devplug_pad_attrs_t*>(attrs));
    case DEVPLUG_CATEGORY_linalg:
      return check_matmul(inputs, outputs, *static_cast<const devplug_matmul_attrs_t*>(attrs));
    default:
      return problem("op %s has category %d, which this dispatcher does not know", info.name, info.category);
  }
}

// ---- dtype rules (ops.def `result`) ---------------------------------------------------

Problem check_dtypes(const devplug_op_info_t& info, const CallTensor* inputs, size_t n_inputs,
                     const CallTensor* outputs) {
  // Which tensor picks the kernel.
  Arg dispatch = info.result == DEVPLUG_RESULT_made     ? output(outputs, 0)
                 : info.result == DEVPLUG_RESULT_select ? input(inputs, 1)
                                                        : input(inputs, 0);
  const devplug_dtype_t dtype = dispatch.l.dtype;
  if ((info.dtypes & DEVPLUG_DTYPE_BIT(dtype)) == 0)
    return problem("op %s does not allow dtype %s (" ARG_FMT ")", info.name, dtype_name_or(dtype),
                   ARG(dispatch));

  // Inputs: one dtype, except where's cond and the index tensors.
  for (size_t i = 0; i < n_inputs; ++i) {
    const Arg in = input(inputs, i);
    Problem p;
    if (info.result == DEVPLUG_RESULT_select && i == 0) {
      p = check_dtype(in, DEVPLUG_DTYPE_BOOL, "the condition of where is bool");
    } else if (info.category == DEVPLUG_CATEGORY_index && i == 1) {
      p = check_dtype(in, DEVPLUG_DTYPE_INT64, "index tensors are int64");
    } else if (in.l.dtype != dtype) {
      p = problem(ARG_FMT ": dtype %s does not match " ARG_FMT
                          " dtype %s (prims do not "
                          "promote)",
                  ARG(in), dtype_name_or(in.l.dtype), ARG(dispatch), dtype_name_or(dtype));
    }
    if (!p.empty()) return p;
  }

  const Arg out = output(outputs, 0);
  switch (info.result) {
    case DEVPLUG_RESULT_bool:
      return check_dtype(out, DEVPLUG_DTYPE_BOOL, "the op gives bool");
    case DEVPLUG_RESULT_int64:
      return check_dtype(out, DEVPLUG_DTYPE_INT64, "the op gives int64 indices");
    case DEVPLUG_RESULT_any:
      return Problem();  // a cast: any known dtype
    default:
      return check_dtype(out, dtype, "the output has the op's dtype");
  }
}

Problem check_attrs(const devplug_op_info_t& info, const void* attrs) {
  if (info.attrs_size == 0) return Problem();  // ignored: the op reads no attributes
  if (attrs == nullptr) return problem("attrs is NULL, but op %s takes attributes", info.name);
  size_t struct_size = *static_cast<const size_t*>(attrs);
  if (struct_size < info.attrs_size)
    return problem("attrs.struct_size is %zu, below the %zu bytes op %s's attributes need", struct_size,
                   info.attrs_size, info.name);
  return Problem();
}

// ---- aliasing --------------------------------------------------------------------------

// An elementwise output may be exactly one of its inputs (in-place), never part of one.
bool may_alias_input(const devplug_op_info_t& info) {
  switch (info.category) {
    case DEVPLUG_CATEGORY_unary:
    case DEVPLUG_CATEGORY_binary:
    case DEVPLUG_CATEGORY_compare:
    case DEVPLUG_CATEGORY_ternary:
      return true;
    case DEVPLUG_CATEGORY_data:
      return info.n_inputs == 1;  // convert, copy
    default:
      return false;
  }
}

bool same_elements(const Layout& a, const Layout& b) {
  if (devplug_dtype_size(a.dtype) != devplug_dtype_size(b.dtype)) return false;
  Layout b_as_a = b;
  b_as_a.dtype = a.dtype;
  return same_view(a, b_as_a);
}

Problem check_aliasing(const devplug_op_info_t& info, const CallTensor* inputs, size_t n_inputs,
                       const CallTensor* outputs, size_t n_outputs) {
  for (size_t o = 0; o < n_outputs; ++o) {
    if (outputs[o].layout == nullptr) continue;  // an absent optional output
    const Arg out = output(outputs, o);
    if (overlaps_itself(out.l))
      return problem(ARG_FMT
                     " overlaps itself (a zero or overlapping stride); an output must "
                     "have one element per index",
                     ARG(out));
    for (size_t other = 0; other < o; ++other) {
      if (outputs[other].layout != nullptr && outputs[other].storage == outputs[o].storage &&
          may_overlap(*outputs[other].layout, out.l))
        return problem(ARG_FMT " overlaps outputs[%zu]", ARG(out), other);
    }
    for (size_t i = 0; i < n_inputs; ++i) {
      if (inputs[i].layout == nullptr) continue;
      const Arg in = input(inputs, i);
      if (inputs[i].storage != outputs[o].storage || !may_overlap(in.l, out.l)) continue;
      if (may_alias_input(info) && same_elements(in.l, out.l)) continue;
      return problem(ARG_FMT " overlaps " ARG_FMT "%s", ARG(out), ARG(in),
                     may_alias_input(info) ? " without being exactly the same view of the same element size"
                                           : "; this op cannot write over its inputs");
    }
  }
  return Problem();
}

// A composite call: dtypes, presence of optional tensors, attribute values and shapes,
// all by sdk::check_composite, which reads only dtypes and shapes of the descriptors.
Problem check_composite_call(const devplug_op_info_t& info, const CallTensor* inputs, size_t n_inputs,
                             const CallTensor* outputs, size_t n_outputs, const void* attrs) {
  constexpr size_t kMax = devplug::sdk::kMaxCompositeArgs;
  if (n_inputs > kMax || n_outputs > kMax) return problem("op %s has too many tensors", info.name);
  devplug_tensor_desc_t descs[2][kMax];
  const devplug_tensor_desc_t* pointers[2][kMax];
  const CallTensor* groups[2] = {inputs, outputs};
  const size_t counts[2] = {n_inputs, n_outputs};
  for (int g = 0; g < 2; ++g) {
    for (size_t i = 0; i < counts[g]; ++i) {
      const Layout* l = groups[g][i].layout;
      pointers[g][i] = nullptr;
      if (l == nullptr) continue;
      devplug_tensor_desc_t& d = descs[g][i];
      d.struct_size = sizeof(d);
      d.buffer = nullptr;
      d.byte_offset = 0;
      d.dtype = l->dtype;
      d.rank = l->rank;
      std::memcpy(d.shape, l->shape, sizeof(d.shape));
      std::memcpy(d.strides, l->strides, sizeof(d.strides));
      pointers[g][i] = &d;
    }
  }
  devplug_op_call_t call{sizeof(call), info.id, pointers[0], n_inputs, pointers[1], n_outputs, attrs};
  return devplug::sdk::check_composite(call);
}

}  // namespace

Problem validate_call(devplug_op_t op, const CallTensor* inputs, size_t n_inputs, const CallTensor* outputs,
                      size_t n_outputs, const void* attrs) {
  const devplug_op_info_t* info = devplug_op_info(op);
  if (info == nullptr) return problem("op %d is not an op of op set %d", op, DEVPLUG_OPSET_VERSION);

  if (info->n_inputs >= 0 && n_inputs != static_cast<size_t>(info->n_inputs))
    return problem("n_inputs is %zu, op %s takes %d", n_inputs, info->name, info->n_inputs);
  if (info->n_inputs < 0 && n_inputs == 0)
    return problem("n_inputs is 0, op %s takes one or more", info->name);
  if (n_outputs != static_cast<size_t>(info->n_outputs))
    return problem("n_outputs is %zu, op %s takes %d", n_outputs, info->name, info->n_outputs);
  if (n_inputs > 0 && inputs == nullptr) return problem("inputs is NULL");
  if (n_outputs > 0 && outputs == nullptr) return problem("outputs is NULL");

  const CallTensor* groups[2] = {inputs, outputs};
  const size_t counts[2] = {n_inputs, n_outputs};
  const char* names[2] = {"inputs", "outputs"};
  const bool composite = info->category == DEVPLUG_CATEGORY_composite;
  const uint32_t optional[2] = {info->optional_inputs, info->optional_outputs};
  for (int g = 0; g < 2; ++g) {
    for (size_t i = 0; i < counts[g]; ++i) {
      const Layout* l = groups[g][i].layout;
      if (l == nullptr && composite && ((optional[g] >> i) & 1u)) continue;  // an absent optional tensor
      if (l == nullptr) return problem("%s[%zu] is NULL", names[g], i);
      if (devplug_dtype_size(l->dtype) == 0)
        return problem("%s[%zu]: dtype %d is not a known dtype", names[g], i, l->dtype);
      if (l->rank < 0 || l->rank > DEVPLUG_MAX_RANK)
        return problem("%s[%zu]: rank %d, expected [0, %d]", names[g], i, l->rank, DEVPLUG_MAX_RANK);
      for (int32_t d = 0; d < l->rank; ++d)
        if (l->shape[d] < 0)
          return problem("%s[%zu].shape[%d] is %lld, dims must be >= 0", names[g], i, d,
                         static_cast<long long>(l->shape[d]));
    }
  }

  Problem p = check_attrs(*info, attrs);
  if (composite) {
    if (p.empty()) p = check_composite_call(*info, inputs, n_inputs, outputs, n_outputs, attrs);
  } else {
    if (p.empty()) p = check_dtypes(*info, inputs, n_inputs, outputs);
    if (p.empty()) p = check_shapes(*info, inputs, n_inputs, outputs, attrs);
  }
  if (p.empty()) p = check_aliasing(*info, inputs, n_inputs, outputs, n_outputs);
  return p;
}

}  // namespace devplug::detail
