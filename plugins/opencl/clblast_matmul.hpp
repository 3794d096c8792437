// SPDX-License-Identifier: Apache-2.0
// matmul through CLBlast, the tuned OpenCL BLAS, where it is installed.
//
// libclblast.so.1 is opened at run time (once per process), so the plugin loads and runs its
// own tiled kernel where CLBlast is missing; `DEVPLUG_OPENCL_CLBLAST` names another file.
// CLBlast serves float32 and float64 operands whose matrices have one unit stride (row- or
// column-major, so transposed views stay free) and whose batch dims collapse to one uniform
// stride, from kClblastMinMacs multiply-adds up; every other call, float16/bfloat16
// included, takes the plugin's kernel. The threshold exists because CLBlast's first call of
// a routine compiles large kernels (about 30 s per precision on PoCL, measured), which a
// process doing small matmuls would never win back; above it CLBlast's tuned kernels pay.
// `DEVPLUG_OPENCL_MATMUL` chooses: `auto` (the default, as above), `clblast` (every call it
// can express, whatever its size, and an UNAVAILABLE error where CLBlast cannot be opened:
// tests of the path use it), `kernel` (never CLBlast: benchmarks compare the two paths).
#pragma once

#include "devplug/plugin_api.h"

namespace devplug::opencl {

// Multiply-adds (M x N x K x batch) from which `auto` hands a matmul to CLBlast: 256^3.
constexpr double kClblastMinMacs = 256.0 * 256.0 * 256.0;

// Enqueues out = a x b through CLBlast and returns true, or returns false when CLBlast is
// absent, turned off, or cannot express this call (the caller runs its own kernel). Throws
// for an OpenCL failure of the enqueue itself. A CLBlast failure of its own (a kernel it
// cannot build on this device) turns CLBlast off for the device and returns false.
bool clblast_matmul(devplug_stream_handle_t* stream, const devplug_tensor_desc_t& a,
                    const devplug_tensor_desc_t& b, const devplug_tensor_desc_t& out);

}  // namespace devplug::opencl
