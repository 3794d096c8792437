// SPDX-License-Identifier: Apache-2.0
// CLBlast SGEMM on the plugin's OpenCL device (see clblast_yardstick.hpp).
#define CL_TARGET_OPENCL_VERSION 120
#include "clblast_yardstick.hpp"

#ifndef DEVPLUG_HAVE_CLBLAST_HEADERS
namespace devplug::bench {
Workload clblast_sgemm_workload(const std::string&, int64_t n, std::string* why_not) {
  *why_not = "devplug-bench was built without the OpenCL and CLBlast headers";
  return Workload{"clblast_sgemm", "float32", n, Measure::kFlops, 0, {}, {}};
}
}  // namespace devplug::bench
#else
#include <CL/cl.h>
#include <clblast_c.h>
#include <dlfcn.h>

#include <stdexcept>
#include <vector>

namespace devplug::bench {
namespace {

// The few OpenCL and CLBlast functions the yardstick calls, from dlopen'ed libraries.
struct Libraries {
#define DEVPLUG_CL_FN(name) decltype(&::name) name = nullptr;
  DEVPLUG_CL_FN(clGetPlatformIDs)
  DEVPLUG_CL_FN(clGetDeviceIDs)
  DEVPLUG_CL_FN(clGetDeviceInfo)
  DEVPLUG_CL_FN(clCreateContext)
  DEVPLUG_CL_FN(clCreateCommandQueue)
  DEVPLUG_CL_FN(clCreateBuffer)
  DEVPLUG_CL_FN(clEnqueueWriteBuffer)
  DEVPLUG_CL_FN(clFinish)
  DEVPLUG_CL_FN(clReleaseMemObject)
  DEVPLUG_CL_FN(clReleaseCommandQueue)
  DEVPLUG_CL_FN(clReleaseContext)
  DEVPLUG_CL_FN(CLBlastSgemm)
#undef DEVPLUG_CL_FN
  std::string problem;

  Libraries() {
    void* cl = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    void* blast = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cl == nullptr || blast == nullptr) {
      problem = cl == nullptr ? "libOpenCL.so.1 not found"
                              : "libclblast.so.1 not found (apt-get install libclblast1)";
      return;
    }
#define DEVPLUG_CL_LOAD(lib, name)                            \
  name = reinterpret_cast<decltype(name)>(dlsym(lib, #name)); \
  if (name == nullptr) problem = std::string(#name) + " not found";
    DEVPLUG_CL_LOAD(cl, clGetPlatformIDs)
    DEVPLUG_CL_LOAD(cl, clGetDeviceIDs)
    DEVPLUG_CL_LOAD(cl, clGetDeviceInfo)
    DEVPLUG_CL_LOAD(cl, clCreateContext)
    DEVPLUG_CL_LOAD(cl, clCreateCommandQueue)
    DEVPLUG_CL_LOAD(cl, clCreateBuffer)
    DEVPLUG_CL_LOAD(cl, clEnqueueWriteBuffer)
    DEVPLUG_CL_LOAD(cl, clFinish)
    DEVPLUG_CL_LOAD(cl, clReleaseMemObject)
    DEVPLUG_CL_LOAD(cl, clReleaseCommandQueue)
    DEVPLUG_CL_LOAD(cl, clReleaseContext)
    DEVPLUG_CL_LOAD(blast, CLBlastSgemm)
#undef DEVPLUG_CL_LOAD
  }
};

const Libraries& libraries() {
  static const Libraries libs;
  return libs;
}

// The OpenCL device whose CL_DEVICE_NAME is `name`, or nullptr.
cl_device_id find_device(const Libraries& cl, const std::string& name) {
  cl_uint n_platforms = 0;
  if (cl.clGetPlatformIDs(0, nullptr, &n_platforms) != CL_SUCCESS || n_platforms == 0) return nullptr;
  std::vector<cl_platform_id> platforms(n_platforms);
  cl.clGetPlatformIDs(n_platforms, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    cl_uint n_devices = 0;
    if (cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n_devices) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(n_devices);
    cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n_devices, devices.data(), nullptr);
    for (cl_device_id d : devices) {
      char text[256] = {0};
      cl.clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof text - 1, text, nullptr);
      if (name == text) return d;
    }
  }
  return nullptr;
}

// A context, queue and three n x n float32 buffers on one device.
struct Gemm {
  const Libraries& cl;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_mem a = nullptr, b = nullptr, c = nullptr;
  size_t n = 0;
  Gemm(const Libraries& libs, cl_device_id device, size_t size) : cl(libs), n(size) {
    cl_int status = CL_SUCCESS;
    context = cl.clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    if (status != CL_SUCCESS) throw std::runtime_error("clCreateContext failed: " + std::to_string(status));
    queue = cl.clCreateCommandQueue(context, device, 0, &status);
    if (status != CL_SUCCESS)
      throw std::runtime_error("clCreateCommandQueue failed: " + std::to_string(status));
    // The operands the plugin's matmul gets too: (i % 7) / 8, no NaN or subnormal to slow a CPU.
    std::vector<float> values(n * n);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) / 8.0f;
    for (cl_mem* m : {&a, &b, &c}) {
      *m = cl.clCreateBuffer(context, CL_MEM_READ_WRITE, n * n * sizeof(float), nullptr, &status);
      if (status != CL_SUCCESS) throw std::runtime_error("clCreateBuffer failed: " + std::to_string(status));
      cl.clEnqueueWriteBuffer(queue, *m, CL_TRUE, 0, values.size() * sizeof(float), values.data(), 0, nullptr,
                              nullptr);
    }
  }
  ~Gemm() {
    for (cl_mem m : {a, b, c})
      if (m) cl.clReleaseMemObject(m);
    if (queue) cl.clReleaseCommandQueue(queue);
    if (context) cl.clReleaseContext(context);
  }
  void run() {
    const CLBlastStatusCode status =
        cl.CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f, a, 0, n,
                        b, 0, n, 0.0f, c, 0, n, &queue, nullptr);
    if (status != CLBlastSuccess) throw std::runtime_error("CLBlastSgemm failed: " + std::to_string(status));
    cl.clFinish(queue);
  }
};

}  // namespace

Workload clblast_sgemm_workload(const std::string& device_name, int64_t n, std::string* why_not) {
  const Libraries& cl = libraries();
  Workload w{"clblast_sgemm", "float32", n, Measure::kFlops, 2.0 * n * n * static_cast<double>(n), {}, {}};
  if (!cl.problem.empty()) {
    *why_not = cl.problem;
    return w;
  }
  cl_device_id device = find_device(cl, device_name);
  if (device == nullptr) {
    *why_not = "no OpenCL device named '" + device_name + "'";
    return w;
  }
  auto gemm = std::make_shared<Gemm>(cl, device, static_cast<size_t>(n));
  w.run = [gemm] { gemm->run(); };
  return w;
}

}  // namespace devplug::bench
#endif  // DEVPLUG_HAVE_CLBLAST_HEADERS
