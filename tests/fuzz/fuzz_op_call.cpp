// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: devplug_op_call on the reference plugin with a fuzzed op, arity,
// dtypes, shapes, strides and offsets (as_strided views), attribute structs (fields and
// struct_size, including too small), NULL tensors and aliasing between inputs and outputs.
//
// Input: the op (a byte picks one of ops.def's ids; 0xff reads a raw id), then each input
// and output tensor, then the attribute struct (tests/fuzz/README.md).
// Properties: nothing crashes, leaks or touches memory outside a buffer (ASan, LSan, UBSan);
// a refused call says why with INVALID_ARGUMENT (UNIMPLEMENTED or RESOURCE_EXHAUSTED where
// those apply), never INTERNAL or another code; a refused call leaves the stream working.
#include <algorithm>
#include <vector>

#include "devplug/devplug.h"
#include "fuzz_host.hpp"
#include "fuzz_input.hpp"

using devplug::fuzz::check;
using devplug::fuzz::fail;
using devplug::fuzz::FuzzInput;
using devplug::fuzz::open_reference;
using devplug::fuzz::take;

namespace {

constexpr int64_t kMaxElements = 4096;
constexpr size_t kMaxTensors = 6;

devplug_context_t* context = nullptr;
devplug_device_t* device = nullptr;
devplug_stream_t* stream = nullptr;
std::vector<devplug_op_t> op_ids;  // every id of ops.def

// An error an op call may give for bad input; anything else is a finding.
void expect_refusal(devplug_error_t* e, const std::string& what) {
  const devplug_code_t code = e->code;
  if ((code != DEVPLUG_CODE_INVALID_ARGUMENT && code != DEVPLUG_CODE_UNIMPLEMENTED &&
       code != DEVPLUG_CODE_RESOURCE_EXHAUSTED) ||
      e->message == nullptr || e->message[0] == '\0')
    fail(what + " answered " + take(e));
  devplug_error_destroy(e);
}

// Tensors of one call; released at the end of the input.
struct Tensors {
  std::vector<devplug_tensor_t*> owned;
  ~Tensors() {
    for (devplug_tensor_t* t : owned) devplug_tensor_release(t);
  }
  devplug_tensor_t* keep(devplug_tensor_t* t) {
    if (t) owned.push_back(t);
    return t;
  }
};

// A fresh tensor, its bytes from the input, or nullptr for a shape too large to make here.
devplug_tensor_t* make_tensor(FuzzInput& in, Tensors& tensors) {
  const auto dtype = static_cast<devplug_dtype_t>(in.byte() % DEVPLUG_DTYPE_COUNT);
  const int32_t rank = in.byte() % 5;
  int64_t shape[4] = {};
  int64_t numel = 1;
  for (int32_t k = 0; k < rank; ++k) {
    shape[k] = in.value(0, 5);
    if (shape[k] < 0 || shape[k] > kMaxElements) return nullptr;
    numel *= shape[k];
    if (numel > kMaxElements) return nullptr;
  }
  devplug_tensor_t* t = nullptr;
  check(devplug_tensor_create(device, dtype, rank, shape, &t), "create");
  tensors.keep(t);
  std::vector<uint8_t> bytes(static_cast<size_t>(numel) * devplug_dtype_size(dtype));
  // Values from the input: the first 16 bytes repeat, so NaN, Inf and limits are reachable.
  uint8_t pattern[16];
  in.bytes(pattern, sizeof pattern);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = pattern[i % sizeof pattern];
  check(devplug_tensor_copy_from_host(stream, t, bytes.data(), bytes.size(), DEVPLUG_COPY_BLOCKING),
        "upload");
  return t;
}

// A view of `t` with fuzzed shape, strides and offset, or `t` when the view is refused.
devplug_tensor_t* restride(FuzzInput& in, devplug_tensor_t* t, Tensors& tensors) {
  const int32_t rank = in.byte() % 5;
  int64_t shape[4] = {}, strides[4] = {};
  int64_t numel = 1;
  for (int32_t k = 0; k < rank; ++k) {
    shape[k] = in.value(0, 5);
    strides[k] = in.value(-4, 4);
    // Stride 0 makes any count of elements a valid view; keep the work per input small.
    if (shape[k] < 0 || shape[k] > kMaxElements || (numel *= shape[k]) > kMaxElements) return t;
  }
  devplug_tensor_t* v = nullptr;
  devplug_error_t* e = devplug_tensor_as_strided(t, rank, shape, strides, in.value(0, 16), &v);
  if (e) {
    expect_refusal(e, "as_strided");
    return t;
  }
  return tensors.keep(v);
}

// The tensors of one side of the call: new ones, views, NULLs, or ones already made
// (aliasing).
std::vector<devplug_tensor_t*> make_side(FuzzInput& in, size_t count, std::vector<devplug_tensor_t*>& made,
                                         Tensors& tensors) {
  std::vector<devplug_tensor_t*> side;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t how = in.byte();
    devplug_tensor_t* t = nullptr;
    if (how < 0xc0 || made.empty()) {
      t = make_tensor(in, tensors);
      if (t && (how & 1)) t = restride(in, t, tensors);
    } else if (how < 0xf0) {
      t = made[how % made.size()];  // the same tensor again
      if (how & 1) t = restride(in, t, tensors);
    }  // else NULL
    if (t) made.push_back(t);
    side.push_back(t);
  }
  return side;
}

