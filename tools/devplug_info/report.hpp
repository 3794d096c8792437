// SPDX-License-Identifier: Apache-2.0
// Prints an inventory as text (for people) or JSON (for scripts; `devplug-info --json`).
#pragma once

#include <ostream>

#include "inventory.hpp"

namespace devplug::tools {

void print_text(const Inventory& inventory, std::ostream& out);
void print_json(const Inventory& inventory, std::ostream& out);

}  // namespace devplug::tools
