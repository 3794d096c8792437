// SPDX-License-Identifier: Apache-2.0
// Fused programs as generated OpenCL C (see fused.hpp).
#include "fused.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devplug/ops.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/fused_program.hpp"
#include "devplug/sdk/strided.hpp"
#include "disk_cache.hpp"
#include "launch.hpp"
#include "ops.hpp"
#include "program_cache.hpp"

namespace {

constexpr uint32_t kProgramTag = 0x46434c31;  // "FCL1"
constexpr uint32_t kDeadTag = 0xdeadbeef;

}  // namespace

struct devplug_fused_program_handle_t {
  uint32_t tag = kProgramTag;
  devplug_device_handle_t* device = nullptr;
  devplug::sdk::FusedProgram program;  // the caller's desc, copied
  std::string nodes;                   // the generated text ahead of the kernel
  std::mutex mutex;
  // The family name of each kernel text built so far, by launch variant (Shape::variant).
  std::map<std::string, std::string> families;
};

namespace devplug::opencl {
namespace {

using sdk::fail;

// How one launch passes its tensors: the merged dims and, per tensor (inputs, then outputs),
// whether every element reads one address (an input broadcast from one element: it needs no
// strides), its element offset and its strides over the merged dims.
struct Shape {
  std::vector<int64_t> sizes;                 // the merged dims (empty: one element)
  std::vector<bool> uniform;                  // per tensor
  std::vector<std::vector<int64_t>> strides;  // per tensor, over `sizes`
  bool dense = false;                         // every tensor but the uniform ones walks memory with stride 1
  int64_t numel = 1;

