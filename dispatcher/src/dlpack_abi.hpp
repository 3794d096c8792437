// SPDX-License-Identifier: Apache-2.0
// DLPack's C ABI for the host API's export and import (api_dlpack.cpp). The types come from
// <dlpack/dlpack.h> (Debian's libdlpack-dev); where that header predates DLPack 1.0 (Debian
// 12 ships 0.6), the 1.0 additions are declared here as the DLPack 1.0 specification lays
// them out: the version pair, the versioned managed tensor and its flag bits.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

#ifndef DLPACK_MAJOR_VERSION
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

extern "C" {
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
}
#endif

namespace devplug::detail {

// DLDataTypeCode's kDLBool (DLPack 0.8 and later), which libdlpack-dev 0.6 lacks.
inline constexpr uint8_t kDLPackBool = 6;

}  // namespace devplug::detail
