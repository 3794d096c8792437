// SPDX-License-Identifier: Apache-2.0
// The ABI suite: the plugin's table called directly (devplug_plugin_get_table), with bad
// arguments that must come back with the exact error code plugin_api.h documents,
// load/unload cycles, buffer round trips, stream and event ordering, and threads. Each
// check runs in a forked child, so a crash fails the check and not the run.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness/name_filter.hpp"
#include "harness/pool.hpp"
#include "harness/run_state.hpp"
#include "suites/suites.hpp"

namespace devplug::conform {
namespace {

// Collects problems; every call that must fail goes through expect_error with the code
// plugin_api.h documents for that failure.
class Checker {
 public:
  explicit Checker(const devplug_plugin_api_t* api) : api_(api) {}
  void expect_error(const char* what, devplug_code_t expected, devplug_error_t* e) {
    if (e == nullptr) {
      problems_ << "  " << what << ": returned success, expected " << devplug_code_name(expected) << "\n";
      return;
    }
    if (e->code != expected)
      problems_ << "  " << what << ": returned " << code_text(e->code) << ", expected "
                << devplug_code_name(expected) << " (" << (e->message ? e->message : "") << ")\n";
    api_->error_destroy(e);
  }
  void expect_ok(const char* what, devplug_error_t* e) {
    if (e == nullptr) return;
    problems_ << "  " << what << ": " << code_text(e->code) << ": " << (e->message ? e->message : "") << "\n";
    api_->error_destroy(e);
  }
  void problem(const std::string& text) { problems_ << "  " << text << "\n"; }
  std::string text() const { return problems_.str(); }

 private:
  static std::string code_text(devplug_code_t code) {
    const char* name = devplug_code_name(code);
    return name ? name : "code " + std::to_string(code);
  }
  const devplug_plugin_api_t* api_;
  std::ostringstream problems_;
};

// A context with only the plugin under test, and its table.
struct Loaded {
  devplug_context_t* context = nullptr;
  devplug_plugin_t* plugin = nullptr;
  const devplug_plugin_api_t* api = nullptr;
  std::string error;
  Loaded() {
    devplug_context_options_t o{sizeof o, DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_NO_FALLBACK};
    error = take_error(devplug_context_create(&o, &context));
    if (error.empty())
      error =
          take_error(devplug_context_load_plugin(context, run_state().options.plugin_path.c_str(), &plugin));
    if (error.empty()) error = take_error(devplug_plugin_get_table(plugin, &api));
  }
  ~Loaded() { devplug_context_destroy(context); }
};

std::string load_unload() {
  for (int i = 0; i < 100; ++i) {
    Loaded l;
    if (!l.error.empty()) return "cycle " + std::to_string(i) + ": " + l.error;
    devplug_plugin_info_t info{};
    info.struct_size = sizeof info;
    std::string e = take_error(devplug_plugin_get_info(l.plugin, &info));
    if (!e.empty()) return "cycle " + std::to_string(i) + ": devplug_plugin_get_info: " + e;
    size_t devices = 0;
    take_error(devplug_context_device_count(l.context, &devices));
    if (devices > 0) {
      devplug_device_t* dev = nullptr;
      devplug_tensor_t* t = nullptr;
      const int64_t n = 16;
      e = take_error(devplug_context_get_device(l.context, 0, &dev));
      if (e.empty()) e = take_error(devplug_tensor_create(dev, DEVPLUG_DTYPE_FLOAT32, 1, &n, &t));
      devplug_tensor_release(t);
      if (!e.empty()) return "cycle " + std::to_string(i) + ": " + e;
    }
  }
  return "";
}

// ---- the check rows of plugin_api.def -----------------------------------------------------

// What a row needs to be provoked: nothing, an open device with a buffer, stream and events,
// or additionally a kernel row of the plugin (the kernel rows run once per kernel row).
enum class Needs { nothing, device, kernel };

struct RowFixture;
struct Row {
  const char* label;
  Needs needs;
  void (*provoke)(RowFixture&, const Row&);
};

// Valid arguments for every entry, from which each generated row function (abi_rows.inc)
// changes the one argument that breaks its row, and the bookkeeping of the outcomes.
struct RowFixture {
  static constexpr uint64_t buffer_size = 16;

  const devplug_plugin_api_t* api = nullptr;
  Checker* checker = nullptr;
  int32_t device_count = 0;
  devplug_plugin_init_args_t init{sizeof(devplug_plugin_init_args_t), DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR};
  devplug_device_properties_t properties{};
  devplug_device_claims_t claims{};
  devplug_dtype_mask_t claimed = DEVPLUG_DTYPES_ALL;  // device 0's dtypes
  devplug_device_handle_t* device = nullptr;
  devplug_buffer_handle_t* buffer = nullptr;
  devplug_stream_handle_t* stream = nullptr;
  devplug_event_handle_t* event = nullptr;             // recorded on `stream`
  devplug_event_handle_t* unrecorded_event = nullptr;  // never recorded
  devplug_buffer_handle_t* far_buffer = nullptr;       // on device 1, when there is one
  devplug_event_handle_t* far_event = nullptr;
  alignas(64) unsigned char host[64] = {};
  // Out-parameters: each row writes into fresh storage (a generous, aligned block).
  alignas(16) unsigned char out_storage[8][DEVPLUG_COMM_UNIQUE_ID_BYTES] = {};
  size_t outs_used = 0;
  template <typename T>
  T* out() {
    static_assert(sizeof(T) <= sizeof(out_storage[0]), "out-parameter too large");
    return reinterpret_cast<T*>(out_storage[outs_used++ % 8]);
  }

