// SPDX-License-Identifier: Apache-2.0
// Unit tests of call validation (dispatcher/src/validate.cpp): a well-formed call of every
// op and dtype passes without allocating, and each kind of bad call is refused with a
// message that names the argument.
#include "validate.hpp"

#include "allocation_counter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <string>
#include <vector>

namespace devplug::detail {
namespace {

using Dims = std::vector<int64_t>;

// The attribute structs, one of each, with values valid for the tensors built below.
struct Attrs {
  devplug_reduce_attrs_t reduce{sizeof(devplug_reduce_attrs_t), 1u, 1.0};
  devplug_dim_attrs_t dim{sizeof(devplug_dim_attrs_t), 0};
  devplug_flip_attrs_t flip{sizeof(devplug_flip_attrs_t), 3u};
  devplug_pad_attrs_t pad{sizeof(devplug_pad_attrs_t), {1, 0}, {0, 2}, {0.0, 0}};
  devplug_fill_attrs_t fill{sizeof(devplug_fill_attrs_t), {1.0, 1}};
  devplug_iota_attrs_t iota{sizeof(devplug_iota_attrs_t), {0.0, 0}, {1.0, 1}};
  devplug_matmul_attrs_t matmul{sizeof(devplug_matmul_attrs_t), 0u};
  devplug_philox_attrs_t philox{sizeof(devplug_philox_attrs_t), 42u, 0u};
};

// A call under construction: tensors each on their own storage unless told otherwise.
class Call {
 public:
  explicit Call(devplug_op_t op) : op_(op) {}

  Call& in(devplug_dtype_t dtype, Dims shape) { return add(&inputs_, dtype, shape); }
  Call& out(devplug_dtype_t dtype, Dims shape) { return add(&outputs_, dtype, shape); }
  Call& attrs(const void* attrs) {
    attrs_ = attrs;
    return *this;
  }
  // The layout of inputs[i] / outputs[i], to edit strides, offsets and storage.
  Layout& input(size_t i) { return layouts_[inputs_[i]]; }
  Layout& output(size_t i) { return layouts_[outputs_[i]]; }
  Call& share(bool output_a, size_t a, bool output_b, size_t b) {
    storage_[(output_b ? outputs_ : inputs_)[b]] = storage_[(output_a ? outputs_ : inputs_)[a]];
    return *this;
  }

  Problem check() {
    std::vector<CallTensor> ins, outs;
    for (size_t k : inputs_) ins.push_back(CallTensor{&layouts_[k], storage_[k]});
    for (size_t k : outputs_) outs.push_back(CallTensor{&layouts_[k], storage_[k]});
    return validate_call(op_, ins.data(), ins.size(), outs.data(), outs.size(), attrs_);
  }

  // Runs validate_call with everything prepared beforehand, counting allocations.
  long allocations_when_checked(Problem* result) {
    std::vector<CallTensor> ins, outs;
    for (size_t k : inputs_) ins.push_back(CallTensor{&layouts_[k], storage_[k]});
    for (size_t k : outputs_) outs.push_back(CallTensor{&layouts_[k], storage_[k]});
    long before = allocation_count();
    Problem p = validate_call(op_, ins.data(), ins.size(), outs.data(), outs.size(), attrs_);
    long count = allocation_count() - before;
    *result = std::move(p);
    return count;
  }

 private:
  Call& add(std::vector<size_t>* group, devplug_dtype_t dtype, const Dims& shape) {
    layouts_.push_back(contiguous_layout(dtype, static_cast<int32_t>(shape.size()), shape.data()));
    storage_.push_back(&layouts_.back());  // a distinct identity per tensor
    group->push_back(layouts_.size() - 1);
    return *this;
  }

