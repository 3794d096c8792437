// SPDX-License-Identifier: Apache-2.0
// Fused programs on the plugin under test (Abi.fused_programs): random programs of 2 to 16
// elementwise nodes (every unary, binary and compare prim the device runs for the dtype, where,
// casts through float32) over broadcast, transposed and dense inputs, with and without a
// reduction tail (sum, amax, amin, mean, var over the last dim), for every dtype the device
// claims. Each is run as one program (devplug_fused_program_run: the plugin's fused_programs
// extension where it offers it, else the dispatcher op by op) and node by node with
// devplug_op_call; the outputs must match bit for bit (NaN matching NaN), a reduction tail
// within a few units in the last place of its dtype.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "devplug/devplug.h"
#include "devplug/sdk/dtype.hpp"
#include "devplug/sdk/fused_program.hpp"
#include "harness/execute.hpp"
#include "harness/run_state.hpp"
#include "suites/device_under_test.hpp"
#include "suites/suites.hpp"

namespace devplug::conform {
namespace {

constexpr int kProgramsPerDtype = 12;

// The device under test (no fallback: every node runs on the device), and the tensors a
// program's check made.
struct Device : DeviceUnderTest {
  std::vector<devplug_tensor_t*> made;  // released with the context

  bool runs(devplug_op_t op, devplug_dtype_t dtype) const {
    bool supported = false;
    return take_error(devplug_device_supports(device, op, dtype, &supported, nullptr)).empty() && supported;
  }
  devplug_tensor_t* make(devplug_dtype_t dtype, const std::vector<int64_t>& shape, std::string* e) {
    devplug_tensor_t* t = nullptr;
    if (e->empty())
      *e = take_error(
          devplug_tensor_create(device, dtype, static_cast<int32_t>(shape.size()), shape.data(), &t));
    if (t != nullptr) made.push_back(t);
    return t;
  }
  std::vector<unsigned char> bytes(const devplug_tensor_t* t, std::string* e) const {
    int64_t n = 0;
    devplug_tensor_desc_t d{};
    d.struct_size = sizeof d;
    if (e->empty()) *e = take_error(devplug_tensor_numel(t, &n));
    if (e->empty()) *e = take_error(devplug_tensor_describe(t, &d));
    std::vector<unsigned char> out(static_cast<size_t>(n) * devplug_dtype_size(d.dtype));
    if (e->empty() && !out.empty())
      *e = take_error(devplug_tensor_copy_to_host(stream, t, out.data(), out.size()));
    return out;
  }
};

bool is_float(devplug_dtype_t d) {
  return d == DEVPLUG_DTYPE_FLOAT16 || d == DEVPLUG_DTYPE_BFLOAT16 || d == DEVPLUG_DTYPE_FLOAT32 ||
         d == DEVPLUG_DTYPE_FLOAT64;
}

// The elementwise prims to draw from for `dtype`: those the device runs, without attributes,
// and (for integers) without results ops.def leaves unspecified or refuses (division by zero,
// shifts past the width, negative powers).
std::vector<devplug_op_t> elementwise_ops(const Device& d, devplug_dtype_t dtype) {
  static const devplug_op_t kIntegerExcluded[] = {DEVPLUG_OP_div,
                                                  DEVPLUG_OP_remainder,
                                                  DEVPLUG_OP_fmod,
                                                  DEVPLUG_OP_pow,
                                                  DEVPLUG_OP_shift_left,
                                                  DEVPLUG_OP_shift_right_arithmetic,
                                                  DEVPLUG_OP_shift_right_logical};
  std::vector<devplug_op_t> ops;
  for (devplug_op_t op = 1; op < DEVPLUG_OP_END_; ++op) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (info == nullptr || info->attrs_size != 0 || info->n_outputs != 1) continue;
    const bool category = info->category == DEVPLUG_CATEGORY_unary ||
                          info->category == DEVPLUG_CATEGORY_binary ||
                          info->category == DEVPLUG_CATEGORY_compare;
    if (!category || (info->result != DEVPLUG_RESULT_same && info->result != DEVPLUG_RESULT_bool)) continue;
    if (!is_float(dtype) &&
        std::find(std::begin(kIntegerExcluded), std::end(kIntegerExcluded), op) != std::end(kIntegerExcluded))
      continue;
    if (d.runs(op, dtype)) ops.push_back(op);
  }
  return ops;
}

struct FusedCase {
  sdk::FusedProgram program;
  std::vector<devplug_reduce_attrs_t> tail_attrs;  // reserved up front: nodes point into it
  std::vector<int64_t> shape;
  std::string text;  // the program, for messages
};

// A random program over dtype `dtype` (and bool from compares, float32 from casts).
FusedCase random_case(std::mt19937& rng, const Device& d, devplug_dtype_t dtype,
                      const std::vector<devplug_op_t>& ops) {
  FusedCase c;
  c.tail_attrs.reserve(4);
  static const std::vector<int64_t> kShapes[] = {{13}, {7, 6}, {3, 4, 5}};
  c.shape = kShapes[rng() % 3];
  sdk::FusedProgram& p = c.program;
  const size_t n_inputs = 1 + rng() % 3;
  p.inputs.assign(n_inputs, dtype);
  std::vector<devplug_fused_value_t> of_dtype, of_bool, of_f32;
  for (size_t i = 0; i < n_inputs; ++i) of_dtype.push_back(static_cast<devplug_fused_value_t>(i));
  auto pick = [&](const std::vector<devplug_fused_value_t>& pool) {
    // Lean towards recent values, so that chains form.
    return rng() % 3 == 0 ? pool[rng() % pool.size()]
                          : pool[pool.size() - 1 - rng() % std::min<size_t>(2, pool.size())];
  };
  const bool f32_cast = dtype != DEVPLUG_DTYPE_FLOAT32 && d.runs(DEVPLUG_OP_convert_element_type, dtype) &&
                        d.runs(DEVPLUG_OP_convert_element_type, DEVPLUG_DTYPE_FLOAT32);
  const bool where = d.runs(DEVPLUG_OP_where, dtype);
  const size_t length = 2 + rng() % 15;
  for (size_t k = 0; k < length; ++k) {
    const unsigned kind = rng() % 10;
    if (kind == 0 && where && !of_bool.empty()) {
      of_dtype.push_back(p.node(DEVPLUG_OP_where, dtype, {pick(of_bool), pick(of_dtype), pick(of_dtype)}));
      c.text += " where";
    } else if (kind == 1 && f32_cast) {
      const auto wide = p.node(DEVPLUG_OP_convert_element_type, DEVPLUG_DTYPE_FLOAT32, {pick(of_dtype)});
      of_f32.push_back(wide);
      of_dtype.push_back(p.node(DEVPLUG_OP_convert_element_type, dtype, {wide}));
      c.text += " cast>f32>back";
    } else if (!ops.empty()) {
      const devplug_op_t op = ops[rng() % ops.size()];
      const devplug_op_info_t* info = devplug_op_info(op);
      const auto a = pick(of_dtype);
      const auto b = pick(of_dtype);
      const bool to_bool = info->result == DEVPLUG_RESULT_bool;
      const auto v = info->n_inputs == 1 ? p.node(op, to_bool ? DEVPLUG_DTYPE_BOOL : dtype, {a})
                                         : p.node(op, to_bool ? DEVPLUG_DTYPE_BOOL : dtype, {a, b});
      (to_bool ? of_bool : of_dtype).push_back(v);
      c.text += std::string(" ") + info->name;
    }
  }
  if (p.nodes.empty()) return c;
  // Outputs: the last value of the dtype, and up to two others, distinct.
  p.outputs.push_back(of_dtype.back() >= n_inputs ? of_dtype.back()
                                                  : static_cast<devplug_fused_value_t>(n_inputs));
  for (int extra = 0; extra < 2; ++extra) {
    const auto v = static_cast<devplug_fused_value_t>(n_inputs + rng() % p.nodes.size());
    if (std::find(p.outputs.begin(), p.outputs.end(), v) == p.outputs.end()) p.outputs.push_back(v);
  }
  // A reduction tail over the last dim, half the time, on floating dtypes.
  if (is_float(dtype) && rng() % 2 == 0) {
    static const devplug_op_t kTail[] = {DEVPLUG_OP_sum, DEVPLUG_OP_amax, DEVPLUG_OP_amin, DEVPLUG_OP_mean,
                                         DEVPLUG_OP_var};
    const uint32_t last = 1u << (c.shape.size() - 1);
    for (int t = 0; t < 1 + static_cast<int>(rng() % 2); ++t) {
      const devplug_op_t op = kTail[rng() % 5];
      if (!d.runs(op, dtype)) continue;
      c.tail_attrs.push_back({sizeof(devplug_reduce_attrs_t), last, op == DEVPLUG_OP_var ? 1.0 : 0.0});
      p.outputs.push_back(p.node(op, dtype, {pick(of_dtype)}, &c.tail_attrs.back()));
      c.text += std::string(" |") + devplug_op_name(op);
    }
  }
  return c;
}

// Values for an input of `dtype`: floats in [-2, 2] (each a multiple of 1/64), integers in
// [-6, 6] ([0, 12] unsigned), bools at random.
std::vector<unsigned char> input_bytes(std::mt19937& rng, devplug_dtype_t dtype, size_t n) {
  std::vector<unsigned char> out(n * devplug_dtype_size(dtype));
  sdk::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < n; ++i) {
      T v{};
      const int r = static_cast<int>(rng() % 257) - 128;
      if constexpr (std::is_same_v<T, bool>)
        v = (r & 1) != 0;
      else if constexpr (sdk::is_floating_v<T>)
        v = sdk::from_double<T>(r / 64.0);
      else if constexpr (std::is_unsigned_v<T>)
        v = static_cast<T>((r + 128) % 13);
      else
        v = static_cast<T>(r % 7);
      std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
    }
  });
  return out;
}