  // The kernel row under test and a call that passes every kernel check: each tensor of the
  // row's first dtype, rank 1, two elements on `buffer`; attributes zeroed, of the op's size.
  const devplug_kernel_t* kernel = nullptr;
  devplug_op_call_t kcall{};
  devplug_tensor_desc_t tensor{};
  const devplug_tensor_desc_t* ins[8] = {};
  const devplug_tensor_desc_t* outs[8] = {};
  alignas(16) unsigned char attrs[512] = {};
  void reset_kernel_call() {
    const devplug_op_info_t* info = devplug_op_info(kernel->op);
    std::memset(&tensor, 0, sizeof tensor);
    tensor.struct_size = sizeof tensor;
    tensor.buffer = buffer;
    tensor.dtype = 0;
    while (tensor.dtype + 1 < DEVPLUG_DTYPE_COUNT && !(kernel->dtypes & DEVPLUG_DTYPE_BIT(tensor.dtype)))
      ++tensor.dtype;
    tensor.rank = 1;
    tensor.shape[0] = 2;
    tensor.strides[0] = 1;
    for (auto& t : ins) t = &tensor;
    for (auto& t : outs) t = &tensor;
    std::memset(attrs, 0, sizeof attrs);
    if (info != nullptr && info->attrs_size != 0)
      reinterpret_cast<devplug_none_attrs_t*>(attrs)->struct_size = info->attrs_size;
    kcall = devplug_op_call_t{sizeof kcall,
                              kernel->op,
                              ins,
                              info && info->n_inputs >= 0 ? static_cast<size_t>(info->n_inputs) : 2,
                              outs,
                              info ? static_cast<size_t>(info->n_outputs) : 1,
                              info && info->attrs_size != 0 ? attrs : nullptr};
  }
  // A NULL tensor where the op does not allow one; false when every tensor is optional.
  bool null_tensor_call() {
    const devplug_op_info_t* info = devplug_op_info(kernel->op);
    for (size_t i = 0; i < kcall.n_inputs; ++i)
      if (i >= 32 || !((info->optional_inputs >> i) & 1u)) return ins[i] = nullptr, true;
    for (size_t i = 0; i < kcall.n_outputs; ++i)
      if (i >= 32 || !((info->optional_outputs >> i) & 1u)) return outs[i] = nullptr, true;
    return false;
  }
  // A dispatch dtype ops.def does not allow for the op; false when it allows every dtype.
  bool disallowed_dtype_call() {
    const devplug_op_info_t* info = devplug_op_info(kernel->op);
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
      if (!(info->dtypes & DEVPLUG_DTYPE_BIT(d))) return tensor.dtype = d, true;
    return false;
  }
  // A dtype the op allows but device 0 does not claim; false when it claims all of them.
  bool unclaimed_dtype_call() {
    const devplug_op_info_t* info = devplug_op_info(kernel->op);
    for (devplug_dtype_t d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
      if ((info->dtypes & DEVPLUG_DTYPE_BIT(d)) && !(claimed & DEVPLUG_DTYPE_BIT(d)))
        return tensor.dtype = d, true;
    return false;
  }
  // Attributes one byte short of the op's struct; false for an op without attributes.
  bool short_attrs_call() {
    if (kcall.attrs == nullptr) return false;
    reinterpret_cast<devplug_none_attrs_t*>(attrs)->struct_size -= 1;
    return true;
  }

  // The fused_programs rows: a program of one float32 input and its negation, and one whose
  // node reads its own result. The program itself is made on first use.
  devplug_dtype_t fused_input_dtype = DEVPLUG_DTYPE_FLOAT32;
  devplug_fused_node_t fused_node{
      sizeof(devplug_fused_node_t), DEVPLUG_OP_neg, DEVPLUG_DTYPE_FLOAT32, {0, 0, 0}, nullptr};
  devplug_fused_node_t cyclic_node{
      sizeof(devplug_fused_node_t), DEVPLUG_OP_neg, DEVPLUG_DTYPE_FLOAT32, {1, 0, 0}, nullptr};
  const devplug_fused_node_t* fused_nodes[1] = {&fused_node};
  const devplug_fused_node_t* cyclic_nodes[1] = {&cyclic_node};
  devplug_fused_value_t fused_output = 1;
  devplug_fused_program_desc_t fused_desc{
      sizeof(devplug_fused_program_desc_t), 1, &fused_input_dtype, 1, fused_nodes, 1, &fused_output};
  devplug_fused_program_desc_t bad_fused_desc{
      sizeof(devplug_fused_program_desc_t), 1, &fused_input_dtype, 1, cyclic_nodes, 1, &fused_output};
  const devplug_ext_fused_programs_t* programs = nullptr;
  devplug_fused_program_handle_t* program = nullptr;
  devplug_fused_program_handle_t* fused_program(const devplug_ext_fused_programs_t* ext) {
    if (programs == nullptr) {
      programs = ext;
      made(ext->fused_program_create(device, &fused_desc, &program), "fused_program_create");
    }
    return program;
  }
  // The collectives rows: a one-rank communicator made on first use, and a dense float32
  // tensor of two elements on `buffer`.
  devplug_comm_unique_id_t comm_id{};
  const devplug_ext_collectives_t* collectives = nullptr;
  devplug_comm_handle_t* communicator = nullptr;
  devplug_comm_handle_t* comm(const devplug_ext_collectives_t* ext) {
    if (collectives == nullptr) {
      collectives = ext;
      if (made(ext->comm_unique_id(device, &comm_id), "comm_unique_id"))
        made(ext->comm_create(device, &comm_id, 1, 0, &communicator), "comm_create");
    }
    return communicator;
  }
  devplug_tensor_desc_t dense{};
  const devplug_tensor_desc_t* dense_list[1] = {&dense};
  const devplug_tensor_desc_t* dense_tensor() {
    std::memset(&dense, 0, sizeof dense);
    dense.struct_size = sizeof dense;
    dense.buffer = buffer;
    dense.dtype = DEVPLUG_DTYPE_FLOAT32;
    dense.rank = 1;
    dense.shape[0] = 2;
    dense.strides[0] = 1;
    return &dense;
  }
  const devplug_tensor_desc_t* const* dense_tensors() {
    dense_tensor();
    return dense_list;
  }
  // A handle the rows need, made through its extension: a plugin may decline (UNIMPLEMENTED,
  // RESOURCE_EXHAUSTED), and the rows that need it are then not exercised.
  std::vector<std::string> unmade;
  bool made(devplug_error_t* error, const char* what) {
    if (error == nullptr) return true;
    unmade.push_back(std::string(what) + ": " + (error->message ? error->message : "(no message)"));
    api->error_destroy(error);
    return false;
  }
  void release_made() {
    if (program != nullptr)
      checker->expect_ok("fused_program_destroy", programs->fused_program_destroy(program));
    if (communicator != nullptr) checker->expect_ok("comm_destroy", collectives->comm_destroy(communicator));
    program = nullptr;
    communicator = nullptr;
  }

  template <typename Ext>
  const Ext* extension(uint32_t type) const {
    const devplug_extension_t* e = devplug_extension_find(api, type);
    return e != nullptr && e->struct_size >= sizeof(Ext) ? reinterpret_cast<const Ext*>(e) : nullptr;
  }

  // Outcomes, by row label: every row is exercised, not exercised (with the reason), or its
  // extension is not offered.
  std::vector<std::string> not_exercised_rows;
  size_t exercised = 0;
  void expect(const Row& row, devplug_code_t code, devplug_error_t* error) {
    ++exercised;
    if (code == DEVPLUG_CODE_OK)
      checker->expect_ok(row.label, error);
    else
      checker->expect_error(row.label, code, error);
  }
  void not_exercised(const Row& row, const char* why) {
    not_exercised_rows.push_back(std::string(row.label) + " (" + why + ")");
  }
  void not_offered(const Row& row) { not_exercised(row, "extension not offered"); }
};

#include "suites/abi_rows.inc"

// Device `index`'s claimed dtypes as the dispatcher reads them: device_get_claims (ABI 1.2),
// else the properties' `dtypes` (0: every dtype).
devplug_dtype_mask_t device_claims(const devplug_plugin_api_t* api, int32_t index,
                                   devplug_device_claims_t* out = nullptr) {
  devplug_device_claims_t c{};
  c.struct_size = sizeof c;
  if (DEVPLUG_HAS_FIELD(api, devplug_plugin_api_t, device_get_claims) && api->device_get_claims != nullptr) {
    if (devplug_error_t* e = api->device_get_claims(index, &c)) {
      api->error_destroy(e);
      return 0;
    }
    if (out) *out = c;
    return c.dtypes;
  }
  devplug_device_properties_t p{};
  p.struct_size = sizeof p;
  if (devplug_error_t* e = api->device_get_properties(index, &p)) {
    api->error_destroy(e);
    return 0;
  }
  c.dtypes = p.dtypes == 0 ? DEVPLUG_DTYPES_ALL : p.dtypes;
  if (out) *out = c;
  return c.dtypes;
}

// Every device's claims agree with what else the plugin says of it: an explicit mask (never
// 0) from device_get_claims, the 1.1 `dtypes` of its properties equal to it, the FP64 bit
// set exactly when float64 is claimed, FP16 and BF16 only with float16 and bfloat16, and each
// kernel row declaring at least one claimed dtype of some device (else it never runs).
std::string claims() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  const devplug_plugin_api_t* api = l.api;
  Checker c(api);
  int32_t count = 0;
  c.expect_ok("device_count", api->device_count(&count, nullptr));
  const bool has_entry =
      DEVPLUG_HAS_FIELD(api, devplug_plugin_api_t, device_get_claims) && api->device_get_claims != nullptr;
  if (api->abi_minor >= 2 && !has_entry) c.problem("an ABI 1.2 plugin without device_get_claims");
  devplug_dtype_mask_t any_device = 0;
  for (int32_t i = 0; i < count; ++i) {
    const std::string dev = "device " + std::to_string(i) + ": ";
    devplug_device_properties_t p{};
    p.struct_size = sizeof p;
    c.expect_ok("device_get_properties", api->device_get_properties(i, &p));
    devplug_device_claims_t claims{};
    const devplug_dtype_mask_t mask = device_claims(api, i, &claims);
    any_device |= mask;
    std::printf("abi_claims: %sdtypes 0x%03x, capabilities 0x%x, %s\n", dev.c_str(), mask, p.capabilities,
                claims.supports ? "a supports hook" : "no supports hook");
    std::fflush(stdout);
    if (has_entry) {
      if (mask == 0) c.problem(dev + "device_get_claims claims no dtype (the mask is explicit: 0 is none)");
      if (p.dtypes != mask)
        c.problem(dev + "properties.dtypes 0x" + std::to_string(p.dtypes) + " differs from the claims' " +
                  std::to_string(mask));
    }
    const bool f64 = (mask & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64)) != 0;
    if (((p.capabilities & DEVPLUG_DEVICE_FP64) != 0) != f64)
      c.problem(dev + (f64 ? "claims float64 but has no FP64 capability bit"
                           : "has the FP64 capability bit but does not claim float64"));
    if ((p.capabilities & DEVPLUG_DEVICE_FP16) && !(mask & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT16)))
      c.problem(dev + "has the FP16 capability bit but does not claim float16");
    if ((p.capabilities & DEVPLUG_DEVICE_BF16) && !(mask & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_BFLOAT16)))
      c.problem(dev + "has the BF16 capability bit but does not claim bfloat16");
  }
  if (count > 0)
    for (size_t k = 0; k < api->kernel_count; ++k)
      if (api->kernels[k] != nullptr && (api->kernels[k]->dtypes & any_device) == 0)
        c.problem(std::string("kernel row of ") + devplug_op_name(api->kernels[k]->op) +
                  " declares only dtypes no device claims");
  return c.text();
}

