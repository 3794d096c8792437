// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: tensor creation and every view op of the host API (devplug.h) from
// fuzzed shapes, strides, offsets, dims and dtypes, on the reference plugin.
//
// Input: a creation (dtype, rank, dims), then up to 12 steps, each a view op applied to one
// of the tensors made so far, with its arguments (tests/fuzz/README.md).
// Properties: nothing crashes or reads outside a buffer; creation succeeds exactly when the
// shape is valid (rank <= DEVPLUG_MAX_RANK, dims >= 0, a known dtype, a size that fits in
// int64) and fails with INVALID_ARGUMENT otherwise; every view that succeeds describes a
// shape with dims >= 0, a byte_offset inside its storage (empty views included) and elements
// that all lie inside it, and reading it back gives exactly the bytes a host-side model of
// the storage says it holds.
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

using Wide = __int128;
constexpr int64_t kMaxCreateBytes = 1 << 20;  // larger valid shapes are not allocated here
constexpr int64_t kMaxReadElements = 1 << 16;
constexpr int kMaxSteps = 12;

devplug_context_t* context = nullptr;
devplug_device_t* device = nullptr;

// A call that may fail: an error must be INVALID_ARGUMENT with a message.
bool attempt(devplug_error_t* e, const char* what) {
  if (e == nullptr) return true;
  if (e->code != DEVPLUG_CODE_INVALID_ARGUMENT || e->message == nullptr || e->message[0] == '\0')
    fail(std::string(what) + " failed with " + take(e) + ", expected INVALID_ARGUMENT");
  devplug_error_destroy(e);
  return false;
}

bool shape_is_valid(devplug_dtype_t dtype, int32_t rank, const int64_t* shape) {
  if (rank < 0 || rank > DEVPLUG_MAX_RANK || devplug_dtype_size(dtype) == 0) return false;
  Wide product = 1;
  bool empty = false;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0) return false;
    if (shape[d] == 0)
      empty = true;
    else if ((product *= shape[d]) > INT64_MAX)
      return false;
  }
  return (empty ? 0 : product) * static_cast<Wide>(devplug_dtype_size(dtype)) <= INT64_MAX;
}

// The storage every view reads: its first byte is at `base_offset` of the buffer.
struct Storage {
  std::vector<uint8_t> bytes;
  uint64_t base_offset = 0;
};

