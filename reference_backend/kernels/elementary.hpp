// sinh, cosh, asinh, acosh, atanh, asin, acos, cbrt, erfc and exp2 of the reference kernels:
// double for float32 and the 16-bit formats, long double for float64 (see elementwise.hpp's
// compute types).
#pragma once

#include <cmath>

namespace devplug::reference::math {

inline double sinh(double x) { return std::sinh(x); }
inline double cosh(double x) { return std::cosh(x); }
inline double asinh(double x) { return std::asinh(x); }
inline double acosh(double x) { return std::acosh(x); }
inline double atanh(double x) { return std::atanh(x); }
inline double asin(double x) { return std::asin(x); }
inline double acos(double x) { return std::acos(x); }
inline double cbrt(double x) { return std::cbrt(x); }
inline double erfc(double x) { return std::erfc(x); }
inline double exp2(double x) { return std::exp2(x); }

inline long double sinh(long double x) { return std::sinh(x); }
inline long double cosh(long double x) { return std::cosh(x); }
inline long double asinh(long double x) { return std::asinh(x); }
inline long double acosh(long double x) { return std::acosh(x); }
inline long double atanh(long double x) { return std::atanh(x); }
inline long double asin(long double x) { return std::asin(x); }
inline long double acos(long double x) { return std::acos(x); }
inline long double cbrt(long double x) { return std::cbrt(x); }
inline long double erfc(long double x) { return std::erfc(x); }
inline long double exp2(long double x) { return std::exp2(x); }

}  // namespace devplug::reference::math