  devplug_op_t op_;
  std::deque<Layout> layouts_;
  std::vector<const void*> storage_;
  std::vector<size_t> inputs_, outputs_;
  const void* attrs_ = nullptr;
};

// A valid call of `op` with dispatch dtype `dtype`, built from the op's row.
Call good_call(devplug_op_t op, devplug_dtype_t dtype, const Attrs& a) {
  const devplug_op_info_t* info = devplug_op_info(op);
  Call c(op);
  const devplug_dtype_t result = info->result == DEVPLUG_RESULT_bool    ? DEVPLUG_DTYPE_BOOL
                                 : info->result == DEVPLUG_RESULT_int64 ? DEVPLUG_DTYPE_INT64
                                 : info->result == DEVPLUG_RESULT_any   ? DEVPLUG_DTYPE_FLOAT64
                                                                        : dtype;
  switch (info->category) {
    case DEVPLUG_CATEGORY_unary:
    case DEVPLUG_CATEGORY_binary:
    case DEVPLUG_CATEGORY_compare:
      for (int i = 0; i < info->n_inputs; ++i) c.in(dtype, {2, 3});
      return c.out(result, {2, 3});
    case DEVPLUG_CATEGORY_ternary:
      return c.in(DEVPLUG_DTYPE_BOOL, {2, 3}).in(dtype, {2, 3}).in(dtype, {2, 3}).out(dtype, {2, 3});
    case DEVPLUG_CATEGORY_data:
      if (info->n_inputs == 1) return c.in(dtype, {2, 3}).out(result, {2, 3});
      return c.out(dtype, {2, 3}).attrs(op == DEVPLUG_OP_fill ? static_cast<const void*>(&a.fill) : &a.iota);
    case DEVPLUG_CATEGORY_reduce:
      return c.in(dtype, {2, 3}).out(result, {1, 3}).attrs(&a.reduce);
    case DEVPLUG_CATEGORY_scan:
      return c.in(dtype, {2, 3}).out(dtype, {2, 3}).attrs(&a.dim);
    case DEVPLUG_CATEGORY_index:
      c.attrs(&a.dim);
      if (op == DEVPLUG_OP_index_select)
        return c.in(dtype, {4, 3}).in(DEVPLUG_DTYPE_INT64, {2}).out(dtype, {2, 3});
      if (info->n_inputs == 2) return c.in(dtype, {4, 3}).in(DEVPLUG_DTYPE_INT64, {2, 3}).out(dtype, {2, 3});
      return c.in(dtype, {4, 3}).in(DEVPLUG_DTYPE_INT64, {2, 3}).in(dtype, {2, 3}).out(dtype, {4, 3});
    case DEVPLUG_CATEGORY_shape:
      if (info->n_inputs < 0) return c.in(dtype, {2, 3}).in(dtype, {1, 3}).out(dtype, {3, 3}).attrs(&a.dim);
      if (op == DEVPLUG_OP_flip) return c.in(dtype, {2, 3}).out(dtype, {2, 3}).attrs(&a.flip);
      return c.in(dtype, {2, 3}).out(dtype, {3, 5}).attrs(&a.pad);
    case DEVPLUG_CATEGORY_linalg:
      return c.in(dtype, {2, 3}).in(dtype, {3, 4}).out(dtype, {2, 4}).attrs(&a.matmul);
    default:  // RANDOM
      return c.out(dtype, {2, 3}).attrs(&a.philox);
  }
}

bool contains(const Problem& p, const std::string& part) { return p.find(part) != std::string::npos; }

#define EXPECT_REFUSED(call, part)                                                           \
  do {                                                                                       \
    Problem p_ = (call).check();                                                             \
    EXPECT_TRUE(contains(p_, part)) << "message: '" << p_ << "', expected '" << part << "'"; \
  } while (0)

constexpr devplug_dtype_t f32 = DEVPLUG_DTYPE_FLOAT32, f64 = DEVPLUG_DTYPE_FLOAT64, i32 = DEVPLUG_DTYPE_INT32,
                          i64 = DEVPLUG_DTYPE_INT64, i8 = DEVPLUG_DTYPE_INT8, b = DEVPLUG_DTYPE_BOOL,
                          f16 = DEVPLUG_DTYPE_FLOAT16;

// ---- every op of the table -------------------------------------------------------------

TEST(ValidateCall, EveryOpAndAllowedDtypePassesWithoutAllocating) {
  Attrs a;
  int checked = 0;
  for (devplug_op_t op = 1; op < DEVPLUG_OP_END_; ++op) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (!info || info->category == DEVPLUG_CATEGORY_composite) continue;  // tests/composite
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      if (!(info->dtypes & DEVPLUG_DTYPE_BIT(d))) continue;
      Call c = good_call(op, d, a);
      Problem p;
      long allocations = c.allocations_when_checked(&p);
      EXPECT_EQ(p, "") << info->name << " " << devplug_dtype_name(d);
      if (allocation_count() >= 0) {
        EXPECT_EQ(allocations, 0) << info->name << " " << devplug_dtype_name(d);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 400);
}

TEST(ValidateCall, TheAllocationCounterSeesARefusal) {
  // Proves the counter works: a refused call builds its message on the heap.
  if (allocation_count() < 0) GTEST_SKIP() << "allocation counting is off in sanitizer builds";
  Call bad(DEVPLUG_OP_add);
  bad.in(DEVPLUG_DTYPE_FLOAT32, {2}).in(DEVPLUG_DTYPE_INT32, {2}).out(DEVPLUG_DTYPE_FLOAT32, {2});
  Problem p;
  EXPECT_GT(bad.allocations_when_checked(&p), 0);
  EXPECT_NE(p, "");
}

TEST(ValidateCall, EveryOpRefusesDtypesItDoesNotAllow) {
  Attrs a;
  for (devplug_op_t op = 1; op < DEVPLUG_OP_END_; ++op) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (!info || info->category == DEVPLUG_CATEGORY_composite) continue;  // tests/composite
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
      if (info->dtypes & DEVPLUG_DTYPE_BIT(d)) continue;
      Problem p = good_call(op, d, a).check();
      EXPECT_TRUE(contains(p, std::string("does not allow dtype ") + devplug_dtype_name(d)))
          << info->name << ": " << p;
    }
  }
}

