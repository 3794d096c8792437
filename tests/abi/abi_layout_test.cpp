// SPDX-License-Identifier: Apache-2.0
// The C compiler and the C++ compiler must agree on every ABI struct: a plugin built as C and
// a dispatcher built as C++ share them. c_headers.c (compiled as strict C11, with frozen
// _Static_assert layouts) reports its sizes and alignments; this file compares them with
// C++'s.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "abi_layout.h"
#include "devplug/devplug.h"

namespace {

TEST(AbiLayout, CAndCppAgreeOnEveryStruct) {
  std::map<std::string, std::pair<size_t, size_t>> cpp;
#define ABI_STRUCT(type) cpp[#type] = {sizeof(type), alignof(type)};
#include "abi_structs.def"
  ASSERT_EQ(abi_c_layout_count, cpp.size());
  for (size_t i = 0; i < abi_c_layout_count; ++i) {
    const abi_layout_row_t& c = abi_c_layout[i];
    auto found = cpp.find(c.name);
    ASSERT_NE(found, cpp.end()) << c.name;
    EXPECT_EQ(c.size, found->second.first) << "sizeof(" << c.name << ") differs between C and C++";
    EXPECT_EQ(c.align, found->second.second) << "alignof(" << c.name << ") differs between C and C++";
  }
}

TEST(AbiLayout, InlineHeaderFunctionsWorkFromC) {
  // op_info + op_name + dtype_name + 8 bytes of float64 + code_name.
  EXPECT_EQ(abi_c_touch_inline_functions(), 1u + 1u + 1u + 8u + 1u);
}

TEST(AbiLayout, MinimumTableSizeIsTheWholeAbi10Table) {
  EXPECT_EQ(DEVPLUG_PLUGIN_API_MIN_SIZE, offsetof(devplug_plugin_api_t, kernel_count) + sizeof(size_t));
  EXPECT_LE(DEVPLUG_PLUGIN_API_MIN_SIZE, sizeof(devplug_plugin_api_t));
}

}  // namespace
