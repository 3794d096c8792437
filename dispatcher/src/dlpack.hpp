// SPDX-License-Identifier: Apache-2.0
// DLPack exports (api_dlpack.cpp) as the rest of the dispatcher sees them.
#pragma once

#include "device.hpp"

namespace devplug::detail {

// Detaches the views that DLPack exports of `device`'s tensors hold, before the device frees
// its tensors at shutdown: their deleters then free only the managed tensors. Never throws.
void forget_dlpack_exports(const devplug_device_t& device) noexcept;

}  // namespace devplug::detail
