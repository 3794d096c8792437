// SPDX-License-Identifier: Apache-2.0
// Level Zero results as devplug errors: the one macro that wraps every native call.
//
//   DEVPLUG_ZE_CALL(zeCommandListAppendLaunchKernel, (list, kernel, &groups, nullptr, 0, nullptr), "launching exp");
//   -> "zeCommandListAppendLaunchKernel: ZE_RESULT_ERROR_INVALID_ARGUMENT (0x78000004) while
//       launching exp [backend.cpp:88]"
#pragma once

#include <string>

#include "devplug/sdk/error.hpp"
#include "ze_library.hpp"
#include "ze_result_names.hpp"

namespace devplug::level_zero {

// The devplug code a failing Level Zero call maps to.
devplug_code_t ze_error_code(ze_result_t result);

// "zeInit: ZE_RESULT_ERROR_UNINITIALIZED (0x78000001) while ... [file.cpp:12]"
std::string ze_message(const char* call, ze_result_t result, const std::string& context, const char* file,
                       int line);

// Throws the devplug error for a failed call `call` returning `result`.
[[noreturn]] void fail_ze(const char* call, ze_result_t result, const std::string& context, const char* file,
                          int line);

}  // namespace devplug::level_zero

// Calls ze().fn with the parenthesised `args` and throws a devplug error naming the call, the
// result and `context` when it does not return ZE_RESULT_SUCCESS.
#define DEVPLUG_ZE_CALL(fn, args, context)                                                  \
  do {                                                                                      \
    const ze_result_t devplug_ze_result_ = ::devplug::level_zero::ze().fn args;             \
    if (devplug_ze_result_ != ZE_RESULT_SUCCESS)                                            \
      ::devplug::level_zero::fail_ze(#fn, devplug_ze_result_, context, __FILE__, __LINE__); \
  } while (0)
