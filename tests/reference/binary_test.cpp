// SPDX-License-Identifier: Apache-2.0
// Binary, comparison and where ops of the reference backend against expectations computed
// apart from its kernels: hand-written tables of edge values for floats, integer results
// computed in __int128 and wrapped by masking, truth tables for bool, and random floats
// against long double arithmetic.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"

namespace rt = devplug::reftest;
namespace sdk = devplug::sdk;

namespace {

// Shared with the other elementwise tests (harness.hpp).
using rt::kFloatDtypes;
using rt::kInf;
using rt::kNaN;
using rt::kPiL;
using rt::to_dtype;

// Runs a binary or comparison op on float inputs (representable in `dtype`).
std::vector<double> run_binary(devplug_op_t op, devplug_dtype_t dtype, const std::vector<double>& a,
                               const std::vector<double>& b) {
  const devplug_dtype_t out_dtype =
      devplug_op_info(op)->result == DEVPLUG_RESULT_bool ? DEVPLUG_DTYPE_BOOL : dtype;
  const int64_t n = static_cast<int64_t>(a.size());
  rt::Tensor ta = rt::make_tensor(dtype, {n}), tb = rt::make_tensor(dtype, {n}),
             out = rt::make_tensor(out_dtype, {n});
  rt::write_doubles(ta, a);
  rt::write_doubles(tb, b);
  const rt::Result r = rt::run(op, {&ta, &tb}, {&out});
  if (!r.ok()) {
    ADD_FAILURE() << devplug_op_name(op) << " " << devplug_dtype_name(dtype) << ": " << r.message;
    return std::vector<double>(a.size(), kNaN);
  }
  return rt::read_doubles(out);
}

std::string describe(devplug_op_t op, devplug_dtype_t dtype, double a, double b) {
  char text[200];
  std::snprintf(text, sizeof text, "%s %s a=%.17g b=%.17g", devplug_op_name(op), devplug_dtype_name(dtype), a,
                b);
  return text;
}

// ---- floats: edge values ------------------------------------------------------------------

struct Edge {
  devplug_op_t op;
  double a, b;
  long double expected;
};

const std::vector<Edge>& edges() {
  static const std::vector<Edge> table = {
      {DEVPLUG_OP_add, kInf, -kInf, kNaN},
      {DEVPLUG_OP_add, -0.0, -0.0, -0.0},
      {DEVPLUG_OP_add, 0.0, -0.0, 0.0},
      {DEVPLUG_OP_add, 1, 2, 3},
      {DEVPLUG_OP_add, kNaN, 1, kNaN},
      {DEVPLUG_OP_sub, kInf, kInf, kNaN},
      {DEVPLUG_OP_sub, 0.0, 0.0, 0.0},
      {DEVPLUG_OP_sub, -0.0, 0.0, -0.0},
      {DEVPLUG_OP_mul, 0.0, kInf, kNaN},
      {DEVPLUG_OP_mul, -0.0, 1, -0.0},
      {DEVPLUG_OP_mul, -2, 3, -6},
      {DEVPLUG_OP_div, 1, 0.0, kInf},
      {DEVPLUG_OP_div, -1, 0.0, -kInf},
      {DEVPLUG_OP_div, 0.0, 0.0, kNaN},
      {DEVPLUG_OP_div, 1, -0.0, -kInf},
      {DEVPLUG_OP_div, 6, 4, 1.5},
      {DEVPLUG_OP_div, 1, 3, 1.0L / 3},
      {DEVPLUG_OP_div, kInf, kInf, kNaN},
      {DEVPLUG_OP_remainder, 5, 3, 2},
      {DEVPLUG_OP_remainder, -5, 3, 1},
      {DEVPLUG_OP_remainder, 5, -3, -1},
      {DEVPLUG_OP_remainder, -5, -3, -2},
      {DEVPLUG_OP_remainder, 5, 0.0, kNaN},
      {DEVPLUG_OP_remainder, kInf, 3, kNaN},
      {DEVPLUG_OP_remainder, 3, kInf, 3},
      {DEVPLUG_OP_remainder, -3, kInf, kInf},
      {DEVPLUG_OP_remainder, 6, 3, 0.0},
      {DEVPLUG_OP_remainder, -6, 3, 0.0},
      {DEVPLUG_OP_remainder, 6, -3, -0.0},
      {DEVPLUG_OP_remainder, 5.5, 2, 1.5},
      {DEVPLUG_OP_remainder, -5.5, 2, 0.5},
      {DEVPLUG_OP_fmod, 5, 3, 2},
      {DEVPLUG_OP_fmod, -5, 3, -2},
      {DEVPLUG_OP_fmod, 5, -3, 2},
      {DEVPLUG_OP_fmod, 5, 0.0, kNaN},
      {DEVPLUG_OP_fmod, -6, 3, -0.0},
      {DEVPLUG_OP_fmod, 3, kInf, 3},
      {DEVPLUG_OP_fmod, kInf, 2, kNaN},
      {DEVPLUG_OP_fmod, -5.5, 2, -1.5},
      {DEVPLUG_OP_pow, 0.0, -1, kInf},
      {DEVPLUG_OP_pow, -0.0, -1, -kInf},
      {DEVPLUG_OP_pow, kNaN, 0.0, 1},
      {DEVPLUG_OP_pow, 1, kNaN, 1},
      {DEVPLUG_OP_pow, 2, 10, 1024},
      {DEVPLUG_OP_pow, -2, 3, -8},
      {DEVPLUG_OP_pow, -2, 0.5, kNaN},
      {DEVPLUG_OP_pow, 2, -1, 0.5},
      {DEVPLUG_OP_pow, kInf, -1, 0.0},
      {DEVPLUG_OP_pow, -kInf, 3, -kInf},
      {DEVPLUG_OP_pow, 4, 0.5, 2},
      {DEVPLUG_OP_pow, -1, kInf, 1},
      {DEVPLUG_OP_atan2, 0.0, -0.0, kPiL},
      {DEVPLUG_OP_atan2, -0.0, -0.0, -kPiL},
      {DEVPLUG_OP_atan2, 1, 0.0, kPiL / 2},
      {DEVPLUG_OP_atan2, kInf, kInf, kPiL / 4},
      {DEVPLUG_OP_atan2, -0.0, 1, -0.0},
      {DEVPLUG_OP_atan2, -1, -kInf, -kPiL},
      {DEVPLUG_OP_hypot, kInf, kNaN, kInf},
      {DEVPLUG_OP_hypot, kNaN, -kInf, kInf},
      {DEVPLUG_OP_hypot, 3, 4, 5},
      {DEVPLUG_OP_hypot, kNaN, 1, kNaN},
      {DEVPLUG_OP_hypot, -0.0, -0.0, 0.0},
      {DEVPLUG_OP_copysign, 1, -0.0, -1},
      {DEVPLUG_OP_copysign, -1, 0.0, 1},
      {DEVPLUG_OP_copysign, 1, -kNaN, -1},
      {DEVPLUG_OP_copysign, kInf, -2, -kInf},
      {DEVPLUG_OP_copysign, -0.0, 1, 0.0},
      {DEVPLUG_OP_copysign, 0.0, -1, -0.0},
      {DEVPLUG_OP_maximum, kNaN, 1, kNaN},
      {DEVPLUG_OP_maximum, 1, kNaN, kNaN},
      {DEVPLUG_OP_maximum, -0.0, 0.0, 0.0},
      {DEVPLUG_OP_maximum, 0.0, -0.0, 0.0},
      {DEVPLUG_OP_maximum, 1, 2, 2},
      {DEVPLUG_OP_maximum, -kInf, 3, 3},
      {DEVPLUG_OP_minimum, -0.0, 0.0, -0.0},
      {DEVPLUG_OP_minimum, 0.0, -0.0, -0.0},
      {DEVPLUG_OP_minimum, kNaN, 1, kNaN},
      {DEVPLUG_OP_minimum, 1, kNaN, kNaN},
      {DEVPLUG_OP_minimum, 1, -2, -2},
      {DEVPLUG_OP_fmax, kNaN, 1, 1},
      {DEVPLUG_OP_fmax, 1, kNaN, 1},
      {DEVPLUG_OP_fmax, kNaN, kNaN, kNaN},
      {DEVPLUG_OP_fmax, -0.0, 0.0, 0.0},
      {DEVPLUG_OP_fmax, 0.0, -0.0, 0.0},
      {DEVPLUG_OP_fmax, -3, -kInf, -3},
      {DEVPLUG_OP_fmin, kNaN, 1, 1},
      {DEVPLUG_OP_fmin, 1, kNaN, 1},
      {DEVPLUG_OP_fmin, -0.0, 0.0, -0.0},
      {DEVPLUG_OP_fmin, 0.0, -0.0, -0.0},
      {DEVPLUG_OP_fmin, kNaN, kNaN, kNaN},
      {DEVPLUG_OP_eq, kNaN, kNaN, 0},
      {DEVPLUG_OP_eq, -0.0, 0.0, 1},
      {DEVPLUG_OP_eq, 1, 1, 1},
      {DEVPLUG_OP_eq, kInf, kInf, 1},
      {DEVPLUG_OP_ne, kNaN, kNaN, 1},
      {DEVPLUG_OP_ne, kNaN, 1, 1},
      {DEVPLUG_OP_ne, -0.0, 0.0, 0},
      {DEVPLUG_OP_lt, kNaN, 1, 0},
      {DEVPLUG_OP_lt, 1, kNaN, 0},
      {DEVPLUG_OP_lt, -0.0, 0.0, 0},
      {DEVPLUG_OP_lt, -kInf, 0, 1},
      {DEVPLUG_OP_le, kNaN, kNaN, 0},
      {DEVPLUG_OP_le, -0.0, 0.0, 1},
      {DEVPLUG_OP_le, 2, 1, 0},
      {DEVPLUG_OP_gt, kNaN, 1, 0},
      {DEVPLUG_OP_gt, kInf, 1, 1},
      {DEVPLUG_OP_gt, 0.0, -0.0, 0},
      {DEVPLUG_OP_ge, kNaN, 1, 0},
      {DEVPLUG_OP_ge, 0.0, -0.0, 1},
      {DEVPLUG_OP_ge, 1, 2, 0},
  };
  return table;
}

TEST(BinaryFloat, EdgeValuesEveryFloatDtype) {
  for (devplug_dtype_t dtype : kFloatDtypes) {
    for (const Edge& e : edges()) {
      const double got = run_binary(e.op, dtype, {e.a}, {e.b})[0];
      const bool bool_out = devplug_op_info(e.op)->result == DEVPLUG_RESULT_bool;
      const double expected = bool_out ? static_cast<double>(e.expected) : to_dtype(dtype, e.expected);
      EXPECT_TRUE(rt::same_value(got, expected))
          << describe(e.op, dtype, e.a, e.b) << ": got " << got << ", expected " << expected;
    }
  }
}

TEST(BinaryFloat, CopysignTakesTheSignOfNaNAndKeepsNaN) {
  for (devplug_dtype_t dtype : kFloatDtypes) {
    const std::vector<double> r = run_binary(DEVPLUG_OP_copysign, dtype, {kNaN, -kNaN, 2}, {-1, 1, -kNaN});
    EXPECT_TRUE(std::isnan(r[0]) && std::signbit(r[0])) << devplug_dtype_name(dtype);
    EXPECT_TRUE(std::isnan(r[1]) && !std::signbit(r[1])) << devplug_dtype_name(dtype);
    EXPECT_EQ(r[2], -2) << devplug_dtype_name(dtype);
  }
}

// nextafter in each dtype's own format: the steps are that format's, not double's.
TEST(BinaryFloat, NextafterStepsInTheDtypesFormat) {
  struct Format {
    devplug_dtype_t dtype;
    double epsilon, min_subnormal, max_finite;
  };
  const Format formats[] = {
      {DEVPLUG_DTYPE_FLOAT16, std::ldexp(1.0, -10), std::ldexp(1.0, -24), 65504},
      {DEVPLUG_DTYPE_BFLOAT16, std::ldexp(1.0, -7), std::ldexp(1.0, -133), std::ldexp(255.0, 120)},
      {DEVPLUG_DTYPE_FLOAT32, std::ldexp(1.0, -23), std::ldexp(1.0, -149), std::numeric_limits<float>::max()},
      {DEVPLUG_DTYPE_FLOAT64, std::ldexp(1.0, -52), std::numeric_limits<double>::denorm_min(),
       std::numeric_limits<double>::max()},
  };
  for (const Format& f : formats) {
    const std::vector<double> a = {1, 1, 0.0, 0.0, -0.0, 1, kNaN, 1, f.max_finite, kInf, -f.min_subnormal,
                                   2, -1};
    const std::vector<double> b = {2, 0, 1, -1, 0.0, 1, 1, kNaN, kInf, 0, 0, 0, -2};
    const std::vector<double> expected = {1 + f.epsilon,
                                          1 - f.epsilon / 2,
                                          f.min_subnormal,
                                          -f.min_subnormal,
                                          0.0,
                                          1,
                                          kNaN,
                                          kNaN,
                                          kInf,
                                          f.max_finite,
                                          -0.0,
                                          2 - f.epsilon,
                                          -1 - f.epsilon};
    const std::vector<double> got = run_binary(DEVPLUG_OP_nextafter, f.dtype, a, b);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(rt::same_value(got[i], expected[i])) << describe(DEVPLUG_OP_nextafter, f.dtype, a[i], b[i])
                                                       << ": got " << got[i] << ", expected " << expected[i];
  }
}

// ---- floats: random values against long double ---------------------------------------------

struct Reference {
  devplug_op_t op;
  std::function<long double(long double, long double)> f;
  double lo, hi;
  int64_t max_ulp_narrow;  // float16/bfloat16/float32: 0 for correctly rounded basic ops
};

const std::vector<Reference>& references() {
  static const std::vector<Reference> table = {
      {DEVPLUG_OP_add, [](long double a, long double b) { return a + b; }, -1e4, 1e4, 0},
      {DEVPLUG_OP_sub, [](long double a, long double b) { return a - b; }, -1e4, 1e4, 0},
      {DEVPLUG_OP_mul, [](long double a, long double b) { return a * b; }, -1e4, 1e4, 0},
      {DEVPLUG_OP_div, [](long double a, long double b) { return a / b; }, -1e4, 1e4, 0},
      {DEVPLUG_OP_fmod, [](long double a, long double b) { return std::fmod(a, b); }, -1e4, 1e4, 0},
      {DEVPLUG_OP_remainder,
       [](long double a, long double b) {
         long double r = std::fmod(a, b);
         if (r != 0 && ((r < 0) != (b < 0))) r += b;
         return r;
       },
       -1e4, 1e4, 1},
      {DEVPLUG_OP_pow, [](long double a, long double b) { return std::pow(std::fabs(a), b / 1000); }, 0, 1e4,
       1},
      {DEVPLUG_OP_atan2, [](long double a, long double b) { return std::atan2(a, b); }, -1e4, 1e4, 1},
      {DEVPLUG_OP_hypot, [](long double a, long double b) { return std::sqrt(a * a + b * b); }, -1e4, 1e4, 1},
  };
  return table;
}

TEST(BinaryFloat, RandomValuesAgainstLongDouble) {
  for (devplug_dtype_t dtype : kFloatDtypes) {
    uint32_t seed = 11;
    for (const Reference& ref : references()) {
      std::mt19937_64 gen(seed++);
      std::uniform_real_distribution<double> dist(ref.lo, ref.hi);
      std::vector<double> a, b;
      for (int i = 0; i < 3000; ++i) {
        a.push_back(to_dtype(dtype, dist(gen)));
        double y = to_dtype(dtype, dist(gen));
        if (ref.op == DEVPLUG_OP_pow) y = to_dtype(dtype, y / 1000);  // exponents in [0, 10]
        b.push_back(y);
      }
      const std::vector<double> got = run_binary(ref.op, dtype, a, b);
      const int64_t tolerance = dtype == DEVPLUG_DTYPE_FLOAT64 ? 1 : ref.max_ulp_narrow;
      int reported = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        const long double bb = ref.op == DEVPLUG_OP_pow ? static_cast<long double>(b[i]) * 1000 : b[i];
        const double expected = to_dtype(dtype, ref.f(a[i], bb));
        if (rt::ulp_diff(dtype, got[i], expected) > tolerance && reported++ < 5)
          ADD_FAILURE() << describe(ref.op, dtype, a[i], b[i]) << ": got " << got[i] << ", expected "
                        << expected;
      }
    }
  }
}

