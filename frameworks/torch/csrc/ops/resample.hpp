// SPDX-License-Identifier: Apache-2.0
// What resample.cpp's linear resampling shares with conv.cpp's adaptive average pooling: ops
// that are linear in the input and act on each of its last dims alone run as one matrix
// product per dim.
#pragma once

#include <vector>

#include "kernel.hpp"

namespace devplug::bridge {

// `x` with each of its last maps.size() dims mapped by the matching matrix ([to, from], x's
// dtype): maps[0] acts on dim -maps.size(), the last map on dim -1.
at::Tensor map_last_dims(const at::Tensor& x, const std::vector<at::Tensor>& maps);

}  // namespace devplug::bridge
