// SPDX-License-Identifier: Apache-2.0
#include "fused_programs.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "devplug/ops.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/fused_program.hpp"
#include "kernels/elementwise.hpp"

namespace {

constexpr uint32_t kProgramTag = 0x46555331;  // "FUS1"
constexpr uint32_t kDeadTag = 0xdeadbeef;
// A node's result larger than this is refused before allocating (RESOURCE_EXHAUSTED).
constexpr __int128 kMaxTemporaryBytes = __int128{1} << 40;

using devplug::sdk::fail;

}  // namespace

struct devplug_fused_program_handle_t {
  uint32_t tag;
  devplug_device_handle_t* device;
  devplug::sdk::FusedProgram program;      // the caller's desc, copied
  std::vector<devplug_kernel_fn> kernels;  // each node's kernel
  std::vector<devplug_kernel_fn> copies;   // each output's copy (convert_element_type to its dtype)
};

namespace devplug::reference {
namespace {

const char* op_name(devplug_op_t op) {
  const devplug_op_info_t* info = devplug_op_info(op);
  return info != nullptr ? info->name : "?";
}

devplug_kernel_fn find_kernel(const sdk::KernelTable& kernels, devplug_op_t op, devplug_dtype_t dtype) {
  for (size_t k = 0; k < kernels.size(); ++k) {
    const devplug_kernel_t* row = kernels.data()[k];
    if (row->op == op && (row->dtypes & DEVPLUG_DTYPE_BIT(dtype)) != 0) return row->fn;
  }
  return nullptr;
}

devplug_fused_program_handle_t* check_program(devplug_fused_program_handle_t* program) {
  if (program->tag != kProgramTag)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "program is not a live reference-backend fused program");
  return program;
}

// `t` is a tensor of `dtype` and of `rank` and `shape`, on `device`, inside its buffer.
void check_tensor(const devplug_tensor_desc_t* t, const std::string& what, devplug_device_handle_t* device,
                  devplug_dtype_t dtype, int32_t rank, const int64_t* shape) {
  auto bad = [&](const std::string& why) {
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: " + what + " " + why);
  };
  if (t == nullptr) bad("is NULL");
  if (t->struct_size < DEVPLUG_SIZE_THROUGH(devplug_tensor_desc_t, strides)) bad("has a short struct_size");
  if (t->buffer == nullptr || t->buffer->data == nullptr) bad("has no live buffer");
  if (t->buffer->device != device) bad("is on another device than the stream");
  if (t->dtype != dtype)
    bad("has dtype " + std::to_string(t->dtype) + ", the program gives it " + std::to_string(dtype));
  if (t->rank != rank)
    bad("has rank " + std::to_string(t->rank) + ", the program gives it " + std::to_string(rank));
  for (int32_t d = 0; d < rank; ++d)
    if (t->shape[d] != shape[d])
      bad("has size " + std::to_string(t->shape[d]) + " in dim " + std::to_string(d) +
          ", the program gives it " + std::to_string(shape[d]));
  check_tensor_in_buffer(*t, ("fused_program_launch: " + what).c_str(), DEVPLUG_CODE_INVALID_ARGUMENT);
}

// A node's result: host memory of the reference device, contiguous.
struct Temporary {
  std::unique_ptr<unsigned char, decltype(&std::free)> data{nullptr, &std::free};
  devplug_buffer_handle_t buffer{};
  devplug_tensor_desc_t desc{};
};

void make_temporary(Temporary& t, devplug_device_handle_t* device, devplug_dtype_t dtype, int32_t rank,
                    const int64_t* shape) {
  // Shapes are checked (not negative) but may be large where every input is broadcast.
  __int128 n = 1;
  for (int32_t d = 0; d < rank && n <= kMaxTemporaryBytes; ++d) n *= shape[d];
  n *= devplug_dtype_size(dtype);
  if (n > kMaxTemporaryBytes)
    fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED,
         "fused_program_launch: a node's result would take more than 2^40 bytes");
  const uint64_t bytes = std::max<uint64_t>(1, static_cast<uint64_t>(n));
  const size_t rounded = static_cast<size_t>((bytes + 63) / 64 * 64);
  t.data.reset(static_cast<unsigned char*>(std::aligned_alloc(64, rounded)));
  if (!t.data)
    fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, "fused_program_launch: out of host memory for a node's result");
  t.buffer = devplug_buffer_handle_t{bytes, t.data.get(), device};
  t.desc = devplug_tensor_desc_t{};
  t.desc.struct_size = sizeof t.desc;
  t.desc.buffer = &t.buffer;
  t.desc.dtype = dtype;
  t.desc.rank = rank;
  int64_t stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    t.desc.shape[d] = shape[d];
    t.desc.strides[d] = stride;
    stride *= std::max<int64_t>(1, shape[d]);
  }
}

void run_kernel(devplug_kernel_fn fn, devplug_stream_handle_t* stream, devplug_op_t op,
                const devplug_tensor_desc_t* const* inputs, size_t n_inputs,
                const devplug_tensor_desc_t* output, const void* attrs, const std::string& what) {
  const devplug_op_call_t call{sizeof call, op, inputs, n_inputs, &output, 1, attrs};
  if (devplug_error_t* e = fn(stream, &call)) {
    const devplug_code_t code = e->code;
    const std::string message = e->message != nullptr ? e->message : "(no message)";
    sdk::error_destroy(e);
    fail(code, "fused_program_launch: " + what + ": " + message);
  }
}

}  // namespace