TEST(ValidateCall, EveryOpRefusesWrongArity) {
  Attrs a;
  for (devplug_op_t op = 1; op < DEVPLUG_OP_END_; ++op) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (!info || info->category == DEVPLUG_CATEGORY_composite) continue;  // tests/composite
    devplug_dtype_t d = f32;
    if (!(info->dtypes & DEVPLUG_DTYPE_BIT(d))) d = i32;
    Call extra_input = good_call(op, d, a);
    if (info->n_inputs >= 0) {
      extra_input.in(d, {2, 3});
      EXPECT_REFUSED(extra_input, "n_inputs is");
    }
    Call extra_output = good_call(op, d, a);
    extra_output.out(d, {2, 3});
    EXPECT_REFUSED(extra_output, "n_outputs is 2");
  }
}

TEST(ValidateCall, EveryOpWithAttrsRefusesNullAndShortAttrs) {
  Attrs a;
  for (devplug_op_t op = 1; op < DEVPLUG_OP_END_; ++op) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (!info || info->attrs_size == 0 || info->category == DEVPLUG_CATEGORY_composite) continue;
    devplug_dtype_t d = (info->dtypes & DEVPLUG_DTYPE_BIT(f32)) ? f32 : i64;
    Call c = good_call(op, d, a);
    c.attrs(nullptr);
    EXPECT_REFUSED(c, "attrs is NULL");
    size_t too_small = info->attrs_size - 1;
    c.attrs(&too_small);
    EXPECT_REFUSED(c, "attrs.struct_size is");
  }
}

// ---- the call itself -------------------------------------------------------------------

TEST(ValidateCall, UnknownOps) {
  for (devplug_op_t op : {devplug_op_t{DEVPLUG_OP_INVALID}, devplug_op_t{DEVPLUG_OP_END_}, -5, INT32_MAX}) {
    Call c(op);
    c.in(f32, {2}).out(f32, {2});
    EXPECT_REFUSED(c, "is not an op");
  }
}

TEST(ValidateCall, NullArrays) {
  Layout l = contiguous_layout(f32, 0, nullptr);
  CallTensor t{&l, &l};
  EXPECT_EQ(validate_call(DEVPLUG_OP_exp, nullptr, 1, &t, 1, nullptr), "inputs is NULL");
  EXPECT_EQ(validate_call(DEVPLUG_OP_exp, &t, 1, nullptr, 1, nullptr), "outputs is NULL");
  CallTensor missing{nullptr, &l};
  EXPECT_EQ(validate_call(DEVPLUG_OP_exp, &missing, 1, &t, 1, nullptr), "inputs[0] is NULL");
  EXPECT_EQ(validate_call(DEVPLUG_OP_exp, &t, 1, &missing, 1, nullptr), "outputs[0] is NULL");
  Layout bad = l;
  bad.dtype = 12;
  CallTensor bad_t{&bad, &bad};
  EXPECT_TRUE(contains(validate_call(DEVPLUG_OP_exp, &t, 1, &bad_t, 1, nullptr), "outputs[0]: dtype 12"));
  bad = l;
  bad.rank = 9;
  EXPECT_TRUE(contains(validate_call(DEVPLUG_OP_exp, &bad_t, 1, &t, 1, nullptr), "inputs[0]: rank 9"));
  bad = contiguous_layout(f32, 1, std::vector<int64_t>{3}.data());
  bad.shape[0] = -3;
  EXPECT_TRUE(contains(validate_call(DEVPLUG_OP_exp, &bad_t, 1, &t, 1, nullptr), "inputs[0].shape[0] is -3"));
  EXPECT_TRUE(contains(validate_call(DEVPLUG_OP_cat, nullptr, 0, &t, 1, nullptr), "one or more"));
}

// ---- elementwise -----------------------------------------------------------------------

TEST(ValidateElementwise, DtypeRules) {
  EXPECT_EQ(Call(DEVPLUG_OP_add).in(f32, {2}).in(f32, {2}).out(f32, {2}).check(), "");
  EXPECT_EQ(Call(DEVPLUG_OP_add).in(f32, {2}).in(i32, {2}).out(f32, {2}).check(),
            "inputs[1]: dtype int32 does not match inputs[0] dtype float32 (prims do not "
            "promote)");
  EXPECT_REFUSED(Call(DEVPLUG_OP_add).in(f32, {2}).in(f32, {2}).out(f64, {2}),
                 "outputs[0]: dtype float64, expected float32");
  EXPECT_REFUSED(Call(DEVPLUG_OP_exp).in(i32, {2}).out(i32, {2}),
                 "op exp does not allow dtype int32 (inputs[0])");
  EXPECT_REFUSED(Call(DEVPLUG_OP_sub).in(b, {2}).in(b, {2}).out(b, {2}), "dtype bool");
  EXPECT_REFUSED(Call(DEVPLUG_OP_lt).in(f32, {2}).in(f32, {2}).out(f32, {2}),
                 "outputs[0]: dtype float32, expected bool");
  EXPECT_EQ(Call(DEVPLUG_OP_isnan).in(f16, {2}).out(b, {2}).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_isnan).in(f16, {2}).out(f16, {2}), "expected bool");
}

