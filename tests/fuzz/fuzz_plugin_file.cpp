// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: loading a fuzzed file as a plugin (the loader's ELF look,
// dispatcher/src/elf_check.cpp, and devplug_context_load_plugin's refusal).
//
// Input: the file's bytes, written to libdevplug_fuzz.so in a scratch folder.
// Properties: never crashes; the look at the file on disk and at its bytes in memory agree;
// a file the look refuses is refused by devplug_context_load_plugin with INVALID_ARGUMENT or
// NOT_FOUND and a message that gives the reason, and leaves a working context behind. A
// file that passes the look is a well-formed shared object, which the loader trusts as code
// (dlopen runs its constructors), so the harness does not load it.
#include <fstream>

#include "devplug/devplug.h"
#include "elf_check.hpp"
#include "fuzz_input.hpp"

using devplug::fuzz::fail;

namespace {

std::string plugin_file;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char pattern[] = "/tmp/devplug-fuzz-file.XXXXXX";
  if (!::mkdtemp(pattern)) fail("cannot make a scratch folder");
  plugin_file = std::string(pattern) + "/libdevplug_fuzz.so";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(plugin_file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) fail("cannot write " + plugin_file);
  }
  const std::string on_disk = devplug::detail::elf_load_problem(plugin_file);
  const std::string in_memory = devplug::detail::elf_load_problem(data, size, size);
  if (on_disk != in_memory) fail("the file gives '" + on_disk + "' and its bytes '" + in_memory + "'");
  if (on_disk.empty()) return 0;  // a well-formed shared object: trusted as code, not loaded here

  devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY};
  devplug_context_t* context = nullptr;
  if (devplug_error_t* e = devplug_context_create(&options, &context))
    fail(std::string("context: ") + e->message);
  devplug_plugin_t* plugin = nullptr;
  devplug_error_t* e = devplug_context_load_plugin(context, plugin_file.c_str(), &plugin);
  if (e == nullptr) fail("a file refused as '" + on_disk + "' was loaded");
  const std::string message = e->message ? e->message : "";
  if (message.find(on_disk) == std::string::npos)
    fail("the load error '" + message + "' does not say '" + on_disk + "'");
  if (plugin != nullptr) fail("a failed load gave a plugin");
  devplug_error_destroy(e);
  size_t failures = 0;
  if (devplug_error_t* f = devplug_context_failure_count(context, &failures)) fail(f->message);
  if (failures != 1) fail("the failure was recorded " + std::to_string(failures) + " times");
  devplug_context_destroy(context);
  return 0;
}
