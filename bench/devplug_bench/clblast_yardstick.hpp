// SPDX-License-Identifier: Apache-2.0
// The matmul yardstick of OpenCL devices: CLBlast's SGEMM called directly on the same
// OpenCL device the plugin uses (found by its device name), in the same run. libOpenCL and
// libclblast are opened at run time, so devplug-bench runs where they are missing and says so.
#pragma once

#include <memory>
#include <string>

#include "workloads.hpp"

namespace devplug::bench {

// An n x n by n x n float32 SGEMM through CLBlast on the OpenCL device named `device_name`,
// or an empty `run` with the reason in `*why_not`.
Workload clblast_sgemm_workload(const std::string& device_name, int64_t n, std::string* why_not);

}  // namespace devplug::bench