// ---- integers -------------------------------------------------------------------------------

using rt::for_each_int_type;

template <typename T>
std::vector<T> int_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), static_cast<T>(L::min() + 1), 0, 1, 2, 3, 7, static_cast<T>(L::max() - 1),
                      L::max(), static_cast<T>(L::max() / 3)};
  if constexpr (std::is_signed_v<T>)
    for (T x : {static_cast<T>(-1), static_cast<T>(-2), static_cast<T>(-7), static_cast<T>(L::min() / 3)})
      v.push_back(x);
  std::mt19937_64 gen(5);
  for (int i = 0; i < 6; ++i) v.push_back(static_cast<T>(gen()));
  return v;
}

constexpr int kBitsPerByte = 8;

template <typename T>
T wrap128(__int128 v) {
  const int bits = kBitsPerByte * static_cast<int>(sizeof(T));
  const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << bits) - 1;
  const unsigned __int128 u = static_cast<unsigned __int128>(v) & mask;
  if (std::is_signed_v<T> && (u >> (bits - 1)) != 0)
    return static_cast<T>(static_cast<__int128>(u) - (static_cast<__int128>(1) << bits));
  return static_cast<T>(u);
}

// The bit pattern of x as an unsigned number of T's width.
template <typename T>
unsigned __int128 pattern(T x) {
  return static_cast<std::make_unsigned_t<T>>(x);
}