  // The kernel variant: dense or the rank, and which tensors are uniform.
  std::string variant() const {
    std::string v = (dense ? std::string("d") : "r" + std::to_string(sizes.size())) + "u";
    for (bool u : uniform) v += u ? '1' : '0';
    return v;
  }
  // The bytes of kernel arguments the variant passes: per tensor a pointer and an element
  // offset, strides for the tensors that are not uniform; then the sizes and the count.
  size_t argument_bytes() const {
    size_t bytes = (dense ? 0 : 8 * sizes.size()) + 8;
    for (bool u : uniform) bytes += sizeof(void*) + 8 + (dense || u ? 0 : 8 * sizes.size());
    return bytes;
  }
};

std::string value(devplug_fused_value_t v) { return "v" + std::to_string(v); }

// The values node `n` reads as elementwise.cl's operands a, b and c: its arguments, the last
// repeated into the slots its arity leaves (as an unfused launch fills DTB and DTC).
std::array<devplug_fused_value_t, 3> operands(const devplug_fused_node_t& n) {
  const int32_t arity = devplug_op_info(n.op)->n_inputs;
  const devplug_fused_value_t a = n.args[0], b = arity > 1 ? n.args[1] : a, c = arity > 2 ? n.args[2] : b;
  return {a, b, c};
}

// The node functions: fused.cl, then elementwise.cl once per elementwise node with its
// defines (the reduction tail is written into the kernel itself).
std::string node_source(const sdk::FusedProgram& p) {
  const std::string elementwise = ProgramCache::source_of("elementwise");
  std::string s = ProgramCache::source_of("fused");
  for (size_t k = 0; k < p.tail_start(); ++k) {
    const devplug_fused_node_t& n = p.nodes[k];
    const auto [a, b, c] = operands(n);
    const std::string op = clc::elementwise_token(n.op);
    s += "\n// node " + std::to_string(k) + ": " + devplug_op_info(n.op)->name +
         "\n#undef DTA\n#undef DTB\n#undef DTC\n#undef DTO\n";
    s += "#define DTA " + std::to_string(p.dtype_of(a)) + "\n#define DTB " + std::to_string(p.dtype_of(b)) +
         "\n#define DTC " + std::to_string(p.dtype_of(c)) + "\n#define DTO " + std::to_string(n.dtype) +
         "\n#define OP_" + op + "\n#define FUSED_NODE " + std::to_string(k) + "\n";
    s += elementwise;
    s += "\n#undef OP_" + op + "\n#undef FUSED_NODE\n";
  }
  return s;
}

// The kernel `fused` for one launch shape. Inputs are in0.., outputs out0.., in the program's
// order.
std::string kernel_source(const sdk::FusedProgram& p, const Shape& shape) {
  const size_t n_in = p.inputs.size(), n_out = p.outputs.size();
  const size_t rank = shape.dense ? 0 : shape.sizes.size();
  std::string params, body;
  auto operand = [&](size_t t, const std::string& name, devplug_dtype_t dtype, bool input) {
    params += std::string(params.empty() ? "" : ",\n                    ") + "__global " +
              (input ? "const " : "") + "STORAGE_" + std::to_string(dtype) + "* " + name + ", const long o_" +
              name;
    std::string at = "o_" + name;
    if (shape.uniform[t]) return at;
    if (shape.dense) return at + " + k";
    for (size_t d = 0; d < rank; ++d) {
      const std::string stride = "s" + std::to_string(d) + "_" + name;
      params += ", const long " + stride;
      at += " + i" + std::to_string(d) + " * " + stride;
    }
    return at;
  };
  std::vector<std::string> in_at, out_at;
  for (size_t i = 0; i < n_in; ++i) in_at.push_back(operand(i, "in" + std::to_string(i), p.inputs[i], true));
  for (size_t j = 0; j < n_out; ++j)
    out_at.push_back(operand(n_in + j, "out" + std::to_string(j), p.dtype_of(p.outputs[j]), false));
  for (size_t d = 0; d < rank; ++d) params += ", const long n" + std::to_string(d);
  params += ", const long numel";

  body += "  const long k = get_global_id(0);\n  if (k >= numel) return;\n";
  if (rank > 0) {
    body += "  long r = k;\n";
    for (size_t d = rank - 1; d > 0; --d) {
      const std::string i = std::to_string(d);
      body += "  const long i" + i + " = r % n" + i + ";\n  r /= n" + i + ";\n";
    }
    body += "  const long i0 = r;\n";
  }
  for (size_t i = 0; i < n_in; ++i)
    body += "  const STORAGE_" + std::to_string(p.inputs[i]) + " " +
            value(static_cast<devplug_fused_value_t>(i)) + " = in" + std::to_string(i) + "[" + in_at[i] +
            "];\n";
  for (size_t k = 0; k < p.nodes.size(); ++k) {
    const devplug_fused_node_t& n = p.nodes[k];
    const auto [a, b, c] = operands(n);
    body += "  const STORAGE_" + std::to_string(n.dtype) + " " +
            value(static_cast<devplug_fused_value_t>(n_in + k)) + " = node_" + std::to_string(k) + "(" +
            value(a) + ", " + value(b) + ", " + value(c) + ");\n";
  }
  for (size_t j = 0; j < n_out; ++j)
    body += "  out" + std::to_string(j) + "[" + out_at[j] + "] = " + value(p.outputs[j]) + ";\n";
  return "\n__kernel void fused(" + params + ") {\n" + body + "}\n";
}

// The bytes of kernel arguments a launch with a reduction tail passes over inputs of `rank`:
// per tensor a pointer, an element offset and its strides; the sizes and the two counts.
size_t tail_argument_bytes(const sdk::FusedProgram& p, int32_t rank) {
  return (p.inputs.size() + p.outputs.size()) * (sizeof(void*) + 8 + 8 * static_cast<size_t>(rank)) +
         8 * static_cast<size_t>(rank) + 16;
}

// The kernel `fused` of a program with a reduction tail, over inputs of `rank`: one work-item
// per output row (the kept leading dims), which walks the row's reduced trailing dims in
// row-major order, computes the elementwise nodes at each element, stores the elementwise
// outputs, and accumulates the tail nodes as reduce.cl's reduce_serial does (var in two
// passes: the mean, then the squared deviations from it, the nodes computed again).
std::string tail_kernel_source(const sdk::FusedProgram& p, int32_t rank, bool fp64) {
  const size_t n_in = p.inputs.size(), n_out = p.outputs.size();
  const uint32_t tail = p.tail_start();
  int32_t kept = rank;
  for (int32_t d = 0; d < rank; ++d)
    if ((p.tail_mask() >> d) & 1u) --kept;
  std::string params, body;
  auto tensor = [&](const std::string& name, devplug_dtype_t dtype, bool input) {
    params += std::string(params.empty() ? "" : ",\n                    ") + "__global " +
              (input ? "const " : "") + "STORAGE_" + std::to_string(dtype) + "* " + name + ", const long o_" +
              name;
    for (int32_t d = 0; d < rank; ++d) params += ", const long s" + std::to_string(d) + "_" + name;
  };
  auto at = [&](const std::string& name, int32_t dims) {
    std::string a = "o_" + name;
    for (int32_t d = 0; d < dims; ++d)
      a += " + i" + std::to_string(d) + " * s" + std::to_string(d) + "_" + name;
    return a;
  };
  for (size_t i = 0; i < n_in; ++i) tensor("in" + std::to_string(i), p.inputs[i], true);
  for (size_t j = 0; j < n_out; ++j) tensor("out" + std::to_string(j), p.dtype_of(p.outputs[j]), false);
  for (int32_t d = 0; d < rank; ++d) params += ", const long n" + std::to_string(d);
  params += ", const long kept, const long red";

  auto is_tail = [&](devplug_fused_value_t v) { return v >= n_in + tail; };
  auto load = [&](devplug_fused_value_t v) {
    return "(tail_t)LOAD_" + std::to_string(p.dtype_of(v)) + "(&" + value(v) + ", 0)";
  };
  // One walk over the row: the element's indices, its inputs, its nodes, then `per_element`.
  auto walk = [&](bool stores, const std::string& per_element) {
    std::string w = "  for (long q = 0; q < red; ++q) {\n    long e = q;\n";
    for (int32_t d = rank - 1; d > kept; --d)
      w += "    const long i" + std::to_string(d) + " = e % n" + std::to_string(d) + ";\n    e /= n" +
           std::to_string(d) + ";\n";
    if (rank > kept) w += "    const long i" + std::to_string(kept) + " = e;\n";
    for (size_t i = 0; i < n_in; ++i)
      w += "    const STORAGE_" + std::to_string(p.inputs[i]) + " " +
           value(static_cast<devplug_fused_value_t>(i)) + " = in" + std::to_string(i) + "[" +
           at("in" + std::to_string(i), rank) + "];\n";
    for (uint32_t k = 0; k < tail; ++k) {
      const devplug_fused_node_t& n = p.nodes[k];
      const auto [a, b, c] = operands(n);
      w += "    const STORAGE_" + std::to_string(n.dtype) + " " +
           value(static_cast<devplug_fused_value_t>(n_in + k)) + " = node_" + std::to_string(k) + "(" +
           value(a) + ", " + value(b) + ", " + value(c) + ");\n";
    }
    for (size_t j = 0; stores && j < n_out; ++j)
      if (!is_tail(p.outputs[j]))
        w += "    out" + std::to_string(j) + "[" + at("out" + std::to_string(j), rank) +
             "] = " + value(p.outputs[j]) + ";\n";
    return w + per_element + "  }\n";
  };

  body += "  const long o = get_global_id(0);\n  if (o >= kept) return;\n";
  if (kept > 0) {
    body += "  long r = o;\n";
    for (int32_t d = kept - 1; d > 0; --d)
      body += "  const long i" + std::to_string(d) + " = r % n" + std::to_string(d) + ";\n  r /= n" +
              std::to_string(d) + ";\n";
    body += "  const long i0 = r;\n";
  }
  std::string first_pass, second_pass;
  bool two_passes = false;
  for (uint32_t k = tail; k < p.nodes.size(); ++k) {
    const devplug_fused_node_t& n = p.nodes[k];
    const std::string acc = "acc" + std::to_string(k);
    const std::string x = load(n.args[0]);
    body += "  tail_t " + acc + " = " +
            (n.op == DEVPLUG_OP_amax   ? "-INFINITY"
             : n.op == DEVPLUG_OP_amin ? "INFINITY"
                                       : "0") +
            ";\n";
    if (n.op == DEVPLUG_OP_amax || n.op == DEVPLUG_OP_amin)
      first_pass += "    " + acc + " = tail_" + devplug_op_info(n.op)->name + "(" + acc + ", " + x + ");\n";
    else
      first_pass += "    " + acc + " += " + x + ";\n";
    if (n.op == DEVPLUG_OP_var) {
      two_passes = true;
      second_pass += "    {\n      const tail_t dev = " + x + " - mean" + std::to_string(k) + ";\n      " +
                     acc + " += dev * dev;\n    }\n";
    }
  }
  body += walk(true, first_pass);
  if (two_passes) {
    for (uint32_t k = tail; k < p.nodes.size(); ++k)
      if (p.nodes[k].op == DEVPLUG_OP_var)
        body += "  const tail_t mean" + std::to_string(k) + " = acc" + std::to_string(k) +
                " / (tail_t)red;\n  acc" + std::to_string(k) + " = 0;\n";
    body += walk(false, second_pass);
  }
  for (size_t j = 0; j < n_out; ++j) {
    const devplug_fused_value_t v = p.outputs[j];
    if (!is_tail(v)) continue;
    const uint32_t k = v - static_cast<uint32_t>(n_in);
    const devplug_fused_node_t& n = p.nodes[k];
    std::string result = "acc" + std::to_string(k);
    if (n.op == DEVPLUG_OP_mean) result += " / (tail_t)red";
    if (n.op == DEVPLUG_OP_var) {
      char correction[40];
      std::snprintf(correction, sizeof correction, fp64 ? "%.17g" : "%.9gf",
                    static_cast<const devplug_reduce_attrs_t*>(n.attrs)->correction);
      result += " / fmax((tail_t)0, (tail_t)red - (tail_t)" + std::string(correction) + ")";
    }
    body += "  {\n    STORAGE_" + std::to_string(n.dtype) + " t;\n    TAIL_STORE(" + std::to_string(n.dtype) +
            ", &t, " + result + ");\n    out" + std::to_string(j) + "[" +
            at("out" + std::to_string(j), kept) + "] = t;\n  }\n";
  }
  return "\n__kernel void fused(" + params + ") {\n" + body + "}\n";
}

// The family name of the program's kernel variant `variant`, defining it on first use with
// the kernel `kernel()` writes.
template <typename Kernel>
const char* family_for(devplug_fused_program_handle_t* program, const std::string& variant,
                       const Kernel& kernel) {
  std::lock_guard<std::mutex> lock(program->mutex);
  auto it = program->families.find(variant);
  if (it != program->families.end()) return it->second.c_str();
  std::string source = program->nodes + kernel();
  const std::string family = "fused_" + clc::hex_key(clc::fnv1a(clc::kFnvStart, source));
  program->device->programs->define_family(family, std::move(source));
  return program->families.emplace(variant, family).first->second.c_str();
}

// The tensors' shape for a launch: dims of size 1 go, uniform inputs are set aside, and a dim
// merges into the next when every other tensor steps over the next dim's whole extent with it.
Shape shape_of(const devplug_tensor_desc_t& first, const std::vector<clc::View>& views, size_t n_inputs) {
  Shape s;
  for (size_t t = 0; t < views.size(); ++t) {
    bool uniform = t < n_inputs;
    for (int32_t d = 0; uniform && d < first.rank; ++d)
      uniform = first.shape[d] == 1 || views[t].strides[d] == 0;
    s.uniform.push_back(uniform);
  }
  s.strides.resize(views.size());
  for (int32_t d = 0; d < first.rank; ++d) {
    s.numel *= first.shape[d];
    if (first.shape[d] == 1) continue;
    bool merge = !s.sizes.empty();
    for (size_t t = 0; merge && t < views.size(); ++t)
      merge = s.uniform[t] || s.strides[t].back() == views[t].strides[d] * first.shape[d];
    if (merge) {
      s.sizes.back() *= first.shape[d];
      for (size_t t = 0; t < views.size(); ++t) s.strides[t].back() = views[t].strides[d];
    } else {
      s.sizes.push_back(first.shape[d]);
      for (size_t t = 0; t < views.size(); ++t) s.strides[t].push_back(views[t].strides[d]);
    }
  }
  s.dense = s.sizes.size() <= 1;
  for (size_t t = 0; s.dense && t < views.size(); ++t)
    s.dense = s.sizes.empty() || s.uniform[t] || s.strides[t][0] == 1;
  return s;
}

// The program node by node through the plugin's own elementwise kernels, each result in
// scratch memory of its dtype, then copied to its output: for a launch whose arguments the
// device cannot take in one kernel. The results are those of the one kernel.
void run_op_by_op(devplug_stream_handle_t* stream, const sdk::FusedProgram& p,
                  const devplug_tensor_desc_t& first, const std::vector<clc::View>& views) {
  const int32_t rank = first.rank;
  const int64_t numel = sdk::numel(first);
  clc::View dense;
  sdk::contiguous_strides(rank, first.shape, dense.strides);
  std::vector<std::unique_ptr<clc::ScratchBuffer>> scratch;
  std::vector<clc::View> values(views.begin(), views.begin() + static_cast<std::ptrdiff_t>(p.inputs.size()));
  for (const devplug_fused_node_t& n : p.nodes) {
    const devplug_op_info_t* info = devplug_op_info(n.op);
    scratch.push_back(std::make_unique<clc::ScratchBuffer>(
        stream, static_cast<size_t>(numel) * devplug_dtype_size(n.dtype)));
    clc::View result = dense;
    result.mem = scratch.back()->get();
    std::vector<const clc::View*> args;
    for (int32_t k = 0; k < info->n_inputs; ++k) args.push_back(&values[n.args[k]]);
    const auto [a, b, c] = operands(n);
    clc::run_elementwise(stream, clc::elementwise_token(n.op), p.dtype_of(a), p.dtype_of(b), p.dtype_of(c),
                         n.dtype, rank, first.shape, result, args, info->name);
    values.push_back(result);
  }
  for (size_t j = 0; j < p.outputs.size(); ++j)
    clc::run_copy(stream, p.dtype_of(p.outputs[j]), rank, first.shape, views[p.inputs.size() + j],
                  values[p.outputs[j]]);
}

devplug_fused_program_handle_t* live(devplug_fused_program_handle_t* program) {
  if (program->tag != kProgramTag)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "program is not a live OpenCL fused program");
  return program;
}

// `t` has the dtype and shape the program gives it, lies on `device` and inside its buffer.
void check_tensor(const devplug_tensor_desc_t* t, const std::string& what, devplug_device_handle_t* device,
                  devplug_dtype_t dtype, const devplug_tensor_desc_t& first, uint32_t reduced = 0) {
  auto bad = [&](const std::string& why) {
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: " + what + " " + why);
  };
  if (t == nullptr) bad("is NULL");
  if (t->struct_size < DEVPLUG_SIZE_THROUGH(devplug_tensor_desc_t, strides)) bad("has a short struct_size");
  if (t->buffer == nullptr) bad("has no buffer");
  if (t->buffer->device != device) bad("is on another device than the stream");
  if (t->dtype != dtype)
    bad("has dtype " + std::to_string(t->dtype) + ", the program gives it " + std::to_string(dtype));
  if (t->rank != first.rank)
    bad("has rank " + std::to_string(t->rank) + ", inputs[0] " + std::to_string(first.rank));
  for (int32_t d = 0; d < t->rank; ++d) {
    const int64_t expected = (reduced >> d) & 1u ? 1 : first.shape[d];
    if (t->shape[d] != expected)
      bad("has size " + std::to_string(t->shape[d]) + " in dim " + std::to_string(d) + ", " +
          std::to_string(expected) + " expected");
    if (t->shape[d] < 0) bad("has a negative dim");
  }
  if (!sdk::fits_buffer(*t, t->buffer->size))
    bad("reaches outside its buffer of " + std::to_string(t->buffer->size) + " bytes");
}

// A launch of a program with a reduction tail (tail_kernel_source): one work-item per row.
void launch_tail(devplug_stream_handle_t* stream, devplug_fused_program_handle_t* program,
                 const devplug_tensor_desc_t& first, const std::vector<clc::View>& views) {
  const sdk::FusedProgram& p = program->program;
  const int32_t rank = first.rank;
  int64_t kept = 1, red = 1;
  for (int32_t d = 0; d < rank; ++d) ((p.tail_mask() >> d) & 1u ? red : kept) *= first.shape[d];
  if (kept == 0) return;
  if (red == 0)
    for (uint32_t k = p.tail_start(); k < p.nodes.size(); ++k)
      if (p.nodes[k].op == DEVPLUG_OP_amax || p.nodes[k].op == DEVPLUG_OP_amin)
        fail(DEVPLUG_CODE_INVALID_ARGUMENT, std::string("fused_program_launch: ") +
                                                devplug_op_info(p.nodes[k].op)->name +
                                                " of no elements (a reduced dim of size 0)");
  const bool fp64 = program->device->info.fp64;
  const char* family =
      family_for(program, "t" + std::to_string(rank), [&] { return tail_kernel_source(p, rank, fp64); });
  clc::Launch launch(stream, family, "", "fused", "fused program");
  for (const clc::View& v : views) {
    launch.mem(v.mem).arg<int64_t>(v.offset);
    for (int32_t d = 0; d < rank; ++d) launch.arg<int64_t>(v.strides[d]);
  }
  for (int32_t d = 0; d < rank; ++d) launch.arg<int64_t>(first.shape[d]);
  launch.arg<int64_t>(kept).arg<int64_t>(red).run1(static_cast<size_t>(kept),
                                                   clc::elementwise_group(stream, kept));
}

}  // namespace

