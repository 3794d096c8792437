// SPDX-License-Identifier: Apache-2.0
// The last prim call a stream validated, so that the same call again skips validation, the
// device checks and the kernel lookup: a training loop or a benchmark issues the same op on
// the same tensors with the same attributes over and over, and for a small tensor those
// checks cost more than the kernel.
//
// Sound because everything validation reads is fixed once a tensor is made: its layout, its
// storage and its device (a view is a new tensor). The key is the op, each tensor's id (never
// reused, unlike its address) and the bytes of the attributes validation reads; a hit costs
// a few compares, no allocation, no lock and no string.
//
// Thread-safety: none of its own. It lives in a devplug_stream_t, which one thread uses at a
// time (devplug.h).
#pragma once

#include <cstring>

#include "devplug/ops.h"
#include "op_call.hpp"
#include "plugin_record.hpp"
#include "tensor.hpp"

namespace devplug::detail {

class ValidatedCall {
 public:
  // Prims have at most 3 inputs and 1 output; calls with more tensors are never remembered.
  static constexpr size_t kMaxTensors = 4;
  // Larger than every prim's attribute struct (constant_pad's is the largest).
  static constexpr size_t kMaxAttrBytes = 256;

  // The kernel of the remembered call when this call is the same one, else nullptr. The
  // handles have been checked to be live tensors.
  const KernelSlot* match(const OpCall& call) const noexcept {
    const size_t n_inputs = call.n_inputs, n_outputs = call.n_outputs;
    const devplug_tensor_t* const* inputs = call.inputs;
    const devplug_tensor_t* const* outputs = call.outputs;
    const void* attrs = call.attrs;
    if (call.op != op_ || n_inputs != n_inputs_ || n_outputs != n_outputs_) return nullptr;
    for (size_t i = 0; i < n_inputs; ++i)
      if (inputs[i]->id != ids_[i]) return nullptr;
    for (size_t i = 0; i < n_outputs; ++i)
      if (outputs[i]->id != ids_[n_inputs + i]) return nullptr;
    // An op without attributes ignores `attrs`, which may then be anything, even invalid.
    // Otherwise struct_size comes first: a struct too small to hold the bytes compared is
    // left to validation, which refuses it, and is never read past its end.
    if (attrs_size_ != 0) {
      if (attrs == nullptr || *static_cast<const size_t*>(attrs) < attrs_size_) return nullptr;
      if (std::memcmp(attrs, attrs_, attrs_size_) != 0) return nullptr;
    }
    return slot_;
  }

  // The dispatch dtype of the remembered call.
  devplug_dtype_t dtype() const noexcept { return dtype_; }

  // Remembers a prim call that passed validation (its dtype set) and runs on `slot` (a slot
  // of the stream's device, which lives as long as the stream). A call that cannot be keyed
  // is forgotten.
  void remember(const devplug_op_info_t& info, const OpCall& call, const KernelSlot& slot) noexcept {
    const size_t n_inputs = call.n_inputs, n_outputs = call.n_outputs;
    const devplug_tensor_t* const* inputs = call.inputs;
    const devplug_tensor_t* const* outputs = call.outputs;
    const void* attrs = call.attrs;
    op_ = DEVPLUG_OP_INVALID;
    if (n_inputs + n_outputs > kMaxTensors || info.attrs_size > kMaxAttrBytes) return;
    for (size_t i = 0; i < n_inputs; ++i) ids_[i] = inputs[i]->id;
    for (size_t i = 0; i < n_outputs; ++i) ids_[n_inputs + i] = outputs[i]->id;
    // Validated: `attrs` is non-NULL with struct_size >= attrs_size when there are attributes.
    attrs_size_ = attrs == nullptr ? 0 : info.attrs_size;
    if (attrs_size_ != 0) std::memcpy(attrs_, attrs, attrs_size_);
    n_inputs_ = n_inputs;
    n_outputs_ = n_outputs;
    dtype_ = call.dtype;
    slot_ = &slot;
    op_ = call.op;
  }

 private:
  devplug_op_t op_ = DEVPLUG_OP_INVALID;
  size_t n_inputs_ = 0;
  size_t n_outputs_ = 0;
  uint64_t ids_[kMaxTensors] = {};
  size_t attrs_size_ = 0;
  unsigned char attrs_[kMaxAttrBytes];
  devplug_dtype_t dtype_ = 0;
  const KernelSlot* slot_ = nullptr;
};

}  // namespace devplug::detail
