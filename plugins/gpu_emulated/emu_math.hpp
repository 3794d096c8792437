// SPDX-License-Identifier: Apache-2.0
// Device math that CUDA provides and the host C library lacks, for kernels compiled by the
// host compiler. Each is at least as accurate as CUDA's documented bound (CUDA C++
// Programming Guide, "Mathematical Functions": ulp errors quoted beside each below): the
// double versions compute in long double and round once, the float versions go through the
// double ones. Special values follow CUDA's documentation (and IEEE 754's sinPi and cosPi).
// The host tests compare every function with 50-digit Boost.Multiprecision results.
//
// Also here, in namespace devplug::gpu::emu: functions glibc has, but less accurately than
// CUDA's documented bound (measured on 300,000 inputs each), which device_math.cuh calls in
// the emulated build instead of glibc's. They too compute in long double (tanhf in double).
#pragma once

namespace devplug::gpu::emu {
double cbrt(double x);   // glibc: up to 3 ulp; CUDA: 1
double log10(double x);  // glibc: 1.6 ulp; CUDA: 1
double cosh(double x);   // glibc: just over 1 ulp; CUDA: 1
double tanh(double x);   // glibc: just over 2 ulp; CUDA: 2
float tanhf(float x);    // glibc: just over 2 ulp; CUDA: 2
}  // namespace devplug::gpu::emu

double rsqrt(double x);                         // 1 / sqrt(x); CUDA: 1 ulp
float rsqrtf(float x);                          // CUDA: 2 ulp
double rcbrt(double x);                         // 1 / cbrt(x); CUDA: 1 ulp
float rcbrtf(float x);                          // CUDA: 1 ulp
double erfinv(double x);                        // inverse of erf on [-1, 1]; CUDA: 5 ulp
float erfinvf(float x);                         // CUDA: 2 ulp
double erfcinv(double x);                       // inverse of erfc on [0, 2]; CUDA: 6 ulp
float erfcinvf(float x);                        // CUDA: 4 ulp
double normcdf(double x);                       // standard normal CDF; CUDA: 5 ulp
float normcdff(float x);                        // CUDA: 5 ulp
double normcdfinv(double x);                    // its inverse on [0, 1]; CUDA: 8 ulp
float normcdfinvf(float x);                     // CUDA: 5 ulp
double sinpi(double x);                         // sin(pi x), exact argument reduction; CUDA: 2 ulp
float sinpif(float x);                          // CUDA: 1 ulp
double cospi(double x);                         // cos(pi x); CUDA: 2 ulp
float cospif(float x);                          // CUDA: 1 ulp
void sincospi(double x, double* s, double* c);  // CUDA: 2 ulp each
void sincospif(float x, float* s, float* c);    // CUDA: 1 ulp each
