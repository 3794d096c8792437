// SPDX-License-Identifier: Apache-2.0
// The table from composite op to its decomposition, generated from ops.def: every
// composite row needs a function decompose_<name> (a missing one is a link error), and no
// list of ops is written here.
#include "decompose.hpp"

#include "../api_guard.hpp"
#include "prims.hpp"

namespace devplug::detail {
namespace composite {

#define DEVPLUG_COMPOSITE(id, name, n_in, n_out, optional_in, optional_out, attrs, result, dtypes, \
                          signature, summary)                                                      \
  void decompose_##name(Prims& p, const Call& c);
#include "devplug/ops.def"

namespace {

Decomposition decomposition_of(devplug_op_t op) {
  switch (op) {
#define DEVPLUG_COMPOSITE(id, name, n_in, n_out, optional_in, optional_out, attrs, result, dtypes, \
                          signature, summary)                                                      \
  case id:                                                                                         \
    return &decompose_##name;
#include "devplug/ops.def"
    default:
      return nullptr;
  }
}

}  // namespace
}  // namespace composite

void run_decomposition(devplug_stream_t& stream, const OpCall& call) {
  const composite::Decomposition decompose = composite::decomposition_of(call.op);
  if (decompose == nullptr)
    throw Error(DEVPLUG_CODE_INTERNAL, "op " + std::to_string(call.op) + " has no decomposition");
  composite::Prims prims(stream);
  decompose(prims, call);
}

}  // namespace devplug::detail