// Checks a view's description against its storage and reads it back through the plugin.
void check_view(const devplug_tensor_t* view, const Storage& storage) {
  devplug_tensor_desc_t d{};
  d.struct_size = sizeof d;
  check(devplug_tensor_describe(view, &d), "describe");
  if (d.rank < 0 || d.rank > DEVPLUG_MAX_RANK) fail("a view of rank " + std::to_string(d.rank));
  const size_t esize = devplug_dtype_size(d.dtype);
  if (esize == 0) fail("a view of dtype " + std::to_string(d.dtype));
  Wide numel = 1, low = 0, high = 0;
  for (int32_t k = 0; k < d.rank; ++k) {
    if (d.shape[k] < 0) fail("a view with dim " + std::to_string(d.shape[k]));
    numel *= d.shape[k];
    if (d.shape[k] > 1) {
      const Wide reach = static_cast<Wide>(d.strides[k]) * (d.shape[k] - 1);
      (reach < 0 ? low : high) += reach;
    }
  }
  if (numel > INT64_MAX) fail("a view with more than 2^63 elements");
  int64_t reported = -1;
  check(devplug_tensor_numel(view, &reported), "numel");
  if (reported != static_cast<int64_t>(numel)) fail("numel says " + std::to_string(reported));
  // Even an empty view's byte_offset lies in its buffer: plugins form pointers from it.
  if (d.byte_offset < storage.base_offset || d.byte_offset - storage.base_offset > storage.bytes.size())
    fail("a view's byte_offset " + std::to_string(d.byte_offset) + " lies outside its storage");
  if (numel == 0) return;
  const Wide first = static_cast<Wide>(d.byte_offset) - storage.base_offset + low * static_cast<Wide>(esize);
  const Wide last =
      static_cast<Wide>(d.byte_offset) - storage.base_offset + (high + 1) * static_cast<Wide>(esize);
  if (first < 0 || last > static_cast<Wide>(storage.bytes.size()))
    fail("a view reaches outside its storage of " + std::to_string(storage.bytes.size()) + " bytes");
  if (numel > kMaxReadElements) return;

  std::vector<uint8_t> got(static_cast<size_t>(numel) * esize);
  check(devplug_tensor_copy_to_host(nullptr, view, got.data(), got.size()), "copy_to_host of a view");
  int64_t index[DEVPLUG_MAX_RANK] = {};
  for (int64_t n = 0; n < static_cast<int64_t>(numel); ++n) {
    Wide at = static_cast<Wide>(d.byte_offset) - storage.base_offset;
    for (int32_t k = 0; k < d.rank; ++k)
      at += static_cast<Wide>(index[k]) * d.strides[k] * static_cast<Wide>(esize);
    const uint8_t* want = storage.bytes.data() + static_cast<size_t>(at);
    const uint8_t* have = got.data() + static_cast<size_t>(n) * esize;
    const bool same =
        d.dtype == DEVPLUG_DTYPE_BOOL ? (*want != 0) == (*have != 0) : std::memcmp(want, have, esize) == 0;
    if (!same) fail("element " + std::to_string(n) + " of a view differs from the storage");
    for (int32_t k = d.rank - 1; k >= 0 && ++index[k] == d.shape[k]; --k) index[k] = 0;
  }
}

