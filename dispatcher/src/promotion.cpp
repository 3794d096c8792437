// SPDX-License-Identifier: Apache-2.0
// PyTorch's type promotion between two tensor dtypes, broadcasting, and the output dtype
// of a prim from ops.def's `result` column.
#include "promotion.hpp"

#include <cstdio>

namespace devplug::detail {
namespace {

bool is_float(devplug_dtype_t d) { return (DEVPLUG_DTYPES_FLOAT & DEVPLUG_DTYPE_BIT(d)) != 0; }

}  // namespace

devplug_dtype_t promote_types(devplug_dtype_t a, devplug_dtype_t b) {
  if (devplug_dtype_size(a) == 0 || devplug_dtype_size(b) == 0) return -1;
  if (a == b) return a;
  if (a == DEVPLUG_DTYPE_BOOL) return b;
  if (b == DEVPLUG_DTYPE_BOOL) return a;
  if (is_float(a) != is_float(b)) return is_float(a) ? a : b;  // a float beats any integer
  if (is_float(a)) {
    // float16 and bfloat16 hold different ranges, so they meet in float32. Otherwise the
    // wider float wins (the enum orders float16/bfloat16 < float32 < float64).
    bool both_16 = devplug_dtype_size(a) == 2 && devplug_dtype_size(b) == 2;
    if (both_16) return DEVPLUG_DTYPE_FLOAT32;
    return a > b ? a : b;
  }
  // Integers: uint8 with int8 needs int16 to hold both ranges; otherwise the wider one
  // (uint8 with a wider signed type fits in it). The enum orders int8 < ... < int64.
  if ((a == DEVPLUG_DTYPE_UINT8 && b == DEVPLUG_DTYPE_INT8) ||
      (a == DEVPLUG_DTYPE_INT8 && b == DEVPLUG_DTYPE_UINT8))
    return DEVPLUG_DTYPE_INT16;
  return a > b ? a : b;
}

Problem broadcast_shapes(int32_t rank_a, const int64_t* shape_a, int32_t rank_b, const int64_t* shape_b,
                         int32_t* out_rank, int64_t* out_shape) {
  char text[256];
  const char* names[2] = {"shape_a", "shape_b"};
  const int32_t ranks[2] = {rank_a, rank_b};
  const int64_t* shapes[2] = {shape_a, shape_b};
  for (int i = 0; i < 2; ++i) {
    if (ranks[i] < 0 || ranks[i] > DEVPLUG_MAX_RANK) {
      std::snprintf(text, sizeof(text), "rank_%c is %d, expected [0, %d]", 'a' + i, ranks[i],
                    DEVPLUG_MAX_RANK);
      return Problem(text);
    }
    if (ranks[i] > 0 && shapes[i] == nullptr) {
      std::snprintf(text, sizeof(text), "%s is NULL with rank %d", names[i], ranks[i]);
      return Problem(text);
    }
    for (int32_t d = 0; d < ranks[i]; ++d) {
      if (shapes[i][d] < 0) {
        std::snprintf(text, sizeof(text), "%s[%d] is %lld, dims must be >= 0", names[i], d,
                      static_cast<long long>(shapes[i][d]));
        return Problem(text);
      }
    }
  }
  const int32_t rank = rank_a > rank_b ? rank_a : rank_b;
  int64_t result[DEVPLUG_MAX_RANK];
  for (int32_t k = 0; k < rank; ++k) {  // k counts from the right
    int32_t da = rank_a - 1 - k, db = rank_b - 1 - k;
    int64_t a = da >= 0 ? shape_a[da] : 1;
    int64_t b = db >= 0 ? shape_b[db] : 1;
    if (a != b && a != 1 && b != 1) {
      std::snprintf(text, sizeof(text),
                    "shape_a[%d] = %lld and shape_b[%d] = %lld do not broadcast (sizes must "
                    "match or be 1)",
                    da, static_cast<long long>(a), db, static_cast<long long>(b));
      return Problem(text);
    }
    result[rank - 1 - k] = a == 1 ? b : a;
  }
  if (out_rank) *out_rank = rank;
  if (out_shape)
    for (int32_t d = 0; d < rank; ++d) out_shape[d] = result[d];
  return Problem();
}

devplug_dtype_t elementwise_result_dtype(devplug_op_t op, devplug_dtype_t computation) {
  const devplug_op_info_t* info = devplug_op_info(op);
  if (info == nullptr) return -1;
  switch (info->result) {
    case DEVPLUG_RESULT_bool:
      return DEVPLUG_DTYPE_BOOL;
    case DEVPLUG_RESULT_int64:
      return DEVPLUG_DTYPE_INT64;
    default:
      return computation;
  }
}

}  // namespace devplug::detail
