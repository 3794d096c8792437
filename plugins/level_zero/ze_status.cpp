// SPDX-License-Identifier: Apache-2.0
// Level Zero results as devplug errors.
#include "ze_status.hpp"

#include <cstring>

namespace devplug::level_zero {

devplug_code_t ze_error_code(ze_result_t result) {
  switch (result) {
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE:
      return DEVPLUG_CODE_RESOURCE_EXHAUSTED;
    case ZE_RESULT_ERROR_UNINITIALIZED:
    case ZE_RESULT_ERROR_DEVICE_LOST:
    case ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET:
    case ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE:
    case ZE_RESULT_ERROR_NOT_AVAILABLE:
    case ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE:
      return DEVPLUG_CODE_UNAVAILABLE;
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
    case ZE_RESULT_ERROR_UNSUPPORTED_VERSION:
      return DEVPLUG_CODE_UNIMPLEMENTED;
    default:
      return DEVPLUG_CODE_INTERNAL;
  }
}

std::string ze_message(const char* call, ze_result_t result, const std::string& context, const char* file,
                       int line) {
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  std::string text = std::string(call) + ": " + ze_result_text(result);
  if (!context.empty()) text += " while " + context;
  return text + " [" + base + ":" + std::to_string(line) + "]";
}

void fail_ze(const char* call, ze_result_t result, const std::string& context, const char* file, int line) {
  throw sdk::Error(ze_error_code(result), ze_message(call, result, context, file, line),
                   static_cast<int64_t>(result));
}

}  // namespace devplug::level_zero
