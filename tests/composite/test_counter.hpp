// SPDX-License-Identifier: Apache-2.0
// A counter shared by the prims-only fixture plugin and the test that loads it: both link
// libdevplug_test_counter.so, so they see one variable.
#pragma once

extern "C" {
// buffer_allocate calls the prims-only fixture has forwarded to its reference copy.
extern long devplug_test_buffer_allocations;
}