TEST(ValidateElementwise, ShapeRules) {
  EXPECT_REFUSED(Call(DEVPLUG_OP_add).in(f32, {2, 3}).in(f32, {3, 2}).out(f32, {2, 3}),
                 "inputs[1] has shape [3, 2] but outputs[0] has shape [2, 3]");
  EXPECT_REFUSED(Call(DEVPLUG_OP_add).in(f32, {2, 3}).in(f32, {1, 3}).out(f32, {2, 3}),
                 "inputs[1] has shape [1, 3]");  // prims do not broadcast
  EXPECT_REFUSED(Call(DEVPLUG_OP_neg).in(f32, {}).out(f32, {1}), "inputs[0] has shape []");
  EXPECT_EQ(Call(DEVPLUG_OP_neg).in(f32, {}).out(f32, {}).check(), "");
  EXPECT_EQ(Call(DEVPLUG_OP_neg).in(f32, {0, 4}).out(f32, {0, 4}).check(), "");
}

TEST(ValidateElementwise, Where) {
  EXPECT_EQ(Call(DEVPLUG_OP_where).in(b, {2}).in(i32, {2}).in(i32, {2}).out(i32, {2}).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_where).in(i8, {2}).in(i32, {2}).in(i32, {2}).out(i32, {2}),
                 "inputs[0]: dtype int8, expected bool");
  EXPECT_REFUSED(Call(DEVPLUG_OP_where).in(b, {2}).in(i32, {2}).in(f32, {2}).out(i32, {2}),
                 "inputs[2]: dtype float32 does not match inputs[1] dtype int32");
  EXPECT_REFUSED(Call(DEVPLUG_OP_where).in(b, {2}).in(i32, {2}).in(i32, {2}).out(b, {2}),
                 "outputs[0]: dtype bool, expected int32");
}

TEST(ValidateElementwise, OutputMayBeExactlyAnInput) {
  Call in_place(DEVPLUG_OP_add);
  in_place.in(f32, {2, 3}).in(f32, {2, 3}).out(f32, {2, 3}).share(false, 1, true, 0);
  EXPECT_EQ(in_place.check(), "");
  // A comparison writing bool over int8 inputs: same element size, same view.
  Call compare(DEVPLUG_OP_eq);
  compare.in(i8, {4}).in(i8, {4}).out(b, {4}).share(false, 0, true, 0);
  EXPECT_EQ(compare.check(), "");
  Call copy(DEVPLUG_OP_copy_strided);
  copy.in(f32, {4}).out(f32, {4}).share(false, 0, true, 0);
  EXPECT_EQ(copy.check(), "");
}

TEST(ValidateElementwise, OutputMayNotPartlyOverlapAnInput) {
  Call shifted(DEVPLUG_OP_neg);
  shifted.in(f32, {4}).out(f32, {4}).share(false, 0, true, 0);
  shifted.output(0).offset = 1;
  EXPECT_REFUSED(shifted, "outputs[0] overlaps inputs[0] without being exactly the same view");
  Call transposed(DEVPLUG_OP_neg);
  transposed.in(f32, {2, 2}).out(f32, {2, 2}).share(false, 0, true, 0);
  std::swap(transposed.output(0).strides[0], transposed.output(0).strides[1]);
  EXPECT_REFUSED(transposed, "outputs[0] overlaps inputs[0]");
  Call wider(DEVPLUG_OP_signbit);  // float32 in, bool out over the same bytes
  wider.in(f32, {4}).out(b, {4}).share(false, 0, true, 0);
  EXPECT_REFUSED(wider, "same element size");
  Call convert(DEVPLUG_OP_convert_element_type);
  convert.in(f32, {4}).out(f64, {4}).share(false, 0, true, 0);
  EXPECT_REFUSED(convert, "outputs[0] overlaps inputs[0]");
  Call disjoint(DEVPLUG_OP_neg);  // same storage, different elements: fine
  disjoint.in(f32, {4}).out(f32, {4}).share(false, 0, true, 0);
  disjoint.output(0).offset = 4;
  EXPECT_EQ(disjoint.check(), "");
}

