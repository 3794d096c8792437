// SPDX-License-Identifier: Apache-2.0
/* A row of the C compiler's view of an ABI struct (c_headers.c), shared with the C++ test. */
#ifndef DEVPLUG_TESTS_ABI_LAYOUT_H_
#define DEVPLUG_TESTS_ABI_LAYOUT_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct abi_layout_row_t {
  const char* name;
  size_t size;
  size_t align;
} abi_layout_row_t;

extern const abi_layout_row_t abi_c_layout[];
extern const size_t abi_c_layout_count;
size_t abi_c_touch_inline_functions(void);

#ifdef __cplusplus
}
#endif

#endif /* DEVPLUG_TESTS_ABI_LAYOUT_H_ */
