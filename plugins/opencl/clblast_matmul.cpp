// SPDX-License-Identifier: Apache-2.0
// matmul through CLBlast (see clblast_matmul.hpp).
#include "clblast_matmul.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "launch.hpp"
#include "objects.hpp"
#include "opencl_status.hpp"

#ifdef DEVPLUG_OPENCL_HAVE_CLBLAST_H
#include <clblast_c.h>
#endif

namespace devplug::opencl {

#ifndef DEVPLUG_OPENCL_HAVE_CLBLAST_H
bool clblast_matmul(devplug_stream_handle_t*, const devplug_tensor_desc_t&, const devplug_tensor_desc_t&,
                    const devplug_tensor_desc_t&) {
  return false;  // built without clblast_c.h (libclblast-dev)
}
#else
namespace {

// The CLBlast entry points matmul uses, or !loaded; and DEVPLUG_OPENCL_MATMUL's choice.
struct Clblast {
  bool loaded = false;
  bool always = false;  // DEVPLUG_OPENCL_MATMUL=clblast: no size threshold, and CLBlast required
  std::string failure;  // why it is not loaded
  decltype(&::CLBlastSgemm) sgemm = nullptr;
  decltype(&::CLBlastDgemm) dgemm = nullptr;
  decltype(&::CLBlastSgemmStridedBatched) sgemm_batched = nullptr;
  decltype(&::CLBlastDgemmStridedBatched) dgemm_batched = nullptr;
};

Clblast open_clblast() {
  Clblast lib;
  const char* env = std::getenv("DEVPLUG_OPENCL_MATMUL");
  const std::string mode = env ? env : "auto";
  if (mode == "kernel") return lib;
  lib.always = mode == "clblast";
  const char* path = std::getenv("DEVPLUG_OPENCL_CLBLAST");
  const std::string name = path && *path ? path : "libclblast.so.1";
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    lib.failure = name + " cannot be opened: " + (why ? why : "unknown dlopen error");
    return lib;
  }
  lib.sgemm = reinterpret_cast<decltype(lib.sgemm)>(dlsym(handle, "CLBlastSgemm"));
  lib.dgemm = reinterpret_cast<decltype(lib.dgemm)>(dlsym(handle, "CLBlastDgemm"));
  lib.sgemm_batched =
      reinterpret_cast<decltype(lib.sgemm_batched)>(dlsym(handle, "CLBlastSgemmStridedBatched"));
  lib.dgemm_batched =
      reinterpret_cast<decltype(lib.dgemm_batched)>(dlsym(handle, "CLBlastDgemmStridedBatched"));
  lib.loaded = lib.sgemm && lib.dgemm && lib.sgemm_batched && lib.dgemm_batched;
  if (!lib.loaded) lib.failure = name + " lacks CLBlast's gemm entry points";
  return lib;
}

const Clblast& clblast() {
  static const Clblast lib = open_clblast();
  return lib;
}

// One operand's matrix as CLBlast reads it (row-major terms): its buffer, offset in elements,
// leading dimension, whether it is stored transposed, and its batch stride.
struct Matrix {
  cl_mem mem = nullptr;
  size_t offset = 0;
  size_t ld = 0;
  bool transposed = false;
  size_t batch_stride = 0;
};

// The rows x cols matrix at the last two dims of `t`, or false when it has no unit stride
// (a stride of a dim of size 1 does not matter) or a leading dimension too small to hold a
// row (zero or negative strides: broadcasts and flips stay with the plugin's kernel).
bool as_matrix(const devplug_tensor_desc_t& t, int64_t rows, int64_t cols, Matrix* m) {
  const int32_t r = t.rank;
  const int64_t rs = t.strides[r - 2], cs = t.strides[r - 1];
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= std::max<int64_t>(cols, 1))) {
    m->ld = static_cast<size_t>(rows == 1 ? std::max<int64_t>(cols, 1) : rs);
    m->transposed = false;
  } else if ((rows == 1 || rs == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1))) {
    m->ld = static_cast<size_t>(cols == 1 ? std::max<int64_t>(rows, 1) : cs);
    m->transposed = true;
  } else {
    return false;
  }
  const clc::View v = clc::view_of(t);
  m->mem = static_cast<cl_mem>(v.mem);
  m->offset = static_cast<size_t>(v.offset);
  return true;
}

// The batch dims of every operand collapsed to one count and one stride each, or false when
// they do not collapse (a stride that does not chain, or a negative one).
bool collapse_batch(const devplug_tensor_desc_t* const ops[3], int64_t* count, int64_t strides[3]) {
  const int32_t batch_rank = ops[0]->rank - 2;
  *count = 1;
  int last = -1;
  for (int32_t d = 0; d < batch_rank; ++d) {
    const int64_t n = ops[0]->shape[d];
    if (n == 1) continue;
    for (int i = 0; i < 3; ++i) {
      if (ops[i]->strides[d] < 0) return false;
      if (last >= 0 && ops[i]->strides[last] != ops[i]->strides[d] * n) return false;
    }
    *count *= n;
    last = d;
  }
  for (int i = 0; i < 3; ++i) strides[i] = last >= 0 ? ops[i]->strides[last] : 0;
  return true;
}

}  // namespace