TEST(ValidateElementwise, OutputMayNotOverlapItself) {
  Call expanded(DEVPLUG_OP_exp);
  expanded.in(f32, {2, 3}).out(f32, {2, 3});
  expanded.output(0).strides[0] = 0;
  EXPECT_REFUSED(expanded, "outputs[0] overlaps itself");
  Call window(DEVPLUG_OP_exp);
  window.in(f32, {3, 3}).out(f32, {3, 3});
  window.output(0).strides[0] = 1;
  EXPECT_REFUSED(window, "outputs[0] overlaps itself");
  Call broadcast_input(DEVPLUG_OP_exp);  // stride-0 inputs are fine
  broadcast_input.in(f32, {2, 3}).out(f32, {2, 3});
  broadcast_input.input(0).strides[0] = 0;
  EXPECT_EQ(broadcast_input.check(), "");
}

// ---- data ------------------------------------------------------------------------------

TEST(ValidateData, ConvertCopyFillIota) {
  EXPECT_EQ(Call(DEVPLUG_OP_convert_element_type).in(f32, {3}).out(b, {3}).check(), "");
  EXPECT_EQ(Call(DEVPLUG_OP_convert_element_type).in(b, {3}).out(f16, {3}).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_convert_element_type).in(f32, {3}).out(b, {4}), "shape");
  EXPECT_REFUSED(Call(DEVPLUG_OP_copy_strided).in(f32, {3}).out(i32, {3}),
                 "outputs[0]: dtype int32, expected float32");
  devplug_fill_attrs_t fill{sizeof(fill), {2.0, 2}};
  EXPECT_EQ(Call(DEVPLUG_OP_fill).out(b, {2, 2}).attrs(&fill).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_fill).out(f32, {2}), "attrs is NULL, but op fill takes attributes");
  devplug_iota_attrs_t iota{sizeof(iota), {0, 0}, {1, 1}};
  EXPECT_REFUSED(Call(DEVPLUG_OP_iota).out(b, {3}).attrs(&iota),
                 "op iota does not allow dtype bool (outputs[0])");
  Call overlapping_fill(DEVPLUG_OP_fill);
  overlapping_fill.out(f32, {3}).attrs(&fill);
  overlapping_fill.output(0).strides[0] = 0;
  EXPECT_REFUSED(overlapping_fill, "overlaps itself");
}

// ---- reductions ------------------------------------------------------------------------

TEST(ValidateReduce, ShapesAndAttrs) {
  devplug_reduce_attrs_t r{sizeof(r), 0b101u, 0.0};
  EXPECT_EQ(Call(DEVPLUG_OP_sum).in(f32, {2, 3, 4}).out(f32, {1, 3, 1}).attrs(&r).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_sum).in(f32, {2, 3, 4}).out(f32, {3}).attrs(&r),
                 "outputs[0] has rank 1 but the input has rank 3");
  EXPECT_REFUSED(Call(DEVPLUG_OP_sum).in(f32, {2, 3, 4}).out(f32, {2, 3, 1}).attrs(&r),
                 "outputs[0].shape[0] is 2, expected 1");
  EXPECT_REFUSED(Call(DEVPLUG_OP_sum).in(f32, {2, 3, 4}).out(f32, {1, 2, 1}).attrs(&r),
                 "outputs[0].shape[1] is 2, expected 3");
  devplug_reduce_attrs_t past_rank{sizeof(r), 0b1000u, 0.0};
  EXPECT_REFUSED(Call(DEVPLUG_OP_sum).in(f32, {2, 3, 4}).out(f32, {2, 3, 4}).attrs(&past_rank),
                 "attrs.dims_mask is 0x8");
  devplug_reduce_attrs_t none{sizeof(r), 0u, 0.0};
  EXPECT_EQ(Call(DEVPLUG_OP_prod).in(i32, {}).out(i32, {}).attrs(&none).check(), "");
  EXPECT_EQ(Call(DEVPLUG_OP_argmax).in(f32, {2, 3}).out(i64, {2, 1}).attrs(&past_rank).check(),
            "attrs.dims_mask is 0x8: it names a dim at or past the input's rank 2");
  devplug_reduce_attrs_t last{sizeof(r), 0b10u, 0.0};
  EXPECT_EQ(Call(DEVPLUG_OP_argmax).in(f32, {2, 3}).out(i64, {2, 1}).attrs(&last).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_argmax).in(f32, {2, 3}).out(f32, {2, 1}).attrs(&last),
                 "outputs[0]: dtype float32, expected int64");
  EXPECT_REFUSED(Call(DEVPLUG_OP_any).in(f32, {2, 3}).out(f32, {2, 1}).attrs(&last), "expected bool");
}

