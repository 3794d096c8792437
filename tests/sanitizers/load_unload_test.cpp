// SPDX-License-Identifier: Apache-2.0
// Load/unload cycles of one plugin, as a host that opens and closes devplug again and again
// would: each cycle makes a context, loads the plugin, runs an op on every device and
// answers a bad call with an error, then destroys the context, which unloads the plugin.
//
// Usage: load_unload_test PLUGIN [CYCLES]. In every tree it proves that cycles work; in the
// asan tree LeakSanitizer checks at exit that no cycle left memory behind (third-party
// drivers' own process-lifetime state is suppressed by library, tests/sanitizers/options.c)
// and AddressSanitizer that nothing is used after its plugin was unloaded.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "devplug/devplug.h"

namespace {

std::string plugin_path;
int cycles = 20;

std::string take(devplug_error_t* e) {
  if (e == nullptr) return "";
  std::string m = std::string(devplug_code_name(e->code)) + ": " + (e->message ? e->message : "(null)");
  devplug_error_destroy(e);
  return m;
}

// One cycle; "" or what went wrong.
std::string cycle(int k) {
  devplug_context_options_t options{sizeof(options),
                                    DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
  devplug_context_t* context = nullptr;
  std::string problem = take(devplug_context_create(&options, &context));
  if (!problem.empty()) return "context: " + problem;
  problem = take(devplug_context_load_plugin(context, plugin_path.c_str(), nullptr));
  size_t devices = 0;
  if (problem.empty()) problem = take(devplug_context_device_count(context, &devices));
  for (size_t d = 0; d < devices && problem.empty(); ++d) {
    devplug_device_t* device = nullptr;
    problem = take(devplug_context_get_device(context, d, &device));
    const int64_t n = 257;
    devplug_tensor_t *a = nullptr, *out = nullptr;
    if (problem.empty()) problem = take(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &a));
    if (problem.empty()) problem = take(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &out));
    std::vector<float> values(n, static_cast<float>(k)), back(n, 0);
    if (problem.empty())
      problem = take(
          devplug_tensor_copy_from_host(nullptr, a, values.data(), n * sizeof(float), DEVPLUG_COPY_BLOCKING));
    devplug_tensor_t* inputs[2] = {a, a};
    if (problem.empty())
      problem = take(devplug_op_call(nullptr, DEVPLUG_OP_add, inputs, 2, &out, 1, nullptr));
    if (problem.empty())
      problem = take(devplug_tensor_copy_to_host(nullptr, out, back.data(), n * sizeof(float)));
    if (problem.empty() && back[n - 1] != 2.0f * static_cast<float>(k)) problem = "add gave a wrong value";
    // A refused call: its error is made and destroyed like any other.
    if (problem.empty() &&
        take(devplug_op_call(nullptr, DEVPLUG_OP_add, inputs, 1, &out, 1, nullptr)).empty())
      problem = "add with one input was accepted";
    devplug_tensor_release(a);  // out is left to the context, which releases what it made
  }
  devplug_context_destroy(context);
  return problem;
}

TEST(LoadUnload, Cycles) {
  ASSERT_FALSE(plugin_path.empty()) << "usage: load_unload_test PLUGIN [CYCLES]";
  for (int k = 0; k < cycles; ++k) ASSERT_EQ(cycle(k), "") << "cycle " << k << " of " << plugin_path;
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc > 1) plugin_path = argv[1];
  if (argc > 2) cycles = std::atoi(argv[2]);
  return RUN_ALL_TESTS();
}
