// SPDX-License-Identifier: Apache-2.0
// The device side of the emulated GPU: what CUDA C++ gives a kernel (the qualifiers,
// threadIdx/blockIdx/blockDim/gridDim, __shared__, __syncthreads, atomics and the device math
// the host lacks), for kernel sources compiled unchanged by the host C++ compiler.
//
// A grid runs block by block on a few OS threads (grid.cpp); the threads of a block run as
// fibers on the one OS thread that runs the block, in threadIdx order, each until it finishes
// or reaches __syncthreads. So the index variables are per OS thread and are rewritten at
// every fiber switch, and __shared__ storage is per OS thread, which is per running block:
// the fibers of a block share it and two blocks running at once do not. Atomics are real host
// atomics, since several blocks run at once; they are relaxed, as CUDA's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "emu_math.hpp"
#include "emu_runtime.hpp"

// CUDA's uint3; blockDim and gridDim are dim3 in CUDA, read-only here, so uint3 serves.
struct uint3 {
  unsigned x, y, z;
};

// The index variables of the fiber running on this OS thread (set by the block scheduler).
// Not initial-exec TLS: that would put the module's whole TLS, __shared__ arrays included, in
// the static TLS block, which a dlopen'ed library cannot count on (the build asks for TLS
// descriptors instead, which make these reads cheap).
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread uint3 blockDim;
extern __thread uint3 gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
// Per OS thread is per running block (see above). Storage lives as long as the library, so
// a block may see what an earlier block left, as on a GPU.
#define __shared__ static thread_local

// Waits until every thread of the block that has not exited reaches a barrier; writes made
// before it by any thread of the block are then visible to all of them.
void __syncthreads();

// Orders this thread's memory accesses as seen by other threads (device or block scope).
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- atomics: CUDA's overloads, relaxed ordering, returning the old value ---------------------

namespace devplug::gpu::emu {

// The old value at `addr`; `next(old)` is stored in one compare-and-swap on Bits.
template <typename T, typename Bits, typename F>
inline T atomic_update(T* addr, F next) {
  static_assert(sizeof(T) == sizeof(Bits), "one word");
  Bits* word = reinterpret_cast<Bits*>(addr);
  Bits old_bits = __atomic_load_n(word, __ATOMIC_RELAXED);
  T old;
  for (;;) {
    std::memcpy(&old, &old_bits, sizeof old);
    const T value = next(old);
    Bits new_bits;
    std::memcpy(&new_bits, &value, sizeof value);
    if (__atomic_compare_exchange_n(word, &old_bits, new_bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return old;
  }
}

// float atomicAdd flushes subnormal inputs and results to sign-preserving zero on NVIDIA
// GPUs (PTX ISA, atom.add.f32); double atomicAdd keeps them.
inline float flush_subnormal(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}

}  // namespace devplug::gpu::emu

inline int atomicAdd(int* a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }
inline unsigned atomicAdd(unsigned* a, unsigned v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return __atomic_fetch_add(a, v, __ATOMIC_RELAXED);
}
inline float atomicAdd(float* a, float v) {
  using devplug::gpu::emu::flush_subnormal;
  return devplug::gpu::emu::atomic_update<float, uint32_t>(
      a, [v](float old) { return flush_subnormal(flush_subnormal(old) + flush_subnormal(v)); });
}
inline double atomicAdd(double* a, double v) {
  return devplug::gpu::emu::atomic_update<double, uint64_t>(a, [v](double old) { return old + v; });
}
inline int atomicSub(int* a, int v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }
inline unsigned atomicSub(unsigned* a, unsigned v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }
inline int atomicExch(int* a, int v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }
inline unsigned atomicExch(unsigned* a, unsigned v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicExch(unsigned long long* a, unsigned long long v) {
  return __atomic_exchange_n(a, v, __ATOMIC_RELAXED);
}
inline float atomicExch(float* a, float v) {
  return devplug::gpu::emu::atomic_update<float, uint32_t>(a, [v](float) { return v; });
}
template <typename T>
inline T emu_atomic_min(T* a, T v) {
  return devplug::gpu::emu::atomic_update<T, T>(a, [v](T old) { return v < old ? v : old; });
}
template <typename T>
inline T emu_atomic_max(T* a, T v) {
  return devplug::gpu::emu::atomic_update<T, T>(a, [v](T old) { return v > old ? v : old; });
}
inline int atomicMin(int* a, int v) { return emu_atomic_min(a, v); }
inline unsigned atomicMin(unsigned* a, unsigned v) { return emu_atomic_min(a, v); }
inline long long atomicMin(long long* a, long long v) { return emu_atomic_min(a, v); }
inline unsigned long long atomicMin(unsigned long long* a, unsigned long long v) {
  return emu_atomic_min(a, v);
}
inline int atomicMax(int* a, int v) { return emu_atomic_max(a, v); }
inline unsigned atomicMax(unsigned* a, unsigned v) { return emu_atomic_max(a, v); }
inline long long atomicMax(long long* a, long long v) { return emu_atomic_max(a, v); }
inline unsigned long long atomicMax(unsigned long long* a, unsigned long long v) {
  return emu_atomic_max(a, v);
}
inline int atomicAnd(int* a, int v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }
inline unsigned atomicAnd(unsigned* a, unsigned v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicAnd(unsigned long long* a, unsigned long long v) {
  return __atomic_fetch_and(a, v, __ATOMIC_RELAXED);
}
inline int atomicOr(int* a, int v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }
inline unsigned atomicOr(unsigned* a, unsigned v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicOr(unsigned long long* a, unsigned long long v) {
  return __atomic_fetch_or(a, v, __ATOMIC_RELAXED);
}
inline int atomicXor(int* a, int v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }
inline unsigned atomicXor(unsigned* a, unsigned v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicXor(unsigned long long* a, unsigned long long v) {
  return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED);
}
// ((old >= v) ? 0 : old + 1) and (((old == 0) || (old > v)) ? v : old - 1), as CUDA.
inline unsigned atomicInc(unsigned* a, unsigned v) {
  return devplug::gpu::emu::atomic_update<unsigned, unsigned>(
      a, [v](unsigned old) { return old >= v ? 0u : old + 1u; });
}
inline unsigned atomicDec(unsigned* a, unsigned v) {
  return devplug::gpu::emu::atomic_update<unsigned, unsigned>(
      a, [v](unsigned old) { return (old == 0u || old > v) ? v : old - 1u; });
}
template <typename T>
inline T emu_atomic_cas(T* a, T compare, T value) {
  __atomic_compare_exchange_n(a, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;  // the old value either way
}
inline int atomicCAS(int* a, int compare, int value) { return emu_atomic_cas(a, compare, value); }
inline unsigned atomicCAS(unsigned* a, unsigned compare, unsigned value) {
  return emu_atomic_cas(a, compare, value);
}
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long compare,
                                    unsigned long long value) {
  return emu_atomic_cas(a, compare, value);
}
inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short value) {
  return emu_atomic_cas(a, compare, value);
}
