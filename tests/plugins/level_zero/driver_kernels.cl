// SPDX-License-Identifier: Apache-2.0
// Kernels for the CPU test driver's own tests (driver_test.cpp), compiled to SPIR-V 1.0 at
// build time. Each is the smallest kernel that shows one behaviour.

// data[i] += 1
__kernel void add_one(__global int* data) { data[get_global_id(0)] += 1; }

// out[i] = value: a value argument
__kernel void fill_value(__global int* out, int value) { out[get_global_id(0)] = value; }

// out[i] = in[i] * factor + offset: two pointers and two kinds of value
__kernel void scale(__global float* out, __global const float* in, float factor, long offset) {
  const size_t i = get_global_id(0);
  out[i] = in[i] * factor + (float)offset;
}

// out[group] = sum of in over the group, through a __local argument and barriers
__kernel void group_sum(__global const int* in, __global int* out, __local int* scratch) {
  const size_t lid = get_local_id(0), n = get_local_size(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t width = n / 2; width > 0; width /= 2) {
    if (lid < width) scratch[lid] += scratch[lid + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[get_group_id(0)] = scratch[0];
}

// out[i] = the group size it ran with; the group size is fixed by the kernel
__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void fixed_group(__global int* out) {
  out[get_global_id(0)] = (int)get_local_size(0);
}

// out[i] = the 3-D global id flattened, to check group counts in three dimensions
__kernel void where_am_i(__global int* out) {
  const size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  const size_t nx = get_global_size(0), ny = get_global_size(1);
  out[(z * ny + y) * nx + x] = (int)(x + 10 * y + 100 * z);
}

// Spins `rounds` times before writing 1, so a command is still running when the host looks.
__kernel void slow_mark(__global int* out, int rounds) {
  volatile int x = 0;
  for (int r = 0; r < rounds; ++r) x += r;
  out[get_global_id(0)] = 1 + (x & 0);
}
