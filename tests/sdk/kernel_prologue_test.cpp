// SPDX-License-Identifier: Apache-2.0
// The kernel prologue's one-pass check (checks::kernel_call_holds) against the rows it stands
// for (EntryChecks::kernel, generated from plugin_api.def): for every op, a well-formed call
// and that call broken in every way the rows name, alone and in pairs, the pass says "holds"
// exactly when no row throws. A "holds" for a broken call would let it reach a kernel body
// unchecked; so this test fails on any row the pass forgets.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "devplug/ops.h"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/kernel.hpp"
#include "devplug/sdk/kernels.hpp"

namespace sdk = devplug::sdk;

namespace {

// Handles are numbered slots of one array here: a buffer's device is its number's tens,
// buffer 99 is stale (its traits call throws), and the stream lives on device 1, which claims
// every dtype but float64.
struct FakeTraits {
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) {
    return handle<devplug_device_handle_t>(number(stream) / 10);
  }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) {
    if (number(buffer) == 99) sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "stale buffer");
    return handle<devplug_device_handle_t>(number(buffer) / 10);
  }
  static devplug_dtype_mask_t claimed_dtypes(devplug_stream_handle_t*) {
    return DEVPLUG_DTYPES_ALL & ~DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64);
  }
  template <typename T>
  static T* handle(size_t number) {
    return reinterpret_cast<T*>(&slots()[number]);
  }
  template <typename T>
  static size_t number(T* handle) {
    return static_cast<size_t>(reinterpret_cast<char*>(handle) - slots());
  }
  static char* slots() {
    static char storage[128];
    return storage;
  }
};

devplug_stream_handle_t* const kStream = FakeTraits::handle<devplug_stream_handle_t>(10);