// Every check row of plugin_api.def provoked on the plugin with its exact code (abi_rows.inc),
// and the properties beside them: out-parameters cleared on failure, nothing written past a
// caller's struct_size, the device-count note.
std::string invalid_arguments() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  const devplug_plugin_api_t* api = l.api;
  Checker c(api);
  if (api->struct_size < DEVPLUG_PLUGIN_API_MIN_SIZE) c.problem("table struct_size below the 1.0 minimum");
  if (api->abi_major != DEVPLUG_ABI_MAJOR) c.problem("abi_major differs from the host's");
  if (api->plugin_name == nullptr || api->plugin_name[0] == 0) c.problem("plugin_name is empty");
  api->error_destroy(nullptr);
  devplug_error_t* made = api->error_create(DEVPLUG_CODE_INVALID_ARGUMENT, 7, "made by conformance");
  if (made == nullptr || made->code != DEVPLUG_CODE_INVALID_ARGUMENT || made->message == nullptr)
    c.problem("error_create did not return the error asked for");
  api->error_destroy(made);

  int32_t count = -1;
  const char* note = "untouched";
  c.expect_ok("device_count", api->device_count(&count, &note));
  if (count < 0) c.problem("device_count wrote a negative count");
  if (count > 0 && note != nullptr) c.problem("device_count left a note although it found devices");
  devplug_device_properties_t props;
  if (count > 0) {
    // The 1.0 struct: accepted, and nothing written past it (the 1.1 `dtypes` field).
    std::memset(&props, 0x5A, sizeof props);
    props.struct_size = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE;
    c.expect_ok("device_get_properties(the 1.0 struct)", api->device_get_properties(0, &props));
    if (props.struct_size != DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE)
      c.problem("device_get_properties changed struct_size");
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&props);
    for (size_t b = DEVPLUG_DEVICE_PROPERTIES_MIN_SIZE; b < sizeof props; ++b)
      if (bytes[b] != 0x5A) {
        c.problem("device_get_properties wrote past a short struct_size");
        break;
      }
  }
  devplug_device_handle_t* no_device = reinterpret_cast<devplug_device_handle_t*>(uintptr_t{1});
  c.expect_error("device_open(-1)", DEVPLUG_CODE_OUT_OF_RANGE, api->device_open(-1, &no_device));
  if (no_device != nullptr) c.problem("device_open(-1) left *out_device set");
  uint64_t size = 99;
  c.expect_error("buffer_get_size(NULL)", DEVPLUG_CODE_INVALID_ARGUMENT,
                 api->buffer_get_size(nullptr, &size));
  if (size != 0) c.problem("buffer_get_size(NULL) left *out_size_bytes set");

  RowFixture f;
  f.api = api;
  f.checker = &c;
  f.device_count = count;
  std::memset(&f.properties, 0, sizeof f.properties);
  f.properties.struct_size = sizeof f.properties;
  std::memset(&f.claims, 0, sizeof f.claims);
  f.claims.struct_size = sizeof f.claims;
  if (count > 0) f.claimed = device_claims(api, 0);
  devplug_device_handle_t* other = nullptr;
  if (count > 0) c.expect_ok("device_open(0)", api->device_open(0, &f.device));
  if (f.device != nullptr) {
    c.expect_ok("buffer_allocate(16)", api->buffer_allocate(f.device, RowFixture::buffer_size, &f.buffer));
    c.expect_ok("stream_create", api->stream_create(f.device, &f.stream));
    c.expect_ok("event_create", api->event_create(f.device, &f.event));
    c.expect_ok("event_create", api->event_create(f.device, &f.unrecorded_event));
    if (f.event && f.stream) c.expect_ok("event_record", api->event_record(f.event, f.stream));
    if (count > 1) c.expect_ok("device_open(1)", api->device_open(1, &other));
    if (other != nullptr) {
      c.expect_ok("buffer_allocate on device 1",
                  api->buffer_allocate(other, RowFixture::buffer_size, &f.far_buffer));
      c.expect_ok("event_create on device 1", api->event_create(other, &f.far_event));
    }
  }
  const bool have_device = f.buffer && f.stream && f.event && f.unrecorded_event;
  for (const Row& row : all_rows()) {
    if (row.needs == Needs::nothing) {
      row.provoke(f, row);
    } else if (!have_device) {
      f.not_exercised(row, "no device");
    } else if (row.needs == Needs::device) {
      row.provoke(f, row);
    } else {
      if (api->kernel_count == 0) f.not_exercised(row, "no kernel rows");
      for (size_t k = 0; k < api->kernel_count; ++k) {
        f.kernel = api->kernels[k];
        if (f.kernel == nullptr || f.kernel->fn == nullptr) {
          c.problem("kernel row " + std::to_string(k) + " is empty");
          continue;
        }
        row.provoke(f, row);
      }
    }
  }
  if (f.stream) c.expect_ok("stream_synchronize", api->stream_synchronize(f.stream));
  f.release_made();
  if (f.far_event) c.expect_ok("event_destroy on device 1", api->event_destroy(f.far_event));
  if (f.far_buffer) c.expect_ok("buffer_release on device 1", api->buffer_release(f.far_buffer));
  if (other) c.expect_ok("device_close(1)", api->device_close(other));
  if (f.unrecorded_event) c.expect_ok("event_destroy", api->event_destroy(f.unrecorded_event));
  if (f.event) c.expect_ok("event_destroy", api->event_destroy(f.event));
  if (f.stream) c.expect_ok("stream_destroy", api->stream_destroy(f.stream));
  if (f.buffer) c.expect_ok("buffer_release", api->buffer_release(f.buffer));
  if (f.device) c.expect_ok("device_close", api->device_close(f.device));
  std::printf("abi_invalid_arguments: %zu row calls; %zu rows not exercised%s\n", f.exercised,
              f.not_exercised_rows.size(), f.not_exercised_rows.empty() ? "" : ":");
  for (const std::string& r : f.not_exercised_rows) std::printf("  %s\n", r.c_str());
  for (const std::string& u : f.unmade) std::printf("  not made: %s\n", u.c_str());
  std::fflush(stdout);  // the check runs in a child that ends with _exit
  return c.text();
}

