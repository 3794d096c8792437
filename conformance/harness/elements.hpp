// SPDX-License-Identifier: Apache-2.0
// Reading and writing single elements of any dtype in host byte buffers, and the bit-level
// helpers (ordered bits, ULP distance) the comparison needs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "devplug/ops.h"
#include "devplug/sdk/half.hpp"

namespace devplug::conform {

inline bool is_float(devplug_dtype_t d) {
  return d == DEVPLUG_DTYPE_FLOAT16 || d == DEVPLUG_DTYPE_BFLOAT16 || d == DEVPLUG_DTYPE_FLOAT32 ||
         d == DEVPLUG_DTYPE_FLOAT64;
}
inline bool is_16bit_float(devplug_dtype_t d) {
  return d == DEVPLUG_DTYPE_FLOAT16 || d == DEVPLUG_DTYPE_BFLOAT16;
}
inline int bit_width(devplug_dtype_t d) { return static_cast<int>(devplug_dtype_size(d)) * 8; }

// Smallest and largest value of an integer dtype (bool: 0 and 1).
inline int64_t int_min(devplug_dtype_t d) {
  switch (d) {
    case DEVPLUG_DTYPE_INT8:
      return INT8_MIN;
    case DEVPLUG_DTYPE_INT16:
      return INT16_MIN;
    case DEVPLUG_DTYPE_INT32:
      return INT32_MIN;
    case DEVPLUG_DTYPE_INT64:
      return INT64_MIN;
    default:
      return 0;
  }
}
inline int64_t int_max(devplug_dtype_t d) {
  switch (d) {
    case DEVPLUG_DTYPE_BOOL:
      return 1;
    case DEVPLUG_DTYPE_UINT8:
      return UINT8_MAX;
    case DEVPLUG_DTYPE_INT8:
      return INT8_MAX;
    case DEVPLUG_DTYPE_INT16:
      return INT16_MAX;
    case DEVPLUG_DTYPE_INT32:
      return INT32_MAX;
    default:
      return INT64_MAX;
  }
}

// The raw bits of element `p` (zero-extended).
inline uint64_t load_bits(devplug_dtype_t d, const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, devplug_dtype_size(d));  // little endian host
  return v;
}

// A floating element as double (exact).
inline double load_float(devplug_dtype_t d, const uint8_t* p) {
  switch (d) {
    case DEVPLUG_DTYPE_FLOAT16:
      return sdk::half_bits_to_double(static_cast<uint16_t>(load_bits(d, p)));
    case DEVPLUG_DTYPE_BFLOAT16:
      return sdk::bfloat16_bits_to_double(static_cast<uint16_t>(load_bits(d, p)));
    case DEVPLUG_DTYPE_FLOAT32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DEVPLUG_DTYPE_FLOAT64: {
      double f;
      std::memcpy(&f, p, 8);
      return f;
    }
    default:
      return 0;
  }
}

// An integer or bool element, sign-extended as its dtype says.
inline int64_t load_int(devplug_dtype_t d, const uint8_t* p) {
  switch (d) {
    case DEVPLUG_DTYPE_BOOL:
      return *p != 0;
    case DEVPLUG_DTYPE_UINT8:
      return *p;
    case DEVPLUG_DTYPE_INT8:
      return static_cast<int8_t>(*p);
    case DEVPLUG_DTYPE_INT16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DEVPLUG_DTYPE_INT32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DEVPLUG_DTYPE_INT64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    default:
      return 0;
  }
}

// Any element as double (integers may lose precision beyond 2^53; used for magnitudes only).
inline double load_as_double(devplug_dtype_t d, const uint8_t* p) {
  return is_float(d) ? load_float(d, p) : static_cast<double>(load_int(d, p));
}

// Stores `f` rounded once to a floating dtype.
inline void store_float(devplug_dtype_t d, uint8_t* p, double f) {
  switch (d) {
    case DEVPLUG_DTYPE_FLOAT16: {
      uint16_t b = sdk::double_to_half_bits(f);
      std::memcpy(p, &b, 2);
      break;
    }
    case DEVPLUG_DTYPE_BFLOAT16: {
      uint16_t b = sdk::double_to_bfloat16_bits(f);
      std::memcpy(p, &b, 2);
      break;
    }
    case DEVPLUG_DTYPE_FLOAT32: {
      float v = static_cast<float>(f);
      std::memcpy(p, &v, 4);
      break;
    }
    case DEVPLUG_DTYPE_FLOAT64:
      std::memcpy(p, &f, 8);
      break;
    default:
      break;
  }
}

// Stores `i` truncated to an integer dtype's width (bool: i != 0).
inline void store_int(devplug_dtype_t d, uint8_t* p, int64_t i) {
  if (d == DEVPLUG_DTYPE_BOOL) {
    *p = i != 0;
    return;
  }
  std::memcpy(p, &i, devplug_dtype_size(d));
}

// Sign bit of a floating element.
inline bool sign_bit(devplug_dtype_t d, const uint8_t* p) {
  return (load_bits(d, p) >> (bit_width(d) - 1)) & 1u;
}

// Bits mapped to a signed line where adjacent floats are adjacent integers and +0 == -0.
inline int64_t ordered_bits(devplug_dtype_t d, const uint8_t* p) {
  const int w = bit_width(d);
  const uint64_t bits = load_bits(d, p);
  const uint64_t sign = uint64_t{1} << (w - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude : magnitude;
}

// Distance in units in the last place of dtype `d` between two non-NaN elements.
inline double ulp_distance(devplug_dtype_t d, const uint8_t* a, const uint8_t* b) {
  const int64_t x = ordered_bits(d, a), y = ordered_bits(d, b);
  // Subtract as integers first: float64 bit patterns near 2^62 do not fit a double exactly,
  // so converting each before subtracting would turn a 1 ULP difference into 512.
  const __int128 difference = static_cast<__int128>(x) - static_cast<__int128>(y);
  return std::fabs(static_cast<double>(difference));
}

// Machine epsilon (2^-(mantissa bits)) of a floating dtype.
inline double epsilon(devplug_dtype_t d) {
  switch (d) {
    case DEVPLUG_DTYPE_FLOAT16:
      return std::ldexp(1.0, -10);
    case DEVPLUG_DTYPE_BFLOAT16:
      return std::ldexp(1.0, -7);
    case DEVPLUG_DTYPE_FLOAT32:
      return std::ldexp(1.0, -23);
    default:
      return std::ldexp(1.0, -52);
  }
}

// The spacing of dtype `d` at |x| (one ULP there); the smallest subnormal near zero.
inline double ulp_at(devplug_dtype_t d, double x) {
  const int mant = d == DEVPLUG_DTYPE_FLOAT16    ? 10
                   : d == DEVPLUG_DTYPE_BFLOAT16 ? 7
                   : d == DEVPLUG_DTYPE_FLOAT32  ? 23
                                                 : 52;
  const int min_exp = d == DEVPLUG_DTYPE_FLOAT16 ? -14 : d == DEVPLUG_DTYPE_FLOAT64 ? -1022 : -126;
  x = std::fabs(x);
  if (!std::isfinite(x)) return std::numeric_limits<double>::infinity();
  int e = min_exp;
  if (x >= std::ldexp(1.0, min_exp)) {
    std::frexp(x, &e);
    --e;
  }
  return std::ldexp(1.0, e - mant);
}

}  // namespace devplug::conform