// A call the rows accept, owning its descriptors and attributes; `mutate` breaks it.
struct Call {
  explicit Call(const devplug_op_info_t& info) {
    devplug_dtype_t dtype = DEVPLUG_DTYPE_FLOAT32;
    for (int d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
      if ((info.dtypes & DEVPLUG_DTYPE_BIT(d)) != 0 && d != DEVPLUG_DTYPE_FLOAT64 &&
          (info.dtypes & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32)) == 0) {
        dtype = static_cast<devplug_dtype_t>(d);
        break;
      }
    n_in = info.n_inputs < 0 ? 2 : static_cast<size_t>(info.n_inputs);
    descs.resize(n_in + static_cast<size_t>(info.n_outputs));
    for (size_t i = 0; i < descs.size(); ++i) {
      devplug_tensor_desc_t& t = descs[i];
      t = devplug_tensor_desc_t{};
      t.struct_size = sizeof(devplug_tensor_desc_t);
      t.buffer = FakeTraits::handle<devplug_buffer_handle_t>(11 + i % 8);
      t.dtype = dtype;
      t.rank = 1;
      t.shape[0] = 4;
      t.strides[0] = 1;
    }
    // One more valid tensor past each list's end, for the calls that claim one more.
    for (size_t i = 0; i < n_in; ++i) inputs.push_back(&descs[i]);
    inputs.push_back(&descs[0]);
    for (size_t i = n_in; i < descs.size(); ++i) outputs.push_back(&descs[i]);
    outputs.push_back(&descs[n_in]);
    attrs.assign(info.attrs_size + sizeof(size_t), 0);
    auto* none = reinterpret_cast<devplug_none_attrs_t*>(attrs.data());
    none->struct_size = info.attrs_size;
    call = devplug_op_call_t{sizeof(devplug_op_call_t),
                             info.id,
                             inputs.data(),
                             n_in,
                             outputs.data(),
                             outputs.size() - 1,
                             info.attrs_size ? attrs.data() : nullptr};
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  size_t n_in = 0;
  std::vector<devplug_tensor_desc_t> descs;
  std::vector<const devplug_tensor_desc_t*> inputs, outputs;
  std::vector<unsigned char> attrs;
  devplug_op_call_t call{};
  devplug_stream_handle_t* stream = kStream;
  bool null_call = false;
};

using Mutation = std::function<void(Call&)>;

// Every way the rows name to break a call, for the op's shape of call.
std::vector<std::pair<std::string, Mutation>> mutations(const devplug_op_info_t& info) {
  std::vector<std::pair<std::string, Mutation>> m = {
      {"null stream", [](Call& c) { c.stream = nullptr; }},
      {"null call", [](Call& c) { c.null_call = true; }},
      {"short call", [](Call& c) { c.call.struct_size = DEVPLUG_OP_CALL_MIN_SIZE - 1; }},
      {"unknown op", [](Call& c) { c.call.op = static_cast<devplug_op_t>(1 << 20); }},
      {"extra input", [](Call& c) { c.call.n_inputs += 1; }},
      {"no inputs", [](Call& c) { c.call.n_inputs = 0; }},
      {"extra output", [](Call& c) { c.call.n_outputs += 1; }},
      {"null inputs", [](Call& c) { c.call.inputs = nullptr; }},
      {"null outputs", [](Call& c) { c.call.outputs = nullptr; }},
      {"stream on device 2", [](Call& c) { c.stream = FakeTraits::handle<devplug_stream_handle_t>(20); }},
  };
  const size_t n = static_cast<size_t>(info.n_inputs < 0 ? 2 : info.n_inputs) + info.n_outputs;
  for (size_t i = 0; i < n; ++i) {
    const std::string at = " of tensor " + std::to_string(i);
    auto slot = [i](Call& c) -> const devplug_tensor_desc_t*& {
      return i < c.n_in ? c.inputs[i] : c.outputs[i - c.n_in];
    };
    m.emplace_back("null" + at, [slot](Call& c) { slot(c) = nullptr; });
    m.emplace_back("short" + at, [i](Call& c) { c.descs[i].struct_size = 8; });
    m.emplace_back("null buffer" + at, [i](Call& c) { c.descs[i].buffer = nullptr; });
    m.emplace_back("dtype -1" + at, [i](Call& c) { c.descs[i].dtype = static_cast<devplug_dtype_t>(-1); });
    m.emplace_back("dtype past the last" + at,
                   [i](Call& c) { c.descs[i].dtype = static_cast<devplug_dtype_t>(DEVPLUG_DTYPE_COUNT); });
    m.emplace_back("rank -1" + at, [i](Call& c) { c.descs[i].rank = -1; });
    m.emplace_back("rank 9" + at, [i](Call& c) { c.descs[i].rank = DEVPLUG_MAX_RANK + 1; });
    m.emplace_back("float64, unclaimed" + at, [i](Call& c) { c.descs[i].dtype = DEVPLUG_DTYPE_FLOAT64; });
    m.emplace_back("another device" + at,
                   [i](Call& c) { c.descs[i].buffer = FakeTraits::handle<devplug_buffer_handle_t>(21); });
    m.emplace_back("stale buffer" + at,
                   [i](Call& c) { c.descs[i].buffer = FakeTraits::handle<devplug_buffer_handle_t>(99); });
    for (int d = 0; d < DEVPLUG_DTYPE_COUNT; ++d)
      m.emplace_back("dtype " + std::string(devplug_dtype_name(static_cast<devplug_dtype_t>(d))) + at,
                     [i, d](Call& c) { c.descs[i].dtype = static_cast<devplug_dtype_t>(d); });
  }
  if (info.attrs_size != 0) {
    m.emplace_back("null attrs", [](Call& c) { c.call.attrs = nullptr; });
    m.emplace_back("short attrs", [](Call& c) {
      reinterpret_cast<devplug_none_attrs_t*>(c.attrs.data())->struct_size -= 1;
    });
  }
  return m;
}

bool rows_throw(const Call& c) {
  try {
    sdk::detail::EntryChecks<FakeTraits>::kernel(c.stream, c.null_call ? nullptr : &c.call);
    return false;
  } catch (const sdk::Error&) {
    return true;
  }
}

bool pass_holds(const Call& c) {
  return sdk::detail::checks::kernel_call_holds<FakeTraits>(c.stream, c.null_call ? nullptr : &c.call);
}

TEST(KernelPrologue, OnePassAgreesWithTheRowsForEveryOpAndBrokenCall) {
  size_t broken = 0, checked = 0;
  for (devplug_op_t op : sdk::all_ops()) {
    const devplug_op_info_t& info = *devplug_op_info(op);
    {
      Call c(info);
      ASSERT_FALSE(rows_throw(c)) << info.name << ": the well-formed call";
      ASSERT_TRUE(pass_holds(c)) << info.name << ": the well-formed call";
    }
    const auto all = mutations(info);
    for (size_t a = 0; a < all.size(); ++a)
      for (size_t b = a; b < all.size(); b += (a == b ? 1 : 7)) {  // each alone, and a spread of pairs
        Call c(info);
        all[a].second(c);
        if (b != a) all[b].second(c);
        const bool throws = rows_throw(c);
        ASSERT_EQ(pass_holds(c), !throws)
            << info.name << ": " << all[a].first << (b != a ? ", " : "") << (b != a ? all[b].first : "");
        broken += throws ? 1 : 0;
        ++checked;
      }
  }
  EXPECT_GT(broken, checked / 2) << "most mutations must break a row";
}

// A call that breaks several rows gets the first one's error through run_kernel, not a later
// one's, and the body never runs.
TEST(KernelPrologue, RunKernelReportsTheFirstRowThatApplies) {
  Call c(*devplug_op_info(DEVPLUG_OP_add));
  c.descs[1].rank = -1;                      // a rank row ...
  c.descs[2].dtype = DEVPLUG_DTYPE_FLOAT64;  // ... before the claimed-dtype row
  bool ran = false;
  devplug_error_t* error = sdk::run_kernel<FakeTraits>(c.stream, &c.call, [&] { ran = true; });
  ASSERT_NE(error, nullptr);
  EXPECT_FALSE(ran);
  EXPECT_EQ(error->code, DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error->message).find("rank outside"), std::string::npos) << error->message;
  sdk::error_destroy(error);

  Call good(*devplug_op_info(DEVPLUG_OP_add));
  EXPECT_EQ(sdk::run_kernel<FakeTraits>(good.stream, &good.call, [&] { ran = true; }), nullptr);
  EXPECT_TRUE(ran);
}

}  // namespace