// Event timestamps (the event_timestamps extension, where the plugin offers it): a longer
// piece of work between two events measures longer than a short one, elapsed times are not
// negative in order and negative reversed, and the extension's rows hold (abi_rows.inc).
std::string event_timestamps() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  const devplug_extension_t* e = devplug_extension_find(l.api, DEVPLUG_EXTENSION_EVENT_TIMESTAMPS);
  if (e == nullptr) {
    std::printf("abi_event_timestamps: plugin offers no event_timestamps extension\n");
    std::fflush(stdout);
    return "";
  }
  if (e->struct_size < sizeof(devplug_ext_event_timestamps_t))
    return "event_timestamps record is shorter than its ABI 1.2 struct";
  const auto* ext = reinterpret_cast<const devplug_ext_event_timestamps_t*>(e);
  const devplug_plugin_api_t* api = l.api;
  Checker c(api);
  int32_t count = 0;
  c.expect_ok("device_count", api->device_count(&count, nullptr));
  if (count <= run_state().options.device) return c.text();
  devplug_device_handle_t* dev = nullptr;
  c.expect_ok("device_open", api->device_open(run_state().options.device, &dev));
  if (dev == nullptr) return c.text();
  // Work of two sizes: one copy of 4 KiB, and 64 copies of 8 MiB.
  const uint64_t small = 4096, large = uint64_t{8} << 20;
  devplug_buffer_handle_t *a = nullptr, *b = nullptr;
  devplug_stream_handle_t* s = nullptr;
  devplug_event_handle_t* ev[4] = {};
  c.expect_ok("buffer_allocate", api->buffer_allocate(dev, large, &a));
  c.expect_ok("buffer_allocate", api->buffer_allocate(dev, large, &b));
  c.expect_ok("stream_create", api->stream_create(dev, &s));
  for (auto& x : ev) c.expect_ok("event_create", api->event_create(dev, &x));
  if (a && b && s && ev[0] && ev[1] && ev[2] && ev[3]) {
    c.expect_ok("buffer_copy", api->buffer_copy(s, a, 0, b, 0, large));  // first touch, outside the timing
    c.expect_ok("event_record", api->event_record(ev[0], s));
    c.expect_ok("buffer_copy (short)", api->buffer_copy(s, a, 0, b, 0, small));
    c.expect_ok("event_record", api->event_record(ev[1], s));
    for (int i = 0; i < 64; ++i) c.expect_ok("buffer_copy (long)", api->buffer_copy(s, a, 0, b, 0, large));
    c.expect_ok("event_record", api->event_record(ev[2], s));
    int64_t short_ns = -1, long_ns = -1, backwards = 0, same = -1;
    c.expect_ok("event_elapsed_ns (short)", ext->event_elapsed_ns(ev[0], ev[1], &short_ns));
    c.expect_ok("event_elapsed_ns (long)", ext->event_elapsed_ns(ev[1], ev[2], &long_ns));
    c.expect_ok("event_elapsed_ns (reversed)", ext->event_elapsed_ns(ev[2], ev[0], &backwards));
    c.expect_ok("event_elapsed_ns (one event)", ext->event_elapsed_ns(ev[1], ev[1], &same));
    std::printf("abi_event_timestamps: 4 KiB copy %lld ns, 64 x 8 MiB copies %lld ns\n",
                static_cast<long long>(short_ns), static_cast<long long>(long_ns));
    std::fflush(stdout);
    if (short_ns < 0) c.problem("a short copy measured " + std::to_string(short_ns) + " ns (negative)");
    if (long_ns <= short_ns)
      c.problem("64 copies of 8 MiB measured " + std::to_string(long_ns) +
                " ns, not more than one 4 KiB copy (" + std::to_string(short_ns) + " ns)");
    if (backwards >= 0 && short_ns + long_ns > 0)
      c.problem("elapsed time from the last event back to the first is " + std::to_string(backwards) +
                " ns, not negative");
    if (same != 0) c.problem("elapsed time from an event to itself is " + std::to_string(same) + " ns");
    int64_t untouched = 123;
    c.expect_error("event_elapsed_ns(never recorded end)", DEVPLUG_CODE_FAILED_PRECONDITION,
                   ext->event_elapsed_ns(ev[0], ev[3], &untouched));
    if (untouched != 0) c.problem("event_elapsed_ns left *out_ns set after a failure");
    c.expect_ok("stream_synchronize", api->stream_synchronize(s));
  }
  for (auto& x : ev)
    if (x) c.expect_ok("event_destroy", api->event_destroy(x));
  if (s) c.expect_ok("stream_destroy", api->stream_destroy(s));
  if (a) c.expect_ok("buffer_release", api->buffer_release(a));
  if (b) c.expect_ok("buffer_release", api->buffer_release(b));
  c.expect_ok("device_close", api->device_close(dev));
  return c.text();
}

