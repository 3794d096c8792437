// SPDX-License-Identifier: Apache-2.0
// What the harnesses that drive the host API share: turning an error into text, stopping on
// one that must not happen, and the reference plugin's device in a context of its own.
#pragma once

#include <string>

#include "devplug/devplug.h"
#include "fuzz_input.hpp"

namespace devplug::fuzz {

// The error as "CODE: message", destroyed.
inline std::string take(devplug_error_t* e) {
  std::string m = std::string(devplug_code_name(e->code)) + ": " + (e->message ? e->message : "(null)");
  devplug_error_destroy(e);
  return m;
}

// A call that must succeed.
inline void check(devplug_error_t* e, const std::string& what) {
  if (e) fail(what + ": " + take(e));
}

// A context holding only the reference plugin (no discovery), and its device.
inline void open_reference(devplug_context_t** context, devplug_device_t** device) {
  devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY};
  check(devplug_context_create(&options, context), "context");
  check(devplug_context_load_plugin(*context, DEVPLUG_REFERENCE_PLUGIN_PATH, nullptr), "load the reference");
  check(devplug_context_get_device(*context, 0, device), "device");
}

}  // namespace devplug::fuzz