// An input of the iteration shape: dense, broadcast along a dim (stride 0), or a transposed
// view of a dense tensor.
devplug_tensor_t* make_input(Device& d, std::mt19937& rng, devplug_dtype_t dtype,
                             const std::vector<int64_t>& shape, std::string* e) {
  const unsigned layout = shape.size() > 1 ? rng() % 3 : rng() % 2;
  std::vector<int64_t> stored = shape;
  if (layout == 1) stored[rng() % shape.size()] = 1;
  if (layout == 2) std::swap(stored[0], stored[1]);
  devplug_tensor_t* t = d.make(dtype, stored, e);
  int64_t n = 1;
  for (int64_t s : stored) n *= s;
  const std::vector<unsigned char> bytes = input_bytes(rng, dtype, static_cast<size_t>(n));
  if (e->empty())
    *e = take_error(
        devplug_tensor_copy_from_host(d.stream, t, bytes.data(), bytes.size(), DEVPLUG_COPY_BLOCKING));
  devplug_tensor_t* view = nullptr;
  if (e->empty() && layout == 1)
    *e = take_error(devplug_tensor_expand(t, static_cast<int32_t>(shape.size()), shape.data(), &view));
  if (e->empty() && layout == 2) *e = take_error(devplug_tensor_transpose(t, 0, 1, &view));
  if (view != nullptr) d.made.push_back(view);
  return view != nullptr ? view : t;
}