TEST(ValidateReduce, EmptyReductions) {
  devplug_reduce_attrs_t r{sizeof(r), 0b1u, 0.0};
  EXPECT_EQ(Call(DEVPLUG_OP_sum).in(f32, {0, 3}).out(f32, {1, 3}).attrs(&r).check(), "");
  EXPECT_EQ(Call(DEVPLUG_OP_all).in(b, {0, 3}).out(b, {1, 3}).attrs(&r).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_amax).in(f32, {0, 3}).out(f32, {1, 3}).attrs(&r),
                 "inputs[0].shape[0] is 0: amax of an empty set has no value");
  EXPECT_REFUSED(Call(DEVPLUG_OP_argmin).in(f32, {0, 3}).out(i64, {1, 3}).attrs(&r),
                 "argmin of an empty set");
  // Reducing a non-empty dim of an empty tensor is fine: the output is empty too.
  EXPECT_EQ(Call(DEVPLUG_OP_amin).in(f32, {3, 0}).out(f32, {1, 0}).attrs(&r).check(), "");
}

TEST(ValidateReduce, VarCorrection) {
  for (double good : {0.0, 1.0, 1e9}) {
    devplug_reduce_attrs_t r{sizeof(r), 0b1u, good};
    EXPECT_EQ(Call(DEVPLUG_OP_var).in(f64, {4}).out(f64, {1}).attrs(&r).check(), "");
  }
  for (double bad : {-1.0, std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    devplug_reduce_attrs_t r{sizeof(r), 0b1u, bad};
    EXPECT_REFUSED(Call(DEVPLUG_OP_var).in(f64, {4}).out(f64, {1}).attrs(&r), "attrs.correction");
  }
  devplug_reduce_attrs_t ignored{sizeof(ignored), 0b1u, -1.0};  // only var reads it
  EXPECT_EQ(Call(DEVPLUG_OP_sum).in(f64, {4}).out(f64, {1}).attrs(&ignored).check(), "");
}

// ---- scans -----------------------------------------------------------------------------

TEST(ValidateScan, DimAndShape) {
  devplug_dim_attrs_t d1{sizeof(d1), 1}, d2{sizeof(d2), 2}, neg{sizeof(neg), -1}, d0{sizeof(d0), 0};
  EXPECT_EQ(Call(DEVPLUG_OP_cumsum).in(i64, {2, 3}).out(i64, {2, 3}).attrs(&d1).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cumsum).in(i64, {2, 3}).out(i64, {2, 3}).attrs(&d2),
                 "attrs.dim is 2, expected [0, 2)");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cumprod).in(i64, {2, 3}).out(i64, {2, 3}).attrs(&neg), "attrs.dim is -1");
  EXPECT_EQ(Call(DEVPLUG_OP_cumprod).in(f32, {}).out(f32, {}).attrs(&d0).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cumprod).in(f32, {}).out(f32, {}).attrs(&d1), "attrs.dim is 1");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cumsum).in(f32, {2, 3}).out(f32, {3, 2}).attrs(&d1),
                 "outputs[0] has shape [3, 2]");
}

// ---- indexing --------------------------------------------------------------------------

TEST(ValidateIndex, IndexSelect) {
  devplug_dim_attrs_t d1{sizeof(d1), 1}, d2{sizeof(d2), 2};
  EXPECT_EQ(Call(DEVPLUG_OP_index_select).in(f32, {4, 3}).in(i64, {5}).out(f32, {4, 5}).attrs(&d1).check(),
            "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_index_select).in(f32, {4, 3}).in(i32, {5}).out(f32, {4, 5}).attrs(&d1),
                 "inputs[1]: dtype int32, expected int64 (index tensors are int64)");
  EXPECT_REFUSED(Call(DEVPLUG_OP_index_select).in(f32, {4, 3}).in(i64, {5, 1}).out(f32, {4, 5}).attrs(&d1),
                 "inputs[1] (index) has rank 2, expected 1");
  EXPECT_REFUSED(Call(DEVPLUG_OP_index_select).in(f32, {4, 3}).in(i64, {5}).out(f32, {5, 3}).attrs(&d1),
                 "outputs[0] has shape [5, 3]");
  EXPECT_REFUSED(Call(DEVPLUG_OP_index_select).in(f32, {4, 3}).in(i64, {5}).out(f32, {4, 5}).attrs(&d2),
                 "attrs.dim is 2");
  EXPECT_REFUSED(Call(DEVPLUG_OP_index_select).in(f32, {}).in(i64, {1}).out(f32, {}).attrs(&d1), "0-d");
}

TEST(ValidateIndex, Gather) {
  devplug_dim_attrs_t d0{sizeof(d0), 0};
  EXPECT_EQ(Call(DEVPLUG_OP_gather).in(i8, {4, 3}).in(i64, {6, 2}).out(i8, {6, 2}).attrs(&d0).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_gather).in(i8, {4, 3}).in(i64, {6, 4}).out(i8, {6, 4}).attrs(&d0),
                 "inputs[1].shape[1] is 4, above inputs[0].shape[1] = 3");
  EXPECT_REFUSED(Call(DEVPLUG_OP_gather).in(i8, {4, 3}).in(i64, {6}).out(i8, {6}).attrs(&d0),
                 "inputs[1] (index) has rank 1, expected the input's rank 2");
  EXPECT_REFUSED(Call(DEVPLUG_OP_gather).in(i8, {4, 3}).in(i64, {6, 2}).out(i8, {4, 3}).attrs(&d0),
                 "outputs[0] has shape [4, 3] but inputs[1] has shape [6, 2]");
  EXPECT_REFUSED(Call(DEVPLUG_OP_gather).in(i8, {4, 3}).in(i64, {6, 2}).out(i32, {6, 2}).attrs(&d0),
                 "outputs[0]: dtype int32, expected int8");
}