std::vector<unsigned char> pattern(uint64_t n, unsigned seed) {
  std::vector<unsigned char> p(n);
  for (uint64_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>((i * 131 + seed * 7 + (i >> 9)) & 0xFF);
  return p;
}

// Pinned host memory (the pinned_host_memory extension, where the plugin offers it): blocks
// are aligned to 64 bytes and writable; a copy from one to a buffer and back into another
// returns the bytes; a pointer the plugin did not give is refused; and the extension's rows
// hold (abi_rows.inc).
std::string pinned_host_memory() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  const devplug_extension_t* e = devplug_extension_find(l.api, DEVPLUG_EXTENSION_PINNED_HOST_MEMORY);
  if (e == nullptr) {
    std::printf("abi_pinned_host_memory: plugin offers no pinned_host_memory extension\n");
    std::fflush(stdout);
    return "";
  }
  if (e->struct_size < sizeof(devplug_ext_pinned_host_memory_t))
    return "pinned_host_memory record is shorter than its ABI 1.2 struct";
  const auto* ext = reinterpret_cast<const devplug_ext_pinned_host_memory_t*>(e);
  const devplug_plugin_api_t* api = l.api;
  Checker c(api);
  int32_t count = 0;
  c.expect_ok("device_count", api->device_count(&count, nullptr));
  if (count <= run_state().options.device) return c.text();
  devplug_device_handle_t* dev = nullptr;
  c.expect_ok("device_open", api->device_open(run_state().options.device, &dev));
  if (dev == nullptr) return c.text();
  const uint64_t size = (uint64_t{1} << 20) + 40;  // not a multiple of anything
  void *in = nullptr, *out = nullptr;
  devplug_buffer_handle_t* buffer = nullptr;
  devplug_stream_handle_t* s = nullptr;
  c.expect_ok("host_allocate", ext->host_allocate(dev, size, &in));
  c.expect_ok("host_allocate", ext->host_allocate(dev, size, &out));
  c.expect_ok("buffer_allocate", api->buffer_allocate(dev, size, &buffer));
  c.expect_ok("stream_create", api->stream_create(dev, &s));
  if (in && out && buffer && s) {
    for (void* p : {in, out})
      if (reinterpret_cast<uintptr_t>(p) % 64 != 0)
        c.problem("host_allocate gave a block not aligned to 64 bytes");
    auto* bytes = static_cast<unsigned char*>(in);
    const std::vector<unsigned char> values = pattern(size, 5);
    std::memcpy(bytes, values.data(), size);
    std::memset(out, 0, size);
    c.expect_ok("buffer_copy_from_host", api->buffer_copy_from_host(s, in, buffer, 0, size));
    c.expect_ok("buffer_copy_to_host", api->buffer_copy_to_host(s, buffer, 0, out, size));
    c.expect_ok("stream_synchronize", api->stream_synchronize(s));
    if (std::memcmp(in, out, size) != 0) c.problem("bytes copied through pinned memory came back different");
    unsigned char foreign[64];
    c.expect_error("host_release(a pointer host_allocate did not give)", DEVPLUG_CODE_INVALID_ARGUMENT,
                   ext->host_release(dev, foreign));
    c.expect_error("host_release(inside a block, not its start)", DEVPLUG_CODE_INVALID_ARGUMENT,
                   ext->host_release(dev, bytes + 64));
    std::printf("abi_pinned_host_memory: 2 blocks of %llu bytes, copied to a buffer and back\n",
                static_cast<unsigned long long>(size));
    std::fflush(stdout);
  }
  if (s) c.expect_ok("stream_destroy", api->stream_destroy(s));
  if (buffer) c.expect_ok("buffer_release", api->buffer_release(buffer));
  if (in) c.expect_ok("host_release", ext->host_release(dev, in));
  if (out) c.expect_ok("host_release", ext->host_release(dev, out));
  c.expect_ok("device_close", api->device_close(dev));
  return c.text();
}

