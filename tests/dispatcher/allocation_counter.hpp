// How many times the global operator new has run in this process (see
// allocation_counter.cpp).
#pragma once

long allocation_count();
