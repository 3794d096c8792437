// sin, cos and tan of the reference kernels: double for float32 and the 16-bit formats,
// long double for float64 (see elementwise.hpp's compute types).
#pragma once

#include <cmath>

namespace devplug::reference::math {

inline double sin(double x) { return std::sin(x); }
inline double cos(double x) { return std::cos(x); }
inline double tan(double x) { return std::tan(x); }
inline long double sin(long double x) { return std::sin(x); }
inline long double cos(long double x) { return std::cos(x); }
inline long double tan(long double x) { return std::tan(x); }

}  // namespace devplug::reference::math