// The plugin's record of extension `type` (`name` in what is printed), or nullptr when the
// plugin offers none (printed) or when the record is shorter than `Ext` (`problem` says so).
template <typename Ext>
const Ext* extension_record(const Loaded& l, uint32_t type, const char* name, std::string& problem) {
  const devplug_extension_t* e = devplug_extension_find(l.api, type);
  if (e == nullptr) {
    std::printf("abi_%s: plugin offers no %s extension\n", name, name);
    std::fflush(stdout);
    return nullptr;
  }
  if (e->struct_size < sizeof(Ext)) {
    problem = std::string(name) + " record is shorter than its ABI 1.2 struct";
    return nullptr;
  }
  return reinterpret_cast<const Ext*>(e);
}

// Device --device opened through the raw table, and whether its memory is the host's; `dev`
// is NULL when there is no such device or opening failed (`c` has the error).
struct OpenedDevice {
  devplug_device_handle_t* dev = nullptr;
  bool unified = false;
};
OpenedDevice open_run_device(Checker& c, const devplug_plugin_api_t* api) {
  OpenedDevice d;
  int32_t count = 0;
  c.expect_ok("device_count", api->device_count(&count, nullptr));
  const int32_t index = run_state().options.device;
  if (count <= index) return d;
  devplug_device_properties_t p{};
  p.struct_size = sizeof p;
  c.expect_ok("device_get_properties", api->device_get_properties(index, &p));
  d.unified = (p.capabilities & DEVPLUG_DEVICE_UNIFIED_MEMORY) != 0;
  c.expect_ok("device_open", api->device_open(index, &d.dev));
  return d;
}

// Host addresses of buffers (the host_address extension, where the plugin offers it): on a
// device with DEVPLUG_DEVICE_UNIFIED_MEMORY the address reads what was copied in and writes
// through it are what a copy out reads; on another device the entry answers
// FAILED_PRECONDITION.
std::string host_address() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  std::string problem;
  const auto* ext = extension_record<devplug_ext_host_address_t>(l, DEVPLUG_EXTENSION_HOST_ADDRESS,
                                                                 "host_address", problem);
  if (ext == nullptr) return problem;
  const devplug_plugin_api_t* api = l.api;
  Checker c(api);
  const auto [dev, unified] = open_run_device(c, api);
  if (dev == nullptr) return c.text();
  devplug_buffer_handle_t* buffer = nullptr;
  devplug_stream_handle_t* s = nullptr;
  c.expect_ok("buffer_allocate", api->buffer_allocate(dev, 4096, &buffer));
  c.expect_ok("stream_create", api->stream_create(dev, &s));
  if (buffer && s) {
    void* address = nullptr;
    if (!unified) {
      c.expect_error("buffer_host_address(a device without unified memory)", DEVPLUG_CODE_FAILED_PRECONDITION,
                     ext->buffer_host_address(buffer, &address));
    } else {
      const std::vector<unsigned char> in = pattern(4096, 6);
      std::vector<unsigned char> out(4096);
      c.expect_ok("buffer_copy_from_host", api->buffer_copy_from_host(s, in.data(), buffer, 0, in.size()));
      c.expect_ok("stream_synchronize", api->stream_synchronize(s));
      c.expect_ok("buffer_host_address", ext->buffer_host_address(buffer, &address));
      if (address == nullptr) {
        c.problem("buffer_host_address gave NULL");
      } else {
        if (std::memcmp(address, in.data(), in.size()) != 0)
          c.problem("the bytes at the buffer's host address are not what was copied in");
        static_cast<unsigned char*>(address)[100] = 0xAB;
        c.expect_ok("buffer_copy_to_host", api->buffer_copy_to_host(s, buffer, 0, out.data(), out.size()));
        c.expect_ok("stream_synchronize", api->stream_synchronize(s));
        if (out[100] != 0xAB)
          c.problem("a write through the host address was not seen by buffer_copy_to_host");
      }
    }
    std::printf("abi_host_address: device %s unified memory: %s\n", unified ? "with" : "without",
                unified ? "the address reads and writes the buffer" : "FAILED_PRECONDITION");
    std::fflush(stdout);
  }
  if (s) c.expect_ok("stream_destroy", api->stream_destroy(s));
  if (buffer) c.expect_ok("buffer_release", api->buffer_release(buffer));
  c.expect_ok("device_close", api->device_close(dev));
  return c.text();
}