// Expected integer results; `defined` is false where ops.def leaves the result unspecified.
template <typename T>
bool expected_int(devplug_op_t op, T x, T y, T* out) {
  const __int128 a = x, b = y;
  const int bits = kBitsPerByte * static_cast<int>(sizeof(T));
  switch (op) {
    case DEVPLUG_OP_add:
      *out = wrap128<T>(a + b);
      return true;
    case DEVPLUG_OP_sub:
      *out = wrap128<T>(a - b);
      return true;
    case DEVPLUG_OP_mul:
      *out = wrap128<T>(
          static_cast<__int128>(static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b)));
      return true;
    case DEVPLUG_OP_div:
      if (b == 0) return false;
      *out = wrap128<T>(a / b);  // __int128 division truncates; min / -1 then wraps
      return true;
    case DEVPLUG_OP_fmod:
      if (b == 0) return false;
      *out = wrap128<T>(a % b);
      return true;
    case DEVPLUG_OP_remainder: {
      if (b == 0) return false;
      __int128 r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      *out = wrap128<T>(r);
      return true;
    }
    case DEVPLUG_OP_pow: {
      if (b < 0) {
        if (a == 0) return false;
        *out = a == 1 ? T(1) : a == -1 ? T((b % 2 == 0) ? 1 : -1) : T(0);
        return true;
      }
      // Square and multiply modulo 2^bits.
      unsigned __int128 result = 1, base = static_cast<unsigned __int128>(a);
      const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << bits) - 1;
      for (__int128 e = b; e > 0; e >>= 1) {
        if (e & 1) result = (result * base) & mask;
        base = (base * base) & mask;
      }
      *out = wrap128<T>(static_cast<__int128>(result));
      return true;
    }
    case DEVPLUG_OP_maximum:
    case DEVPLUG_OP_fmax:
      *out = a > b ? x : y;
      return true;
    case DEVPLUG_OP_minimum:
    case DEVPLUG_OP_fmin:
      *out = a < b ? x : y;
      return true;
    case DEVPLUG_OP_bitwise_and:
      *out = wrap128<T>(static_cast<__int128>(pattern(x) & pattern(y)));
      return true;
    case DEVPLUG_OP_bitwise_or:
      *out = wrap128<T>(static_cast<__int128>(pattern(x) | pattern(y)));
      return true;
    case DEVPLUG_OP_bitwise_xor:
      *out = wrap128<T>(static_cast<__int128>(pattern(x) ^ pattern(y)));
      return true;
    case DEVPLUG_OP_shift_left:
      *out =
          (b < 0 || b >= bits) ? T(0) : wrap128<T>(static_cast<__int128>(pattern(x) << static_cast<int>(b)));
      return true;
    case DEVPLUG_OP_shift_right_logical:
      *out =
          (b < 0 || b >= bits) ? T(0) : wrap128<T>(static_cast<__int128>(pattern(x) >> static_cast<int>(b)));
      return true;
    case DEVPLUG_OP_shift_right_arithmetic: {
      if (b < 0 || b >= bits) {
        *out = a < 0 ? T(-1) : T(0);
        return true;
      }
      // floor(a / 2^b)
      const __int128 d = static_cast<__int128>(1) << static_cast<int>(b);
      __int128 q = a / d;
      if (a % d != 0 && a < 0) q -= 1;
      *out = wrap128<T>(q);
      return true;
    }
    case DEVPLUG_OP_gcd: {
      unsigned long long u = static_cast<unsigned long long>(a < 0 ? -a : a);
      unsigned long long v = static_cast<unsigned long long>(b < 0 ? -b : b);
      *out = wrap128<T>(static_cast<__int128>(std::gcd(u, v)));
      return true;
    }
    default:
      return false;
  }
}

