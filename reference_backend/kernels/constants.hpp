// Mathematical constants of the reference kernels, in long double (64-bit mantissa on x86).
#pragma once

namespace devplug::reference::math {

constexpr long double kPi = 3.141592653589793238462643383279502884L;
constexpr long double kTwoOverSqrtPi = 1.128379167095512573896158903121545172L;

}  // namespace devplug::reference::math
