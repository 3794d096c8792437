// SPDX-License-Identifier: Apache-2.0
// matmul through cuBLASLt: one strided-batched call per devplug matmul. Operands whose
// strides cuBLASLt cannot describe (neither row- nor column-major with a valid leading
// dimension, or batch dims that do not collapse to one stride) are first copied densely into
// stream scratch; so is the output, copied back after. Broadcast batches (stride 0) are
// passed as they are.
#include "matmul_cublaslt.hpp"

#include <cstdlib>
#include <climits>
#include <cstring>
#include <mutex>
#include <string>

#include "cublaslt_plan.hpp"
#include "cuda_status.hpp"
#include "devplug/sdk/kernel.hpp"
#include "devplug/sdk/kernels.hpp"
#include "devplug/sdk/strided.hpp"
#include "gpu_ops.hpp"
#include "gpu_runtime.hpp"
#include "gpu_status.hpp"

namespace devplug::gpu {
struct MatmulContext {
  cublasLtHandle_t handle = nullptr;
};
}  // namespace devplug::gpu

namespace devplug::cuda {
namespace {

constexpr uint64_t kWorkspaceBytes = 32ull << 20;

uint64_t align_up(uint64_t x) { return (x + 255) / 256 * 256; }

cudaDataType_t data_type(devplug_dtype_t dtype) {
  switch (dtype) {
    case DEVPLUG_DTYPE_FLOAT16:
      return CUDA_R_16F;
    case DEVPLUG_DTYPE_BFLOAT16:
      return CUDA_R_16BF;
    case DEVPLUG_DTYPE_FLOAT32:
      return CUDA_R_32F;
    case DEVPLUG_DTYPE_FLOAT64:
      return CUDA_R_64F;
    default:
      sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "matmul: dtype not allowed");
  }
}

// A dense row-major tensor of `like`'s shape and dtype over raw scratch memory.
devplug_tensor_desc_t dense_over(const devplug_tensor_desc_t& like, devplug_buffer_handle_t* holder) {
  devplug_tensor_desc_t t = like;
  t.buffer = holder;
  t.byte_offset = 0;
  sdk::contiguous_strides(like.rank, like.shape, t.strides);
  return t;
}

struct LayoutGuard {
  const CublasLt& lt;
  cublasLtMatrixLayout_t layout = nullptr;
  ~LayoutGuard() {
    if (layout) lt.cublasLtMatrixLayoutDestroy(layout);
  }
};

void make_layout(const CublasLt& lt, LayoutGuard& g, cudaDataType_t type, const LtMatrix& m,
                 int32_t batches) {
  LT_CHECK(lt,
           lt.cublasLtMatrixLayoutCreate(&g.layout, type, static_cast<uint64_t>(m.rows),
                                         static_cast<uint64_t>(m.cols), m.ld),
           "describing a matmul operand");
  if (batches > 1) {
    LT_CHECK(lt,
             lt.cublasLtMatrixLayoutSetAttribute(g.layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batches,
                                                 sizeof batches),
             "setting the batch count");
    const int64_t stride = m.batch_stride;
    LT_CHECK(lt,
             lt.cublasLtMatrixLayoutSetAttribute(g.layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                 &stride, sizeof stride),
             "setting the batch stride");
  }
}

cublasLtHandle_t handle_for(const CublasLt& lt, devplug_device_handle_t* device) {
  std::lock_guard<std::mutex> lock(device->matmul_mutex);
  if (device->matmul == nullptr) {
    auto* context = new gpu::MatmulContext;
    const cublasStatus_t st = lt.cublasLtCreate(&context->handle);
    if (st != CUBLAS_STATUS_SUCCESS) {
      delete context;
      LT_CHECK(lt, st, "creating a cuBLASLt handle");
    }
    device->matmul = context;
  }
  return device->matmul->handle;
}

void run(devplug_stream_handle_t* stream, const devplug_op_call_t& call) {
  const devplug_tensor_desc_t& a0 = *call.inputs[0];
  const devplug_tensor_desc_t& b0 = *call.inputs[1];
  const devplug_tensor_desc_t& out0 = *call.outputs[0];
  const int32_t r = out0.rank;
  sdk::check_argument(r >= 2 && a0.rank == r && b0.rank == r, "matmul: operands need one rank >= 2");
  sdk::check_argument(a0.dtype == out0.dtype && b0.dtype == out0.dtype, "matmul: dtypes differ");
  const int64_t m = out0.shape[r - 2], n = out0.shape[r - 1], k = a0.shape[r - 1];
  sdk::check_argument(a0.shape[r - 2] == m && b0.shape[r - 2] == k && b0.shape[r - 1] == n,
                      "matmul: shapes do not chain");
  int64_t batches = 1;
  for (int32_t d = 0; d < r - 2; ++d) batches *= out0.shape[d];
  if (batches == 0 || m == 0 || n == 0) return;
  if (k == 0) return gpu::fill_zero(stream, out0);
  if (const char* mode = std::getenv("DEVPLUG_CUDA_MATMUL"); mode && std::strcmp(mode, "tiled") == 0)
    return gpu::run_matmul_tiled(stream, call);

  std::string why;
  const CublasLt* lt = cublaslt(&why);
  if (lt == nullptr) sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, "matmul: " + why);
  sdk::check_argument(batches <= INT32_MAX, "matmul: too many batches for cuBLASLt");

