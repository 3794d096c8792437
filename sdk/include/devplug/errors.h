// SPDX-License-Identifier: Apache-2.0
/* The error object that every fallible call across the ABI returns.
 *
 * A call returns NULL on success or a `devplug_error_t*` on failure; there is no
 * thread-local "last error". An error is owned by the receiver, who destroys it through
 * the table of whoever created it (`api->error_destroy` for a plugin's errors,
 * `devplug_error_destroy` for the host API's). Codes follow the abseil / PJRT / IREE
 * numbering. */
#ifndef DEVPLUG_ERRORS_H_
#define DEVPLUG_ERRORS_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t devplug_code_t;
enum {
  DEVPLUG_CODE_OK = 0,
  DEVPLUG_CODE_CANCELLED = 1,
  DEVPLUG_CODE_UNKNOWN = 2,
  DEVPLUG_CODE_INVALID_ARGUMENT = 3,
  DEVPLUG_CODE_DEADLINE_EXCEEDED = 4,
  DEVPLUG_CODE_NOT_FOUND = 5,
  DEVPLUG_CODE_ALREADY_EXISTS = 6,
  DEVPLUG_CODE_PERMISSION_DENIED = 7,
  DEVPLUG_CODE_RESOURCE_EXHAUSTED = 8,
  DEVPLUG_CODE_FAILED_PRECONDITION = 9,
  DEVPLUG_CODE_ABORTED = 10,
  DEVPLUG_CODE_OUT_OF_RANGE = 11,
  /* "Not here": the dispatcher may run the op elsewhere (CPU fallback). */
  DEVPLUG_CODE_UNIMPLEMENTED = 12,
  DEVPLUG_CODE_INTERNAL = 13,
  /* No driver, no device, or the device was lost. */
  DEVPLUG_CODE_UNAVAILABLE = 14,
  DEVPLUG_CODE_DATA_LOSS = 15,
  DEVPLUG_CODE_UNAUTHENTICATED = 16
};

/* An error. Read-only for everyone but its creator.
 *
 * `message` is a NUL-terminated UTF-8 string owned by the error and valid until it is
 * destroyed. `native_code` is the device API's own code (`cl_int`, `cudaError_t`,
 * `ze_result_t`) or 0 when there is none. */
typedef struct devplug_error_t {
  size_t struct_size;
  devplug_code_t code;
  int64_t native_code;
  const char* message;
} devplug_error_t;

/* The name of `code` ("INVALID_ARGUMENT"), or "UNKNOWN_CODE" for values out of range.
 * A static string; no allocation. */
static inline const char* devplug_code_name(devplug_code_t code) {
  static const char* const names[] = {
      "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED"};
  if (code < 0 || (size_t)code >= sizeof(names) / sizeof(names[0])) return "UNKNOWN_CODE";
  return names[code];
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DEVPLUG_ERRORS_H_ */