TEST(BinaryInteger, EveryIntegerOpEveryIntegerDtypeAllPairs) {
  const devplug_op_t ops[] = {DEVPLUG_OP_add,
                              DEVPLUG_OP_sub,
                              DEVPLUG_OP_mul,
                              DEVPLUG_OP_div,
                              DEVPLUG_OP_remainder,
                              DEVPLUG_OP_fmod,
                              DEVPLUG_OP_pow,
                              DEVPLUG_OP_maximum,
                              DEVPLUG_OP_minimum,
                              DEVPLUG_OP_fmax,
                              DEVPLUG_OP_fmin,
                              DEVPLUG_OP_bitwise_and,
                              DEVPLUG_OP_bitwise_or,
                              DEVPLUG_OP_bitwise_xor,
                              DEVPLUG_OP_shift_left,
                              DEVPLUG_OP_shift_right_arithmetic,
                              DEVPLUG_OP_shift_right_logical,
                              DEVPLUG_OP_gcd};
  for_each_int_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<T> values = int_values<T>();
    std::vector<T> a, b;
    for (T x : values)
      for (T y : values) a.push_back(x), b.push_back(y);
    // Shift amounts around the width, including negative and too large ones.
    for (int s : {-1, 0, 1, 7, 8, 15, 16, 31, 32, 63, 64, 100})
      for (T x : values) {
        if (static_cast<__int128>(s) < std::numeric_limits<T>::min() || s > std::numeric_limits<T>::max())
          continue;
        a.push_back(x);
        b.push_back(static_cast<T>(s));
      }
    for (devplug_op_t op : ops) {
      const std::vector<T> got = rt::apply<T, T>(op, {a, b});  // every pair runs, even unspecified ones
      ASSERT_EQ(got.size(), a.size()) << devplug_op_name(op);
      int reported = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        T expected{};
        if (!expected_int<T>(op, a[i], b[i], &expected)) continue;
        if (got[i] != expected && reported++ < 5)
          ADD_FAILURE() << devplug_op_name(op) << " " << devplug_dtype_name(sdk::dtype_of<T>())
                        << " a=" << static_cast<long long>(a[i]) << " b=" << static_cast<long long>(b[i])
                        << ": got " << static_cast<long long>(got[i]) << ", expected "
                        << static_cast<long long>(expected);
      }
    }
  });
}

