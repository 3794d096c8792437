// SPDX-License-Identifier: Apache-2.0
// The tensor kernels of tensor.cpp that other op files call directly (foreach.cpp's
// _foreach_zero_), as the aten ops they are registered for run them.
#pragma once

#include "kernel.hpp"

namespace devplug::bridge {

// torch's fill_.Scalar: every element of `self` set to `value` (cast to self's dtype).
at::Tensor& fill_scalar_(at::Tensor& self, const at::Scalar& value);

}  // namespace devplug::bridge
