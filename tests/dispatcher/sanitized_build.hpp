// SPDX-License-Identifier: Apache-2.0
// DEVPLUG_TEST_SANITIZED is 1 in an ASan or TSan build. Their runtimes replace the global
// operator new themselves (they must see every allocation), so the tests' allocation
// counters replace it only when it is 0, and report -1 (not counted) otherwise.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEVPLUG_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DEVPLUG_TEST_SANITIZED 1
#endif
#endif
#ifndef DEVPLUG_TEST_SANITIZED
#define DEVPLUG_TEST_SANITIZED 0
#endif
