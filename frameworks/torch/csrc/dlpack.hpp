// SPDX-License-Identifier: Apache-2.0
// DLPack for devplug tensors: capsules out of devplug tensors, and devplug tensors out of the
// capsules devplug made (the Python side, torch_devplug/_dlpack.py, routes torch's DLPack entry
// points here for devplug tensors and capsules and leaves every other device to torch).
//
// A storage has no real address (storage.hpp), so an export takes one of two forms:
// - host: on a device whose memory is host memory and whose plugin gives host addresses
//   (devplug_tensor_host_address), kDLCPU with the real address of the first element, after
//   the tensor's current stream is synchronized; numpy and torch's CPU read it without a copy.
// - devplug: otherwise (or when asked), kDLExtDev with device_id the devplug index, data the
//   storage's fake address and byte_offset storage_offset * itemsize. Only devplug can read
//   it: the importer finds the kept tensor through the capsule's manager context, which it
//   recognizes by its deleter, and shares its storage.
#pragma once

#include <c10/core/Device.h>

namespace pybind11 {
class module_;
}

namespace devplug::bridge {

// Adds the DLPack functions to torch_devplug._C (`_to_dlpack`, `_from_dlpack`,
// `_dlpack_check`, `_dlpack_host_memory`, `_dlpack_capsule_device`; documented in dlpack.cpp).
void bind_dlpack(pybind11::module_& m);

// Whether tensors of devplug device `index` are host memory the host may address
// (DEVPLUG_DEVICE_UNIFIED_MEMORY and the host_address extension). Asked once per device.
bool host_memory(c10::DeviceIndex index);

}  // namespace devplug::bridge