TEST(BinaryInteger, WorkedExamples) {
  EXPECT_EQ((rt::apply<int32_t, int32_t>(DEVPLUG_OP_div, {{7, -7, 7, -7, INT32_MIN}, {2, 2, -2, -2, -1}})),
            (std::vector<int32_t>{3, -3, -3, 3, INT32_MIN}));
  EXPECT_EQ((rt::apply<int32_t, int32_t>(DEVPLUG_OP_remainder, {{7, -7, 7, -7}, {3, 3, -3, -3}})),
            (std::vector<int32_t>{1, 2, -2, -1}));
  EXPECT_EQ((rt::apply<int32_t, int32_t>(DEVPLUG_OP_fmod, {{7, -7, 7, -7}, {3, 3, -3, -3}})),
            (std::vector<int32_t>{1, -1, 1, -1}));
  EXPECT_EQ((rt::apply<int16_t, int16_t>(DEVPLUG_OP_pow,
                                         {{2, 3, -2, 2, 1, -1, -1, 5}, {15, 2, 3, 16, -5, -3, -4, -1}})),
            (std::vector<int16_t>{-32768, 9, -8, 0, 1, -1, 1, 0}));
  EXPECT_EQ((rt::apply<int8_t, int8_t>(DEVPLUG_OP_gcd, {{12, -12, 0, -128, -128, 0}, {18, 18, 5, 0, 6, 0}})),
            (std::vector<int8_t>{6, 6, 5, -128, 2, 0}));
  EXPECT_EQ((rt::apply<int8_t, int8_t>(DEVPLUG_OP_shift_right_arithmetic,
                                       {{-128, -1, 64, -5, -5}, {7, 3, 6, 1, 8}})),
            (std::vector<int8_t>{-1, -1, 1, -3, -1}));
  EXPECT_EQ((rt::apply<int8_t, int8_t>(DEVPLUG_OP_shift_right_logical, {{-128, -1, 64}, {7, 4, 6}})),
            (std::vector<int8_t>{1, 15, 1}));
  EXPECT_EQ((rt::apply<uint8_t, uint8_t>(DEVPLUG_OP_shift_left, {{1, 255, 3}, {7, 1, 8}})),
            (std::vector<uint8_t>{128, 254, 0}));
  EXPECT_EQ((rt::apply<uint8_t, uint8_t>(DEVPLUG_OP_sub, {{0, 5}, {1, 10}})),
            (std::vector<uint8_t>{255, 251}));
  EXPECT_EQ((rt::apply<int64_t, int64_t>(DEVPLUG_OP_mul, {{INT64_MAX, INT64_MIN}, {2, -1}})),
            (std::vector<int64_t>{-2, INT64_MIN}));
}

