// SPDX-License-Identifier: Apache-2.0
// devplug-info: lists the plugins devplug finds (path, name, version, ABI), their devices
// and their declared op x dtype support, and the plugins that failed to load; `--json`
// prints the same for scripts; `--check PLUGIN` diagnoses one plugin (doctor.hpp).
//
// Exit status: 0 on success; with --check, 1 when the plugin will not load and 2 when it
// loads with zero devices; 3 for a usage or libdevplug error.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "doctor.hpp"
#include "inventory.hpp"
#include "report.hpp"

int main(int argc, char** argv) {
  CLI::App app{"List devplug plugins, their devices and kernels, or diagnose one plugin."};
  bool json = false;
  bool no_discovery = false;
  std::vector<std::string> plugins;
  std::string check;
  app.add_flag("--json", json, "Print JSON instead of text");
  app.add_option("--plugin", plugins, "Also load this plugin file (repeatable)");
  app.add_flag("--no-discovery", no_discovery,
               "Do not scan DEVPLUG_PLUGIN_PATH and the install's plugin folder");
  auto* check_option =
      app.add_option("--check", check,
                     "Diagnose one plugin (a path, or the name of a discovered plugin): why it will not load "
                     "or has no devices, and what to do about it");
  check_option->excludes(app.get_option("--json"));
  app.footer(
      "Exit status: 0 success; with --check, 1 when the plugin will not load and 2 when it loads "
      "with zero devices; 3 for a usage or libdevplug error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 3;
  }

  try {
    if (!check.empty()) return devplug::tools::run_doctor(check, plugins, !no_discovery, std::cout);
    devplug_context_t* context = devplug::tools::open_context(plugins, !no_discovery);
    const devplug::tools::Inventory inventory = devplug::tools::take_inventory(context);
    devplug_context_destroy(context);
    if (json)
      devplug::tools::print_json(inventory, std::cout);
    else
      devplug::tools::print_text(inventory, std::cout);
  } catch (const std::exception& e) {
    std::cerr << "devplug-info: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
