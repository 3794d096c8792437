// SPDX-License-Identifier: Apache-2.0
// Geometry building and the launch builder.
#include "launch.hpp"

#include <algorithm>

#include "devplug/ops.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/fault.hpp"
#include "variants.hpp"

namespace devplug::clc {

View view_of(const devplug_tensor_desc_t& t) {
  View v;
  v.mem = mem_of(t.buffer);
  const uint64_t size = devplug_dtype_size(t.dtype);
  if (size == 0 || t.byte_offset % size != 0)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "tensor byte_offset " + std::to_string(t.byte_offset) +
                                                 " is not a multiple of its element size");
  v.offset = static_cast<int64_t>(t.byte_offset / size);
  for (int32_t d = 0; d < t.rank; ++d) v.strides[d] = t.strides[d];
  return v;
}

Geometry make_geometry(int32_t rank, const int64_t* shape, const std::vector<const View*>& operands) {
  Geometry g{};
  const int count = static_cast<int>(operands.size());
  g.numel = 1;
  for (int32_t d = 0; d < rank; ++d) g.numel *= shape[d];
  for (int w = 0; w < count; ++w) g.offset[w] = operands[w]->offset;
  // Keep dims of size != 1, outermost first, merging a dim into the previous kept one when
  // every operand steps over the inner dim exactly.
  int r = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] == 1) continue;
    if (r > 0) {
      bool mergeable = true;
      for (int w = 0; w < count; ++w)
        if (g.strides[w][r - 1] != operands[w]->strides[d] * shape[d]) mergeable = false;
      if (mergeable) {
        g.shape[r - 1] *= shape[d];
        for (int w = 0; w < count; ++w) g.strides[w][r - 1] = operands[w]->strides[d];
        continue;
      }
    }
    g.shape[r] = shape[d];
    for (int w = 0; w < count; ++w) g.strides[w][r] = operands[w]->strides[d];
    ++r;
  }
  g.rank = r;
  bool dense = true;
  for (int w = 0; w < count && r > 0; ++w)
    if (r != 1 || g.strides[w][0] != 1) dense = false;
  g.dense = dense ? 1 : 0;
  if (r == 0) g.dense = 1;
  return g;
}

void require_dtype(devplug_stream_handle_t* stream, devplug_dtype_t dtype, const char* op) {
  const DeviceCaps& caps = caps_of(stream);
  if (dtype == DEVPLUG_DTYPE_FLOAT64 && !caps.fp64)
    sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED,
              std::string(op) + ": float64 needs double support in kernels, which " + caps.name + " lacks");
}

Launch::Launch(devplug_stream_handle_t* stream, const char* family, const std::string& defines,
               const char* kernel, const char* what)
    : stream_(stream) {
  launch_.family = family;
  launch_.defines = module_defines(caps_of(stream), defines);
  launch_.kernel = kernel;
  launch_.what = what;
}

Launch& Launch::local(size_t bytes) {
  launch_.args.push_back(KernelArg{{}, bytes});
  return *this;
}

void Launch::run1(size_t global, size_t group) {
  if (global == 0) return;
  group = std::min(group, caps_of(stream_).max_work_group);
  const size_t rounded = (global + group - 1) / group * group;
  run(1, &rounded, &group);
}

void Launch::run(uint32_t dims, const size_t* global, const size_t* local) {
  for (uint32_t d = 0; d < dims; ++d)
    if (global[d] == 0) return;
  launch_.dims = dims;
  for (uint32_t d = 0; d < 3; ++d) {
    launch_.global[d] = d < dims ? global[d] : 1;
    launch_.local[d] = d < dims ? local[d] : 1;
  }
  clc::launch(stream_, launch_);
}

namespace {

MemHandle allocate_scratch(devplug_stream_handle_t* stream, size_t bytes) {
  sdk::allocation_fault_point("scratch memory");
  return scratch_allocate(stream, std::max<size_t>(bytes, 16));
}

}  // namespace

ScratchBuffer::ScratchBuffer(devplug_stream_handle_t* stream, size_t bytes)
    : stream_(stream), mem_(allocate_scratch(stream, bytes)) {}

ScratchBuffer::~ScratchBuffer() {
  if (mem_ != nullptr) scratch_release(stream_, mem_);
}

}  // namespace devplug::clc
