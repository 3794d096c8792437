// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the reference plugin's own table (devplug_plugin_get_table), entry by
// entry, and its extensions, with fuzzed arguments: NULLs, handles of the right and the wrong
// kind, sizes, offsets and indices around their limits, short struct sizes. The collectives
// extension, which the reference lacks, is fuzzed on the emulated GPU's table: communicators
// of fuzzed size and rank (one that waits for ranks that never come gives up after
// DEVPLUG_GPU_EMULATED_CCL_TIMEOUT_S, set short here) and every collective over fuzzed tensors.
//
// Input: a sequence of steps, each a byte choosing the entry and then its arguments (each
// handle a byte: a live one from the harness's pools, or NULL; each number FuzzInput::value).
// Properties: nothing crashes, leaks or touches memory it must not (ASan, LSan, UBSan); every
// error an entry returns has a code that plugin_api.def lists for that entry (or
// RESOURCE_EXHAUSTED, which any allocation may give) and a message; out-parameters are
// cleared on failure. Handles an entry destroyed leave the pools, so every handle passed is
// live or NULL (stale handles are "best effort" in the ABI, not a promise to fuzz).
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "devplug/devplug.h"
#include "devplug/sdk/fused_program.hpp"
#include "fuzz_host.hpp"
#include "fuzz_input.hpp"

using devplug::fuzz::check;
using devplug::fuzz::fail;
using devplug::fuzz::FuzzInput;
using devplug::fuzz::open_reference;

