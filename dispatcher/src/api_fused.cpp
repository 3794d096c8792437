// SPDX-License-Identifier: Apache-2.0
// C entry points: fused programs (fused.hpp).
#include "api_guard.hpp"
#include "device.hpp"
#include "fused.hpp"
#include "stream_event.hpp"

using namespace devplug::detail;

extern "C" {

DEVPLUG_API devplug_error_t* devplug_fused_program_create(devplug_device_t* device,
                                                          const devplug_fused_program_desc_t* desc,
                                                          devplug_fused_program_t** out_program) {
  return guard([&] {
    require_not_null(out_program, "out_program");
    *out_program = nullptr;
    require_handle(device, "device");
    require_not_null(desc, "desc");
    *out_program = create_fused_program(*device, *desc);
  });
}

DEVPLUG_API devplug_error_t* devplug_fused_program_run(devplug_stream_t* stream,
                                                       devplug_fused_program_t* program,
                                                       devplug_tensor_t* const* inputs, size_t n_inputs,
                                                       devplug_tensor_t* const* outputs, size_t n_outputs) {
  return guard([&] {
    const devplug_fused_program_t& p = *require_fused_program(program, "program");
    devplug_stream_t& s = stream != nullptr ? *require_handle(stream, "stream") : *p.device->default_stream();
    run_fused_program(s, p, inputs, n_inputs, outputs, n_outputs);
  });
}

DEVPLUG_API devplug_error_t* devplug_fused_program_is_native(const devplug_fused_program_t* program,
                                                             bool* out_native, const char** out_why) {
  return guard([&] {
    require_not_null(out_native, "out_native");
    *out_native = false;
    if (out_why != nullptr) *out_why = nullptr;
    const devplug_fused_program_t& p =
        *require_fused_program(const_cast<devplug_fused_program_t*>(program), "program");
    *out_native = p.native != nullptr;
    if (out_why != nullptr && p.native == nullptr) *out_why = p.why_op_by_op.c_str();
  });
}

DEVPLUG_API devplug_error_t* devplug_fused_program_destroy(devplug_fused_program_t* program) {
  return guard([&] {
    if (program == nullptr) return;
    destroy_fused_program(require_fused_program(program, "program"));
  });
}

}  // extern "C"