size_t arity(FuzzInput& in, int32_t declared) {
  const uint8_t b = in.byte();
  int64_t n = declared >= 0 ? declared : 1 + b % 4;
  if (b >= 0xf8) n += (b & 1) ? 1 : -1;  // sometimes one too many or too few
  return static_cast<size_t>(std::min<int64_t>(std::max<int64_t>(n, 0), kMaxTensors));
}

// The attribute struct: NULL, or `size` bytes whose first field says struct_size.
std::vector<uint8_t> make_attrs(FuzzInput& in, size_t attrs_size, bool* null_attrs) {
  const uint8_t how = in.byte();
  *null_attrs = how < 0x10;
  if (*null_attrs) return {};
  size_t struct_size = attrs_size ? attrs_size : sizeof(size_t);
  if (how >= 0xe0)
    struct_size = in.byte() % (struct_size + 1);  // too small (or exact)
  else if (how >= 0xc0)
    struct_size += 8 + in.byte() % 57;  // from a newer caller
  std::vector<uint8_t> attrs(std::max(struct_size, sizeof(size_t)));
  in.bytes(attrs.data(), attrs.size());
  std::memcpy(attrs.data(), &struct_size, sizeof struct_size);
  return attrs;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  open_reference(&context, &device);
  check(devplug_device_default_stream(device, &stream), "stream");
  for (devplug_op_t id = 0; id < 4096; ++id)
    if (devplug_op_info(id)) op_ids.push_back(id);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const uint8_t pick = in.byte();
  const devplug_op_t op = pick == 0xff ? in.raw<devplug_op_t>() : op_ids[pick % op_ids.size()];
  const devplug_op_info_t* info = devplug_op_info(op);

  Tensors tensors;
  std::vector<devplug_tensor_t*> made;
  const std::vector<devplug_tensor_t*> inputs =
      make_side(in, arity(in, info ? info->n_inputs : 2), made, tensors);
  const std::vector<devplug_tensor_t*> outputs =
      make_side(in, arity(in, info ? info->n_outputs : 1), made, tensors);
  bool null_attrs = false;
  std::vector<uint8_t> attrs = make_attrs(in, info ? info->attrs_size : 0, &null_attrs);

  const std::string what = std::string("op ") + (info ? info->name : std::to_string(op).c_str());
  devplug_error_t* e = devplug_op_call(stream, op, inputs.data(), inputs.size(), outputs.data(),
                                       outputs.size(), null_attrs ? nullptr : attrs.data());
  if (e) expect_refusal(e, what);
  if ((e = devplug_stream_synchronize(stream))) expect_refusal(e, what + ", at synchronize");
  // The stream still works after whatever happened.
  if (!tensors.owned.empty()) {
    devplug_tensor_t* first = tensors.owned.front();  // made by make_tensor: small and dense
    int64_t n = 0;
    check(devplug_tensor_numel(first, &n), "numel");
    devplug_tensor_desc_t d{};
    d.struct_size = sizeof d;
    check(devplug_tensor_describe(first, &d), "describe");
    std::vector<uint8_t> back(static_cast<size_t>(n) * devplug_dtype_size(d.dtype));
    check(devplug_tensor_copy_to_host(stream, first, back.data(), back.size()), what + ", then a read");
  }
  return 0;
}
