// SPDX-License-Identifier: Apache-2.0
// Fused programs (devplug.h, "fused programs"): a devplug_fused_program_desc_t prepared for
// one device, run by the plugin's fused_programs extension where it offers the extension and
// builds the program, else op by op through dispatch_op, each node's result in a temporary
// of its dtype. Both give the results of running the nodes one op at a time.
#pragma once

#include <cstdint>
#include <string>

#include "devplug/devplug.h"
#include "devplug/sdk/fused_program.hpp"

struct devplug_fused_program_t {
  static constexpr uint32_t kMagic = 0x46555345;  // "FUSE"
  static constexpr const char* kKind = "fused program";
  uint32_t magic = kMagic;
  devplug_device_t* device = nullptr;
  // The plugin's compiled program, or NULL: the program runs op by op (`why_op_by_op` says why).
  devplug_fused_program_handle_t* native = nullptr;
  std::string why_op_by_op;
  devplug::sdk::FusedProgram program;  // the caller's desc, copied
  devplug_fused_program_t* live_prev = nullptr;
  devplug_fused_program_t* live_next = nullptr;
};

namespace devplug::detail {

// Checks `desc` (the SDK's structure checks, and the device's claims), copies it and asks the
// plugin to build it. Throws INVALID_ARGUMENT for a malformed program, or the plugin's error
// other than UNIMPLEMENTED and RESOURCE_EXHAUSTED (which leave the program op by op).
devplug_fused_program_t* create_fused_program(devplug_device_t& device,
                                              const devplug_fused_program_desc_t& desc);

// Checks that `program` is a program create_fused_program made and nobody destroyed (a
// registry, not the object's memory, is asked).
devplug_fused_program_t* require_fused_program(devplug_fused_program_t* program, const char* what);

// Runs `program` on `stream` over the caller's tensors (checked here: liveness, device, dtypes,
// shapes, bounds of the tail, aliasing). While the stream captures, the program runs op by
// op, so that the graph records its nodes.
void run_fused_program(devplug_stream_t& stream, const devplug_fused_program_t& program,
                       devplug_tensor_t* const* inputs, size_t n_inputs, devplug_tensor_t* const* outputs,
                       size_t n_outputs);

// Unlists and frees `program`, destroying the plugin's program. Throws the plugin's error,
// after freeing.
void destroy_fused_program(devplug_fused_program_t* program);

// Frees a program at context destruction (unlisted by the caller). Never throws.
void free_fused_program(devplug_fused_program_t* program) noexcept;

}  // namespace devplug::detail
