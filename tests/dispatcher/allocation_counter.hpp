// SPDX-License-Identifier: Apache-2.0
// How many times the global operator new has run in this process, or -1 where it is not
// counted (sanitizer builds; see allocation_counter.cpp).
#pragma once

long allocation_count();
