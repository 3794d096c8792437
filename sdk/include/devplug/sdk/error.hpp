// SPDX-License-Identifier: Apache-2.0
// Errors for plugin authors: the C++ exception a plugin throws inside its code, the
// allocation of `devplug_error_t` objects, and the boundary guard that turns one into the
// other so that no exception ever crosses the ABI.
//
// A plugin puts `devplug::sdk::error_create` and `devplug::sdk::error_destroy` in its
// table and wraps every entry point body in `devplug::sdk::guard`.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "devplug/errors.h"

namespace devplug::sdk {

// An error raised inside a plugin. Thrown by plugin code, caught by `guard`.
class Error : public std::runtime_error {
 public:
  Error(devplug_code_t code, const std::string& message, int64_t native_code = 0)
      : std::runtime_error(message), code_(code), native_code_(native_code) {}
  devplug_code_t code() const noexcept { return code_; }
  int64_t native_code() const noexcept { return native_code_; }

 private:
  devplug_code_t code_;
  int64_t native_code_;
};

namespace detail {
// Returned when even the error cannot be allocated; error_destroy recognises and keeps it.
inline devplug_error_t* out_of_memory_error() noexcept {
  static devplug_error_t error = {sizeof(devplug_error_t), DEVPLUG_CODE_RESOURCE_EXHAUSTED, 0,
                                  "out of host memory while reporting an error"};
  return &error;
}
}  // namespace detail

// Allocates an error with a copy of `message` (NULL becomes ""). Never fails; see
// detail::out_of_memory_error. Suitable as the table's `error_create`.
inline devplug_error_t* error_create(devplug_code_t code, int64_t native_code, const char* message) noexcept {
  if (message == nullptr) message = "";
  const size_t length = std::strlen(message);
  // One block: the struct followed by the message text.
  auto* error = static_cast<devplug_error_t*>(std::malloc(sizeof(devplug_error_t) + length + 1));
  if (error == nullptr) return detail::out_of_memory_error();
  char* text = reinterpret_cast<char*>(error + 1);
  std::memcpy(text, message, length + 1);
  error->struct_size = sizeof(devplug_error_t);
  error->code = code;
  error->native_code = native_code;
  error->message = text;
  return error;
}

// Frees an error made by error_create. NULL and the static out-of-memory error are ignored.
// Suitable as the table's `error_destroy`.
inline void error_destroy(devplug_error_t* error) noexcept {
  if (error == nullptr || error == detail::out_of_memory_error()) return;
  std::free(error);
}

// Throws Error(code, message).
[[noreturn]] inline void fail(devplug_code_t code, const std::string& message, int64_t native_code = 0) {
  throw Error(code, message, native_code);
}

// Throws INVALID_ARGUMENT with `message` unless `condition` holds.
inline void check_argument(bool condition, const char* message) {
  if (!condition) fail(DEVPLUG_CODE_INVALID_ARGUMENT, message);
}

// Throws INVALID_ARGUMENT naming `what` when `ptr` is null.
template <typename T>
inline T* check_not_null(T* ptr, const char* what) {
  if (ptr == nullptr) fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return ptr;
}

// Throws INVALID_ARGUMENT unless `s` is non-null and its struct_size holds at least the
// fields of ABI 1.0 (`min_size` bytes).
template <typename T>
inline const T* check_struct(const T* s, size_t min_size, const char* what) {
  check_not_null(s, what);
  if (s->struct_size < min_size)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string(what) + "->struct_size is " +
                                            std::to_string(s->struct_size) + ", at least " +
                                            std::to_string(min_size) + " expected");
  return s;
}

// Formats a failed native call the same way in every plugin:
//   "clFinish: CL_OUT_OF_RESOURCES (-5) while finishing stream [stream.cpp:88]"
// `file` may be a full path; only its last component is kept.
inline std::string native_message(const char* call, const char* code_name, int64_t native_code,
                                  const char* context, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  std::string text = std::string(call) + ": " + code_name + " (" + std::to_string(native_code) + ")";
  if (context != nullptr && *context != '\0') text += std::string(" while ") + context;
  text += " [" + std::string(base) + ":" + std::to_string(line) + "]";
  return text;
}

// Throws an Error for a failed native call with the message above.
[[noreturn]] inline void fail_native(devplug_code_t code, const char* call, const char* code_name,
                                     int64_t native_code, const char* context, const char* file, int line) {
  throw Error(code, native_message(call, code_name, native_code, context, file, line), native_code);
}

// Runs `body` and converts whatever it throws into an error; returns NULL on success.
// `body` returns void. Every plugin entry point runs inside this guard.
template <typename Body>
devplug_error_t* guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return error_create(e.code(), e.native_code(), e.what());
  } catch (const std::bad_alloc&) {
    return error_create(DEVPLUG_CODE_RESOURCE_EXHAUSTED, 0, "out of host memory");
  } catch (const std::exception& e) {
    return error_create(DEVPLUG_CODE_INTERNAL, 0, e.what());
  } catch (...) {
    return error_create(DEVPLUG_CODE_UNKNOWN, 0, "unknown C++ exception in plugin");
  }
}

}  // namespace devplug::sdk
