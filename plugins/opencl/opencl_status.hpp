// SPDX-License-Identifier: Apache-2.0
// OpenCL error codes as devplug errors: the name table and the one macro that wraps every
// native call.
//
//   DEVPLUG_CL_CHECK(cl().clFinish(queue), "finishing stream");
//   -> "clFinish: CL_OUT_OF_RESOURCES (-5) while finishing stream [stream.cpp:88]"
#pragma once

#include "cl_library.hpp"
#include "devplug/sdk/error.hpp"

namespace devplug::opencl {

// "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" for codes not in the table.
const char* cl_error_name(cl_int code);

// The devplug code a failing OpenCL call maps to.
devplug_code_t cl_error_code(cl_int code);

// Throws the devplug error for a failed call `call` returning `code`.
[[noreturn]] void fail_cl(const char* call, cl_int code, const char* context, const char* file, int line);

}  // namespace devplug::opencl

// Calls cl().fn with the parenthesised `args` and throws a devplug error naming the call, the
// code and `context` (a string literal or C string) when it does not return CL_SUCCESS.
#define DEVPLUG_CL_CALL(fn, args, context)                                              \
  do {                                                                                  \
    const cl_int devplug_cl_status_ = ::devplug::opencl::cl().fn args;                  \
    if (devplug_cl_status_ != CL_SUCCESS)                                               \
      ::devplug::opencl::fail_cl(#fn, devplug_cl_status_, context, __FILE__, __LINE__); \
  } while (0)

// Throws for `status`, the errcode_ret of a cl* call named `fn` that returns an object.
#define DEVPLUG_CL_STATUS(fn, status, context)                                                          \
  do {                                                                                                  \
    if ((status) != CL_SUCCESS) ::devplug::opencl::fail_cl(#fn, (status), context, __FILE__, __LINE__); \
  } while (0)
