// SPDX-License-Identifier: Apache-2.0
// The op table is ABI: ids, names, arities, attributes, result rules and dtypes never change
// once released. This test compares ops.def with the frozen list tests/abi/frozen_ops.txt
// (one line per op); a changed or removed row fails, and a new row fails until its line is
// appended to the frozen list. A generated switch over the ids makes a duplicated id a
// compile error.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "devplug/ops.h"
#include "devplug/sdk/composite.hpp"

namespace {

// One op as a frozen-list line: "id name category n_in n_out attrs result dtype,dtype,...",
// and for a composite " | signature" (its tensors' order, optional marks and dtypes are ABI).
struct CurrentRow {
  int id;
  std::string name;
  std::string line;
};

std::string dtype_names(devplug_dtype_mask_t mask) {
  std::string text;
  for (int d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
    if (mask & DEVPLUG_DTYPE_BIT(d)) text += (text.empty() ? "" : ",") + std::string(devplug_dtype_name(d));
  return text;
}

const std::vector<CurrentRow>& current_rows() {
  static const std::vector<CurrentRow> rows = [] {
    std::vector<CurrentRow> out;
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary)              \
  out.push_back({id, #name,                                                                      \
                 std::to_string(id) + " " #name " " #category " " + std::to_string(n_in) + " " + \
                     std::to_string(n_out) + " " #attrs " " #result " " + dtype_names(dtypes)});
#define DEVPLUG_COMPOSITE(id, name, n_in, n_out, optional_in, optional_out, attrs, result, dtypes,      \
                          signature, summary)                                                           \
  out.push_back({id, #name,                                                                             \
                 std::to_string(id) + " " #name " composite " + std::to_string(n_in) + " " +            \
                     std::to_string(n_out) + " " #attrs " " #result " " + dtype_names(dtypes) + " | " + \
                     signature});
#include "devplug/ops.def"
    return out;
  }();
  return rows;
}

// Frozen lines by id; comments and blank lines skipped.
std::map<int, std::string> frozen_rows() {
  std::map<int, std::string> rows;
  std::ifstream file(DEVPLUG_FROZEN_OPS_FILE);
  EXPECT_TRUE(file.good()) << "cannot read " << DEVPLUG_FROZEN_OPS_FILE;
  std::string line;
  int previous = 0;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    const int id = std::stoi(line);
    EXPECT_GT(id, previous) << "frozen_ops.txt must list ids in increasing order: " << line;
    EXPECT_TRUE(rows.emplace(id, line).second) << "frozen_ops.txt lists id " << id << " twice";
    previous = id;
  }
  return rows;
}

// A duplicated id in ops.def makes two equal case labels: a compile error.
int id_through_switch(int id) {
  switch (id) {
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary) \
  case id:                                                                          \
    return id;
#include "devplug/ops.def"
    default:
      return 0;
  }
}

TEST(OpsTable, FrozenRowsAreUnchanged) {
  const std::map<int, std::string> frozen = frozen_rows();
  ASSERT_FALSE(frozen.empty());
  std::map<int, std::string> current;
  for (const CurrentRow& row : current_rows()) current[row.id] = row.line;
  for (const auto& [id, line] : frozen) {
    auto found = current.find(id);
    if (found == current.end()) {
      ADD_FAILURE() << "op " << id << " was removed from ops.def; ops are never removed: " << line;
      continue;
    }
    EXPECT_EQ(found->second, line) << "op " << id
                                   << " changed in ops.def; a changed op is a new op with a new id";
  }
}

TEST(OpsTable, NewRowsHaveAFrozenLine) {
  const std::map<int, std::string> frozen = frozen_rows();
  for (const CurrentRow& row : current_rows()) {
    EXPECT_TRUE(frozen.count(row.id))
        << "op " << row.id << " is new in ops.def: append this line to tests/abi/frozen_ops.txt "
        << "(and raise DEVPLUG_OPSET_VERSION):\n"
        << row.line;
  }
}