  auto plan_for = [&](const devplug_tensor_desc_t& a, const devplug_tensor_desc_t& b,
                      const devplug_tensor_desc_t& o) {
    LtPlan p = plan_lt(Operand2d{m, k, a.strides[r - 2], a.strides[r - 1]},
                       Operand2d{k, n, b.strides[r - 2], b.strides[r - 1]},
                       Operand2d{m, n, o.strides[r - 2], o.strides[r - 1]});
    const BatchView ba = collapse_batch(r - 2, a.shape, a.strides);
    const BatchView bb = collapse_batch(r - 2, b.shape, b.strides);
    const BatchView bo = collapse_batch(r - 2, o.shape, o.strides);
    p.need_dense_a = p.need_dense_a || !ba.ok;
    p.need_dense_b = p.need_dense_b || !bb.ok;
    p.need_dense_out = p.need_dense_out || !bo.ok || (batches > 1 && bo.stride == 0);
    p.ok = p.ok && ba.ok && bb.ok && bo.ok && !(batches > 1 && bo.stride == 0);
    if (p.ok) {
      (p.swap ? p.second : p.first).batch_stride = ba.stride;
      (p.swap ? p.first : p.second).batch_stride = bb.stride;
      p.d.batch_stride = bo.stride;
    }
    return p;
  };

  // Materialize what cuBLASLt cannot describe, then plan again on the dense stand-ins.
  LtPlan plan = plan_for(a0, b0, out0);
  const uint64_t elem = devplug_dtype_size(out0.dtype);
  const uint64_t bytes_a = plan.need_dense_a ? align_up(static_cast<uint64_t>(sdk::numel(a0)) * elem) : 0;
  const uint64_t bytes_b = plan.need_dense_b ? align_up(static_cast<uint64_t>(sdk::numel(b0)) * elem) : 0;
  const uint64_t bytes_o = plan.need_dense_out ? align_up(static_cast<uint64_t>(sdk::numel(out0)) * elem) : 0;
  char* scratch =
      static_cast<char*>(gpu::stream_scratch(stream, kWorkspaceBytes + bytes_a + bytes_b + bytes_o));
  devplug_buffer_handle_t hold_a{stream->device, scratch + kWorkspaceBytes, bytes_a};
  devplug_buffer_handle_t hold_b{stream->device, scratch + kWorkspaceBytes + bytes_a, bytes_b};
  devplug_buffer_handle_t hold_o{stream->device, scratch + kWorkspaceBytes + bytes_a + bytes_b, bytes_o};
  devplug_tensor_desc_t a = a0, b = b0, out = out0;
  if (plan.need_dense_a) {
    a = dense_over(a0, &hold_a);
    gpu::copy_strided(stream, a0, a);
  }
  if (plan.need_dense_b) {
    b = dense_over(b0, &hold_b);
    gpu::copy_strided(stream, b0, b);
  }
  if (plan.need_dense_out) out = dense_over(out0, &hold_o);
  plan = plan_for(a, b, out);
  if (!plan.ok) sdk::fail(DEVPLUG_CODE_INTERNAL, "matmul: no cuBLASLt layout after materializing");