TEST(ValidateIndex, Scatter) {
  devplug_dim_attrs_t d1{sizeof(d1), 1};
  EXPECT_EQ(Call(DEVPLUG_OP_scatter)
                .in(f32, {4, 3})
                .in(i64, {2, 5})
                .in(f32, {3, 6})
                .out(f32, {4, 3})
                .attrs(&d1)
                .check(),
            "");
  EXPECT_REFUSED(
      Call(DEVPLUG_OP_scatter).in(f32, {4, 3}).in(i64, {2, 5}).in(f64, {3, 6}).out(f32, {4, 3}).attrs(&d1),
      "inputs[2]: dtype float64 does not match inputs[0] dtype float32");
  EXPECT_REFUSED(Call(DEVPLUG_OP_scatter_add)
                     .in(f32, {4, 3})
                     .in(i64, {2, 5})
                     .in(f32, {3, 4})
                     .out(f32, {4, 3})
                     .attrs(&d1),
                 "inputs[1].shape[1] is 5, above inputs[2].shape[1] = 4");
  EXPECT_REFUSED(Call(DEVPLUG_OP_scatter_add)
                     .in(f32, {4, 3})
                     .in(i64, {5, 5})
                     .in(f32, {6, 6})
                     .out(f32, {4, 3})
                     .attrs(&d1),
                 "inputs[1].shape[0] is 5, above inputs[0].shape[0] = 4");
  EXPECT_REFUSED(
      Call(DEVPLUG_OP_scatter).in(f32, {4, 3}).in(i64, {2, 5}).in(f32, {3, 6}).out(f32, {2, 5}).attrs(&d1),
      "outputs[0] has shape [2, 5] but inputs[0] has shape [4, 3]");
  EXPECT_REFUSED(
      Call(DEVPLUG_OP_scatter).in(f32, {4, 3}).in(i64, {2, 5}).in(f32, {6}).out(f32, {4, 3}).attrs(&d1),
      "inputs[2] (src) has rank 1");
  Call in_place(DEVPLUG_OP_scatter);  // not elementwise: may not write over its input
  in_place.in(f32, {4, 3}).in(i64, {2, 3}).in(f32, {2, 3}).out(f32, {4, 3}).attrs(&d1);
  in_place.share(false, 0, true, 0);
  EXPECT_REFUSED(in_place, "outputs[0] overlaps inputs[0]; this op cannot write over its inputs");
}

// ---- shape ops -------------------------------------------------------------------------

TEST(ValidateShape, Cat) {
  devplug_dim_attrs_t d1{sizeof(d1), 1}, d2{sizeof(d2), 2};
  EXPECT_EQ(Call(DEVPLUG_OP_cat)
                .in(f32, {2, 3})
                .in(f32, {2, 0})
                .in(f32, {2, 4})
                .out(f32, {2, 7})
                .attrs(&d1)
                .check(),
            "");
  EXPECT_EQ(Call(DEVPLUG_OP_cat).in(f32, {2, 3}).out(f32, {2, 3}).attrs(&d1).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cat).in(f32, {2, 3}).in(f32, {3, 3}).out(f32, {2, 6}).attrs(&d1),
                 "inputs[1] has shape [3, 3] but inputs[0] has shape [2, 3]");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cat).in(f32, {2, 3}).in(f32, {2}).out(f32, {2, 6}).attrs(&d1),
                 "inputs[1] has rank 1");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cat).in(f32, {2, 3}).in(f32, {2, 3}).out(f32, {2, 5}).attrs(&d1),
                 "dim 1 must be 6");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cat).in(f32, {2, 3}).in(f32, {2, 3}).out(f32, {2, 6}).attrs(&d2),
                 "attrs.dim is 2");
  EXPECT_REFUSED(Call(DEVPLUG_OP_cat).in(f32, {2, 3}).in(i32, {2, 3}).out(f32, {2, 6}).attrs(&d1),
                 "inputs[1]: dtype int32 does not match");
}

