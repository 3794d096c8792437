// SPDX-License-Identifier: Apache-2.0
// The device under test through the host API, for the checks written against devplug.h
// (graph_test.cpp, fused_test.cpp): a context with only the plugin under test and no fallback,
// so that every op runs on the device, the device --device names and a stream of its own.
#pragma once

#include <string>

#include "devplug/devplug.h"
#include "harness/execute.hpp"
#include "harness/run_state.hpp"

namespace devplug::conform {

struct DeviceUnderTest {
  devplug_context_t* context = nullptr;
  devplug_device_t* device = nullptr;
  devplug_stream_t* stream = nullptr;
  std::string error;  // why the context, device or stream could not be made; "" when usable

  DeviceUnderTest() {
    devplug_context_options_t o{sizeof o, DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
    error = take_error(devplug_context_create(&o, &context));
    if (error.empty())
      error =
          take_error(devplug_context_load_plugin(context, run_state().options.plugin_path.c_str(), nullptr));
    if (error.empty())
      error = take_error(
          devplug_context_get_device(context, static_cast<size_t>(run_state().options.device), &device));
    if (error.empty()) error = take_error(devplug_stream_create(device, &stream));
  }
  ~DeviceUnderTest() { devplug_context_destroy(context); }
  DeviceUnderTest(const DeviceUnderTest&) = delete;
  DeviceUnderTest& operator=(const DeviceUnderTest&) = delete;
};

}  // namespace devplug::conform
