// SPDX-License-Identifier: Apache-2.0
// The one definition of the shared counter (see test_counter.hpp).
#include "test_counter.hpp"

extern "C" {
__attribute__((visibility("default"))) long devplug_test_buffer_allocations = 0;
}