devplug_fused_program_handle_t* fused_program_create(devplug_device_handle_t* device,
                                                     const devplug_fused_program_desc_t& desc) {
  auto program = std::make_unique<devplug_fused_program_handle_t>();
  program->device = device;
  program->program = sdk::FusedProgram::copy_of(desc);
  const sdk::FusedProgram& p = program->program;
  // A reduction tail of floating values, whose arguments fit a kernel's parameters whatever
  // the rank: otherwise the host runs the program op by op.
  for (uint32_t k = p.tail_start(); k < p.nodes.size(); ++k) {
    const devplug_dtype_t in = p.dtype_of(p.nodes[k].args[0]);
    if ((DEVPLUG_DTYPE_BIT(in) & DEVPLUG_DTYPES_FLOAT) == 0 || p.nodes[k].dtype != in)
      fail(DEVPLUG_CODE_UNIMPLEMENTED,
           std::string("the OpenCL plugin fuses a reduction tail of floating values; ") +
               devplug_op_info(p.nodes[k].op)->name + " of " + devplug_dtype_name(in) + " runs op by op");
  }
  if (p.tail_start() < p.nodes.size() &&
      tail_argument_bytes(p, DEVPLUG_MAX_RANK) > device->info.max_parameter_size)
    fail(DEVPLUG_CODE_UNIMPLEMENTED,
         "a fused program with a reduction tail over " + std::to_string(p.inputs.size() + p.outputs.size()) +
             " tensors passes more argument bytes than the device takes; it runs op by op");
  auto claimed = [&](devplug_dtype_t d) {
    if (d == DEVPLUG_DTYPE_FLOAT64 && !device->info.fp64)
      fail(DEVPLUG_CODE_INVALID_ARGUMENT,
           "fused program: float64, which device " + device->info.name + " does not claim (no cl_khr_fp64)");
  };
  for (devplug_dtype_t d : p.inputs) claimed(d);
  for (const devplug_fused_node_t& n : p.nodes) claimed(n.dtype);
  program->nodes = node_source(p);
  return program.release();
}