// Whether two outputs of `dtype` agree: bit for bit, NaN matching NaN; `tail` allows a few
// units in the last place (a fused reduction may add in another order).
std::string compare(devplug_dtype_t dtype, const std::vector<unsigned char>& fused,
                    const std::vector<unsigned char>& unfused, bool tail) {
  if (fused.size() != unfused.size()) return "sizes differ";
  std::string problem;
  sdk::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const size_t n = fused.size() / sizeof(T);
    for (size_t i = 0; i < n && problem.empty(); ++i) {
      if (std::memcmp(fused.data() + i * sizeof(T), unfused.data() + i * sizeof(T), sizeof(T)) == 0) continue;
      if constexpr (sdk::is_floating_v<T>) {
        T a, b;
        std::memcpy(&a, fused.data() + i * sizeof(T), sizeof(T));
        std::memcpy(&b, unfused.data() + i * sizeof(T), sizeof(T));
        const double x = sdk::to_double(a), y = sdk::to_double(b);
        if (std::isnan(x) && std::isnan(y)) continue;
        const double ulp = dtype == DEVPLUG_DTYPE_FLOAT64   ? 0x1p-52
                           : dtype == DEVPLUG_DTYPE_FLOAT32 ? 0x1p-23
                           : dtype == DEVPLUG_DTYPE_FLOAT16 ? 0x1p-10
                                                            : 0x1p-7;
        if (tail && std::fabs(x - y) <= 8 * ulp * std::max(1.0, std::fabs(y))) continue;
        problem = "element " + std::to_string(i) + ": fused " + std::to_string(x) + ", op by op " +
                  std::to_string(y);
      } else {
        problem = "element " + std::to_string(i) + " differs";
      }
    }
  });
  return problem;
}