TEST(ValidateShape, FlipAndPad) {
  devplug_flip_attrs_t flip{sizeof(flip), 0b11u}, past{sizeof(past), 0b100u};
  EXPECT_EQ(Call(DEVPLUG_OP_flip).in(b, {2, 3}).out(b, {2, 3}).attrs(&flip).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_flip).in(b, {2, 3}).out(b, {2, 3}).attrs(&past), "attrs.dims_mask is 0x4");
  EXPECT_REFUSED(Call(DEVPLUG_OP_flip).in(b, {2, 3}).out(b, {3, 2}).attrs(&flip), "shape");
  devplug_pad_attrs_t pad{sizeof(pad), {1, -2}, {2, 0}, {0, 0}};
  EXPECT_EQ(Call(DEVPLUG_OP_constant_pad).in(f32, {2, 3}).out(f32, {5, 1}).attrs(&pad).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_constant_pad).in(f32, {2, 3}).out(f32, {5, 2}).attrs(&pad),
                 "outputs[0].shape[1] is 2, expected 1");
  devplug_pad_attrs_t crop{sizeof(crop), {0, -2}, {0, -2}, {0, 0}};
  EXPECT_REFUSED(Call(DEVPLUG_OP_constant_pad).in(f32, {2, 3}).out(f32, {2, 0}).attrs(&crop),
                 "attrs.before[1] + attrs.after[1]");
  devplug_pad_attrs_t huge{sizeof(huge), {INT64_MAX, 0}, {INT64_MAX, 0}, {0, 0}};
  EXPECT_REFUSED(Call(DEVPLUG_OP_constant_pad).in(f32, {2, 3}).out(f32, {2, 3}).attrs(&huge),
                 "outputs[0].shape[0]");
  EXPECT_REFUSED(Call(DEVPLUG_OP_constant_pad).in(f32, {2, 3}).out(f32, {5}).attrs(&pad),
                 "outputs[0] has rank 1");
}

// ---- linear algebra and random ---------------------------------------------------------

TEST(ValidateLinalg, Matmul) {
  devplug_matmul_attrs_t m{sizeof(m), 0u}, tf32{sizeof(m), DEVPLUG_MATMUL_ALLOW_TF32},
      unknown{sizeof(m), 0x10u};
  EXPECT_EQ(
      Call(DEVPLUG_OP_matmul).in(f32, {7, 2, 3}).in(f32, {7, 3, 4}).out(f32, {7, 2, 4}).attrs(&m).check(),
      "");
  EXPECT_EQ(Call(DEVPLUG_OP_matmul).in(f32, {2, 0}).in(f32, {0, 4}).out(f32, {2, 4}).attrs(&tf32).check(),
            "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_matmul).in(f32, {2, 3}).in(f32, {2, 4}).out(f32, {2, 4}).attrs(&m),
                 "inputs[0] has K = 3 columns but inputs[1] has 2 rows");
  EXPECT_REFUSED(Call(DEVPLUG_OP_matmul).in(f32, {7, 2, 3}).in(f32, {1, 3, 4}).out(f32, {7, 2, 4}).attrs(&m),
                 "batch dim 0 differs");
  EXPECT_REFUSED(Call(DEVPLUG_OP_matmul).in(f32, {2, 3}).in(f32, {3, 4}).out(f32, {4, 2}).attrs(&m),
                 "outputs[0] is 4 x 2, expected M x N = 2 x 4");
  EXPECT_REFUSED(Call(DEVPLUG_OP_matmul).in(f32, {3}).in(f32, {3}).out(f32, {}).attrs(&m),
                 "matmul needs rank >= 2");
  EXPECT_REFUSED(Call(DEVPLUG_OP_matmul).in(f32, {2, 3}).in(f32, {1, 2, 3}).out(f32, {2, 3}).attrs(&m),
                 "one rank");
  EXPECT_REFUSED(Call(DEVPLUG_OP_matmul).in(i32, {2, 3}).in(i32, {3, 4}).out(i32, {2, 4}).attrs(&m),
                 "op matmul does not allow dtype int32");
  EXPECT_REFUSED(Call(DEVPLUG_OP_matmul).in(f32, {2, 3}).in(f32, {3, 4}).out(f32, {2, 4}).attrs(&unknown),
                 "attrs.flags is 0x10");
}

TEST(ValidateRandom, Philox) {
  devplug_philox_attrs_t p{sizeof(p), 1, 2};
  EXPECT_EQ(Call(DEVPLUG_OP_philox_bits).out(i64, {5, 0, 3}).attrs(&p).check(), "");
  EXPECT_REFUSED(Call(DEVPLUG_OP_philox_bits).out(f32, {5}).attrs(&p),
                 "op philox_bits does not allow dtype float32 (outputs[0])");
  EXPECT_REFUSED(Call(DEVPLUG_OP_philox_normal).in(f32, {5}).out(f32, {5}).attrs(&p),
                 "n_inputs is 1, op philox_normal takes 0");
  Call overlapping(DEVPLUG_OP_philox_uniform);
  overlapping.out(f64, {4, 4}).attrs(&p);
  overlapping.output(0).strides[1] = 2;
  overlapping.output(0).strides[0] = 3;
  EXPECT_REFUSED(overlapping, "overlaps itself");
}

}  // namespace
}  // namespace devplug::detail