// Host memory lent to the device (the host_memory_import extension, where the plugin offers
// it): on a device with DEVPLUG_DEVICE_UNIFIED_MEMORY the buffer is that memory both ways, and
// buffer_release leaves it to the caller; on another device the entry answers
// FAILED_PRECONDITION.
std::string host_memory_import() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  std::string problem;
  const auto* ext = extension_record<devplug_ext_host_memory_import_t>(
      l, DEVPLUG_EXTENSION_HOST_MEMORY_IMPORT, "host_memory_import", problem);
  if (ext == nullptr) return problem;
  const devplug_plugin_api_t* api = l.api;
  Checker c(api);
  const auto [dev, unified] = open_run_device(c, api);
  if (dev == nullptr) return c.text();
  constexpr size_t kSize = 4096 + 40;  // not a multiple of a page
  struct FreeBytes {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, FreeBytes> memory(
      static_cast<unsigned char*>(std::aligned_alloc(64, 4096 * 2)));
  unsigned char* host = memory.get();
  const std::vector<unsigned char> in = pattern(kSize, 7);
  std::memcpy(host, in.data(), kSize);
  devplug_buffer_handle_t* buffer = nullptr;
  devplug_stream_handle_t* s = nullptr;
  std::string declined;
  c.expect_ok("stream_create", api->stream_create(dev, &s));
  if (!unified) {
    c.expect_error("buffer_import_host(a device without unified memory)", DEVPLUG_CODE_FAILED_PRECONDITION,
                   ext->buffer_import_host(dev, host, kSize, &buffer));
  } else if (s != nullptr) {
    // A device whose memory is the host's may still be unable to use memory it did not
    // allocate (a Level Zero driver without system allocations): FAILED_PRECONDITION.
    devplug_error_t* error = ext->buffer_import_host(dev, host, kSize, &buffer);
    if (error != nullptr && error->code == DEVPLUG_CODE_FAILED_PRECONDITION) {
      declined = error->message != nullptr ? error->message : "";
      api->error_destroy(error);
    } else {
      c.expect_ok("buffer_import_host", error);
    }
    if (buffer != nullptr) {
      uint64_t size = 0;
      c.expect_ok("buffer_get_size", api->buffer_get_size(buffer, &size));
      if (size != kSize) c.problem("buffer_get_size of an imported buffer is not the size given");
      std::vector<unsigned char> out(kSize);
      c.expect_ok("buffer_copy_to_host", api->buffer_copy_to_host(s, buffer, 0, out.data(), kSize));
      c.expect_ok("stream_synchronize", api->stream_synchronize(s));
      if (out != in) c.problem("an imported buffer does not read the host memory it was given");
      const unsigned char written[3] = {0xAB, 0xCD, 0xEF};
      c.expect_ok("buffer_copy_from_host", api->buffer_copy_from_host(s, written, buffer, kSize - 3, 3));
      c.expect_ok("stream_synchronize", api->stream_synchronize(s));
      if (std::memcmp(host + kSize - 3, written, 3) != 0)
        c.problem("a copy into an imported buffer did not land in the host memory");
      c.expect_ok("buffer_release", api->buffer_release(buffer));
      host[0] = 1;  // still the caller's (a sanitizer build sees a use after free otherwise)
    }
  }
  std::printf("abi_host_memory_import: device %s unified memory: %s%s\n", unified ? "with" : "without",
              !unified           ? "FAILED_PRECONDITION"
              : declined.empty() ? "the buffer is the host memory both ways"
                                 : "declined (FAILED_PRECONDITION): ",
              declined.c_str());
  std::fflush(stdout);
  if (s) c.expect_ok("stream_destroy", api->stream_destroy(s));
  c.expect_ok("device_close", api->device_close(dev));
  return c.text();
}

// Opens device --device through the raw table for the checks below.
struct RawDevice {
  Loaded loaded;
  devplug_device_handle_t* dev = nullptr;
  std::string error;
  RawDevice() {
    error = loaded.error;
    if (!error.empty()) return;
    int32_t count = 0;
    if (devplug_error_t* e = loaded.api->device_count(&count, nullptr)) {
      loaded.api->error_destroy(e);
    }
    const int index = run_state().options.device;
    if (index >= count) {
      error = "no device " + std::to_string(index);
      return;
    }
    if (devplug_error_t* e = loaded.api->device_open(index, &dev)) {
      error = "device_open(" + std::to_string(index) + "): " + (e->message ? e->message : "");
      loaded.api->error_destroy(e);
    }
  }
  ~RawDevice() {
    if (dev)
      if (devplug_error_t* e = loaded.api->device_close(dev)) loaded.api->error_destroy(e);
  }
};

std::string buffer_round_trip() {
  RawDevice r;
  if (!r.error.empty()) return r.error;
  const devplug_plugin_api_t* api = r.loaded.api;
  Checker c(api);
  devplug_stream_handle_t* stream = nullptr;
  c.expect_ok("stream_create", api->stream_create(r.dev, &stream));
  if (!stream) return c.text();
  for (uint64_t size : {uint64_t{1}, uint64_t{7}, uint64_t{4099}, uint64_t{256} << 20}) {
    for (uint64_t offset : {uint64_t{0}, uint64_t{3}}) {
      devplug_buffer_handle_t* a = nullptr;
      devplug_buffer_handle_t* b = nullptr;
      const std::string what = std::to_string(size) + " bytes at offset " + std::to_string(offset);
      c.expect_ok(("allocate " + what).c_str(), api->buffer_allocate(r.dev, size + offset, &a));
      c.expect_ok(("allocate " + what).c_str(), api->buffer_allocate(r.dev, size + offset, &b));
      if (!a || !b) break;
      uint64_t got_size = 0;
      c.expect_ok("buffer_get_size", api->buffer_get_size(a, &got_size));
      if (got_size != size + offset) c.problem("buffer_get_size says " + std::to_string(got_size));
      const std::vector<unsigned char> in = pattern(size, static_cast<unsigned>(offset));
      std::vector<unsigned char> out(size, 0);
      c.expect_ok("copy_from_host", api->buffer_copy_from_host(stream, in.data(), a, offset, size));
      c.expect_ok("buffer_copy", api->buffer_copy(stream, a, offset, b, offset, size));
      c.expect_ok("copy_to_host", api->buffer_copy_to_host(stream, b, offset, out.data(), size));
      c.expect_ok("stream_synchronize", api->stream_synchronize(stream));
      if (in != out) c.problem("round trip of " + what + " changed the data");
      // A copy of zero bytes is a no-op that succeeds (plugin_api.h).
      c.expect_ok("copy_from_host(0 bytes)", api->buffer_copy_from_host(stream, in.data(), a, 0, 0));
      api->buffer_release(a);
      api->buffer_release(b);
    }
  }
  c.expect_ok("stream_destroy", api->stream_destroy(stream));
  return c.text();
}

std::string stream_event_ordering() {
  RawDevice r;
  if (!r.error.empty()) return r.error;
  const devplug_plugin_api_t* api = r.loaded.api;
  Checker c(api);
  const uint64_t size = uint64_t{64} << 20;
  devplug_stream_handle_t *a = nullptr, *b = nullptr;
  devplug_event_handle_t* ev = nullptr;
  devplug_buffer_handle_t *x = nullptr, *y = nullptr;
  c.expect_ok("stream_create", api->stream_create(r.dev, &a));
  c.expect_ok("stream_create", api->stream_create(r.dev, &b));
  c.expect_ok("event_create", api->event_create(r.dev, &ev));
  c.expect_ok("buffer_allocate", api->buffer_allocate(r.dev, size, &x));
  c.expect_ok("buffer_allocate", api->buffer_allocate(r.dev, size, &y));
  if (a && b && ev && x && y) {
    c.expect_ok("event_synchronize (never recorded)", api->event_synchronize(ev));
    for (unsigned round = 0; round < 3; ++round) {
      const std::vector<unsigned char> in = pattern(size, round + 1);
      std::vector<unsigned char> out(size, 0);
      // Stream A writes x; stream B copies x to y only after the event on A.
      c.expect_ok("copy_from_host on A", api->buffer_copy_from_host(a, in.data(), x, 0, size));
      c.expect_ok("event_record on A", api->event_record(ev, a));
      c.expect_ok("stream_wait_event B", api->stream_wait_event(b, ev));
      c.expect_ok("buffer_copy on B", api->buffer_copy(b, x, 0, y, 0, size));
      c.expect_ok("copy_to_host on B", api->buffer_copy_to_host(b, y, 0, out.data(), size));
      c.expect_ok("stream_synchronize B", api->stream_synchronize(b));
      c.expect_ok("event_synchronize", api->event_synchronize(ev));
      if (in != out) {
        c.problem("stream B saw x before stream A finished writing it (round " + std::to_string(round) + ")");
        break;
      }
    }
  }
  if (x) api->buffer_release(x);
  if (y) api->buffer_release(y);
  if (ev) api->event_destroy(ev);
  if (a) api->stream_destroy(a);
  if (b) api->stream_destroy(b);
  return c.text();
}