// One view op on `t`, its arguments read from `in`; the new view or nullptr.
devplug_tensor_t* view_step(FuzzInput& in, const devplug_tensor_t* t) {
  devplug_tensor_t* v = nullptr;
  int64_t shape[DEVPLUG_MAX_RANK + 1] = {}, strides[DEVPLUG_MAX_RANK + 1] = {};
  int32_t dims[DEVPLUG_MAX_RANK + 1] = {};
  const uint8_t op = in.byte() % 10;
  bool ok = false;
  switch (op) {
    case 0: {
      const int32_t rank = in.byte() % (DEVPLUG_MAX_RANK + 2);
      for (int32_t k = 0; k < rank; ++k) shape[k] = in.value(-2, 12);
      ok = attempt(devplug_tensor_reshape(t, rank, shape, &v), "reshape");
      break;
    }
    case 1:
      for (int32_t k = 0; k < DEVPLUG_MAX_RANK; ++k) dims[k] = static_cast<int32_t>(in.value(-2, 8));
      ok = attempt(devplug_tensor_permute(t, dims, &v), "permute");
      break;
    case 2: {
      const auto d0 = static_cast<int32_t>(in.value(-3, 9)), d1 = static_cast<int32_t>(in.value(-3, 9));
      ok = attempt(devplug_tensor_transpose(t, d0, d1, &v), "transpose");
      break;
    }
    case 3: {
      const int32_t rank = in.byte() % (DEVPLUG_MAX_RANK + 2);
      for (int32_t k = 0; k < rank; ++k) shape[k] = in.value(-2, 9);
      ok = attempt(devplug_tensor_expand(t, rank, shape, &v), "expand");
      break;
    }
    case 4: {
      const auto dim = static_cast<int32_t>(in.value(-3, 9));
      const int64_t start = in.value(-12, 12), stop = in.value(-12, 12), step = in.value(-4, 4);
      ok = attempt(devplug_tensor_slice(t, dim, start, stop, step, &v), "slice");
      break;
    }
    case 5:
      ok = attempt(devplug_tensor_squeeze(t, static_cast<int32_t>(in.value(-3, 9)), &v), "squeeze");
      break;
    case 6:
      ok = attempt(devplug_tensor_unsqueeze(t, static_cast<int32_t>(in.value(-3, 9)), &v), "unsqueeze");
      break;
    case 7: {
      const int64_t offset = in.value(-6, 6);
      const auto d0 = static_cast<int32_t>(in.value(-3, 9)), d1 = static_cast<int32_t>(in.value(-3, 9));
      ok = attempt(devplug_tensor_diagonal(t, offset, d0, d1, &v), "diagonal");
      break;
    }
    default: {
      const bool retype = op == 9;
      const auto dtype = static_cast<devplug_dtype_t>(in.value(-1, DEVPLUG_DTYPE_COUNT));
      const int32_t rank = in.byte() % (DEVPLUG_MAX_RANK + 2);
      for (int32_t k = 0; k < rank; ++k) {
        shape[k] = in.value(-1, 7);
        strides[k] = in.value(-7, 7);
      }
      const int64_t offset = in.value(-2, 40);
      ok = retype ? attempt(devplug_tensor_as_strided_dtype(t, dtype, rank, shape, strides, offset, &v),
                            "as_strided_dtype")
                  : attempt(devplug_tensor_as_strided(t, rank, shape, strides, offset, &v), "as_strided");
      break;
    }
  }
  if (ok && v == nullptr) fail("a view op succeeded without a view");
  if (!ok && v != nullptr) fail("a view op failed and still gave a view");
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  open_reference(&context, &device);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  const auto dtype = static_cast<devplug_dtype_t>(in.value(-1, DEVPLUG_DTYPE_COUNT));
  const int32_t rank = in.byte() % (DEVPLUG_MAX_RANK + 2);
  int64_t shape[DEVPLUG_MAX_RANK + 1] = {};
  for (int32_t k = 0; k < rank; ++k) shape[k] = in.value(0, 9);

  const bool valid = shape_is_valid(dtype, rank, shape);
  Wide bytes = valid ? static_cast<Wide>(devplug_dtype_size(dtype)) : 0;
  for (int32_t k = 0; valid && k < rank; ++k) bytes *= shape[k];
  if (valid && bytes > kMaxCreateBytes) return 0;  // valid, but too large to allocate here

  devplug_tensor_t* base = nullptr;
  devplug_error_t* e = devplug_tensor_create(device, dtype, rank, shape, &base);
  if (!valid) {
    if (e == nullptr) fail("an invalid shape was created");
    attempt(e, "create");
    return 0;
  }
  check(e, "create of a valid shape");

  Storage storage;
  storage.bytes.resize(static_cast<size_t>(bytes));
  for (size_t i = 0; i < storage.bytes.size(); ++i) storage.bytes[i] = static_cast<uint8_t>(i * 131 + 7);
  if (dtype == DEVPLUG_DTYPE_BOOL)
    for (uint8_t& b : storage.bytes) b &= 1;
  check(devplug_tensor_copy_from_host(nullptr, base, storage.bytes.data(), storage.bytes.size(),
                                      DEVPLUG_COPY_BLOCKING),
        "upload");
  uint64_t storage_bytes = 0;
  check(devplug_tensor_storage_bytes(base, &storage_bytes), "storage_bytes");
  if (storage_bytes != storage.bytes.size()) fail("storage_bytes says " + std::to_string(storage_bytes));
  devplug_tensor_desc_t d{};
  d.struct_size = sizeof d;
  check(devplug_tensor_describe(base, &d), "describe");
  storage.base_offset = d.byte_offset;
  check_view(base, storage);

  std::vector<devplug_tensor_t*> tensors{base};
  for (int step = 0; step < kMaxSteps && !in.done(); ++step) {
    const devplug_tensor_t* from = tensors[in.byte() % tensors.size()];
    if (devplug_tensor_t* v = view_step(in, from)) {
      tensors.push_back(v);
      check_view(v, storage);
    }
  }
  for (devplug_tensor_t* t : tensors) devplug_tensor_release(t);
  return 0;
}
