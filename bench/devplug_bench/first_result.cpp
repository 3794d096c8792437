// SPDX-License-Identifier: Apache-2.0
// devplug-bench-first-result PLUGIN: the child devplug-bench times for its start-up rows.
// Loads PLUGIN alone, adds two 1024-element float32 tensors on device 0 and waits for the
// result; exit status 0 when that worked. A program of its own, linked with libdevplug only:
// devplug-bench itself links libtorch (its dispatch yardstick), whose static initialisers
// take some 250 ms of CPU before main and would be counted as the plugin's start-up.
#include <cstdio>
#include <exception>

#include "workloads.hpp"

int main(int argc, char** argv) {
  using namespace devplug::bench;
  if (argc != 2) {
    std::fprintf(stderr, "usage: devplug-bench-first-result PLUGIN\n");
    return 2;
  }
  try {
    devplug_context_options_t o{sizeof o, DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
    devplug_context_t* context = nullptr;
    devplug_device_t* device = nullptr;
    check(devplug_context_create(&o, &context), "devplug_context_create");
    check(devplug_context_load_plugin(context, argv[1], nullptr), "devplug_context_load_plugin");
    check(devplug_context_get_device(context, 0, &device), "devplug_context_get_device");
    {
      Workload add = add_workload(device, DEVPLUG_DTYPE_FLOAT32, 1024);
      add.run();
    }
    devplug_context_destroy(context);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "devplug-bench-first-result: %s\n", e.what());
    return 1;
  }
}