namespace {

devplug_context_t* context = nullptr;
const devplug_plugin_api_t* api = nullptr;
const devplug_ext_event_timestamps_t* timestamps = nullptr;
const devplug_ext_fused_programs_t* fused = nullptr;
// The emulated GPU's table and its collectives extension (NULL where the build has no
// emulated GPU).
devplug_context_t* emu_context = nullptr;
const devplug_plugin_api_t* emu_api = nullptr;
const devplug_ext_collectives_t* collectives = nullptr;

// The codes plugin_api.def lists for each entry.
const std::map<std::string, std::set<devplug_code_t>>& spec_codes() {
  static const std::map<std::string, std::set<devplug_code_t>> codes = [] {
    std::map<std::string, std::set<devplug_code_t>> m;
#define DEVPLUG_API_CHECK(entry, code, rule, args) m[#entry].insert(DEVPLUG_CODE_##code);
#include "devplug/plugin_api.def"
    return m;
  }();
  return codes;
}

// Codes the collectives extension's text in plugin_api.def names besides its rows: a tensor
// of another device, size or dtype (INVALID_ARGUMENT), a dtype or reduction the library does
// not carry (UNIMPLEMENTED), ranks that never join (UNAVAILABLE, comm_create only).
bool described(const std::string& entry, devplug_code_t code) {
  static const std::set<std::string> kCollectives = {
      "all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "send", "recv"};
  if (entry == "comm_create")
    return code == DEVPLUG_CODE_UNAVAILABLE || code == DEVPLUG_CODE_INVALID_ARGUMENT;
  return kCollectives.count(entry) != 0 &&
         (code == DEVPLUG_CODE_INVALID_ARGUMENT || code == DEVPLUG_CODE_UNIMPLEMENTED);
}

// Checks an entry's answer: success, or a listed code with a message. `table` made the error.
void answered(const char* entry, devplug_error_t* e, const devplug_plugin_api_t* table = api) {
  if (e == nullptr) return;
  const auto it = spec_codes().find(entry);
  const bool listed =
      (it != spec_codes().end() && it->second.count(e->code) != 0) || described(entry, e->code);
  const bool has_message = e->message != nullptr && e->message[0] != '\0';
  const devplug_code_t code = e->code;
  std::string text = e->message ? e->message : "(null)";
  table->error_destroy(e);
  if ((!listed && code != DEVPLUG_CODE_RESOURCE_EXHAUSTED) || !has_message)
    fail(std::string(entry) + " answered " + devplug_code_name(code) + ": " + text +
         " (not a code plugin_api.def lists for it)");
}

// Live handles made by the harness, and the device they belong to.
struct Pools {
  devplug_device_handle_t* device = nullptr;
  std::vector<devplug_buffer_handle_t*> buffers;
  std::vector<devplug_stream_handle_t*> streams;
  std::vector<devplug_event_handle_t*> events;
  std::vector<devplug_fused_program_handle_t*> programs;
  ~Pools() {
    for (auto* f : programs) answered("fused_program_destroy", fused->fused_program_destroy(f));
    for (auto* e : events) answered("event_destroy", api->event_destroy(e));
    for (auto* s : streams) answered("stream_destroy", api->stream_destroy(s));
    for (auto* b : buffers) answered("buffer_release", api->buffer_release(b));
    if (device) answered("device_close", api->device_close(device));
  }
};

// The emulated GPU's handles for the collectives steps, made at the first such step of an
// input: buffers of kEmuBuffer bytes, a stream, and the communicators made so far.
constexpr uint64_t kEmuBuffer = 4096;
struct EmuPools {
  devplug_device_handle_t* device = nullptr;
  std::vector<devplug_buffer_handle_t*> buffers;
  std::vector<devplug_stream_handle_t*> streams;
  std::vector<devplug_comm_handle_t*> comms;
  bool open() {
    if (device != nullptr) return true;
    if (emu_api == nullptr || collectives == nullptr) return false;
    answered("device_open", emu_api->device_open(0, &device), emu_api);
    if (device == nullptr) fail("device_open(0) of the emulated GPU failed");
    for (int i = 0; i < 3; ++i) {
      devplug_buffer_handle_t* b = nullptr;
      answered("buffer_allocate", emu_api->buffer_allocate(device, kEmuBuffer, &b), emu_api);
      if (b != nullptr) buffers.push_back(b);
    }
    devplug_stream_handle_t* s = nullptr;
    answered("stream_create", emu_api->stream_create(device, &s), emu_api);
    if (s != nullptr) streams.push_back(s);
    return true;
  }
  ~EmuPools() {
    for (auto* c : comms) answered("comm_destroy", collectives->comm_destroy(c), emu_api);
    for (auto* s : streams) {
      answered("stream_synchronize", emu_api->stream_synchronize(s), emu_api);
      answered("stream_destroy", emu_api->stream_destroy(s), emu_api);
    }
    for (auto* b : buffers) answered("buffer_release", emu_api->buffer_release(b), emu_api);
    if (device) answered("device_close", emu_api->device_close(device), emu_api);
  }
};

// A handle of the pool chosen by one byte, or NULL (also when the pool is empty).
template <typename T>
T* pick(FuzzInput& in, const std::vector<T*>& pool, size_t* index = nullptr) {
  const uint8_t b = in.byte();
  if (pool.empty() || b % 8 == 0) return nullptr;
  const size_t i = b % pool.size();
  if (index) *index = i;
  return pool[i];
}

// A fuzzed fused program: counts around their limits, nodes of any op id (the fusable ones
// more often), dtypes, operands and outputs that may point anywhere, reduction attributes
// that may be missing or short.
struct FuzzedProgram : devplug::sdk::FusedProgram {
  std::vector<devplug_reduce_attrs_t> attrs;
  devplug_fused_program_desc_t fuzzed{};

  explicit FuzzedProgram(FuzzInput& in) {
    static const devplug_op_t kFusable[] = {
        DEVPLUG_OP_neg, DEVPLUG_OP_exp,  DEVPLUG_OP_add,   DEVPLUG_OP_mul,
        DEVPLUG_OP_div, DEVPLUG_OP_lt,   DEVPLUG_OP_where, DEVPLUG_OP_sum,
        DEVPLUG_OP_var, DEVPLUG_OP_mean, DEVPLUG_OP_amax,  DEVPLUG_OP_convert_element_type};
    inputs.resize(static_cast<size_t>(in.value(0, 4)) % 40);
    for (auto& d : inputs)
      d = static_cast<devplug_dtype_t>(in.byte() % 4 ? int64_t{DEVPLUG_DTYPE_FLOAT32} : in.value(-1, 10));
    const size_t n_nodes = static_cast<size_t>(in.value(0, 6)) % 300;
    nodes.resize(n_nodes);
    attrs.resize(n_nodes);
    for (size_t k = 0; k < n_nodes; ++k) {
      devplug_fused_node_t& n = nodes[k];
      n.struct_size = in.byte() % 16 ? sizeof n : static_cast<size_t>(in.value(0, sizeof n));
      const uint8_t pick_op = in.byte();
      n.op = pick_op % 4 ? kFusable[pick_op % (sizeof kFusable / sizeof kFusable[0])]
                         : static_cast<devplug_op_t>(in.value(0, 140));
      n.dtype =
          static_cast<devplug_dtype_t>(in.byte() % 4 ? int64_t{DEVPLUG_DTYPE_FLOAT32} : in.value(-1, 10));
      for (auto& a : n.args)
        a = static_cast<devplug_fused_value_t>(in.value(0, static_cast<int64_t>(inputs.size() + k)));
      attrs[k] = devplug_reduce_attrs_t{in.byte() % 8 ? sizeof(devplug_reduce_attrs_t) : 4,
                                        static_cast<uint32_t>(in.value(0, 15)), 1.0};
      n.attrs = in.byte() % 8 ? &attrs[k] : nullptr;
    }
    outputs.resize(static_cast<size_t>(in.value(0, 3)) % 20);
    for (auto& o : outputs)
      o = static_cast<devplug_fused_value_t>(in.value(0, static_cast<int64_t>(inputs.size() + n_nodes)));
    fuzzed = desc();
    for (auto& node : pointers)
      if (in.byte() % 32 == 0) node = nullptr;
    if (in.byte() % 16 == 0) fuzzed.struct_size = static_cast<size_t>(in.value(0, sizeof fuzzed));
  }
};

// Fuzzed tensors over the pool's buffers, for a fused program's launch: dtypes, ranks, shapes,
// strides and offsets around their limits (shapes above 64 become 64, as in buffer_allocate's
// case: a broadcast launch of that size would really allocate its results).
struct FuzzedTensors {
  std::vector<devplug_tensor_desc_t> descs;
  std::vector<const devplug_tensor_desc_t*> pointers;
  FuzzedTensors(FuzzInput& in, const std::vector<devplug_buffer_handle_t*>& buffers) {
    descs.resize(static_cast<size_t>(in.value(0, 4)) % 40);
    for (auto& t : descs) {
      t = devplug_tensor_desc_t{};
      t.struct_size = in.byte() % 16 ? sizeof t : static_cast<size_t>(in.value(0, sizeof t));
      t.buffer = pick(in, buffers);
      t.byte_offset = static_cast<uint64_t>(in.value(0, 64));
      t.dtype =
          static_cast<devplug_dtype_t>(in.byte() % 4 ? int64_t{DEVPLUG_DTYPE_FLOAT32} : in.value(-1, 10));
      t.rank = static_cast<int32_t>(in.value(0, 3));
      for (int32_t d = 0; d < DEVPLUG_MAX_RANK; ++d) {
        t.shape[d] = std::min<int64_t>(in.value(0, 5), 64);
        t.strides[d] = in.value(-2, 5);
      }
    }
    for (auto& t : descs) pointers.push_back(in.byte() % 16 ? &t : nullptr);
  }
};

// Host memory the copies read and write: as large as the largest buffer made here.
constexpr uint64_t kMaxBuffer = 4096;
alignas(16) unsigned char host[kMaxBuffer];

template <typename T>
void expect_cleared(const char* entry, const T& value, devplug_error_t* e) {
  if (e != nullptr && value != T{}) fail(std::string(entry) + " failed but left its out-parameter set");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  devplug_device_t* device = nullptr;
  open_reference(&context, &device);
  devplug_plugin_t* plugin = nullptr;
  check(devplug_device_get_plugin(device, &plugin), "plugin");
  check(devplug_plugin_get_table(plugin, &api), "table");
  timestamps = reinterpret_cast<const devplug_ext_event_timestamps_t*>(
      devplug_extension_find(api, DEVPLUG_EXTENSION_EVENT_TIMESTAMPS));
  fused = reinterpret_cast<const devplug_ext_fused_programs_t*>(
      devplug_extension_find(api, DEVPLUG_EXTENSION_FUSED_PROGRAMS));
#ifdef DEVPLUG_GPU_EMULATED_PLUGIN_PATH
  // A communicator of more than one rank waits for ranks that never come: 20 ms, not 300 s.
  setenv("DEVPLUG_GPU_EMULATED_CCL_TIMEOUT_S", "0.02", 1);
  devplug_context_options_t options{sizeof(options), DEVPLUG_CONTEXT_NO_DISCOVERY};
  check(devplug_context_create(&options, &emu_context), "context");
  devplug_plugin_t* emu = nullptr;
  check(devplug_context_load_plugin(emu_context, DEVPLUG_GPU_EMULATED_PLUGIN_PATH, &emu),
        "load the emulated GPU");
  check(devplug_plugin_get_table(emu, &emu_api), "table");
  collectives = reinterpret_cast<const devplug_ext_collectives_t*>(
      devplug_extension_find(emu_api, DEVPLUG_EXTENSION_COLLECTIVES));
  if (collectives == nullptr) fail("the emulated GPU offers no collectives extension");
#endif
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  Pools p;
  EmuPools emu;
  answered("device_open", api->device_open(0, &p.device));
  if (p.device == nullptr) fail("device_open(0) failed");
  for (int step = 0; step < 64 && !in.done(); ++step) {
    const uint8_t which = in.byte() % 21;
    switch (which) {
      case 0: {
        uint64_t bytes = static_cast<uint64_t>(in.value(0, kMaxBuffer));
        // Edge values past kMaxBuffer: those from 2^62 up (more than any machine's memory) are
        // refused before anything is allocated; smaller ones (2^31 .. 2^40) would really be
        // allocated, past libFuzzer's malloc limit, so they become kMaxBuffer.
        if (bytes > kMaxBuffer && bytes < (uint64_t{1} << 62)) bytes = kMaxBuffer;
        devplug_buffer_handle_t* b = reinterpret_cast<devplug_buffer_handle_t*>(uintptr_t{8});
        const bool null_device = in.byte() % 8 == 0;
        devplug_error_t* e = api->buffer_allocate(null_device ? nullptr : p.device, bytes, &b);
        expect_cleared("buffer_allocate", b, e);
        answered("buffer_allocate", e);
        if (b != nullptr) {
          if (bytes > kMaxBuffer) {
            answered("buffer_release", api->buffer_release(b));
          } else {
            p.buffers.push_back(b);
          }
        }
        break;
      }
      case 1: {
        size_t i = 0;
        devplug_buffer_handle_t* b = pick(in, p.buffers, &i);
        answered("buffer_release", api->buffer_release(b));
        if (b) p.buffers.erase(p.buffers.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      case 2: {
        uint64_t bytes = 77;
        devplug_buffer_handle_t* b = pick(in, p.buffers);
        const bool null_out = in.byte() % 8 == 0;
        devplug_error_t* e = api->buffer_get_size(b, null_out ? nullptr : &bytes);
        if (!null_out) expect_cleared("buffer_get_size", bytes, e);
        answered("buffer_get_size", e);
        break;
      }
      case 3: {
        devplug_stream_handle_t* s = pick(in, p.streams);
        devplug_buffer_handle_t* b = pick(in, p.buffers);
        const uint64_t offset = static_cast<uint64_t>(in.value(0, kMaxBuffer));
        const uint64_t bytes = static_cast<uint64_t>(in.value(0, kMaxBuffer));
        const bool null_src = in.byte() % 8 == 0;
        answered("buffer_copy_from_host",
                 api->buffer_copy_from_host(s, null_src ? nullptr : host, b, offset, bytes));
        break;
      }
      case 4: {
        devplug_stream_handle_t* s = pick(in, p.streams);
        devplug_buffer_handle_t* b = pick(in, p.buffers);
        const uint64_t offset = static_cast<uint64_t>(in.value(0, kMaxBuffer));
        const uint64_t bytes = static_cast<uint64_t>(in.value(0, kMaxBuffer));
        const bool null_dst = in.byte() % 8 == 0;
        answered("buffer_copy_to_host",
                 api->buffer_copy_to_host(s, b, offset, null_dst ? nullptr : host, bytes));
        if (s) answered("stream_synchronize", api->stream_synchronize(s));  // `host` is read back now
        break;
      }
      case 5: {
        devplug_stream_handle_t* s = pick(in, p.streams);
        devplug_buffer_handle_t* src = pick(in, p.buffers);
        devplug_buffer_handle_t* dst = pick(in, p.buffers);
        const uint64_t so = static_cast<uint64_t>(in.value(0, kMaxBuffer));
        const uint64_t d = static_cast<uint64_t>(in.value(0, kMaxBuffer));
        const uint64_t bytes = static_cast<uint64_t>(in.value(0, kMaxBuffer));
        answered("buffer_copy", api->buffer_copy(s, src, so, dst, d, bytes));
        break;
      }
      case 6: {
        devplug_stream_handle_t* s = reinterpret_cast<devplug_stream_handle_t*>(uintptr_t{8});
        const bool null_device = in.byte() % 8 == 0;
        devplug_error_t* e = api->stream_create(null_device ? nullptr : p.device, &s);
        expect_cleared("stream_create", s, e);
        answered("stream_create", e);
        if (s && p.streams.size() < 4)
          p.streams.push_back(s);
        else if (s)
          answered("stream_destroy", api->stream_destroy(s));
        break;
      }
      case 7: {
        size_t i = 0;
        devplug_stream_handle_t* s = pick(in, p.streams, &i);
        if (in.byte() % 2) {
          answered("stream_synchronize", api->stream_synchronize(s));
        } else {
          answered("stream_destroy", api->stream_destroy(s));
          if (s) p.streams.erase(p.streams.begin() + static_cast<std::ptrdiff_t>(i));
        }
        break;
      }
      case 8: {
        devplug_event_handle_t* e = reinterpret_cast<devplug_event_handle_t*>(uintptr_t{8});
        const bool null_device = in.byte() % 8 == 0;
        devplug_error_t* err = api->event_create(null_device ? nullptr : p.device, &e);
        expect_cleared("event_create", e, err);
        answered("event_create", err);
        if (e && p.events.size() < 6)
          p.events.push_back(e);
        else if (e)
          answered("event_destroy", api->event_destroy(e));
        break;
      }
      case 9: {
        size_t i = 0;
        devplug_event_handle_t* e = pick(in, p.events, &i);
        answered("event_destroy", api->event_destroy(e));
        if (e) p.events.erase(p.events.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      case 10:
        answered("event_record", api->event_record(pick(in, p.events), pick(in, p.streams)));
        break;
      case 11:
        answered("stream_wait_event", api->stream_wait_event(pick(in, p.streams), pick(in, p.events)));
        break;
      case 12:
        answered("event_synchronize", api->event_synchronize(pick(in, p.events)));
        break;
      case 13: {
        if (timestamps == nullptr) break;
        int64_t ns = 5;
        devplug_event_handle_t* start = pick(in, p.events);
        devplug_event_handle_t* end = pick(in, p.events);
        const bool null_out = in.byte() % 8 == 0;
        devplug_error_t* e = timestamps->event_elapsed_ns(start, end, null_out ? nullptr : &ns);
        if (!null_out) expect_cleared("event_elapsed_ns", ns, e);
        answered("event_elapsed_ns", e);
        break;
      }
      case 14: {
        devplug_device_properties_t props;
        std::memset(&props, 0, sizeof props);
        props.struct_size = static_cast<size_t>(in.value(0, sizeof props));
        if (props.struct_size > sizeof props) props.struct_size = sizeof props;
        const int32_t index = static_cast<int32_t>(in.value(-2, 3));
        answered("device_get_properties",
                 api->device_get_properties(index, in.byte() % 8 ? &props : nullptr));
        break;
      }
      case 15: {
        if (fused == nullptr) break;
        FuzzedProgram program(in);
        devplug_fused_program_handle_t* f = reinterpret_cast<devplug_fused_program_handle_t*>(uintptr_t{8});
        const uint8_t nulls = in.byte();
        devplug_error_t* e = fused->fused_program_create(nulls % 16 == 1 ? nullptr : p.device,
                                                         nulls % 16 == 2 ? nullptr : &program.fuzzed,
                                                         nulls % 16 == 3 ? nullptr : &f);
        if (nulls % 16 == 3) f = nullptr;
        expect_cleared("fused_program_create", f, e);
        answered("fused_program_create", e);
        if (f != nullptr && p.programs.size() < 4)
          p.programs.push_back(f);
        else if (f != nullptr)
          answered("fused_program_destroy", fused->fused_program_destroy(f));
        break;
      }
      case 16: {
        if (fused == nullptr) break;
        devplug_stream_handle_t* s = pick(in, p.streams);
        devplug_fused_program_handle_t* f = pick(in, p.programs);
        FuzzedTensors ins(in, p.buffers);
        FuzzedTensors outs(in, p.buffers);
        const bool null_lists = in.byte() % 16 == 0;
        answered(
            "fused_program_launch",
            fused->fused_program_launch(s, f, null_lists ? nullptr : ins.pointers.data(), ins.pointers.size(),
                                        outs.pointers.data(), outs.pointers.size()));
        break;
      }
      case 17: {
        if (fused == nullptr) break;
        size_t i = 0;
        devplug_fused_program_handle_t* f = pick(in, p.programs, &i);
        answered("fused_program_destroy", fused->fused_program_destroy(f));
        if (f) p.programs.erase(p.programs.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      case 18: {
        if (!emu.open()) break;
        const uint8_t nulls = in.byte();
        devplug_comm_unique_id_t id{};
        answered("comm_unique_id",
                 collectives->comm_unique_id(nulls % 16 == 1 ? nullptr : emu.device,
                                             nulls % 16 == 2 ? nullptr : &id),
                 emu_api);
        if (nulls % 16 == 3) id.bytes[in.byte() % sizeof id.bytes] ^= in.byte();  // an id no rank made
        const auto world = static_cast<uint32_t>(in.value(0, 2));
        const auto rank = static_cast<uint32_t>(in.value(0, 2));
        devplug_comm_handle_t* c = reinterpret_cast<devplug_comm_handle_t*>(uintptr_t{8});
        devplug_error_t* e =
            collectives->comm_create(nulls % 16 == 4 ? nullptr : emu.device, nulls % 16 == 5 ? nullptr : &id,
                                     world, rank, nulls % 16 == 6 ? nullptr : &c);
        if (nulls % 16 == 6) c = nullptr;
        expect_cleared("comm_create", c, e);
        answered("comm_create", e, emu_api);
        if (c != nullptr && emu.comms.size() < 2)
          emu.comms.push_back(c);
        else if (c != nullptr)
          answered("comm_destroy", collectives->comm_destroy(c), emu_api);
        break;
      }
      case 19: {
        if (!emu.open()) break;
        size_t i = 0;
        devplug_comm_handle_t* c = pick(in, emu.comms, &i);
        answered("comm_destroy", collectives->comm_destroy(c), emu_api);
        if (c) emu.comms.erase(emu.comms.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      case 20: {
        if (!emu.open()) break;
        const uint8_t kind = in.byte() % 7;
        devplug_stream_handle_t* s = pick(in, emu.streams);
        devplug_comm_handle_t* c = pick(in, emu.comms);
        FuzzedTensors t(in, emu.buffers);
        const devplug_tensor_desc_t* a = t.pointers.empty() ? nullptr : t.pointers.front();
        const devplug_tensor_desc_t* b = t.pointers.size() < 2 ? a : t.pointers[1];
        const auto number = static_cast<uint32_t>(in.value(0, 9));  // the op, root or peer
        switch (kind) {
          case 0:
            answered("all_reduce", collectives->all_reduce(s, c, a, b, number), emu_api);
            break;
          case 1:
            answered("all_gather", collectives->all_gather(s, c, a, b), emu_api);
            break;
          case 2:
            answered("reduce_scatter", collectives->reduce_scatter(s, c, a, b, number), emu_api);
            break;
          case 3:
            answered("broadcast", collectives->broadcast(s, c, a, number), emu_api);
            break;
          case 4:
            answered("all_to_all", collectives->all_to_all(s, c, a, b), emu_api);
            break;
          case 5:
            answered("send", collectives->send(s, c, a, number), emu_api);
            break;
          default:
            answered("recv", collectives->recv(s, c, a, number), emu_api);
            break;
        }
        if (s != nullptr) answered("stream_synchronize", emu_api->stream_synchronize(s), emu_api);
        break;
      }
      default: {
        const int32_t index = static_cast<int32_t>(in.value(-2, 3));
        devplug_device_handle_t* d = reinterpret_cast<devplug_device_handle_t*>(uintptr_t{8});
        const bool null_out = in.byte() % 8 == 0;
        devplug_error_t* e = api->device_open(index, null_out ? nullptr : &d);
        if (null_out) d = nullptr;
        expect_cleared("device_open", d, e);
        answered("device_open", e);
        if (e == nullptr && d != nullptr) answered("device_close", api->device_close(d));
        int32_t count = -1;
        answered("device_count", api->device_count(in.byte() % 8 ? &count : nullptr, nullptr));
        break;
      }
    }
  }
  for (auto* s : p.streams) answered("stream_synchronize", api->stream_synchronize(s));
  return 0;
}