TEST(OpsTable, NewRowsAreAppendedAfterTheFrozenOnes) {
  const std::map<int, std::string> frozen = frozen_rows();
  ASSERT_FALSE(frozen.empty());
  const int last_frozen = frozen.rbegin()->first;
  bool past_frozen = false;
  for (const CurrentRow& row : current_rows()) {
    if (!frozen.count(row.id)) {
      EXPECT_GT(row.id, last_frozen) << "new op " << row.name << " reuses a gap below the frozen ids";
      past_frozen = true;
    } else {
      EXPECT_FALSE(past_frozen) << "op " << row.name << " follows a new row: append only";
    }
  }
}

TEST(OpsTable, IdsAreUniqueAndPositive) {
  std::set<int> ids;
  for (const CurrentRow& row : current_rows()) {
    EXPECT_GT(row.id, 0) << row.name;
    EXPECT_LT(row.id, DEVPLUG_OP_END_) << row.name;
    EXPECT_TRUE(ids.insert(row.id).second) << "duplicate id " << row.id;
    EXPECT_EQ(id_through_switch(row.id), row.id);
  }
  EXPECT_EQ(id_through_switch(0), 0);
}

TEST(OpsTable, NamesAreUnique) {
  std::set<std::string> names;
  for (const CurrentRow& row : current_rows())
    EXPECT_TRUE(names.insert(row.name).second) << "duplicate op name " << row.name;
}

// A composite's signature names n_in inputs and n_out outputs, its `?` marks are exactly
// the optional bits, its annotations are known, and the tensors that must be there are.
TEST(OpsTable, CompositeSignaturesMatchTheirColumns) {
  int composites = 0;
  for (const CurrentRow& row : current_rows()) {
    const devplug_op_info_t* info = devplug_op_info(row.id);
    if (info->category != DEVPLUG_CATEGORY_composite) {
      EXPECT_EQ(info->signature, nullptr) << row.name;
      EXPECT_EQ(info->optional_inputs | info->optional_outputs, 0u) << row.name;
      continue;
    }
    ++composites;
    devplug::sdk::CompositeSignature sig;
    ASSERT_TRUE(devplug::sdk::parse_signature(info->signature, &sig)) << row.name << ": " << info->signature;
    EXPECT_EQ(sig.n_inputs, info->n_inputs) << row.name;
    EXPECT_EQ(sig.n_outputs, info->n_outputs) << row.name;
    uint32_t in = 0, out = 0;
    for (int k = 0; k < sig.n_inputs; ++k) in |= sig.inputs[k].optional ? 1u << k : 0u;
    for (int k = 0; k < sig.n_outputs; ++k) out |= sig.outputs[k].optional ? 1u << k : 0u;
    EXPECT_EQ(in, info->optional_inputs) << row.name << ": the ? marks differ from optional_in";
    EXPECT_EQ(out, info->optional_outputs) << row.name << ": the ? marks differ from optional_out";
    EXPECT_FALSE(sig.inputs[0].optional) << row.name << ": input 0 picks the dtype and cannot be optional";
    EXPECT_EQ(info->result, DEVPLUG_RESULT_same) << row.name << ": composites dispatch on input 0";
    EXPECT_NE(devplug::sdk::composite_signature(row.id), nullptr) << row.name;
    EXPECT_GE(row.id, 96) << row.name << ": composites follow the prims";
  }
  EXPECT_GT(composites, 0);
}

TEST(OpsTable, InfoTableMatchesTheXMacro) {
  for (const CurrentRow& row : current_rows()) {
    const devplug_op_info_t* info = devplug_op_info(row.id);
    ASSERT_NE(info, nullptr) << row.name;
    EXPECT_EQ(info->id, row.id);
    EXPECT_EQ(std::string(info->name), row.name);
    EXPECT_EQ(std::string(devplug_op_name(row.id)), row.name);
    EXPECT_NE(info->dtypes, 0u) << row.name << " allows no dtype";
    EXPECT_NE(info->summary, nullptr);
  }
  EXPECT_EQ(devplug_op_info(DEVPLUG_OP_INVALID), nullptr);
  EXPECT_EQ(devplug_op_info(DEVPLUG_OP_END_), nullptr);
  EXPECT_EQ(devplug_op_name(-1), nullptr);
}

}  // namespace
