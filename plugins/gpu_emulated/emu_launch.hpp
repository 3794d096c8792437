// SPDX-License-Identifier: Apache-2.0
// Kernel launches on the emulated GPU: the arguments are copied when the launch is enqueued
// (as CUDA copies them into the launch's parameter space), and every GPU thread calls the
// kernel with its own copy of them. gpu_common/launch.cuh calls emu::launch where CUDA and
// HIP write kernel<<<grid, block, 0, stream>>>(args...).
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <typeinfo>
#include <utility>

#include "emu_runtime.hpp"

namespace devplug::gpu::emu {

// One launch's kernel with its arguments. run_thread runs the kernel body once, for the GPU
// thread whose indices the block scheduler has set; it is called from several OS threads at
// once (one per running block), so it only reads the object.
class KernelCall {
 public:
  virtual ~KernelCall() = default;
  virtual void run_thread() const = 0;
  // The kernel's type, demangled: "void (*)(devplug::gpu::Pointers<2>, long, ...)".
  virtual std::string signature() const = 0;
};

// `name` (a mangled type name) demangled, or unchanged where that fails.
std::string demangle(const char* name);

template <typename... Params>
class BoundKernel final : public KernelCall {
 public:
  explicit BoundKernel(void (*kernel)(Params...), Params... args)
      : kernel_(kernel), args_(std::move(args)...) {}
  void run_thread() const override { std::apply(kernel_, args_); }
  std::string signature() const override { return demangle(typeid(kernel_).name()); }

 private:
  void (*kernel_)(Params...);
  std::tuple<Params...> args_;
};

// Enqueues `call` on `stream` as a grid of `grid` blocks of `block` threads. A bad geometry or
// handle is not enqueued: its error is left for emuGetLastError, as a failed <<<...>>> leaves
// it for cudaGetLastError. `shared_bytes` (dynamic shared memory) must be 0: the kernels here
// declare their shared memory statically. With DEVPLUG_GPU_EMULATED_TRACE=FILE set, every
// accepted launch appends a line "signature<TAB>grid x,y,z<TAB>block x,y,z" to FILE (tests
// use it to prove which kernel path an op took).
// Takes ownership of `call`. It is a plain pointer so that a launch site instantiates none of
// the smart pointers' templates: with a std::make_shared per site, those were half of each
// kernel file's compile (k_data.cu, GCC 12 -O2: 51 s then, 28 s now).
void enqueue_launch(dim3 grid, dim3 block, size_t shared_bytes, emuStream_t stream, const KernelCall* call);

template <typename T>
struct NotDeduced {
  using type = T;
};

// kernel<<<grid, block, shared_bytes, stream>>>(args...): the parameter types come from the
// kernel alone; each argument converts to its parameter as in a call.
template <typename... Params>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, emuStream_t stream,
            typename NotDeduced<Params>::type... args) {
  enqueue_launch(grid, block, shared_bytes, stream, new BoundKernel<Params...>(kernel, std::move(args)...));
}

}  // namespace devplug::gpu::emu