void fused_program_launch(devplug_stream_handle_t* stream, devplug_fused_program_handle_t* program,
                          const devplug_tensor_desc_t* const* inputs, size_t n_inputs,
                          const devplug_tensor_desc_t* const* outputs, size_t n_outputs) {
  live(program);
  const sdk::FusedProgram& p = program->program;
  if (stream->device != program->device)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: the program was made for another device");
  if (n_inputs != p.inputs.size() || n_outputs != p.outputs.size())
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: " + std::to_string(n_inputs) + " inputs and " +
                                            std::to_string(n_outputs) + " outputs, the program takes " +
                                            std::to_string(p.inputs.size()) + " and " +
                                            std::to_string(p.outputs.size()));
  if (inputs[0] == nullptr) fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: inputs[0] is NULL");
  const devplug_tensor_desc_t& first = *inputs[0];
  std::vector<const devplug_tensor_desc_t*> tensors;
  for (size_t i = 0; i < n_inputs; ++i) {
    check_tensor(inputs[i], "inputs[" + std::to_string(i) + "]", stream->device, p.inputs[i], first);
    tensors.push_back(inputs[i]);
  }
  const bool has_tail = p.tail_start() < p.nodes.size();
  if (has_tail && !p.tail_fits(first.rank))
    fail(DEVPLUG_CODE_INVALID_ARGUMENT,
         "fused_program_launch: the reduction tail's dims are not trailing dims of "
         "the inputs' rank " +
             std::to_string(first.rank));
  for (size_t j = 0; j < n_outputs; ++j) {
    const bool tail_output = p.outputs[j] >= p.inputs.size() + p.tail_start();
    check_tensor(outputs[j], "outputs[" + std::to_string(j) + "]", stream->device, p.dtype_of(p.outputs[j]),
                 first, tail_output ? p.tail_mask() : 0u);
    tensors.push_back(outputs[j]);
  }

  std::vector<clc::View> views;
  for (const devplug_tensor_desc_t* t : tensors) views.push_back(clc::view_of(*t));
  if (has_tail) {
    launch_tail(stream, program, first, views);
    return;
  }
  const Shape shape = shape_of(first, views, n_inputs);
  if (shape.numel == 0) return;
  if (shape.argument_bytes() > stream->device->info.max_parameter_size) {
    run_op_by_op(stream, p, first, views);
    return;
  }
  const char* family =
      family_for(program, shape.variant(), [&] { return kernel_source(program->program, shape); });
  clc::Launch launch(stream, family, "", "fused", "fused program");
  for (size_t t = 0; t < views.size(); ++t) {
    launch.mem(views[t].mem).arg<int64_t>(views[t].offset);
    if (!shape.dense && !shape.uniform[t])
      for (int64_t stride : shape.strides[t]) launch.arg<int64_t>(stride);
  }
  if (!shape.dense)
    for (int64_t size : shape.sizes) launch.arg<int64_t>(size);
  launch.arg<int64_t>(shape.numel)
      .run1(static_cast<size_t>(shape.numel), clc::elementwise_group(stream, shape.numel));
}

void fused_program_destroy(devplug_fused_program_handle_t* program) {
  live(program)->tag = kDeadTag;
  delete program;
}

}  // namespace devplug::opencl