devplug_fused_program_handle_t* fused_program_create(devplug_device_handle_t* device,
                                                     const devplug_fused_program_desc_t& desc,
                                                     const sdk::KernelTable& kernels) {
  auto p = std::make_unique<devplug_fused_program_handle_t>();
  p->tag = kProgramTag;
  p->device = device;
  p->program = sdk::FusedProgram::copy_of(desc);
  const sdk::FusedProgram& program = p->program;
  for (uint32_t k = 0; k < program.nodes.size(); ++k) {
    const devplug_fused_node_t& n = program.nodes[k];
    const devplug_op_info_t* info = devplug_op_info(n.op);  // known: the shim checked the program
    const devplug_dtype_t dispatch = program.dtype_of(n.args[info->result == DEVPLUG_RESULT_select ? 1 : 0]);
    p->kernels.push_back(find_kernel(kernels, n.op, dispatch));
    if (p->kernels.back() == nullptr)
      fail(DEVPLUG_CODE_UNIMPLEMENTED, std::string("fused_program_create: node ") + std::to_string(k) + " (" +
                                           info->name + "): the reference backend has no kernel for dtype " +
                                           std::to_string(dispatch));
  }
  for (devplug_fused_value_t v : program.outputs) {
    p->copies.push_back(find_kernel(kernels, DEVPLUG_OP_convert_element_type, program.dtype_of(v)));
    if (p->copies.back() == nullptr)
      fail(DEVPLUG_CODE_UNIMPLEMENTED,
           "fused_program_create: no copy kernel for dtype " + std::to_string(program.dtype_of(v)));
  }
  return p.release();
}

void fused_program_launch(devplug_stream_handle_t* stream, devplug_device_handle_t* device,
                          devplug_fused_program_handle_t* program, const devplug_tensor_desc_t* const* inputs,
                          size_t n_inputs, const devplug_tensor_desc_t* const* outputs, size_t n_outputs) {
  const devplug_fused_program_handle_t& p = *check_program(program);
  const sdk::FusedProgram& fp = p.program;
  if (p.device != device)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: the program was made for another device");
  if (n_inputs != fp.inputs.size() || n_outputs != fp.outputs.size())
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: " + std::to_string(n_inputs) + " inputs and " +
                                            std::to_string(n_outputs) + " outputs, the program takes " +
                                            std::to_string(fp.inputs.size()) + " and " +
                                            std::to_string(fp.outputs.size()));
  // The iteration space is the first input's shape; a tail's results have its dims 1.
  if (inputs[0] == nullptr) fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: input 0 is NULL");
  const int32_t rank = inputs[0]->rank;
  if (rank < 0 || rank > DEVPLUG_MAX_RANK)
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: input 0 has rank " + std::to_string(rank));
  const uint32_t tail_start = fp.tail_start();
  const uint32_t tail_mask = fp.tail_mask();
  int64_t shape[DEVPLUG_MAX_RANK] = {};
  int64_t reduced[DEVPLUG_MAX_RANK] = {};
  for (int32_t d = 0; d < rank; ++d) {
    shape[d] = inputs[0]->shape[d];
    reduced[d] = (tail_mask >> d) & 1u ? 1 : shape[d];
  }
  const uint32_t n_in = static_cast<uint32_t>(fp.inputs.size());
  if (!fp.tail_fits(rank))
    fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fused_program_launch: the reduction tail's dims_mask 0x" +
                                            std::to_string(tail_mask) +
                                            " does not name trailing dims of rank " + std::to_string(rank));
  auto is_tail = [&](devplug_fused_value_t v) { return v >= n_in + tail_start; };
  for (size_t i = 0; i < n_inputs; ++i)
    check_tensor(inputs[i], "input " + std::to_string(i), device, fp.inputs[i], rank, shape);
  for (size_t j = 0; j < n_outputs; ++j)
    check_tensor(outputs[j], "output " + std::to_string(j), device, fp.dtype_of(fp.outputs[j]), rank,
                 is_tail(fp.outputs[j]) ? reduced : shape);

  // Node by node, each result in a temporary of its dtype; the outputs are written last, so
  // an output that is also an input is read whole before it is written.
  std::vector<Temporary> results(fp.nodes.size());
  auto value = [&](devplug_fused_value_t v) { return v < n_in ? inputs[v] : &results[v - n_in].desc; };
  for (size_t k = 0; k < fp.nodes.size(); ++k) {
    const devplug_fused_node_t& n = fp.nodes[k];
    const devplug_op_info_t* info = devplug_op_info(n.op);
    make_temporary(results[k], device, n.dtype, rank, k >= tail_start ? reduced : shape);
    const devplug_tensor_desc_t* args[3] = {};
    for (int32_t a = 0; a < info->n_inputs; ++a) args[a] = value(n.args[a]);
    run_kernel(p.kernels[k], stream, n.op, args, static_cast<size_t>(info->n_inputs), &results[k].desc,
               n.attrs, "node " + std::to_string(k) + " (" + op_name(n.op) + ")");
  }
  for (size_t j = 0; j < n_outputs; ++j) {
    const devplug_tensor_desc_t* from = value(fp.outputs[j]);
    run_kernel(p.copies[j], stream, DEVPLUG_OP_convert_element_type, &from, 1, outputs[j], nullptr,
               "output " + std::to_string(j));
  }
}

void fused_program_destroy(devplug_fused_program_handle_t* program) {
  check_program(program)->tag = kDeadTag;
  delete program;
}

}  // namespace devplug::reference