std::string concurrent_threads() {
  Loaded l;
  if (!l.error.empty()) return l.error;
  size_t devices = 0;
  take_error(devplug_context_device_count(l.context, &devices));
  const size_t index = static_cast<size_t>(run_state().options.device);
  if (index >= devices) return "no device " + std::to_string(index);
  devplug_device_t* dev = nullptr;  // the context holds only the plugin under test
  take_error(devplug_context_get_device(l.context, index, &dev));
  bool add_f32 = false;
  take_error(devplug_plugin_supports(l.plugin, DEVPLUG_OP_add, DEVPLUG_DTYPE_FLOAT32, &add_f32, nullptr));
  std::vector<std::string> problems(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      devplug_stream_t* s = nullptr;
      std::string& p = problems[static_cast<size_t>(t)];
      p = take_error(devplug_stream_create(dev, &s));
      const int64_t n = 4099;
      for (int round = 0; round < 20 && p.empty(); ++round) {
        std::vector<float> a(n), b(n), out(n, 0);
        for (int64_t i = 0; i < n; ++i) {
          a[i] = static_cast<float>(i * (t + 1));
          b[i] = static_cast<float>(round - i);
        }
        devplug_tensor_t *ta = nullptr, *tb = nullptr, *to = nullptr;
        p = take_error(devplug_tensor_create(dev, DEVPLUG_DTYPE_FLOAT32, 1, &n, &ta));
        if (p.empty()) p = take_error(devplug_tensor_create(dev, DEVPLUG_DTYPE_FLOAT32, 1, &n, &tb));
        if (p.empty()) p = take_error(devplug_tensor_create(dev, DEVPLUG_DTYPE_FLOAT32, 1, &n, &to));
        if (p.empty())
          p = take_error(devplug_tensor_copy_from_host(s, ta, a.data(), n * 4, DEVPLUG_COPY_BLOCKING));
        if (p.empty())
          p = take_error(devplug_tensor_copy_from_host(s, tb, b.data(), n * 4, DEVPLUG_COPY_BLOCKING));
        if (p.empty() && add_f32) {
          devplug_tensor_t* ins[2] = {ta, tb};
          p = take_error(devplug_op_call(s, DEVPLUG_OP_add, ins, 2, &to, 1, nullptr));
        } else if (p.empty()) {
          p = take_error(devplug_tensor_copy(s, to, ta));
        }
        if (p.empty()) p = take_error(devplug_tensor_copy_to_host(s, to, out.data(), n * 4));
        for (int64_t i = 0; i < n && p.empty(); ++i)
          if (out[i] != (add_f32 ? a[i] + b[i] : a[i]))
            p = "thread " + std::to_string(t) + " round " + std::to_string(round) + ": wrong element " +
                std::to_string(i);
        devplug_tensor_release(ta);
        devplug_tensor_release(tb);
        devplug_tensor_release(to);
      }
      take_error(devplug_stream_destroy(s));
    });
  }
  for (auto& th : threads) th.join();
  std::string all;
  for (const std::string& p : problems)
    if (!p.empty()) all += "  " + p + "\n";
  return all;
}

class AbiTest : public testing::Test {
 public:
  AbiTest(std::string name, std::function<std::string()> body)
      : name_(std::move(name)), body_(std::move(body)) {}
  void TestBody() override {
    Result r = run_isolated(body_, std::max(run_state().options.timeout_s, 120.0));
    const std::string xfail = xfail_reason(run_state().xfail, name_);
    const Status measured = r.status;
    if (!xfail.empty()) r.status = r.status == Status::Pass ? Status::Xpass : Status::Xfail;
    run_state().abi.push_back({name_, r});
    if (r.status == Status::Xfail) GTEST_SKIP() << "xfail (" << xfail << "): " << r.message;
    if (r.status == Status::Xpass)
      ADD_FAILURE() << name_ << ": XPASS, listed as an expected failure (" << xfail << ") but it passes";
    else if (measured != Status::Pass)
      ADD_FAILURE() << name_ << ": " << status_name(r.status) << "\n"
                    << r.message << "\nrepro: " << repro_command(name_);
  }

 private:
  std::string name_;
  std::function<std::string()> body_;
};

}  // namespace

void register_abi_tests(const std::string& filter) {
  const std::pair<const char*, std::string (*)()> checks[] = {
      {"load_unload", load_unload},
      {"invalid_arguments", invalid_arguments},
      {"event_timestamps", event_timestamps},
      {"pinned_host_memory", pinned_host_memory},
      {"host_address", host_address},
      {"host_memory_import", host_memory_import},
      {"claims", claims},
      {"buffer_round_trip", buffer_round_trip},
      {"stream_event_ordering", stream_event_ordering},
      {"concurrent_threads", concurrent_threads},
      {"index_values", index_values},
      {"graph_replay", graph_replay},
      {"graph_misuse", graph_misuse},
      {"fused_programs", fused_programs},
      {"collectives", collectives},
  };
  for (const auto& check : checks) {
    const std::string name = std::string("abi_") + check.first;
    if (!filter_selects(filter, name)) continue;
    auto body = check.second;
    testing::RegisterTest("Abi", check.first, nullptr, nullptr, __FILE__, __LINE__,
                          [name, body]() -> testing::Test* { return new AbiTest(name, body); });
  }
}

}  // namespace devplug::conform
