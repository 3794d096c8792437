// Builds kernel call frames from host tensors (see kernel_call.hpp).
#include "kernel_call.hpp"

#include <memory>

#include "plugin_record.hpp"

namespace devplug::detail {
namespace {

// Descriptors and the pointer array a call frame needs, on the stack when they fit.
class Descriptors {
 public:
  Descriptors(const devplug_tensor_t* const* tensors, size_t n) {
    devplug_tensor_desc_t* descs = stack_descs_;
    const devplug_tensor_desc_t** ptrs = stack_ptrs_;
    if (n > kStackTensors) {
      heap_descs_.reset(new devplug_tensor_desc_t[n]);
      heap_ptrs_.reset(new const devplug_tensor_desc_t*[n]);
      descs = heap_descs_.get();
      ptrs = heap_ptrs_.get();
    }
    for (size_t i = 0; i < n; ++i) {
      if (tensors[i] == nullptr) {  // an absent optional tensor of a composite
        ptrs[i] = nullptr;
        continue;
      }
      describe(*tensors[i], &descs[i]);
      ptrs[i] = &descs[i];
    }
    pointers_ = ptrs;
  }
  const devplug_tensor_desc_t* const* pointers() const { return pointers_; }

 private:
  devplug_tensor_desc_t stack_descs_[kStackTensors];
  const devplug_tensor_desc_t* stack_ptrs_[kStackTensors];
  std::unique_ptr<devplug_tensor_desc_t[]> heap_descs_;
  std::unique_ptr<const devplug_tensor_desc_t*[]> heap_ptrs_;
  const devplug_tensor_desc_t* const* pointers_ = nullptr;
};

}  // namespace

devplug_error_t* call_kernel(const devplug_stream_t& stream, devplug_kernel_fn fn, devplug_op_t op,
                             const devplug_tensor_t* const* inputs, size_t n_inputs,
                             const devplug_tensor_t* const* outputs, size_t n_outputs,
                             const void* attrs) {
  Descriptors in(inputs, n_inputs);
  Descriptors out(outputs, n_outputs);
  devplug_op_call_t call;
  call.struct_size = sizeof(call);
  call.op = op;
  call.inputs = in.pointers();
  call.n_inputs = n_inputs;
  call.outputs = out.pointers();
  call.n_outputs = n_outputs;
  call.attrs = attrs;
  return fn(stream.native, &call);
}

}  // namespace devplug::detail