TEST(BinaryInteger, DivisionByZeroNeverTraps) {
  // Unspecified results, but the call must succeed (no SIGFPE).
  for_each_int_type([](auto tag) {
    using T = typename decltype(tag)::type;
    const T lo = std::numeric_limits<T>::min();
    for (devplug_op_t op : {DEVPLUG_OP_div, DEVPLUG_OP_remainder, DEVPLUG_OP_fmod, DEVPLUG_OP_pow})
      EXPECT_EQ((rt::apply<T, T>(op, {{1, 0, lo, lo}, {0, 0, 0, static_cast<T>(-1)}})).size(), 4u);
  });
}

// ---- bool -----------------------------------------------------------------------------------

TEST(BinaryBool, TruthTables) {
  const std::vector<bool> a = {false, false, true, true}, b = {false, true, false, true};
  auto run = [&](devplug_op_t op) { return rt::apply<bool, bool>(op, {a, b}); };
  EXPECT_EQ(run(DEVPLUG_OP_add), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(run(DEVPLUG_OP_mul), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(run(DEVPLUG_OP_maximum), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(run(DEVPLUG_OP_minimum), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(run(DEVPLUG_OP_bitwise_and), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(run(DEVPLUG_OP_bitwise_or), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(run(DEVPLUG_OP_bitwise_xor), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(run(DEVPLUG_OP_eq), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(run(DEVPLUG_OP_ne), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(run(DEVPLUG_OP_lt), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(run(DEVPLUG_OP_le), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(run(DEVPLUG_OP_gt), (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(run(DEVPLUG_OP_ge), (std::vector<bool>{true, false, true, true}));
}

TEST(BinaryBool, NonCanonicalBytesCountAsTrueAndResultsAreZeroOrOne) {
  rt::Tensor a = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3}), b = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {3});
  rt::write_bytes(a, {2, 0, 200});
  rt::write_bytes(b, {1, 9, 0});
  rt::run_ok(DEVPLUG_OP_eq, {&a, &b}, {&out});
  EXPECT_EQ(rt::read_bytes(out), (std::vector<unsigned char>{1, 0, 0}));
  rt::run_ok(DEVPLUG_OP_add, {&a, &b}, {&out});
  EXPECT_EQ(rt::read_bytes(out), (std::vector<unsigned char>{1, 1, 1}));
}

// ---- comparisons on integers ------------------------------------------------------------------

TEST(Compare, IntegersAllPairs) {
  for_each_int_type([](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<T> values = int_values<T>();
    std::vector<T> a, b;
    for (T x : values)
      for (T y : values) a.push_back(x), b.push_back(y);
    const std::vector<std::pair<devplug_op_t, std::function<bool(__int128, __int128)>>> ops = {
        {DEVPLUG_OP_eq, [](__int128 x, __int128 y) { return x == y; }},
        {DEVPLUG_OP_ne, [](__int128 x, __int128 y) { return x != y; }},
        {DEVPLUG_OP_lt, [](__int128 x, __int128 y) { return x < y; }},
        {DEVPLUG_OP_le, [](__int128 x, __int128 y) { return x <= y; }},
        {DEVPLUG_OP_gt, [](__int128 x, __int128 y) { return x > y; }},
        {DEVPLUG_OP_ge, [](__int128 x, __int128 y) { return x >= y; }}};
    for (const auto& [op, cmp] : ops) {
      const std::vector<bool> got = rt::apply<bool, T>(op, {a, b});
      ASSERT_EQ(got.size(), a.size());
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(got[i], cmp(a[i], b[i])) << devplug_op_name(op) << " " << static_cast<long long>(a[i])
                                           << " " << static_cast<long long>(b[i]);
    }
  });
}

// ---- where ------------------------------------------------------------------------------------

TEST(Where, SelectsEveryDtypeBitExactly) {
  const std::vector<bool> cond = {true, false, true, false};
  // Floats: NaN payloads and -0.0 are copied, not recomputed.
  for (devplug_dtype_t dtype : kFloatDtypes) {
    rt::Tensor c = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {4}), a = rt::make_tensor(dtype, {4}),
               b = rt::make_tensor(dtype, {4});
    rt::Tensor out = rt::make_tensor(dtype, {4});
    rt::write<bool>(c, cond);
    rt::write_doubles(a, {-0.0, 1, -kNaN, 3});
    rt::write_doubles(b, {5, -0.0, 7, kInf});
    rt::run_ok(DEVPLUG_OP_where, {&c, &a, &b}, {&out});
    const std::vector<double> r = rt::read_doubles(out);
    EXPECT_TRUE(rt::same_value(r[0], -0.0));
    EXPECT_TRUE(rt::same_value(r[1], -0.0));
    EXPECT_TRUE(std::isnan(r[2]) && std::signbit(r[2]));
    EXPECT_EQ(r[3], kInf);
  }
  for_each_int_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    rt::Tensor c = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {4});
    rt::Tensor a = rt::make_tensor(sdk::dtype_of<T>(), {4}), b = rt::make_tensor(sdk::dtype_of<T>(), {4});
    rt::Tensor out = rt::make_tensor(sdk::dtype_of<T>(), {4});
    rt::write<bool>(c, cond);
    rt::write<T>(a, {lo, 1, hi, 3});
    rt::write<T>(b, {4, hi, 6, lo});
    rt::run_ok(DEVPLUG_OP_where, {&c, &a, &b}, {&out});
    EXPECT_EQ(rt::read<T>(out), (std::vector<T>{lo, hi, hi, lo}));
  });
  // bool values, and a condition byte other than 0/1 counts as true.
  rt::Tensor c = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {4}), a = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {4});
  rt::Tensor b = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {4}), out = rt::make_tensor(DEVPLUG_DTYPE_BOOL, {4});
  rt::write_bytes(c, {5, 0, 1, 0});
  rt::write<bool>(a, {true, true, false, false});
  rt::write<bool>(b, {false, false, true, true});
  rt::run_ok(DEVPLUG_OP_where, {&c, &a, &b}, {&out});
  EXPECT_EQ(rt::read_bytes(out), (std::vector<unsigned char>{1, 0, 0, 1}));
}

TEST(Where, ConditionMustBeBool) {
  rt::Tensor c = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2}), a = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2});
  rt::Tensor b = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2}), out = rt::make_tensor(DEVPLUG_DTYPE_INT32, {2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_where, {&c, &a, &b}, {&out}).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(BinaryChecks, MismatchedInputsAreRefused) {
  rt::Tensor a = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {3}), b = rt::make_tensor(DEVPLUG_DTYPE_FLOAT64, {3});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {3});
  EXPECT_EQ(rt::run(DEVPLUG_OP_add, {&a, &b}, {&out}).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor short_b = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {2});
  EXPECT_EQ(rt::run(DEVPLUG_OP_add, {&a, &short_b}, {&out}).code, DEVPLUG_CODE_INVALID_ARGUMENT);
  rt::Tensor not_bool = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {3});
  rt::Tensor a2 = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {3});
  EXPECT_EQ(rt::run(DEVPLUG_OP_lt, {&a, &a2}, {&not_bool}).code, DEVPLUG_CODE_INVALID_ARGUMENT);
}

}  // namespace
