// SPDX-License-Identifier: Apache-2.0
// The CUDA plugin's error macro for cuBLASLt (runtime calls use GPU_CHECK from
// gpu_common/gpu_status.hpp): a failed call becomes a devplug error naming the call, the
// status name and number, and the place, through sdk::fail_native.
#pragma once

#include "cublaslt_loader.hpp"
#include "devplug/sdk/error.hpp"

#define LT_CHECK(lt, expr, context)                                                                       \
  do {                                                                                                    \
    const cublasStatus_t lt_check_status_ = (expr);                                                       \
    if (lt_check_status_ != CUBLAS_STATUS_SUCCESS) {                                                      \
      const char* lt_check_name_ = (lt).cublasLtGetStatusName(lt_check_status_);                          \
      ::devplug::sdk::fail_native(lt_check_status_ == CUBLAS_STATUS_NOT_SUPPORTED                         \
                                      ? DEVPLUG_CODE_UNIMPLEMENTED                                        \
                                      : DEVPLUG_CODE_INTERNAL,                                            \
                                  #expr, lt_check_name_ ? lt_check_name_ : "cublasStatus",                \
                                  static_cast<int64_t>(lt_check_status_), (context), __FILE__, __LINE__); \
    }                                                                                                     \
  } while (0)
