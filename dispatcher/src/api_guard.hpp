// SPDX-License-Identifier: Apache-2.0
// The C boundary of libdevplug: every entry point runs its body inside `guard`, which turns
// any C++ exception into a `devplug_error_t*` so that nothing throws or aborts across the ABI,
// and checks its arguments with the `require_*` helpers, which name the argument at fault.
//
// Internally the dispatcher reports errors by throwing devplug::sdk::Error (code, message,
// native code); the errors handed to the host are made with devplug::sdk::error_create and
// destroyed by devplug_error_destroy.
#pragma once

#include <new>
#include <string>

#include "devplug/errors.h"
#include "devplug/sdk/error.hpp"

namespace devplug::detail {

using devplug::sdk::Error;

// Throws INVALID_ARGUMENT with `message`.
[[noreturn]] inline void invalid_argument(const std::string& message) {
  throw Error(DEVPLUG_CODE_INVALID_ARGUMENT, message);
}

// Throws INVALID_ARGUMENT "`what` is NULL" when `ptr` is null; returns it otherwise.
template <typename T>
inline T* require_not_null(T* ptr, const char* what) {
  if (ptr == nullptr) invalid_argument(std::string(what) + " is NULL");
  return ptr;
}

// fork() (fork.cpp): whether this process is a child forked after devplug initialized a
// plugin, in which every handle is refused (FAILED_PRECONDITION, refuse_forked) and destroy
// and release calls leave the parent's objects alone (leaked: their drivers are the parent's).
void note_plugin_initialized() noexcept;
bool forked_after_init() noexcept;
[[noreturn]] void refuse_forked();

// Checks that `handle` is a live host object of its kind (its `magic` matches `T::kMagic`),
// which catches NULL, objects of the wrong kind and most uses after destruction; in a child
// forked after initialization, refuses every handle.
template <typename T>
inline T* require_handle(T* handle, const char* what) {
  if (forked_after_init()) refuse_forked();
  require_not_null(handle, what);
  if (handle->magic != T::kMagic)
    invalid_argument(std::string(what) + " is not a live " + T::kKind + " handle");
  return handle;
}

// Runs `body` and converts whatever it throws into an error; returns NULL on success.
template <typename Body>
devplug_error_t* guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return devplug::sdk::error_create(e.code(), e.native_code(), e.what());
  } catch (const std::bad_alloc&) {
    return devplug::sdk::error_create(DEVPLUG_CODE_RESOURCE_EXHAUSTED, 0, "out of host memory");
  } catch (const std::exception& e) {
    return devplug::sdk::error_create(DEVPLUG_CODE_INTERNAL, 0, e.what());
  } catch (...) {
    return devplug::sdk::error_create(DEVPLUG_CODE_UNKNOWN, 0, "unknown C++ exception in libdevplug");
  }
}

// Runs `body` for an entry point that cannot report errors (release, destroy): whatever it
// throws is swallowed, because nothing may cross the C boundary.
template <typename Body>
void guard_void(Body&& body) noexcept {
  try {
    body();
  } catch (...) {}
}

}  // namespace devplug::detail