  const cudaDataType_t type = data_type(out.dtype);
  const bool f64 = out.dtype == DEVPLUG_DTYPE_FLOAT64;
  cublasComputeType_t compute = f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  if (out.dtype == DEVPLUG_DTYPE_FLOAT32 &&
      allow_tf32(static_cast<const devplug_matmul_attrs_t*>(call.attrs)))
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  const cudaDataType_t scale = f64 ? CUDA_R_64F : CUDA_R_32F;

  gpu::use_device(stream->device);
  cublasLtHandle_t handle = handle_for(*lt, stream->device);
  cublasLtMatmulDesc_t desc = nullptr;
  LT_CHECK(*lt, lt->cublasLtMatmulDescCreate(&desc, compute, scale), "creating a matmul descriptor");
  struct DescGuard {
    const CublasLt& lt;
    cublasLtMatmulDesc_t d;
    ~DescGuard() { lt.cublasLtMatmulDescDestroy(d); }
  } desc_guard{*lt, desc};
  const cublasOperation_t op_first = plan.first.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = plan.second.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  LT_CHECK(*lt,
           lt->cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof op_first),
           "setting TRANSA");
  LT_CHECK(
      *lt,
      lt->cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof op_second),
      "setting TRANSB");

  const int32_t count = static_cast<int32_t>(batches);
  LayoutGuard la{*lt}, lb{*lt}, ld{*lt};
  make_layout(*lt, la, type, plan.first, count);
  make_layout(*lt, lb, type, plan.second, count);
  make_layout(*lt, ld, type, plan.d, count);
  const void* first = gpu::tensor_data(plan.swap ? b : a);
  const void* second = gpu::tensor_data(plan.swap ? a : b);
  void* dst = gpu::tensor_data(out);
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const double alpha_d = 1.0, beta_d = 0.0;
  const void* alpha = f64 ? static_cast<const void*>(&alpha_d) : static_cast<const void*>(&alpha_f);
  const void* beta = f64 ? static_cast<const void*>(&beta_d) : static_cast<const void*>(&beta_f);
  LT_CHECK(*lt,
           lt->cublasLtMatmul(handle, desc, alpha, first, la.layout, second, lb.layout, beta, dst, ld.layout,
                              dst, ld.layout, nullptr, scratch, kWorkspaceBytes, stream->stream),
           "running matmul");
  if (plan.need_dense_out) gpu::copy_strided(stream, out, out0);
}

}  // namespace

bool allow_tf32(const devplug_matmul_attrs_t* attrs) {
  if (attrs != nullptr && DEVPLUG_HAS_FIELD(attrs, devplug_matmul_attrs_t, flags) &&
      (attrs->flags & DEVPLUG_MATMUL_ALLOW_TF32))
    return true;
  const char* env = std::getenv("DEVPLUG_CUDA_ALLOW_TF32");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

devplug_error_t* matmul_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return sdk::run_kernel<gpu::KernelTraits>(stream, call, [&] {
    sdk::check_argument(call->op == DEVPLUG_OP_matmul, "matmul kernel called for another op");
    run(stream, *call);
  });
}

void matmul_context_destroy(gpu::MatmulContext* context) {
  if (context == nullptr) return;
  std::string why;
  if (const CublasLt* lt = cublaslt(&why); lt != nullptr && context->handle != nullptr)
    lt->cublasLtDestroy(context->handle);
  delete context;
}

}  // namespace devplug::cuda