// One program: fused and node by node on the same inputs; "" when the outputs agree, or when
// the node-by-node run itself fails (a prim the device refuses for these values). The
// tensors it makes are listed in d.made.
std::string run_case(Device& d, std::mt19937& rng, devplug_dtype_t dtype, const FusedCase& c, bool* native) {
  const sdk::FusedProgram& p = c.program;
  std::string e;
  std::vector<devplug_tensor_t*> inputs;
  for (size_t i = 0; i < p.inputs.size(); ++i) inputs.push_back(make_input(d, rng, dtype, c.shape, &e));
  if (!e.empty()) return "making inputs: " + e;
  const uint32_t n_in = static_cast<uint32_t>(p.inputs.size());
  auto dtype_of = [&](devplug_fused_value_t v) { return v < n_in ? p.inputs[v] : p.nodes[v - n_in].dtype; };
  auto is_tail = [&](devplug_fused_value_t v) {
    return v >= n_in && (p.nodes[v - n_in].op == DEVPLUG_OP_sum || p.nodes[v - n_in].op == DEVPLUG_OP_amax ||
                         p.nodes[v - n_in].op == DEVPLUG_OP_amin || p.nodes[v - n_in].op == DEVPLUG_OP_mean ||
                         p.nodes[v - n_in].op == DEVPLUG_OP_var);
  };
  std::vector<int64_t> reduced = c.shape;
  reduced.back() = 1;

  // Node by node.
  std::vector<devplug_tensor_t*> values(inputs);
  for (const devplug_fused_node_t& n : p.nodes) {
    const devplug_op_info_t* info = devplug_op_info(n.op);
    const bool tail = is_tail(static_cast<devplug_fused_value_t>(values.size()));
    devplug_tensor_t* out = d.make(n.dtype, tail ? reduced : c.shape, &e);
    std::vector<devplug_tensor_t*> args;
    for (int32_t a = 0; a < info->n_inputs; ++a) args.push_back(values[n.args[a]]);
    if (e.empty())
      e = take_error(devplug_op_call(d.stream, n.op, args.data(), args.size(), &out, 1, n.attrs));
    if (!e.empty()) return "";  // the prims themselves refuse these values: nothing to compare
    values.push_back(out);
  }

  devplug_fused_program_t* program = nullptr;
  const devplug_fused_program_desc_t desc = p.desc();
  e = take_error(devplug_fused_program_create(d.device, &desc, &program));
  if (!e.empty()) return "devplug_fused_program_create: " + e;
  e = take_error(devplug_fused_program_is_native(program, native, nullptr));
  std::vector<devplug_tensor_t*> outputs;
  for (devplug_fused_value_t v : p.outputs)
    outputs.push_back(d.make(dtype_of(v), is_tail(v) ? reduced : c.shape, &e));
  if (e.empty())
    e = take_error(devplug_fused_program_run(d.stream, program, inputs.data(), inputs.size(), outputs.data(),
                                             outputs.size()));
  std::string problem = e.empty() ? "" : "devplug_fused_program_run: " + e;
  for (size_t j = 0; j < outputs.size() && problem.empty(); ++j) {
    const auto fused = d.bytes(outputs[j], &e);
    const auto unfused = d.bytes(values[p.outputs[j]], &e);
    if (!e.empty()) problem = "reading output " + std::to_string(j) + ": " + e;
    const std::string differs =
        problem.empty() ? compare(dtype_of(p.outputs[j]), fused, unfused, is_tail(p.outputs[j])) : "";
    if (!differs.empty())
      problem = "output " + std::to_string(j) + " (value " + std::to_string(p.outputs[j]) + "): " + differs;
  }
  const std::string destroyed = take_error(devplug_fused_program_destroy(program));
  if (problem.empty() && !destroyed.empty()) problem = "devplug_fused_program_destroy: " + destroyed;
  return problem;
}

// run_case, then the tensors it made released.
std::string check_case(Device& d, std::mt19937& rng, devplug_dtype_t dtype, const FusedCase& c,
                       bool* native) {
  const std::string problem = run_case(d, rng, dtype, c, native);
  for (devplug_tensor_t* t : d.made) devplug_tensor_release(t);
  d.made.clear();
  return problem;
}

}  // namespace

std::string fused_programs() {
  Device d;
  if (!d.error.empty()) return "  setting up: " + d.error + "\n";
  static const devplug_dtype_t kDtypes[] = {
      DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT64,
      DEVPLUG_DTYPE_INT32,   DEVPLUG_DTYPE_INT64,   DEVPLUG_DTYPE_UINT8,    DEVPLUG_DTYPE_BOOL};
  std::mt19937 rng(0xf05edu);
  std::string problems;
  int run = 0, native = 0;
  std::string dtypes;
  for (devplug_dtype_t dtype : kDtypes) {
    const std::vector<devplug_op_t> ops = elementwise_ops(d, dtype);
    if (ops.empty()) continue;
    dtypes += std::string(dtypes.empty() ? "" : ", ") + devplug_dtype_name(dtype);
    for (int k = 0; k < kProgramsPerDtype; ++k) {
      const FusedCase c = random_case(rng, d, dtype, ops);
      if (c.program.nodes.empty()) continue;
      bool is_native = false;
      const std::string e = check_case(d, rng, dtype, c, &is_native);
      ++run;
      native += is_native ? 1 : 0;
      if (!e.empty())
        problems += std::string("  ") + devplug_dtype_name(dtype) + " program " + std::to_string(k) + " [" +
                    c.text + " ]: " + e + "\n";
    }
  }
  std::printf(
      "abi_fused_programs: %d programs (%s), %d run by the plugin's fused_programs extension, %d op by op\n",
      run, dtypes.c_str(), native, run - native);
  std::fflush(stdout);
  return problems;
}

}  // namespace devplug::conform