bool clblast_matmul(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& a,
                    const devplug_tensor_desc_t& b, const devplug_tensor_desc_t& out) {
  const Clblast& lib = clblast();
  if (lib.always && !lib.loaded)
    sdk::fail(DEVPLUG_CODE_UNAVAILABLE, "matmul: DEVPLUG_OPENCL_MATMUL=clblast, but " + lib.failure);
  devplug_device_handle_t& device = *stream->device;
  if (!lib.loaded || device.clblast_failed.load(std::memory_order_relaxed)) return false;
  if (out.dtype != DEVPLUG_DTYPE_FLOAT32 && out.dtype != DEVPLUG_DTYPE_FLOAT64) return false;
  const int32_t r = out.rank;
  int64_t M = a.shape[r - 2], K = a.shape[r - 1], N = b.shape[r - 1];
  const devplug_tensor_desc_t* ops[3] = {&out, &a, &b};
  int64_t batch = 1, batch_strides[3] = {0, 0, 0};
  if (!collapse_batch(ops, &batch, batch_strides)) return false;
  if (!lib.always && static_cast<double>(M) * N * K * batch < kClblastMinMacs) return false;
  Matrix mc, ma, mb;
  if (!as_matrix(out, M, N, &mc) || !as_matrix(a, M, K, &ma) || !as_matrix(b, K, N, &mb)) return false;
  if (mc.transposed) {
    // A column-major result: compute its transpose, out^T = b^T a^T, which is row-major.
    std::swap(ma, mb);
    std::swap(M, N);
    std::swap(batch_strides[1], batch_strides[2]);
    ma.transposed = !ma.transposed;
    mb.transposed = !mb.transposed;
    mc.transposed = false;
  }
  ma.batch_stride = static_cast<size_t>(batch_strides[1]);
  mb.batch_stride = static_cast<size_t>(batch_strides[2]);
  mc.batch_stride = static_cast<size_t>(batch_strides[0]);
  const auto ta = ma.transposed ? CLBlastTransposeYes : CLBlastTransposeNo;
  const auto tb = mb.transposed ? CLBlastTransposeYes : CLBlastTransposeNo;
  const size_t m = static_cast<size_t>(M), n = static_cast<size_t>(N), k = static_cast<size_t>(K);
  cl_command_queue queue = stream->queue;
  CLBlastStatusCode status;
  const bool f32 = out.dtype == DEVPLUG_DTYPE_FLOAT32;
  if (batch == 1)
    status = f32 ? lib.sgemm(CLBlastLayoutRowMajor, ta, tb, m, n, k, 1.0f, ma.mem, ma.offset, ma.ld, mb.mem,
                             mb.offset, mb.ld, 0.0f, mc.mem, mc.offset, mc.ld, &queue, nullptr)
                 : lib.dgemm(CLBlastLayoutRowMajor, ta, tb, m, n, k, 1.0, ma.mem, ma.offset, ma.ld, mb.mem,
                             mb.offset, mb.ld, 0.0, mc.mem, mc.offset, mc.ld, &queue, nullptr);
  else
    status = f32 ? lib.sgemm_batched(CLBlastLayoutRowMajor, ta, tb, m, n, k, 1.0f, ma.mem, ma.offset, ma.ld,
                                     ma.batch_stride, mb.mem, mb.offset, mb.ld, mb.batch_stride, 0.0f, mc.mem,
                                     mc.offset, mc.ld, mc.batch_stride, static_cast<size_t>(batch), &queue,
                                     nullptr)
                 : lib.dgemm_batched(CLBlastLayoutRowMajor, ta, tb, m, n, k, 1.0, ma.mem, ma.offset, ma.ld,
                                     ma.batch_stride, mb.mem, mb.offset, mb.ld, mb.batch_stride, 0.0, mc.mem,
                                     mc.offset, mc.ld, mc.batch_stride, static_cast<size_t>(batch), &queue,
                                     nullptr);
  if (status == CLBlastSuccess) return true;
  // OpenCL's own codes (0 to -69) are failures of the device: report them. CLBlast's codes
  // (-1024 and below: a kernel it cannot build here, a tuning it lacks) mean CLBlast cannot
  // serve this device; the plugin's kernel can.
  if (status > -1000)
    fail_cl("CLBlast gemm", static_cast<cl_int>(status), "running matmul through CLBlast", __FILE__,
            __LINE__);
  device.clblast_failed.store(true, std::memory_order_relaxed);
  return false;
}
#endif

}  // namespace devplug::opencl
