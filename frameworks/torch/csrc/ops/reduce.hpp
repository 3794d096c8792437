// SPDX-License-Identifier: Apache-2.0
// The reduction kernels of reduce.cpp that other op files call directly (foreach.cpp's
// _foreach_norm), as the aten ops they are registered for run them.
#pragma once

#include "kernel.hpp"

namespace devplug::bridge {

// torch's linalg_vector_norm: the `ord` norm of `self` over `dim` (all dims when nullopt),
// computed in float32 for 16-bit floats and rounded once to the result's dtype (`dtype`, else
// self's). Throws torch's error for a non-float dtype.
at::Tensor& vector_norm_out(const at::Tensor& self, const at::Scalar& ord, at::OptionalIntArrayRef dim,
                            bool keepdim, std::optional<at::ScalarType> dtype, at::Tensor& out);
at::Tensor vector_norm(const at::Tensor& self, const at::Scalar& ord, at::OptionalIntArrayRef dim,
                       bool keepdim, std::optional<at::ScalarType> dtype);

}  // namespace devplug::bridge
