// SPDX-License-Identifier: Apache-2.0
// lgamma and digamma in double for the shared GPU kernels (lgamma_double, digamma_double):
// plugins/device_common/special_double.h, the one source the OpenCL and Level Zero kernels
// compile too, included here with CUDA/HIP's qualifiers. Compiled for the device in the
// kernels and for the host in the emulated GPU and the unit tests (gpu_logic_test.cpp).
//
// Every product and sum there must be rounded on its own: the kernel file that calls these
// is compiled without contraction (nvcc -fmad=false, hipcc -ffp-contract=off; sources.cmake).
// special_double.h says why.
#pragma once

#include <cmath>

#include "gpu_port.hpp"

namespace devplug::gpu {
namespace special_detail {

#define DEVPLUG_SPECIAL_FN GPU_D inline
#if defined(GPU_DEVICE_CODE)
#define DEVPLUG_SPECIAL_TABLE static __constant__ const double
#else
#define DEVPLUG_SPECIAL_TABLE inline constexpr double
#endif
#include "../device_common/special_double.h"  // #undefs both macros

}  // namespace special_detail

using special_detail::digamma_double;
using special_detail::lgamma_double;

}  // namespace devplug::gpu
